import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';

describe('ky descriptor', () => {
  it('a number is shorthand for limit; the default delay is 0.3 × 2^(n−1) s, no jitter, 10 s per attempt', () => {
    const [site] = analyse(`import ky from 'ky'; await ky.get(url, { retry: 2 }).json();`);
    expect(site).toMatchObject({
      library: 'ky', label: 'ky.get()', attempts: 3, attemptsAt: 'retry: 2', growth: 'exponential', initialMs: 300, multiplier: 2,
      jitter: false, filter: 'library-default', attemptTimeoutMs: 10_000, deadlineMs: undefined,
      worstCaseMs: 300 + 600 + 3 * 10_000,
    });
  });

  it('plain calls without a retry option are not sites', () => {
    expect(analyse(`import ky from 'ky'; await ky.get(url).json(); const api = ky.create({ prefixUrl });`)).toEqual([]);
  });

  it('fine: a created client with full jitter, a short timeout and a total deadline', () => {
    const code = `
      import ky from 'ky';
      const api = ky.create({ prefixUrl: 'https://api.example.com', timeout: 1000, totalTimeout: 4000, retry: { limit: 2, jitter: true } });
      await api.get('items').json();
    `;
    const sites = analyse(code);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ label: 'ky.create()', clientLevel: true, jitter: true, attemptTimeoutMs: 1000, deadlineMs: 4000, worstCaseMs: 300 + 600 + 3000 });
    expect(lint(code)).toEqual([]);
  });

  it('fine: POST with a retry option is still not retried (method list)', () => {
    const code = `import ky from 'ky';\nawait ky.post('orders', { json: order, retry: { limit: 8, jitter: true } });`;
    expect(analyse(code)[0]).toMatchObject({ attempts: 1 });
    expect(lint(code)).toEqual([]);
  });

  it('bad: no jitter and a status list with 404 (413 is fine: ky waits for Retry-After)', () => {
    const code = `
      import ky from 'ky';
      const retry = { limit: 2, statusCodes: [404, 413, 429, 500, 503] };
      await ky('https://api.example.com/items', { retry, timeout: 1500 });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ clientErrors: ['404'], jitter: false });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', text: '404' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-jitter', text: 'ky' }));
    expect(findings.filter((f) => f.rule === 'no-retry-on-client-error')).toHaveLength(1);
  });

  it('bad: a constant delay function, many retries, and an always-true shouldRetry (CJS)', () => {
    const code = `
      const ky = require('ky');
      const api = ky.extend({ retry: { limit: 7, delay: () => 1000, shouldRetry: () => true }, timeout: false });
    `;
    const [site] = analyse(code, { js: true });
    expect(site).toMatchObject({ attempts: 8, growth: 'constant', initialMs: 1000, filter: 'none', retriesEverything: true, attemptTimeoutMs: undefined, worstCaseMs: 7000 });
    const findings = lint(code, { js: true });
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'limit: 7' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', text: 'delay: () => 1000' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', messageId: 'retriesEverything' }));
  });

  it('caps the delay with backoffLimit and reads attemptCount from 1', () => {
    const [site] = analyse(`
      import ky from 'ky';
      ky(url, { retry: { limit: 4, delay: (attemptCount) => 2 ** attemptCount * 100, backoffLimit: 500, jitter: true }, timeout: false });
    `);
    expect(site).toMatchObject({ growth: 'exponential', initialMs: 200, worstCaseMs: 200 + 400 + 500 + 500 });
  });

  it('calls through a created instance override its retry', () => {
    const [client, call] = analyse(`
      import ky from 'ky';
      const api = ky.create({ retry: { limit: 1, jitter: true } });
      await api.get('x', { retry: 5 });
    `);
    expect(client).toMatchObject({ attempts: 2, jitter: true });
    // ky's deep merge lets a number replace the whole retry object.
    expect(call).toMatchObject({ attempts: 6, jitter: false });
  });

  it('never throws on odd but valid shapes', () => {
    const code = `import ky from 'ky'; ky(); ky(u, { retry: null }); ky(u, { retry: { delay: 3, jitter: () => 1, statusCodes: x } }); const k = ky.create(); k.extend((o) => o); ky.extend({ retry: 'x' }); ky.get(u, { retry: { limit: x } });`;
    process.env['SAFE_RETRY_STRICT_ANALYSIS'] = '1';
    try {
      expect(() => analyse(code)).not.toThrow();
      expect(() => analyse(code, { js: true })).not.toThrow();
    } finally {
      delete process.env['SAFE_RETRY_STRICT_ANALYSIS'];
    }
  });
});
