import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import { suggestions } from './suggest.js';

describe('bluebird-retry descriptor', () => {
  it('reads the defaults: 5 attempts, constant 1000 ms', () => {
    const [site] = analyse(`
      const retry = require('bluebird-retry');
      module.exports = () => retry(() => db.connect());
    `, { js: true });
    expect(site).toMatchObject({
      library: 'bluebird-retry', attempts: 5, growth: 'constant', initialMs: 1000, jitter: false,
      filter: 'none', deadlineMs: undefined, worstCaseMs: 4000, attemptsAt: undefined,
    });
  });

  it('counts max_tries as attempts and reads backoff with max_interval', () => {
    const [site] = analyse(`
      import retry from 'bluebird-retry';
      const opts = { max_tries: 4, interval: 500, backoff: 2, max_interval: 1500 };
      retry(() => db.connect(), opts);
    `);
    expect(site).toMatchObject({ attempts: 4, growth: 'exponential', multiplier: 2, attemptsAt: 'max_tries: 4', worstCaseMs: 500 + 1000 + 1500 });
  });

  it('reads only a timeout as unlimited tries bounded by the deadline', () => {
    const sites = analyse(`
      import retry from 'bluebird-retry';
      retry(() => db.connect(), { timeout: 20000, interval: 250 });
      retry(() => db.connect(), { timeout: 20000, max_tries: 3 });
      retry(() => db.connect(), { max_tries: 0 });
    `);
    expect(sites.map((s) => [s.attempts, s.deadlineMs, s.worstCaseMs])).toEqual([
      [Infinity, 20000, 20000],
      [3, 20000, 2000],
      [5, undefined, 4000],
    ]);
  });

  it('reads predicate and retry.StopError as filters', () => {
    const sites = analyse(`
      const retry = require('bluebird-retry');
      retry(() => call(), { max_tries: 3, predicate: (e) => e.code === 'ECONNRESET' });
      retry(async () => { const r = await call(); if (r.status === 404) throw new retry.StopError('gone'); return r; }, { max_tries: 3 });
      retry(sendBatch, { max_tries: 3 });
    `, { js: true });
    expect(sites.map((s) => s.filter)).toEqual(['custom', 'custom', 'custom']);
  });

  describe('rules', () => {
    it('flags the constant default interval and the legacy module', () => {
      const findings = lint(`
        const retry = require('bluebird-retry');
        module.exports = () => retry(() => db.connect(), { max_tries: 3 });
      `, { js: true });
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', text: '{ max_tries: 3 }' }));
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-legacy-retry' }));
    });

    it('flags max_tries 10 and suggests max_tries 3; flags an unbounded timeout-only retry', () => {
      const code = `
        const retry = require('bluebird-retry');
        retry(() => db.connect(), { max_tries: 10, interval: 100, backoff: 2 });
        retry(() => db.connect(), { timeout: 60000, interval: 100, backoff: 2 });
      `;
      const findings = lint(code, { js: true });
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'max_tries: 10' }));
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', messageId: 'unbounded', line: 4 }));
      expect(suggestions(code, { js: true }).find((s) => s.rule === 'max-retry-attempts')?.output).toContain('max_tries: 3, interval');
    });

    it('flags a short exponential retry only for the legacy module and its missing jitter (it has no jitter option)', () => {
      const findings = lint(`
        import retry from 'bluebird-retry';
        export const connect = () => retry(() => db.connect(), { max_tries: 3, interval: 500, backoff: 2, predicate: isTransient });
      `);
      expect(findings.map((f) => [f.rule, f.text])).toEqual([['no-legacy-retry', "'bluebird-retry'"], ['require-jitter', 'backoff: 2']]);
    });

    it('reports nothing but the legacy module for a single filtered try (ESM)', () => {
      const findings = lint(`
        import retry from 'bluebird-retry';
        export const once = () => retry(() => db.connect(), { max_tries: 1, predicate: isTransient });
      `);
      expect(findings.map((f) => f.rule)).toEqual(['no-legacy-retry']);
    });

    it('reports nothing but the legacy module for a single try', () => {
      const findings = lint(`
        const retry = require('bluebird-retry');
        retry(() => db.connect(), { max_tries: 1 });
      `, { js: true });
      expect(findings.map((f) => f.rule)).toEqual(['no-legacy-retry']);
    });
  });
});
