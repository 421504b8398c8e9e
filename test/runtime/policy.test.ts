import { afterEach, beforeEach, describe, it, expect, vi } from 'vitest';
import {
  CircuitOpenError,
  createCircuitBreaker,
  createRetryBudget,
  createRetryPolicy,
  type GiveUpEvent,
  type RetryEvent,
} from '../../src/runtime/index.js';
import { PaymentGatewayError, drive, httpError, settle, transient, work } from './helpers.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('createRetryPolicy configuration', () => {
  it.each([
    { maxAttempts: 0 },
    { maxAttempts: 6 },
    { maxAttempts: 2.5 },
    { maxAttempts: Infinity },
    { initialDelayMs: 0 },
    { multiplier: 1 },
    { multiplier: 0.5 },
    { maxDelayMs: 100, initialDelayMs: 500 },
    { deadlineMs: 30_001 },
    { deadlineMs: 0 },
    { attemptTimeoutMs: -1 },
    { maxRetryAfterMs: -1 },
    { jitter: 'none' as never },
  ])('rejects %o with RangeError', (options) => {
    expect(() => createRetryPolicy(options)).toThrow(RangeError);
  });

  it('has the guide defaults', () => {
    expect(createRetryPolicy().config).toEqual({
      maxAttempts: 3,
      initialDelayMs: 500,
      multiplier: 2,
      maxDelayMs: 2000,
      jitter: 'full',
      deadlineMs: 5000,
      attemptTimeoutMs: undefined,
      maxRetryAfterMs: 5000,
    });
  });
});

describe('success path', () => {
  it('calls once, returns the value, holds one deadline timer while it runs and none after', async () => {
    const policy = createRetryPolicy({ budget: createRetryBudget(), breaker: createCircuitBreaker() });
    let during = -1;
    const fn = vi.fn(async ({ attempt }: { attempt: number }) => {
      during = vi.getTimerCount();
      return `ok ${attempt}`;
    });
    const start = Date.now();
    await expect(policy.read(fn)).resolves.toBe('ok 1');
    expect(fn).toHaveBeenCalledTimes(1);
    expect(during).toBe(1);
    // Idle slots are disposed of once the current chain of promise reactions is over; no time passes.
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(Date.now()).toBe(start);
  });

  it('gives attempts that stop in the same millisecond one shared signal, created on first read', async () => {
    const policy = createRetryPolicy();
    const seen: AbortSignal[] = [];
    const read = async ({ signal }: { signal: AbortSignal }) => void seen.push(signal);
    await Promise.all([policy.read(read), policy.read(read), policy.read(async () => 1)]);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0]?.aborted).toBe(false);
    // A later millisecond is another deadline, so another signal.
    await vi.advanceTimersByTimeAsync(1);
    await policy.read(read);
    expect(seen[2]).not.toBe(seen[0]);
    // A different caller signal governs different attempts, so they never share with these.
    const caller = new AbortController();
    await policy.read(read, { signal: caller.signal });
    expect(seen[3]).not.toBe(seen[2]);
  });

  it('aborts only the attempts of the caller that aborted, even when they share a millisecond', async () => {
    const policy = createRetryPolicy();
    const a = new AbortController();
    const b = new AbortController();
    const signals: AbortSignal[] = [];
    const hang = ({ signal }: { signal: AbortSignal }) => {
      signals.push(signal);
      return work(signal, 1000, () => 'done');
    };
    const first = settle(policy.read(hang, { signal: a.signal }));
    const second = settle(policy.read(hang, { signal: b.signal }));
    const reason = new Error('a left');
    a.abort(reason);
    expect(await first).toEqual({ ok: false, error: reason });
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[1]?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await second).toEqual({ ok: true, value: 'done' });
  });

  it('clears the timer of a finished call before the next turn of the event loop (real timers)', async () => {
    vi.useRealTimers();
    const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timeouts();
    const policy = createRetryPolicy({ deadlineMs: 30_000 });
    let during = 0;
    await policy.read(({ signal }) => {
      void signal;
      during = timeouts();
      return Promise.resolve(1);
    });
    expect(during).toBe(before + 1);
    // Kept until the promise reactions in progress are over, so a tight loop of calls reuses it.
    await new Promise((resolve) => setImmediate(resolve));
    expect(timeouts()).toBe(before);
  });

  it('accepts synchronous functions', async () => {
    await expect(createRetryPolicy().read(() => 7)).resolves.toBe(7);
  });
});

describe('retrying', () => {
  it('retries transient failures with jittered exponential waits, then succeeds', async () => {
    const retries: RetryEvent[] = [];
    const policy = createRetryPolicy({ random: () => 0.5, onRetry: (e) => retries.push(e) });
    const fn = vi
      .fn<() => Promise<string>>()
      .mockRejectedValueOnce(transient())
      .mockRejectedValueOnce(transient('ETIMEDOUT'))
      .mockResolvedValueOnce('done');
    const result = await drive(policy.read(fn));
    expect(result).toEqual({ ok: true, value: 'done' });
    expect(fn).toHaveBeenCalledTimes(3);
    expect(retries.map((r) => [r.attempt, r.delayMs])).toEqual([
      [1, 250],
      [2, 500],
    ]);
  });

  it('gives up after maxAttempts with the last error instance unchanged', async () => {
    const giveUps: GiveUpEvent[] = [];
    const policy = createRetryPolicy({ maxAttempts: 3, onGiveUp: (e) => giveUps.push(e) });
    const errors = [transient(), transient(), transient()];
    let i = 0;
    const result = await drive(policy.read(async () => Promise.reject(errors[i++])));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toBe(errors[2]);
      expect(result.error).toBeInstanceOf(PaymentGatewayError);
    }
    expect(i).toBe(3);
    expect(giveUps).toEqual([{ kind: 'read', reason: 'attempts', attempts: 3, error: errors[2], idempotencyKey: undefined }]);
  });

  it('never retries a 4xx, not even when retryOn says yes', async () => {
    const giveUps: GiveUpEvent[] = [];
    const retryOn = vi.fn(() => true);
    const policy = createRetryPolicy({ retryOn, onGiveUp: (e) => giveUps.push(e) });
    for (const status of [400, 401, 403, 404, 422]) {
      const fn = vi.fn(async () => Promise.reject(httpError(status)));
      const result = await drive(policy.write({ idempotencyKey: 'k' }, fn));
      expect(result.ok).toBe(false);
      expect(fn).toHaveBeenCalledTimes(1);
    }
    expect(retryOn).not.toHaveBeenCalled();
    expect(giveUps.every((g) => g.reason === 'not-retryable' && g.attempts === 1)).toBe(true);
  });

  it('does not retry unknown errors (any doubt, no retry)', async () => {
    const fn = vi.fn(async () => Promise.reject(new Error('bug')));
    await drive(createRetryPolicy().read(fn));
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('retryOn narrows: a transient failure it rejects is not retried', async () => {
    const giveUps: GiveUpEvent[] = [];
    const policy = createRetryPolicy({ retryOn: (e) => (e as { code?: string }).code !== 'ENOTFOUND', onGiveUp: (e) => giveUps.push(e) });
    const fn = vi.fn(async () => Promise.reject(transient('ENOTFOUND')));
    await drive(policy.read(fn));
    expect(fn).toHaveBeenCalledTimes(1);
    expect(giveUps[0]?.reason).toBe('not-retryable');
  });

  it('treats a retryOn that throws as "do not retry" and rejects with the operation error', async () => {
    const error = transient();
    const fn = vi.fn(async () => Promise.reject(error));
    const policy = createRetryPolicy({
      retryOn: () => {
        throw new Error('predicate bug');
      },
    });
    expect(await drive(policy.read(fn))).toEqual({ ok: false, error });
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('retries 409 for writes only', async () => {
    const policy = createRetryPolicy();
    const write = vi.fn(async () => Promise.reject(httpError(409)));
    const read = vi.fn(async () => Promise.reject(httpError(409)));
    await drive(policy.write({ idempotencyKey: 'k' }, write));
    await drive(policy.read(read));
    expect(write).toHaveBeenCalledTimes(3);
    expect(read).toHaveBeenCalledTimes(1);
  });
});

describe('returned fetch Responses', () => {
  it('retries a returned 503 and resolves with the later ok response, cancelling the discarded body', async () => {
    const cancel = vi.fn(async () => {});
    const bad = { ok: false, status: 503, headers: new Headers(), body: { cancel } };
    const good = new Response('paid');
    const fn = vi.fn<() => Promise<unknown>>().mockResolvedValueOnce(bad).mockResolvedValueOnce(good);
    const result = await drive(createRetryPolicy().read(fn));
    expect(result).toEqual({ ok: true, value: good });
    expect(cancel).toHaveBeenCalledTimes(1);
  });

  it('returns a non-retryable response as is, after one call', async () => {
    const notFound = new Response(null, { status: 404 });
    const fn = vi.fn(async () => notFound);
    await expect(createRetryPolicy().read(fn)).resolves.toBe(notFound);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('resolves with the last failed response when attempts run out', async () => {
    const giveUps: GiveUpEvent[] = [];
    const responses = [502, 503, 504].map((s) => new Response(null, { status: s }));
    let i = 0;
    const result = await drive(createRetryPolicy({ onGiveUp: (e) => giveUps.push(e) }).read(async () => responses[i++]!));
    expect(result).toEqual({ ok: true, value: responses[2] });
    expect(giveUps[0]).toMatchObject({ reason: 'attempts', attempts: 3, error: responses[2] });
  });
});

describe('Retry-After', () => {
  it('waits at least what the server asked, even when the backoff is shorter', async () => {
    const retries: RetryEvent[] = [];
    const policy = createRetryPolicy({ random: () => 0, onRetry: (e) => retries.push(e) });
    const fn = vi
      .fn<() => Promise<string>>()
      .mockRejectedValueOnce(httpError(429, { 'retry-after': '2' }))
      .mockResolvedValueOnce('ok');
    expect(await drive(policy.read(fn))).toEqual({ ok: true, value: 'ok' });
    expect(retries[0]?.delayMs).toBe(2000);
  });

  it('keeps its own backoff when Retry-After is shorter', async () => {
    const retries: RetryEvent[] = [];
    const policy = createRetryPolicy({ random: () => 0.9, onRetry: (e) => retries.push(e) });
    const fn = vi.fn<() => Promise<string>>().mockRejectedValueOnce(httpError(503, { 'retry-after': '0' })).mockResolvedValueOnce('ok');
    await drive(policy.read(fn));
    expect(retries[0]?.delayMs).toBe(450);
  });

  it('gives up at once when Retry-After exceeds maxRetryAfterMs, without sleeping', async () => {
    const giveUps: GiveUpEvent[] = [];
    const policy = createRetryPolicy({ maxRetryAfterMs: 1000, onGiveUp: (e) => giveUps.push(e) });
    const error = httpError(429, { 'retry-after': '30' });
    const start = Date.now();
    const result = await drive(policy.read(async () => Promise.reject(error)));
    expect(result).toEqual({ ok: false, error });
    expect(Date.now() - start).toBe(0);
    expect(giveUps[0]).toMatchObject({ reason: 'retry-after-too-long', attempts: 1 });
  });

  it('gives up at once when honouring Retry-After would pass the deadline', async () => {
    const giveUps: GiveUpEvent[] = [];
    const policy = createRetryPolicy({ deadlineMs: 3000, onGiveUp: (e) => giveUps.push(e) });
    const result = await drive(
      policy.read(({ signal }) => work(signal, 1500, () => Promise.reject(httpError(503, { 'retry-after': '2' })))),
    );
    expect(result.ok).toBe(false);
    expect(giveUps[0]).toMatchObject({ reason: 'retry-after-too-long', attempts: 1 });
  });
});

describe('deadline and attempt timeout', () => {
  it('aborts the attempt signal at the deadline and gives up with reason deadline', async () => {
    const giveUps: GiveUpEvent[] = [];
    const policy = createRetryPolicy({ deadlineMs: 2000, onGiveUp: (e) => giveUps.push(e) });
    const start = Date.now();
    const result = await drive(policy.read(({ signal }) => work(signal, 10_000, () => 'late')));
    expect(result.ok).toBe(false);
    if (!result.ok) expect((result.error as DOMException).name).toBe('TimeoutError');
    expect(Date.now() - start).toBe(2000);
    expect(giveUps[0]).toMatchObject({ reason: 'deadline', attempts: 1 });
  });

  it('gives up when the next wait would pass the deadline', async () => {
    const giveUps: GiveUpEvent[] = [];
    const policy = createRetryPolicy({ deadlineMs: 1000, random: () => 0.99, onGiveUp: (e) => giveUps.push(e) });
    const fn = vi.fn(({ signal }: { signal: AbortSignal }) => work(signal, 700, () => Promise.reject(transient())));
    await drive(policy.read(fn));
    expect(fn).toHaveBeenCalledTimes(1);
    expect(giveUps[0]?.reason).toBe('deadline');
  });

  it('times out a hung attempt with attemptTimeoutMs and retries it', async () => {
    const policy = createRetryPolicy({ attemptTimeoutMs: 1000, random: () => 0 });
    let calls = 0;
    const result = await drive(
      policy.read(({ signal }) => {
        calls++;
        return work(signal, calls === 1 ? 60_000 : 10, () => 'second');
      }),
    );
    expect(result).toEqual({ ok: true, value: 'second' });
    expect(calls).toBe(2);
  });
});

describe('the caller stops waiting at once, whatever the operation does', () => {
  /** An operation that never looks at its signal and settles only after `ms`. */
  function deaf(ms: number, order: string[], value: unknown = 'late') {
    return () =>
      new Promise((resolve) =>
        setTimeout(() => {
          order.push('operation settled');
          resolve(value);
        }, ms),
      );
  }

  /** Deaf from the first attempt, or failing once and deaf on the retry. */
  const cases = [
    { when: 'on the first attempt', failFirst: false, attempts: 1 },
    { when: 'during a retry', failFirst: true, attempts: 2 },
  ];
  function operation(failFirst: boolean, ms: number, order: string[]) {
    let calls = 0;
    const fn = () => {
      calls++;
      return failFirst && calls === 1 ? Promise.reject(transient()) : deaf(ms, order)();
    };
    return { fn, calls: () => calls };
  }
  /** When (in fake time) and in which order the policy's promise settled. */
  function watch(pending: Promise<unknown>, order: string[]) {
    const start = Date.now();
    let at: number | undefined;
    const outcome = settle(
      pending.finally(() => {
        at = Date.now() - start;
        order.push('policy rejected');
      }),
    );
    return { outcome, at: () => at };
  }

  it.each(cases)("rejects with the caller's reason the moment the caller aborts, $when", async ({ failFirst, attempts }) => {
    const order: string[] = [];
    const controller = new AbortController();
    const op = operation(failFirst, 3000, order);
    const watched = watch(createRetryPolicy({ random: () => 0 }).read(op.fn, { signal: controller.signal }), order);
    await vi.advanceTimersByTimeAsync(200);
    expect(op.calls()).toBe(attempts);
    const reason = new Error('user left');
    controller.abort(reason);
    await vi.runAllTimersAsync();
    expect(await watched.outcome).toEqual({ ok: false, error: reason });
    expect(order).toEqual(['policy rejected', 'operation settled']);
    expect(watched.at()).toBe(200);
    expect(op.calls()).toBe(attempts);
  });

  it.each(cases)('rejects with a TimeoutError the moment the deadline passes, $when, giving up with reason deadline', async ({ failFirst, attempts }) => {
    const order: string[] = [];
    const giveUps: GiveUpEvent[] = [];
    const op = operation(failFirst, 10_000, order);
    const policy = createRetryPolicy({ deadlineMs: 2000, random: () => 0, onGiveUp: (e) => giveUps.push(e) });
    const watched = watch(policy.write({ idempotencyKey: 'order-7:capture' }, op.fn), order);
    await vi.runAllTimersAsync();
    const result = await watched.outcome;
    expect(result.ok).toBe(false);
    if (!result.ok) expect((result.error as DOMException).name).toBe('TimeoutError');
    expect(order).toEqual(['policy rejected', 'operation settled']);
    expect(watched.at()).toBe(2000);
    expect(op.calls()).toBe(attempts);
    expect(giveUps).toMatchObject([{ reason: 'deadline', attempts, idempotencyKey: 'order-7:capture' }]);
  });

  it('moves on to the next attempt when an attempt timeout passes, and cancels the abandoned body', async () => {
    const cancel = vi.fn(async () => {});
    let calls = 0;
    const policy = createRetryPolicy({ attemptTimeoutMs: 1000, random: () => 0 });
    const result = await drive(
      policy.read(() => {
        calls++;
        if (calls === 1) {
          return new Promise((resolve) => setTimeout(() => resolve({ ok: true, status: 200, headers: new Headers(), body: { cancel } }), 60_000));
        }
        return 'second';
      }),
    );
    expect(result).toEqual({ ok: true, value: 'second' });
    expect(calls).toBe(2);
    expect(cancel).toHaveBeenCalledTimes(1);
  });

  it('hands off at the deadline like any other give-up', async () => {
    const handoff = vi.fn(async () => ({ taskId: 't-1' }));
    const outcome = drive(createRetryPolicy({ deadlineMs: 1000 }).write({ idempotencyKey: 'k-9', handoff }, deaf(5000, [])));
    const result = await outcome;
    expect(result.ok && (result.value as { taskId: string }).taskId).toBe('t-1');
    expect(handoff).toHaveBeenCalledWith(expect.objectContaining({ idempotencyKey: 'k-9', reason: 'deadline', attempts: 1 }));
  });
});

describe('abort', () => {
  it('interrupts a sleep at once, rejects with signal.reason and makes no further attempt', async () => {
    const controller = new AbortController();
    const policy = createRetryPolicy({ random: () => 0.99, initialDelayMs: 1000, maxDelayMs: 1000 });
    const fn = vi.fn(async () => Promise.reject(transient()));
    const pending = policy.read(fn, { signal: controller.signal });
    const outcome = pending.then(
      () => 'resolved',
      (e: unknown) => e,
    );
    await vi.advanceTimersByTimeAsync(10);
    expect(fn).toHaveBeenCalledTimes(1);
    const reason = new Error('user left');
    controller.abort(reason);
    // No timer needs to fire for the rejection: it happens in the abort event itself.
    expect(await outcome).toBe(reason);
    await vi.runAllTimersAsync();
    expect(fn).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('never retries a failure caused by the caller abort, whatever it looks like', async () => {
    const controller = new AbortController();
    const giveUps: GiveUpEvent[] = [];
    const fn = vi.fn(async () => {
      controller.abort(new Error('cancelled'));
      throw transient('ECONNRESET');
    });
    const result = await drive(createRetryPolicy({ onGiveUp: (e) => giveUps.push(e) }).read(fn, { signal: controller.signal }));
    expect(result.ok).toBe(false);
    if (!result.ok) expect((result.error as Error).message).toBe('cancelled');
    expect(fn).toHaveBeenCalledTimes(1);
    expect(giveUps).toEqual([]);
  });

  it('does not start when already aborted', async () => {
    const fn = vi.fn(async () => 1);
    await expect(createRetryPolicy().read(fn, { signal: AbortSignal.abort(new Error('no')) })).rejects.toThrow('no');
    expect(fn).not.toHaveBeenCalled();
  });

  it('propagates the caller abort into the attempt signal', async () => {
    const controller = new AbortController();
    const pending = settle(
      createRetryPolicy().read(({ signal }) => work(signal, 10_000, () => 1), { signal: controller.signal }),
    );
    await vi.advanceTimersByTimeAsync(5);
    controller.abort(new Error('stop'));
    const result = await pending;
    expect(vi.getTimerCount()).toBe(0);
    expect(result.ok).toBe(false);
    if (!result.ok) expect((result.error as Error).message).toBe('stop');
  });
});

describe('idempotency key', () => {
  it('write without a non-empty key throws synchronously', () => {
    const policy = createRetryPolicy();
    const fn = async (): Promise<number> => 1;
    expect(() => policy.write({ idempotencyKey: '   ' as string }, fn)).toThrow(TypeError);
    expect(() => policy.write({} as never, fn)).toThrow(TypeError);
    expect(() => policy.write(undefined as never, fn)).toThrow(TypeError);
  });

  it('hands the same key to every attempt', async () => {
    const keys: string[] = [];
    const policy = createRetryPolicy();
    await drive(
      policy.write({ idempotencyKey: 'order-1:capture' }, async ({ idempotencyKey }) => {
        keys.push(idempotencyKey);
        throw transient();
      }),
    );
    expect(keys).toEqual(['order-1:capture', 'order-1:capture', 'order-1:capture']);
  });
});

describe('budget and breaker', () => {
  it('gives up with reason budget when the budget is spent', async () => {
    const giveUps: GiveUpEvent[] = [];
    const policy = createRetryPolicy({ budget: createRetryBudget({ ratio: 0, minPerSecond: 0 }), onGiveUp: (e) => giveUps.push(e) });
    const error = transient();
    const fn = vi.fn(async () => Promise.reject(error));
    expect(await drive(policy.read(fn))).toEqual({ ok: false, error });
    expect(fn).toHaveBeenCalledTimes(1);
    expect(giveUps[0]).toMatchObject({ reason: 'budget', attempts: 1 });
  });

  it('rejects with CircuitOpenError without calling when the breaker is open', async () => {
    const breaker = createCircuitBreaker({ minimumThroughput: 1, failureRatio: 1, breakMs: 60_000 });
    breaker.tryAcquire();
    breaker.settle('failure');
    expect(breaker.state).toBe('open');
    const giveUps: GiveUpEvent[] = [];
    const fn = vi.fn(async () => 1);
    const result = await drive(createRetryPolicy({ breaker, onGiveUp: (e) => giveUps.push(e) }).read(fn));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toBeInstanceOf(CircuitOpenError);
    expect(fn).not.toHaveBeenCalled();
    expect(giveUps[0]).toMatchObject({ reason: 'circuit-open', attempts: 0 });
  });

  it('stops retrying without sleeping once the breaker opens, rejecting with the last operation error', async () => {
    const breaker = createCircuitBreaker({ minimumThroughput: 2, failureRatio: 1, breakMs: 60_000 });
    const giveUps: GiveUpEvent[] = [];
    const policy = createRetryPolicy({ breaker, random: () => 0.5, onGiveUp: (e) => giveUps.push(e) });
    const errors = [transient(), transient()];
    let i = 0;
    const start = Date.now();
    const result = await drive(policy.read(async () => Promise.reject(errors[i++])));
    expect(result).toEqual({ ok: false, error: errors[1] });
    expect(i).toBe(2);
    // One wait (before the second attempt), none after the breaker opened.
    expect(Date.now() - start).toBe(250);
    expect(giveUps[0]).toMatchObject({ reason: 'circuit-open', attempts: 2 });
  });

  it('works with a foreign breaker that only has execute(fn)', async () => {
    class BrokenCircuitError extends Error {}
    let open = false;
    const foreign = {
      async execute<T>(fn: () => T | PromiseLike<T>): Promise<T> {
        if (open) throw new BrokenCircuitError('open');
        return fn();
      },
    };
    const policy = createRetryPolicy({ breaker: foreign, random: () => 0 });
    const fn = vi.fn(async () => {
      open = true;
      throw transient();
    });
    const first = await drive(policy.read(fn));
    expect(fn).toHaveBeenCalledTimes(1);
    expect(first.ok === false && first.error).toBeInstanceOf(PaymentGatewayError);
    const second = await drive(policy.read(fn));
    expect(fn).toHaveBeenCalledTimes(1);
    expect(second.ok).toBe(false);
    if (!second.ok) {
      expect(second.error).toBeInstanceOf(CircuitOpenError);
      expect((second.error as Error).cause).toBeInstanceOf(BrokenCircuitError);
    }
  });

  it('counts every attempt in the breaker, not just every call', async () => {
    const breaker = createCircuitBreaker({ minimumThroughput: 3, failureRatio: 1, breakMs: 60_000 });
    await drive(createRetryPolicy({ breaker }).read(async () => Promise.reject(transient())));
    expect(breaker.state).toBe('open');
  });
});

describe('hooks', () => {
  it('ignores hooks that throw', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const policy = createRetryPolicy({
      onRetry: () => {
        throw new Error('metrics down');
      },
      onGiveUp: () => {
        throw new Error('metrics down');
      },
    });
    const fn = vi.fn<() => Promise<string>>().mockRejectedValueOnce(transient()).mockResolvedValueOnce('ok');
    expect(await drive(policy.read(fn))).toEqual({ ok: true, value: 'ok' });
    const error = httpError(400);
    expect(await drive(policy.read(async () => Promise.reject(error)))).toEqual({ ok: false, error });
    warn.mockRestore();
  });
});
