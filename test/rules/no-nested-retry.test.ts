import rule from '../../src/rules/no-nested-retry.js';
import { run } from '../helpers/rule-tester.js';

const opts = `{ retries: 2, minTimeout: 500, randomize: true }`;

run('no-nested-retry', rule, {
  valid: [
    `import pRetry from 'p-retry'; await pRetry(() => fetch('/a'), ${opts});`,
    // An AWS client told not to retry, under one outer retry.
    `import pRetry from 'p-retry'; import { S3Client, GetObjectCommand } from '@aws-sdk/client-s3';
     const s3 = new S3Client({ maxAttempts: 1 });
     await pRetry(() => s3.send(new GetObjectCommand({ Bucket, Key })), ${opts});`,
    // got does not retry POST by default, so wrapping it adds only one layer.
    `import pRetry from 'p-retry'; import got from 'got';
     await pRetry(() => got.post(url, { json: body, headers: { 'Idempotency-Key': key } }), ${opts});`,
    // A plain axios (no axios-retry) is not a retry layer.
    `import pRetry from 'p-retry'; import axios from 'axios'; const api = axios.create();
     await pRetry(() => api.get('/a'), ${opts});`,
    // Two retries side by side are not nested.
    `import pRetry from 'p-retry'; await pRetry(() => fetch('/a'), ${opts}); await pRetry(() => fetch('/b'), ${opts});`,
  ],
  invalid: [
    {
      code: `import pRetry from 'p-retry';\nawait pRetry(() => pRetry(() => fetch('/a'), ${opts}), ${opts});`,
      errors: [{ messageId: 'nestedRetry', line: 2, column: 20, endColumn: 26, data: { outer: 'pRetry()', inner: 'pRetry()', outerAttempts: 3, innerAttempts: 3, total: '9', noEdit: '' },
        suggestions: [{ messageId: 'disableInner', output: `import pRetry from 'p-retry';\nawait pRetry(() => pRetry(() => fetch('/a'), ${opts.replace('retries: 2', 'retries: 0')}), ${opts});` }] }],
    },
    {
      // AWS SDK v3 clients make 3 attempts by default.
      code: `import pRetry from 'p-retry';\nimport { S3Client, GetObjectCommand } from '@aws-sdk/client-s3';\nconst s3 = new S3Client({});\nawait pRetry(() => s3.send(new GetObjectCommand({ Bucket, Key })), ${opts});`,
      errors: [{ messageId: 'nestedRetry', line: 4, column: 20, data: { outer: 'pRetry()', inner: 's3.send() (new S3Client())', outerAttempts: 3, innerAttempts: 3, total: '9', noEdit: '' },
        suggestions: [{ messageId: 'disableInner', output: `import pRetry from 'p-retry';\nimport { S3Client, GetObjectCommand } from '@aws-sdk/client-s3';\nconst s3 = new S3Client({ maxAttempts: 1 });\nawait pRetry(() => s3.send(new GetObjectCommand({ Bucket, Key })), ${opts});` }] }],
    },
    {
      // An axios instance with axios-retry, wrapped again.
      code: `import pRetry from 'p-retry';\nimport axios from 'axios';\nimport axiosRetry from 'axios-retry';\nconst api = axios.create();\naxiosRetry(api, { retries: 3, retryDelay: axiosRetry.exponentialDelay });\nexport const load = () => pRetry(() => api.get('/orders'), ${opts});`,
      errors: [{ messageId: 'nestedRetry', line: 6, column: 40, data: { outer: 'pRetry()', inner: 'api.get() (axiosRetry())', outerAttempts: 3, innerAttempts: 4, total: '12', noEdit: '' },
        suggestions: [{ messageId: 'disableInner', output: `import pRetry from 'p-retry';\nimport axios from 'axios';\nimport axiosRetry from 'axios-retry';\nconst api = axios.create();\naxiosRetry(api, { retries: 0, retryDelay: axiosRetry.exponentialDelay });\nexport const load = () => pRetry(() => api.get('/orders'), ${opts});` }] }],
    },
    {
      // got retries GET twice on its own.
      code: `import got from 'got';\nfor (let i = 0; i < 3; i++) {\n  try { return await got('https://api.example.com/a').json(); }\n  catch { await new Promise((r) => setTimeout(r, Math.random() * 500 * 2 ** i)); }\n}`,
      errors: [{ messageId: 'nestedRetry', line: 3, column: 22, data: { outer: 'for loop', inner: 'got()', outerAttempts: 3, innerAttempts: 3, total: '9', noEdit: '' },
        suggestions: [{ messageId: 'disableInner', output: `import got from 'got';\nfor (let i = 0; i < 3; i++) {\n  try { return await got('https://api.example.com/a', { retry: { limit: 0 } }).json(); }\n  catch { await new Promise((r) => setTimeout(r, Math.random() * 500 * 2 ** i)); }\n}` }] }],
    },
    {
      // Stripe retries twice by default.
      code: `import pRetry from 'p-retry';\nimport Stripe from 'stripe';\nconst stripe = Stripe(key);\nawait pRetry(() => stripe.customers.retrieve(id), ${opts});`,
      errors: [{ messageId: 'nestedRetry', line: 4, column: 20, data: { outer: 'pRetry()', inner: 'stripe.customers.retrieve() (Stripe())', outerAttempts: 3, innerAttempts: 3, total: '9', noEdit: '' },
        suggestions: [{ messageId: 'disableInner', output: `import pRetry from 'p-retry';\nimport Stripe from 'stripe';\nconst stripe = Stripe(key, { maxNetworkRetries: 0 });\nawait pRetry(() => stripe.customers.retrieve(id), ${opts});` }] }],
    },
  ],
});
