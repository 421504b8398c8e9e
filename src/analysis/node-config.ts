/**
 * node-config (the `config` package): values an application reads with `config.get('retry.max')`,
 * `config.retry.max`, `import { maxRetries } from 'config'` or `const { retry } = require('config')`,
 * taken from the project's config directory, the way node-config loads it by default: `config/` in
 * the folder of the nearest package.json (the process's working directory when it is started there).
 *
 * Only what holds in every deployment is a value. node-config merges `default.EXT` with files named
 * after the deployment (`production.yaml`), the host, the instance, `local*` and
 * `custom-environment-variables.*`, so a key is known only when a `default.{json,yaml,yml}` sets it
 * and no other file of the directory sets it or an object above it. A directory with a file this
 * reader cannot parse (`production.js`, `default.json5`), a multi-document YAML, a package.json
 * script or a linted file that names `NODE_CONFIG`/`NODE_CONFIG_DIR` (a directory elsewhere, or
 * overrides from the environment), a file that writes through the config object or uses
 * `config.util`, or a project whose `config` import is its own file: nothing is known, and the
 * import reads as it did before (unknown). Nothing here throws.
 *
 * Directory reads are cached by path, checked again (a stat per file) when older than FRESH_MS.
 * Whether a package's tsconfig makes `config` its own module is read once per package folder for
 * the life of the process, as resolveImport keeps a path alias's resolution (clearNodeConfigCache
 * forgets it).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { unwrap, type Variable } from './ast.js';
import { FREE, type ModuleValues } from './eval/environment.js';
import { UNKNOWN, type DataValue, type Value } from './eval/values.js';
import type { ImportTable } from './imports.js';
import { FRESH_MS, resolveImport } from './wrappers/index.js';
import { loadYamlParser } from './yaml/parser.js';

const MODULE = 'config';
/** Extensions node-config loads a file of (config 3.x, lib/util.js); any of them may override a default. */
const LOADED = new Set(['.js', '.cjs', '.mjs', '.ts', '.json', '.jsonc', '.json5', '.hjson', '.toml', '.coffee', '.iced', '.yaml', '.yml', '.cson', '.properties', '.xml', '.boolean', '.number']);
/** What this reader parses; any other loaded file makes the directory unknown. */
const READ = new Set(['.json', '.yaml', '.yml']);
/** Members of the config object that are its methods, not settings. */
const METHODS = new Set(['get', 'has', 'util']);

type Plain = null | boolean | number | string | readonly Plain[] | { readonly [key: string]: Plain };

interface DirEntry {
  checkedAt: number;
  signature: string;
  /** The settings known in every deployment; undefined when the directory cannot be read soundly. */
  tree: DataValue | undefined;
}

const MAX_DIRS = 200;
const dirs = new Map<string, DirEntry>();
const packages = new Map<string, { mtimeMs: number; uses: boolean }>();
/** ownConfigModule by package folder, for the life of the process as tsconfig-paths keeps its configs. */
const ownModules = new Map<string, boolean>();

/** For tests and long-running editors. */
export function clearNodeConfigCache(): void {
  dirs.clear();
  packages.clear();
  ownModules.clear();
}

/**
 * The provider of node-config values for a file that imports `config`, or undefined when the file
 * does not, or its project's configuration cannot be read soundly.
 */
export function nodeConfigValues(imports: ImportTable, file: string, text: string): ModuleValues | undefined {
  try {
    if (!imports.modules.has(MODULE) || text.includes('NODE_CONFIG')) return undefined;
    const bindings = imports.bindings.filter((b) => b.module === MODULE);
    if (bindings.length === 0 || bindings.some((b) => writesThrough(b.variable))) return undefined;
    // `import config from 'config'` naming the project's own config.ts (a tsconfig baseUrl or path alias).
    if (resolveImport(MODULE, file) !== undefined) return undefined;
    const pkgDir = packageDir(dirname(file));
    if (!pkgDir || ownConfigModule(pkgDir)) return undefined;
    let tree: DataValue | undefined | null = null;
    const root = (): DataValue | undefined => (tree === null ? (tree = settings(join(pkgDir, 'config'))) : tree);
    const at = (path: readonly string[]): Value => {
      const base = root();
      if (base === undefined) return UNKNOWN;
      if (path.length > 0 && METHODS.has(path[0]!)) return UNKNOWN;
      let v: DataValue = base;
      for (const key of path) {
        if (typeof v !== 'object' || v === null || !('properties' in v)) return UNKNOWN;
        v = v.properties.has(key) ? v.properties.get(key)! : UNKNOWN;
      }
      return v as Value;
    };
    return {
      value(variable: Variable): Value | typeof FREE {
        const binding = imports.bindingOf(variable);
        if (binding?.module !== MODULE) return FREE;
        return at(binding.path === 'default' || binding.path === 'module' ? [] : binding.path.split('.'));
      },
      call(callee: TSESTree.Node, argument: (index: number) => Value): Value | typeof FREE {
        if (callee.type !== T.MemberExpression || callee.computed || callee.property.type !== T.Identifier || callee.property.name !== 'get') return FREE;
        const ref = imports.resolve(callee);
        if (ref?.module !== MODULE || ref.path !== 'get') return FREE;
        const key = argument(0);
        return typeof key === 'string' && key !== '' ? at(key.split('.')) : UNKNOWN;
      },
    };
  } catch {
    return undefined;
  }
}

/** `config.x = 1`, `(config as any).x++`, `delete config.x`, `config.util.…`. */
function writesThrough(variable: Variable): boolean {
  for (const ref of variable.references) {
    if (ref.init) continue;
    let node: TSESTree.Node = ref.identifier as TSESTree.Node;
    for (let p = node.parent; p; p = node.parent) {
      if (p.type === T.MemberExpression && p.object === node) {
        if (!p.computed && p.property.type === T.Identifier && p.property.name === 'util') return true;
      } else if (unwrap(p) === p || (p as { expression?: unknown }).expression !== node) break;
      node = p;
    }
    const p = node.parent;
    if (node === ref.identifier) continue;
    if (p?.type === T.AssignmentExpression && p.left === node) return true;
    if (p?.type === T.UpdateExpression || (p?.type === T.UnaryExpression && p.operator === 'delete')) return true;
  }
  return false;
}

const OWN_MODULE = ['config.ts', 'config.tsx', 'config.js', 'config.mjs', 'config.cjs', 'config.json', 'config/index.ts', 'config/index.js'];

/**
 * Whether the package's tsconfig/jsconfig has a `baseUrl` under which `config` names a file of the
 * project (`src/config.ts`): the compiler, and a runtime with tsconfig-paths, import that instead.
 */
function ownConfigModule(pkgDir: string): boolean {
  const known = ownModules.get(pkgDir);
  if (known !== undefined) return known;
  const own = readsOwnConfigModule(pkgDir);
  if (ownModules.size >= MAX_DIRS) ownModules.delete(ownModules.keys().next().value!);
  ownModules.set(pkgDir, own);
  return own;
}

function readsOwnConfigModule(pkgDir: string): boolean {
  for (const name of ['tsconfig.json', 'jsconfig.json']) {
    let text: string;
    try {
      text = readFileSync(join(pkgDir, name), 'utf8');
    } catch {
      continue;
    }
    if (!text.includes('baseUrl')) continue;
    const base = /"baseUrl"\s*:\s*"([^"]*)"/.exec(text)?.[1];
    if (base === undefined) return true;
    const dir = resolve(pkgDir, base);
    if (OWN_MODULE.some((f) => statSync(join(dir, f), { throwIfNoEntry: false })?.isFile())) return true;
  }
  return false;
}

/** The folder of the nearest package.json above `dir` that depends on `config` and sets no NODE_CONFIG in its scripts. */
function packageDir(start: string): string | undefined {
  for (let dir = start, guard = 0; guard < 64; guard++) {
    const manifest = join(dir, 'package.json');
    const st = statSync(manifest, { throwIfNoEntry: false });
    if (st?.isFile()) return usesNodeConfig(manifest, st.mtimeMs) ? dir : undefined;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}

function usesNodeConfig(manifest: string, mtimeMs: number): boolean {
  const hit = packages.get(manifest);
  if (hit && hit.mtimeMs === mtimeMs) return hit.uses;
  let uses = false;
  try {
    const text = readFileSync(manifest, 'utf8');
    const pkg = JSON.parse(text) as Record<string, unknown>;
    const deps = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'].map((k) => pkg[k]);
    uses = deps.some((d) => typeof d === 'object' && d !== null && Object.hasOwn(d, MODULE)) && !text.includes('NODE_CONFIG');
  } catch {
    uses = false;
  }
  if (packages.size >= MAX_DIRS) packages.delete(packages.keys().next().value!);
  packages.set(manifest, { mtimeMs, uses });
  return uses;
}

/** The loaded files of a config directory with their versions, or undefined when it is not a directory. */
function listing(dir: string): { files: string[]; signature: string } | undefined {
  const st = statSync(dir, { throwIfNoEntry: false });
  if (!st?.isDirectory()) return undefined;
  const files: string[] = [];
  let signature = `${st.mtimeMs}`;
  for (const name of readdirSync(dir).sort()) {
    if (!LOADED.has(extname(name).toLowerCase())) continue;
    const f = statSync(join(dir, name), { throwIfNoEntry: false });
    if (!f?.isFile()) continue;
    files.push(name);
    signature += `|${name}:${f.mtimeMs}:${f.size}`;
  }
  return { files, signature };
}

/** The settings of a config directory known in every deployment (cached by the directory's version). */
function settings(dir: string): DataValue | undefined {
  try {
    const now = performance.now();
    const hit = dirs.get(dir);
    if (hit && now - hit.checkedAt < FRESH_MS) return hit.tree;
    const list = listing(dir);
    const signature = list?.signature ?? '';
    if (hit && hit.signature === signature) {
      hit.checkedAt = now;
      return hit.tree;
    }
    const tree = list ? readDirectory(dir, list.files) : undefined;
    dirs.delete(dir);
    if (dirs.size >= MAX_DIRS) dirs.delete(dirs.keys().next().value!);
    dirs.set(dir, { checkedAt: now, signature, tree });
    return tree;
  } catch {
    return undefined;
  }
}

function readDirectory(dir: string, files: readonly string[]): DataValue | undefined {
  const defaults: Plain[] = [];
  const others: Plain[] = [];
  for (const name of files) {
    const ext = extname(name).toLowerCase();
    if (!READ.has(ext)) return undefined;
    const value = parseFile(join(dir, name), ext);
    if (value === undefined) return undefined;
    (name.slice(0, -ext.length) === 'default' ? defaults : others).push(value);
  }
  // Two default files merge in node-config's extension order: a key either sets is left to the other.
  if (defaults.length === 0) return undefined;
  return combine(defaults[0]!, [...defaults.slice(1), ...others]);
}

/** An unquoted scalar after `key:` or `- ` that YAML 1.1 and 1.2 may read as different numbers. */
const AMBIGUOUS_NUMBER = /(?::|^\s*-)[ \t]+[-+]?(?:0[0-9_]|0[oxbOXB]|[0-9]+_|[0-9]+(?::[0-5]?[0-9])+[ \t]*(?:#|$))/m;

function parseFile(path: string, ext: string): Plain | undefined {
  const text = readFileSync(path, 'utf8');
  if (ext === '.json') {
    try {
      return JSON.parse(text) as Plain;
    } catch {
      return undefined; // node-config reads it as JSON5 (comments): not read here
    }
  }
  // YAML 1.1 parsers (js-yaml 3, which node-config loads when installed) read `010` as octal 8 and
  // `1_000` as 1000; a YAML 1.2 parser reads them otherwise: such a number is not read at all.
  if (AMBIGUOUS_NUMBER.test(text)) return undefined;
  const yaml = loadYamlParser();
  if (!yaml) return undefined;
  try {
    const program = yaml.parseYAML(text) as { body: unknown[] };
    if (program.body.length > 1) return undefined;
    if (program.body.length === 0) return {};
    return plain(yaml.getStaticYAMLValue(program));
  } catch {
    return undefined;
  }
}

/** Only JSON-like data: a date, a binary or a set from YAML is nothing this reader vouches for. */
function plain(v: unknown): Plain | undefined {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (Array.isArray(v)) {
    const items = v.map(plain);
    return items.some((i) => i === undefined) ? undefined : (items as Plain[]);
  }
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, Plain> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const p = plain(x);
      if (p === undefined) return undefined;
      out[k] = p;
    }
    return out;
  }
  return undefined;
}

const isMap = (v: Plain | undefined): v is { readonly [key: string]: Plain } => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A default with what other files set at the same path: itself when none does, an object whose
 * keys are combined one by one when every other file sets an object there too, unknown otherwise
 * (node-config takes the later file's value). Objects are open: NODE_CONFIG may add keys.
 */
function combine(value: Plain, over: readonly Plain[]): DataValue {
  if (over.length > 0 && !(isMap(value) && over.every(isMap))) return UNKNOWN;
  if (Array.isArray(value)) return value.map((v) => combine(v, []));
  if (!isMap(value)) return value as DataValue;
  const properties = new Map<string, DataValue>();
  for (const [k, v] of Object.entries(value)) {
    properties.set(k, combine(v, over.filter((o) => isMap(o) && Object.hasOwn(o, k)).map((o) => (o as Record<string, Plain>)[k]!)));
  }
  return { properties, open: true };
}
