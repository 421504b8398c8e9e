/**
 * Where a project builds its TanStack Query QueryClient, and which of its files use the query
 * hooks: the facts a hook's defaults and the defaults' queries live in, found once per project.
 *
 * A `useQuery` that writes no `retry` retries as the QueryClient's `defaultOptions` say, and those
 * are written where the client is built (`main.tsx`, `queryClient.ts`), a file the hook's file does
 * not import. Conversely, what the defaults retry is what the hooks of other files send. Both sides
 * need the project's other files, found here by a bounded walk from the nearest package.json that
 * depends on TanStack Query (or react-query), reading each source file's text for a few words only.
 * The walk runs when a file asks (a hook that takes a default, a QueryClient whose defaults retry
 * every error) and is kept per project root for a few seconds, so a run over the project pays it
 * about once. A project whose walk is cut short by the bound, or that builds more than one
 * QueryClient outside its tests, or changes defaults at run time (`setQueryDefaults`), gives no
 * answer: which defaults apply is then not known.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';

export interface QueryProject {
  readonly root: string;
  /** Files outside tests that build a QueryClient, once per `new QueryClient(` written. */
  readonly clients: readonly string[];
  /** Files outside tests that import TanStack Query and call one of its hooks, sorted. */
  readonly hookFiles: readonly string[];
  /** Some file changes the defaults at run time (`setQueryDefaults`, `setMutationDefaults`, `setDefaultOptions`). */
  readonly overridden: boolean;
  /**
   * Answers read from the project's files (what the hooks taking the defaults send), kept as long
   * as the walk is: an editor typing in the QueryClient's file does not read the hooks again.
   */
  readonly answers: Map<string, unknown>;
}

/** Files read at most per project, and folders deep; a larger project gives no answer. */
const MAX_FILES = 4000;
const MAX_DEPTH = 12;
const MAX_BYTES = 512 * 1024;
/** How long a walk's result is trusted (an editor adding a file sees it after this). */
const FRESH_MS = 10_000;
const MAX_ROOTS = 64;

const SOURCE = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs']);
/** Read for `new QueryClient(` only: a client built there still makes the project's defaults ambiguous. */
const COMPONENTS = new Set(['.vue', '.svelte', '.astro']);
const SKIPPED_DIRS = /^(?:node_modules|dist|build|out|coverage|vendor|public|storybook-static|__tests__|__mocks__|tests?|e2e|cypress|playwright|mocks?|fixtures?|stories)$/;
const TEST_FILE = /\.(?:test|spec|stories|story|cy|e2e)\.[cm]?[jt]sx?$/;
const NEW_CLIENT = /\bnew\s+QueryClient\s*\(/g;
const OVERRIDE = /\.(?:setQueryDefaults|setMutationDefaults|setDefaultOptions)\s*\(/;
const HOOK_CALL = /\b(?:use|create|inject)(?:Suspense)?(?:Infinite)?(?:Query|Mutation)\s*[(<]/;
const QUERY_MODULE = /['"](?:@tanstack\/[\w-]*query[\w-]*|react-query)['"]/;
const MANIFEST_DEPENDS = /["'](?:@tanstack\/[\w-]*query[\w-]*|react-query)["']\s*:/;

const projects = new Map<string, { checkedAt: number; project: QueryProject | undefined }>();
const roots = new Map<string, { checkedAt: number; root: string | undefined }>();
let walks = 0;

/** For tests: forget every walk. */
export function clearQueryProjects(): void {
  projects.clear();
  roots.clear();
}

/** How many project walks this process made (tests of the per-project cost). */
export function queryProjectWalks(): number {
  return walks;
}

/** The TanStack Query facts of the project `file` belongs to; undefined when they cannot be read. */
export function queryProject(file: string): QueryProject | undefined {
  const now = performance.now();
  const root = projectRoot(dirname(file), now);
  if (!root) return undefined;
  const hit = projects.get(root);
  if (hit && now - hit.checkedAt < FRESH_MS) return hit.project;
  const project = walk(root);
  projects.delete(root);
  if (projects.size >= MAX_ROOTS) projects.delete(projects.keys().next().value!);
  projects.set(root, { checkedAt: now, project });
  return project;
}

/** The folder of the nearest package.json above `dir`, when it depends on TanStack Query or react-query. */
function projectRoot(dir: string, now: number): string | undefined {
  const hit = roots.get(dir);
  if (hit && now - hit.checkedAt < FRESH_MS) return hit.root;
  let root: string | undefined;
  for (let d = dir, guard = 0; guard < 64; guard++) {
    const manifest = join(d, 'package.json');
    if (statSync(manifest, { throwIfNoEntry: false })?.isFile()) {
      try {
        root = MANIFEST_DEPENDS.test(readFileSync(manifest, 'utf8')) ? d : undefined;
      } catch {
        root = undefined;
      }
      break;
    }
    const parent = dirname(d);
    if (parent === d) break;
    d = parent;
  }
  roots.delete(dir);
  if (roots.size >= MAX_ROOTS * 16) roots.delete(roots.keys().next().value!);
  roots.set(dir, { checkedAt: now, root });
  return root;
}

function walk(root: string): QueryProject | undefined {
  walks++;
  const clients: string[] = [];
  const hookFiles: string[] = [];
  let overridden = false;
  let read = 0;
  const stack: { dir: string; depth: number }[] = [{ dir: root, depth: 0 }];
  try {
    while (stack.length) {
      const { dir, depth } = stack.pop()!;
      const entries = readdirSync(dir, { withFileTypes: true });
      for (const entry of entries) {
        const name = entry.name;
        if (name.startsWith('.')) continue;
        const path = join(dir, name);
        if (entry.isDirectory()) {
          if (SKIPPED_DIRS.test(name)) continue;
          // A nested package is a project of its own.
          if (depth > 0 && statSync(join(path, 'package.json'), { throwIfNoEntry: false })?.isFile()) continue;
          if (depth + 1 > MAX_DEPTH) return undefined;
          stack.push({ dir: path, depth: depth + 1 });
          continue;
        }
        if (!entry.isFile()) continue;
        const ext = extname(name);
        if ((!SOURCE.has(ext) && !COMPONENTS.has(ext)) || TEST_FILE.test(name) || name.endsWith('.d.ts')) continue;
        if (++read > MAX_FILES) return undefined;
        const size = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
        if (size > MAX_BYTES) continue;
        const text = readFileSync(path, 'utf8');
        if (!text.includes('Query') && !text.includes('Mutation')) continue;
        for (const _ of text.matchAll(NEW_CLIENT)) clients.push(path);
        if (OVERRIDE.test(text)) overridden = true;
        if (SOURCE.has(ext) && HOOK_CALL.test(text) && QUERY_MODULE.test(text)) hookFiles.push(path);
      }
    }
  } catch {
    return undefined;
  }
  return { root, clients: clients.sort(), hookFiles: hookFiles.sort(), overridden, answers: new Map() };
}
