/**
 * promise-retry's retried function decides per failure by calling `retry(err)`: the conditions on
 * the way to each call are its filter (statuses, read per status), and a guard on the request's
 * method says which methods get another attempt (hand-written/callback-filter.ts).
 */
import clientErrors from '../../src/rules/no-retry-on-client-error.js';
import writes from '../../src/rules/no-unsafe-write-retry.js';
import { run } from '../helpers/rule-tester.js';

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
