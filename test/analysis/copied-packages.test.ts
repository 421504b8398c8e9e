import { describe, expect, it } from 'vitest';
import { copiedPackage, normaliseModule } from '../../src/analysis/imports.js';
import { analyse, lint } from '../helpers/model.js';
import { temporaryProjects } from '../helpers/project.js';
import { lintAt } from '../helpers/lint-at.js';

const PACKAGES = new Set(['p-retry', 'async-retry', '@lifeomic/attempt']);

describe('copies of catalogued packages kept in the repository', () => {
  it('reads the entry of a folder named exactly as the package as that package', () => {
    expect(copiedPackage('./p-retry/index.js', PACKAGES)).toBe('p-retry');
    expect(copiedPackage('../utils/p-retry/index.js', PACKAGES)).toBe('p-retry');
    expect(copiedPackage('../../vendor/async-retry/index', PACKAGES)).toBe('async-retry');
    expect(copiedPackage('./vendor/@lifeomic/attempt/index.ts', PACKAGES)).toBe('@lifeomic/attempt');
  });

  it('reads a path into an installed package as that package, whatever its name', () => {
    expect(copiedPackage('../node_modules/.pnpm/p-retry@7.1.1/node_modules/p-retry/index.js')).toBe('p-retry');
    expect(copiedPackage('../../node_modules/retry/lib/retry.js')).toBe('retry/lib/retry.js');
    expect(copiedPackage('../node_modules/@gar/promise-retry/index.js')).toBe('@gar/promise-retry');
    expect(normaliseModule('./node_modules/axios/index.js')).toBe('axios');
  });

  it('leaves look-alikes and files named like a package alone', () => {
    for (const specifier of [
      './p-retry-utils', './p-retry-utils/index.js', '../my-p-retry/x', '../my-p-retry/index.js',
      // A word, not a catalogued compound name: a team's own folder.
      './retry/index.js',
      // Without the folder's entry the text cannot tell a folder from a team's own file.
      './p-retry', './async-retry.js', './async-retry',
      // Inside the folder, not its entry.
      './p-retry/options.js',
      // Not relative: a path alias is the team's own.
      '@/lib/p-retry/index.js', 'p-retry/index.js',
      // A node_modules segment with nothing after it.
      '../node_modules',
    ]) {
      expect([specifier, copiedPackage(specifier, PACKAGES)]).toEqual([specifier, undefined]);
      expect(normaliseModule(specifier, PACKAGES)).toBe(specifier);
    }
  });

  it('judges a call of the copy by the package descriptor', () => {
    const [site] = analyse(`import pRetry from './p-retry/index.js'; await pRetry(() => fetch(u), { retries: 6, randomize: true });`);
    expect(site).toMatchObject({ library: 'p-retry', attempts: 7, growth: 'exponential', jitter: true });
    expect(analyse(`import pRetry from './retry/index.js'; await pRetry(() => fetch(u), { retries: 6 });`)).toEqual([]);
  });

  it('reports the copy of a legacy helper as the helper, and never a look-alike', () => {
    const legacy = (code: string) => lint(code, { rules: { 'safe-retry/no-legacy-retry': 'error' } }).map((f) => f.text);
    expect(legacy(`import pRetry from './p-retry/index.js';\nexport const x = pRetry;`)).toEqual([`'./p-retry/index.js'`]);
    expect(legacy(`const retry = require('../vendor/async-retry/index');\nmodule.exports = retry;`)).toEqual([`'../vendor/async-retry/index'`]);
    expect(legacy(`import pRetry from './p-retry-utils';\nimport retry from './retry/index.js';\nimport own from './async-retry';\nexport const x = [pRetry, retry, own];`)).toEqual([]);
  });
});

describe('a copy on disk', () => {
  const project = temporaryProjects('safe-retry-copied-');

  it('is read as the package, not followed as a helper of the team', () => {
    // A loop of the copy's own: followed, it would be an inferred helper with its own reading.
    const at = project({
      'src/utils/p-retry/index.js': 'export default async function pRetry(fn, options = {}) {\n  let n = 0;\n  for (;;) {\n    try { return await fn(n); } catch (e) { if (++n > (options.retries ?? 10)) throw e; await new Promise((r) => setTimeout(r, 1000)); }\n  }\n}\n',
      'src/caller.ts': '',
    });
    // p-retry's reading: 7 calls, 1 s doubling (63 s of waits), no randomness, a legacy helper.
    const code = `import pRetry from './utils/p-retry/index.js';\nexport const load = (u: string) => pRetry(() => fetch(u), { retries: 6 });`;
    expect(lintAt(code, at('src/caller.ts'))).toEqual(['1 no-legacy-retry', '2 max-retry-attempts', '2 max-retry-duration', '2 require-jitter']);
  });
});
