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
      errors: [{ messageId: 'legacyModule', line: 1, column: 19, endColumn: 32, data: { module: 'async-retry' } }],
    },
    {
      code: `const promiseRetry = require('promise-retry');`,
      errors: [{ messageId: 'legacyModule', column: 30, endColumn: 45 }],
    },
    {
      code: `import { Retryable, BackOffPolicy } from 'typescript-retry-decorator';`,
      errors: [{ messageId: 'legacyModule' }],
    },
    {
      code: `import retry from 'async/retry';`,
      errors: [{ messageId: 'legacyModule', data: { module: 'async/retry' } }],
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
