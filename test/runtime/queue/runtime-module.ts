import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '../../..');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

let cached: string | undefined;

/**
 * The compiled runtime for child-process workers (they run plain Node, without vitest's TS
 * transform). `npm test` builds dist first, so normally that is used; when dist is missing or older
 * than the sources (a vitest run during development), the runtime is compiled on its own into a
 * temp dir, which also keeps it clear of concurrent `npm run build`s that wipe dist.
 */
export function runtimeModuleUrl(): string {
  if (cached) return cached;
  const dist = join(root, 'dist/runtime/index.js');
  const srcNewest = newestMtime(join(root, 'src/runtime'));
  if (existsSync(dist) && newestMtime(join(root, 'dist/runtime')) >= srcNewest && existsSync(join(root, 'dist/runtime/queue/index.js'))) {
    cached = pathToFileURL(dist).href;
    return cached;
  }
  const out = mkdtempSync(join(tmpdir(), 'safe-retry-runtime-'));
  try {
    execFileSync(process.execPath, [
      join(root, 'node_modules/typescript/bin/tsc'),
      '--outDir', out, '--rootDir', join(root, 'src'),
      '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022',
      '--strict', '--skipLibCheck', '--types', 'node', '--noEmitOnError', 'false',
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
