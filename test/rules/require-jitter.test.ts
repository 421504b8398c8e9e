import rule from '../../src/rules/require-jitter.js';
import { run } from '../helpers/rule-tester.js';

run('require-jitter', rule, {
  valid: [
    // One retry: a single wait, nothing to spread (the exemption require-exponential-backoff shares).
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 1 });`,
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 2, randomize: true });`,
    // async-retry randomises by default.
    `const retry = require('async-retry'); retry(async () => run(), { retries: 2 });`,
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 2, randomize: flags.jitter });`,
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 0 });`,
  ],
  invalid: [
    {
      // A constant wait without randomness breaks X3's jitter as well as R-RES-RE-2: both rules
      // report it, so the site is fixed in one pass.
      code: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 2, factor: 1 });`,
      errors: [{ messageId: 'noJitter', line: 2, suggestions: [{ messageId: 'addJitter', data: { edit: 'minTimeout: 500, factor: 2, randomize: true' }, output: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 2, factor: 2, minTimeout: 500, randomize: true });` }] }],
    },
    {
      // Immediate retries (rxjs retry(n) has no delay) land together too.
      code: `import { retry } from 'rxjs';\nexport const s = source$.pipe(retry(2));`,
      errors: [{ messageId: 'noJitter', line: 2 }],
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
  ],
});
