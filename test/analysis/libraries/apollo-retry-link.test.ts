import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import { suggestions } from './suggest.js';

describe('apollo-retry-link descriptor', () => {
  it('reads the defaults: 5 attempts including the first, full-jitter exponential from 300 ms', () => {
    const [site] = analyse(`
      import { ApolloClient, InMemoryCache, from, HttpLink } from '@apollo/client';
      import { RetryLink } from '@apollo/client/link/retry';
      const client = new ApolloClient({ link: from([new RetryLink(), new HttpLink({ uri })]), cache: new InMemoryCache() });
    `);
    // Full jitter: the ceiling before retry n is initial × 2^n (600, 1200, 2400, 4800).
    expect(site).toMatchObject({
      library: 'apollo-retry-link', label: 'new RetryLink()', kind: 'in-memory', attempts: 5, growth: 'exponential',
      initialMs: 300, multiplier: 2, maxMs: Infinity, jitter: true, filter: 'library-default', clientLevel: true,
      worstCaseMs: 9000, attemptsAt: undefined,
    });
  });

  it('counts attempts.max as total attempts (not retries)', () => {
    const [site] = analyse(`
      import { RetryLink } from '@apollo/client/link/retry';
      export const retryLink = new RetryLink({ attempts: { max: 3 } });
    `);
    expect(site).toMatchObject({ attempts: 3, attemptsAt: 'max: 3' });
  });

  it('reads delay options from a const and the @apollo/client re-export (fine config)', () => {
    const code = `
      const { RetryLink: Retry } = require('@apollo/client');
      const delay = { initial: 200, max: 2000, jitter: true };
      module.exports = new Retry({
        delay,
        attempts: { max: 3, retryIf: (error, operation) => !isMutation(operation) && !!error && error.statusCode >= 500 },
      });
    `;
    const [site] = analyse(code, { js: true });
    // ceilings: min(2000, 400), min(2000, 800)
    expect(site).toMatchObject({ attempts: 3, jitter: true, filter: 'custom', maxMs: 2000, worstCaseMs: 1200 });
    expect(lint(code, { js: true })).toEqual([]);
  });

  it('retries mutations and 4xx ServerErrors by default and with a retryIf true for any error', () => {
    const findings = (code: string) => lint(code).filter((f) => f.rule === 'no-unsafe-write-retry' || f.rule === 'no-retry-on-client-error').map((f) => [f.rule, f.text]);
    expect(findings(`import { RetryLink } from '@apollo/client/link/retry';
      export const link = new RetryLink();`)).toEqual([
      ['no-retry-on-client-error', 'RetryLink'],
      ['no-unsafe-write-retry', 'RetryLink'],
    ]);
    // A shared options constant typed RetryLink.Options, as apps write it.
    expect(findings(`import { RetryLink } from '@apollo/client/link/retry';
      const retryOptions: RetryLink.Options = { delay: { initial: 300 }, attempts: { max: 5, retryIf: (error, _operation) => !!error } };
      export const link = new RetryLink(retryOptions);`)).toEqual([
      ['no-retry-on-client-error', 'retryIf: (error, _operation) => !!error'],
      ['no-unsafe-write-retry', 'retryIf: (error, _operation) => !!error'],
    ]);
    // Reading the operation is how code keeps mutations out: the write and the filter are then not known.
    expect(findings(`import { RetryLink } from '@apollo/client/link/retry';
      new RetryLink({ attempts: { retryIf: (error, operation) => !!error && !isMutation(operation) } });`)).toEqual([]);
    expect(findings(`import { RetryLink } from '@apollo/client/link/retry';
      new RetryLink({ attempts: (count, operation, error) => count < 3 && operation.operationName === 'Feed' });`)).toEqual([]);
    expect(findings(`import { RetryLink } from '@apollo/client/link/retry';
      new RetryLink({ attempts: { retryIf: (error) => error.statusCode >= 500 && !!error } });`)).toEqual([
      ['no-unsafe-write-retry', 'retryIf: (error) => error.statusCode >= 500 && !!error'],
    ]);
  });

  it('without jitter the first wait is exactly initial and doubles', () => {
    const code = `
      import { RetryLink } from '@apollo/client/link/retry';
      const link = new RetryLink({ delay: { initial: 500, jitter: false }, attempts: { max: 3 } });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ growth: 'exponential', jitter: false, worstCaseMs: 500 + 1000 });
    expect(lint(code)).toContainEqual(expect.objectContaining({ rule: 'require-jitter', text: 'jitter: false' }));
  });

  it('flags too many attempts and an always-true retryIf', () => {
    const code = `
      import { RetryLink as ApolloRetry } from '@apollo/client/link/retry';
      const link = new ApolloRetry({
        delay: { initial: 1000, max: Infinity },
        attempts: { max: 10, retryIf: () => true },
      });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ attempts: 10, filter: 'none', retriesEverything: true });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'max: 10' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', text: 'retryIf: () => true' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-duration' }));
  });

  it('treats an attempts function as an unknown count, and `() => true` as unbounded', () => {
    const sites = analyse(`
      import { RetryLink } from '@apollo/client/link/retry';
      new RetryLink({ attempts: (count, operation, error) => count < 3 && !!error });
      new RetryLink({ attempts: () => true });
    `);
    expect(sites[0]).toMatchObject({ attempts: 'unknown', filter: 'custom' });
    expect(sites[1]).toMatchObject({ attempts: Infinity, retriesEverything: true });
  });

  it('treats a delay function as custom growth with unknown jitter', () => {
    const [site] = analyse(`
      import { RetryLink } from '@apollo/client/link/retry';
      new RetryLink({ delay: (count) => count * 1000 });
    `);
    expect(site).toMatchObject({ growth: 'custom', jitter: 'unknown', worstCaseMs: 'unknown' });
  });

  it('suggests attempts.max in Apollo terms', () => {
    const code = `import { RetryLink } from '@apollo/client/link/retry';\nnew RetryLink({ attempts: { max: 8 } });`;
    const linter = lint(code);
    expect(linter).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'max: 8' }));
  });

  it('ignores a RetryLink that is not imported from Apollo', () => {
    expect(analyse(`class RetryLink {} new RetryLink({ attempts: { max: 50 } });`)).toEqual([]);
  });

  it('suggests attempts.max and delay.jitter in Apollo terms', () => {
    const code = `import { RetryLink } from '@apollo/client/link/retry';\nnew RetryLink({ delay: { initial: 500, jitter: false }, attempts: { max: 8 } });`;
    const applied = suggestions(code);
    expect(applied.find((s) => s.rule === 'max-retry-attempts')?.output).toContain('attempts: { max: 3 }');
    expect(applied.find((s) => s.rule === 'require-jitter')?.output).toContain('delay: { initial: 500, jitter: true }');
  });
});
