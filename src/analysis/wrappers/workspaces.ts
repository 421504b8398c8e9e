/**
 * The packages a monorepo declares (package.json `workspaces`, pnpm-workspace.yaml `packages`), by
 * name: a bare import of one (`@acme/shared`) leads to that package's folder even where no
 * node_modules link is there to follow (not installed yet, or pnpm's injected copies, which are
 * folders inside node_modules rather than links). Each folder is asked once per process whether it
 * declares a workspace; a workspace's packages are listed once.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

type Packages = ReadonlyMap<string, string>;

/** Folder -> the packages of the workspace declared there or above it (null: none). */
const byFolder = new Map<string, Packages | null>();
const MAX_FOLDERS = 5000;

/** The folder of the workspace package named `name`, seen from `fromDir`; undefined when none is declared. */
export function declaredWorkspacePackage(name: string, fromDir: string): string | undefined {
  return workspaceOf(fromDir)?.get(name);
}

export function clearWorkspaces(): void {
  byFolder.clear();
}

function workspaceOf(dir: string): Packages | null {
  const known = byFolder.get(dir);
  if (known !== undefined) return known;
  // Every folder under the root sees the same packages (resolveImport keeps one answer per
  // node_modules chain, which folders under one root share).
  const patterns = declaredPatterns(dir);
  const parent = dirname(dir);
  const found = patterns ? packagesOf(dir, patterns) : parent === dir ? null : workspaceOf(parent);
  if (byFolder.size >= MAX_FOLDERS) byFolder.delete(byFolder.keys().next().value!);
  byFolder.set(dir, found);
  return found;
}

/** The package folder patterns a folder declares, or undefined when it declares no workspace. */
function declaredPatterns(dir: string): string[] | undefined {
  const pnpm = readText(join(dir, 'pnpm-workspace.yaml'));
  if (pnpm !== undefined) return yamlPackages(pnpm);
  const manifest = readText(join(dir, 'package.json'));
  if (manifest === undefined || !manifest.includes('"workspaces"')) return undefined;
  try {
    const w = (JSON.parse(manifest) as { workspaces?: unknown }).workspaces;
    const list = Array.isArray(w) ? w : w && typeof w === 'object' ? (w as { packages?: unknown }).packages : undefined;
    return Array.isArray(list) ? list.filter((p): p is string => typeof p === 'string') : undefined;
  } catch {
    return undefined;
  }
}

/** The `packages:` list of a pnpm-workspace.yaml (`- 'packages/*'` items), read line by line. */
function yamlPackages(text: string): string[] {
  const out: string[] = [];
  let inList = false;
  for (const line of text.split(/\r?\n/)) {
    if (/^packages\s*:/.test(line)) {
      inList = true;
      continue;
    }
    if (!inList || /^\s*(?:#.*)?$/.test(line)) continue;
    const item = /^\s+-\s*['"]?([^'"#]+?)['"]?\s*(?:#.*)?$/.exec(line);
    if (!item) break;
    out.push(item[1]!);
  }
  return out;
}

/** The packages under a workspace root: `dir/*` and `dir/**` list one level of folders, others name one. */
function packagesOf(root: string, patterns: readonly string[]): Packages {
  const map = new Map<string, string>();
  for (const pattern of patterns) {
    if (pattern.startsWith('!')) continue;
    const clean = pattern.replace(/^\.\//, '').replace(/\/+$/, '');
    const star = /^(.*?)\/\*\*?$/.exec(clean);
    const folders = star ? listFolders(join(root, star[1]!)) : clean.includes('*') ? [] : [join(root, clean)];
    for (const folder of folders) {
      const name = packageName(folder);
      if (name && !map.has(name)) map.set(name, folder);
    }
  }
  return map;
}

function listFolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== 'node_modules').map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}

function packageName(folder: string): string | undefined {
  const text = readText(join(folder, 'package.json'));
  if (text === undefined) return undefined;
  try {
    const name = (JSON.parse(text) as { name?: unknown }).name;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

function readText(file: string): string | undefined {
  try {
    // Most folders have no such file: a stat that reports it missing costs far less than the
    // error a failed read throws.
    if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return undefined;
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
