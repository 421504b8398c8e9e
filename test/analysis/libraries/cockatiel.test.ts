import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import { rawSites, suggestions } from './suggest.js';

describe('cockatiel descriptor', () => {
  it('reads a bare retry(handleAll, {}) as unbounded immediate retries with no filter (trap §6.1)', () => {
    const [site] = analyse(`
      import { retry, handleAll } from 'cockatiel';
      export const policy = retry(handleAll, {});
      await policy.execute(() => fetch('https://api.example.com/items'));
    `);
    expect(site).toMatchObject({
      library: 'cockatiel', attempts: Infinity, growth: 'none', jitter: false, filter: 'none',
      operation: "() => fetch('https://api.example.com/items')", attemptsAt: undefined,
    });
  });

  it('counts maxAttempts as retries: maxAttempts 3 makes 4 calls (trap §6.1)', () => {
    const [site] = analyse(`
      import { retry, handleAll, ExponentialBackoff } from 'cockatiel';
      retry(handleAll, { maxAttempts: 3, backoff: new ExponentialBackoff() });
    `);
    expect(site).toMatchObject({ attempts: 4, attemptsAt: 'maxAttempts: 3' });
  });

  it('reads ExponentialBackoff defaults: 128 ms, exponent 2, 30 s cap, decorrelated jitter', () => {
    const [site] = analyse(`
      import { retry, handleWhen, ExponentialBackoff } from 'cockatiel';
      const isTransient = (err: any) => err.code === 'ECONNRESET' || err.status >= 500;
      export const policy = retry(handleWhen(isTransient), { maxAttempts: 2, backoff: new ExponentialBackoff() });
    `);
    expect(site).toMatchObject({ attempts: 3, growth: 'exponential', initialMs: 128, multiplier: 2, maxMs: 30000, jitter: true, filter: 'custom' });
    // Decorrelated jitter bounded by (f(n) − f(n−2)) × 128 / 1.4, f(t) = 2^t · tanh(√4t).
    const f = (t: number) => (t <= 0 ? 0 : 2 ** t * Math.tanh(Math.sqrt(4 * t)));
    expect(site!.worstCaseMs).toBeCloseTo((f(1) + f(2)) * 128 / 1.4, 6);
  });

  it('reads generators: noJitterGenerator has no jitter and ignores exponent', () => {
    const sites = analyse(`
      import * as cockatiel from 'cockatiel';
      const { handleAll } = cockatiel;
      cockatiel.retry(cockatiel.handleAll, { maxAttempts: 2, backoff: new cockatiel.ExponentialBackoff({ initialDelay: 500, exponent: 5, generator: cockatiel.noJitterGenerator }) });
      cockatiel.retry(handleAll, { maxAttempts: 2, backoff: new cockatiel.ExponentialBackoff({ initialDelay: 500, generator: cockatiel.fullJitterGenerator }) });
      cockatiel.retry(cockatiel.handleAll, { maxAttempts: 2, backoff: new cockatiel.ExponentialBackoff({ generator: myOwnGenerator }) });
    `);
    expect(sites.map((s) => [s.growth, s.multiplier, s.jitter, s.worstCaseMs])).toEqual([
      ['exponential', 2, false, 1500],
      ['exponential', 2, true, 1500],
      ['unknown', 'unknown', 'unknown', 'unknown'],
    ]);
  });

  it('reads ConstantBackoff, IterableBackoff and DelegateBackoff', () => {
    const sites = analyse(`
      const { retry, handleAll, ConstantBackoff, IterableBackoff, DelegateBackoff } = require('cockatiel');
      const constant = new ConstantBackoff(1000);
      retry(handleAll, { maxAttempts: 3, backoff: constant });
      retry(handleAll, { maxAttempts: 3, backoff: new IterableBackoff([100, 200, 400, 800]) });
      retry(handleAll, { maxAttempts: 3, backoff: new DelegateBackoff((context) => Math.min(250 * 2 ** context.attempt, 5000) * Math.random()) });
    `, { js: true });
    expect(sites.map((s) => [s.attempts, s.growth, s.jitter, s.worstCaseMs])).toEqual([
      [4, 'constant', false, 3000],
      [4, 'exponential', false, 700],
      [4, 'exponential', true, 500 + 1000 + 2000],
    ]);
  });

  it('treats handleAll and anything chained onto it as no filter, handleType/handleWhen as a filter', () => {
    const sites = analyse(`
      import { retry, handleAll, handleType, handleWhenResult, ConstantBackoff } from 'cockatiel';
      class HttpError extends Error {}
      retry(handleAll.orWhen((e) => e.status >= 500), { maxAttempts: 2 });
      retry(handleType(HttpError, (e) => e.status >= 500), { maxAttempts: 2 });
      retry(handleWhenResult((r) => r.status === 503), { maxAttempts: 2 });
      retry(somePolicyFromElsewhere, { maxAttempts: 2 });
    `);
    expect(sites.map((s) => s.filter)).toEqual(['none', 'custom', 'custom', 'custom']);
  });

  it('records a composition with a circuit breaker through wrap()', () => {
    const { sites, text } = rawSites(`
      import { retry, circuitBreaker, handleAll, wrap, ExponentialBackoff, ConsecutiveBreaker, timeout, TimeoutStrategy } from 'cockatiel';
      const retryPolicy = retry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff() });
      const breakerPolicy = circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) });
      const resilient = wrap(retryPolicy, breakerPolicy, timeout(2000, TimeoutStrategy.Aggressive));
      export const get = (id: string) => resilient.execute(() => db.find(id));
      const lonely = retry(handleAll, { maxAttempts: 2 });
    `);
    expect(sites.map((s) => text(s.breaker))).toEqual(['breakerPolicy', undefined]);
    expect(text(sites[0]!.operation)).toBe('() => db.find(id)');
  });

  it('finds the operation through a class field', () => {
    const [site] = analyse(`
      import { retry, handleAll, ExponentialBackoff } from 'cockatiel';
      export class Client {
        private readonly policy = retry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff() });
        get(id: string) { return this.policy.execute(() => this.http.get(id)); }
      }
    `);
    expect(site!.operation).toBe('() => this.http.get(id)');
  });

  it('ignores look-alikes not bound to cockatiel', () => {
    expect(analyse(`function retry(p, o) {} const handleAll = 1; retry(handleAll, {});`)).toEqual([]);
  });

  describe('rules', () => {
    it('flags the unbounded default and the missing backoff', () => {
      const findings = lint(`
        import { retry, handleAll } from 'cockatiel';
        export const policy = retry(handleAll, {});
        export const call = () => policy.execute(() => fetch('https://api.example.com/items'));
      `);
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', messageId: 'unbounded', text: 'retry' }));
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', text: 'retry' }));
    });

    it('flags maxAttempts above the bound and a constant backoff', () => {
      const findings = lint(`
        import { retry, handleWhen, ConstantBackoff } from 'cockatiel';
        export const policy = retry(handleWhen((e) => e.code === 'ETIMEDOUT'), { maxAttempts: 5, backoff: new ConstantBackoff(500) });
      `);
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'maxAttempts: 5' }));
      expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', text: 'backoff: new ConstantBackoff(500)' }));
    });

    it('flags noJitterGenerator and suggests dropping it', () => {
      const code = `
        import { retry, handleWhen, ExponentialBackoff, noJitterGenerator } from 'cockatiel';
        export const policy = retry(handleWhen((e) => e.status >= 500), { maxAttempts: 2, backoff: new ExponentialBackoff({ initialDelay: 500, generator: noJitterGenerator }) });
      `;
      expect(lint(code)).toContainEqual(expect.objectContaining({ rule: 'require-jitter', text: 'generator: noJitterGenerator' }));
      const fixed = suggestions(code).find((s) => s.rule === 'require-jitter');
      expect(fixed?.output).toContain('backoff: new ExponentialBackoff({ initialDelay: 500 })');
    });

    it('suggests maxAttempts in retries (2 for 3 calls), also for a shorthand property', () => {
      const code = `
        import { retry, handleAll, ExponentialBackoff } from 'cockatiel';
        const maxAttempts = 10;
        export const policy = retry(handleAll, { maxAttempts, backoff: new ExponentialBackoff() });
      `;
      const fixed = suggestions(code).find((s) => s.rule === 'max-retry-attempts');
      expect(fixed?.output).toContain('retry(handleAll, { maxAttempts: 2, backoff');
    });

    it('suggests an ExponentialBackoff where none is configured', () => {
      const code = `
        import { retry, handleWhen, ExponentialBackoff } from 'cockatiel';
        export const policy = retry(handleWhen((e) => e.status >= 500), { maxAttempts: 2 });
      `;
      const fixed = suggestions(code).find((s) => s.rule === 'require-exponential-backoff');
      expect(fixed?.output).toContain('{ maxAttempts: 2, backoff: new ExponentialBackoff({ initialDelay: 500, maxDelay: 2000 }) }');
    });

    it('accepts a bounded, jittered, filtered policy composed with a breaker', () => {
      expect(lint(`
        import { retry, circuitBreaker, handleWhen, wrap, ExponentialBackoff, ConsecutiveBreaker } from 'cockatiel';
        const transient = handleWhen((err: any) => err.status === undefined || err.status >= 500);
        const retryPolicy = retry(transient, { maxAttempts: 2, backoff: new ExponentialBackoff({ initialDelay: 500, maxDelay: 2000 }) });
        const breaker = circuitBreaker(transient, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) });
        export const policy = wrap(retryPolicy, breaker);
      `)).toEqual([]);
    });

    it('accepts the README-style policy with handleAll around a non-HTTP call', () => {
      expect(lint(`
        const { retry, handleAll, ExponentialBackoff } = require('cockatiel');
        const policy = retry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff() });
        module.exports = (key) => policy.execute(() => cache.get(key));
      `, { js: true })).toEqual([]);
    });
  });
});
