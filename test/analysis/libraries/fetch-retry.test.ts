import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';

describe('fetch-retry descriptor', () => {
  it('the builder at its defaults: 3 retries, a constant 1000 ms, network errors only', () => {
    const [site] = analyse(`const fetch = require('fetch-retry')(global.fetch);`, { js: true });
    expect(site).toMatchObject({
      library: 'fetch-retry', attempts: 4, growth: 'constant', initialMs: 1000, jitter: false, filter: 'library-default',
      clientLevel: true, operation: 'global.fetch', worstCaseMs: 3000,
    });
  });

  it('fine: an exponential delay with jitter and statuses without 4xx', () => {
    const code = `
      import fetchBuilder from 'fetch-retry';
      const fetchWithRetry = fetchBuilder(fetch, {
        retries: 2,
        retryDelay: (attempt) => Math.pow(2, attempt) * 500 * (0.5 + Math.random()),
        retryOn: [429, 503],
      });
      const res = await fetchWithRetry('https://api.example.com/items');
    `;
    const [site] = analyse(code);
    // attempt is 0 for the first retry: 500 and 1000 ms, times up to 1.5.
    expect(site).toMatchObject({ attempts: 3, growth: 'exponential', initialMs: 750, jitter: true, filter: 'statuses', clientErrors: [], worstCaseMs: 750 + 1500 });
    expect(lint(code)).toEqual([]);
  });

  it('fine: a retryOn function that bounds its own attempts', () => {
    const code = `
      import fetchRetry from 'fetch-retry';
      const f = fetchRetry(fetch, { retryDelay: (attempt) => 2 ** attempt * 400 + Math.random() * 100 });
      await f(url, {
        retryOn: function (attempt, error, response) {
          if (attempt >= 2) return false;
          return error !== null || response.status >= 500;
        },
      });
    `;
    const sites = analyse(code);
    expect(sites[1]).toMatchObject({ label: 'f()', attempts: 3, attemptsAt: 'attempt >= 2', filter: 'custom', clientErrors: [] });
    expect(lint(code)).toEqual([]);
  });

  it('trap (§6.8): a retryOn function ignores retries; () => true retries for ever', () => {
    const code = `
      import fetchRetry from 'fetch-retry';
      const f = fetchRetry(fetch, { retries: 3, retryOn: () => true });
      const g = fetchRetry(fetch, { retries: 3, retryOn: (attempt, error, response) => error !== null || response.status >= 500 });
    `;
    const [a, b] = analyse(code);
    expect(a).toMatchObject({ attempts: Infinity, attemptsAt: 'retryOn: () => true', retriesEverything: true });
    expect(b).toMatchObject({ attempts: 'unknown', filter: 'custom' });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', messageId: 'unbounded', text: 'retryOn: () => true' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', messageId: 'retriesEverything' }));
  });

  it('bad: a constant delay with 4xx in retryOn', () => {
    const code = `
      import fetchRetry from 'fetch-retry';
      const f = fetchRetry(fetch, { retries: 3, retryDelay: 2000, retryOn: [400, 404, 500] });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ growth: 'constant', clientErrors: ['400', '404'], worstCaseMs: 6000 });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', messageId: 'constantDelay', text: 'retryDelay: 2000' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', text: '400' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', text: '404' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-duration' }));
  });

  it('bad: a per-call override with too many retries', () => {
    const code = `
      import fetchRetry from 'fetch-retry';
      const f = fetchRetry(fetch, { retryDelay: (attempt) => 2 ** attempt * 100 * Math.random() });
      await f(url, { method: 'GET', retries: 9 });
    `;
    const [, call] = analyse(code);
    expect(call).toMatchObject({ attempts: 10, attemptsAt: 'retries: 9', clientLevel: false });
    expect(lint(code)).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'retries: 9' }));
  });

  it('never throws on odd but valid shapes', () => {
    const code = `import fetchRetry from 'fetch-retry'; fetchRetry(); const f = fetchRetry(fetch, { retryOn: null, retryDelay: null }); f(); f(...a); f(u, { retryOn: function () {} }); f(u, { retryOn: (a) => { if (a) return false; } }); let g = fetchRetry(fetch); g = 1; g(u, { retries: 99 });`;
    process.env['SAFE_RETRY_STRICT_ANALYSIS'] = '1';
    try {
      expect(() => analyse(code)).not.toThrow();
      expect(() => analyse(code, { js: true })).not.toThrow();
    } finally {
      delete process.env['SAFE_RETRY_STRICT_ANALYSIS'];
    }
  });
});

describe('fetch-retry-ts descriptor', () => {
  it('bad: fetchBuilder with a constant retryDelay and a 5xx status list', () => {
    const code = `
      import { fetch as origFetch } from '@adobe/fetch';
      import { fetchBuilder } from 'fetch-retry-ts';
      export const fetch = fetchBuilder(origFetch, { retries: 3, retryDelay: 500, retryOn: [502, 503, 504] });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ library: 'fetch-retry-ts', attempts: 4, growth: 'constant', initialMs: 500, jitter: false, clientErrors: [] });
    const rules = lint(code).map((f) => f.rule);
    expect(rules).toEqual(expect.arrayContaining(['require-exponential-backoff', 'require-jitter']));
    expect(rules).not.toContain('no-retry-on-client-error');
  });

  it('the default export with no options: 3 retries, a constant 500 ms, its own status list', () => {
    const code = `
      import fetchBuilder from 'fetch-retry-ts';
      const f = fetchBuilder(fetch);
      export const load = (u: string) => f(u);
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ library: 'fetch-retry-ts', attempts: 4, growth: 'constant', initialMs: 500, filter: 'library-default' });
  });

  it('a look-alike: an unrelated fetchBuilder export is not read', () => {
    const code = `
      import { fetchBuilder } from './my-fetch';
      export const f = fetchBuilder(fetch, { retries: 30, retryDelay: 1 });
    `;
    expect(analyse(code)).toEqual([]);
  });
});
