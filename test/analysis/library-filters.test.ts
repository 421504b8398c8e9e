/**
 * promise-retry's retried function decides per failure by calling `retry(err)`: the conditions on
 * the way to each call are its filter (statuses, read per status), and a guard on the request's
 * method says which methods get another attempt (hand-written/callback-filter.ts).
 */
import clientErrors from '../../src/rules/no-retry-on-client-error.js';
import writes from '../../src/rules/no-unsafe-write-retry.js';
import { run } from '../helpers/rule-tester.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { clearModuleCache } from '../../src/analysis/wrappers/index.js';
import { temporaryProjects } from '../helpers/project.js';
import { lintAt } from '../helpers/lint-at.js';

const head = `const fetch = require('minipass-fetch');\nconst { promiseRetry } = require('@gar/promise-retry');\n`;
/** A retried function sending `req` and calling `retry` where `body` says. */
const site = (body: string) => `${head}module.exports = (request, opts) => promiseRetry(async (retry) => {\n  const req = new fetch.Request(request, opts);\n${body}\n}, { retries: 2 });`;

const noEdit = '; no edit of this site can be suggested safely, write the filter by hand';
const statusList = site(`  const res = await fetch(req, opts);\n  if (req.method !== 'POST' && !isStream(req.body) && ([408, 420, 429].includes(res.status) || res.status >= 500)) return retry(res);\n  return res;`);
const catchAllButPost = site(`  try { return await fetch(req, opts); }\n  catch (err) {\n    if (req.method === 'POST') throw err;\n    return retry(err);\n  }`);

run('no-retry-on-client-error (promise-retry callback)', clientErrors, {
  valid: [
    // Only 408, 429 and 5xx, through a const, the method and a request fact set aside.
    site(`  const res = await fetch(req, opts);\n  const again = req.method === 'GET' && !opts.stream && ([408, 429].includes(res.status) || res.status >= 500);\n  if (again) return retry(res);\n  return res;`),
    // A switch on the status whose retrying cases are 5xx (the 404 case falls out).
    site(`  const res = await fetch(req, opts);\n  switch (res.status) {\n    case 404: return res;\n    case 502:\n    case 503: return retry(res);\n    default: return res;\n  }`),
    // A 4xx behind a condition on the failure that is not read (an unknown predicate): no report.
    site(`  const res = await fetch(req, opts);\n  if (res.status === 409 && isLockTimeout(res)) return retry(res);\n  return res;`),
    // Behind a condition that is not a conjunct (`|| opts.force`): the other side alone may retry, nothing is set aside.
    site(`  const res = await fetch(req, opts);\n  if (res.status >= 500 || (opts.force && res.status === 409)) return retry(res);\n  return res;`),
    // `.catch(retry)` hands every rejection over: the filter stays promise-retry's own (not read here).
    `${head}module.exports = (url) => promiseRetry((retry) => fetch(url).catch(retry), { retries: 2 });`,
  ],
  invalid: [
    {
      // 420 in the list the retry reads; the method and stream checks narrow the requests, not the statuses.
      code: statusList,
      errors: [{ messageId: 'retriesClientError', line: 6, data: { label: 'promiseRetry()', status: '420', noEdit } }],
    },
    {
      // A switch whose retrying cases include 404 and 409.
      code: site(`  const res = await fetch(req, opts);\n  switch (res.status) {\n    case 404:\n    case 409:\n    case 503: return retry(res);\n    default: return res;\n  }`),
      errors: [
        { messageId: 'retriesClientError', line: 6, data: { label: 'promiseRetry()', status: '404', noEdit } },
        { messageId: 'retriesClientError', line: 6, data: { label: 'promiseRetry()', status: '409', noEdit } },
      ],
    },
    {
      // The request's facts held in a const with the statuses: followed into it, and set aside there.
      code: site(`  const res = await fetch(req, opts);\n  const again = req.method !== 'POST' && !isStream(req.body) && [409, 500, 503].includes(res.status);\n  if (again) return retry(res);\n  return res;`),
      errors: [{ messageId: 'retriesClientError', line: 6, data: { label: 'promiseRetry()', status: '409', noEdit } }],
    },
  ],
});

run('no-unsafe-write-retry (promise-retry callback)', writes, {
  valid: [
    // A guard that keeps every write out: only GET, or a list of reads.
    site(`  try { return await fetch(req, opts); }\n  catch (err) {\n    if (req.method !== 'GET') throw err;\n    return retry(err);\n  }`),
    site(`  const res = await fetch(req, opts);\n  if (['GET', 'HEAD'].includes(req.method) && res.status >= 500) return retry(res);\n  return res;`),
    site(`  try { return await fetch(req, opts); }\n  catch (err) {\n    if (req.method === 'POST' || req.method === 'PATCH') throw err;\n    return retry(err);\n  }`),
    // Without a comparison of the method, the request's method stays unknown.
    site(`  try { return await fetch(req, opts); }\n  catch (err) { return retry(err); }`),
    // The compared request handed to a call that is no sender (`check(req)`): no request is seen.
    site(`  const res = await check(req);\n  if (req.method !== 'POST' && res.status >= 500) return retry(res);\n  return res;`),
    // A write retried only on 429 (refused, never applied) is no repeated write.
    site(`  const res = await fetch(req, opts);\n  if (req.method !== 'POST' && res.status === 429) return retry(res);\n  return res;`),
  ],
  invalid: [
    {
      // Only POST is kept out: a PATCH is re-sent after a network error.
      code: catchAllButPost,
      errors: [{ messageId: 'unsafeWrite', line: 5, data: { site: 'promiseRetry()', operation: 'fetch() (any method but POST: PATCH retried)' } }],
    },
    {
      code: statusList,
      errors: [{ messageId: 'unsafeWrite', line: 5, data: { site: 'promiseRetry()', operation: 'fetch() (any method but POST: PATCH retried)' } }],
    },
  ],
});

/**
 * p-retry's retried function stops the retry by throwing `AbortError`: what it ends with at each
 * status is read (hand-written/abort-filter.ts), through a catch that rethrows or wraps, and through
 * a function it hands to a queue.
 */
const queued = (options: string, before = '', limited = "rejectRateLimited = process.env.REJECT === '1';") => `import pRetry, { AbortError } from 'p-retry';
class SlackError extends Error {}
class HttpError extends SlackError { constructor(readonly status: number) { super('http'); } }
${before}export class Client {
  queue: any; fetchFn: any; ${limited}
  async call(url: string) {
    const task = () => this.queue.add(async () => {
      try {
        const response = await this.fetchFn(url, { method: 'GET' });
        if (response.status === 429) {
          if (this.rejectRateLimited) throw new AbortError(new Error('limited'));
          throw new Error('limited, retry');
        }
        if (response.status !== 200) throw new HttpError(response.status);
        return response;
      } catch (error) {
        if (error instanceof AbortError) throw error;
        if (error instanceof SlackError) throw error;
        throw new Error(String(error));
      }
    });
    return pRetry(task, ${options});
  }
}`;
const everything = queued('{ retries: 2 }', '', 'rejectRateLimited = false;');
const fieldOptions = (policy: string) => queued('this.retryConfig', `const POLICY = ${policy};\n`).replace('queue: any;', 'queue: any; retryConfig: any;\n  constructor({ retryConfig = POLICY }: { retryConfig?: any } = {}) { this.retryConfig = retryConfig; }\n ');

run('no-retry-on-client-error (p-retry AbortError)', clientErrors, {
  valid: [
    // Every 4xx but 408 and 429 aborts.
    `import pRetry, { AbortError } from 'p-retry';
     await pRetry(async () => {
       const r = await fetch(url);
       if (r.status >= 400 && r.status < 500 && r.status !== 408 && r.status !== 429) throw new AbortError('client error ' + r.status);
       if (!r.ok) throw new Error('server error ' + r.status);
       return r;
     }, { retries: 2 });`,
    // An instanceof on a class of no known status: whether the 4xx aborts is not known.
    `import pRetry, { AbortError } from 'p-retry'; import axios from 'axios';
     class ValidationError extends Error {}
     await pRetry(async () => {
       try { return await axios.get(url); }
       catch (e) { if (e instanceof ValidationError) throw new AbortError(e); throw e; }
     }, { retries: 2 });`,
    // A thrown class it cannot follow (a package's) may extend AbortError; one of the file's that does is an abort.
    `import pRetry, { AbortError } from 'p-retry'; import { HttpError } from 'some-http-lib';
     await pRetry(async () => { const r = await fetch(url); if (r.status === 404) throw new AbortError('gone'); if (!r.ok) throw new HttpError(r); return r; }, { retries: 2 });`,
    `import pRetry, { AbortError } from 'p-retry';
     class Fatal extends AbortError {}
     await pRetry(async () => { const r = await fetch(url); if (r.status >= 400 && r.status < 500) throw new Fatal('client'); if (!r.ok) throw new Error('server'); return r; }, { retries: 2 });`,
    // A predicate or an onFailedAttempt in the options decides as well: not read.
    queued('{ retries: 2, shouldRetry: ({ error }) => isTransient(error) }'),
    queued('{ retries: 2, onFailedAttempt: ({ error }) => { if (isFatal(error)) throw error; } }'),
    // Options followed to the class's own default, which has a predicate.
    fieldOptions('{ retries: 2, shouldRetry: () => false }'),
  ],
  invalid: [
    {
      // Every non-200 becomes an HttpError, rethrown by the catch (not an AbortError): retried.
      code: queued('{ retries: 2 }'),
      errors: [{ messageId: 'retriesClientError', line: 14, data: { label: 'pRetry()', status: '400-499', noEdit } }],
    },
    {
      // The same with 429 retried as well (the client never rejects it): every failure status is retried.
      code: everything,
      errors: [{ messageId: 'retriesEverything', line: 14, data: { label: 'pRetry()', noEdit: '' }, suggestions: [{ messageId: 'stopOnClientErrors', output: everything.replace('{ retries: 2 }', `{ retries: 2, shouldRetry: ({ error }) => { const status = (Object(error).response?.status ?? Object(error).status); return !(status >= 400 && status < 500 && status !== 408 && status !== 429); } }`) }] }],
    },
    {
      // Options followed through a field set from a constructor parameter's default.
      code: fieldOptions('{ retries: 2, factor: 2 }'),
      errors: [{ messageId: 'retriesClientError', line: 17, data: { label: 'pRetry()', status: '400-499', noEdit } }],
    },
    {
      // Only 404 aborts; the other 4xx are thrown as plain errors and retried.
      code: `import pRetry, { AbortError } from 'p-retry';
await pRetry(async () => {
  const r = await fetch(url);
  if (r.status === 404) throw new AbortError('gone');
  if (!r.ok) throw new Error('failed ' + r.status);
  return r;
}, { retries: 2 });`,
      errors: [{ messageId: 'retriesClientError', line: 5, data: { label: 'pRetry()', status: '4xx other than 404', noEdit } }],
    },
    {
      // A catch that aborts anew on an AbortError and rethrows any other error as it came:
      // \`e instanceof AbortError\` is known for what the catch got, so the plain errors stay retried.
      code: `import pRetry, { AbortError } from 'p-retry';
await pRetry(async () => {
  try {
    const r = await fetch(url);
    if (r.status === 404) throw new AbortError('gone');
    if (!r.ok) throw new Error('failed ' + r.status);
    return r;
  } catch (e) {
    if (e instanceof AbortError) throw new AbortError(e.message);
    throw e;
  }
}, { retries: 2 });`,
      errors: [{ messageId: 'retriesClientError', line: 6, data: { label: 'pRetry()', status: '4xx other than 404', noEdit } }],
    },
  ],
});

/** A thrown class of another file of the project: its `extends` chain is followed there. */
const project = temporaryProjects('safe-retry-abort-class-');
const thrower = `import pRetry, { AbortError } from 'p-retry';
import { HttpError } from './errors';
export const load = (url: string) => pRetry(async () => {
  const r = await fetch(url);
  if (r.status === 404) throw new AbortError('gone');
  if (!r.ok) throw new HttpError(r.status);
  return r;
}, { retries: 2 });`;

describe('p-retry AbortError: a thrown class imported from the project', () => {
  beforeEach(() => clearModuleCache());

  it('is another error when its chain ends in Error, and an abort when it ends in AbortError', () => {
    const clientErrorsAt = (errors: string) => {
      const at = project({ 'src/errors.ts': errors, 'src/load.ts': '' });
      return lintAt(thrower, at('src/load.ts')).filter((f) => f.endsWith('no-retry-on-client-error'));
    };
    expect(clientErrorsAt('class BaseError extends Error {}\nexport class HttpError extends BaseError { constructor(readonly status: number) { super(); } }')).toEqual(['6 no-retry-on-client-error']);
    expect(clientErrorsAt("import { AbortError } from 'p-retry';\nexport class HttpError extends AbortError { constructor(readonly status: number) { super('http'); } }")).toEqual([]);
  });
});
