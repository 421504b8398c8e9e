import rule from '../../src/rules/max-retry-attempts.js';
import { run } from '../helpers/rule-tester.js';

run('max-retry-attempts', rule, {
  valid: [
    // rxjs: the count says 10, but the delay refuses the third retry whatever the failure: 3 calls.
    `import { ajax } from 'rxjs/ajax';\nimport { retry, throwError, timer } from 'rxjs';\nexport const a$ = ajax.getJSON('/a').pipe(retry({ count: 10, delay: (error, n) => n >= 3 ? throwError(() => error) : timer(Math.random() * 500 * 2 ** n) }));`,
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 2 });`,
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 4 });`,
    // Unknown counts never report.
    `import pRetry from 'p-retry'; await pRetry(run, { retries: config.retries });`,
    `import pRetry from 'p-retry'; await pRetry(run, opts);`,
    // Not p-retry: a local function with the same name.
    `const pRetry = (fn, o) => fn(); pRetry(run, { retries: 50 });`,
    `import { pRetry } from './my-retry'; pRetry(run, { retries: 50 });`,
    {
      code: `import pRetry from 'p-retry'; await pRetry(run, { retries: 7 });`,
      options: [{ max: 8 }],
    },
    `import retry from 'async-retry'; await retry(async (bail) => run(), { retries: 2 });`,
    `const retry = require('retry'); const op = retry.operation({ retries: 3 });`,
    // An abort check beside a counter: the counter bounds the attempts (3 calls).
    "const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nexport async function load(url: string, signal: AbortSignal) {\n  for (let attempt = 1; attempt <= 3; attempt++) {\n    if (signal.aborted) throw new Error('aborted');\n    try { return await fetch(url, { signal }); } catch { await sleep(200 * 2 ** attempt * Math.random()); }\n  }\n}",
    // Look-alike: a flag of the object's own (`this.closed`) may be set by anything, a count included: unknown.
    "const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nexport class Poller {\n  closed = false;\n  close() { this.closed = true; }\n  async load(url: string) {\n    while (true) {\n      if (this.closed) return undefined;\n      try { return await fetch(url); } catch { await sleep(1000 * Math.random()); }\n    }\n  }\n}",
  ],
  invalid: [
    {
      // Only the caller's abort signal stops it: no limit on the attempts of its own.
      code: "const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nexport async function load(url: string, signal: AbortSignal) {\n  while (true) {\n    if (signal.aborted) throw new Error('aborted');\n    try { return await fetch(url, { signal }); } catch { await sleep(1000 * Math.random()); }\n  }\n}",
      errors: [{ messageId: 'unboundedUntilAborted', line: 3, data: { label: 'while loop' } }],
    },
    {
      // The same through a helper whose callback decides the wait, the signal a presence check and the flag.
      code: "export async function withBackoff<T>(fn: () => Promise<T>, onError: (e: unknown) => number | null, opts: { signal?: AbortSignal }): Promise<T> {\n  for (;;) {\n    if (opts.signal && opts.signal.aborted) throw new Error('aborted');\n    try { return await fn(); } catch (e) {\n      const wait = onError(e);\n      if (wait === null) throw e;\n      await new Promise((r) => setTimeout(r, wait));\n    }\n  }\n}",
      errors: [{ messageId: 'unboundedUntilAborted', line: 2, data: { label: 'for loop' } }],
    },
    {
      // rxjs: the delay refuses the eighth retry: 8 calls, reported at the delay that decides it.
      code: `import { ajax } from 'rxjs/ajax';\nimport { retry, throwError, timer } from 'rxjs';\nexport const a$ = ajax.getJSON('/a').pipe(retry({ count: 10, delay: (error, n) => n >= 8 ? throwError(() => error) : timer(Math.random() * 500 * 2 ** n) }));`,
      errors: [{ messageId: 'tooManyAttempts', line: 3, column: 62, suggestions: [{ messageId: 'setThreeAttempts', data: { edit: 'count: 2' }, output: `import { ajax } from 'rxjs/ajax';\nimport { retry, throwError, timer } from 'rxjs';\nexport const a$ = ajax.getJSON('/a').pipe(retry({ count: 2, delay: (error, n) => n >= 8 ? throwError(() => error) : timer(Math.random() * 500 * 2 ** n) }));` }] }],
    },
    {
      // Options shared by several retries: each retry gets its own finding, at the retry, instead
      // of a pile of identical findings on the constant.
      code: `import retry from 'async-retry';\nconst COMMON = { retries: 5, minTimeout: 250, maxTimeout: 1000 };\nexport const a = () => retry(() => api.get('/a'), COMMON);\nexport const b = () => retry(() => api.get('/b'), COMMON);`,
      errors: [
        { messageId: 'tooManyAttempts', line: 3, column: 24, suggestions: [{ messageId: 'setThreeAttempts', data: { edit: 'retries: 2' }, output: `import retry from 'async-retry';\nconst COMMON = { retries: 2, minTimeout: 250, maxTimeout: 1000 };\nexport const a = () => retry(() => api.get('/a'), COMMON);\nexport const b = () => retry(() => api.get('/b'), COMMON);` }] },
        { messageId: 'tooManyAttempts', line: 4, column: 24, suggestions: [{ messageId: 'setThreeAttempts', data: { edit: 'retries: 2' }, output: `import retry from 'async-retry';\nconst COMMON = { retries: 2, minTimeout: 250, maxTimeout: 1000 };\nexport const a = () => retry(() => api.get('/a'), COMMON);\nexport const b = () => retry(() => api.get('/b'), COMMON);` }] },
      ],
    },
    {
      // Options used by one retry only: shown where they are written.
      code: `import retry from 'async-retry';\nconst ONLY = { retries: 5 };\nexport const a = () => retry(() => api.get('/a'), ONLY);`,
      errors: [{
        messageId: 'tooManyAttempts', line: 2, column: 16,
        suggestions: [{ messageId: 'setThreeAttempts', data: { edit: 'retries: 2, minTimeout: 500' }, output: `import retry from 'async-retry';\nconst ONLY = { retries: 2, minTimeout: 500 };\nexport const a = () => retry(() => api.get('/a'), ONLY);` }],
      }],
    },
    {
      // p-retry's default is 10 retries: 11 calls.
      code: `import pRetry from 'p-retry';\nawait pRetry(run);`,
      errors: [{
        messageId: 'tooManyAttempts', line: 2, column: 7, endColumn: 13,
        data: { label: 'pRetry()', attempts: 11, max: 5 },
        suggestions: [{ messageId: 'setThreeAttempts', data: { edit: 'retries: 2' }, output: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 2 });` }],
      }],
    },
    {
      code: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 10, minTimeout: 500 });`,
      errors: [{
        messageId: 'tooManyAttempts', line: 2, column: 21, endColumn: 32,
        suggestions: [{ messageId: 'setThreeAttempts', data: { edit: 'retries: 2' }, output: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 2, minTimeout: 500 });` }],
      }],
    },
    {
      // Renamed default import, const binding, numeric separator and arithmetic.
      code: `import again from 'p-retry';\nconst MAX = 1_0 - 4;\nawait again(run, { retries: MAX });`,
      errors: [{ messageId: 'tooManyAttempts', line: 3, column: 20, suggestions: [{ messageId: 'setThreeAttempts', data: { edit: 'retries: 2' }, output: `import again from 'p-retry';\nconst MAX = 1_0 - 4;\nawait again(run, { retries: 2 });` }] }],
    },
    {
      code: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: Infinity });`,
      errors: [{ messageId: 'unbounded', line: 2, column: 21, suggestions: [{ messageId: 'setThreeAttempts', data: { edit: 'retries: 2' }, output: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 2 });` }] }],
    },
    {
      // Options in a const, spread into the call's options.
      code: `import pRetry from 'p-retry';\nconst base = { retries: 9 } as const;\nawait pRetry(run, { ...base, factor: 2 });`,
      errors: [{ messageId: 'tooManyAttempts', line: 2, column: 16, suggestions: [{ messageId: 'setThreeAttempts', data: { edit: 'retries: 2' }, output: `import pRetry from 'p-retry';\nconst base = { retries: 2 } as const;\nawait pRetry(run, { ...base, factor: 2 });` }] }],
    },
    {
      // CommonJS require, then an alias.
      code: `const pRetry = require('p-retry');\nconst again = pRetry;\nagain(run, { retries: 20 });`,
      errors: [{ messageId: 'tooManyAttempts', line: 3, column: 14, suggestions: [{ messageId: 'setThreeAttempts', data: { edit: 'retries: 2' }, output: `const pRetry = require('p-retry');\nconst again = pRetry;\nagain(run, { retries: 2 });` }] }],
    },
    {
      code: `import * as P from 'p-retry';\nP.default(run, { retries: 6 });`,
      errors: [{ messageId: 'tooManyAttempts', line: 2, column: 18, suggestions: [{ messageId: 'setThreeAttempts', data: { edit: 'retries: 2' }, output: `import * as P from 'p-retry';\nP.default(run, { retries: 2 });` }] }],
    },
    {
      code: `const retry = require('async-retry');\nretry(async () => run(), { forever: true });`,
      errors: [{ messageId: 'unbounded', line: 2, column: 28, suggestions: [{ messageId: 'setThreeAttempts', data: { edit: 'forever: false, retries: 2, minTimeout: 500' }, output: `const retry = require('async-retry');\nretry(async () => run(), { forever: false, retries: 2, minTimeout: 500 });` }] }],
    },
  ],
});

// Retry options written as a typed constant (a file of policies that calls no retry itself) are
// that library's configuration, judged where they are written.
run('max-retry-attempts (typed option constants)', rule, {
  valid: [
    `import type { WrapOptions } from 'retry';\nexport const FAST: WrapOptions = { retries: 2, minTimeout: 500, randomize: true };`,
    // Passed to a retry call of the same file: the call judges it, once.
    `import pRetry, { type Options } from 'p-retry';\nconst policy: Options = { retries: 2 };\nawait pRetry(run, policy);`,
    // A type of another library, or the project's own type of the same name: not retry options.
    `import type { Options } from 'got';\nexport const o: Options = { retries: 9 };`,
    `interface Options { retries: number }\nexport const o: Options = { retries: 9 };`,
    // Reassignable, or not an object literal: not read.
    `import type { WrapOptions } from 'retry';\nexport let slow: WrapOptions = { retries: 9 };`,
    `import type { WrapOptions } from 'retry';\nexport const slow: WrapOptions = makeOptions();`,
  ],
  invalid: [
    {
      code: `import type { WrapOptions } from 'retry';\nexport const SLOW: WrapOptions = { retries: 9, factor: 2, randomize: true };`,
      errors: [{
        messageId: 'tooManyAttempts', line: 2, data: { label: 'SLOW (WrapOptions)', attempts: '10', max: '5' },
        suggestions: [{ messageId: 'setThreeAttempts', data: { edit: 'retries: 2, minTimeout: 500' }, output: `import type { WrapOptions } from 'retry';\nexport const SLOW: WrapOptions = { retries: 2, factor: 2, randomize: true, minTimeout: 500 };` }],
      }],
    },
    {
      // A type of the project's own extending the library's; retries left at node-retry's 10.
      code: `import type { WrapOptions } from 'retry';\nexport interface RetryOptions extends WrapOptions {}\nexport const FAST: RetryOptions = { minTimeout: 0, maxTimeout: 1 };`,
      errors: [{
        messageId: 'tooManyAttempts', line: 3, column: 14, data: { label: 'FAST (WrapOptions)', attempts: '11', max: '5' },
        suggestions: [{ messageId: 'setThreeAttempts', data: { edit: 'retries: 2, minTimeout: 500, factor: 2, maxTimeout: 2000, randomize: true' }, output: `import type { WrapOptions } from 'retry';\nexport interface RetryOptions extends WrapOptions {}\nexport const FAST: RetryOptions = { minTimeout: 500, maxTimeout: 2000, retries: 2, factor: 2, randomize: true };` }],
      }],
    },
    {
      code: `import type { Options } from 'p-retry';\nexport const policy = { retries: 7, randomize: true } satisfies Options;`,
      errors: [{
        messageId: 'tooManyAttempts', line: 2,
        suggestions: [{ messageId: 'setThreeAttempts', data: { edit: 'retries: 2, minTimeout: 500' }, output: `import type { Options } from 'p-retry';\nexport const policy = { retries: 2, randomize: true, minTimeout: 500 } satisfies Options;` }],
      }],
    },
    {
      code: `import { type Options } from 'async-retry';\ntype Policy = Options;\nexport const policy: Policy = { retries: 6 };`,
      errors: [{
        messageId: 'tooManyAttempts', line: 3,
        suggestions: [{ messageId: 'setThreeAttempts', data: { edit: 'retries: 2, minTimeout: 500' }, output: `import { type Options } from 'async-retry';\ntype Policy = Options;\nexport const policy: Policy = { retries: 2, minTimeout: 500 };` }],
      }],
    },
  ],
});
