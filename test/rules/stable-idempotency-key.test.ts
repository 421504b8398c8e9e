import rule from '../../src/rules/stable-idempotency-key.js';
import { run } from '../helpers/rule-tester.js';

const opts = `{ retries: 2, minTimeout: 500, randomize: true }`;

run('stable-idempotency-key', rule, {
  valid: [
    `import pRetry from 'p-retry'; import { randomUUID } from 'node:crypto';
     const key = randomUUID();
     await pRetry(() => fetch('/pay', { method: 'POST', headers: { 'Idempotency-Key': key } }), ${opts});`,
    // Derived deterministically inside the callback: the same on every attempt.
    `import pRetry from 'p-retry'; import { v5 as uuidv5 } from 'uuid';
     await pRetry(async () => {
       const key = uuidv5(orderId + ':capture', NAMESPACE);
       return fetch('/capture', { method: 'POST', headers: { 'Idempotency-Key': key } });
     }, ${opts});`,
    `import pRetry from 'p-retry';
     await pRetry(() => fetch('/pay', { method: 'POST', headers: { 'Idempotency-Key': \`order-\${orderId}-capture\` } }), ${opts});`,
    // The runtime hands the same key to every attempt.
    `import { createRetryPolicy, idempotencyKey } from 'eslint-plugin-safe-retry/runtime';
     const policy = createRetryPolicy();
     await policy.write({ idempotencyKey: idempotencyKey.random() }, ({ idempotencyKey: k }) => fetch('/o', { method: 'POST', headers: { 'Idempotency-Key': k } }));`,
    // axios-retry re-sends the same request config, key included.
    `import axios from 'axios'; import axiosRetry from 'axios-retry'; import { randomUUID } from 'node:crypto';
     const api = axios.create(); axiosRetry(api, { retries: 2 });
     export const pay = () => api.post('/pay', {}, { headers: { 'Idempotency-Key': randomUUID() } });`,
    // A local randomUUID that is not crypto's.
    `import pRetry from 'p-retry'; const randomUUID = () => 'fixed';
     await pRetry(() => fetch('/pay', { method: 'POST', headers: { 'Idempotency-Key': randomUUID() } }), ${opts});`,
  ],
  invalid: [
    {
      code: `import pRetry from 'p-retry';\nimport { randomUUID } from 'node:crypto';\nexport async function pay(order) {\n  return pRetry(() => fetch('/pay', { method: 'POST', headers: { 'Idempotency-Key': randomUUID() } }), ${opts});\n}`,
      errors: [{
        messageId: 'freshKey', line: 4, column: 85, endColumn: 97, data: { site: 'pRetry()' },
        suggestions: [{ messageId: 'hoistKey', output: `import pRetry from 'p-retry';\nimport { randomUUID } from 'node:crypto';\nexport async function pay(order) {\n  const idempotencyKey = randomUUID();\n  return pRetry(() => fetch('/pay', { method: 'POST', headers: { 'Idempotency-Key': idempotencyKey } }), ${opts});\n}` }],
      }],
    },
    {
      // A key variable assigned inside the callback.
      code: `import pRetry from 'p-retry';\nimport { v4 as uuidv4 } from 'uuid';\nawait pRetry(async () => {\n  const key = uuidv4();\n  await fetch('/pay', { method: 'POST', headers: { 'X-Idempotency-Key': key } });\n}, ${opts});`,
      errors: [{ messageId: 'freshKey', line: 4, column: 15, endColumn: 23, suggestions: [{ messageId: 'hoistKey', output: `import pRetry from 'p-retry';\nimport { v4 as uuidv4 } from 'uuid';\nconst idempotencyKey = uuidv4();\nawait pRetry(async () => {\n  const key = idempotencyKey;\n  await fetch('/pay', { method: 'POST', headers: { 'X-Idempotency-Key': key } });\n}, ${opts});` }] }],
    },
    {
      // Date.now() in a template string; the whole key moves.
      code: `import pRetry from 'p-retry';\nimport axios from 'axios';\nawait pRetry(() => axios.post('/pay', body, { headers: { 'Idempotency-Key': \`\${orderId}-\${Date.now()}\` } }), ${opts});`,
      errors: [{ messageId: 'freshKey', line: 3, column: 91, endColumn: 101, suggestions: [{ messageId: 'hoistKey', output: `import pRetry from 'p-retry';\nimport axios from 'axios';\nconst idempotencyKey = \`\${orderId}-\${Date.now()}\`;\nawait pRetry(() => axios.post('/pay', body, { headers: { 'Idempotency-Key': idempotencyKey } }), ${opts});` }] }],
    },
    {
      // Derived from p-retry's attempt number.
      code: `import pRetry from 'p-retry';\nawait pRetry((attempt) => fetch('/pay', { method: 'POST', headers: { 'idempotency-key': orderId + '-' + attempt } }), ${opts});`,
      errors: [{ messageId: 'attemptKey', line: 2, column: 105, endColumn: 112, suggestions: [] }],
    },
    {
      // Stripe's idempotencyKey option minted per attempt.
      code: `import pRetry from 'p-retry';\nimport Stripe from 'stripe';\nimport { nanoid } from 'nanoid';\nconst stripe = new Stripe(k);\nawait pRetry(() => stripe.refunds.create({ charge }, { idempotencyKey: nanoid() }), ${opts});`,
      errors: [{ messageId: 'freshKey', line: 5, column: 72, suggestions: [{ messageId: 'hoistKey', output: `import pRetry from 'p-retry';\nimport Stripe from 'stripe';\nimport { nanoid } from 'nanoid';\nconst stripe = new Stripe(k);\nconst idempotencyKey = nanoid();\nawait pRetry(() => stripe.refunds.create({ charge }, { idempotencyKey: idempotencyKey }), ${opts});` }] }],
    },
    {
      // The runtime used the wrong way: its key is ignored and a new one is made per attempt.
      code: `import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';\nimport { randomUUID } from 'node:crypto';\nconst policy = createRetryPolicy();\nawait policy.write({ idempotencyKey: orderKey }, ({ signal }) => fetch('/orders', { method: 'POST', signal, headers: { 'Idempotency-Key': randomUUID() } }));`,
      errors: [{ messageId: 'freshKey', line: 4, column: 139, data: { site: 'createRetryPolicy()' }, suggestions: [{ messageId: 'hoistKey', output: `import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';\nimport { randomUUID } from 'node:crypto';\nconst policy = createRetryPolicy();\nconst idempotencyKey = randomUUID();\nawait policy.write({ idempotencyKey: orderKey }, ({ signal }) => fetch('/orders', { method: 'POST', signal, headers: { 'Idempotency-Key': idempotencyKey } }));` }] }],
    },
    {
      // A loop that makes a new key on every iteration.
      code: `import { randomUUID } from 'node:crypto';\nfor (let attempt = 0; attempt < 3; attempt++) {\n  try {\n    await fetch('/pay', { method: 'POST', headers: { 'Idempotency-Key': crypto.randomUUID() } });\n    break;\n  } catch {\n    await new Promise((r) => setTimeout(r, Math.random() * 2 ** attempt * 500));\n  }\n}`,
      errors: [{ messageId: 'freshKey', line: 4, column: 73, suggestions: [{ messageId: 'hoistKey', output: `import { randomUUID } from 'node:crypto';\nconst idempotencyKey = crypto.randomUUID();\nfor (let attempt = 0; attempt < 3; attempt++) {\n  try {\n    await fetch('/pay', { method: 'POST', headers: { 'Idempotency-Key': idempotencyKey } });\n    break;\n  } catch {\n    await new Promise((r) => setTimeout(r, Math.random() * 2 ** attempt * 500));\n  }\n}` }] }],
    },
  ],
});
