import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '../../..');

let cached: string | undefined;
let compiledDir: string | undefined;

export function removeCompiledRuntime(): void {
  if (compiledDir) rmSync(compiledDir, { recursive: true, force: true });
  compiledDir = undefined;
  cached = undefined;
}

/**
 * The compiled runtime for child-process workers (they run plain Node, without vitest's TS
 * transform). It is compiled from src on its own into a fresh folder under node_modules/.cache (about 2 s) rather than taken from
 * dist: dist may be stale during development, and a concurrent `npm run build` wipes it while the
 * workers are importing it. SAFE_RETRY_RUNTIME, when set, names a module URL to use instead.
 */
export function runtimeModuleUrl(): string {
  if (cached) return cached;
  if (process.env.SAFE_RETRY_RUNTIME) return (cached = process.env.SAFE_RETRY_RUNTIME);
  // Inside the project, so that the compiled store resolves better-sqlite3 and pg from node_modules.
  mkdirSync(join(root, 'node_modules/.cache'), { recursive: true });
  const out = mkdtempSync(join(root, 'node_modules/.cache/safe-retry-runtime-'));
  compiledDir = out;
  try {
    execFileSync(process.execPath, [
      join(root, 'node_modules/typescript/bin/tsc'),
      '--outDir', out, '--rootDir', join(root, 'src'),
      '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022',
      '--ignoreConfig', '--strict', '--skipLibCheck', '--lib', 'es2023', '--types', 'node', '--noEmitOnError', 'false',
      join(root, 'src/runtime/index.ts'),
    ], { stdio: 'pipe' });
  } catch {
    // Type errors still emit; what matters is whether the module exists.
  }
  const built = join(out, 'runtime/index.js');
  if (!existsSync(built)) throw new Error('could not compile src/runtime for the worker processes');
  cached = pathToFileURL(built).href;
  return cached;
}
