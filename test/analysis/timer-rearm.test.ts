/**
 * Retries written as a timer re-armed from a failure handler: the function re-arms itself (or its
 * attempt) through `setTimeout` only on a failure path, reached through a local closure that
 * schedules it, through a local function it is handed to, or from a named failure callback.
 * Polling and periodic jobs that re-arm on success stay silent.
 */
import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

const handWritten = (code: string) => analyse(code).filter((s) => s.library === 'hand-written');
const rulesOf = (findings: { rule: string }[]) => findings.map((f) => f.rule).sort();

const throughClosure = `
  export function retrier(fn: () => Promise<unknown>, resolve: (v: unknown) => void, reject: (e: unknown) => void) {
    const retry = (retryTime: number, retryCount = 0) => {
      const shouldRetry = retryCount < 9;
      const scheduleRetry = () => {
        setTimeout(() => retry(retryTime * 2, retryCount + 1), retryTime);
      };
      fn().then(resolve).catch((e) => {
        if (shouldRetry) scheduleRetry();
        else reject(e);
      });
    };
    retry(300);
  }
`;

const throughTimerHelper = `
  export function request(send: () => Promise<{ status: number }>, done: (r: unknown) => void) {
    const retryRequest = (requestFn: typeof makeRequest, headers: object, retries: number) => {
      return setTimeout(requestFn, 500, headers, retries + 1);
    };
    const makeRequest = (headers: object, numRetries: number): void => {
      send()
        .then((res) => done(res))
        .catch((error) => {
          if (numRetries < 2) return retryRequest(makeRequest, headers, numRetries);
          return done(error);
        });
    };
    makeRequest({}, 0);
  }
`;

const fromFailureCallback = `
  import { setTimeout } from './timer';
  declare function send(p: unknown, h: { onSuccess: () => void; onFailure: () => void }): void;
  export function scheduleRetry(state: { backoff: number; queue: unknown[] }) {
    setTimeout(() => {
      send(state.queue[0], {
        onSuccess: () => { state.queue.shift(); },
        onFailure: () => {
          state.backoff = Math.min(60000, state.backoff * 2);
          scheduleRetry(state);
        },
      });
    }, state.backoff);
  }
`;

describe('a timer re-armed from a failure handler', () => {
  it('reads a self-call scheduled by a local closure as a recursion', () => {
    const sites = handWritten(throughClosure);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ label: 'recursive retry()', attempts: 10 });
  });

  it('waits where the failure path calls the closure, not where the closure is written (before the call)', () => {
    // 300 ms doubling between the 10 calls: 300 * (2^9 - 1), each wait once.
    expect(handWritten(throughClosure)[0]).toMatchObject({ worstCaseMs: 300 * 511 });
  });

  it('reads a retrier shaped like kafkajs createRetriable: closure state, randomised doubling wait, a bail flag', () => {
    const code = `
      const RETRIES = 5;
      const randomFrom = (t: number) => Math.ceil(t * 0.8 + Math.random() * t * 0.4);
      export const createRetriable = (resolve: (v: unknown) => void, reject: (e: unknown) => void, fn: (bail: () => void) => Promise<unknown>) => {
        let aborted = false;
        const bail = () => { aborted = true; };
        const retry = (retryTime: number, retryCount = 0) => {
          if (aborted) return;
          const nextRetryTime = Math.min(randomFrom(retryTime) * 2, 30000);
          const shouldRetry = retryCount < RETRIES;
          const scheduleRetry = () => {
            setTimeout(() => retry(nextRetryTime, retryCount + 1), retryTime);
          };
          fn(bail).then(resolve).catch((e) => {
            if (shouldRetry) scheduleRetry();
            else reject(e);
          });
        };
        return retry;
      };
    `;
    const sites = handWritten(code);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ label: 'recursive retry()', attempts: 6 });
    expect(rulesOf(lint(code))).toContain('max-retry-attempts');
    expect(rulesOf(lint(code))).not.toContain('require-jitter');
  });

  it('reads a function handed to a local function that re-arms it through setTimeout', () => {
    const sites = handWritten(throughTimerHelper);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ label: 'makeRequest() through retryRequest()', attempts: 3, growth: 'constant' });
  });

  it('reads a self-call from a named failure callback, through an imported setTimeout', () => {
    const sites = handWritten(fromFailureCallback);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ label: 'recursive scheduleRetry()', attempts: Infinity });
    expect(rulesOf(lint(fromFailureCallback))).toContain('max-retry-attempts');
  });

  it('reads a field of the state passed on, doubled on the failure path, as the wait (reset on success ignored)', () => {
    const code = fromFailureCallback.replace('onSuccess: () => { state.queue.shift(); }', 'onSuccess: () => { state.queue.shift(); state.backoff = 1000; }');
    const sites = handWritten(code);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ growth: 'exponential', multiplier: 2, jitter: false });
    const rules = rulesOf(lint(code));
    expect(rules).toContain('require-jitter');
    expect(rules).not.toContain('require-exponential-backoff');
  });

  it('a field written two ways on the way back is a wait not known', () => {
    const code = fromFailureCallback.replace('state.backoff = Math.min(60000, state.backoff * 2);', 'if (state.queue.length > 9) state.backoff = 100; state.backoff = state.backoff * 2;');
    const sites = handWritten(code);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ growth: 'unknown' });
    expect(rulesOf(lint(code))).not.toContain('require-exponential-backoff');
  });

  it('a field doubled on an object passed on as a copy is not read as a constant wait', () => {
    const code = `
      export function send(opts: { delay: number }, n: number): void {
        fetch('/x').catch(() => {
          opts.delay *= 2;
          if (n < 3) setTimeout(() => send({ ...opts }, n + 1), opts.delay);
        });
      }
    `;
    const sites = handWritten(code);
    expect(sites).toHaveLength(1);
    expect(sites[0]!.growth).not.toBe('constant');
    expect(rulesOf(lint(code))).not.toContain('require-exponential-backoff');
  });
});

describe('look-alikes that re-arm on success stay silent', () => {
  it('a periodic job re-armed through a local closure after each run', () => {
    const code = `
      export function poll(fn: () => Promise<unknown>) {
        const tick = (ms: number) => {
          const schedule = () => { setTimeout(() => tick(ms), ms); };
          fn().then(() => schedule()).catch((e) => console.error(e));
        };
        tick(1000);
      }
    `;
    expect(handWritten(code)).toHaveLength(0);
    expect(lint(code)).toEqual([]);
  });

  it('a closure that is also called outside the failure path is not a retry re-arm', () => {
    const code = `
      export function poll(fn: () => Promise<unknown>) {
        const tick = (ms: number) => {
          const schedule = () => { setTimeout(() => tick(ms), ms); };
          fn().then(() => schedule()).catch(() => schedule());
        };
        tick(1000);
      }
    `;
    expect(handWritten(code)).toHaveLength(0);
  });

  it('a function handed to a timer helper on success (polling)', () => {
    const code = `
      export function watch(read: () => Promise<boolean>) {
        const later = (f: typeof check, n: number) => setTimeout(f, 1000, n + 1);
        const check = (n: number): void => {
          read().then((done) => { if (!done) later(check, n); }).catch((e) => console.error(e));
        };
        check(0);
      }
    `;
    expect(handWritten(code)).toHaveLength(0);
    expect(lint(code)).toEqual([]);
  });

  it('a timer helper that re-arms only under its own condition is not read through', () => {
    const code = `
      export function run(send: () => Promise<unknown>) {
        const later = (f: typeof go, n: number) => { if (Math.random() > 0.5) setTimeout(f, 1000, n + 1); };
        const go = (n: number): void => { send().catch(() => later(go, n)); };
        go(0);
      }
    `;
    expect(handWritten(code)).toHaveLength(0);
  });

  it('a success callback that re-arms (a heartbeat) stays silent', () => {
    const code = `
      import { setTimeout } from './timer';
      declare function send(p: unknown, h: { onSuccess: () => void; onFailure: () => void }): void;
      export function heartbeat(state: { ms: number }) {
        setTimeout(() => {
          send('ping', { onSuccess: () => heartbeat(state), onFailure: () => console.warn('down') });
        }, state.ms);
      }
    `;
    expect(handWritten(code)).toHaveLength(0);
    expect(lint(code)).toEqual([]);
  });

  it('a re-arm from both the success and the failure callback is a periodic job', () => {
    const code = `
      import { setTimeout } from './timer';
      declare function send(p: unknown, h: { onSuccess: () => void; onFailure: () => void }): void;
      export function heartbeat(state: { ms: number }) {
        setTimeout(() => {
          send('ping', { onSuccess: () => heartbeat(state), onFailure: () => heartbeat(state) });
        }, state.ms);
      }
    `;
    expect(handWritten(code)).toHaveLength(0);
  });

  it('setTimeout from timers/promises is no callback timer', () => {
    const code = `
      import { setTimeout } from 'timers/promises';
      export async function f(n: number): Promise<void> {
        try { await fetch('/x'); } catch { await setTimeout(100); return f(n); }
      }
    `;
    expect(() => analyse(code)).not.toThrow();
  });
});
