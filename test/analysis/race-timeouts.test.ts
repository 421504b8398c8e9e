/**
 * A per-attempt timeout raced against the call (`Promise.race([call, timeout])`): each attempt may
 * run that long before it fails, so it counts towards the retry's time in memory (R-RES-RE-4).
 * Shaped on Blldozer/raade-website's Stripe loop, whose timeout comes from an imported createTimeout.
 */
import { readFileSync } from 'node:fs';
import * as tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { beforeEach, describe, expect, it } from 'vitest';
import { clearModuleCache } from '../../src/analysis/wrappers/index.js';
import plugin from '../../src/index.js';
import { analyse, lint } from '../helpers/model.js';
import { temporaryProjects } from '../helpers/project.js';

const loop = (timeout: string, race: string, attempts = 3, wait = '100 * 2 ** attempt * Math.random()') => `
  ${timeout}
  export async function load(url: string) {
    let attempt = 0;
    while (attempt < ${attempts}) {
      try {
        ${race}
      } catch (e) {
        attempt++;
        await new Promise((r) => setTimeout(r, ${wait}));
      }
    }
    throw new Error('failed');
  }
`;

describe('a raced timeout in a hand-written retry', () => {
  it('reads an inline rejecting timer promise', () => {
    const code = loop('', `return await Promise.race([fetch(url), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 4000))]);`);
    expect(analyse(code).find((s) => s.library === 'hand-written')).toMatchObject({ attemptTimeoutMs: 4000 });
    expect(lint(code).filter((f) => f.rule === 'max-retry-duration').map((f) => f.line)).toEqual([5]);
  });

  it('reads a local function that makes the timer, with the duration the call passes', () => {
    const code = loop(`const createTimeout = (ms: number) => ({ promise: new Promise<never>((_, reject) => { setTimeout(() => reject(new Error('t')), ms); }) });`,
      `const { promise: timeout } = createTimeout(15000);\n        return await Promise.race([fetch(url), timeout]);`);
    expect(analyse(code).find((s) => s.library === 'hand-written')).toMatchObject({ attemptTimeoutMs: 15000 });
  });

  it('stays silent on a short timeout within budget, and on a race against a timer that resolves (a poll, not a timeout)', () => {
    const short = loop('', `return await Promise.race([fetch(url), new Promise((_, reject) => setTimeout(reject, 500))]);`);
    expect(analyse(short).find((s) => s.library === 'hand-written')).toMatchObject({ attemptTimeoutMs: 500 });
    expect(lint(short).filter((f) => f.rule === 'max-retry-duration')).toEqual([]);
    const resolving = loop('', `return await Promise.race([fetch(url), new Promise((resolve) => setTimeout(resolve, 60000))]);`);
    expect(analyse(resolving).find((s) => s.library === 'hand-written')).toMatchObject({ attemptTimeoutMs: undefined });
  });

  it('reports the timeouts alone when the waits are not known, as a lower bound', () => {
    const code = loop('declare function backoff(n: number): number;', `return await Promise.race([fetch(url), new Promise((_, reject) => setTimeout(() => reject(new Error('t')), 15000))]);`, 4, 'backoff(attempt)');
    const found = lint(code).filter((f) => f.rule === 'max-retry-duration');
    expect(found.map((f) => f.messageId)).toEqual(['timeoutsTooLong']);
  });
});

describe('a timeout maker imported from another file', () => {
  const project = temporaryProjects('safe-retry-race-');
  beforeEach(() => clearModuleCache());

  it('is read in its own file, with the duration the call passes', () => {
    const file = project({
      'src/utils.ts': `export const createTimeout = (ms: number, message: string) => {\n  let id: any;\n  const promise = new Promise<never>((_, reject) => { id = setTimeout(() => { reject(new Error(message)); }, ms); });\n  return { promise, cleanup: () => clearTimeout(id) };\n};\n`,
      'src/pay.ts': loop(`import { createTimeout } from './utils';\ndeclare function backoff(n: number): number;`, `const { promise: t, cleanup } = createTimeout(15000, 'timeout');\n        return await Promise.race([fetch(url), t]);`, 4, 'backoff(attempt)'),
    });
    const filename = file('src/pay.ts');
    const linter = new Linter({ configType: 'flat', cwd: '/' });
    const messages = linter.verify(readFileSync(filename, 'utf8'), [{
      files: ['**/*.ts'],
      plugins: { 'safe-retry': plugin as never },
      languageOptions: { parser: tsParser as never, ecmaVersion: 'latest', sourceType: 'module' },
      rules: { 'safe-retry/max-retry-duration': 'error' },
    }], filename);
    expect(messages.map((m) => m.message)).toEqual([expect.stringContaining('4 attempts of up to 15 s each')]);
  });
});
