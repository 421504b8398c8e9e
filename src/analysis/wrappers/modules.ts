/**
 * Following imports to a team's retry helpers in other files: resolve a relative (or workspace)
 * import to a file, parse it once with the linted file's parser, and keep only what calls need:
 * its retry helpers by export name. Parsed files are cached by absolute path, mtime and size in a
 * bounded module-level map, so a keystroke in the caller costs at most a stat per followed import
 * (none when the same import was checked in the last quarter second).
 * Nothing here throws: an unreadable or unparsable file is simply not a helper.
 */
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { basename, dirname, extname, isAbsolute, join, resolve, sep } from 'node:path';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { SourceCode } from 'eslint';
import type { AnalysisContext } from '../library.js';
import { constInitializer, findVariable, staticPropertyName, unwrap } from '../ast.js';
import type { WrapperHelper } from './inferred.js';
import { clearWorkspaces, declaredWorkspacePackage } from './workspaces.js';
import { aliasesFor, clearPathAliases, knownAliases, resolveWithAliases, type Aliases } from './tsconfig-paths.js';
import { ByFolder } from './by-folder.js';

type Fn = TSESTree.FunctionLike;

/** How the linted file was parsed, so imported files are parsed the same way. */
export interface ParseEnvironment {
  readonly parser?: unknown;
  readonly parserOptions?: unknown;
}

/** What a parsed module offers: its helpers by export name, and where it re-exports from. */
export interface ModuleSummary {
  readonly file: string;
  readonly helpers: ReadonlyMap<string, WrapperHelper>;
  /** `export { a as b } from './x'` (exported -> imported) and `export * from './x'`. */
  readonly reexports: readonly { readonly from: string; readonly names: ReadonlyMap<string, string> | '*' }[];
}

/** Builds the analysis of a parsed file (context and helpers); supplied by the model builder. */
export type AnalyseFile = (sourceCode: Readonly<TSESLint.SourceCode>) => { ctx: AnalysisContext; helpers: ReadonlyMap<Fn, WrapperHelper> };

/** A summary keeps nodes only of the helpers it found, so most entries are small. */
const MAX_MODULES = 2000;
const summaries = new Map<string, Versioned & { summary: ModuleSummary | undefined }>();
const MAX_RESOLUTIONS = 5000;
const workspaceResolutions = new ByFolder<string | undefined>(MAX_RESOLUTIONS);
/** Relative imports by importing directory and specifier, trusted for the freshness window. */
const relativeResolutions = new ByFolder<{ file: string | undefined; checkedAt: number }>(MAX_RESOLUTIONS);
let parses = 0;
let reuses = 0;
/** Bindings settled by knownWithout, before any argument was evaluated. */
let settledUnread = 0;

const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
/**
 * An imported file is parsed only when its text could hold a retry helper or pass one on: a way to
 * see a failure (`catch`, `.ok`, `.status`, a rejection handler, an error callback) together with
 * a word retry code is written with, or a re-export. A helper with neither word (a bare
 * `for (…) try { return await fn() } catch {}` named `robust`) is not followed; calls to it stay
 * unknown, as they are for any file that cannot be read.
 */
const FAILURE_HINT = /catch|\.ok\b|\.status|\.then\s*\(|\berr(?:or)?\b/;
const RETRY_HINT = /[sS]etTimeout|[sS]leep|[dD]elay|[wW]ait|[pP]ause|[bB]ackoff|[rR]etr(?:y|ies)|[aA]ttempt|[tT]ries|[tT]imes|RETR(?:Y|IES)|ATTEMPT|BACKOFF/;
const REEXPORT_HINT = /export\s*(?:\*|\{[^}]*\}\s*from)/;
/** An import of a module named for retrying (`p-retry`, `async-retry`): a helper may be a one-line call of it. */
const RETRY_MODULE_HINT = /(?:from\s*|require\(\s*)['"][^'"]*(?:retry|backoff)[^'"]*['"]/i;

function mayOfferHelpers(text: string): boolean {
  return (FAILURE_HINT.test(text) && RETRY_HINT.test(text)) || REEXPORT_HINT.test(text) || RETRY_MODULE_HINT.test(text);
}

/** For tests and long-running editors: forget every parsed file. */
export function clearModuleCache(): void {
  summaries.clear();
  listings.clear();
  relativeResolutions.clear();
  workspaceResolutions.clear();
  nodeModulesDirs.clear();
  chains.clear();
  linted.clear();
  links.clear();
  entries.clear();
  sources.clear();
  clearPathAliases();
  clearWorkspaces();
}

/** Cache statistics, for tests of the per-keystroke cost. */
export function moduleCacheStats(): { modules: number; parses: number; reuses: number; settledUnread: number; remembered: number } {
  return { modules: summaries.size, parses, reuses, settledUnread, remembered: linted.size };
}

const BUILTINS: ReadonlySet<string> = new Set(builtinModules);

export function isFollowable(specifier: string): boolean {
  if (specifier.startsWith('.') || specifier.startsWith('/')) return true;
  if (specifier.startsWith('node:') || BUILTINS.has(specifier)) return false;
  // Package names, and the alias prefixes tsconfig paths commonly use (`@/`, `~/`, `#`).
  return /^(?:@[\w.-]*\/|~\/?|#)?[\w.-]+(?:\/.*)?$/.test(specifier);
}

/**
 * The folder of the last importing file asked about: each import of a file asks knownUnresolved,
 * knownWithout and resolveImport with the same file, binding after binding.
 */
let lastFile = '';
let lastDir = '';
function dirOf(file: string): string {
  if (file !== lastFile) {
    lastDir = dirname(file);
    lastFile = file;
  }
  return lastDir;
}

/** The file an import points at: relative paths by probing extensions, bare names as tsconfig path aliases or workspace symlinks. */
export function resolveImport(specifier: string, fromFile: string): string | undefined {
  try {
    const dir = dirOf(fromFile);
    if (specifier.startsWith('.') || specifier.startsWith('/')) {
      const now = performance.now();
      const hit = relativeResolutions.get(dir, specifier);
      if (hit && now - hit.checkedAt < FRESH_MS) return hit.file;
      const file = probe(resolve(dir, specifier));
      relativeResolutions.set(dir, specifier, { file, checkedAt: now });
      return file;
    }
    if (workspaceResolutions.has(dir, specifier)) return workspaceResolutions.get(dir, specifier);
    // What a bare name leads to depends on the folder only through the tsconfig aliases in force
    // there and the node_modules folders above it, both shared by every folder under the same ones:
    // a name is resolved once for each such pair, not once per importing folder.
    const aliases = aliasesFor(dir);
    const chain = nodeModulesChain(dir);
    let byName = byPlace.get(chain)?.get(aliases);
    if (!byName) {
      let forChain = byPlace.get(chain);
      if (!forChain) byPlace.set(chain, (forChain = new Map()));
      forChain.set(aliases, (byName = new Map()));
    }
    let found: string | undefined;
    if (byName.has(specifier)) found = byName.get(specifier);
    else {
      // As the compiler does: a tsconfig path alias first, then a workspace package.
      found = resolveWithAliases(aliases, specifier, probe) ?? resolveWorkspace(specifier, dir);
      if (byName.size < MAX_RESOLUTIONS) byName.set(specifier, found);
    }
    workspaceResolutions.set(dir, specifier, found);
    return found;
  } catch {
    return undefined;
  }
}

/**
 * Whether a bare name is already known, from the resolutions kept, to lead to no file for imports
 * from `fromFile`'s folder; false when it leads somewhere or is not known yet (nothing is read or
 * statted here). Relative paths are never "known" this way.
 */
export function knownUnresolved(specifier: string, fromFile: string): boolean {
  if (specifier.startsWith('.') || specifier.startsWith('/')) return false;
  const dir = dirOf(fromFile);
  if (workspaceResolutions.has(dir, specifier)) return workspaceResolutions.get(dir, specifier) === undefined;
  const chain = chains.get(dir);
  const aliases = chain && knownAliases(dir);
  if (!chain || aliases === undefined) return false;
  const byName = byPlace.get(chain)?.get(aliases);
  return !!byName && byName.has(specifier) && byName.get(specifier) === undefined;
}

/**
 * Whether an import is already known to offer none of `names` (nor anything re-exported), from what
 * earlier files of the run looked up: its resolution kept in memory (no probe of the disk) and the
 * summary of the file it leads to, still current (a stat at most, as peekModule would pay). False
 * whenever that is not known; the caller then decides the long way. Settles, before any argument
 * is evaluated, the calls of a module that many files of a project import (a logger, a workspace
 * package of plain functions).
 */
export function knownWithout(specifier: string, fromFile: string, names: readonly string[]): boolean {
  const dir = dirOf(fromFile);
  let file: string | undefined;
  if (specifier.startsWith('.') || specifier.startsWith('/')) {
    const hit = relativeResolutions.get(dir, specifier);
    if (!hit || performance.now() - hit.checkedAt >= FRESH_MS) return false;
    file = hit.file;
  } else {
    if (!workspaceResolutions.has(dir, specifier)) return false;
    file = workspaceResolutions.get(dir, specifier);
  }
  if (file === undefined) return false;
  const hit = summaries.get(file);
  if (!hit?.summary || versionOf(file, hit, performance.now()) !== 'current') return false;
  const { summary } = hit;
  const settled = summary.reexports.length === 0 && !names.some((n) => summary.helpers.has(n));
  if (settled) settledUnread++;
  return settled;
}

/**
 * Directory listings, each valid while the directory's mtime stays the same (adding, removing or
 * renaming an entry changes it). A probe for `./retry` tries up to 18 names in two directories;
 * with the listings that is two stats, not eighteen, and a file created later is still seen.
 */
const MAX_LISTINGS = 1000;
/**
 * A listing or summary checked this recently is used without a stat: a linting run reads the same
 * directories and modules for file after file, and a change made in the last moment is seen on
 * the next lint after it.
 */
export const FRESH_MS = 250;
/** `files` is undefined for a path that is not a readable directory (mtime -1). */
const listings = new Map<string, { mtimeMs: number; checkedAt: number; files: ReadonlySet<string> | undefined }>();

function filesIn(dir: string, seen: Map<string, ReadonlySet<string> | undefined>): ReadonlySet<string> | undefined {
  if (seen.has(dir)) return seen.get(dir);
  const now = performance.now();
  let entry = listings.get(dir);
  if (!entry || now - entry.checkedAt >= FRESH_MS) {
    let mtimeMs = -1;
    try {
      const st = statSync(dir, { throwIfNoEntry: false });
      if (st?.isDirectory()) mtimeMs = st.mtimeMs;
    } catch { /* unreadable: no files */ }
    if (entry && entry.mtimeMs === mtimeMs) entry.checkedAt = now;
    else {
      entry = { mtimeMs, checkedAt: now, files: mtimeMs < 0 ? undefined : readFiles(dir) };
      listings.delete(dir);
      if (listings.size >= MAX_LISTINGS) listings.delete(listings.keys().next().value!);
      listings.set(dir, entry);
    }
  }
  seen.set(dir, entry.files);
  return entry.files;
}

function readFiles(dir: string): ReadonlySet<string> | undefined {
  try {
    const names = new Set<string>();
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      // A symlink counts as the file it points at.
      if (entry.isFile() || (entry.isSymbolicLink() && (statSync(join(dir, entry.name), { throwIfNoEntry: false })?.isFile() ?? false))) names.add(entry.name);
    }
    return names;
  } catch {
    return undefined;
  }
}

/** TypeScript sources import `./retry.js` meaning `./retry.ts`. */
const SOURCE_OF: Readonly<Record<string, readonly string[]>> = { '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'], '.jsx': ['.tsx'] };

/** The file `base` names: as written, with a TypeScript or added extension, or a folder's index. */
function probe(base: string): string | undefined {
  const seen = new Map<string, ReadonlySet<string> | undefined>();
  const dir = dirname(base);
  const name = basename(base);
  const siblings = filesIn(dir, seen);
  if (siblings) {
    const ext = extname(name);
    if (EXTENSIONS.includes(ext)) {
      if (siblings.has(name)) return base;
      const stem = name.slice(0, -ext.length);
      for (const e of SOURCE_OF[ext] ?? []) if (siblings.has(stem + e)) return join(dir, stem + e);
    }
    for (const e of EXTENSIONS) if (siblings.has(name + e)) return base + e;
  }
  const inside = filesIn(base, seen);
  if (inside) for (const e of EXTENSIONS) if (inside.has(`index${e}`)) return join(base, `index${e}`);
  return undefined;
}

/**
 * Where bare names lead, kept for the life of the process like the resolutions themselves (a link
 * is made by an install, not by an edit; clearModuleCache forgets them): whether a folder has a
 * node_modules, and what `<folder>/node_modules/<name>` is. Every file of a package walks up the
 * same folders, so a run stats each of them once rather than once per importing folder.
 */
const MAX_LINKS = 5000;
const nodeModulesDirs = new Map<string, boolean>();
/** Bare names resolved, by the node_modules chain and the tsconfig aliases they were resolved under (see resolveImport). */
const byPlace = new WeakMap<readonly string[], Map<Aliases | null, Map<string, string | undefined>>>();
/** `undefined`: nothing there; `null`: an installed package (not followed); else the link's real path. */
const links = new Map<string, string | null | undefined>();
const entries = new Map<string, string | undefined>();

function remember<V>(map: Map<string, V>, key: string, value: V): V {
  if (map.size >= MAX_LINKS) map.delete(map.keys().next().value!);
  map.set(key, value);
  return value;
}

function hasNodeModules(dir: string): boolean {
  const known = nodeModulesDirs.get(dir);
  if (known !== undefined) return known;
  return remember(nodeModulesDirs, dir, statSync(join(dir, 'node_modules'), { throwIfNoEntry: false })?.isDirectory() ?? false);
}

function linkAt(link: string): string | null | undefined {
  if (links.has(link)) return links.get(link);
  const st = lstatSync(link, { throwIfNoEntry: false });
  let target: string | null | undefined;
  if (st) {
    // Installed packages are not followed; a workspace package is a symlink to a source folder.
    const real = st.isSymbolicLink() ? realpathSync(link) : undefined;
    target = real && !real.split(sep).includes('node_modules') ? real : null;
  }
  return remember(links, link, target);
}

function resolveWorkspace(specifier: string, fromDir: string): string | undefined {
  const parts = specifier.split('/');
  const nameLength = specifier.startsWith('@') ? 2 : 1;
  const name = parts.slice(0, nameLength).join('/');
  const sub = parts.slice(nameLength).join('/');
  // A package the monorepo declares: its source folder, linked or not.
  const declared = declaredWorkspacePackage(name, fromDir);
  if (declared) {
    const key = `${declared}\0${sub}`;
    return entries.has(key) ? entries.get(key) : remember(entries, key, packageEntry(declared, sub));
  }
  for (const dir of nodeModulesChain(fromDir)) {
    const target = linkAt(join(dir, 'node_modules', name));
    if (target === null) return undefined;
    if (target !== undefined) {
      const key = `${target}\0${sub}`;
      return entries.has(key) ? entries.get(key) : remember(entries, key, packageEntry(target, sub));
    }
  }
  return undefined;
}

/**
 * The folders at or above `dir` that have a node_modules, nearest first: shared by every folder
 * below the same ones, so a run walks up from each folder once, not once per import.
 */
const chains = new Map<string, readonly string[]>();
function nodeModulesChain(dir: string): readonly string[] {
  const known = chains.get(dir);
  if (known) return known;
  const parent = dirname(dir);
  const above = parent === dir ? [] : nodeModulesChain(parent);
  return remember(chains, dir, hasNodeModules(dir) ? [dir, ...above] : above);
}

function packageEntry(root: string, sub: string): string | undefined {
  let pkg: Record<string, unknown> = {};
  try {
    pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  } catch { /* no manifest: index files only */ }
  const entries: string[] = [];
  const fromExports = exportTarget(pkg['exports'], sub ? `./${sub}` : '.');
  if (fromExports) entries.push(fromExports);
  if (sub) entries.push(sub);
  else for (const field of ['source', 'module', 'main']) if (typeof pkg[field] === 'string') entries.push(pkg[field] as string);
  entries.push(sub ? join(sub, 'index') : 'index');
  for (const entry of entries) {
    const found = probe(join(root, entry)) ?? probe(join(root, entry.replace(/^(?:\.\/)?(?:dist|lib|build|out)\//, 'src/').replace(/\.(?:c|m)?js$/, '')));
    if (found) return found;
  }
  return undefined;
}

const CONDITIONS = ['source', 'development', 'import', 'module', 'node', 'default', 'require'];

function exportTarget(exports: unknown, subpath: string): string | undefined {
  if (typeof exports === 'string') return subpath === '.' ? exports : undefined;
  if (!exports || typeof exports !== 'object') return undefined;
  const map = exports as Record<string, unknown>;
  const keys = Object.keys(map);
  const target = keys.some((k) => k.startsWith('.')) ? map[subpath] : subpath === '.' ? map : undefined;
  return pickCondition(target, 0);
}

function pickCondition(target: unknown, depth: number): string | undefined {
  if (typeof target === 'string') return target;
  if (!target || typeof target !== 'object' || depth > 3) return undefined;
  for (const c of CONDITIONS) {
    const hit = pickCondition((target as Record<string, unknown>)[c], depth + 1);
    if (hit) return hit;
  }
  return undefined;
}

/** The helpers a module offers, parsed at most once per version of the file. */
export function loadModule(file: string, env: ParseEnvironment, analyse: AnalyseFile): ModuleSummary | undefined {
  const peeked = peekModule(file);
  if (!isUnparsed(peeked)) return peeked;
  return store(file, peeked.stat, parseSummary(file, peeked.text, env, analyse));
}

interface FileStat {
  readonly mtimeMs: number;
  readonly size: number;
}

/** A cache entry of a file's text as it was at one version, and when that was last checked. */
interface Versioned extends FileStat {
  checkedAt: number;
}

/**
 * Whether `hit` still stands for the file (checked within FRESH_MS, or the same size and mtime on
 * disk), the file's stat when it must be read again, or undefined when it is no readable file.
 */
function versionOf(file: string, hit: Versioned | undefined, now: number): 'current' | FileStat | undefined {
  if (hit && now - hit.checkedAt < FRESH_MS) return 'current';
  let st;
  try {
    st = statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (!st?.isFile()) return undefined;
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) {
    hit.checkedAt = now;
    return 'current';
  }
  return { mtimeMs: st.mtimeMs, size: st.size };
}

/** `peekModule`'s answer when only a parse of the file can tell what it offers: what it read, for that parse. */
export interface Unparsed {
  readonly unparsed: true;
  readonly text: string;
  readonly stat: FileStat;
}

export function isUnparsed(v: ModuleSummary | Unparsed | undefined): v is Unparsed {
  return v !== undefined && 'unparsed' in v;
}

/**
 * What `loadModule` would give, without parsing: the summary already known for the file as it is
 * on disk, an empty one for a file whose text offers no helper, the summary linting it produced;
 * `Unparsed` when only a parse can tell (the one case where the caller should first make sure the
 * file is worth it). Undefined for a path that is not a readable file.
 */
export function peekModule(file: string): ModuleSummary | Unparsed | undefined {
  const hit = summaries.get(file);
  const stat = versionOf(file, hit, performance.now());
  if (stat === undefined) return undefined;
  if (stat === 'current') {
    summaries.delete(file);
    summaries.set(file, hit!); // most recently used last
    return hit!.summary;
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch {
    return store(file, stat, undefined);
  }
  if (!mayOfferHelpers(text)) return store(file, stat, { file, helpers: new Map(), reexports: [] });
  const seen = linted.get(file);
  if (seen && seen.text === text) {
    reuses++;
    return store(file, stat, seen.summary);
  }
  return { unparsed: true, text, stat };
}

function store(file: string, stat: FileStat, summary: ModuleSummary | undefined): ModuleSummary | undefined {
  summaries.delete(file);
  if (summaries.size >= MAX_MODULES) summaries.delete(summaries.keys().next().value!);
  summaries.set(file, { ...stat, checkedAt: performance.now(), summary });
  return summary;
}

/**
 * Files this process has linted that an import may lead to, by path: the text linted and what the
 * file offers, read from the model the lint built. A CLI run lints most of the files it follows
 * imports into; when the text on disk is the text that was linted, its summary is that one and
 * the file is not parsed a second time. An editor's unsaved text differs from the disk's, so it is
 * never taken for the file. The text is kept as it is (the linted source, already in memory) and
 * compared whole when an import reads the file: a digest of every linted file cost more than the
 * few comparisons a run makes.
 */
const linted = new Map<string, { text: string; summary: ModuleSummary }>();
/** Parsed the same way whoever reads them: TypeScript in ES modules (`.cts` is a script to the import parse). */
const REUSABLE = /\.(?:ts|tsx|mts)$/;

/** Records what a linted file offers, for the files of the same run that import it. */
export function rememberLinted(file: string | undefined, text: string, ctx: AnalysisContext, helpers: ReadonlyMap<Fn, WrapperHelper>): void {
  if (!file || !isAbsolute(file) || !REUSABLE.test(file)) return;
  linted.delete(file);
  const own = text.replace(/^\uFEFF/, '');
  // peekModule looks here only for a text that passes the helper hint: it settles any other
  // without a parse, and a record is used only when the disk's text is the linted one. Only such
  // texts are kept (581 of pnpm's 1,573 TypeScript files), a summary without helpers included,
  // which still spares a parse.
  if (!mayOfferHelpers(own)) return;
  if (linted.size >= MAX_MODULES) linted.delete(linted.keys().next().value!);
  linted.set(file, { text: own, summary: exportsOf(file, ctx, helpers) });
}

/**
 * Files read for what their exports do rather than for retry helpers (a method of an object
 * another file imports, followed from inside a retry): parsed at most once per version of the
 * file, each with the context its reader builds, in a small bounded map. Only the few imports
 * called inside a retry site's code ever come here.
 */
const MAX_SOURCES = 200;
const sources = new Map<string, Versioned & { value: unknown }>();

export function readModule<C>(file: string, env: ParseEnvironment, build: (sourceCode: Readonly<TSESLint.SourceCode>) => C, variant = ''): C | undefined {
  const now = performance.now();
  // A reader whose contexts differ (one that follows the file's own imports) keeps its own entry.
  const key = variant ? `${file}\0${variant}` : file;
  const hit = sources.get(key);
  const stat = versionOf(file, hit, now);
  if (stat === undefined) return undefined;
  if (stat === 'current') return hit!.value as C | undefined;
  let value: C | undefined;
  try {
    const sourceCode = parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''), file, env);
    value = sourceCode ? build(sourceCode) : undefined;
  } catch (error) {
    if (process.env['SAFE_RETRY_STRICT_ANALYSIS']) throw error;
    value = undefined;
  }
  sources.delete(key);
  if (sources.size >= MAX_SOURCES) sources.delete(sources.keys().next().value!);
  sources.set(key, { ...stat, checkedAt: now, value });
  return value;
}

function parseSummary(file: string, text: string, env: ParseEnvironment, analyse: AnalyseFile): ModuleSummary | undefined {
  try {
    let sourceCode: Readonly<TSESLint.SourceCode> | undefined;
    try {
      sourceCode = parse(text, file, env);
    } catch {
      return undefined; // a file being edited may not parse: it offers no helpers until it does
    }
    if (!sourceCode) return undefined;
    const { ctx, helpers } = analyse(sourceCode);
    return exportsOf(file, ctx, helpers);
  } catch (error) {
    if (process.env['SAFE_RETRY_STRICT_ANALYSIS']) throw error;
    return undefined;
  }
}

interface ParserLike {
  parseForESLint(text: string, options: Record<string, unknown>): {
    ast: TSESTree.Program;
    scopeManager?: unknown;
    visitorKeys?: Record<string, readonly string[]>;
    services?: unknown;
  };
}

/**
 * typescript-eslint's parser, loaded on first use: it brings the TypeScript compiler with it
 * (about 0.3 s), which a JavaScript-only project linted with espree would otherwise pay on every
 * run for nothing.
 */
let tsParser: ParserLike & { visitorKeys: Record<string, readonly string[]> } | undefined;
function typescriptParser(): ParserLike & { visitorKeys: Record<string, readonly string[]> } {
  return (tsParser ??= createRequire(import.meta.url)('@typescript-eslint/parser'));
}

interface ScopeTools {
  analyze(ast: TSESTree.Program, options: Record<string, unknown>): unknown;
  KEYS: Record<string, readonly string[]>;
}

/**
 * ESLint's own scope analysis and visitor keys, as ESLint applies them to a tree from espree (both
 * are dependencies of ESLint, so of every project running this plugin); neither loads TypeScript.
 * Null when they cannot be loaded.
 */
let scopeToolsCache: ScopeTools | null | undefined;
function scopeTools(): ScopeTools | null {
  if (scopeToolsCache !== undefined) return scopeToolsCache;
  try {
    const req = createRequire(createRequire(import.meta.url).resolve('eslint'));
    const { analyze } = req('eslint-scope') as { analyze: ScopeTools['analyze'] };
    const { KEYS } = req('eslint-visitor-keys') as { KEYS: ScopeTools['KEYS'] };
    scopeToolsCache = { analyze, KEYS };
  } catch {
    scopeToolsCache = null;
  }
  return scopeToolsCache;
}

/** The scopes of a tree parsed without them (espree gives none); undefined when they cannot be analysed. */
function scopesOf(ast: TSESTree.Program, options: Record<string, unknown>): unknown {
  const tools = scopeTools();
  if (!tools) return undefined;
  try {
    return tools.analyze(ast, { ignoreEval: true, ecmaVersion: 2022, sourceType: options['sourceType'], childVisitorKeys: tools.KEYS, fallback: 'iteration' });
  } catch {
    return undefined;
  }
}

/** Options that would make a parse type-aware (slow, and tied to the linted file's project). */
const TYPE_AWARE = new Set(['project', 'projectService', 'programs', 'EXPERIMENTAL_useProjectService']);

function parse(text: string, file: string, env: ParseEnvironment): Readonly<TSESLint.SourceCode> | undefined {
  const own = env.parser as Partial<ParserLike> | undefined;
  // The linted file's parser when it gives scopes (typescript-eslint, vue, svelte...), else
  // typescript-eslint's, which reads JavaScript too (espree alone gives no scope analysis).
  const parser: ParserLike = own && typeof own.parseForESLint === 'function' ? (own as ParserLike) : typescriptParser();
  const base = env.parserOptions && typeof env.parserOptions === 'object' ? env.parserOptions as Record<string, unknown> : {};
  const options: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(base)) if (!TYPE_AWARE.has(k)) options[k] = v;
  const ext = extname(file);
  Object.assign(options, {
    ecmaVersion: 'latest',
    sourceType: ext === '.cjs' || ext === '.cts' ? 'script' : 'module',
    range: true,
    loc: true,
    comment: true,
    tokens: true,
    filePath: file,
    ecmaFeatures: { ...(options['ecmaFeatures'] as object | undefined), jsx: ext !== '.ts' && ext !== '.mts' && ext !== '.cts', globalReturn: false },
  });
  parses++;
  const result = parser.parseForESLint(text, options);
  // A parser that gives the tree only (espree, or the presets' parser on JavaScript) leaves the scope
  // analysis to ESLint; it is done here the same way, without loading TypeScript.
  const scopeManager = result.scopeManager ?? scopesOf(result.ast, options);
  if (!scopeManager) return undefined;
  const visitorKeys = result.visitorKeys ?? scopeTools()?.KEYS ?? typescriptParser().visitorKeys;
  setParents(result.ast, visitorKeys);
  return new SourceCode({
    text,
    ast: result.ast as never,
    parserServices: (result.services ?? {}) as never,
    scopeManager: scopeManager as never,
    visitorKeys: visitorKeys as never,
  }) as unknown as Readonly<TSESLint.SourceCode>;
}

function setParents(ast: TSESTree.Node, keys: Record<string, readonly string[]>): void {
  const stack: TSESTree.Node[] = [ast];
  while (stack.length) {
    const n = stack.pop()!;
    for (const k of keys[n.type] ?? []) {
      const child = (n as unknown as Record<string, unknown>)[k];
      const list = Array.isArray(child) ? child : [child];
      for (const c of list) {
        if (c && typeof (c as TSESTree.Node).type === 'string') {
          (c as { parent?: TSESTree.Node }).parent = n;
          stack.push(c as TSESTree.Node);
        }
      }
    }
  }
}

/** Export name -> helper, from ESM exports and the common CommonJS shapes. */
function exportsOf(file: string, ctx: AnalysisContext, helpers: ReadonlyMap<Fn, WrapperHelper>): ModuleSummary {
  const byName = new Map<string, WrapperHelper>();
  const reexports: { from: string; names: ReadonlyMap<string, string> | '*' }[] = [];
  const fnOf = (node: TSESTree.Node | null | undefined): Fn | undefined => {
    if (!node) return undefined;
    const n = unwrap(node);
    if (n.type === T.ArrowFunctionExpression || n.type === T.FunctionExpression || n.type === T.FunctionDeclaration) return n;
    if (n.type !== T.Identifier) return undefined;
    const v = findVariable(ctx.evaluator.scopeOf(n), n.name);
    const def = v?.defs[0];
    if (def?.type === 'FunctionName') return def.node as TSESTree.FunctionDeclaration;
    const init = constInitializer(v);
    const f = init && unwrap(init);
    return f && (f.type === T.ArrowFunctionExpression || f.type === T.FunctionExpression) ? f : undefined;
  };
  const add = (name: string, node: TSESTree.Node | null | undefined) => {
    // Most files offer no helper: then only their re-exports matter, and no export is looked up.
    if (helpers.size === 0) return;
    const cls = classOf(node);
    if (cls) {
      // A class's method helpers, by `Class.prototype.method` (called on instances another file builds).
      for (const h of helpers.values()) if (h.owner === cls && !byName.has(methodExport(name, h.name))) byName.set(methodExport(name, h.name), h);
      return;
    }
    const fn = fnOf(node);
    const helper = fn && helpers.get(fn);
    if (helper && !byName.has(name)) byName.set(name, helper);
  };
  const classOf = (node: TSESTree.Node | null | undefined): TSESTree.ClassDeclaration | TSESTree.ClassExpression | undefined => {
    const n = node && unwrap(node);
    if (n?.type === T.ClassDeclaration || n?.type === T.ClassExpression) return n;
    if (n?.type !== T.Identifier) return undefined;
    const def = findVariable(ctx.evaluator.scopeOf(n), n.name)?.defs[0];
    return def?.type === 'ClassName' ? def.node as TSESTree.ClassDeclaration : undefined;
  };
  const nameOf = (n: TSESTree.Identifier | TSESTree.StringLiteral) => (n.type === T.Identifier ? n.name : n.value);
  for (const st of ctx.sourceCode.ast.body) {
    if (st.type === T.ExportNamedDeclaration) {
      if (st.source) {
        const names = new Map<string, string>();
        for (const s of st.specifiers) if (s.type === T.ExportSpecifier) names.set(nameOf(s.exported), nameOf(s.local));
        reexports.push({ from: st.source.value, names });
      } else if ((st.declaration?.type === T.FunctionDeclaration || st.declaration?.type === T.ClassDeclaration) && st.declaration.id) {
        add(st.declaration.id.name, st.declaration);
      } else if (st.declaration?.type === T.VariableDeclaration) {
        for (const d of st.declaration.declarations) if (d.id.type === T.Identifier) add(d.id.name, d.init);
      } else {
        for (const s of st.specifiers) if (s.type === T.ExportSpecifier && s.local.type === T.Identifier) add(nameOf(s.exported), s.local);
      }
    } else if (st.type === T.ExportDefaultDeclaration) {
      add('default', st.declaration as TSESTree.Node);
    } else if (st.type === T.ExportAllDeclaration && !st.exported) {
      reexports.push({ from: st.source.value, names: '*' });
    } else if (st.type === T.ExpressionStatement && st.expression.type === T.AssignmentExpression && st.expression.operator === '=') {
      const target = commonJsTarget(st.expression.left);
      if (target === undefined) continue;
      const value = unwrap(st.expression.right);
      if (target === 'default' && value.type === T.ObjectExpression) {
        for (const p of value.properties) {
          if (p.type !== T.Property || p.computed) continue;
          const key = staticPropertyName(p);
          if (key !== undefined) add(key, p.value as TSESTree.Node);
        }
      } else add(target, value);
    }
  }
  return { file, helpers: byName, reexports };
}

/** The export name of method `method` of a class exported as `name`. */
export function methodExport(name: string, method: string): string {
  return `${name}.prototype.${method}`;
}

/** `module.exports` -> default, `module.exports.x` / `exports.x` -> x. */
function commonJsTarget(left: TSESTree.Node): string | undefined {
  const l = unwrap(left);
  if (l.type !== T.MemberExpression || l.computed || l.property.type !== T.Identifier) return undefined;
  const o = unwrap(l.object);
  if (o.type === T.Identifier && o.name === 'module' && l.property.name === 'exports') return 'default';
  if (o.type === T.Identifier && o.name === 'exports') return l.property.name;
  if (o.type === T.MemberExpression && !o.computed && unwrap(o.object).type === T.Identifier && (unwrap(o.object) as TSESTree.Identifier).name === 'module' &&
    o.property.type === T.Identifier && o.property.name === 'exports') return l.property.name;
  return undefined;
}

/** The helper behind `name` exported from `file`, through up to four re-exports. */
export function findExportedHelper(
  file: string,
  name: string,
  env: ParseEnvironment,
  analyse: AnalyseFile,
  loaded: Map<string, ModuleSummary | undefined> = new Map(),
  depth = 0,
): WrapperHelper | undefined {
  if (depth > 4 || !isAbsolute(file)) return undefined;
  // One stat per imported file per linted file, however many calls go through it.
  let summary = loaded.get(file);
  if (!loaded.has(file)) loaded.set(file, (summary = loadModule(file, env, analyse)));
  if (!summary) return undefined;
  const own = summary.helpers.get(name);
  if (own) return own;
  // `Class.prototype.method` follows the class's name through a re-export.
  const at = name.indexOf('.prototype.');
  const head = at < 0 ? name : name.slice(0, at);
  const tail = at < 0 ? '' : name.slice(at);
  for (const r of summary.reexports) {
    if (r.names === '*' && head === 'default') continue;
    const local = r.names === '*' ? head : r.names.get(head);
    if (local === undefined) continue;
    const imported = local + tail;
    const target = resolveImport(r.from, file);
    const found = target && findExportedHelper(target, imported, env, analyse, loaded, depth + 1);
    if (found) return found;
  }
  return undefined;
}
