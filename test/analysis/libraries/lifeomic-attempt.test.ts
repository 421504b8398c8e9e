import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import { suggestions } from './suggest.js';

/** Written from @lifeomic/attempt v3.1.0 `src/index.ts`: `applyDefaults`, `defaultCalculateDelay`, `retry`. */
describe('@lifeomic/attempt descriptor', () => {
  it('reads the defaults: 3 attempts, a constant 200 ms wait, no jitter, no filter, no timeout', () => {
    const [site] = analyse(`
      import { retry } from '@lifeomic/attempt';
      export const load = () => retry(() => fetch('https://api.example.com/items'));
    `);
    expect(site).toMatchObject({
      library: '@lifeomic/attempt', label: 'retry()', kind: 'in-memory', attempts: 3, growth: 'constant', initialMs: 200,
      jitter: false, filter: 'none', attemptTimeoutMs: undefined, attemptsAt: undefined, worstCaseMs: 400,
    });
  });

  it('counts maxAttempts as attempts, with 0 meaning unbounded', () => {
    const sites = analyse(`
      const attempt = require('@lifeomic/attempt');
      attempt.retry(() => db.query(sql), { maxAttempts: 5 });
      attempt.retry(() => db.query(sql), { maxAttempts: 0 });
      attempt.retry(() => db.query(sql), { maxAttempts: 1 });
    `, { js: true });
    expect(sites.map((s) => [s.attempts, s.attemptsAt])).toEqual([[5, 'maxAttempts: 5'], [Infinity, 'maxAttempts: 0'], [1, 'maxAttempts: 1']]);
  });

  it('grows by factor from delay, capped by maxDelay only when a factor is set', () => {
    const sites = analyse(`
      import { retry } from '@lifeomic/attempt';
      retry(run, { maxAttempts: 4, delay: 500, factor: 2, maxDelay: 1500, jitter: true });
      retry(run, { maxAttempts: 3, delay: 300, maxDelay: 100 });
      retry(run, { maxAttempts: 3, delay: 0, factor: 2 });
      retry(run, { maxAttempts: 3, factor: 1 });
    `);
    expect(sites.map((s) => [s.growth, s.initialMs, s.multiplier, s.maxMs, s.jitter, s.worstCaseMs])).toEqual([
      ['exponential', 500, 2, 1500, true, 500 + 1000 + 1500],
      ['constant', 300, 1, Infinity, false, 600],
      ['none', 0, 2, Infinity, false, 0],
      ['constant', 200, 1, Infinity, false, 400],
    ]);
  });

  it('reads timeout per attempt, handleError as a filter and calculateDelay as an unknown schedule', () => {
    const sites = analyse(`
      import { retry } from '@lifeomic/attempt';
      retry(run, { maxAttempts: 3, timeout: 1000 });
      retry(run, { handleError(err, context) { if (err.status < 500) context.abort(); } });
      retry(run, { calculateDelay: (context) => 100 * context.attemptNum });
      retry(run, opts);
    `);
    expect(sites.map((s) => [s.attemptTimeoutMs, s.filter, s.growth, s.jitter])).toEqual([
      [1000, 'none', 'constant', false],
      [undefined, 'custom', 'constant', false],
      [undefined, 'none', 'unknown', 'unknown'],
      // Options nobody can read may hold a handleError: unknown, not unfiltered.
      [undefined, 'custom', 'unknown', 'unknown'],
    ]);
    // 3 × 1 s attempts plus two 200 ms waits.
    expect(sites[0]!.worstCaseMs).toBe(3400);
  });

  describe('rules', () => {
    it('reports the import as legacy, and a constant wait, a write and an unbounded count where they are', () => {
      const findings = lint(`
        import { retry } from '@lifeomic/attempt';
        export const pay = (order: Order) => retry(() => createCharge(order), { maxAttempts: 0 });
      `);
      expect(findings.map((f) => f.rule).sort()).toEqual([
        'max-retry-attempts', 'max-retry-duration', 'no-legacy-retry', 'no-unsafe-write-retry', 'require-exponential-backoff', 'require-jitter',
      ]);
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-legacy-retry', text: "'@lifeomic/attempt'" }));
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', messageId: 'unbounded', text: 'maxAttempts: 0' }));
    });

    it('reports an unfiltered retry around a throwing HTTP call and a key made from the attempt number', () => {
      const findings = lint(`
        import axios from 'axios';
        import { retry } from '@lifeomic/attempt';
        export const get = (id: string) => retry(() => axios.get('/users/' + id), { delay: 500, factor: 2, jitter: true });
        export const send = (body: object) => retry(({ attemptNum }) => fetch('/orders', { method: 'POST', headers: { 'Idempotency-Key': 'k' + attemptNum }, body: JSON.stringify(body) }), { delay: 500, factor: 2, jitter: true });
      `);
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', text: 'retry' }));
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'stable-idempotency-key', messageId: 'attemptKey', text: 'attemptNum' }));
    });

    it('suggests fixes in its own option names', () => {
      const code = `
        import { retry } from '@lifeomic/attempt';
        export const load = () => retry(() => db.query('select 1'), { maxAttempts: 8, delay: 500, factor: 2 });
      `;
      const applied = suggestions(code);
      expect(applied.find((s) => s.rule === 'max-retry-attempts')?.output).toContain('{ maxAttempts: 3, delay: 500, factor: 2 }');
      // The jitter edit brings the attempts within the guide too: one compliant set, not a new finding.
      expect(applied.find((s) => s.rule === 'require-jitter')?.output).toContain('{ maxAttempts: 3, delay: 500, factor: 2, jitter: true }');
    });

    it('accepts 3 jittered exponential attempts with an error filter, once legacy is allowed', () => {
      expect(lint(`
        import { retry } from '@lifeomic/attempt';
        export const load = () => retry(() => db.query('select 1'), {
          maxAttempts: 3, delay: 500, factor: 2, jitter: true,
          handleError(err, context) { if (!isTransient(err)) context.abort(); },
        });
      `).filter((f) => f.rule !== 'no-legacy-retry')).toEqual([]);
    });
  });
});
