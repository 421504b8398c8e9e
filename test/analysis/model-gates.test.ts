/**
 * The shortcuts that settle a file or an import without the expensive stages of the model: each may
 * skip only what provably yields no site. These tests fail if a shortcut drops a site.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { mayHoldHandWritten } from '../../src/analysis/hand-written/index.js';
import { clearModuleCache } from '../../src/analysis/wrappers/index.js';
import { lintAt } from '../helpers/lint-at.js';
import { temporaryProjects } from '../helpers/project.js';

const project = temporaryProjects('safe-retry-gates-');

/** A retry helper in a file and under names that say nothing of retrying. */
const KIT = `
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export async function robustly<T>(fn: () => Promise<T>, tries = 2): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (error) {
      if (i >= tries) throw error;
      await pause(Math.random() * 100 * 2 ** i);
    }
  }
}
`;

describe('a package name known to lead nowhere is skipped only where it leads nowhere', () => {
  beforeEach(() => clearModuleCache());

  it('finds the helper from a folder with its own node_modules after a folder without the link looked the name up', () => {
    const at = project({
      'packages/kit/package.json': JSON.stringify({ name: '@acme/kit', main: 'src/index.ts' }),
      'packages/kit/src/index.ts': "export { robustly } from './run.js';\n",
      'packages/kit/src/run.ts': KIT,
      'node_modules/.keep': '',
      'apps/plain/src/app.ts': '',
      'apps/linked/src/app.ts': '',
      'apps/linked/src/deep/app.ts': '',
    });
    mkdirSync(at('apps/linked/node_modules/@acme'), { recursive: true });
    symlinkSync(at('packages/kit'), at('apps/linked/node_modules/@acme/kit'), 'dir');
    const code = "import { robustly } from '@acme/kit';\nexport const load = () => robustly(() => fetch('/a'), 9);\n";
    // From apps/plain the name resolves nowhere: nothing to report, and that answer is kept.
    expect(lintAt(code, at('apps/plain/src/app.ts'))).toEqual([]);
    expect(lintAt(code, at('apps/plain/src/app.ts'))).toEqual([]);
    // apps/linked has a node_modules of its own that links the package: 10 attempts through the helper.
    expect(lintAt(code, at('apps/linked/src/app.ts'))).toEqual(['2 max-retry-attempts', '2 max-retry-duration']);
    expect(lintAt(code, at('apps/linked/src/deep/app.ts'))).toEqual(['2 max-retry-attempts', '2 max-retry-duration']);
  });

  it('finds the helper through a tsconfig alias after a folder under no such alias looked the name up', () => {
    const at = project({
      'node_modules/.keep': '',
      'libs/kit/run.ts': KIT,
      'apps/aliased/tsconfig.json': '{ "compilerOptions": { "paths": { "@acme/kit": ["../../libs/kit/run.ts"] } } }',
      'apps/aliased/src/app.ts': '',
      'apps/plain/src/app.ts': '',
    });
    const code = "import { robustly } from '@acme/kit';\nexport const load = () => robustly(() => fetch('/a'), 9);\n";
    expect(lintAt(code, at('apps/plain/src/app.ts'))).toEqual([]);
    expect(lintAt(code, at('apps/aliased/src/app.ts'))).toEqual(['2 max-retry-attempts', '2 max-retry-duration']);
  });
});

describe('a file without any word a hand-written retry needs skips the detectors', () => {
  it('still reads a recursion whose only failure is the falsy result of an awaited call', () => {
    // No catch, then, error word, status read or error-first parameter: only `await`.
    const code = `
      export async function sync(n = 0): Promise<void> {
        const done = await push();
        if (!done && n < 9) return sync(n + 1);
      }
    `;
    expect(mayHoldHandWritten(code.replace('await', 'wait'))).toBe(false);
    expect(lintAt(code, '/virtual/sync.ts')).toEqual(['4 max-retry-attempts', '4 require-exponential-backoff', '4 require-jitter']);
  });

  it('passes every word a detector starts from or needs, in any case, and escaped names', () => {
    for (const text of [
      'try { a() } catch { b() }', 'p.catch(f)', 'p.then(f, g)', 'await x', 'axios.interceptors.response.use(f)',
      'send({ onError: f })', 'send({ onFailure: f })', 'send({ onRejected: f })', 'if (res.ok) {}', "if (res['ok']) {}",
      'x.statusCode', 'x.httpStatus', 'r.error', 'const { err } = r', 'call((e, d) => {})', 'call((EX) => {})',
      'call((er?: Error) => {})', 'call(exc => {})', 'call((\\u0065, d) => {})',
    ]) expect(mayHoldHandWritten(text), text).toBe(true);
    for (const text of ['const x = 1;', 'export const okay = be(1);', 'const ex2 = f(exe);']) expect(mayHoldHandWritten(text), text).toBe(false);
  });
});
