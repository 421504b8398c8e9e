/**
 * Bottleneck: a 'failed' listener that returns a number re-runs the failed job after that many
 * milliseconds (jobInfo.retryCount is 0 on the first failure); returning nothing lets it fail.
 */
import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import attempts from '../../../src/rules/max-retry-attempts.js';
import writes from '../../../src/rules/no-unsafe-write-retry.js';
import clientErrors from '../../../src/rules/no-retry-on-client-error.js';
import jitter from '../../../src/rules/require-jitter.js';
import { run } from '../../helpers/rule-tester.js';

const rules = (findings: { rule: string }[]) => [...new Set(findings.map((f) => f.rule))].sort();

const limiter = (listener: string, job = `() => fetch('/api/items/' + id)`) => `import Bottleneck from 'bottleneck';
const limiter = new Bottleneck({ maxConcurrent: 2, minTime: 100 });
limiter.on('failed', ${listener});
export const load = (id: string) => limiter.schedule(${job});`;

/** Two retries, doubling from 200 ms with up to 100 ms of jitter, only on network errors and 5xx. */
const COMPLIANT = `async (error, { retryCount }) => {
  if (error.status && error.status < 500) return;
  if (retryCount < 2) return 200 * 2 ** retryCount + Math.random() * 100;
}`;

describe('Bottleneck descriptor', () => {
  it('reads a listener that retries 8 times after a constant second', () => {
    const code = limiter(`async (error, jobInfo) => { if (jobInfo.retryCount < 8) return 1000; }`);
    const [site] = analyse(code);
    expect(site).toMatchObject({ library: 'bottleneck', label: "limiter.on('failed')", attempts: 9, growth: 'constant', jitter: false, filter: 'none', line: 3 });
    expect(site!.operation).toBeUndefined();
    expect(rules(lint(code))).toEqual(['max-retry-attempts', 'max-retry-duration', 'require-exponential-backoff', 'require-jitter']);
  });

  it('judges the jobs it re-runs: an axios POST is a write, and its 4xx are retried', () => {
    const code = `import axios from 'axios';\n${limiter(`(error, info) => (info.retryCount < 2 ? 500 * 2 ** info.retryCount + Math.random() * 200 : null)`, `() => axios.post('/api/orders', { id })`)}`;
    const found = lint(code);
    expect(rules(found)).toEqual(['no-retry-on-client-error', 'no-unsafe-write-retry']);
  });

  it('reads the shape of @octokit/plugin-retry: the count and the wait come from the error, so only the site is known', () => {
    const code = `import Bottleneck from 'bottleneck/light.js';
      export async function wrapRequest(state: { retryAfterBaseValue: number }, request: (o: object) => Promise<unknown>, options: { request: { retryCount?: number } }) {
        const limiter = new Bottleneck();
        limiter.on('failed', function (error: any, info: { retryCount: number }) {
          const maxRetries = ~~error.request.request?.retries;
          const after = ~~error.request.request?.retryAfter;
          options.request.retryCount = info.retryCount + 1;
          if (maxRetries > info.retryCount) {
            return after * state.retryAfterBaseValue;
          }
        });
        return limiter.schedule(request.bind(null, options));
      }`;
    const [site] = analyse(code);
    expect(site).toMatchObject({ library: 'bottleneck', attempts: 'unknown', jitter: 'unknown' });
    expect(lint(code)).toEqual([]);
  });

  it('stays silent on listeners that only log, on a compliant one, and on other events', () => {
    expect(analyse(limiter(`(error, jobInfo) => { console.warn('job failed', jobInfo.options.id, error); }`))).toEqual([]);
    expect(analyse(limiter(`(error) => console.warn(error)`))).toEqual([]);
    // What a helper returns may be nothing: unknown, no site.
    expect(analyse(limiter(`(error, jobInfo) => retryDelayFor(error, jobInfo)`))).toEqual([]);
    expect(analyse(limiter(`(error, jobInfo) => 1000`).replace(`'failed'`, `'error'`))).toEqual([]);
    expect(lint(limiter(COMPLIANT))).toEqual([]);
  });

  it('counts one retry at most for a once listener', () => {
    const code = limiter(`() => 250`).replace('limiter.on(', 'limiter.once(');
    expect(analyse(code)[0]).toMatchObject({ attempts: 2, growth: 'constant' });
  });
});

run('max-retry-attempts', attempts, {
  valid: [limiter(COMPLIANT), limiter(`(error) => { console.error(error); }`)],
  invalid: [{ code: limiter(`() => 1000`), errors: [{ messageId: 'unbounded' }] }],
});

run('require-jitter', jitter, {
  valid: [limiter(COMPLIANT)],
  invalid: [{ code: limiter(`(e, { retryCount }) => (retryCount < 2 ? 300 * 2 ** retryCount : undefined)`), errors: [{ messageId: 'noJitter' }] }],
});

run('no-unsafe-write-retry', writes, {
  valid: [limiter(COMPLIANT, `() => fetch('/api/items/' + id)`)],
  invalid: [{ code: limiter(COMPLIANT, `() => fetch('/api/orders', { method: 'POST', body: id })`), errors: [{ messageId: 'unsafeWrite' }] }],
});

run('no-retry-on-client-error', clientErrors, {
  valid: [`import axios from 'axios';\n${limiter(COMPLIANT, `() => axios.get('/api/items/' + id)`)}`],
  invalid: [{ code: `import axios from 'axios';\n${limiter(`(e, { retryCount }) => (retryCount < 2 ? 300 * 2 ** retryCount + Math.random() * 50 : null)`, `() => axios.get('/api/items/' + id)`)}`, errors: [{ messageId: 'unfilteredHttp' }] }],
});
