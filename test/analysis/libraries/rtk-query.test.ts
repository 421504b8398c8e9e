import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';

const rules = (findings: { rule: string }[]) => [...new Set(findings.map((f) => f.rule))].sort();

describe('rtk-query descriptor', () => {
  it('reads the defaults: 6 calls, jittered exponential waits up to 13.4 s, 4xx of fetchBaseQuery retried', () => {
    const code = `
      import { fetchBaseQuery, retry } from '@reduxjs/toolkit/query/react';
      export const baseQuery = retry(fetchBaseQuery({ baseUrl: '/api' }));
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ library: 'rtk-query', attempts: 6, growth: 'exponential', jitter: true, retriesEverything: true });
    expect(site!.worstCaseMs).toBe(840 + 1680 + 3360 + 6720 + 13440);
    expect(rules(lint(code))).toEqual(['max-retry-attempts', 'max-retry-duration', 'no-retry-on-client-error']);
  });

  it('is silent on a compliant enhancer: 3 calls and a condition', () => {
    const code = `
      import { fetchBaseQuery, retry } from '@reduxjs/toolkit/query';
      const base = fetchBaseQuery({ baseUrl: '/api' });
      export const baseQuery = retry(base, { maxRetries: 2 });
      export const filtered = retry(base, { retryCondition: (error, args, { attempt }) => attempt <= 2 && error.status >= 500 });
    `;
    const sites = analyse(code);
    expect(sites[0]).toMatchObject({ attempts: 3, retriesEverything: true, worstCaseMs: 840 + 1680 });
    expect(sites[1]).toMatchObject({ attempts: 3, filter: 'custom' });
    expect(rules(lint(code))).toEqual(['no-retry-on-client-error']);
    expect(lint(code).filter((f) => f.rule === 'no-retry-on-client-error')).toHaveLength(1);
  });

  it('reads the attempt bound of retryCondition and a constant backoff', () => {
    const code = `
      import { fetchBaseQuery, retry } from '@reduxjs/toolkit/query';
      export const staggered = retry(fetchBaseQuery({}), {
        retryCondition: (error, _args, { attempt }) => error.status === 500 && attempt <= 5,
        backoff: () => new Promise((res) => { setTimeout(res, 50) }),
      });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ attempts: 6, growth: 'constant', initialMs: 50, jitter: false, filter: 'custom' });
    expect(rules(lint(code))).toEqual(['max-retry-attempts', 'require-exponential-backoff', 'require-jitter']);
  });

  it('leaves what it cannot read unknown', () => {
    const [site] = analyse(`import { retry } from '@reduxjs/toolkit/query'; retry(base, { retryCondition: shouldRetry, backoff: myBackoff });`);
    expect(site).toMatchObject({ attempts: 'unknown', growth: 'unknown', filter: 'custom' });
    expect(analyse(`import { retry } from '@reduxjs/toolkit/query'; retry(base, opts);`)).toEqual([]);
  });
});
