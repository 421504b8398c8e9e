// A `let` written in the branches of an `if` is read through the branch the question decides (a
// status asked about), and a wait the server sets on some failures leaves the waits of the others
// as a lower bound of the worst case.
import { describe, expect, it } from 'vitest';
import { lint } from '../helpers/model.js';

const only = { 'safe-retry/max-retry-duration': 'error' };

describe('a let written in branches a status decides', () => {
  const loop = (other: string) => `
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    export async function load(url: string) {
      for (let attempt = 1; attempt <= 4; attempt++) {
        try {
          return await client.get(url);
        } catch (err: any) {
          if (attempt === 4) throw err;
          let wait;
          if (err.response?.status === 429) {
            wait = Number(err.response.headers['retry-after']) * 1000;
          } else {
            wait = ${other};
          }
          await sleep(wait);
        }
      }
    }
  `;

  it('reads the else branch a 5xx or a network error takes', () => {
    // 3, 6, 12 s on a 5xx: at least 21 s.
    expect(lint(loop('1500 * 2 ** attempt'), { rules: only })).toMatchObject([{ messageId: 'knownWaitsTooLong', text: expect.any(String) }]);
  });

  it('gives no lower bound when the other branch is not known either', () => {
    expect(lint(loop('backoff(attempt)'), { rules: only })).toEqual([]);
  });
});

describe('waits known on some failures only', () => {
  const interceptor = (backoff: string, retried = 'response.status >= 500') => `
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    export function retrying(http: any, limit = 5) {
      http.interceptors.response.use((r: any) => r, async (error: any) => {
        const { response, config } = error;
        const tries = config.tries || 1;
        if (tries > limit) return Promise.reject(error);
        let reason = null;
        let seconds = ${backoff};
        if (!response) {
          reason = 'network';
        } else if (${retried}) {
          reason = 'server';
        } else if (response.status === 429) {
          reason = 'throttled';
          seconds = response.headers['x-wait-seconds'];
        }
        if (!reason) return Promise.reject(error);
        seconds = seconds * 1000 + Math.random() * 100;
        config.tries = tries + 1;
        return pause(seconds).then(() => http(config));
      });
    }
  `;

  it('reports the waits of a 5xx when a 429 waits what the server says', () => {
    const found = lint(interceptor('Math.pow(Math.SQRT2, tries)'), { rules: only });
    expect(found).toMatchObject([{ rule: 'max-retry-duration', messageId: 'knownWaitsTooLong' }]);
  });

  it('stays silent when the known waits fit the budget', () => {
    expect(lint(interceptor('0.5'), { rules: only })).toEqual([]);
  });

  it('stays silent when no failure with a known wait goes on (only 429s are retried)', () => {
    expect(lint(interceptor('Math.pow(Math.SQRT2, tries)', 'false'), { rules: only })).toEqual([]);
  });

  it('carries the lower bound to the calls of a helper: a call that sets a higher count owns the finding', () => {
    const found = lint(`
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      export async function withRetry<T>(fn: () => Promise<T>, { retries = 2 } = {}): Promise<T> {
        for (let attempt = 1; ; attempt++) {
          try {
            return await fn();
          } catch (err: any) {
            if (attempt > retries) throw err;
            let wait = 500 * 2 ** attempt;
            if (err.response?.status === 429) wait = Number(err.response.headers['retry-after']) * 1000;
            await sleep(wait);
          }
        }
      }
      export const load = (url: string) => withRetry(() => client.get(url), { retries: 6 });
      export const save = (url: string) => withRetry(() => client.get(url));
    `, { rules: only });
    // 1 + 2 + 4 + 8 + 16 + 32 s at the call that asks for 7 attempts; the defaults' 3 s fit.
    expect(found).toMatchObject([{ messageId: 'knownWaitsTooLong', line: 15, text: 'withRetry' }]);
  });
});
