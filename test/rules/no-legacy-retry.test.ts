import rule from '../../src/rules/no-legacy-retry.js';
import { run } from '../helpers/rule-tester.js';

run('no-legacy-retry', rule, {
  valid: [
    `import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';`,
    `import { retry, handleAll } from 'cockatiel';`,
    `import { retry } from 'rxjs';`,
    `import async from 'async'; async.parallel([]);`,
    `import type { RetryOperation } from 'retry';`,
    `import { type RetryOperation } from 'retry';`,
    { code: `import retry from 'async-retry';`, options: [{ allow: ['async-retry'] }] },
    { code: `import { retryWhen } from 'rxjs';`, options: [{ allow: ['rxjs#retryWhen'] }] },
    // The team's own modules: a folder named by a word, a name that only contains a package's,
    // and a file or folder named like a package but imported without the folder's entry.
    `import { retry } from './retry/index.js';`,
    `import pRetry from './p-retry-utils';`,
    `import pRetry from '../my-p-retry/x';`,
    `import retry from './async-retry';`,
    `import pRetry from './p-retry.js';`,
    { code: `import pRetry from './p-retry/index.js';`, options: [{ allow: ['p-retry'] }] },
  ],
  invalid: [
    {
      // A copy of p-retry kept in the repository is p-retry.
      code: `import pRetry from './utils/p-retry/index.js';`,
      errors: [{ messageId: 'legacyModule', line: 1, column: 20, endColumn: 46, data: { module: 'p-retry', migration: '' }, suggestions: [{ messageId: 'migrate', output: '' }] }],
    },
    {
      code: `import retry from 'async-retry';`,
      // Nothing calls it: the suggestion removes the import.
      errors: [{ messageId: 'legacyModule', line: 1, column: 19, endColumn: 32, data: { module: 'async-retry', migration: '' }, suggestions: [{ messageId: 'migrate', output: '' }] }],
    },
    {
      code: `const promiseRetry = require('promise-retry');`,
      errors: [{ messageId: 'legacyModule', column: 30, endColumn: 45, suggestions: [{ messageId: 'migrate', output: '' }] }],
    },
    {
      // retries counts retries, maxAttempts counts calls: 2 retries are 3 attempts.
      code: `import retry from 'async-retry';\nexport const load = (url: string) => retry(() => fetch(url), { retries: 2, minTimeout: 500, factor: 2, maxTimeout: 2000, randomize: true });`,
      errors: [{
        messageId: 'legacyModule', data: { module: 'async-retry', migration: '' },
        suggestions: [{ messageId: 'migrate', output: `import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';\nexport const load = (url: string) => createRetryPolicy({ maxAttempts: 3, initialDelayMs: 500, multiplier: 2, maxDelayMs: 2000 }).read(() => fetch(url));` }],
      }],
    },
    {
      // promise-retry's (retry) => op().catch(retry) retries every rejection of op().
      code: `const promiseRetry = require('promise-retry');\nmodule.exports = (url) => promiseRetry((retry) => fetch(url).catch(retry), { retries: 1, maxRetryTime: 3000 });`,
      errors: [{
        messageId: 'legacyModule',
        suggestions: [{ messageId: 'migrate', output: `const { createRetryPolicy } = require('eslint-plugin-safe-retry/runtime');\nmodule.exports = (url) => createRetryPolicy({ maxAttempts: 2, deadlineMs: 3000 }).read(() => fetch(url));` }],
      }],
    },
    {
      // A value that cannot be read has no equivalent: the message names it and no edit is offered.
      code: `import retry from 'async-retry';\nexport const load = (url: string, count: number) => retry(() => fetch(url), { retries: count });`,
      errors: [{
        messageId: 'legacyModule', suggestions: [],
        data: { module: 'async-retry', migration: '; no automatic migration here: retries: count has no equivalent (the runtime makes 1 to 5 attempts) (line 2)' },
      }],
    },
    {
      // A known value outside the guide is brought within it: 10 attempts become the runtime's 5.
      code: `import retry from 'async-retry';\nexport const load = (url: string) => retry(() => fetch(url), { retries: 9 });`,
      errors: [{
        messageId: 'legacyModule',
        suggestions: [{ messageId: 'migrate', data: { edit: "retry() -> createRetryPolicy().read(), import from eslint-plugin-safe-retry/runtime" }, output: "import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';\nexport const load = (url: string) => createRetryPolicy({ maxAttempts: 5 }).read(() => fetch(url));" }],
      }],
    },
    {
      // A factor of 1 takes the runtime's growing waits; a filter that lets everything through, its classification.
      code: `import pRetry from 'p-retry';\nexport const load = (url: string) => pRetry(() => fetch(url), { retries: 2, factor: 1, minTimeout: 1000, shouldRetry: () => true });`,
      errors: [{
        messageId: 'legacyModule',
        suggestions: [{ messageId: 'migrate', data: { edit: "pRetry() -> createRetryPolicy().read(), import from eslint-plugin-safe-retry/runtime" }, output: "import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';\nexport const load = (url: string) => createRetryPolicy({ maxAttempts: 3, initialDelayMs: 1000 }).read(() => fetch(url));" }],
      }],
    },
    {
      // A write goes to policy.write with a key created once per call, sent the way axios takes it.
      code: `import retry from 'async-retry';\nimport axios from 'axios';\nexport const order = (body: unknown) => retry(() => axios.post('/orders', body), { retries: 2 });`,
      errors: [{
        messageId: 'legacyModule', data: { module: 'async-retry', migration: '' },
        suggestions: [{
          messageId: 'migrate', data: { edit: 'retry() -> createRetryPolicy().write(), import from eslint-plugin-safe-retry/runtime' },
          output: `import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';\nimport axios from 'axios';\nexport const order = (body: unknown) => createRetryPolicy({ maxAttempts: 3 }).write({ idempotencyKey: crypto.randomUUID() }, ({ idempotencyKey }) => axios.post('/orders', body, { headers: { 'Idempotency-Key': idempotencyKey } }));`,
        }],
      }],
    },
    {
      // fetch: the header joins the request's init.
      code: `import pRetry from 'p-retry';\nexport const pay = (order: { id: string }) => pRetry(() => fetch('/api/payments', { method: 'POST', body: JSON.stringify(order) }), { retries: 1 });`,
      errors: [{
        messageId: 'legacyModule',
        suggestions: [{ messageId: 'migrate', output: `import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';\nexport const pay = (order: { id: string }) => createRetryPolicy({ maxAttempts: 2 }).write({ idempotencyKey: crypto.randomUUID() }, ({ idempotencyKey }) => fetch('/api/payments', { method: 'POST', body: JSON.stringify(order), headers: { 'Idempotency-Key': idempotencyKey } }));` }],
      }],
    },
    {
      // A key the code already sends, the same on every attempt, becomes the policy's key.
      code: `import pRetry from 'p-retry';\nimport Stripe from 'stripe';\nconst stripe = new Stripe('sk', { maxNetworkRetries: 0 });\nexport const refund = (id: string, key: string) => pRetry(() => stripe.refunds.create({ charge: id }, { idempotencyKey: key }), { retries: 2 });`,
      errors: [{
        messageId: 'legacyModule',
        suggestions: [{ messageId: 'migrate', output: `import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';\nimport Stripe from 'stripe';\nconst stripe = new Stripe('sk', { maxNetworkRetries: 0 });\nexport const refund = (id: string, key: string) => createRetryPolicy({ maxAttempts: 3 }).write({ idempotencyKey: key }, () => stripe.refunds.create({ charge: id }, { idempotencyKey: key }));` }],
      }],
    },
    {
      // Stripe without a key: the request option carries the policy's.
      code: `import retry from 'async-retry';\nimport Stripe from 'stripe';\nconst stripe = new Stripe('sk', { maxNetworkRetries: 0 });\nexport const charge = (amount: number) => retry(() => stripe.charges.create({ amount, currency: 'eur' }), { retries: 2 });`,
      errors: [{
        messageId: 'legacyModule',
        suggestions: [{ messageId: 'migrate', output: `import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';\nimport Stripe from 'stripe';\nconst stripe = new Stripe('sk', { maxNetworkRetries: 0 });\nexport const charge = (amount: number) => createRetryPolicy({ maxAttempts: 3 }).write({ idempotencyKey: crypto.randomUUID() }, ({ idempotencyKey }) => stripe.charges.create({ amount, currency: 'eur' }, { idempotencyKey }));` }],
      }],
    },
    {
      // A write whose client takes no key the plugin knows: the code chooses.
      code: `import retry from 'async-retry';\nimport OpenAI from 'openai';\nconst openai = new OpenAI({ maxRetries: 0 });\nexport const complete = (prompt: string) => retry(() => openai.completions.create({ model: 'x', prompt }), { retries: 2 });`,
      errors: [{
        messageId: 'legacyModule', suggestions: [],
        data: { module: 'async-retry', migration: '; no automatic migration here: the call on line 4 repeats a write, which needs an idempotency key only the code can choose (policy.write)' },
      }],
    },
    {
      // async-retry's bail(new Error(...)) before a return: the runtime does not retry that error.
      code: `const retry = require('async-retry');\nmodule.exports = (url) => retry(async (bail) => {\n  const res = await fetch(url);\n  if (res.status === 403) { bail(new Error('forbidden')); return; }\n  return res.json();\n}, { retries: 2 });`,
      errors: [{
        messageId: 'legacyModule',
        suggestions: [{ messageId: 'migrate', output: `const { createRetryPolicy } = require('eslint-plugin-safe-retry/runtime');\nmodule.exports = (url) => createRetryPolicy({ maxAttempts: 3 }).read(async () => {\n  const res = await fetch(url);\n  if (res.status === 403) { throw new Error('forbidden'); }\n  return res.json();\n});` }],
      }],
    },
    {
      // bail handed the caught error: the runtime might retry it, so no migration.
      code: `const retry = require('async-retry');\nmodule.exports = (url) => retry(async (bail) => { try { return await fetch(url); } catch (e) { bail(e); } }, { retries: 2 });`,
      errors: [{
        messageId: 'legacyModule', suggestions: [],
        data: { module: 'async-retry', migration: "; no automatic migration here: the retried function calls async-retry's bail other than as bail(new Error(...)) before a return (line 2)" },
      }],
    },
    {
      // exponential-backoff: numOfAttempts counts calls; jitter goes (the runtime always jitters).
      code: `import { backOff } from 'exponential-backoff';\nexport const load = (url: string) => backOff(() => fetch(url), { numOfAttempts: 3, startingDelay: 500, timeMultiple: 3, jitter: 'none' });`,
      errors: [{
        messageId: 'legacyModule',
        suggestions: [{ messageId: 'migrate', data: { edit: 'backOff() -> createRetryPolicy().read(), import from eslint-plugin-safe-retry/runtime' }, output: `import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';\nexport const load = (url: string) => createRetryPolicy({ maxAttempts: 3, initialDelayMs: 500, multiplier: 3 }).read(() => fetch(url));` }],
      }],
    },
    {
      // exponential-backoff: delayFirstAttempt: true has no equivalent.
      code: `import { backOff } from 'exponential-backoff';\nexport const load = (url: string) => backOff(() => fetch(url), { delayFirstAttempt: true });`,
      errors: [{ messageId: 'legacyModule', suggestions: [], data: { module: 'exponential-backoff', migration: '; no automatic migration here: delayFirstAttempt: true has no equivalent in createRetryPolicy (line 2)' } }],
    },
    {
      // ts-retry-promise: retries counts retries, a named backoff goes, timeout is the deadline.
      code: `import { retry } from 'ts-retry-promise';\nexport const load = (url: string) => retry(() => fetch(url), { retries: 2, delay: 300, backoff: 'FIXED', timeout: 4000 });`,
      errors: [{
        messageId: 'legacyModule',
        suggestions: [{ messageId: 'migrate', output: `import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';\nexport const load = (url: string) => createRetryPolicy({ maxAttempts: 3, initialDelayMs: 300, deadlineMs: 4000 }).read(() => fetch(url));` }],
      }],
    },
    {
      // bluebird-retry: max_tries counts calls, interval and backoff are the first wait and factor.
      code: `const retry = require('bluebird-retry');\nexports.load = (url) => retry(() => fetch(url), { max_tries: 4, interval: 200, backoff: 2, max_interval: 1500 });`,
      errors: [{
        messageId: 'legacyModule',
        suggestions: [{ messageId: 'migrate', output: `const { createRetryPolicy } = require('eslint-plugin-safe-retry/runtime');\nexports.load = (url) => createRetryPolicy({ maxAttempts: 4, initialDelayMs: 200, multiplier: 2, maxDelayMs: 1500 }).read(() => fetch(url));` }],
      }],
    },
    {
      // @lifeomic/attempt: maxAttempts 0 (no bound) is brought within the guide, timeout bounds each attempt.
      code: `import { retry } from '@lifeomic/attempt';\nexport const load = (url: string) => retry(() => fetch(url), { maxAttempts: 0, delay: 200, factor: 2, jitter: true, timeout: 1000 });`,
      errors: [{
        messageId: 'legacyModule',
        suggestions: [{ messageId: 'migrate', output: `import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';\nexport const load = (url: string) => createRetryPolicy({ maxAttempts: 5, initialDelayMs: 200, multiplier: 2, attemptTimeoutMs: 1000 }).read(() => fetch(url));` }],
      }],
    },
    {
      code: `import { Retryable, BackOffPolicy } from 'typescript-retry-decorator';`,
      errors: [{ messageId: 'legacyModule' }],
    },
    {
      code: `import retry from 'async/retry';`,
      errors: [{ messageId: 'legacyModule', data: { module: 'async/retry', migration: '' } }],
    },
    {
      code: `import async from 'async';\nawait async.retry({ times: 3 }, task);`,
      errors: [{ messageId: 'legacyExport', line: 2, column: 7, endColumn: 18, data: { name: 'retry', module: 'async', hint: '' } }],
    },
    {
      code: `import { map, retryWhen } from 'rxjs/operators';`,
      errors: [{ messageId: 'legacyExport', column: 15, endColumn: 24 }],
    },
    {
      // retryWhen's usual fixed-delay notifier becomes retry({ count, delay }) within the guide, 4xx rethrown.
      code: `import { ajax } from 'rxjs/ajax';\nimport { retryWhen, delay } from 'rxjs/operators';\nexport const items$ = ajax.getJSON('/api/items').pipe(retryWhen((errors) => errors.pipe(delay(500))));`,
      errors: [{
        messageId: 'legacyExport',
        suggestions: [{
          messageId: 'migrateExport',
          output: `import { ajax } from 'rxjs/ajax';\nimport { retry } from 'rxjs/operators';\nimport { timer } from 'rxjs';\nexport const items$ = ajax.getJSON('/api/items').pipe(retry({ count: 2, delay: (error, retryCount) => { const status = Object(error).status; if (status >= 400 && status < 500 && status !== 408 && status !== 429) throw error; return timer(Math.random() * Math.min(2000, 500 * 2 ** (retryCount - 1))); } }));`,
        }],
      }],
    },
    {
      // delay is still used elsewhere: it stays, and retryWhen becomes retry beside it.
      code: `import { ajax } from 'rxjs/ajax';\nimport { retryWhen, delay } from 'rxjs/operators';\nexport const items$ = ajax.getJSON('/api/items').pipe(retryWhen((errors) => errors.pipe(delay(500))));\nexport const later$ = ajax.getJSON('/api/later').pipe(delay(5));`,
      errors: [{
        messageId: 'legacyExport',
        suggestions: [{
          messageId: 'migrateExport',
          output: `import { ajax } from 'rxjs/ajax';\nimport { retry, delay } from 'rxjs/operators';\nimport { timer } from 'rxjs';\nexport const items$ = ajax.getJSON('/api/items').pipe(retry({ count: 2, delay: (error, retryCount) => { const status = Object(error).status; if (status >= 400 && status < 500 && status !== 408 && status !== 429) throw error; return timer(Math.random() * Math.min(2000, 500 * 2 ** (retryCount - 1))); } }));\nexport const later$ = ajax.getJSON('/api/later').pipe(delay(5));`,
        }],
      }],
    },
    {
      // A notifier with logic of its own (it gives up after three errors) is left to the code.
      code: `import { ajax } from 'rxjs/ajax';\nimport { retryWhen, delay, take } from 'rxjs/operators';\nexport const items$ = ajax.getJSON('/api/items').pipe(retryWhen((errors) => errors.pipe(delay(500), take(3))));`,
      errors: [{ messageId: 'legacyExport', suggestions: [] }],
    },
    {
      code: `import got from '@acme/old-retry';`,
      options: [{ modules: ['@acme/old-retry'] }],
      errors: [{ messageId: 'legacyModule' }],
    },
  ],
});
