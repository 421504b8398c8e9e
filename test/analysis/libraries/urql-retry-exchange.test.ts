import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import { suggestions } from './suggest.js';

describe('urql-retry-exchange descriptor', () => {
  it('reads the defaults: 2 attempts including the first, random growth from 1 s capped at 15 s', () => {
    const code = `
      import { Client, cacheExchange, fetchExchange } from 'urql';
      import { retryExchange } from '@urql/exchange-retry';
      export const client = new Client({ url, exchanges: [cacheExchange, retryExchange({}), fetchExchange] });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({
      library: 'urql-retry-exchange', label: 'retryExchange()', attempts: 2, growth: 'exponential', initialMs: 1000,
      maxMs: 15000, jitter: true, filter: 'library-default', clientLevel: true, worstCaseMs: 2500,
      clientErrors: ['4xx without a GraphQL body'],
    });
    // The defaults retry every operation kind on network errors, which a non-GraphQL 4xx body is.
    expect(lint(code).map((f) => [f.rule, f.text])).toEqual([
      ['no-retry-on-client-error', 'retryExchange'],
      ['no-unsafe-write-retry', 'retryExchange'],
    ]);
  });

  it('counts maxNumberAttempts as total attempts (fine config in a const)', () => {
    const code = `
      const { retryExchange } = require('@urql/exchange-retry');
      const options = {
        initialDelayMs: 500,
        maxDelayMs: 4000,
        maxNumberAttempts: 3,
        retryIf: (err, operation) => operation.kind !== 'mutation' && !!(err && err.networkError),
      };
      module.exports = retryExchange(options);
    `;
    const [site] = analyse(code, { js: true });
    // ceilings: 500 × 2.5 = 1250, then min(500 × 6.25, 4000) = 3125
    expect(site).toMatchObject({ attempts: 3, attemptsAt: 'maxNumberAttempts: 3', filter: 'custom', worstCaseMs: 1250 + 3125 });
    expect(lint(code, { js: true })).toEqual([]);
  });

  it('retries mutations unless retryIf reads the operation; retryWith is left unknown', () => {
    const writes = (code: string) => lint(code).filter((f) => f.rule === 'no-unsafe-write-retry').map((f) => f.text);
    expect(writes(`import { retryExchange } from '@urql/exchange-retry';
      retryExchange({ retryIf: (error) => !!error.networkError });`)).toEqual(['retryIf: (error) => !!error.networkError']);
    expect(writes(`import { retryExchange } from '@urql/exchange-retry';
      retryExchange({ retryIf: (error, op) => op.kind === 'query' && !!error.networkError });`)).toEqual([]);
    expect(writes(`import { retryExchange } from '@urql/exchange-retry';
      retryExchange({ retryWith: (error, op) => (error.networkError ? op : null) });`)).toEqual([]);
    expect(writes(`import { retryExchange } from '@urql/exchange-retry';
      retryExchange(options);`)).toEqual([]);
  });

  it('reads a retryIf true for any error as retrying every failure', () => {
    const [site] = analyse(`import { retryExchange } from '@urql/exchange-retry';
      retryExchange({ retryIf: function (err) { return !!err; } });`);
    expect(site).toMatchObject({ filter: 'none', retriesEverything: true });
  });

  it('without randomDelay the wait grows linearly (bad)', () => {
    const code = `
      import { retryExchange as retry } from '@urql/exchange-retry';
      const exchanges = [retry({ randomDelay: false, maxNumberAttempts: 4 })];
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ growth: 'linear', jitter: false, attempts: 4, worstCaseMs: 1000 + 2000 + 3000 });
    expect(lint(code)).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', text: 'randomDelay: false' }));
  });

  it('flags too many attempts and a retryIf that lets everything through (bad)', () => {
    const code = `
      import { retryExchange } from '@urql/exchange-retry';
      const retry = retryExchange({ maxNumberAttempts: 10, retryIf: () => true });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ attempts: 10, retriesEverything: true });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'maxNumberAttempts: 10' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', text: 'retryIf: () => true' }));
  });

  it('reads numeric options with || semantics: 0 means the default', () => {
    const [site] = analyse(`import { retryExchange } from '@urql/exchange-retry'; retryExchange({ maxNumberAttempts: 0, initialDelayMs: 0 });`);
    expect(site).toMatchObject({ attempts: 2, initialMs: 1000 });
  });

  it('treats retryWith as a filter and unknown options as unknown', () => {
    const sites = analyse(`
      import { retryExchange } from '@urql/exchange-retry';
      retryExchange({ retryWith: (error, op) => (error.networkError ? op : null) });
      retryExchange({ ...shared, maxNumberAttempts: 3 });
    `);
    expect(sites[0]).toMatchObject({ filter: 'custom' });
    expect(sites[1]).toMatchObject({ attempts: 3, jitter: 'unknown', growth: 'unknown' });
  });

  it('suggests maxNumberAttempts and randomDelay in urql terms', () => {
    const code = `import { retryExchange } from '@urql/exchange-retry';\nretryExchange({ randomDelay: false, maxNumberAttempts: 9 });`;
    const applied = suggestions(code);
    expect(applied.find((s) => s.rule === 'max-retry-attempts')?.output).toContain('maxNumberAttempts: 3 }');
    expect(applied.find((s) => s.rule === 'require-exponential-backoff')?.output).toContain('randomDelay: true,');
  });
});
