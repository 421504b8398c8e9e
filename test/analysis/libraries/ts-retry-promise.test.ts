import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import { suggestions } from './suggest.js';

describe('ts-retry-promise descriptor', () => {
  it('reads the defaults: 10 retries (11 calls), fixed 100 ms, 60 s overall timeout (trap §6.9)', () => {
    const [site] = analyse(`
      import { retry } from 'ts-retry-promise';
      export const load = () => retry(() => repository.findAll());
    `);
    expect(site).toMatchObject({
      library: 'ts-retry-promise', attempts: 11, growth: 'constant', initialMs: 100, maxMs: 300000,
      jitter: false, filter: 'none', deadlineMs: 60000, worstCaseMs: 1000,
    });
  });

  it('reads "INFINITELY" for retries and timeout', () => {
    const [site] = analyse(`
      import { retry } from 'ts-retry-promise';
      retry(() => poll(), { retries: 'INFINITELY', timeout: 'INFINITELY', delay: 1000 });
    `);
    expect(site).toMatchObject({ attempts: Infinity, deadlineMs: undefined, worstCaseMs: Infinity, attemptsAt: "retries: 'INFINITELY'" });
  });

  it('reads "EXPONENTIAL" as delay ** attempt, clamped by maxBackOff (trap §6.9)', () => {
    const sites = analyse(`
      import { retry } from 'ts-retry-promise';
      retry(() => poll(), { retries: 3, backoff: 'EXPONENTIAL' });
      retry(() => poll(), { retries: 3, delay: 2, backoff: 'EXPONENTIAL' });
      retry(() => poll(), { retries: 3, backoff: 'EXPONENTIAL', maxBackOff: 5000, timeout: 'INFINITELY' });
    `);
    // 100 ms, 10 s, 1000 s: the default 60 s timeout bounds the first; the cap the third.
    expect(sites.map((s) => [s.growth, s.initialMs, s.multiplier, s.worstCaseMs])).toEqual([
      ['exponential', 100, 100, 60000],
      ['exponential', 2, 2, 2 + 4 + 8],
      ['exponential', 100, 100, 100 + 5000 + 5000],
    ]);
  });

  it('reads LINEAR, a backoff function, retryIf and NotRetryableError', () => {
    const sites = analyse(`
      import { retry, retryDecorator, NotRetryableError } from 'ts-retry-promise';
      const cfg = { retries: 2, delay: 500, backoff: 'LINEAR' } as const;
      retry(() => poll(), cfg);
      retry(() => poll(), { retries: 2, delay: 250, backoff: (attempt, delay) => delay * 2 ** attempt * Math.random(), retryIf: (e) => e.status >= 500 });
      retry(async () => { const r = await fetch(u); if (r.status === 404) throw new NotRetryableError('gone'); return r; }, { retries: 2 });
      export const robustLoad = retryDecorator(load, { retries: 2 });
    `);
    expect(sites.map((s) => [s.label, s.growth, s.jitter, s.filter, s.worstCaseMs])).toEqual([
      ['retry()', 'linear', false, 'none', 500 + 1000],
      ['retry()', 'exponential', true, 'custom', 500 + 1000],
      ['retry()', 'constant', false, 'custom', 200],
      ['retryDecorator()', 'constant', false, 'custom', 200],
    ]);
  });

  it('reads customizeRetry config and the operation it is applied to', () => {
    const [site] = analyse(`
      import { customizeRetry } from 'ts-retry-promise';
      const retryDb = customizeRetry({ retries: 4, delay: 300 });
      export const q = () => retryDb(() => db.query('select 1'));
    `);
    expect(site).toMatchObject({ label: 'customizeRetry()', attempts: 5, operation: "() => db.query('select 1')" });
  });

  describe('rules', () => {
    it('flags the defaults: 11 calls at a fixed delay', () => {
      const code = `
        import { retry } from 'ts-retry-promise';
        export const load = () => retry(() => repository.findAll(), { delay: 200 });
      `;
      const findings = lint(code);
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'retry' }));
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', text: 'delay: 200' }));
      expect(suggestions(code).find((s) => s.rule === 'max-retry-attempts')?.output).toContain('{ delay: 200, retries: 2, backoff: (attempt) => Math.random() * ');
    });

    it("flags 'INFINITELY' and an EXPONENTIAL backoff without jitter", () => {
      const findings = lint(`
        import { retry } from 'ts-retry-promise';
        retry(() => poll(), { retries: 'INFINITELY', backoff: 'EXPONENTIAL', delay: 2 });
      `);
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', messageId: 'unbounded', text: "retries: 'INFINITELY'" }));
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-jitter', text: "backoff: 'EXPONENTIAL'" }));
    });

    it('reports only the helper itself (R-RES-RE-X4) on a bounded, jittered function backoff with retryIf', () => {
      expect(lint(`
        import { retry } from 'ts-retry-promise';
        export const load = () => retry(() => repository.findAll(), {
          retries: 2, delay: 250, timeout: 4000,
          backoff: (attempt, delay) => delay * 2 ** attempt * (0.5 + Math.random()),
          retryIf: (e) => e.code === 'ECONNRESET',
        });
      `).map((f) => f.rule)).toEqual(['no-legacy-retry']);
    });

    it('reports only the helper itself (R-RES-RE-X4) on a CommonJS retryDecorator with few quick retries', () => {
      expect(lint(`
        const { retryDecorator } = require('ts-retry-promise');
        module.exports = retryDecorator(loadConfig, { retries: 2, delay: 500, backoff: (attempt, delay) => delay * 2 ** (attempt - 1) * (0.5 + Math.random()) });
      `, { js: true }).map((f) => f.rule)).toEqual(['no-legacy-retry']);
    });
  });
});
