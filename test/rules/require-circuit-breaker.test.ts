import rule from '../../src/rules/require-circuit-breaker.js';
import { run } from '../helpers/rule-tester.js';

run('require-circuit-breaker', rule, {
  valid: [
    // cockatiel: retry wrapped with a breaker.
    `import { retry, circuitBreaker, wrap, handleAll, ExponentialBackoff, ConsecutiveBreaker } from 'cockatiel';
     const r = retry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff() });
     const b = circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) });
     const policy = wrap(r, b);
     await policy.execute(() => fetch('/a'));`,
    // The runtime's breaker option.
    `import { createRetryPolicy, createCircuitBreaker } from 'eslint-plugin-safe-retry/runtime';
     const policy = createRetryPolicy({ breaker: createCircuitBreaker() });`,
    // opossum fired inside the retried function.
    `import pRetry from 'p-retry'; import CircuitBreaker from 'opossum';
     const breaker = new CircuitBreaker(callPartner, { timeout: 3000 });
     await pRetry(() => breaker.fire(order), { retries: 2, randomize: true });`,
    // opossum around the retry.
    `import pRetry from 'p-retry'; import CircuitBreaker from 'opossum';
     const breaker = new CircuitBreaker(() => pRetry(() => fetch('/a'), { retries: 2, randomize: true }));`,
    // Library defaults nobody wrote are not this rule's target.
    `import { S3Client } from '@aws-sdk/client-s3'; const s3 = new S3Client({});`,
    // Durable engines.
    `import { proxyActivities } from '@temporalio/workflow'; const acts = proxyActivities({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 } });`,
  ],
  invalid: [
    {
      code: `import pRetry from 'p-retry';\nawait pRetry(() => fetch('/a'), { retries: 2, randomize: true });`,
      errors: [{ messageId: 'noBreaker', line: 2, column: 7, endColumn: 13, data: { label: 'pRetry()' } }],
    },
    {
      code: `import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';\nconst policy = createRetryPolicy({ maxAttempts: 3 });`,
      errors: [{ messageId: 'noBreaker', line: 2, column: 16 }],
    },
    {
      code: `import { retry, handleAll, ExponentialBackoff } from 'cockatiel';\nconst policy = retry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff() });`,
      errors: [{ messageId: 'noBreaker', line: 2, column: 16 }],
    },
    {
      code: `import { S3Client } from '@aws-sdk/client-s3';\nconst s3 = new S3Client({ maxAttempts: 4 });`,
      errors: [{ messageId: 'noBreaker', line: 2, column: 16 }],
    },
  ],
});
