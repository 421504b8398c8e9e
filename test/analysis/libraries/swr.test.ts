import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';

describe('swr descriptor', () => {
  it('reads a custom onErrorRetry in an object typed SWRConfiguration: stop, constant wait, the 4xx it lets through', () => {
    const code = `
      import { SWRConfiguration } from 'swr';
      export const swrConfig: SWRConfiguration = {
        onErrorRetry: (error, key, config, revalidate, { retryCount }) => {
          if (error.status === 404 || retryCount >= 3) return;
          setTimeout(() => revalidate({ retryCount }), 500);
        },
      };
    `;
    const [site] = analyse(code);
    // retryCount is 1 on the first retry: it stops when it reaches 3, so 3 calls.
    expect(site).toMatchObject({ library: 'swr', attempts: 3, growth: 'constant', initialMs: 500, jitter: false, filter: 'statuses', clientErrors: ['4xx other than 404'] });
    const rules = lint(code).map((f) => f.rule).sort();
    expect(rules).toEqual(['no-retry-on-client-error', 'require-exponential-backoff', 'require-jitter']);
  });

  it('skips guards about the key, reads opts.retryCount, and an exponential jittered wait is fine', () => {
    const code = `
      import useSWR from 'swr';
      export function useUser(id) {
        return useSWR('/api/user/' + id, fetcher, {
          onErrorRetry(error, key, config, revalidate, opts) {
            if (key === '/api/me') return;
            if (error.status >= 400 && error.status < 500) return;
            if (opts.retryCount > 2) return;
            setTimeout(revalidate, Math.random() * 250 * 2 ** opts.retryCount, opts);
          },
        });
      }
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ attempts: 3, jitter: true, clientErrors: [] });
    expect(lint(code)).toEqual([]);
  });

  it('a callback that never reads the error leaves the 4xx question to the fetcher (unknown here)', () => {
    const code = `
      import useSWR from 'swr';
      useSWR(key, fetcher, { onErrorRetry: (err, key, config, revalidate, { retryCount }) => {
        if (retryCount >= 10) return;
        setTimeout(() => revalidate({ retryCount }), 5000);
      } });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ attempts: 10, filter: 'none', growth: 'constant' });
    expect(lint(code).map((f) => f.rule).sort()).toEqual(['max-retry-attempts', 'max-retry-duration', 'require-exponential-backoff', 'require-jitter']);
  });

  it('reads errorRetryCount and errorRetryInterval with SWR default callback; shouldRetryOnError: false is no retry', () => {
    const [site] = analyse(`
      import useSWR from 'swr';
      useSWR(key, fetcher, { errorRetryCount: 8, errorRetryInterval: 1000 });
    `);
    // Retries while retryCount <= 8: 9 calls; waits up to 1.5 × 2^n s, jittered.
    expect(site).toMatchObject({ attempts: 9, growth: 'exponential', jitter: true });
    expect(analyse(`import useSWR from 'swr'; useSWR(key, fetcher, { shouldRetryOnError: false, errorRetryCount: 3 });`)).toEqual([]);
    expect(analyse(`import useSWR from 'swr'; useSWR(key, fetcher, { revalidateOnFocus: false });`)).toEqual([]);
  });

  it('takes the longest waits the default callback can draw: its `~~` truncates below 1.5 x 2^n intervals', () => {
    const code = `
      import useSWR from 'swr';
      export const useProfile = () => useSWR('/api/profile', fetcher, { errorRetryCount: 3, errorRetryInterval: 1200 });
    `;
    // retryCount 1, 2, 3: at most 2, 5 and 11 intervals (not 3, 6 and 12): 2.4 + 6 + 13.2 s.
    expect(analyse(code)[0]).toMatchObject({ attempts: 4, worstCaseMs: 21600 });
  });

  it('leaves a callback it cannot read unknown', () => {
    const [site] = analyse(`
      import useSWR from 'swr';
      useSWR(key, fetcher, { onErrorRetry: (err, key, config, revalidate, { retryCount }) => {
        for (const h of handlers) h(err);
        if (policy.allows(err)) setTimeout(() => revalidate({ retryCount }), policy.wait(retryCount));
      } });
    `);
    expect(site).toMatchObject({ attempts: 'unknown', growth: 'unknown', filter: 'custom' });
  });
});
