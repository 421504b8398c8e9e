import { afterEach, beforeEach, describe, it, expect, vi } from 'vitest';
import {
  CircuitOpenError,
  Deferred,
  createCircuitBreaker,
  createRetryBudget,
  createRetryPolicy,
  type GiveUpEvent,
  type Handoff,
  type HandoffContext,
} from '../../src/runtime/index.js';
import { drive, httpError, settle, transient } from './helpers.js';

/** Stands in for the durable queue: records what it was given and returns a task id. */
function fakeQueue(): { handoff: Handoff; calls: HandoffContext[] } {
  const calls: HandoffContext[] = [];
  const handoff: Handoff = async (ctx) => {
    calls.push(ctx);
    return { taskId: `task-${calls.length}` };
  };
  return { handoff, calls };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('handoff to a durable queue', () => {
  it('on running out of attempts, hands off with the same key and resolves with a Deferred', async () => {
    const { handoff, calls } = fakeQueue();
    const keys: string[] = [];
    const error = transient();
    const result = await drive(
      createRetryPolicy().write({ idempotencyKey: 'order-7:charge', handoff }, async ({ idempotencyKey }) => {
        keys.push(idempotencyKey);
        throw error;
      }),
    );
    expect(keys).toEqual(['order-7:charge', 'order-7:charge', 'order-7:charge']);
    expect(calls).toEqual([{ idempotencyKey: 'order-7:charge', reason: 'attempts', error, attempts: 3 }]);
    expect(result.ok).toBe(true);
    const value = result.ok ? result.value : undefined;
    expect(value).toBeInstanceOf(Deferred);
    expect(value).toEqual(new Deferred('task-1', 'attempts', 'order-7:charge', error));
    expect((value as Deferred).deferred).toBe(true);
  });

  it('does not hand off what is not retryable', async () => {
    const { handoff, calls } = fakeQueue();
    const error = httpError(422);
    const result = await drive(createRetryPolicy().write({ idempotencyKey: 'k', handoff }, async () => Promise.reject(error)));
    expect(result).toEqual({ ok: false, error });
    expect(calls).toEqual([]);
  });

  it("does not hand off after the caller's abort", async () => {
    const { handoff, calls } = fakeQueue();
    const controller = new AbortController();
    const pending = settle(
      createRetryPolicy().write({ idempotencyKey: 'k', handoff, signal: controller.signal }, async () => Promise.reject(transient())),
    );
    await vi.advanceTimersByTimeAsync(1);
    controller.abort(new Error('gone'));
    const result = await pending;
    expect(result.ok).toBe(false);
    expect(calls).toEqual([]);
  });

  it('when the handoff fails, rejects with the original error and reports both via onGiveUp', async () => {
    const giveUps: GiveUpEvent[] = [];
    const queueDown = new Error('queue unavailable');
    const handoff: Handoff = async () => Promise.reject(queueDown);
    const error = transient();
    const result = await drive(
      createRetryPolicy({ onGiveUp: (e) => giveUps.push(e) }).write({ idempotencyKey: 'k', handoff }, async () => Promise.reject(error)),
    );
    expect(result).toEqual({ ok: false, error });
    expect(giveUps).toEqual([
      { kind: 'write', reason: 'attempts', attempts: 3, error, idempotencyKey: 'k', handoffError: queueDown },
    ]);
  });

  it('reports the task id via onGiveUp when the handoff succeeds', async () => {
    const giveUps: GiveUpEvent[] = [];
    const { handoff } = fakeQueue();
    await drive(createRetryPolicy({ onGiveUp: (e) => giveUps.push(e) }).write({ idempotencyKey: 'k', handoff }, async () => Promise.reject(transient())));
    expect(giveUps[0]?.taskId).toBe('task-1');
  });

  it('hands off a call an open breaker refused before any attempt', async () => {
    const breaker = createCircuitBreaker({ minimumThroughput: 1, failureRatio: 1, breakMs: 60_000 });
    breaker.tryAcquire();
    breaker.settle('failure');
    const { handoff, calls } = fakeQueue();
    const fn = vi.fn(async () => 'never');
    const result = await drive(createRetryPolicy({ breaker }).write({ idempotencyKey: 'k', handoff }, fn));
    expect(fn).not.toHaveBeenCalled();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ idempotencyKey: 'k', reason: 'circuit-open', attempts: 0 });
    expect(calls[0]?.error).toBeInstanceOf(CircuitOpenError);
    expect(result.ok && result.value).toBeInstanceOf(Deferred);
  });

  it.each([
    ['budget', { budget: createRetryBudget({ ratio: 0, minPerSecond: 0 }) }, () => transient()],
    ['retry-after-too-long', { maxRetryAfterMs: 1000 }, () => httpError(429, { 'retry-after': '60' })],
    ['deadline', { deadlineMs: 100, initialDelayMs: 200, maxDelayMs: 200, jitter: 'equal' as const }, () => transient()],
  ] as const)('hands off on reason %s', async (reason, options, makeError) => {
    const { handoff, calls } = fakeQueue();
    const result = await drive(createRetryPolicy(options).write({ idempotencyKey: 'k', handoff }, async () => Promise.reject(makeError())));
    expect(calls.map((c) => c.reason)).toEqual([reason]);
    expect(result.ok && result.value).toBeInstanceOf(Deferred);
  });

  it('supports reads too, with no key', async () => {
    const { handoff, calls } = fakeQueue();
    const result = await drive(createRetryPolicy().read(async () => Promise.reject(transient()), { handoff }));
    expect(calls[0]?.idempotencyKey).toBeUndefined();
    expect(result.ok && result.value).toBeInstanceOf(Deferred);
  });

  it('passes a successful result through untouched', async () => {
    const { handoff, calls } = fakeQueue();
    await expect(createRetryPolicy().write({ idempotencyKey: 'k', handoff }, async () => 'paid')).resolves.toBe('paid');
    expect(calls).toEqual([]);
  });
});
