import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';

describe('axios-retry descriptor', () => {
  it('reads the defaults: 3 retries, no delay at all, the library filter', () => {
    const [site] = analyse(`
      import axios from 'axios';
      import axiosRetry from 'axios-retry';
      axiosRetry(axios);
    `);
    expect(site).toMatchObject({
      library: 'axios-retry', label: 'axiosRetry()', attempts: 4, growth: 'none', jitter: false,
      filter: 'library-default', clientErrors: [], clientLevel: true, operation: 'axios', worstCaseMs: 0,
    });
  });

  it('a good schedule, but the default condition re-sends writes (ESM)', () => {
    const code = `
      import axios from 'axios';
      import axiosRetry from 'axios-retry';
      const client = axios.create({ baseURL: 'https://api.example.com' });
      axiosRetry(client, { retries: 2, retryDelay: axiosRetry.exponentialDelay });
    `;
    expect(analyse(code)[0]).toMatchObject({
      attempts: 3, growth: 'exponential', initialMs: 200, multiplier: 2, jitter: true, operation: 'client',
      // 200 × 1.2 + 400 × 1.2
      worstCaseMs: 720,
    });
    // The schedule is fine. The default condition is isNetworkOrIdempotentRequestError, which
    // re-sends any method after a network error; no request through the client shows here, so
    // the configuration is what is judged: reported once, at the call.
    expect(lint(code)).toEqual([expect.objectContaining({ rule: 'no-unsafe-write-retry', messageId: 'configuredWrites', text: 'axiosRetry' })]);
    // Where the file sends only reads through it, there is nothing to report.
    expect(lint(`${code}\nexport const user = async (id: string) => (await client.get('/users/' + id)).data;`)).toEqual([]);
  });

  it('fine: CJS require(...).default with a wrapped exponentialDelay and a named condition', () => {
    const code = `
      const axios = require('axios');
      const axiosRetry = require('axios-retry').default;
      const { isNetworkOrIdempotentRequestError, exponentialDelay } = require('axios-retry');
      axiosRetry(axios, {
        retries: 3,
        retryDelay: (retryCount, error) => exponentialDelay(retryCount, error, 250),
        retryCondition: isNetworkOrIdempotentRequestError,
      });
    `;
    const [site] = analyse(code, { js: true });
    expect(site).toMatchObject({ attempts: 4, growth: 'exponential', initialMs: 500, jitter: true, filter: 'library-default', worstCaseMs: (500 + 1000 + 2000) * 1.2 });
    // The schedule is fine; the condition is not for writes: isNetworkError accepts a reset
    // connection for any method, so a POST whose response was lost is sent again. Reported at
    // the condition, once.
    expect(lint(code, { js: true })).toEqual([expect.objectContaining({ rule: 'no-unsafe-write-retry', messageId: 'configuredWrites', text: 'retryCondition: isNetworkOrIdempotentRequestError' })]);
  });

  it('bad: the default no-delay schedule and a retry-everything condition', () => {
    const code = `
      import axios from 'axios';
      import axiosRetry from 'axios-retry';
      axiosRetry(axios, { retries: 3, retryCondition: () => true });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ growth: 'none', filter: 'none', retriesEverything: true });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', messageId: 'noDelay', text: 'axiosRetry' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', messageId: 'retriesEverything', text: 'retryCondition: () => true' }));
  });

  it('bad: too many retries, linearDelay, and a condition that accepts 404', () => {
    const code = `
      import axios from 'axios';
      import axiosRetry, { linearDelay, isNetworkError } from 'axios-retry';
      const RETRY = { retries: 10, retryDelay: linearDelay(1000), retryCondition: (e) => isNetworkError(e) || e.response?.status === 404 };
      axiosRetry(axios, RETRY);
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ attempts: 11, growth: 'linear', initialMs: 1000, jitter: false, filter: 'custom', clientErrors: ['404'] });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'retries: 10' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', messageId: 'linearDelay', text: 'retryDelay: linearDelay(1000)' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', text: 'e.response?.status === 404' }));
  });

  it('reads a hand-written delay function and the instance timeout as a deadline', () => {
    const [a, b] = analyse(`
      import axios from 'axios';
      import axiosRetry from 'axios-retry';
      const api = axios.create({ timeout: 4000 });
      axiosRetry(api, { retries: 3, retryDelay: (n) => n * 1000 });
      const other = axios.create({ timeout: 2000 });
      axiosRetry(other, { retries: 2, shouldResetTimeout: true, retryDelay: () => 2 ** 3 * 100 });
    `);
    expect(a).toMatchObject({ growth: 'linear', deadlineMs: 4000, attemptTimeoutMs: undefined, worstCaseMs: 4000 });
    expect(b).toMatchObject({ growth: 'constant', initialMs: 800, deadlineMs: undefined, attemptTimeoutMs: 2000, worstCaseMs: 800 * 2 + 2000 * 3 });
  });

  it('trap (§6.4): isRetryableError still never retries 4xx other than 429', () => {
    const [site] = analyse(`
      import axiosRetry, { isRetryableError } from 'axios-retry';
      axiosRetry(http, { retryCondition: isRetryableError, retryDelay: axiosRetry.exponentialDelay });
    `);
    expect(site).toMatchObject({ filter: 'library-default', clientErrors: [], retriesEverything: false });
  });

  it('suggests the library\'s own terms', () => {
    const code = `import axiosRetry from 'axios-retry';\naxiosRetry(http, { retries: 9 });`;
    const findings = lint(code);
    expect(findings.filter((f) => f.rule === 'max-retry-attempts')).toHaveLength(1);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', text: 'axiosRetry' }));
  });

  it('ignores calls not bound to axios-retry and never throws on odd shapes', () => {
    expect(analyse(`function axiosRetry(a, o) {} axiosRetry(axios, { retries: 50 });`)).toEqual([]);
    const sites = analyse(`
      import axiosRetry from 'axios-retry';
      axiosRetry(...args);
      axiosRetry(axios, { ...base, retries: n, retryDelay: pickDelay(), retryCondition: cond });
    `);
    // A spread hides the options: unknown, not the defaults.
    expect(sites[0]).toMatchObject({ attempts: 'unknown' });
    expect(sites[1]).toMatchObject({ attempts: 'unknown', growth: 'unknown', jitter: 'unknown', filter: 'custom' });
  });

  it('a condition that never reads the method retries writes too', () => {
    const writes = (code: string) => lint(code).filter((f) => f.rule === 'no-unsafe-write-retry').map((f) => f.text);
    const head = `import axios from 'axios';\nimport axiosRetry from 'axios-retry';\n`;
    // A 500 on a POST is retried as readily as on a GET.
    expect(writes(`${head}export const api = axios.create();\naxiosRetry(api, { retries: 2, retryDelay: axiosRetry.exponentialDelay, retryCondition: (error) => error.response?.status === 500 });`))
      .toEqual(['retryCondition: (error) => error.response?.status === 500']);
    // The library's network-error test widened with a status still lets a reset POST through.
    expect(writes(`${head}axiosRetry(axios, { retryDelay: axiosRetry.exponentialDelay, retryCondition: (err) => axiosRetry.isNetworkOrIdempotentRequestError(err) || err.response?.status === 429 });`))
      .toEqual(['retryCondition: (err) => axiosRetry.isNetworkOrIdempotentRequestError(err) || err.response?.status === 429']);
    expect(writes(`${head}axiosRetry(axios, { retryDelay: axiosRetry.exponentialDelay, retryCondition: (e) => [502, 503].includes(e.response?.status) });`)).toHaveLength(1);
    // Conditions that look at the method, or ask a helper the file cannot read, are left alone.
    expect(writes(`${head}axiosRetry(axios, { retryCondition: (e) => e.config?.method === 'get' && e.response?.status === 500 });`)).toEqual([]);
    expect(writes(`${head}axiosRetry(axios, { retryCondition: (e) => axiosRetry.isIdempotentRequestError(e) || e.response?.status === 503 });`)).toEqual([]);
    expect(writes(`${head}axiosRetry(axios, { retryCondition: (e) => shouldRetry(e) });`)).toEqual([]);
    expect(writes(`${head}axiosRetry(axios, { retryCondition: () => false });`)).toEqual([]);
    // Used here for reads only: the file shows what goes through the client.
    expect(writes(`${head}axiosRetry(axios, { retryCondition: (e) => axiosRetry.isNetworkOrIdempotentRequestError(e) });\nexport const get = (url: string) => axios.get(url);`)).toEqual([]);
  });

  it('never throws on odd but valid shapes', () => {
    const code = `import axiosRetry from 'axios-retry'; axiosRetry(); axiosRetry(a, null); axiosRetry(a, { retryDelay: 5, retryCondition: 'x', retries: '3' }); axiosRetry.exponentialDelay(1); new axiosRetry(); axiosRetry(a, { retryDelay: function () { if (x) { return 1; } }, retryCondition: async () => true });`;
    process.env['SAFE_RETRY_STRICT_ANALYSIS'] = '1';
    try {
      expect(() => analyse(code)).not.toThrow();
      expect(() => analyse(code, { js: true })).not.toThrow();
    } finally {
      delete process.env['SAFE_RETRY_STRICT_ANALYSIS'];
    }
  });
});
