import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';

describe('retry-axios descriptor', () => {
  it('attach() without a config runs at the v4 defaults', () => {
    const [site] = analyse(`
      import * as rax from 'retry-axios';
      const interceptorId = rax.attach();
    `);
    expect(site).toMatchObject({
      library: 'retry-axios', label: 'rax.attach()', attempts: 4, growth: 'exponential', initialMs: 50,
      jitter: false, filter: 'library-default', clientLevel: true,
      // ((2^n − 1) / 2) × 100: 50 + 150 + 350
      worstCaseMs: 550,
    });
  });

  it('fine: instance defaults with jitter, matched to the attached instance', () => {
    const code = `
      import axios from 'axios';
      import * as rax from 'retry-axios';
      const client = axios.create({ baseURL });
      client.defaults.raxConfig = { instance: client, retry: 2, retryDelay: 500, jitter: 'full' };
      rax.attach(client);
    `;
    const sites = analyse(code);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ attempts: 3, growth: 'exponential', jitter: true, operation: 'client', attemptsAt: 'retry: 2', worstCaseMs: 250 + 750 });
    expect(lint(code)).toEqual([]);
  });

  it('fine: raxConfig in axios.create (CJS) with a request timeout', () => {
    const code = `
      const axios = require('axios');
      const rax = require('retry-axios');
      const http = axios.create({ timeout: 1000, raxConfig: { retry: 2, jitter: 'equal', statusCodesToRetry: [[429, 429], [500, 599]] } });
      rax.attach(http);
    `;
    const [site] = analyse(code, { js: true });
    expect(site).toMatchObject({ attempts: 3, jitter: true, filter: 'statuses', clientErrors: [], attemptTimeoutMs: 1000, worstCaseMs: 50 + 150 + 3000 });
    expect(lint(code, { js: true })).toEqual([]);
  });

  it('bad: a status range covering 4xx and a static delay', () => {
    const code = `
      import axios from 'axios';
      import * as rax from 'retry-axios';
      axios.defaults.raxConfig = {
        retry: 3,
        backoffType: 'static',
        statusCodesToRetry: [[100, 199], [400, 499], [500, 599]],
      };
      rax.attach();
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ growth: 'constant', initialMs: 100, clientErrors: ['400-499'] });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', text: '[400, 499]' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', messageId: 'constantDelay', text: "backoffType: 'static'" }));
  });

  it('bad: a per-request config with many retries and no jitter, and an always-true shouldRetry', () => {
    const code = `
      import axios from 'axios';
      import { attach } from 'retry-axios';
      attach(axios);
      await axios.get(url, { raxConfig: { retry: 8, retryDelay: 1000 } });
      await axios.get(url, { raxConfig: { shouldRetry: () => true } });
    `;
    const [, first, second] = analyse(code);
    expect(first).toMatchObject({ label: 'raxConfig', attempts: 9, jitter: false, clientLevel: false });
    expect(second).toMatchObject({ filter: 'none', retriesEverything: true });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'retry: 8' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-jitter', line: 5 }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', messageId: 'retriesEverything', text: 'shouldRetry: () => true' }));
  });

  it('reads linear backoff as n × 1000 regardless of retryDelay, capped by maxRetryDelay', () => {
    const [site] = analyse(`
      import * as rax from 'retry-axios';
      inst.defaults.raxConfig = { retry: 3, backoffType: 'linear', retryDelay: 10, maxRetryDelay: 2500 };
      rax.attach(inst);
    `);
    expect(site).toMatchObject({ growth: 'linear', initialMs: 1000, worstCaseMs: 1000 + 2000 + 2500 });
  });

  it('never throws on odd but valid shapes', () => {
    const code = `import * as rax from 'retry-axios'; rax.attach(...x); x.defaults.raxConfig = null; y.defaults['raxConfig'] = cfg; ({ raxConfig } = z); const o = { raxConfig: { statusCodesToRetry: [[1], 5, [...a]], retry: -1, backoffType: t, jitter: j } }; const p = { get raxConfig() { return 1; } };`;
    process.env['SAFE_RETRY_STRICT_ANALYSIS'] = '1';
    try {
      expect(() => analyse(code)).not.toThrow();
      expect(() => analyse(code, { js: true })).not.toThrow();
    } finally {
      delete process.env['SAFE_RETRY_STRICT_ANALYSIS'];
    }
  });
});
