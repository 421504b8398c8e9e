import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { CircuitOpenError, createCircuitBreaker, createRetryBudget, type BreakerState } from '../../src/runtime/index.js';

function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 1_000_000;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('createRetryBudget', () => {
  it('allows the floor plus ratio x recent requests, then refuses', () => {
    const c = clock();
    const budget = createRetryBudget({ ratio: 0.1, minPerSecond: 1, windowMs: 10_000, now: c.now });
    for (let i = 0; i < 100; i++) budget.recordRequest();
    expect(budget.available()).toBe(20);
    let granted = 0;
    while (budget.tryRetry()) granted++;
    expect(granted).toBe(20);
  });

  it('forgets requests and retries older than the window', () => {
    const c = clock();
    const budget = createRetryBudget({ ratio: 0.5, minPerSecond: 0, windowMs: 1000, now: c.now });
    for (let i = 0; i < 10; i++) budget.recordRequest();
    while (budget.tryRetry());
    expect(budget.available()).toBe(0);
    c.advance(1000);
    expect(budget.available()).toBe(0);
    for (let i = 0; i < 10; i++) budget.recordRequest();
    expect(budget.available()).toBe(5);
  });

  it('grants a retry only while the window holds at most ratio x requests + floor x window (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ dt: fc.integer({ min: 0, max: 3000 }), requests: fc.nat(20), retries: fc.nat(20) }), { maxLength: 60 }),
        (steps) => {
          const c = clock();
          const windowMs = 5000;
          const budget = createRetryBudget({ ratio: 0.1, minPerSecond: 2, windowMs, now: c.now });
          const log: { t: number; kind: 'req' | 'retry' }[] = [];
          for (const step of steps) {
            c.advance(step.dt);
            for (let i = 0; i < step.requests; i++) {
              budget.recordRequest();
              log.push({ t: c.now(), kind: 'req' });
            }
            for (let i = 0; i < step.retries; i++) {
              if (!budget.tryRetry()) continue;
              log.push({ t: c.now(), kind: 'retry' });
              // At the moment a retry is granted, the window (a ring of 10 clock-aligned slots)
              // must hold no more retries than ratio x requests + floor x window.
              const slotMs = windowMs / 10;
              const current = Math.floor(c.now() / slotMs);
              const recent = log.filter((e) => Math.floor(e.t / slotMs) > current - 10);
              const req = recent.filter((e) => e.kind === 'req').length;
              const ret = recent.filter((e) => e.kind === 'retry').length;
              expect(ret).toBeLessThanOrEqual(0.1 * req + 2 * (windowMs / 1000) + 1e-9);
            }
          }
        },
      ),
    );
  });

  it('validates options', () => {
    expect(() => createRetryBudget({ ratio: 2 })).toThrow(RangeError);
    expect(() => createRetryBudget({ minPerSecond: -1 })).toThrow(RangeError);
    expect(() => createRetryBudget({ windowMs: 10 })).toThrow(RangeError);
  });
});

describe('createCircuitBreaker', () => {
  it('opens at the failure ratio once throughput is reached, then half-opens and closes on a probe', async () => {
    const c = clock();
    const states: BreakerState[] = [];
    const breaker = createCircuitBreaker({ failureRatio: 0.5, minimumThroughput: 4, breakMs: 1000, now: c.now, onStateChange: (s) => states.push(s) });
    for (const outcome of ['success', 'failure', 'success'] as const) {
      expect(breaker.tryAcquire()).toBe(true);
      breaker.settle(outcome);
    }
    expect(breaker.state).toBe('closed');
    breaker.tryAcquire();
    breaker.settle('failure');
    expect(breaker.state).toBe('open');
    expect(breaker.tryAcquire()).toBe(false);
    expect(breaker.isOpenFor(500)).toBe(true);
    expect(breaker.isOpenFor(1000)).toBe(false);
    c.advance(1000);
    expect(breaker.state).toBe('half-open');
    expect(breaker.tryAcquire()).toBe(true);
    // Only one probe at a time.
    expect(breaker.tryAcquire()).toBe(false);
    breaker.settle('success');
    expect(breaker.state).toBe('closed');
    expect(states).toEqual(['open', 'half-open', 'closed']);
  });

  it('reopens when the probe fails', () => {
    const c = clock();
    const breaker = createCircuitBreaker({ failureRatio: 1, minimumThroughput: 1, breakMs: 1000, now: c.now });
    breaker.tryAcquire();
    breaker.settle('failure');
    c.advance(1000);
    expect(breaker.tryAcquire()).toBe(true);
    breaker.settle('failure');
    expect(breaker.state).toBe('open');
    expect(breaker.tryAcquire()).toBe(false);
  });

  it('ignores neutral outcomes and forgets old samples', () => {
    const c = clock();
    const breaker = createCircuitBreaker({ failureRatio: 0.5, minimumThroughput: 2, samplingMs: 1000, now: c.now });
    breaker.settle('failure');
    c.advance(1000);
    breaker.settle('neutral');
    breaker.settle('failure');
    expect(breaker.state).toBe('closed');
  });

  it('execute() classifies errors: 4xx is a healthy answer, 5xx and unknown errors are failures', async () => {
    // 0.6: one failure in two stays closed, two in three opens, so the unknown error must count.
    const breaker = createCircuitBreaker({ failureRatio: 0.6, minimumThroughput: 2 });
    await expect(breaker.execute(() => Promise.reject(Object.assign(new Error('nf'), { status: 404 })))).rejects.toThrow('nf');
    await expect(breaker.execute(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(breaker.state).toBe('closed');
    await expect(breaker.execute(() => Promise.reject(Object.assign(new Error('down'), { status: 503 })))).rejects.toThrow('down');
    expect(breaker.state).toBe('open');
    await expect(breaker.execute(() => 1)).rejects.toBeInstanceOf(CircuitOpenError);
  });

  it('validates options', () => {
    expect(() => createCircuitBreaker({ failureRatio: 0 })).toThrow(RangeError);
    expect(() => createCircuitBreaker({ minimumThroughput: 0 })).toThrow(RangeError);
    expect(() => createCircuitBreaker({ breakMs: 0 })).toThrow(RangeError);
    expect(() => createCircuitBreaker({ halfOpenProbes: 0 })).toThrow(RangeError);
  });
});
