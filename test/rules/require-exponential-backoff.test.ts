import rule from '../../src/rules/require-exponential-backoff.js';
import { run } from '../helpers/rule-tester.js';

run('require-exponential-backoff', rule, {
  valid: [
    // A client used only here, only by calls that each write their own delay: its default delay applies to no request.
    `import fetchRetry from 'fetch-retry';\nconst fetchWithRetry = fetchRetry(globalThis.fetch);\nexport const load = (url: string) => fetchWithRetry(url, { retries: 2, retryDelay: (n: number) => Math.random() * 500 * 2 ** n });`,
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 2, minTimeout: 500 });`,
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 2, factor: 2 });`,
    // A factor we cannot read is unknown: no report.
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 2, factor: cfg.factor });`,
    // A single attempt does not retry, whatever its delay.
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 0, factor: 1 });`,
    `const retry = require('retry'); retry.operation({ retries: 2, factor: 3 });`,
    // Two attempts have one wait: nothing to grow (graphile-worker's migrate loop).
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 1, factor: 1 });`,
    `export async function migrate() {\n  for (let attempts = 0; attempts < 2; attempts++) {\n    try { return await client.query(sql); } catch (e) { if (e.code !== '42P01') throw e; }\n    await sleep(400 + Math.random() * 200);\n  }\n}`,
    // Hand-picked waits that grow without a named shape stay silent: only a fall back is reported.
    "import axios from 'axios';\nimport axiosRetry from 'axios-retry';\naxiosRetry(axios, { retries: 3, retryDelay: (n) => [1000, 2500, 4000, 8000][n - 1] + Math.random() * 100 });",
    // A schedule that would fall only after the site's last retry: the waits it makes grow (60 s, 4 min).
    "import axios from 'axios';\nimport axiosRetry from 'axios-retry';\naxiosRetry(axios, { retries: 2, retryDelay: (n) => (n === 1 ? 1 : ((n - 1) ^ 2) + 1) * 60_000 });",
    // A cap is a plateau, not a fall.
    "import axios from 'axios';\nimport axiosRetry from 'axios-retry';\naxiosRetry(axios, { retries: 4, retryDelay: (n) => Math.min([1000, 3000, 4000, 9000, 9000][n - 1] ?? 4000, 4000) });",
  ],
  invalid: [
    {
      // Exported, the client may be called elsewhere with its defaults: they are judged.
      code: `import fetchRetry from 'fetch-retry';\nexport const fetchWithRetry = fetchRetry(globalThis.fetch);\nexport const load = (url: string) => fetchWithRetry(url, { retries: 2, retryDelay: (n: number) => Math.random() * 500 * 2 ** n });`,
      errors: [{ messageId: 'constantDelay', line: 2, column: 31, endColumn: 41, suggestions: [{ messageId: 'useExponential', output: `import fetchRetry from 'fetch-retry';\nexport const fetchWithRetry = fetchRetry(globalThis.fetch, { retryDelay: (attempt) => Math.random() * 500 * 2 ** attempt });\nexport const load = (url: string) => fetchWithRetry(url, { retries: 2, retryDelay: (n: number) => Math.random() * 500 * 2 ** n });` }] }],
    },
    {
      // `(n - 1) ^ 2` is XOR, not a power: 60 s, 4 min, 60 s. Waits that fall back are no backoff.
      code: "import axios from 'axios';\nimport axiosRetry from 'axios-retry';\naxiosRetry(axios, {\n  retryDelay: (retryCount) => (retryCount === 1 ? 1 : ((retryCount - 1) ^ 2) + 1) * 60_000,\n});",
      errors: [{
        messageId: 'fallingDelay', data: { label: 'axiosRetry()', waits: '60 s, 4 min, 60 s' }, line: 4,
        suggestions: [{ messageId: 'useExponential', data: { edit: 'retryDelay: (retryCount) => Math.random() * Math.min(2000, 500 * 2 ** (retryCount - 1))' }, output: "import axios from 'axios';\nimport axiosRetry from 'axios-retry';\naxiosRetry(axios, {\n  retryDelay: (retryCount) => Math.random() * Math.min(2000, 500 * 2 ** (retryCount - 1)),\n});" }],
      }],
    },
    {
      // A list of waits that drops back.
      code: "import axios from 'axios';\nimport axiosRetry from 'axios-retry';\naxiosRetry(axios, { retries: 3, retryDelay: (n) => [2000, 500, 1000, 1000][n - 1] });",
      errors: [{
        messageId: 'fallingDelay', data: { label: 'axiosRetry()', waits: '2 s, 500 ms, 1 s' },
        suggestions: [{ messageId: 'useExponential', data: { edit: 'retryDelay: (retryCount) => Math.random() * Math.min(2000, 500 * 2 ** (retryCount - 1))' }, output: "import axios from 'axios';\nimport axiosRetry from 'axios-retry';\naxiosRetry(axios, { retries: 3, retryDelay: (retryCount) => Math.random() * Math.min(2000, 500 * 2 ** (retryCount - 1)) });" }],
      }],
    },
    {
      // Two attempts with no wait at all are still an immediate retry. The suggestion writes the
      // whole compliant schedule: a first wait that grows, and jitter once the waits grow.
      code: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 1, minTimeout: 0 });`,
      errors: [{
        messageId: 'noDelay',
        suggestions: [{ messageId: 'useExponential', data: { edit: 'minTimeout: 500, factor: 2, randomize: true' }, output: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 1, minTimeout: 500, factor: 2, randomize: true });` }],
      }],
    },
    {
      code: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 2, factor: 1 });`,
      errors: [{
        messageId: 'constantDelay', line: 2, column: 33, endColumn: 42,
        suggestions: [{ messageId: 'useExponential', data: { edit: 'minTimeout: 500, factor: 2, randomize: true' }, output: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 2, factor: 2, minTimeout: 500, randomize: true });` }],
      }],
    },
    {
      code: `const FACTOR = 1;\nconst retry = require('async-retry');\nretry(async () => run(), { retries: 2, factor: FACTOR });`,
      // async-retry randomises by default: the waits are random, but they do not grow.
      errors: [{
        messageId: 'constantDelay', line: 3, column: 40, data: { label: 'retry()', constant: 'waits about as long before every retry (randomised, but not growing), so a dependency that stays overloaded gets no relief from it', keep: ', keeping the randomness', waits: '' },
        suggestions: [{ messageId: 'useExponential', data: { edit: 'minTimeout: 500, factor: 2' }, output: `const FACTOR = 1;\nconst retry = require('async-retry');\nretry(async () => run(), { retries: 2, factor: 2, minTimeout: 500 });` }],
      }],
    },
    {
      code: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 2, minTimeout: 0, factor: 2 });`,
      errors: [{
        messageId: 'noDelay', line: 2, column: 33, endColumn: 46,
        suggestions: [{ messageId: 'useExponential', data: { edit: 'minTimeout: 500, factor: 2, randomize: true' }, output: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 2, minTimeout: 500, factor: 2, randomize: true });` }],
      }],
    },
      {
      // retry-axios: the static backoff becomes exponential with full jitter, within 5 s.
      code: "import axios from 'axios';\nimport * as rax from 'retry-axios';\nexport const client = axios.create({ raxConfig: { retry: 3, backoffType: 'static', retryDelay: 1000 } });\nrax.attach(client);",
      errors: [{
        messageId: 'constantDelay', line: 3,
        suggestions: [{ messageId: 'useExponential', data: { edit: "retryDelay: 500, backoffType: 'exponential', jitter: 'full'" }, output: "import axios from 'axios';\nimport * as rax from 'retry-axios';\nexport const client = axios.create({ raxConfig: { retry: 3, backoffType: 'exponential', retryDelay: 500, jitter: 'full' } });\nrax.attach(client);" }],
      }],
    },
    {
      // axios-retry without retryDelay retries at once: a full-jitter function of retryCount.
      code: "import axios from 'axios';\nimport axiosRetry from 'axios-retry';\naxiosRetry(axios, { retries: 3 });",
      errors: [{
        messageId: 'noDelay', line: 3,
        suggestions: [{ messageId: 'useExponential', data: { edit: "retryDelay: (retryCount) => Math.random() * Math.min(2000, 500 * 2 ** (retryCount - 1))" }, output: "import axios from 'axios';\nimport axiosRetry from 'axios-retry';\naxiosRetry(axios, { retries: 3, retryDelay: (retryCount) => Math.random() * Math.min(2000, 500 * 2 ** (retryCount - 1)) });" }],
      }],
    },
    {
      // typescript-retry-decorator: the exponential policy with FullJitter, its strategy enum imported.
      code: "import { Retryable, BackOffPolicy } from 'typescript-retry-decorator';\nexport class Api {\n  @Retryable({ maxAttempts: 3, backOff: 1000, backOffPolicy: BackOffPolicy.FixedBackOffPolicy })\n  async load() { return run(); }\n}",
      errors: [{
        messageId: 'constantDelay', line: 3,
        suggestions: [{ messageId: 'useExponential', data: { edit: "backOff: 500, import ExponentialBackoffStrategy, backOffPolicy: BackOffPolicy.ExponentialBackOffPolicy, exponentialOption: { maxInterval: 4000, multiplier: 2, backoffStrategy: ExponentialBackoffStrategy.FullJitter }" }, output: "import { Retryable, BackOffPolicy, ExponentialBackoffStrategy } from 'typescript-retry-decorator';\nexport class Api {\n  @Retryable({ maxAttempts: 3, backOff: 500, backOffPolicy: BackOffPolicy.ExponentialBackOffPolicy, exponentialOption: { maxInterval: 4000, multiplier: 2, backoffStrategy: ExponentialBackoffStrategy.FullJitter } })\n  async load() { return run(); }\n}" }],
      }],
    },
    {
      // A countdown loop: the exponent counts down from the retries left.
      code: "export async function load() {\n  let retries = 3;\n  while (true) {\n    try { return await run(); } catch (e) {\n      if (--retries === 0) throw e;\n      await new Promise((resolve) => setTimeout(resolve, 800));\n    }\n  }\n}\n",
      errors: [{
        messageId: 'constantDelay', line: 6,
        suggestions: [{ messageId: 'useExponential', data: { edit: "wait Math.random() * Math.min(3200, 800 * 2 ** (2 - retries))" }, output: "export async function load() {\n  let retries = 3;\n  while (true) {\n    try { return await run(); } catch (e) {\n      if (--retries === 0) throw e;\n      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(3200, 800 * 2 ** (2 - retries))));\n    }\n  }\n}\n" }],
      }],
    },
      {
      // A loop that retries at once: a guarded wait before every attempt but the first, from its counter.
      code: "export async function load() {\n  for (let i = 0; i < 3; i++) {\n    try {\n      return await run();\n    } catch (e) {\n      console.warn(e);\n    }\n  }\n}\n",
      errors: [{
        messageId: 'noDelay', line: 2,
        suggestions: [{ messageId: 'useExponential', data: { edit: "if (i > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2000, 500 * 2 ** (i - 1))));" }, output: "export async function load() {\n  for (let i = 0; i < 3; i++) {\n    if (i > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2000, 500 * 2 ** (i - 1))));\n    try {\n      return await run();\n    } catch (e) {\n      console.warn(e);\n    }\n  }\n}\n" }],
      }],
    },
  ],
});
