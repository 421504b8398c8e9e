import rule, { formatDuration } from '../../src/rules/max-retry-duration.js';
import { run } from '../helpers/rule-tester.js';
import { twoPathLoop } from '../helpers/loops.js';
import { describe, expect, it } from 'vitest';

run('max-retry-duration', rule, {
  valid: [
    // 500 + 1000 = 1.5 s
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 2, minTimeout: 500 });`,
    // randomize doubles the bound: 2 × (1000 + 2000) = 6 s, but a 4 s maxRetryTime caps it.
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 2, randomize: true, maxRetryTime: 4000 });`,
    `import pRetry from 'p-retry'; await pRetry(run, { retries: 4, minTimeout: cfg.min });`,
    { code: `import pRetry from 'p-retry'; await pRetry(run, { retries: 3 });`, options: [{ maxMs: 8000 }] },
  ],
  invalid: [
    {
      // A per-attempt timeout the loop sets itself (AbortSignal.timeout) counts: 3 x 15 s plus the waits.
      code: twoPathLoop('delay = Math.min(delay * 2, 4000)', ', { signal: AbortSignal.timeout(15000) }'),
      errors: [{ messageId: 'needsQueue', line: 3, column: 19 }],
    },
    {
      // 1 + 2 + 4 = 7 s
      code: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 3 });`,
      errors: [{
        messageId: 'tooLong', line: 2, column: 7, endColumn: 13,
        data: { label: 'pRetry()', duration: '7 s', max: '5 s', schedule: ' (waits 1 s, 2 s, 4 s)', noFix: '' },
        // The whole schedule is planned: a shorter first wait alone fits, so the count stays.
        suggestions: [{ messageId: 'fitBudget', data: { max: '5 s', edit: 'minTimeout: 500', waits: '500 ms, 1 s, 2 s' }, output: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 3, minTimeout: 500 });` }],
      }],
    },
    {
      // p-retry defaults: 10 retries of 1, 2, 4 ... 512 s = 1023 s.
      code: `import pRetry from 'p-retry';\nawait pRetry(run);`,
      errors: [{
        messageId: 'needsQueue', line: 2, column: 7,
        data: { label: 'pRetry()', duration: '17.1 min', schedule: ' (waits 1 s, 2 s, 4 s, 8 s, ..., 8.5 min)', noFix: '' },
        suggestions: [{ messageId: 'fitBudget', data: { max: '5 s', edit: 'retries: 2', waits: '1 s, 2 s' }, output: `import pRetry from 'p-retry';\nawait pRetry(run, { retries: 2 });` }],
      }],
    },
    {
      code: `const retry = require('retry');\nconst op = retry.operation({ retries: 4, minTimeout: 2000, maxTimeout: 10000 });`,
      // 2 + 4 + 8 + 10 (capped) = 24 s
      errors: [{
        messageId: 'tooLong', line: 2, column: 12,
        data: { label: 'retry.operation()', duration: '24 s', max: '5 s', schedule: ' (waits 2 s, 4 s, 8 s, 10 s)', noFix: '' },
        suggestions: [{
          messageId: 'fitBudget',
          data: { max: '5 s', edit: 'retries: 2, minTimeout: 500, maxTimeout: 2000', waits: '500 ms, 1 s' },
          output: `const retry = require('retry');\nconst op = retry.operation({ retries: 2, minTimeout: 500, maxTimeout: 2000 });`,
        }],
      }],
    },
  ],
});

describe('formatDuration', () => {
  it('prints human units', () => {
    expect([formatDuration(250), formatDuration(7000), formatDuration(150_000), formatDuration(Infinity)]).toEqual(['250 ms', '7 s', '2.5 min', 'forever']);
  });
});
