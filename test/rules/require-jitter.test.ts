import rule from '../../src/rules/require-jitter.js';
import { run } from '../helpers/rule-tester.js';
import { twoPathLoop } from '../helpers/loops.js';

run('require-jitter', rule, {
  valid: [
    // A client used only here, only by calls that each write their own delay: its default delay applies to no request.
    `import fetchRetry from 'fetch-retry';\nconst fetchWithRetry = fetchRetry(globalThis.fetch);\nexport const load = (url: string) => fetchWithRetry(url, { retries: 2, retryDelay: (n: number) => Math.random() * 500 * 2 ** n });`,
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 2, randomize: true });`,
    // async-retry randomises by default.
    `const retry = require('async-retry'); retry(async () => run(), { retries: 2 });`,
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 2, randomize: flags.jitter });`,
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 0 });`,
    // The wait variable moves differently on the two failure paths: its schedule is not known.
    twoPathLoop('delay = delay * 3'),
  ],
  invalid: [
    {
      // The call writes its count and takes the client's delay: one finding, where the delay is written, not again at the call.
      code: `import fetchRetry from 'fetch-retry';\nconst api = fetchRetry(globalThis.fetch, { retryDelay: (n: number) => 500 * 2 ** n });\nexport const load = (url: string) => api(url, { retries: 2 });`,
      errors: [{ messageId: 'noJitter', line: 2, column: 44, endColumn: 83, suggestions: [{ messageId: 'addJitter', output: `import fetchRetry from 'fetch-retry';\nconst api = fetchRetry(globalThis.fetch, { retryDelay: (attempt) => Math.random() * Math.min(2000, 500 * 2 ** attempt) });\nexport const load = (url: string) => api(url, { retries: 2 });` }] }],
    },
    {
      // Exported, the client may be called elsewhere with its defaults: they are judged.
      code: `import fetchRetry from 'fetch-retry';\nexport const fetchWithRetry = fetchRetry(globalThis.fetch);\nexport const load = (url: string) => fetchWithRetry(url, { retries: 2, retryDelay: (n: number) => Math.random() * 500 * 2 ** n });`,
      errors: [{ messageId: 'noJitter', line: 2, column: 31, endColumn: 41, suggestions: [{ messageId: 'addJitter', output: `import fetchRetry from 'fetch-retry';\nexport const fetchWithRetry = fetchRetry(globalThis.fetch, { retryDelay: (attempt) => Math.random() * 500 * 2 ** attempt });\nexport const load = (url: string) => fetchWithRetry(url, { retries: 2, retryDelay: (n: number) => Math.random() * 500 * 2 ** n });` }] }],
    },
    {
      // The same backoff step written on both failure paths (the 5xx branch and the catch) moves
      // the wait once per attempt: 500 ms doubling, no randomness.
      code: twoPathLoop('delay = Math.min(delay * 2, 4000)'),
      errors: [{
        messageId: 'noJitter', line: 15, column: 46,
        suggestions: [{
          messageId: 'addJitter',
          data: { edit: 'wait Math.random() * Math.min(4000, 500 * 2 ** i)' },
          output: twoPathLoop('delay = Math.min(delay * 2, 4000)').replace('setTimeout(r, delay));\n      delay = Math.min(delay * 2, 4000);\n    }', 'setTimeout(r, Math.random() * Math.min(4000, 500 * 2 ** i)));\n      delay = Math.min(delay * 2, 4000);\n    }'),
        }],
      }],
    },
    {
      // One retry still needs jitter: a single fixed wait brings every client that failed together
      // back at the same instant (require-exponential-backoff leaves one wait alone: nothing grows).
      code: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 1 });`,
      errors: [{ messageId: 'noJitter', line: 2, suggestions: [{ messageId: 'addJitter', data: { edit: 'randomize: true' }, output: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 1, randomize: true });` }] }],
    },
    {
      // axios-retry with one retry and a delay function without randomness.
      code: `import axios from 'axios';\nimport axiosRetry from 'axios-retry';\naxiosRetry(axios, { retries: 1, retryDelay: (n) => n * 1000 });`,
      errors: [{
        messageId: 'noJitter', line: 3, column: 33,
        suggestions: [{
          messageId: 'addJitter',
          data: { edit: 'retryDelay: (retryCount) => Math.random() * Math.min(2000, 1000 * 2 ** (retryCount - 1))' },
          output: `import axios from 'axios';\nimport axiosRetry from 'axios-retry';\naxiosRetry(axios, { retries: 1, retryDelay: (retryCount) => Math.random() * Math.min(2000, 1000 * 2 ** (retryCount - 1)) });`,
        }],
      }],
    },
    {
      // A constant wait without randomness breaks X3's jitter as well as R-RES-RE-2: both rules
      // report it, so the site is fixed in one pass.
      code: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 2, factor: 1 });`,
      errors: [{ messageId: 'noJitter', line: 2, suggestions: [{ messageId: 'addJitter', data: { edit: 'minTimeout: 500, factor: 2, randomize: true' }, output: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 2, factor: 2, minTimeout: 500, randomize: true });` }] }],
    },
    {
      // Immediate retries (rxjs retry(n) has no delay) land together too.
      // The bare count becomes the config form, the wait full jitter through rxjs' timer (imported).
      code: `import { retry } from 'rxjs';\nexport const s = source$.pipe(retry(2));`,
      errors: [{
        messageId: 'noJitter', line: 2,
        suggestions: [{
          messageId: 'addJitter',
          data: { edit: 'import timer, count: 2, delay: (_error, retryCount) => timer(Math.random() * Math.min(2000, 500 * 2 ** (retryCount - 1)))' },
          output: `import { retry, timer } from 'rxjs';\nexport const s = source$.pipe(retry({ count: 2, delay: (_error, retryCount) => timer(Math.random() * Math.min(2000, 500 * 2 ** (retryCount - 1))) }));`,
        }],
      }],
    },
    {
      // cockatiel: a ConstantBackoff becomes an ExponentialBackoff (decorrelated jitter), imported.
      code: `import { retry, handleAll, ConstantBackoff } from 'cockatiel';\nexport const policy = retry(handleAll, { maxAttempts: 2, backoff: new ConstantBackoff(1000) });`,
      errors: [{
        messageId: 'noJitter', line: 2,
        suggestions: [{
          messageId: 'addJitter',
          data: { edit: 'import ExponentialBackoff, backoff: new ExponentialBackoff({ initialDelay: 1000, maxDelay: 4000 })' },
          output: `import { retry, handleAll, ConstantBackoff, ExponentialBackoff } from 'cockatiel';\nexport const policy = retry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff({ initialDelay: 1000, maxDelay: 4000 }) });`,
        }],
      }],
    },
    {
      // A hand-written loop: the wait is computed from the counter (1 on the first retry here).
      code: `const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nexport async function load() {\n  for (let attempt = 1; attempt <= 3; attempt++) {\n    try { return await run(); } catch (e) { await sleep(1000); }\n  }\n}`,
      errors: [{
        messageId: 'noJitter', line: 4,
        suggestions: [{
          messageId: 'addJitter',
          data: { edit: 'wait Math.random() * Math.min(4000, 1000 * 2 ** (attempt - 1))' },
          output: `const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\nexport async function load() {\n  for (let attempt = 1; attempt <= 3; attempt++) {\n    try { return await run(); } catch (e) { await sleep(Math.random() * Math.min(4000, 1000 * 2 ** (attempt - 1))); }\n  }\n}`,
        }],
      }],
    },
    {
      // got: a calculateDelay of the code's own gives way to got's schedule (with noise), within 5 s.
      code: `import got from 'got';\nexport const api = got.extend({ retry: { limit: 3, calculateDelay: () => 1000 } });`,
      errors: [{
        messageId: 'noJitter', line: 2,
        suggestions: [{
          messageId: 'addJitter',
          data: { edit: "limit: 2, noise: 100, calculateDelay: got's own" },
          output: `import got from 'got';\nexport const api = got.extend({ retry: { limit: 2, calculateDelay: ({ computedValue }) => computedValue, noise: 100 } });`,
        }],
      }],
    },
    {
      // p-retry's default is randomize: false; the squiggle goes on the call.
      code: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 2 });`,
      errors: [{
        messageId: 'noJitter', line: 2, column: 19, endColumn: 33,
        suggestions: [{ messageId: 'addJitter', data: { edit: 'minTimeout: 500, randomize: true' }, output: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 2, minTimeout: 500, randomize: true });` }],
      }],
    },
    {
      // randomize doubles the 1 s and 2 s waits past 5 s: the same edit brings the first wait to 500 ms.
      code: `const retry = require('async-retry');\nretry(async () => run(), { retries: 2, randomize: false });`,
      errors: [{
        messageId: 'noJitter', line: 2, column: 40, endColumn: 56,
        suggestions: [{ messageId: 'addJitter', data: { edit: 'minTimeout: 500, randomize: true' }, output: `const retry = require('async-retry');\nretry(async () => run(), { retries: 2, randomize: true, minTimeout: 500 });` }],
      }],
    },
    {
      code: `import pRetry from 'p-retry';\nawait pRetry(run);`,
      errors: [{
        messageId: 'noJitter', line: 2, column: 7, endColumn: 13,
        suggestions: [{ messageId: 'addJitter', data: { edit: 'retries: 2, minTimeout: 500, randomize: true' }, output: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 2, minTimeout: 500, randomize: true });` }],
      }],
    },
      {
      // @lifeomic/attempt: a factor and its full jitter (jitter: true).
      code: "import { retry } from '@lifeomic/attempt';\nexport const load = (url: string) => retry(() => fetch(url), { maxAttempts: 4, delay: 500 });",
      errors: [{
        messageId: 'noJitter', line: 2,
        suggestions: [{ messageId: 'addJitter', data: { edit: "factor: 2, jitter: true" }, output: "import { retry } from '@lifeomic/attempt';\nexport const load = (url: string) => retry(() => fetch(url), { maxAttempts: 4, delay: 500, factor: 2, jitter: true });" }],
      }],
    },
    {
      // Slack's WebClient: the written retryConfig is edited in p-retry's words.
      code: "import { WebClient } from '@slack/web-api';\nexport const slack = new WebClient(token, { retryConfig: { retries: 2 } });",
      errors: [{
        messageId: 'noJitter', line: 2,
        suggestions: [{ messageId: 'addJitter', data: { edit: "minTimeout: 500, randomize: true" }, output: "import { WebClient } from '@slack/web-api';\nexport const slack = new WebClient(token, { retryConfig: { retries: 2, minTimeout: 500, randomize: true } });" }],
      }],
    },
    {
      // TanStack Query's client defaults: a full-jitter retryDelay of failureCount, within 5 s.
      code: "import { QueryClient } from '@tanstack/react-query';\nexport const queryClient = new QueryClient({ defaultOptions: { queries: { retry: 3, retryDelay: 1000 } } });\n",
      errors: [{
        messageId: 'noJitter', line: 2,
        suggestions: [{ messageId: 'addJitter', data: { edit: "retryDelay: (failureCount) => Math.random() * 500 * 2 ** failureCount" }, output: "import { QueryClient } from '@tanstack/react-query';\nexport const queryClient = new QueryClient({ defaultOptions: { queries: { retry: 3, retryDelay: (failureCount) => Math.random() * 500 * 2 ** failureCount } } });\n" }],
      }],
    },
  ],
});

run('require-jitter (typed option constants)', rule, {
  valid: [
    `import type { WrapOptions } from 'retry';\nexport const P: WrapOptions = { retries: 2, minTimeout: 500, randomize: true };`,
    // async-retry randomises by default.
    `import type { Options } from 'async-retry';\nexport const P: Options = { retries: 2, minTimeout: 500 };`,
  ],
  invalid: [
    {
      code: `import type { WrapOptions } from 'retry';\nexport const P: WrapOptions = { retries: 2, minTimeout: 500, factor: 2 };`,
      errors: [{
        messageId: 'noJitter', line: 2,
        suggestions: [{ messageId: 'addJitter', data: { edit: 'randomize: true' }, output: `import type { WrapOptions } from 'retry';\nexport const P: WrapOptions = { retries: 2, minTimeout: 500, factor: 2, randomize: true };` }],
      }],
    },
  ],
});
