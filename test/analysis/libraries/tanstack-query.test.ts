import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';

const rules = (findings: { rule: string }[]) => [...new Set(findings.map((f) => f.rule))].sort();

describe('tanstack-query descriptor', () => {
  it('judges a bare QueryClient by the library defaults: 4 calls, 1 + 2 + 4 s, no randomness', () => {
    const code = `
      import { QueryClient } from '@tanstack/react-query';
      export const queryClient = new QueryClient();
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ library: 'tanstack-query', attempts: 4, growth: 'exponential', jitter: false, worstCaseMs: 7000, clientLevel: true });
    expect(rules(lint(code))).toEqual(['max-retry-duration', 'require-jitter']);
  });

  it('reads defaultOptions.queries and .mutations as two sites; mutations retry only when told to', () => {
    const code = `
      import { QueryClient } from '@tanstack/react-query';
      const client = new QueryClient({
        defaultOptions: {
          queries: { staleTime: 1000, retry: 10, retryDelay: (n) => Math.min(1000 * 2 ** n, 30000) },
          mutations: { retry: 4, retryDelay: () => 1000 },
        },
      });
    `;
    const sites = analyse(code);
    expect(sites).toHaveLength(2);
    expect(sites[0]).toMatchObject({ attempts: 11, growth: 'exponential', jitter: false, initialMs: 1000 });
    expect(sites[1]).toMatchObject({ attempts: 5, growth: 'constant', jitter: false, worstCaseMs: 4000 });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', line: 5 }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', line: 6 }));
    expect(analyse(`import { QueryClient } from '@tanstack/react-query'; new QueryClient({ defaultOptions: { mutations: { retryDelay: 1000 }, queries: { retry: false } } });`)).toEqual([]);
  });

  it('stays silent on a compliant client: 3 calls, jittered exponential waits', () => {
    const code = `
      import { QueryClient } from '@tanstack/react-query';
      new QueryClient({ defaultOptions: { queries: { retry: 2, retryDelay: (n) => Math.random() * Math.min(1000 * 2 ** n, 4000) } } });
    `;
    expect(analyse(code)[0]).toMatchObject({ attempts: 3, jitter: true });
    expect(lint(code)).toEqual([]);
  });

  it('reports a retried mutation that posts without a key, and its 4xx', () => {
    const code = `
      import axios from 'axios';
      import { useMutation } from '@tanstack/react-query';
      const save = async (body) => axios.post('/api/orders', body);
      export function useSave() {
        return useMutation({ mutationFn: save, retry: 2 });
      }
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ label: 'useMutation()', attempts: 3, filter: 'none', jitter: false, worstCaseMs: 'unknown' });
    const findings = lint(code);
    expect(rules(findings)).toEqual(['no-retry-on-client-error', 'no-unsafe-write-retry', 'require-jitter']);
  });

  it('does not see a mutation without retry as a retry (mutations default to 0)', () => {
    const code = `
      import axios from 'axios';
      import { useMutation } from '@tanstack/react-query';
      export const useSave = () => useMutation({ mutationFn: (b) => axios.post('/api/orders', b), retryDelay: 1000 });
    `;
    expect(analyse(code)).toEqual([]);
    expect(lint(code)).toEqual([]);
  });

  it('reads the positional v3/v4 forms and a retry function bounded by failureCount', () => {
    const code = `
      import { useQuery } from 'react-query';
      import ky from 'ky';
      export function useProfile(id) {
        return useQuery(['profile', id], () => ky.get('/profile/' + id).json(), {
          retry(failureCount) { return failureCount < 2 },
        });
      }
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ attempts: 3, filter: 'none', growth: 'exponential', jitter: false });
    expect(rules(lint(code))).toContain('require-jitter');
  });

  it('treats a retry function that reads the error as a filter', () => {
    const code = `
      import { useQuery } from '@tanstack/react-query';
      import axios from 'axios';
      useQuery({
        queryKey: ['x'],
        queryFn: () => axios.get('/x'),
        retry: (count, error) => count < 2 && error.response?.status >= 500,
        retryDelay: (n) => Math.random() * 1000 * 2 ** n,
      });
    `;
    expect(analyse(code)[0]).toMatchObject({ attempts: 3, filter: 'custom', jitter: true });
    expect(lint(code)).toEqual([]);
  });

  it('reads tRPC queryClientConfig and counts its 4xx as retried', () => {
    const code = `
      import { createTRPCNext } from '@trpc/next';
      export const trpc = createTRPCNext({
        config() {
          return {
            links: [],
            queryClientConfig: { defaultOptions: { queries: { retry: 3, retryDelay: (i) => Math.min(1000 * 2 ** i, 30000) } } },
          };
        },
      });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ library: 'trpc-query', attempts: 4, retriesEverything: true, worstCaseMs: 7000 });
    expect(rules(lint(code))).toEqual(['max-retry-duration', 'no-retry-on-client-error', 'require-jitter']);
  });

  it('leaves unknown options unknown', () => {
    expect(analyse(`import { useQuery } from '@tanstack/react-query'; useQuery(options);`)).toEqual([]);
    expect(analyse(`import { QueryClient } from '@tanstack/react-query'; new QueryClient(config);`)).toEqual([]);
    const [site] = analyse(`import { useQuery } from '@tanstack/react-query'; useQuery({ queryKey: [], queryFn, retry: policy });`);
    expect(site).toMatchObject({ attempts: 'unknown', filter: 'custom' });
  });
});
