import rule from '../../src/rules/no-unsafe-write-retry.js';
import { fileURLToPath } from 'node:url';
import { run } from '../helpers/rule-tester.js';

const opts = `{ retries: 2, minTimeout: 500, randomize: true }`;

run('no-unsafe-write-retry', rule, {
  valid: [
    // MongoDB updates whose operators land in the same state when run again: `$set`/`$setOnInsert`
    // with upsert, Mongoose's implicit `$set` of plain fields, a replacement, in a helper or written there.
    `import pRetry from 'p-retry';\nconst saveMatch = async (db, id, teams) => {\n  await db.collection('games').updateOne({ id }, { $set: { teams }, $setOnInsert: { createdAt: new Date() } }, { upsert: true });\n};\nexport const save = (db, id, teams) => pRetry(() => saveMatch(db, id, teams), ${opts});`,
    `import pRetry from 'p-retry';\nimport { Order } from './models';\nexport const markPaid = (id) => pRetry(() => Order.findByIdAndUpdate(id, { status: 'paid' }), ${opts});`,
    `import pRetry from 'p-retry';\nconst update = { $addToSet: { tags: 'vip' } };\nexport const tag = (users, id) => pRetry(() => users.updateMany({ id }, update), ${opts});`,
    // A projection rxjs does not subscribe to (`map`), and one downstream of the retry: not repeated.
    `import { HttpClient } from '@angular/common/http';\nimport { retry, switchMap, map } from 'rxjs';\nexport class S {\n  constructor(private http: HttpClient) {}\n  a(id: string) { return this.http.get('/a/' + id).pipe(map((x) => this.http.post('/log', x)), retry({ count: 2, delay: 500 })); }\n  b(id: string) { return this.http.get('/a/' + id).pipe(retry({ count: 2, delay: 500 }), switchMap((x) => this.http.post('/log', x))); }\n}`,
    // Wide-corpus regressions: a promise executor's setTimeout is the sleep, and a bare setX()
    // is a local setter, even with idempotent methods reported (the AWS SDK's retry loops).
    {
      code: `export const withRetry = (toRetry, max, ms) => async () => {\n  for (let i = 0; i < max; ++i) {\n    try { return await toRetry(); } catch (e) { await new Promise((resolve) => setTimeout(resolve, ms)); }\n  }\n  return await toRetry();\n};\nexport async function load() {\n  for (let i = 0; i < 3; i++) {\n    try { return await getCredentials(res).then((creds) => setCredentialFeature(creds, 'HTTP')); } catch { await sleep(100 * 2 ** i * Math.random()); }\n  }\n}`,
      options: [{ allowIdempotentMethods: false }],
    },
    {
      code: `export async function op() {\n  for (let i = 0; i < 3; i++) {\n    try { return await load(); } catch (e) { await race(new Promise((resolve) => setTimeout(resolve, 100 * 2 ** i * Math.random())), signal); }\n  }\n}`,
      options: [{ allowIdempotentMethods: false }],
    },
    // Retried only on 429 (the server refused the request, nothing took effect), never on a network
    // error (no status): the POST is not performed twice.
    `export async function ask(openai, messages) {\n  for (let attempt = 1; attempt <= 3; attempt++) {\n    try {\n      return await fetch('/completions', { method: 'POST', body: JSON.stringify(messages) });\n    } catch (err) {\n      if (err.status === 429 && attempt < 3) await new Promise((r) => setTimeout(r, 1000 * 2 ** attempt * Math.random()));\n      else throw err;\n    }\n  }\n}`,
    // A method chosen between reads is a read.
    `import pRetry from 'p-retry';\nexport const load = (url, head) => pRetry(() => fetch(url, { method: head ? 'HEAD' : 'GET' }), ${opts});`,
    // A method the caller passes, compared before the retry: the code chooses what it retries.
    `import axios from 'axios';\nexport async function request(method, url, data) {\n  const tries = method === 'GET' ? 3 : 1;\n  for (let i = 1; i <= tries; i++) {\n    try { return await axios({ method, url, data }); } catch (e) { if (i === tries) throw e; await new Promise((r) => setTimeout(r, Math.random() * 200 * 2 ** i)); }\n  }\n}`,
    // An init object stating GET: a read, whatever the function is called.
    `import pRetry from 'p-retry';\nexport const load = (send, url) => pRetry(() => send(url, { method: 'GET' }), { retries: 2, randomize: true });`,
    // Reads are safe to retry.
    `import pRetry from 'p-retry'; import axios from 'axios'; await pRetry(() => axios.get('/orders/1'), ${opts});`,
    `import pRetry from 'p-retry'; await pRetry(() => fetch('/orders/1'), ${opts});`,
    `import pRetry from 'p-retry'; await pRetry(() => loadOrder(id), ${opts});`,
    // A key created once, outside the retried function.
    `import pRetry from 'p-retry'; import axios from 'axios'; import { randomUUID } from 'node:crypto';
     const key = randomUUID();
     await pRetry(() => axios.post('/charges', body, { headers: { 'Idempotency-Key': key } }), ${opts});`,
    // fetch with the header in a const object, other casing.
    `import pRetry from 'p-retry';
     export async function pay(orderId: string, key: string) {
       const headers = { 'idempotency-key': key, 'content-type': 'application/json' };
       return pRetry(() => fetch('/pay', { method: 'POST', headers, body: JSON.stringify({ orderId }) }), ${opts});
     }`,
    // Stripe with its own idempotencyKey option.
    `import pRetry from 'p-retry'; import Stripe from 'stripe';
     const stripe = new Stripe(process.env.KEY!);
     await pRetry(() => stripe.paymentIntents.create({ amount: 100, currency: 'eur' }, { idempotencyKey: orderKey }), ${opts});`,
    // AWS idempotency token.
    `import pRetry from 'p-retry'; import { EC2Client, RunInstancesCommand } from '@aws-sdk/client-ec2';
     const ec2 = new EC2Client({ maxAttempts: 1 });
     await pRetry(() => ec2.send(new RunInstancesCommand({ MinCount: 1, MaxCount: 1, ClientToken: token })), ${opts});`,
    // ky takes its options second (no body argument): headers there are the request's.
    `import pRetry from 'p-retry'; import ky from 'ky';
     export const unban = (id, key) => pRetry(() => ky.post('/users/' + id + '/unban', { headers: { 'X-Idempotency-Key': key } }), ${opts});`,
    // axios with the key in the config, after an empty body.
    `import pRetry from 'p-retry'; import axios from 'axios';
     export const unban = (id, key) => pRetry(() => axios.post('/users/' + id + '/unban', undefined, { headers: { 'X-Idempotency-Key': key } }), ${opts});`,
    // A key field at the top of the body is sent (APIs that read it from the JSON).
    `import pRetry from 'p-retry'; import axios from 'axios';
     export const pay = (order, key) => pRetry(() => axios.post('/pay', { ...order, idempotency_key: key }), ${opts});`,
    // QueryClient defaults: mutations not retried (the library's default, or written 0 / false), or
    // only queries retried.
    `import { QueryClient } from '@tanstack/react-query';
     export const client = new QueryClient({ defaultOptions: { queries: { retry: 2 }, mutations: { retry: 0 } } });`,
    `import { QueryClient } from '@tanstack/react-query';
     export const client = new QueryClient({ defaultOptions: { queries: { retry: 2 }, mutations: { retry: false } } });`,
    `import { QueryClient } from '@tanstack/react-query';
     export const client = new QueryClient({ defaultOptions: { queries: { retry: 2, retryDelay: (n) => Math.random() * 1000 * 2 ** n } } });`,
    // A recursion's way back discards the failed response's body before calling again: handling of
    // the failure (once per failure), not the operation the retry repeats (openai's cycle awaits
    // Shims.CancelReadableStream(response.body) there).
    {
      code: `export async function load(url: string, retries = 2): Promise<Response> {\n  const res = await fetch(url);\n  if (!res.ok && retries > 0) {\n    await cancelBody(res.body);\n    await new Promise((r) => setTimeout(r, Math.random() * 500 * 2 ** (2 - retries)));\n    return load(url, retries - 1);\n  }\n  return res;\n}`,
      options: [{ allowIdempotentMethods: false }],
    },
    // PUT and DELETE are idempotent by HTTP semantics (allowed by default).
    `import pRetry from 'p-retry'; import axios from 'axios'; await pRetry(() => axios.put('/users/1', user), ${opts});`,
    `import pRetry from 'p-retry'; await pRetry(() => fetch('/users/1', { method: 'DELETE' }), ${opts});`,
    // got does not retry POST by default.
    `import got from 'got'; await got.post('https://api.example.com/orders', { json: order });`,
    // GET through a client with axios-retry.
    `import axios from 'axios'; import axiosRetry from 'axios-retry';
     const api = axios.create(); axiosRetry(api, { retries: 2, retryDelay: axiosRetry.exponentialDelay });
     export const list = () => api.get('/orders');`,
    // axios-retry restricted to idempotent requests.
    `import axios from 'axios'; import axiosRetry from 'axios-retry';
     const api = axios.create(); axiosRetry(api, { retries: 2, retryCondition: axiosRetry.isIdempotentRequestError });
     export const create = () => api.post('/orders', {});`,
    // The runtime's write carries the key to every attempt.
    `import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';
     const policy = createRetryPolicy();
     await policy.write({ idempotencyKey: key }, ({ signal, idempotencyKey }) => fetch('/orders', { method: 'POST', signal, headers: { 'Idempotency-Key': idempotencyKey } }));`,
    // A function documented as idempotent.
    `import pRetry from 'p-retry';
     /** Upserts by order id. @idempotent */
     async function createOrUpdateOrder(o) { return fetch('/orders/' + o.id, { method: 'POST', body: JSON.stringify(o) }); }
     await pRetry(() => createOrUpdateOrder(order), ${opts});`,
    // Settings can declare a function a read.
    {
      code: `import pRetry from 'p-retry'; await pRetry(() => createReport(id), ${opts});`,
      settings: { 'safe-retry': { readFunctions: ['createReport'] } },
    },
    // An unknown method is unknown: no report.
    `import pRetry from 'p-retry'; await pRetry(() => fetch(url, { method: verb }), ${opts});`,
    // Found in node_modules: local objects and event wiring are not remote writes.
    `import pRetry from 'p-retry';
     await pRetry(async () => {
       const error = createAbortError();
       signal.addEventListener('abort', onAbort);
       writeSync(fd, JSON.stringify(state));
       return fetch(url);
     }, ${opts});`,
    // A helper followed from the retry is judged by its HTTP calls, not by the names it calls.
    `import pRetry from 'p-retry';
     async function race(p, signal) { if (signal.aborted) throw createAbortError(); return p; }
     await pRetry(() => race(fetch(url), signal), ${opts});`,
    // A single attempt is no retry.
    `import pRetry from 'p-retry'; import axios from 'axios'; await pRetry(() => axios.post('/x', b), { retries: 0 });`,
  ],
  invalid: [
    {
      // `$inc` adds again on every run: a write, even when the helper's verb says nothing.
      code: `import pRetry from 'p-retry';\nconst bump = async (db, id) => {\n  await db.collection('counters').updateOne({ id }, { $inc: { visits: 1 } });\n};\nexport const visit = (db, id) => pRetry(() => bump(db, id), ${opts});`,
      errors: [{ messageId: 'unsafeWrite', line: 5, data: { site: 'pRetry()', operation: 'bump() (db.collection().updateOne())' }, suggestions: [{ messageId: 'callOnce', output: `import pRetry from 'p-retry';\nconst bump = async (db, id) => {\n  await db.collection('counters').updateOne({ id }, { $inc: { visits: 1 } });\n};\nexport const visit = (db, id) => bump(db, id);` }] }],
    },
    {
      // A resubscription runs the switchMap projection upstream of the retry again: its POST repeats.
      code: `import { HttpClient } from '@angular/common/http';\nimport { retry, switchMap } from 'rxjs';\nexport class S {\n  constructor(private http: HttpClient) {}\n  load(id: string) { return this.http.get('/a/' + id).pipe(switchMap((x) => this.http.post('/log', x)), retry({ count: 2, delay: 500 })); }\n}`,
      errors: [{ messageId: 'unsafeWrite', line: 5, column: 77, endColumn: 102, suggestions: [{ messageId: 'sendKey', output: `import { HttpClient } from '@angular/common/http';\nimport { retry, switchMap } from 'rxjs';\nexport class S {\n  constructor(private http: HttpClient) {}\n  load(id: string) { const idempotencyKey = crypto.randomUUID();\n  return this.http.get('/a/' + id).pipe(switchMap((x) => this.http.post('/log', x, { headers: { 'Idempotency-Key': idempotencyKey } })), retry({ count: 2, delay: 500 })); }\n}` }] }],
    },
    {
      // A bare function named like a built-in's method (Array#push, socket.send, Map#delete) keeps
      // its verb: only a method of a built-in object is no remote write.
      code: `import pRetry from 'p-retry';\nimport { send } from './mailer';\nawait pRetry(() => send(message), ${opts});`,
      errors: [{ messageId: 'unsafeWrite', line: 3, data: { site: 'pRetry()', operation: 'send()' }, suggestions: [{ messageId: 'callOnce', output: `import pRetry from 'p-retry';\nimport { send } from './mailer';\nawait send(message);` }] }],
    },
    {
      code: `import pRetry from 'p-retry';\nimport axios from 'axios';\nawait pRetry(() => axios.post('/charges', body), ${opts});`,
      errors: [{
        messageId: 'unsafeWrite', line: 3, column: 20, endColumn: 48,
        data: { site: 'pRetry()', operation: 'axios.post()' },
        suggestions: [{ messageId: 'callOnce', data: { operation: 'axios.post()' }, output: `import pRetry from 'p-retry';\nimport axios from 'axios';\nawait axios.post('/charges', body);` }],
      }],
    },
    {
      // axios.post(url, data, config): a headers object written as the second argument is the JSON
      // body, so the server never sees the key (a real bank front end did this on one of five calls).
      code: `import pRetry from 'p-retry';\nimport axios from 'axios';\nexport const unban = (id, key) => pRetry(() => axios.post('/users/' + id + '/unban', { headers: { 'X-Idempotency-Key': key } }), ${opts});`,
      errors: [{ messageId: 'unsafeWrite', line: 3, data: { site: 'pRetry()', operation: 'axios.post()' }, suggestions: [{ messageId: 'callOnce', output: `import pRetry from 'p-retry';\nimport axios from 'axios';\nexport const unban = (id, key) => axios.post('/users/' + id + '/unban', { headers: { 'X-Idempotency-Key': key } });` }] }],
    },
    {
      // The same through Angular's HttpClient post(url, body, options).
      code: `import { HttpClient } from '@angular/common/http';\nimport { retry } from 'rxjs';\nexport class Users {\n  constructor(private http: HttpClient) {}\n  unban(id: string, key: string) {\n    return this.http.post('/users/' + id + '/unban', { headers: { 'Idempotency-Key': key } }).pipe(retry({ count: 2 }));\n  }\n}`,
      errors: [{ messageId: 'unsafeWrite', line: 6, suggestions: [{ messageId: 'sendKey', output: `import { HttpClient } from '@angular/common/http';\nimport { retry } from 'rxjs';\nexport class Users {\n  constructor(private http: HttpClient) {}\n  unban(id: string, key: string) {\n    const idempotencyKey = crypto.randomUUID();\n    return this.http.post('/users/' + id + '/unban', { headers: { 'Idempotency-Key': key } }, { headers: { 'Idempotency-Key': idempotencyKey } }).pipe(retry({ count: 2 }));\n  }\n}` }] }],
    },
    {
      // Retrying every mutation by default re-sends every write the app makes, in whatever file.
      code: `import { QueryClient } from '@tanstack/react-query';\nexport const client = new QueryClient({\n  defaultOptions: { mutations: { retry: 15, retryDelay: () => 1000 } },\n});`,
      errors: [{ messageId: 'configuredWrites', line: 3, column: 34, data: { site: 'QueryClient() mutations' }, suggestions: [{ messageId: 'stopRetrying', output: `import { QueryClient } from '@tanstack/react-query';\nexport const client = new QueryClient({\n  defaultOptions: { mutations: { retry: 0, retryDelay: () => 1000 } },\n});` }] }],
    },
    {
      // fetch with method POST in a block-bodied async function: no call-once suggestion.
      code: `import pRetry from 'p-retry';\nawait pRetry(async () => {\n  const res = await fetch('/orders', { method: 'POST', body });\n  return res.json();\n}, ${opts});`,
      errors: [{ messageId: 'unsafeWrite', line: 3, column: 21, data: { site: 'pRetry()', operation: "fetch() (POST)" }, suggestions: [] }],
    },
    {
      // A generic function named by its verb.
      code: `const retry = require('async-retry');\nretry(async () => { await sendSms(phone, text); }, { retries: 2 });`,
      errors: [{ messageId: 'unsafeWrite', line: 2, column: 27, data: { site: 'retry()', operation: 'sendSms()' } }],
    },
    {
      // Stripe's automatic key does not survive an outer retry.
      code: `import pRetry from 'p-retry';\nimport Stripe from 'stripe';\nconst stripe = new Stripe(key);\nawait pRetry(() => stripe.charges.create({ amount: 100 }), ${opts});`,
      errors: [{ messageId: 'unsafeAutoKey', line: 4, column: 20, suggestions: [{ messageId: 'callOnce', data: { operation: 'stripe.charges.create()' }, output: `import pRetry from 'p-retry';\nimport Stripe from 'stripe';\nconst stripe = new Stripe(key);\nawait stripe.charges.create({ amount: 100 });` }] }],
    },
    {
      // The local helper's body decides: a POST without a key.
      code: `import pRetry from 'p-retry';\nasync function submitOrder(o) { return fetch('/orders', { method: 'POST', body: JSON.stringify(o) }); }\nawait pRetry(() => submitOrder(order), ${opts});`,
      errors: [{ messageId: 'unsafeWrite', line: 3, column: 20, data: { site: 'pRetry()', operation: 'submitOrder() (fetch() (POST))' }, suggestions: [{ messageId: 'callOnce', data: { operation: 'submitOrder() (fetch() (POST))' }, output: `import pRetry from 'p-retry';\nasync function submitOrder(o) { return fetch('/orders', { method: 'POST', body: JSON.stringify(o) }); }\nawait submitOrder(order);` }] }],
    },
    {
      // PUT is reported under the strict option.
      code: `import pRetry from 'p-retry';\nimport axios from 'axios';\nawait pRetry(async () => { await axios.put('/users/1', user); }, ${opts});`,
      options: [{ allowIdempotentMethods: false }],
      errors: [{ messageId: 'unsafeWrite', line: 3, column: 34, suggestions: [] }],
    },
    {
      // axios-retry's default condition re-sends POST after a network error.
      code: `import axios from 'axios';\nimport axiosRetry from 'axios-retry';\nconst api = axios.create();\naxiosRetry(api, { retries: 2, retryDelay: axiosRetry.exponentialDelay });\nexport const create = () => api.post('/orders', {});`,
      errors: [{
        messageId: 'unsafeClientWrites', line: 4, column: 1, endColumn: 11,
        data: { site: 'axiosRetry()', operation: 'api.post()', count: 1 },
        suggestions: [{ messageId: 'idempotentOnly', data: { edit: 'retryCondition: axiosRetry.isIdempotentRequestError' }, output: `import axios from 'axios';\nimport axiosRetry from 'axios-retry';\nconst api = axios.create();\naxiosRetry(api, { retries: 2, retryDelay: axiosRetry.exponentialDelay, retryCondition: axiosRetry.isIdempotentRequestError });\nexport const create = () => api.post('/orders', {});` }],
      }],
    },
    {
      // got configured to retry POST: the methods entry is the squiggle.
      code: `import got from 'got';\nconst api = got.extend({ retry: { limit: 2, methods: ['GET', 'POST'] } });\nexport const create = () => api.post('orders', { json: {} });`,
      // got cannot narrow its methods here without the list: the client's retries off, reads included.
      errors: [{ messageId: 'unsafeClientWrites', line: 2, column: 62, endColumn: 68, suggestions: [{ messageId: 'stopRetrying', data: { edit: "limit: 0" }, output: "import got from 'got';\nconst api = got.extend({ retry: { limit: 0, methods: ['GET', 'POST'] } });\nexport const create = () => api.post('orders', { json: {} });" }] }],
    },
    {
      // A hand-written loop around a POST.
      code: `export async function pay(order) {\n  for (let attempt = 1; attempt <= 3; attempt++) {\n    try {\n      return await fetch('/pay', { method: 'POST', body: JSON.stringify(order) });\n    } catch (e) {\n      await new Promise((r) => setTimeout(r, Math.random() * 500 * 2 ** attempt));\n    }\n  }\n}`,
      errors: [{ messageId: 'unsafeWrite', line: 4, column: 20, suggestions: [{ messageId: 'sendKey', data: { edit: "const idempotencyKey = crypto.randomUUID();, headers: { 'Idempotency-Key': idempotencyKey }" }, output: "export async function pay(order) {\n  const idempotencyKey = crypto.randomUUID();\n  for (let attempt = 1; attempt <= 3; attempt++) {\n    try {\n      return await fetch('/pay', { method: 'POST', body: JSON.stringify(order), headers: { 'Idempotency-Key': idempotencyKey } });\n    } catch (e) {\n      await new Promise((r) => setTimeout(r, Math.random() * 500 * 2 ** attempt));\n    }\n  }\n}" }] }],
    },
    {
      // 429 or a failure without a status (a network error, after which the POST may have landed).
      code: `export async function ask(messages) {\n  for (let attempt = 1; attempt <= 3; attempt++) {\n    try {\n      return await fetch('/completions', { method: 'POST', body: JSON.stringify(messages) });\n    } catch (err) {\n      if (err.status !== undefined && err.status !== 429) throw err;\n      await new Promise((r) => setTimeout(r, 1000 * 2 ** attempt * Math.random()));\n    }\n  }\n}`,
      errors: [{ messageId: 'unsafeWrite', line: 4, column: 20, suggestions: [{ messageId: 'sendKey', data: { edit: "const idempotencyKey = crypto.randomUUID();, headers: { 'Idempotency-Key': idempotencyKey }" }, output: "export async function ask(messages) {\n  const idempotencyKey = crypto.randomUUID();\n  for (let attempt = 1; attempt <= 3; attempt++) {\n    try {\n      return await fetch('/completions', { method: 'POST', body: JSON.stringify(messages), headers: { 'Idempotency-Key': idempotencyKey } });\n    } catch (err) {\n      if (err.status !== undefined && err.status !== 429) throw err;\n      await new Promise((r) => setTimeout(r, 1000 * 2 ** attempt * Math.random()));\n    }\n  }\n}" }] }],
    },
    {
      // A method chosen between a POST and a GET sends the POST whenever there is data: a write.
      code: `export default async function call(endpoint, data) {\n  let attempts = 0;\n  const init = { method: data ? 'POST' : 'GET' };\n  if (data) init.body = JSON.stringify(data);\n  return attempt();\n  async function attempt() {\n    try {\n      if (attempts) await new Promise((resolve) => setTimeout(resolve, 500 * Math.random() * 2 ** attempts));\n      attempts++;\n      return await (await fetch('/fn/' + endpoint, init)).json();\n    } catch (error) {\n      if (attempts < 3) return attempt();\n      throw error;\n    }\n  }\n}`,
      errors: [{ messageId: 'unsafeWrite', line: 10, column: 27, data: { site: 'recursive attempt()', operation: 'fetch() (POST)' } }],
    },
    {
      // A request function retrying whatever method its callers pass: POST included.
      code: `import axios from 'axios';\nexport async function performRequest(requestType, endpoint, body) {\n  for (let n = 1; n <= 3; n++) {\n    try {\n      const options = { method: requestType, url: endpoint, data: body };\n      return await axios(options);\n    } catch (e) {\n      await new Promise((r) => setTimeout(r, Math.random() * 100 * 2 ** n));\n    }\n  }\n}`,
      errors: [{ messageId: 'unsafeWrite', line: 6, column: 20, data: { site: 'for loop', operation: 'axios() (every request, POST included)' } }],
    },
    {
      // A client's own fetch function, called with an init that states POST: that request, not a read by its verb.
      code: `import pRetry from 'p-retry';\nexport class Api {\n  constructor(fetchFn) { this.fetchFn = fetchFn; }\n  call(url, body) {\n    return pRetry(async () => {\n      const res = await this.fetchFn(url, { method: 'POST', body });\n      return res.json();\n    }, { retries: 2, randomize: true });\n  }\n}`,
      errors: [{ messageId: 'unsafeWrite', line: 6, column: 25, data: { site: 'pRetry()', operation: 'this.fetchFn() (POST)' } }],
    },
    {
      // Several unkeyed writes in one retry: one report, at the first, naming them all.
      code: `export async function notify(owner, channel, text) {\n  for (let n = 0; n < 3; n++) {\n    try {\n      await fetch('/dm', { method: 'POST', body: text });\n      await fetch('/channel', { method: 'POST', body: text });\n      await sendAudit(text);\n      return;\n    } catch (e) {\n      await new Promise((r) => setTimeout(r, Math.random() * 500 * 2 ** n));\n    }\n  }\n}`,
      errors: [{ messageId: 'unsafeWrites', line: 4, column: 13, data: { site: 'for loop', count: 3, operations: 'fetch() (POST) and sendAudit()' } }],
    },
    {
      // The runtime's read() is not for writes.
      code: `import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';\nconst policy = createRetryPolicy();\nawait policy.read(() => fetch('/orders', { method: 'POST' }));`,
      errors: [{ messageId: 'unsafeWrite', line: 3, column: 25, data: { site: 'createRetryPolicy()', operation: 'fetch() (POST)' }, suggestions: [] }],
    },
  ],
});

// A method called inside a retry is followed to its body, as a local helper is: in the class
// (`this.m()`), on an object or instance of the file, and on an object imported from another file.
/** One unkeyed write at `line`, with the rule's one suggestion: call it once, without pRetry. */
const unsafe = (code: string, line: number, operation: string, filename?: string) => ({
  code,
  ...(filename ? { filename } : {}),
  errors: [{
    messageId: 'unsafeWrite' as const, line, data: { site: 'pRetry()', operation },
    suggestions: [{ messageId: 'callOnce' as const, data: { operation }, output: code.replace(/pRetry\(\(\) => (.*?), \{ retries[^}]*\}\)/, '$1') }],
  }],
});
const members = fileURLToPath(new URL('../fixtures/members/src/caller.ts', import.meta.url));
const membersJs = fileURLToPath(new URL('../fixtures/members/src/caller.js', import.meta.url));
run('no-unsafe-write-retry (methods followed to their bodies)', rule, {
  valid: [
    // A read, whatever the method is called.
    `import pRetry from 'p-retry'; import axios from 'axios';
     class Api { async unban(id) { return axios.get('/u/' + id); } async run() { await pRetry(() => this.unban('1'), ${opts}); } }`,
    // A method of another class, or of a class the file does not write (inherited): not followed, and no write verb.
    `import pRetry from 'p-retry'; import axios from 'axios'; import { Base } from './base';
     class Other { async unban(id) { return axios.post('/u/' + id); } }
     class Api extends Base { async run() { await pRetry(() => this.unban('1'), ${opts}); } }`,
    // \`this\` inside a function expression is not the class.
    `import pRetry from 'p-retry'; import axios from 'axios';
     class Api { async unban() { return axios.post('/u'); } run() { return pRetry(async function () { return this.unban(); }, ${opts}); } }`,
    // A name reassigned later may hold anything.
    `import pRetry from 'p-retry'; import axios from 'axios';
     let api = { async ban() { return axios.post('/b'); } }; api = other;
     await pRetry(() => api.ban(), ${opts});`,
    // Imported: a read, a keyed write (the key is the caller's, made once), a DELETE (idempotent).
    { code: `import pRetry from 'p-retry'; import users from './user-service';\nawait pRetry(() => users.list(), ${opts});`, filename: members },
    { code: `import pRetry from 'p-retry'; import users from './user-service';\nconst key = crypto.randomUUID();\nawait pRetry(() => users.rename('1', 'x', key), ${opts});`, filename: members },
    { code: `import pRetry from 'p-retry'; import users from './user-service';\nawait pRetry(() => users.remove('1'), ${opts});`, filename: members },
    // A module that cannot be found, or an export that is not an object with that method: unknown.
    // A key made per attempt and passed to the imported method is stable-idempotency-key's finding.
    { code: `import pRetry from 'p-retry'; import users from './user-service';\nawait pRetry(() => users.rename('1', 'x', crypto.randomUUID()), ${opts});`, filename: members },
    { code: `import pRetry from 'p-retry'; import users from './missing';\nawait pRetry(() => users.unban('1'), ${opts});`, filename: members },
    { code: `import pRetry from 'p-retry'; import { instance } from './instance';\nawait pRetry(() => instance.unban('1'), ${opts});`, filename: members },
    // The axios instance imported from the file that creates it: a key in its config is the request's.
    { code: `import pRetry from 'p-retry'; import { instance } from './instance';\nexport const restore = (key) => pRetry(() => instance.post('/users/1/restore', {}, { headers: { 'Idempotency-Key': key } }), ${opts});`, filename: members },
  ],
  invalid: [
    unsafe(`import pRetry from 'p-retry';\nimport axios from 'axios';\nclass Api {\n  async unban(id) { return axios.post('/u/' + id); }\n  async run() { await pRetry(() => this.unban('1'), ${opts}); }\n}`, 5, 'this.unban() (axios.post())'),
    // A class field's arrow keeps the instance as `this`.
    unsafe(`import pRetry from 'p-retry';\nimport axios from 'axios';\nclass Api {\n  unban = (id) => axios.post('/u/' + id);\n  run = () => pRetry(() => this.unban('1'), ${opts});\n}`, 5, 'this.unban() (axios.post())'),
    unsafe(`import pRetry from 'p-retry';\nimport axios from 'axios';\nclass Api { async ban(id) { return axios.post('/b/' + id); } }\nconst api = new Api();\nawait pRetry(() => api.ban('1'), ${opts});`, 5, 'api.ban() (axios.post())'),
    unsafe(`import pRetry from 'p-retry';\nimport axios from 'axios';\nconst api = { async ban(id) { return axios.post('/b/' + id); } };\nawait pRetry(() => api.ban('1'), ${opts});`, 4, 'api.ban() (axios.post())'),
    unsafe(`import pRetry from 'p-retry';\nimport users from './user-service';\nawait pRetry(() => users.unban('1'), ${opts});`, 3, 'users.unban() (instance.post())', members),
    unsafe(`import pRetry from 'p-retry';\nimport { banApi } from './user-service';\nawait pRetry(() => banApi.ban('1'), ${opts});`, 3, 'banApi.ban() (instance.post())', members),
    // A key the method writes inside the body (followed into the service, whose instance is axios
    // created in a third file) is no key.
    unsafe(`import pRetry from 'p-retry';\nimport users from './user-service';\nconst key = crypto.randomUUID();\nawait pRetry(() => users.restore('1', key), ${opts});`, 4, 'users.restore() (instance.post())', members),
    unsafe(`import pRetry from 'p-retry';\nimport { instance } from './instance';\nexport const restore = (key) => pRetry(() => instance.post('/users/1/restore', { headers: { 'Idempotency-Key': key } }), ${opts});`, 3, 'instance.post()', members),
    unsafe(`const pRetry = require('p-retry');\nconst legacy = require('./legacy');\npRetry(() => legacy.notify('1'), ${opts});`, 3, 'legacy.notify() (axios.post())', membersJs),
  ],
});

// A method chosen by a name from constant lists (`client[op]`, or `Promise.promisify(client[op])`)
// runs with every name of the lists: one write among them is a write the retry repeats.
const byName = (lists: string, exported = '') => `import pRetry from 'p-retry';
import { promisify } from 'node:util';
${exported}const wrap = (ops, client) => ops.reduce((acc, op) => {
  const call = promisify(client[op]);
  acc[op] = (...args) => pRetry(() => call(...args), { retries: 2, minTimeout: 500, randomize: true });
  return acc;
}, {});
${lists}`;
run('no-unsafe-write-retry (methods chosen from constant names)', rule, {
  valid: [
    // Reads only.
    byName(`export const payments = wrap(['get', 'list'], sdk.payment);`),
    // A caller in another file may pass any list.
    byName(`export const payments = wrap(['create', 'list'], sdk.payment);`, 'export '),
    // A list that is not all string literals.
    byName(`export const payments = wrap(['list', NAME], sdk.payment);`),
    // `find` does not visit every element: which name is called is not known.
    `import pRetry from 'p-retry';\nexport const first = (client) => ['create', 'list'].find((op) => pRetry(() => client[op](), { retries: 2, minTimeout: 500, randomize: true }));`,
  ],
  invalid: [
    {
      code: byName(`export const payments = wrap(['create', 'execute', 'list'], sdk.payment);\nexport const plans = wrap(['get'], sdk.plan);`),
      errors: [{
        messageId: 'unsafeWrite', line: 5, data: { site: 'pRetry()', operation: 'call() (client.create)' },
        suggestions: [{ messageId: 'callOnce', output: byName(`export const payments = wrap(['create', 'execute', 'list'], sdk.payment);\nexport const plans = wrap(['get'], sdk.plan);`).replace('pRetry(() => call(...args), { retries: 2, minTimeout: 500, randomize: true })', 'call(...args)') }],
      }],
    },
    {
      code: `import pRetry from 'p-retry';\nexport const wrapAll = (client) => ['charge', 'list'].forEach((op) => pRetry(() => client[op](), { retries: 2, minTimeout: 500, randomize: true }));`,
      errors: [{
        messageId: 'unsafeWrite', line: 2, data: { site: 'pRetry()', operation: 'client[op]() (client.charge)' },
        suggestions: [{ messageId: 'callOnce', output: `import pRetry from 'p-retry';\nexport const wrapAll = (client) => ['charge', 'list'].forEach((op) => client[op]());` }],
      }],
    },
  ],
});

// A call made on the way out of an attempt (only a plain return follows) to an async function that
// catches every failure itself cannot make the retry run again, so the retry never repeats it.
const wayOut = (helper: string, after = '') => `const sms = makeClient();
async function sendSms(to, text) {
  ${helper}
}
export async function reset(id) {
  for (let i = 0; i < 3; i++) {
    try {
      const row = await db.get(id);
      await sendSms(row.phone, 'reset');
      ${after}return { ok: true, id };
    } catch (e) { await sleep(Math.random() * 500 * 2 ** i); }
  }
}`;
const catchesAll = `try { await sms.messages.create({ to, body: text }); } catch (error) { console.error('sms failed', (error as Error).message); }`;
run('no-unsafe-write-retry (a call on the way out that cannot fail)', rule, {
  valid: [wayOut(catchesAll)],
  invalid: [
    // Something after it may still fail, and the next attempt sends it again.
    { code: wayOut(catchesAll, 'await audit(id); '), errors: [{ messageId: 'unsafeWrite', line: 9, data: { site: 'for loop', operation: 'sendSms()' } }] },
    // The helper's catch rethrows.
    { code: wayOut(`try { await sms.messages.create({ to, body: text }); } catch (error) { console.error('sms failed'); throw error; }`), errors: [{ messageId: 'unsafeWrite', line: 9 }] },
    // A promise returned (not awaited) from the try rejects past its catch.
    { code: wayOut(`try { return sms.messages.create({ to, body: text }); } catch (error) { console.error('sms failed'); }`), errors: [{ messageId: 'unsafeWrite', line: 9 }] },
    // A catch that does more than log may fail itself.
    { code: wayOut(`try { await sms.messages.create({ to, body: text }); } catch (error) { await report(error); }`), errors: [{ messageId: 'unsafeWrite', line: 9 }] },
  ],
});

// A call into another retry of the file (makeRequest and retryRequest retrying each other) sends
// what that retry repeats: a loop re-sending through retryRequest repeats its request too.
const intoCycle = (send: string) => `const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export class Client {
  async makeRequest(options, retries) {
    const res = await this.send(options.url, options.method).catch((e) => e);
    if (res instanceof Error) {
      if (retries > 0) return this.retryRequest(options, retries);
      throw res;
    }
    return res;
  }
  async retryRequest(options, retries) {
    await sleep(Math.random() * 500 * 2 ** (3 - retries));
    return this.makeRequest(options, retries - 1);
  }
  send(url, method) {
    return ${send};
  }
  async parse(props) {
    const attempt = this.attempts.get(props.controller);
    for (let i = 0; i < 3; i++) {
      try {
        return await props.response.json();
      } catch (e) {
        if (!(attempt?.retriesRemaining ?? 0)) throw e;
        props.response = await this.retryRequest(props.options, attempt.retriesRemaining);
      }
    }
  }
}`;
run('no-unsafe-write-retry (a call into another retry of the file)', rule, {
  valid: [
    // The cycle sends GET only: the loop re-sends a read.
    intoCycle(`fetch(url, { method: 'GET' })`),
  ],
  invalid: [
    {
      // The cycle's own report, and the loop's: the loop's way back goes through retryRequest, and
      // the \`?? 0\` on an entry looked up at run time (\`attempts.get(...)\`) is no bound of 1 call.
      code: intoCycle(`fetch(url, { method })`),
      errors: [
        { messageId: 'unsafeWrite', line: 4, data: { site: 'makeRequest() through retryRequest()', operation: 'this.send() (fetch() (every request, POST included))' } },
        { messageId: 'unsafeWrite', line: 25, data: { site: 'for loop', operation: 'this.retryRequest() (this.send() (fetch() (every request, POST included)))' } },
      ],
    },
  ],
});

// An imported function whose name says nothing is followed to its body in the file (or workspace
// package) that exports it; a method its caller chooses is read at each call from what it passes.
const requests = fileURLToPath(new URL('../fixtures/requests/src/caller.ts', import.meta.url));
const monorepo = fileURLToPath(new URL('../fixtures/monorepo/packages/app/src/caller.ts', import.meta.url));
run('no-unsafe-write-retry (imported functions followed to their bodies)', rule, {
  valid: [
    // The method this call passes is a read.
    { code: `import pRetry from 'p-retry';\nimport { makeRequest } from './make-request';\nexport const load = (url) => pRetry(() => makeRequest(fetch, url, 'GET'), ${opts});`, filename: requests },
    // The method is the caller's of options it reads: a GET from every call of this file.
    { code: `import pRetry from 'p-retry';\nimport { makeRequest } from './make-request';\nconst send = (url, options) => pRetry(() => makeRequest(fetch, url, options.method), ${opts});\nexport const load = (url) => send(url, { method: 'GET' });`, filename: requests },
    // An imported helper that sends a GET.
    { code: `import pRetry from 'p-retry';\nimport { pageOf } from './make-request';\nexport const load = (url) => pRetry(() => pageOf(url), ${opts});`, filename: requests },
    // A workspace package's helper that sends a GET.
    { code: `import pRetry from 'p-retry';\nimport { shardStatus } from '@acme/shared';\nexport const check = (id) => pRetry(() => shardStatus(id), ${opts});`, filename: monorepo },
    // A package of the repository that the workspace does not declare (tools/other, whose helper PATCHes): not followed.
    { code: `import pRetry from 'p-retry';\nimport { assignShard } from '@other/shared';\nexport const attach = (s, c) => pRetry(() => assignShard(s, c), ${opts});`, filename: monorepo },
  ],
  invalid: [
    // The caller's own caller chooses the method: every method, POST included.
    unsafe(`import pRetry from 'p-retry';\nimport { makeRequest } from './make-request';\nexport const send = (url, method) => pRetry(() => makeRequest(fetch, url, method), ${opts});`, 3, 'makeRequest() (fetchFn() (every request, POST included))', requests),
    unsafe(`import pRetry from 'p-retry';\nimport { makeRequest } from './make-request';\nexport const send = (args) => pRetry(() => makeRequest(fetch, args.url, args.method), ${opts});`, 3, 'makeRequest() (fetchFn() (every request, POST included))', requests),
    unsafe(`import pRetry from 'p-retry';\nimport { makeRequest } from './make-request';\nexport const create = (url) => pRetry(() => makeRequest(fetch, url, 'POST', '{}'), ${opts});`, 3, 'makeRequest() (fetchFn() (POST))', requests),
    // A workspace package imported by name, with no node_modules link: its PATCH is a write.
    unsafe(`import pRetry from 'p-retry';\nimport { assignShard as sharedAssign } from '@acme/shared';\nexport const attach = (s, c) => pRetry(() => sharedAssign(s, c), ${opts});`, 3, 'sharedAssign() (fetch() (PATCH))', monorepo),
  ],
});
