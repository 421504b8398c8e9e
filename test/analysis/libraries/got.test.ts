import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';

describe('got descriptor', () => {
  it('a plain got(url) is a site at the defaults and draws no finding', () => {
    const code = `
      import got from 'got';
      const body = await got('https://api.example.com/items').json();
    `;
    expect(analyse(code)[0]).toMatchObject({
      library: 'got', label: 'got()', attempts: 3, growth: 'exponential', initialMs: 1000, multiplier: 2,
      jitter: true, filter: 'library-default', attemptsAt: undefined, clientLevel: false,
      // 1000 + 100 noise, 2000 + 100 noise
      worstCaseMs: 3200,
    });
    expect(lint(code)).toEqual([]);
  });

  it('fine: an extended client with a small limit and a request timeout', () => {
    const code = `
      import got from 'got';
      const api = got.extend({ prefixUrl: 'https://api.example.com', retry: { limit: 2, backoffLimit: 2000 }, timeout: { request: 500 } });
      await api.get('items');
    `;
    const sites = analyse(code);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ label: 'got.extend()', clientLevel: true, attempts: 3, attemptTimeoutMs: 500, worstCaseMs: 1100 + 2100 + 1500 });
    expect(lint(code)).toEqual([]);
  });

  it('fine: POST is not retried by default, whatever the limit (one call)', () => {
    const code = `
      const got = require('got');
      await got.post('https://api.example.com/orders', { json: order, retry: { limit: 9 } });
      await got('https://api.example.com/orders', { method: 'PATCH', retry: { limit: 9 } });
    `;
    expect(analyse(code, { js: true }).map((s) => s.attempts)).toEqual([1, 1]);
    expect(lint(code, { js: true })).toEqual([]);
  });

  it('bad: a status list with 404, a large limit and noise turned off', () => {
    const code = `
      import got from 'got';
      const RETRY = { limit: 6, statusCodes: [404, 408, 413, 429, 500, 503], noise: 0 };
      await got.get(url, { retry: RETRY });
    `;
    const [site] = analyse(code);
    // 408, 413 (Retry-After honoured) and 429 are legitimate; 404 is not.
    expect(site).toMatchObject({ attempts: 7, filter: 'statuses', clientErrors: ['404'], jitter: false });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'limit: 6' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', text: '404' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-jitter', text: 'noise: 0' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-duration' }));
  });

  it('bad: a constant calculateDelay, and POST retried on purpose', () => {
    const code = `
      import got from 'got';
      const client = got.extend({
        retry: { limit: 3, methods: ['GET', 'POST'], calculateDelay: ({ attemptCount }) => 1000 },
      });
      await client.post('orders', { json: order });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ attempts: 4, growth: 'constant', initialMs: 1000 });
    expect(lint(code)).toContainEqual(expect.objectContaining({
      rule: 'require-exponential-backoff', messageId: 'constantDelay', text: 'calculateDelay: ({ attemptCount }) => 1000',
    }));
  });

  it('reads calculateDelay in terms of attemptCount and keeps the identity as the default', () => {
    const [a, b] = analyse(`
      import got from 'got';
      got(url, { retry: { calculateDelay: ({ attemptCount }) => attemptCount * 500 } });
      got(url, { retry: { calculateDelay: ({ computedValue }) => computedValue } });
    `);
    expect(a).toMatchObject({ growth: 'linear', initialMs: 500 });
    expect(b).toMatchObject({ growth: 'exponential', initialMs: 1000, jitter: true });
  });

  it('with enforceRetryRules off, calculateDelay decides alone: the count is unknown', () => {
    const [site] = analyse(`
      import got from 'got';
      got(url, { retry: { limit: 2, enforceRetryRules: false, calculateDelay: ({ computedValue }) => computedValue || 1000 } });
    `);
    expect(site).toMatchObject({ attempts: 'unknown', filter: 'custom' });
  });

  it('a call through an instance merges its retry with the client and does not repeat its findings', () => {
    const code = `
      import got from 'got';
      const api = got.extend({ retry: { limit: 4, statusCodes: [404, 500] } });
      await api.get('x', { retry: { noise: 0 } });
    `;
    const [client, call] = analyse(code);
    expect(client).toMatchObject({ clientLevel: true, clientErrors: ['404'] });
    expect(call).toMatchObject({ clientLevel: false, attempts: 5, jitter: false, clientErrors: [] });
    expect(lint(code).filter((f) => f.rule === 'no-retry-on-client-error')).toHaveLength(1);
  });

  it('recognises renamed imports only', () => {
    expect(analyse(`import http from 'got'; http('x');`)).toHaveLength(1);
    expect(analyse(`const got = (u) => fetch(u); got('x', { retry: { limit: 50 } });`)).toEqual([]);
  });

  it('never throws on odd but valid shapes', () => {
    const code = `import got from 'got'; got(); got(...a); got.extend(); got.extend(...a, {retry: 1}); got.get(); const a = got.extend({retry: null}); a(); a.get(...x); a.extend(); a.foo(); got.stream('x', { retry: { limit: Infinity } }); got(u, { retry: { calculateDelay: 5, methods: 'x', statusCodes: 7 }, timeout: 'x' });`;
    process.env['SAFE_RETRY_STRICT_ANALYSIS'] = '1';
    try {
      expect(() => analyse(code)).not.toThrow();
      expect(() => analyse(code, { js: true })).not.toThrow();
    } finally {
      delete process.env['SAFE_RETRY_STRICT_ANALYSIS'];
    }
  });
});
