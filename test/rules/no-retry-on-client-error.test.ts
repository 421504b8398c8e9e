import rule from '../../src/rules/no-retry-on-client-error.js';
import { fileURLToPath } from 'node:url';
import * as yamlParser from 'yaml-eslint-parser';
import { run } from '../helpers/rule-tester.js';

run('no-retry-on-client-error', rule, {
  valid: [
    // rxjs: a delay that throws on every 4xx but 408/429, read per status (a const inside included);
    // one whose condition calls something unknown stays unknown.
    `import { ajax } from 'rxjs/ajax';\nimport { retry, timer } from 'rxjs';\nexport const a$ = ajax.getJSON('/a').pipe(retry({ count: 2, delay: (error, n) => { const status = Object(error).status; if (status >= 400 && status < 500 && status !== 408 && status !== 429) throw error; return timer(Math.random() * 500 * 2 ** n); } }));`,
    `import { ajax } from 'rxjs/ajax';\nimport { retry, throwError, timer } from 'rxjs';\nexport const a$ = ajax.getJSON('/a').pipe(retry({ count: 2, delay: (error, n) => isFatal(error) ? throwError(() => error) : timer(Math.random() * 500 * 2 ** n) }));`,
    // AbortError on 4xx is p-retry's way to stop.
    `import pRetry, { AbortError } from 'p-retry';
     import axios from 'axios';
     await pRetry(async () => {
       try { return await axios.get(url); }
       catch (e) { if (e.response?.status < 500) throw new AbortError(e); throw e; }
     }, { retries: 2 });`,
    `import pRetry from 'p-retry'; import axios from 'axios';
     await pRetry(() => axios.get(url), { retries: 2, shouldRetry: ({ error }) => isTransient(error) });`,
    // onFailedAttempt stops the retry by throwing: which 4xx go on is its decision, not read here.
    `import pRetry from 'p-retry'; import axios from 'axios';
     await pRetry(() => axios.get(url), { retries: 2, onFailedAttempt: ({ error }) => { if (error.response?.status < 500) throw error; } });`,
    // A handler it hands the failure to may throw (langchain's AsyncCaller).
    `import pRetry from 'p-retry'; import axios from 'axios';
     export class Caller { onFailed = (e: unknown) => {}; call(url: string) { return pRetry(() => axios.get(url), { retries: 2, onFailedAttempt: ({ error }) => this.onFailed?.(error) }); } }`,
    // fetch does not reject on 4xx, and nothing here throws on them.
    `import pRetry from 'p-retry'; await pRetry(() => fetch(url), { retries: 2 });`,
    // fetch that throws only on 5xx.
    `import pRetry from 'p-retry';
     await pRetry(async () => { const r = await fetch(url); if (r.status >= 500) throw new Error('server'); return r; }, { retries: 2 });`,
    // axios told not to throw.
    `import pRetry from 'p-retry'; import axios from 'axios';
     await pRetry(() => axios.get(url, { validateStatus: () => true }), { retries: 2 });`,
    // A validateStatus that accepts every 4xx, or one that cannot be read, stops axios rejecting on them.
    `import retry from 'async-retry'; import axios from 'axios';
     await retry(() => axios.get(url, { validateStatus: (s) => s < 500 }), { retries: 2 });`,
    `import retry from 'async-retry'; import axios from 'axios';
     await retry(() => axios.get(url, { validateStatus: isAccepted }), { retries: 2 });`,
    // A local "axios" that is not the package.
    `import pRetry from 'p-retry'; const axios = { get: async () => 1 }; await pRetry(() => axios.get(url), { retries: 2 });`,
    // async-retry with bail is filtered.
    `import retry from 'async-retry'; import got from 'got';
     await retry(async (bail) => { try { return await got(url) } catch (e) { if (e.response?.statusCode < 500) bail(e); throw e; } }, { retries: 2 });`,
  ],
  invalid: [
    {
      // An onFailedAttempt that only logs lets every error go on.
      code: `import pRetry from 'p-retry';\nimport axios from 'axios';\nawait pRetry(() => axios.get(url), { retries: 2, onFailedAttempt: (error) => { console.warn(error); logger.warn(\`attempt \${error.attemptNumber}: \${error.message}\`); } });`,
      errors: [{
        messageId: 'unfilteredHttp', line: 3, column: 7, endColumn: 13, data: { label: 'pRetry()', call: 'axios.get()', noEdit: '' },
        suggestions: [{ messageId: 'stopOnClientErrors', output: `import pRetry from 'p-retry';\nimport axios from 'axios';\nawait pRetry(() => axios.get(url), { retries: 2, onFailedAttempt: (error) => { console.warn(error); logger.warn(\`attempt \${error.attemptNumber}: \${error.message}\`); }, shouldRetry: ({ error }) => { const status = (Object(error).response?.status ?? Object(error).status); return !(status >= 400 && status < 500 && status !== 408 && status !== 429); } });` }],
      }],
    },
    {
      // validateStatus accepts 200 and 422 only: a 400 or a 404 still rejects and is retried.
      code: `import retry from 'async-retry';\nimport axios from 'axios';\nconst api = axios.create({ baseURL });\nretry(() => api.get('/rate', { validateStatus: (status) => status === 200 || status === 422 }).then((r) => r.data), { retries: 5 });`,
      errors: [{ messageId: 'unfilteredHttp', line: 4, data: { label: 'retry()', call: 'api.get()', noEdit: '; no edit of this site can be suggested safely, write the filter by hand' }, suggestions: [] }],
    },
    {
      code: `import pRetry from 'p-retry';\nimport axios from 'axios';\nawait pRetry(() => axios.post(url, body), { retries: 2 });`,
      errors: [{
        messageId: 'unfilteredHttp', line: 3, column: 7, endColumn: 13, data: { label: 'pRetry()', call: 'axios.post()', noEdit: '' },
        suggestions: [{ messageId: 'stopOnClientErrors', output: `import pRetry from 'p-retry';\nimport axios from 'axios';\nawait pRetry(() => axios.post(url, body), { retries: 2, shouldRetry: ({ error }) => { const status = (Object(error).response?.status ?? Object(error).status); return !(status >= 400 && status < 500 && status !== 408 && status !== 429); } });` }],
      }],
    },
    {
      code: `import pRetry from 'p-retry';\nawait pRetry(async () => {\n  const res = await fetch(url);\n  if (!res.ok) throw new Error(String(res.status));\n  return res.json();\n}, { retries: 2 });`,
      // The error is the code's own: it is made to carry the response's status, which the filter reads.
      errors: [{
        messageId: 'unfilteredHttp', line: 2, column: 7, data: { label: 'pRetry()', call: 'fetch()', noEdit: '' },
        suggestions: [{ messageId: 'stopOnClientErrors', output: `import pRetry from 'p-retry';\nawait pRetry(async () => {\n  const res = await fetch(url);\n  if (!res.ok) throw Object.assign(new Error(String(res.status)), { status: res.status });\n  return res.json();\n}, { retries: 2, shouldRetry: ({ error }) => { const status = Object(error).status; return !(status >= 400 && status < 500 && status !== 408 && status !== 429); } });` }],
      }],
    },
    {
      // The same in a \`.then\` callback, under cockatiel: handleAll becomes handleWhen.
      code: `import { retry, handleAll } from 'cockatiel';\nconst policy = retry(handleAll, { maxAttempts: 2 });\nexport const load = (url) => policy.execute(() => fetch(url).then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); return r; }));`,
      errors: [{
        messageId: 'unfilteredHttp', line: 2,
        suggestions: [{ messageId: 'stopOnClientErrors', output: `import { retry, handleAll, handleWhen } from 'cockatiel';\nconst policy = retry(handleWhen((error) => { const status = Object(error).status; return !(status >= 400 && status < 500 && status !== 408 && status !== 429); }), { maxAttempts: 2 });\nexport const load = (url) => policy.execute(() => fetch(url).then((r) => { if (!r.ok) throw Object.assign(new Error('HTTP ' + r.status), { status: r.status }); return r; }));` }],
      }],
    },
    {
      // Two throws on the response: which one the filter should see is the code's choice.
      code: `import pRetry from 'p-retry';\nawait pRetry(async () => {\n  const res = await fetch(url);\n  if (!res.ok) throw new Error('a');\n  if (!res.ok) throw new Error('b');\n  return res.json();\n}, { retries: 2 });`,
      errors: [{ messageId: 'unfilteredHttp', data: { label: 'pRetry()', call: 'fetch()', noEdit: '; no edit of this site can be suggested safely, write the filter by hand' }, suggestions: [] }],
    },
    {
      // rxjs: the delay ends retrying on 401/403 only (static members of the class): the other 4xx are
      // retried, one report at the delay naming the probed statuses it lets through.
      code: `import { HttpClient } from '@angular/common/http';\nimport { retry, throwError, timer } from 'rxjs';\nexport class Api {\n  static readonly NOT_RETRIED = [401, 403];\n  constructor(private http: HttpClient) {}\n  load() {\n    return this.http.get('/x').pipe(retry({ count: 2, delay: (error, n) => Api.NOT_RETRIED.includes(error.status) ? throwError(() => error) : timer(Math.random() * 500 * 2 ** n) }));\n  }\n}`,
      errors: [{ messageId: 'retriesClientError', line: 7, data: { label: 'retry()', status: '400, 404, 409, 410 and 422', noEdit: '; no edit of this site can be suggested safely, write the filter by hand' } }],
    },
    {
      // rxjs: a bare count becomes the config form whose delay rethrows 4xx and keeps resubscribing at once.
      code: `import { ajax } from 'rxjs/ajax';\nimport { retry } from 'rxjs';\nexport const items$ = ajax.getJSON('/api/items').pipe(retry(2));`,
      errors: [{
        messageId: 'unfilteredHttp',
        suggestions: [{ messageId: 'stopOnClientErrors', output: `import { ajax } from 'rxjs/ajax';\nimport { retry, timer } from 'rxjs';\nexport const items$ = ajax.getJSON('/api/items').pipe(retry({ count: 2, delay: (error) => { const status = Object(error).status; if (status >= 400 && status < 500 && status !== 408 && status !== 429) throw error; return timer(0); } }));` }],
      }],
    },
    {
      code: `const retry = require('async-retry');\nconst got = require('got');\nretry(async () => got(url).json(), { retries: 2 });`,
      errors: [{
        messageId: 'unfilteredHttp', line: 3, column: 1, endColumn: 6,
        // async-retry stops through bail; got keeps the status in response.statusCode.
        suggestions: [{ messageId: 'stopOnClientErrors', output: `const retry = require('async-retry');\nconst got = require('got');\nretry(async (bail) => { try { return await (got(url).json()); } catch (error) { const status = Object(error).response?.statusCode; if (status >= 400 && status < 500 && status !== 408 && status !== 429) { bail(Object(error)); throw Object.assign(new Error('not retried: HTTP ' + String(status)), { bail: true }); } throw error; } }, { retries: 2 });` }],
      }],
    },
  ],
});

run('no-retry-on-client-error (client instances)', rule, {
  valid: [
    `import pRetry from 'p-retry'; import axios from 'axios'; const api = axios.create(); await pRetry(() => api.get(u, { validateStatus: () => true }), { retries: 2 });`,
  ],
  invalid: [
    {
      code: `import pRetry from 'p-retry';\nimport axios from 'axios';\nconst api = axios.create({ baseURL });\nawait pRetry(() => api.post('/captures', body), { retries: 2 });`,
      errors: [{
        messageId: 'unfilteredHttp', line: 4, column: 7, data: { label: 'pRetry()', call: 'api.post()', noEdit: '' },
        suggestions: [{ messageId: 'stopOnClientErrors', output: `import pRetry from 'p-retry';\nimport axios from 'axios';\nconst api = axios.create({ baseURL });\nawait pRetry(() => api.post('/captures', body), { retries: 2, shouldRetry: ({ error }) => { const status = (Object(error).response?.status ?? Object(error).status); return !(status >= 400 && status < 500 && status !== 408 && status !== 429); } });` }],
      }],
    },
  ],
});

run('no-retry-on-client-error (SDK calls that reject on 4xx)', rule, {
  valid: [
    // A filter that stops on the SDK's 4xx.
    `import pRetry, { AbortError } from 'p-retry';
     import { S3Client, PutObjectCommand } from '@aws-sdk/client-s3';
     const s3 = new S3Client({});
     await pRetry(async () => {
       try { return await s3.send(new PutObjectCommand({ Bucket, Key, Body })); }
       catch (e) { if (e.$metadata?.httpStatusCode < 500) throw new AbortError(e); throw e; }
     }, { retries: 2 });`,
  ],
  invalid: [
    {
      // An S3 upload through a helper of the same file, retried on every error: a 403 or 404 too.
      code: `import pRetry from 'p-retry';\nimport { S3Client, PutObjectCommand } from '@aws-sdk/client-s3';\nconst client = new S3Client({});\nasync function putFile(key, body) { return client.send(new PutObjectCommand({ Bucket: 'b', Key: key, Body: body })); }\nexport const upload = (key, body) => pRetry(() => putFile(key, body), { retries: 2 });`,
      // The SDK's error keeps its status where its descriptor says: \`$metadata.httpStatusCode\`.
      errors: [{
        messageId: 'unfilteredHttp', line: 5, column: 38, data: { label: 'pRetry()', call: 'putFile()', noEdit: '' },
        suggestions: [{ messageId: 'stopOnClientErrors', output: `import pRetry from 'p-retry';\nimport { S3Client, PutObjectCommand } from '@aws-sdk/client-s3';\nconst client = new S3Client({});\nasync function putFile(key, body) { return client.send(new PutObjectCommand({ Bucket: 'b', Key: key, Body: body })); }\nexport const upload = (key, body) => pRetry(() => putFile(key, body), { retries: 2, shouldRetry: ({ error }) => { const status = Object(error).$metadata?.httpStatusCode; return !(status >= 400 && status < 500 && status !== 408 && status !== 429); } });` }],
      }],
    },
    {
      // A Stripe call in a hand-written loop that catches everything.
      code: `import Stripe from 'stripe';\nconst stripe = new Stripe(key);\nexport async function customer(id) {\n  for (let i = 0; i < 3; i++) {\n    try { return await stripe.customers.retrieve(id); } catch (e) { await new Promise((r) => setTimeout(r, Math.random() * 300 * 2 ** i)); }\n  }\n}`,
      // Stripe's error keeps the status in \`statusCode\`: the catch rethrows 4xx.
      errors: [{
        messageId: 'unfilteredHttp', data: { label: 'for loop', call: 'stripe.customers.retrieve()', noEdit: '' },
        suggestions: [{ messageId: 'stopOnClientErrors', output: `import Stripe from 'stripe';\nconst stripe = new Stripe(key);\nexport async function customer(id) {\n  for (let i = 0; i < 3; i++) {\n    try { return await stripe.customers.retrieve(id); } catch (e) {\n    const status = Object(e).statusCode;\n    if (status >= 400 && status < 500 && status !== 408 && status !== 429) throw e; await new Promise((r) => setTimeout(r, Math.random() * 300 * 2 ** i)); }\n  }\n}` }],
      }],
    },
  ],
});

// An HTTP call made in a helper or a method the retried code calls rejects on 4xx just the same,
// unless the helper catches it: the helper's own client decides.
const members = fileURLToPath(new URL('../fixtures/members/src/caller.ts', import.meta.url));
const noEdit = '; no edit of this site can be suggested safely, write the filter by hand';
const unfiltered = (code: string, line: number, call: string, filename?: string) => ({
  code,
  ...(filename ? { filename } : {}),
  errors: [{ messageId: 'unfilteredHttp' as const, line, data: { label: 'pRetry()', call, noEdit }, suggestions: [] }],
});
run('no-retry-on-client-error (HTTP calls in helpers and methods)', rule, {
  valid: [
    // The helper catches the failure itself.
    `import pRetry from 'p-retry'; import axios from 'axios';
     async function load(u) { try { return await axios.get(u); } catch { return undefined; } }
     await pRetry(() => load('/x'), { retries: 2 });`,
    `import pRetry from 'p-retry'; import axios from 'axios';
     const load = (u) => axios.get(u).catch(() => undefined);
     await pRetry(() => load('/x'), { retries: 2 });`,
    // The helper's client does not reject on 4xx.
    `import pRetry from 'p-retry'; import axios from 'axios';
     class Api { load(u) { return axios.get(u, { validateStatus: () => true }); } run() { return pRetry(() => this.load('/x'), { retries: 2 }); } }`,
    // Filtered at the retry.
    `import pRetry from 'p-retry'; import axios from 'axios';
     async function load(u) { return axios.get(u); }
     await pRetry(() => load('/x'), { retries: 2, shouldRetry: ({ error }) => isTransient(error) });`,
    // An imported method that catches its own failure.
    { code: `import pRetry from 'p-retry'; import users from './user-service';\nawait pRetry(() => users.remove('1'), { retries: 2 });`, filename: members },
  ],
  invalid: [
    unfiltered(`import pRetry from 'p-retry';\nimport axios from 'axios';\nasync function load(u) { return axios.get(u); }\nawait pRetry(() => load('/x'), { retries: 2 });`, 4, 'load()'),
    unfiltered(`import pRetry from 'p-retry';\nimport axios from 'axios';\nclass Api {\n  load(u) { return axios.get(u); }\n  run() { return pRetry(() => this.load('/x'), { retries: 2 }); }\n}`, 5, 'this.load()'),
    unfiltered(`import pRetry from 'p-retry';\nasync function load(u) {\n  const res = await fetch(u);\n  if (!res.ok) throw new Error(String(res.status));\n  return res.json();\n}\nawait pRetry(() => load('/x'), { retries: 2 });`, 7, 'load()'),
    unfiltered(`import pRetry from 'p-retry';\nimport users from './user-service';\nawait pRetry(() => users.list(), { retries: 2 });`, 3, 'users.list()', members),
  ],
});

const yaml = { parser: yamlParser } as never;
const IGNORE = 'org.springframework.web.client.HttpClientErrorException';
const BLOCK = `resilience4j.retry.instances.sber:
  max-attempts: 3
  wait-duration: 500ms
  enable-exponential-backoff: true
  enable-randomized-wait: true
`;

run('no-retry-on-client-error (Resilience4j YAML: ignore-exceptions)', rule, {
  valid: [
    { code: `${BLOCK}  ignore-exceptions: ${IGNORE}\n`, filename: 'application.yml', languageOptions: yaml },
  ],
  invalid: [
    {
      // No list: one is added under the block.
      code: BLOCK,
      filename: 'application.yml',
      languageOptions: yaml,
      errors: [{
        messageId: 'retriesEverything', line: 1,
        suggestions: [{
          messageId: 'stopOnClientErrors',
          data: { edit: `ignore-exceptions: ${IGNORE} (RestTemplate, RestClient)` },
          output: `${BLOCK.trimEnd()}\n  ignore-exceptions:\n    - ${IGNORE}\n`,
        }],
      }],
    },
    {
      // A block list that stops no 4xx gains the entry; Exception retried is then neutralised.
      code: `resilience4j:\n  retry:\n    instances:\n      sber:\n        retry-exceptions:\n          - java.lang.Exception\n        ignore-exceptions:\n          - java.io.FileNotFoundException\n`,
      filename: 'application.yml',
      languageOptions: yaml,
      errors: [{
        messageId: 'retriesClientError',
        suggestions: [{ messageId: 'stopOnClientErrors', output: `resilience4j:\n  retry:\n    instances:\n      sber:\n        retry-exceptions:\n          - java.lang.Exception\n        ignore-exceptions:\n          - java.io.FileNotFoundException\n          - ${IGNORE}\n` }],
      }],
    },
    {
      // A flow list and a comma-separated one are extended in place.
      code: `${BLOCK}  ignore-exceptions: [java.io.FileNotFoundException]\n`,
      filename: 'application.yml',
      languageOptions: yaml,
      errors: [{ messageId: 'retriesEverything', suggestions: [{ messageId: 'stopOnClientErrors', output: `${BLOCK}  ignore-exceptions: [java.io.FileNotFoundException, ${IGNORE}]\n` }] }],
    },
    {
      code: `${BLOCK}  ignore-exceptions: java.io.FileNotFoundException\n`,
      filename: 'application.yml',
      languageOptions: yaml,
      errors: [{ messageId: 'retriesEverything', suggestions: [{ messageId: 'stopOnClientErrors', output: `${BLOCK}  ignore-exceptions: java.io.FileNotFoundException, ${IGNORE}\n` }] }],
    },
    {
      // Written with dotted keys only: no nested block to add to, so the message says so.
      code: `resilience4j.retry.instances.sber.max-attempts: 3\n`,
      filename: 'application.yml',
      languageOptions: yaml,
      errors: [{ messageId: 'retriesEverything', data: { label: "Resilience4j retry instance 'sber'", noEdit: '; no edit of this site can be suggested safely, write the filter by hand' }, suggestions: [] }],
    },
  ],
});

// A guard that tests a library's documented error fields (Stripe's `code` and `type`) retries the
// statuses those errors come with; the fields are evidence for "retried" only, and only where the
// file imports the library.
const stripeLoop = (guard: string) => `import Stripe from 'stripe';
const stripe = new Stripe(key);
export async function pay(params) {
  for (let attempt = 0; attempt < 3; attempt++) {
    try { return await stripe.paymentIntents.retrieve(params.id); } catch (error) {
      const again = attempt < 2 && (${guard});
      if (!again) throw error;
      await new Promise((r) => setTimeout(r, Math.random() * 300 * 2 ** attempt));
    }
  }
}`;
run('no-retry-on-client-error (documented error fields)', rule, {
  valid: [
    // Stripe's own transient classes: no 4xx certainly retried.
    stripeLoop(`error.type === 'StripeConnectionError' || error.message?.includes('timeout')`),
    // The code stops the retry: never read as "not retried" from the shape, so nothing is said.
    stripeLoop(`error.code !== 'resource_missing' && error.message?.includes('network')`),
    // Without Stripe imported, the code is nobody's documented error.
    `import axios from 'axios';
export async function get(url) {
  for (let attempt = 0; attempt < 3; attempt++) {
    try { return await axios.get(url); } catch (error) {
      const again = attempt < 2 && (error.message?.includes('timeout') || error.code === 'resource_missing');
      if (!again) throw error;
      await new Promise((r) => setTimeout(r, Math.random() * 300 * 2 ** attempt));
    }
  }
}`,
  ],
  invalid: [
    {
      code: stripeLoop(`error.message?.includes('timeout') || error.type === 'StripeAPIError' || error.code === 'resource_missing'`),
      errors: [{ messageId: 'retriesClientError', line: 7, data: { label: 'for loop', status: '400 and 404', noEdit } }],
    },
    {
      code: stripeLoop(`error.message?.includes('network') || error.type === 'StripeCardError'`),
      errors: [{ messageId: 'retriesClientError', line: 7, data: { label: 'for loop', status: '402', noEdit } }],
    },
  ],
});

// A 4xx a filter names on an accepting path whose only undecided condition is the deployment's
// configuration (an environment read) is retried wherever that setting is on.
const envFlag = `import pRetry from 'p-retry';\nexport const RETRY_404_ENABLED = process.env.RETRY_404 === 'true';\n`;
const pRetryWith = (shouldRetry: string, head = `import pRetry from 'p-retry';\n`) => `${head}export const load = (fn) => pRetry(fn, { retries: 2, shouldRetry: ${shouldRetry} });`;
run('no-retry-on-client-error (filters that depend on the deployment configuration)', rule, {
  valid: [
    // A flag that removes 404 from what is retried.
    pRetryWith(`(e) => !(RETRY_404_ENABLED && e.status === 404) && e.status >= 500`, envFlag),
    pRetryWith(`(e) => process.env.STRICT ? e.status >= 500 : e.status >= 500 || e.status === 408`),
    // 404 named only to refuse it.
    pRetryWith(`(e) => { if (e.status === 404) return false; return RETRY_404_ENABLED ? e.status >= 500 : e.status === 503; }`, envFlag),
    // Conditions on something other than configuration stay unknown.
    pRetryWith(`(e) => e.status >= 500 || (isLenient(e) && e.status === 404)`),
    pRetryWith(`(e) => e.status >= 500 || (e.retry404 && e.status === 404)`),
    pRetryWith(`(e) => e.status >= 500 || (RETRY_404 && e.status === 404)`, `import pRetry from 'p-retry';\nimport { RETRY_404 } from './flags';\n`),
    // A flag the code itself decides is no configuration: a false one leaves nothing retried.
    pRetryWith(`(e) => e.status >= 500 || (OFF && e.status === 404)`, `import pRetry from 'p-retry';\nconst OFF = process.env.X === 'y' && false;\n`),
    // A setting compared in a way no value can meet.
    pRetryWith(`(e) => e.status >= 500 || (process.env.MODE?.toLowerCase() === 'LENIENT' && e.status === 404)`),
    pRetryWith(`(e) => e.status >= 500 || (process.env.MODE === 'a' && process.env.MODE === 'b' && e.status === 404)`),
    // Range tests beside a setting that, together, name no 4xx.
    pRetryWith(`(e) => e.status >= 500 || (process.env.LENIENT === '1' && e.status >= 500 && e.status < 600)`),
    pRetryWith(`(e) => e.status >= 500 || (process.env.LENIENT === '1' && e.status >= 500 && e.status < 400)`),
    // A guard that may leave first: the return is not reached for every failure.
    pRetryWith(`(e) => { if (!isHttp(e)) return false; return RETRY_404_ENABLED && e.status === 404; }`, envFlag),
  ],
  invalid: [
    {
      code: pRetryWith(`(error) => {\n  const err = error as any;\n  return [408, 429].includes(err.status) || err.status >= 500 || (RETRY_404_ENABLED && err.status === 404);\n}`, envFlag),
      errors: [{ messageId: 'retriesClientErrorWhen', line: 5, data: { label: 'pRetry()', status: '404', condition: 'RETRY_404_ENABLED', reads: 'process.env.RETRY_404', noEdit } }],
    },
    {
      code: pRetryWith(`({ error }) => process.env.LENIENT === '1' ? error.status >= 500 || error.status === 409 : error.status >= 500`),
      errors: [{ messageId: 'retriesClientErrorWhen', line: 2, data: { label: 'pRetry()', status: '409', condition: `process.env.LENIENT === '1'`, reads: 'process.env.LENIENT', noEdit } }],
    },
    {
      code: pRetryWith(`(e) => import.meta.env.PROD ? e.status >= 500 : e.status >= 400`),
      errors: [{ messageId: 'retriesClientErrorWhen', line: 2, data: { label: 'pRetry()', status: '400-499', condition: '!import.meta.env.PROD', reads: 'import.meta.env.PROD', noEdit } }],
    },
    {
      code: pRetryWith(`(e) => e.status >= 500 || (process.env.MODE?.toLowerCase() === 'lenient' && Boolean(process.env.RETRY_4XX) && e.status === 422)`),
      errors: [{ messageId: 'retriesClientErrorWhen', line: 2, data: { label: 'pRetry()', status: '422', condition: `process.env.MODE?.toLowerCase() === 'lenient' && Boolean(process.env.RETRY_4XX)`, reads: 'process.env.MODE, process.env.RETRY_4XX', noEdit } }],
    },
    // Several range tests beside a setting: the range they accept together.
    {
      code: pRetryWith(`(e) => e.status >= 500 || (process.env.LENIENT === '1' && e.status >= 400 && e.status < 500)`),
      errors: [{ messageId: 'retriesClientErrorWhen', line: 2, data: { label: 'pRetry()', status: '400-499', condition: `process.env.LENIENT === '1'`, reads: 'process.env.LENIENT', noEdit } }],
    },
    // The same predicate with no condition: a 4xx p-retry's shouldRetry accepts outright.
    {
      code: pRetryWith(`({ error }) => error.status === 404 || error.status >= 500`),
      errors: [{ messageId: 'retriesClientError', line: 2, data: { label: 'pRetry()', status: '404', noEdit } }],
    },
  ],
});

// A failure's class, read per status from the operation the retry calls: `err instanceof C` is
// decided for the classes the operation throws at that status (its awaited fetch may reject at
// any status, so the catch's NetworkError is always one of them).
const CLASSES = `class HttpError extends Error { constructor(status) { super('http ' + status); this.status = status; } }
class ServerError extends HttpError {}
class ClientError extends HttpError {}
class NetworkError extends Error {}
async function once(url) {
  let res;
  try { res = await fetch(url); } catch (e) { throw new NetworkError(); }
  if (res.status >= 500) throw new ServerError(res.status);
  if (!res.ok) throw new ClientError(res.status);
  return res;
}
export async function load(url) {
  for (let i = 0; i < 3; i++) {
    try { return await once(url); } catch (err) {
`;
const loop = (filter: string) => `${CLASSES}      ${filter}\n      await new Promise((r) => setTimeout(r, Math.random() * 100 * 2 ** i));\n    }\n  }\n}`;
run('no-retry-on-client-error (instanceof of the classes the operation throws)', rule, {
  valid: [
    // Only the class thrown for 5xx (and network errors) is retried.
    loop('if (!(err instanceof ServerError) && !(err instanceof NetworkError)) throw err;'),
    // The class thrown for 4xx stops the retry; a NetworkError at a 4xx could be either, so nothing is certain.
    loop('if (err instanceof ClientError) throw err;'),
    // A built-in class other than Error, asked of the classes thrown, is not decided.
    loop('if (!(err instanceof SyntaxError)) throw err;'),
    // A filter that tests a class of another module stays unknown.
    `import { HttpError } from './errors';\n${loop('if (!(err instanceof HttpError)) throw err;').replace('class HttpError extends Error', 'class LocalHttpError extends Error').replace(/extends HttpError/g, 'extends LocalHttpError')}`,
  ],
  invalid: [
    {
      // Both classes the operation throws are retried: every failure, 4xx included.
      code: loop('if (!(err instanceof HttpError) && !(err instanceof NetworkError)) throw err;'),
      errors: [{ messageId: 'retriesEverything' }],
    },
    {
      // 413 stops it, but only as a ClientError; a NetworkError at 413 is retried, so 413 is not known.
      code: loop("if (typeof err === 'object' && err instanceof ClientError && err.status === 413) throw err;\n      if (!(err instanceof HttpError || err instanceof NetworkError)) throw err;"),
      errors: [{ messageId: 'retriesClientError', data: { label: 'for loop', status: '4xx other than 413', noEdit } }],
    },
  ],
});
