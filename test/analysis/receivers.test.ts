/**
 * Requests sent through receivers the model does not know by import (issue 13): Angular's
 * HttpClient and NestJS's HttpService by their declared type, interceptors, clients made in other
 * files, and rxjs retry() over the observable those calls build.
 */
import clientErrors from '../../src/rules/no-retry-on-client-error.js';
import writes from '../../src/rules/no-unsafe-write-retry.js';
import { run } from '../helpers/rule-tester.js';

const backoff = `{ count: 2, delay: (_e, n) => timer(2 ** n * 250 * Math.random()) }`;

const angularPost = `import { Injectable } from '@angular/core';
import { HttpClient } from '@angular/common/http';
import { retry, timer } from 'rxjs';
@Injectable()
export class Orders {
  constructor(private http: HttpClient) {}
  create(o: unknown) { return this.http.post('/orders', o).pipe(retry(${backoff})); }
}`;

const interceptor = `import { HttpInterceptor, HttpRequest, HttpHandler } from '@angular/common/http';
import { retry, timer } from 'rxjs';
export class RetryInterceptor implements HttpInterceptor {
  intercept(req: HttpRequest<unknown>, next: HttpHandler) { return next.handle(req).pipe(retry(${backoff})); }
}`;

const nest = `import { HttpService } from '@nestjs/axios';
import { firstValueFrom, retry, timer } from 'rxjs';
export class Payments {
  constructor(private readonly httpService: HttpService) {}
  charge(body: unknown) { return firstValueFrom(this.httpService.post('https://pay.example.com/charges', body).pipe(retry(${backoff}))); }
}`;

const imported = `import { api } from './api';
export async function create(o: unknown) {
  for (let i = 0; i < 3; i++) {
    try { return await api.post('/orders', o); } catch (e) { await new Promise((r) => setTimeout(r, 200 * 2 ** i * Math.random())); }
  }
}`;

run('no-unsafe-write-retry', writes, {
  valid: [
    // got's methods without a write method.
    `import got from 'got';
     export const c = got.extend({ retry: { limit: 2, methods: ['GET', 'PUT'] } });`,
    // A GET through the same typed client is a read.
    angularPost.replace("this.http.post('/orders', o)", "this.http.get('/orders')"),
    // An interceptor that looks at the method (and so can leave writes alone) is not judged as sending writes.
    interceptor.replace('return next.handle(req)', "if (req.method !== 'GET') return next.handle(req);\n    return next.handle(req)"),
    // Route registration passes a handler: no request is sent.
    `import pRetry from 'p-retry';
     export const start = (app: any) => pRetry(async () => { app.post('/orders', (req: any, res: any) => res.end()); }, { retries: 2, minTimeout: 300, randomize: true });`,
    // Local data: map.delete(key), params.get('page').
    `import pRetry from 'p-retry';
     const seen = new Map();
     export const drop = (key: string) => pRetry(async () => { seen.delete(key); }, { retries: 2, minTimeout: 300, randomize: true });`,
  ],
  invalid: [
    {
      // The key created once in the method, sent in the request's options (Angular takes a headers object).
      code: angularPost,
      errors: [{
        messageId: 'unsafeWrite',
        suggestions: [{
          messageId: 'sendKey',
          data: { edit: "const idempotencyKey = crypto.randomUUID();, { headers: { 'Idempotency-Key': idempotencyKey } }" },
          output: angularPost
            .replace('create(o: unknown) { return', 'create(o: unknown) { const idempotencyKey = crypto.randomUUID();\n  return')
            .replace("this.http.post('/orders', o)", "this.http.post('/orders', o, { headers: { 'Idempotency-Key': idempotencyKey } })"),
        }],
      }],
    },
    { code: interceptor, errors: [{ messageId: 'unsafeWrite' }] },
    { code: nest, errors: [{ messageId: 'unsafeWrite' }] },
    { code: imported, errors: [{ messageId: 'unsafeWrite' }] },
    {
      // A member fetch with a write method, on a client the file does not describe.
      code: `import pRetry from 'p-retry';
export const send = (client: any, body: string) => pRetry(() => client.fetch('/orders', { method: 'POST', body }), { retries: 2, minTimeout: 500, randomize: true });`,
      errors: [{
        messageId: 'unsafeWrite',
        suggestions: [{ messageId: 'callOnce', data: { operation: 'client.fetch() (POST)' }, output: `import pRetry from 'p-retry';
export const send = (client: any, body: string) => client.fetch('/orders', { method: 'POST', body });` }],
      }],
    },
    {
      // A configuration that names a write method re-sends writes wherever the client is used.
      code: `import got from 'got';
export const c = got.extend({ retry: { limit: 2, methods: ['GET', 'POST'] } });`,
      errors: [{ messageId: 'configuredWrites', line: 2, column: 67, suggestions: [{ messageId: 'stopRetrying', data: { edit: "limit: 0" }, output: "import got from 'got';\nexport const c = got.extend({ retry: { limit: 0, methods: ['GET', 'POST'] } });" }] }],
    },
    {
      // A fetch-retry fetch called with a POST: the call through the client is the request.
      code: `import fetchBuilder from 'fetch-retry';
const f = fetchBuilder(fetch, { retries: 2, retryDelay: (n: number) => 2 ** n * 500 * Math.random() });
export const p = () => f('/orders', { method: 'POST' });`,
      errors: [{ messageId: 'unsafeClientWrites', line: 2, suggestions: [{ messageId: 'stopRetrying', data: { edit: "retries: 0" }, output: "import fetchBuilder from 'fetch-retry';\nconst f = fetchBuilder(fetch, { retries: 0, retryDelay: (n: number) => 2 ** n * 500 * Math.random() });\nexport const p = () => f('/orders', { method: 'POST' });" }] }],
    },
    {
      // rxjs over a promise factory.
      code: `import { defer, retry, timer } from 'rxjs';
import axios from 'axios';
export const s = defer(() => axios.post('/orders', {})).pipe(retry(${backoff}));`,
      errors: [{ messageId: 'unsafeWrite' }],
    },
  ],
});

run('no-retry-on-client-error', clientErrors, {
  valid: [
    // fetch does not reject on 4xx, and this code does not throw on it.
    `import { from, retry, timer } from 'rxjs';
     export const s = from(fetch('/orders')).pipe(retry(${backoff}));`,
    // HttpService's own option (from its descriptor) that stops it erroring on 4xx.
    nest.replace("post('https://pay.example.com/charges', body)", "get('https://pay.example.com/charges', { validateStatus: () => true })"),
    // axios told not to reject on any status.
    `import pRetry from 'p-retry';
     export const get = (api: any) => pRetry(() => api.get('/orders', { validateStatus: () => true }), { retries: 2, minTimeout: 300, randomize: true });`,
  ],
  invalid: [
    // HttpClient errors the observable on 4xx, and retry() resubscribes on any error.
    { code: angularPost.replace("this.http.post('/orders', o)", "this.http.get('/orders')"), errors: [{ messageId: 'unfilteredHttp' }] },
    { code: interceptor, errors: [{ messageId: 'unfilteredHttp' }] },
    { code: nest, errors: [{ messageId: 'unfilteredHttp' }] },
    {
      code: imported,
      errors: [{
        messageId: 'unfilteredHttp',
        // A client named after axios keeps the status in response.status: the catch rethrows 4xx.
        suggestions: [{ messageId: 'stopOnClientErrors', output: imported.replace('catch (e) {', 'catch (e) {\n    const status = (Object(e).response?.status ?? Object(e).status);\n    if (status >= 400 && status < 500 && status !== 408 && status !== 429) throw e;') }],
      }],
    },
  ],
});
