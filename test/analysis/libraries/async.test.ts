import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import { suggestions } from './suggest.js';

describe('async (caolan) descriptor', () => {
  it('reads the defaults: 5 attempts, no wait', () => {
    const sites = analyse(`
      const async = require('async');
      async.retry(apiMethod, function (err, result) { done(err, result); });
      async.retry(async () => fetchReport());
    `, { js: true });
    expect(sites.map((s) => [s.attempts, s.growth, s.operation])).toEqual([
      [5, 'none', 'apiMethod'],
      [5, 'none', 'async () => fetchReport()'],
    ]);
  });

  it('counts times as attempts, in number and object forms; 0 means the default 5', () => {
    const sites = analyse(`
      import { retry, retryable } from 'async';
      retry(3, apiMethod, cb);
      retry({ times: 4, interval: 200 }, apiMethod, cb);
      retry({ times: 0 }, apiMethod);
      const robust = retryable(2, apiMethod);
    `);
    expect(sites.map((s) => [s.label, s.attempts, s.growth, s.initialMs, s.attemptsAt])).toEqual([
      ['retry()', 3, 'none', 0, '3'],
      ['retry()', 4, 'constant', 200, 'times: 4'],
      ['retry()', 5, 'none', 0, 'times: 0'],
      ['retryable()', 2, 'none', 0, '2'],
    ]);
  });

  it('reads an interval function of the retry count (the README exponential example)', () => {
    const [site] = analyse(`
      import retry from 'async/retry';
      await retry({ times: 4, interval: function (retryCount) { return 50 * Math.pow(2, retryCount); } }, apiMethod);
    `);
    expect(site).toMatchObject({ library: 'async', attempts: 4, growth: 'exponential', initialMs: 100, multiplier: 2, jitter: false, worstCaseMs: 100 + 200 + 400 });
  });

  it('reads errorFilter as a filter and unknown first arguments as unknown', () => {
    const sites = analyse(`
      import async from 'async';
      async.retry({ times: 3, errorFilter: (err) => err.message === 'Temporary error' }, apiMethod, cb);
      async.retry(options, apiMethod);
    `);
    expect(sites.map((s) => [s.filter, s.attempts])).toEqual([['custom', 3], ['custom', 'unknown']]);
  });

  describe('rules', () => {
    it('flags immediate retries and suggests an exponential interval', () => {
      const code = `
        import async from 'async';
        async.retry(3, apiMethod, cb);
      `;
      expect(lint(code)).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', text: 'async.retry' }));
      expect(suggestions(code).find((s) => s.rule === 'require-exponential-backoff')?.output)
        .toContain('async.retry({ times: 3, interval: (retryCount) => 250 * 2 ** retryCount * (0.5 + Math.random()) }, apiMethod, cb)');
    });

    it('flags times: 10 and an un-jittered interval function', () => {
      const code = `
        import retry from 'async/retry';
        retry({ times: 10, interval: (n) => 100 * 2 ** n }, apiMethod, cb);
      `;
      const findings = lint(code);
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'times: 10' }));
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-jitter', text: 'interval: (n) => 100 * 2 ** n' }));
      const applied = suggestions(code);
      expect(applied.find((s) => s.rule === 'max-retry-attempts')?.output).toContain('times: 3,');
      // One edit for the whole schedule: full jitter on the same waits, and the count within the bound.
      expect(applied.find((s) => s.rule === 'require-jitter')?.output).toContain('{ times: 3, interval: (retryCount) => Math.random() * Math.min(2000, 200 * 2 ** (retryCount - 1)) }');
    });

    it('reports only the legacy helper for a short jittered exponential retry', () => {
      const findings = lint(`
        const async = require('async');
        async.retry({ times: 3, interval: (n) => Math.random() * 250 * 2 ** n, errorFilter: isTransient }, apiMethod, cb);
      `, { js: true });
      expect(findings.map((f) => f.rule)).toEqual(['no-legacy-retry']);
    });

    it('reports only the legacy helper for a single attempt', () => {
      const findings = lint(`
        import { retryable } from 'async';
        export const once = retryable(1, apiMethod);
      `);
      expect(findings.every((f) => f.rule === 'no-legacy-retry')).toBe(true);
    });
  });
});
