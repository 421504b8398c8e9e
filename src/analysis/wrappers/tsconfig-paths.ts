/**
 * TypeScript path aliases: `compilerOptions.paths` (with `baseUrl`) of the nearest tsconfig.json
 * or jsconfig.json above the importing file, through a relative `extends` chain, so that
 * `import { x } from '@/lib/retry'` or a monorepo's `@scope/kafka` reaches its source file the way
 * the compiler does. Configs are read once per directory for the life of the process (a path
 * alias is changed by a config edit, not by the edits a linter sees; clearPathAliases forgets them).
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

interface Alias {
  readonly prefix: string;
  readonly suffix: string;
  readonly star: boolean;
  readonly targets: readonly string[];
}

/** The aliases in force for files of a directory, each target made absolute. */
export interface Aliases {
  readonly list: readonly Alias[];
}

const MAX_DIRS = 2000;
const byDir = new Map<string, Aliases | null>();
const byConfig = new Map<string, Aliases | null>();
const CONFIG_NAMES = ['tsconfig.json', 'jsconfig.json'];

export function clearPathAliases(): void {
  byDir.clear();
  byConfig.clear();
}

/**
 * The file a path alias leads to, found with `probe` (which adds extensions and index files), or
 * undefined when no alias matches or its targets name no file.
 */
export function resolvePathAlias(specifier: string, fromDir: string, probe: (base: string) => string | undefined): string | undefined {
  return resolveWithAliases(aliasesFor(fromDir), specifier, probe);
}

/** resolvePathAlias with the aliases of the importing folder already looked up (`aliasesFor`). */
export function resolveWithAliases(aliases: Aliases | null, specifier: string, probe: (base: string) => string | undefined): string | undefined {
  if (!aliases) return undefined;
  // The compiler takes the pattern with the longest prefix; an exact pattern wins over a star.
  let best: { alias: Alias; captured: string } | undefined;
  for (const alias of aliases.list) {
    if (!alias.star) {
      if (specifier === alias.prefix) { best = { alias, captured: '' }; break; }
      continue;
    }
    if (specifier.length < alias.prefix.length + alias.suffix.length) continue;
    if (!specifier.startsWith(alias.prefix) || !specifier.endsWith(alias.suffix)) continue;
    if (best && best.alias.prefix.length >= alias.prefix.length) continue;
    best = { alias, captured: specifier.slice(alias.prefix.length, specifier.length - alias.suffix.length) };
  }
  if (!best) return undefined;
  for (const target of best.alias.targets) {
    const found = probe(target.replace('*', best.captured));
    if (found) return found;
  }
  return undefined;
}

/** aliasesFor's answer when it is already kept for the folder, undefined when it would need a look at the disk. */
export function knownAliases(dir: string): Aliases | null | undefined {
  return byDir.get(dir);
}

/** The aliases in force for files of a folder (the same object for every folder under one config), null for none. */
export function aliasesFor(dir: string): Aliases | null {
  const known = byDir.get(dir);
  if (known !== undefined) return known;
  let found: Aliases | null = null;
  const config = CONFIG_NAMES.map((n) => join(dir, n)).find(isFile);
  if (config) found = readConfig(config, 0);
  else {
    const parent = dirname(dir);
    if (parent !== dir) found = aliasesFor(parent);
  }
  if (byDir.size >= MAX_DIRS) byDir.delete(byDir.keys().next().value!);
  byDir.set(dir, found);
  return found;
}

function isFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

/** A config's aliases: its own `paths`, else those of the config it extends (relative `extends` only). */
function readConfig(file: string, depth: number): Aliases | null {
  if (byConfig.has(file)) return byConfig.get(file)!;
  let result: Aliases | null = null;
  if (depth < 8) {
    const json = parseJsonc(file);
    const options = (json?.['compilerOptions'] ?? {}) as Record<string, unknown>;
    const paths = options['paths'];
    if (paths && typeof paths === 'object') {
      const base = typeof options['baseUrl'] === 'string' ? resolve(dirname(file), options['baseUrl']) : dirname(file);
      result = { list: aliasList(paths as Record<string, unknown>, base) };
    } else {
      const parents = ([] as unknown[]).concat(json?.['extends'] ?? []);
      for (const p of parents) {
        if (typeof p !== 'string' || !p.startsWith('.')) continue;
        const parent = resolve(dirname(file), p.endsWith('.json') ? p : `${p}.json`);
        if (!isFile(parent)) continue;
        result = readConfig(parent, depth + 1);
        if (result) break;
      }
    }
  }
  byConfig.set(file, result);
  return result;
}

function aliasList(paths: Record<string, unknown>, base: string): Alias[] {
  const list: Alias[] = [];
  for (const [pattern, targets] of Object.entries(paths)) {
    if (!Array.isArray(targets)) continue;
    const star = pattern.indexOf('*');
    if (star !== pattern.lastIndexOf('*')) continue;
    const absolute = targets.filter((t): t is string => typeof t === 'string').map((t) => resolve(base, t));
    list.push(star < 0
      ? { prefix: pattern, suffix: '', star: false, targets: absolute }
      : { prefix: pattern.slice(0, star), suffix: pattern.slice(star + 1), star: true, targets: absolute });
  }
  return list;
}

const TRAILING_COMMAS = /,(\s*[}\]])/g;
const TRAILING_COMMA = /,\s*[}\]]/;
const JSONC_TOKENS = /"(?:[^"\\]|\\.)*"|\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)/g;

/** tsconfig files are JSON with comments and trailing commas; a `/*` inside a string ("@/*") is text. */
function parseJsonc(file: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  // Most configs are plain JSON: when the text parses as it is and holds no comma the
  // trailing-comma pass below would drop, the slow path gives the same object (a text that
  // parses has no comment outside its strings, and strings are kept whole).
  if (!TRAILING_COMMA.test(text)) {
    try {
      const parsed: unknown = JSON.parse(text);
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      // comments, or not JSON at all: the slow path decides
    }
  }
  // One pass of the regex engine over strings (kept) and comments (dropped): a loop over each
  // character cost more than everything else the import following does with a config.
  const out = text.replace(JSONC_TOKENS, (m) => (m[0] === '"' ? m : ''));
  try {
    const parsed: unknown = JSON.parse(out.replace(TRAILING_COMMAS, '$1'));
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
