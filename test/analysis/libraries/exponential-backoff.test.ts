import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import { suggestions } from './suggest.js';

describe('exponential-backoff descriptor', () => {
  it('reads the defaults: 10 attempts (counting the first), 100 ms doubling, no jitter, no filter', () => {
    const [site] = analyse(`
      import { backOff } from 'exponential-backoff';
      export const load = () => backOff(() => fetch('https://api.example.com/items'));
    `);
    expect(site).toMatchObject({
      library: 'exponential-backoff', label: 'backOff()', attempts: 10, growth: 'exponential', initialMs: 100,
      multiplier: 2, maxMs: Infinity, jitter: false, filter: 'none', attemptsAt: undefined,
      // 100 + 200 + ... + 25600
      worstCaseMs: 51100,
    });
  });

  it('counts numOfAttempts as attempts, minimum 1', () => {
    const sites = analyse(`
      const { backOff } = require('exponential-backoff');
      const options = { numOfAttempts: 3, startingDelay: 500, maxDelay: 800 };
      backOff(() => db.query(sql), options);
      backOff(() => db.query(sql), { numOfAttempts: 0 });
    `, { js: true });
    expect(sites.map((s) => [s.attempts, s.worstCaseMs, s.attemptsAt])).toEqual([
      [3, 500 + 800, 'numOfAttempts: 3'],
      [1, 0, 'numOfAttempts: 0'],
    ]);
  });

  it('reads jitter, the retry predicate, delayFirstAttempt and a renamed import', () => {
    const sites = analyse(`
      import { backOff as withBackoff } from 'exponential-backoff';
      const isTransient = (e: any) => e.status >= 500;
      await withBackoff(() => client.get(url), { numOfAttempts: 3, startingDelay: 500, jitter: 'full', retry: isTransient });
      await withBackoff(() => client.get(url), { numOfAttempts: 3, retry: () => true });
      await withBackoff(() => client.get(url), { numOfAttempts: 3, delayFirstAttempt: true });
      await withBackoff(() => client.get(url), { numOfAttempts: 3, jitter: mode });
    `);
    expect(sites.map((s) => [s.jitter, s.filter, s.initialMs])).toEqual([
      [true, 'custom', 500],
      [false, 'none', 100],
      [false, 'none', 200],
      ['unknown', 'none', 100],
    ]);
  });

  it('reads a timeMultiple of 1 as constant backoff and unknown options as unknown', () => {
    const sites = analyse(`
      import { backOff } from 'exponential-backoff';
      backOff(run, { numOfAttempts: 3, timeMultiple: 1 });
      backOff(run, { ...defaults, numOfAttempts: 3 });
    `);
    expect(sites.map((s) => [s.attempts, s.growth])).toEqual([[3, 'constant'], [3, 'unknown']]);
  });

  describe('rules', () => {
    it('flags the default 10 attempts and the missing jitter, with suggestions in its own terms', () => {
      const code = `
        import { backOff } from 'exponential-backoff';
        export const load = () => backOff(() => db.query('select 1'), { startingDelay: 200 });
      `;
      const findings = lint(code);
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'backOff' }));
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-jitter' }));
      const applied = suggestions(code);
      expect(applied.find((s) => s.rule === 'max-retry-attempts')?.output).toContain("{ startingDelay: 200, numOfAttempts: 3 }");
      expect(applied.find((s) => s.rule === 'require-jitter')?.output).toContain("{ startingDelay: 200, numOfAttempts: 3, jitter: 'full' }");
    });

    it("flags jitter: 'none' on the option and a constant multiplier", () => {
      const findings = lint(`
        import { backOff } from 'exponential-backoff';
        backOff(() => db.query(sql), { numOfAttempts: 3, jitter: 'none' });
        backOff(() => db.query(sql), { numOfAttempts: 3, timeMultiple: 1, jitter: 'full' });
      `);
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-jitter', text: "jitter: 'none'" }));
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', text: 'timeMultiple: 1' }));
    });

    it('flags an unfiltered backOff around a throwing HTTP call', () => {
      const findings = lint(`
        import axios from 'axios';
        import { backOff } from 'exponential-backoff';
        export const get = (id: string) => backOff(() => axios.get('/users/' + id), { numOfAttempts: 3, startingDelay: 500, jitter: 'full' });
      `);
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', text: 'backOff' }));
    });

    it('reports only the helper itself (R-RES-RE-X4) on 3 jittered attempts with a retry predicate', () => {
      expect(lint(`
        import axios from 'axios';
        import { backOff } from 'exponential-backoff';
        const transient = (e: any) => !e.response || e.response.status >= 500 || e.response.status === 429;
        export const get = (id: string) => backOff(() => axios.get('/users/' + id), { numOfAttempts: 3, startingDelay: 500, jitter: 'full', retry: transient });
      `).map((f) => f.rule)).toEqual(['no-legacy-retry']);
    });

    it('reports only the helper itself (R-RES-RE-X4) on a bounded CommonJS call around a database query', () => {
      expect(lint(`
        const { backOff } = require('exponential-backoff');
        module.exports = (sql) => backOff(() => pool.query(sql), { numOfAttempts: 3, startingDelay: 250, maxDelay: 1000, jitter: 'full' });
      `, { js: true }).map((f) => f.rule)).toEqual(['no-legacy-retry']);
    });
  });
});
