import rule from '../../src/rules/require-exponential-backoff.js';
import { run } from '../helpers/rule-tester.js';

run('require-exponential-backoff', rule, {
  valid: [
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
  ],
  invalid: [
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
      errors: [{
        messageId: 'constantDelay', line: 3, column: 40,
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
  ],
});
