import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';

describe('undici descriptor', () => {
  it('RetryAgent at the defaults: 5 retries, 500 ms × 2 capped at 30 s, no jitter', () => {
    const [site] = analyse(`
      import { Agent, RetryAgent } from 'undici';
      const dispatcher = new RetryAgent(new Agent());
    `);
    expect(site).toMatchObject({
      library: 'undici', label: 'new RetryAgent()', attempts: 6, growth: 'exponential', initialMs: 500, multiplier: 2, maxMs: 30_000,
      jitter: false, filter: 'library-default', clientLevel: true, worstCaseMs: 500 + 1000 + 2000 + 4000 + 8000,
    });
  });

  it('a single retry through interceptors.retry (namespace import): only the missing jitter', () => {
    const code = `
      import * as undici from 'undici';
      const client = new undici.Agent().compose(undici.interceptors.retry({ maxRetries: 1, minTimeout: 200 }));
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ label: 'interceptors.retry()', attempts: 2, worstCaseMs: 200, operation: expect.stringContaining('.compose(') });
    // One retry is a single wait: nothing to grow, but undici never randomises it.
    expect(lint(code).map((f) => f.rule)).toEqual(['require-jitter']);
  });

  it('one retry on RetryHandler (CJS): only the missing jitter', () => {
    const code = `
      const { RetryHandler } = require('undici');
      const handler = new RetryHandler({ ...dispatchOptions, retryOptions: { maxRetries: 1, statusCodes: [429, 503] } }, { dispatch, handler: inner });
    `;
    expect(analyse(code, { js: true })[0]).toMatchObject({ attempts: 2, filter: 'statuses', clientErrors: [], clientLevel: false });
    expect(lint(code, { js: true }).map((f) => f.rule)).toEqual(['require-jitter']);
  });

  it('bad: the defaults draw attempts, jitter and duration findings', () => {
    const code = `
      import { Agent, RetryAgent } from 'undici';
      const agent = new RetryAgent(new Agent());
    `;
    const rules = lint(code).map((f) => f.rule).sort();
    expect(rules).toEqual(['max-retry-attempts', 'max-retry-duration', 'require-jitter']);
  });

  it('bad: constant backoff and 404 in the status list', () => {
    const code = `
      import { Agent, interceptors } from 'undici';
      const OPTS = { maxRetries: 3, timeoutFactor: 1, statusCodes: [404, 500, 502] };
      const client = new Agent().compose(interceptors.retry(OPTS));
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ growth: 'constant', clientErrors: ['404'] });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', text: 'timeoutFactor: 1' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', text: '404' }));
  });

  it('a retry function replaces the policy: everything unknown', () => {
    const [site] = analyse(`
      import { RetryAgent, Agent } from 'undici';
      new RetryAgent(new Agent(), { maxRetries: 2, retry(err, { state, opts }, cb) { cb(err); } });
    `);
    expect(site).toMatchObject({ attempts: 'unknown', growth: 'unknown', filter: 'custom' });
  });

  it('never throws on odd but valid shapes', () => {
    const code = `import { RetryAgent, RetryHandler, interceptors } from 'undici'; new RetryAgent(); new RetryHandler(); new RetryHandler(null, null); interceptors.retry(); interceptors.retry(...a); new RetryAgent(a, { retry: null, timeoutFactor: -1, minTimeout: 0 });`;
    process.env['SAFE_RETRY_STRICT_ANALYSIS'] = '1';
    try {
      expect(() => analyse(code)).not.toThrow();
      expect(() => analyse(code, { js: true })).not.toThrow();
    } finally {
      delete process.env['SAFE_RETRY_STRICT_ANALYSIS'];
    }
  });
});
