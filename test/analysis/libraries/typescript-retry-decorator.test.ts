import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import { suggestions } from './suggest.js';

describe('typescript-retry-decorator descriptor', () => {
  it('counts maxAttempts as retries: maxAttempts 3 makes 4 calls (trap §6.2)', () => {
    const [site] = analyse(`
      import { Retryable } from 'typescript-retry-decorator';
      export class UserService {
        @Retryable({ maxAttempts: 3 })
        async load(id: string) { return this.repo.find(id); }
      }
    `);
    expect(site).toMatchObject({
      library: 'typescript-retry-decorator', label: '@Retryable()', attempts: 4, attemptsAt: 'maxAttempts: 3',
      growth: 'none', jitter: false, filter: 'none',
    });
    expect(site!.operation).toMatch(/^\(id: string\) \{/);
  });

  it('reads the fixed policy with backOff, and the exponential policy defaults (1000 ms, ×2, 2000 cap)', () => {
    const sites = analyse(`
      import { Retryable, BackOffPolicy as Policy } from 'typescript-retry-decorator';
      const EXPONENTIAL = { backOffPolicy: Policy.ExponentialBackOffPolicy };
      class Jobs {
        @Retryable({ maxAttempts: 2, backOff: 500, backOffPolicy: Policy.FixedBackOffPolicy })
        a() {}
        @Retryable({ maxAttempts: 3, ...EXPONENTIAL })
        b() {}
        @Retryable({ maxAttempts: 2, backOff: 3000, backOffPolicy: Policy.ExponentialBackOffPolicy })
        c() {}
      }
    `);
    expect(sites.map((s) => [s.growth, s.initialMs, s.multiplier, s.maxMs, s.worstCaseMs])).toEqual([
      ['constant', 500, 1, 500, 1000],
      ['exponential', 1000, 2, 2000, 1000 + 2000 + 2000],
      // The first wait is the configured backOff even above maxInterval.
      ['exponential', 3000, 2, 2000, 3000 + 2000],
    ]);
  });

  it('reads jitter strategies and error filters', () => {
    const sites = analyse(`
      import { Retryable, BackOffPolicy, ExponentialBackoffStrategy } from 'typescript-retry-decorator';
      class HttpError extends Error {}
      class Api {
        @Retryable({ maxAttempts: 2, backOffPolicy: BackOffPolicy.ExponentialBackOffPolicy,
          exponentialOption: { maxInterval: 4000, multiplier: 2, backoffStrategy: ExponentialBackoffStrategy.EqualJitter } })
        a() {}
        @Retryable({ maxAttempts: 2, value: [HttpError] })
        b() {}
        @Retryable({ maxAttempts: 2, doRetry: (e: any) => e.status >= 500 })
        c() {}
        @Retryable(sharedOptions)
        d() {}
      }
    `);
    expect(sites.map((s) => [s.jitter, s.filter, s.attempts])).toEqual([
      [true, 'none', 3],
      [false, 'custom', 3],
      [false, 'custom', 3],
      ['unknown', 'custom', 'unknown'],
    ]);
  });

  describe('rules', () => {
    it('flags maxAttempts 5 (6 calls) and suggests maxAttempts 2', () => {
      const code = `
        import { Retryable, BackOffPolicy, ExponentialBackoffStrategy } from 'typescript-retry-decorator';
        export class Payments {
          @Retryable({ maxAttempts: 5, backOffPolicy: BackOffPolicy.ExponentialBackOffPolicy, backOff: 200,
            exponentialOption: { maxInterval: 1000, multiplier: 2, backoffStrategy: ExponentialBackoffStrategy.FullJitter } })
          async sync() { return this.queue.flush(); }
        }
      `;
      expect(lint(code)).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'maxAttempts: 5' }));
      expect(suggestions(code).find((s) => s.rule === 'max-retry-attempts')?.output).toContain('maxAttempts: 2,');
    });

    it('flags a fixed backOff and suggests the exponential policy in its own terms', () => {
      const code = `
        import { Retryable, BackOffPolicy, ExponentialBackoffStrategy } from 'typescript-retry-decorator';
        export class Reports {
          @Retryable({ maxAttempts: 2, backOff: 1000 })
          async build() { return this.store.load(); }
        }
      `;
      expect(lint(code)).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', text: 'backOff: 1000' }));
      expect(suggestions(code).find((s) => s.rule === 'require-exponential-backoff')?.output)
        // Growth and jitter in one edit, so the suggestion does not trade this finding for require-jitter's.
        .toContain('{ maxAttempts: 2, backOff: 1000, backOffPolicy: BackOffPolicy.ExponentialBackOffPolicy, exponentialOption: { maxInterval: 4000, multiplier: 2, backoffStrategy: ExponentialBackoffStrategy.FullJitter } }');
    });

    it('flags the exponential policy without jitter and suggests FullJitter', () => {
      const code = `
        import { Retryable, BackOffPolicy, ExponentialBackoffStrategy } from 'typescript-retry-decorator';
        export class Reports {
          @Retryable({ maxAttempts: 2, backOffPolicy: BackOffPolicy.ExponentialBackOffPolicy, backOff: 500 })
          async build() { return this.store.load(); }
        }
      `;
      expect(lint(code)).toContainEqual(expect.objectContaining({ rule: 'require-jitter', text: 'backOffPolicy: BackOffPolicy.ExponentialBackOffPolicy' }));
      expect(suggestions(code).find((s) => s.rule === 'require-jitter')?.output)
        .toContain('exponentialOption: { maxInterval: 2000, multiplier: 2, backoffStrategy: ExponentialBackoffStrategy.FullJitter }');
    });

    it('accepts a bounded, jittered exponential retry apart from the legacy-helper report', () => {
      const findings = lint(`
        import { Retryable, BackOffPolicy, ExponentialBackoffStrategy } from 'typescript-retry-decorator';
        export class Reports {
          @Retryable({ maxAttempts: 2, backOffPolicy: BackOffPolicy.ExponentialBackOffPolicy, backOff: 500,
            exponentialOption: { maxInterval: 2000, multiplier: 2, backoffStrategy: ExponentialBackoffStrategy.FullJitter },
            doRetry: (e: any) => e.code === 'ECONNRESET' })
          async build() { return this.store.load(); }
        }
      `);
      expect(findings.filter((f) => f.rule !== 'no-legacy-retry')).toEqual([]);
    });

    it('accepts a single retry with a short fixed wait apart from the legacy-helper and backoff reports', () => {
      const findings = lint(`
        import { Retryable } from 'typescript-retry-decorator';
        export class Cache {
          @Retryable({ maxAttempts: 0 })
          async warm() { return this.redis.ping(); }
        }
      `);
      expect(findings.filter((f) => f.rule !== 'no-legacy-retry')).toEqual([]);
    });
  });
});
