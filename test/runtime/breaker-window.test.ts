import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createCircuitBreaker, enableMetrics } from '../../src/runtime/index.js';

describe('count-based breaker window (windowCalls)', () => {
  it('opens exactly when the last windowCalls outcomes reach the failure ratio with enough calls (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 12 }),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        fc.array(fc.boolean(), { maxLength: 60 }),
        (windowCalls, minimum, failureRatio, outcomes) => {
          const minimumThroughput = Math.min(minimum, windowCalls);
          const breaker = createCircuitBreaker({ windowCalls, minimumThroughput, failureRatio, now: () => 0 });
          const window: boolean[] = [];
          for (const failed of outcomes) {
            if (!breaker.tryAcquire()) break;
            breaker.settle(failed ? 'failure' : 'success');
            window.push(failed);
            if (window.length > windowCalls) window.shift();
            const failures = window.filter(Boolean).length;
            const shouldOpen = failed && window.length >= minimumThroughput && failures >= failureRatio * window.length;
            expect(breaker.state).toBe(shouldOpen ? 'open' : 'closed');
            if (shouldOpen) break;
          }
        },
      ),
    );
  });

  it('refuses a minimum it could never reach, and a window that is not a positive whole number', () => {
    expect(() => createCircuitBreaker({ windowCalls: 5, minimumThroughput: 6 })).toThrow(/could never open/);
    expect(() => createCircuitBreaker({ windowCalls: 0 })).toThrow(RangeError);
    expect(() => createCircuitBreaker({ windowCalls: 2.5 })).toThrow(RangeError);
  });

  it('forgets the window when it closes again after a successful probe', () => {
    let now = 0;
    const breaker = createCircuitBreaker({ windowCalls: 4, minimumThroughput: 2, failureRatio: 0.5, breakMs: 10, now: () => now });
    for (const outcome of ['failure', 'failure'] as const) {
      breaker.tryAcquire();
      breaker.settle(outcome);
    }
    expect(breaker.state).toBe('open');
    now = 10;
    expect(breaker.tryAcquire()).toBe(true);
    breaker.settle('success');
    expect(breaker.state).toBe('closed');
    // One failure after closing is 1 of 1, under the minimum of 2: the old failures are gone.
    breaker.tryAcquire();
    breaker.settle('failure');
    expect(breaker.state).toBe('closed');
  });

  it('the metrics option is checked even without the SDK (a value enableMetrics did not make is refused)', () => {
    expect(() => createCircuitBreaker({ metrics: {} as ReturnType<typeof enableMetrics> })).toThrow(TypeError);
  });
});
