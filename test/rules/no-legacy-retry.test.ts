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
  ],
  invalid: [
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
      // A write needs a key only the code can choose.
      code: `import retry from 'async-retry';\nimport axios from 'axios';\nexport const order = (body: unknown) => retry(() => axios.post('/orders', body), { retries: 2 });`,
      errors: [{
        messageId: 'legacyModule', suggestions: [],
        data: { module: 'async-retry', migration: '; no automatic migration here: the call on line 3 repeats a write, which needs an idempotency key only the code can choose (policy.write)' },
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
      code: `import got from '@acme/old-retry';`,
      options: [{ modules: ['@acme/old-retry'] }],
      errors: [{ messageId: 'legacyModule' }],
    },
  ],
});
