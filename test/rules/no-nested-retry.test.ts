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
    // ky's default instance never retries POST: wrapping it adds only one layer.
    `import pRetry from 'p-retry'; import ky from 'ky';
     await pRetry(() => ky.post(url, { json: body, headers: { 'Idempotency-Key': key } }), ${opts});`,
    // A ky call that writes its own retry is judged by it (here none), not by ky's defaults.
    `import pRetry from 'p-retry'; import ky from 'ky';
     await pRetry(() => ky.get('a', { retry: 0 }).json(), ${opts});`,
    // A ky instance made here with its retries off: its construction decides, not the default.
    `import pRetry from 'p-retry'; import ky from 'ky'; const api = ky.create({ retry: 0 });
     await pRetry(() => api.get('a').json(), ${opts});`,
    // A ky instance imported from another file may be configured any way there: unknown.
    `import pRetry from 'p-retry'; import { api } from './http/api-client';
     await pRetry(() => api.get('a').json(), ${opts});`,
    // A plain axios (no axios-retry) is not a retry layer.
    `import pRetry from 'p-retry'; import axios from 'axios'; const api = axios.create();
     await pRetry(() => api.get('/a'), ${opts});`,
    // An OpenAI client built here with its retries off: its construction decides, not the default.
    `import pRetry from 'p-retry'; import OpenAI from 'openai'; const openai = new OpenAI({ maxRetries: 0 });
     await pRetry(() => openai.chat.completions.create({ model, messages }), ${opts});`,
    // A resource path of another SDK is not the OpenAI client.
    `import pRetry from 'p-retry'; export const send = (twilio) => pRetry(() => twilio.messages.create({ to, body }), ${opts});`,
    // A function of the file that only builds a retrying function (a factory) runs no retry when called.
    `import pRetry from 'p-retry'; function makeLoader(url) { return () => pRetry(() => fetch(url), ${opts}); }
     await pRetry(() => makeLoader('/a'), ${opts});`,
    // A function retrying by calling itself is the outer retry, not a layer under it.
    `export async function load(url, n = 0) { try { return await fetch(url); } catch (e) { if (n >= 2) throw e; await new Promise((r) => setTimeout(r, 100 * 2 ** n * Math.random())); return load(url, n + 1); } }`,
    // An rxjs projection downstream of the retry is not resubscribed by it.
    `import { HttpClient } from '@angular/common/http';\nimport { retry, switchMap } from 'rxjs';\nexport class S {\n  constructor(private http: HttpClient) {}\n  one(id: string) { return this.http.get('/a/' + id).pipe(retry({ count: 2, delay: 500 })); }\n  two(id: string) { return this.http.get('/b/' + id).pipe(retry({ count: 2, delay: 500 }), switchMap(() => this.one(id))); }\n}`,
    // Two retries side by side are not nested.
    `import pRetry from 'p-retry'; await pRetry(() => fetch('/a'), ${opts}); await pRetry(() => fetch('/b'), ${opts});`,
  ],
  invalid: [
    {
      // ky's default instance retries a GET twice (3 calls) under the outer retry's 3.
      code: `import pRetry from 'p-retry';\nimport ky from 'ky';\nexport const load = (url) => pRetry(() => ky.get(url).json(), ${opts});`,
      errors: [{ messageId: 'nestedRetry', line: 3, data: { outer: 'pRetry()', inner: 'ky.get() (ky, by default)', outerAttempts: 3, innerAttempts: 3, total: '9', noEdit: '; no edit of the inner layer can be suggested safely here' }, suggestions: [] }],
    },
    {
      // A ky instance the file creates does not configure the module's own default instance:
      // \`ky.get()\` still retries by default.
      code: `import pRetry from 'p-retry';\nimport ky from 'ky';\nexport const api = ky.create({ retry: 0 });\nexport const load = (url) => pRetry(() => ky.get(url).json(), ${opts});`,
      errors: [{ messageId: 'nestedRetry', line: 4, data: { outer: 'pRetry()', inner: 'ky.get() (ky, by default)', outerAttempts: 3, innerAttempts: 3, total: '9', noEdit: '; no edit of the inner layer can be suggested safely here' }, suggestions: [] }],
    },
    {
      // A call on the response (\`.json()\`) sends nothing more: one finding, at the request.
      code: `import pRetry from 'p-retry';\nimport ky from 'ky';\nconst api = ky.create({ retry: { limit: 2, methods: ['get'] } });\nexport const load = (url) => pRetry(() => api.get(url).json(), ${opts});`,
      errors: [{ messageId: 'nestedRetry', line: 4, column: 43, endColumn: 55, data: { outer: 'pRetry()', inner: 'api.get() (ky.create())', outerAttempts: 3, innerAttempts: 3, total: '9', noEdit: '' },
        suggestions: [{ messageId: 'disableInner', output: `import pRetry from 'p-retry';\nimport ky from 'ky';\nconst api = ky.create({ retry: { limit: 0, methods: ['get'] } });\nexport const load = (url) => pRetry(() => api.get(url).json(), ${opts});` }] }],
    },
    {
      // A function of this file that retries on its own, called in another retry.
      code: `import pRetry from 'p-retry';\nasync function getA() { return pRetry(() => fetch('/a'), ${opts}); }\nexport const outer = () => pRetry(() => getA(), ${opts});`,
      errors: [{ messageId: 'nestedRetry', line: 3, column: 41, data: { outer: 'pRetry()', inner: 'getA() (pRetry())', outerAttempts: 3, innerAttempts: 3, total: '9', noEdit: '' },
        suggestions: [{ messageId: 'disableInner', output: `import pRetry from 'p-retry';\nasync function getA() { return pRetry(() => fetch('/a'), ${opts.replace('retries: 2', 'retries: 0')}); }\nexport const outer = () => pRetry(() => getA(), ${opts});` }] }],
    },
    {
      // An Angular service: the switchMap projection upstream of the retry is resubscribed with it,
      // and the method it calls pipes its own request through retry(3): 4 x 4 GETs.
      code: `import { HttpClient } from '@angular/common/http';\nimport { retry, switchMap } from 'rxjs';\nexport class S {\n  constructor(private http: HttpClient) {}\n  one(id: string) { return this.http.get('/a/' + id).pipe(retry(3)); }\n  two(id: string) { return this.http.put('/a/' + id, {}).pipe(switchMap(() => this.one(id)), retry(3)); }\n}`,
      errors: [{ messageId: 'nestedRetry', line: 6, data: { outer: 'retry()', inner: 'this.one() (retry())', outerAttempts: 4, innerAttempts: 4, total: '16', noEdit: '' },
        suggestions: [{ messageId: 'disableInner', output: `import { HttpClient } from '@angular/common/http';\nimport { retry, switchMap } from 'rxjs';\nexport class S {\n  constructor(private http: HttpClient) {}\n  one(id: string) { return this.http.get('/a/' + id).pipe(retry(0)); }\n  two(id: string) { return this.http.put('/a/' + id, {}).pipe(switchMap(() => this.one(id)), retry(3)); }\n}` }] }],
    },
    {
      // The AWS SDK's own retries re-send writes too: a Create command through a client built here is retried by both layers.
      code: `import pRetry from 'p-retry';\nimport { DataSyncClient, CreateLocationS3Command } from '@aws-sdk/client-datasync';\nconst ds = new DataSyncClient({});\nexport const create = (arn: string) => pRetry(() => ds.send(new CreateLocationS3Command({ S3BucketArn: arn })), { retries: 2, randomize: true, maxTimeout: 1000 });`,
      errors: [{ messageId: 'nestedRetry', line: 4, column: 53, data: { outer: 'pRetry()', inner: 'ds.send() (new DataSyncClient())', outerAttempts: 3, innerAttempts: 3, total: '9', noEdit: '' },
        suggestions: [{ messageId: 'disableInner', output: `import pRetry from 'p-retry';\nimport { DataSyncClient, CreateLocationS3Command } from '@aws-sdk/client-datasync';\nconst ds = new DataSyncClient({ maxAttempts: 1 });\nexport const create = (arn: string) => pRetry(() => ds.send(new CreateLocationS3Command({ S3BucketArn: arn })), { retries: 2, randomize: true, maxTimeout: 1000 });` }] }],
    },
    {
      // A discord.js channel handed in: every request goes through @discordjs/rest, which retries
      // 5xx and network errors 3 times by default. One finding for the layer, not one per call.
      code: `import type { TextChannel } from 'discord.js';\nexport async function safeSend(channel: TextChannel, content: string) {\n  for (let n = 0; n < 3; n++) {\n    try {\n      if (content) return await channel.send({ content });\n      return await channel.send({ content: '-' });\n    } catch (e) { await new Promise((r) => setTimeout(r, 200 * 2 ** n * Math.random())); }\n  }\n}`,
      errors: [{ messageId: 'nestedRetry', line: 5, column: 33, data: { outer: 'for loop', inner: 'channel.send() (@discordjs/rest, by default)', outerAttempts: 3, innerAttempts: 4, total: '12', noEdit: '; no edit of the inner layer can be suggested safely here' }, suggestions: [] }],
    },
    {
      // An OpenAI client passed in keeps the SDK's default two retries.
      code: `export async function ask(openai, messages) {\n  for (let attempt = 1; attempt <= 3; attempt++) {\n    try {\n      return await openai.chat.completions.create({ model: 'm', messages });\n    } catch (err) {\n      if (err.status !== 429) throw err;\n      await new Promise((r) => setTimeout(r, 1000 * 2 ** attempt * Math.random()));\n    }\n  }\n}`,
      errors: [{ messageId: 'nestedRetry', line: 4, data: { outer: 'for loop', inner: 'openai.chat.completions.create() (openai client, by default)', outerAttempts: 3, innerAttempts: 3, total: '9', noEdit: '; no edit of the inner layer can be suggested safely here' }, suggestions: [] }],
    },
    {
      // A Stripe client typed as a parameter: at least one retry by default (stripe-node 13+).
      code: `import Stripe from 'stripe';\nimport pRetry from 'p-retry';\nexport const charge = (stripe: Stripe, key: string) => pRetry(() => stripe.paymentIntents.create({ amount: 1 }, { idempotencyKey: key }), ${opts});`,
      errors: [{ messageId: 'nestedRetry', line: 3, data: { outer: 'pRetry()', inner: 'stripe.paymentIntents.create() (stripe client, by default)', outerAttempts: 3, innerAttempts: 2, total: '6', noEdit: '; no edit of the inner layer can be suggested safely here' }, suggestions: [] }],
    },
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

// A retrying helper called on the way out of an attempt that cannot fail (it catches and logs every
// failure) runs once per call of the outer retry: nothing multiplies it.
const notifyOnTheWayOut = (after = '') => `async function notify(msg) {
  for (let i = 0; i < 3; i++) {
    try { await hook.post('/log', msg); return; } catch (e) { console.warn('retry', e.message); }
  }
}
export async function reset(id) {
  for (let i = 0; i < 3; i++) {
    try {
      await removeRows(id);
      await notify('reset ' + id);
      ${after}return { ok: true };
    } catch (e) { await sleep(Math.random() * 500 * 2 ** i); }
  }
}`;
run('no-nested-retry (a retrying helper on the way out)', rule, {
  valid: [notifyOnTheWayOut()],
  invalid: [{ code: notifyOnTheWayOut('await audit(id); '), errors: [{ messageId: 'nestedRetry', line: 10 }] }],
});
