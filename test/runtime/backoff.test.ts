import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { createBackoff, type Jitter } from '../../src/runtime/index.js';

const options = fc.record({
  initialDelayMs: fc.integer({ min: 1, max: 2000 }),
  multiplier: fc.double({ min: 1.01, max: 5, noNaN: true }),
  extra: fc.nat(10_000),
  jitter: fc.constantFrom<Jitter>('full', 'equal', 'decorrelated'),
});

describe('createBackoff', () => {
  it('stays within [0, maxDelayMs] and within the band of each jitter flavour (property)', () => {
    fc.assert(
      fc.property(options, fc.integer({ min: 1, max: 5 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), fc.nat(20_000), (o, retry, r, prev) => {
        const maxDelayMs = o.initialDelayMs + o.extra;
        const backoff = createBackoff({ ...o, maxDelayMs, random: () => r });
        const d = backoff.delay(retry, prev);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(maxDelayMs);
        const ceiling = Math.min(maxDelayMs, o.initialDelayMs * o.multiplier ** (retry - 1));
        if (o.jitter === 'full') expect(d).toBeLessThan(ceiling + 1e-9);
        if (o.jitter === 'equal') {
          expect(d).toBeGreaterThanOrEqual(ceiling / 2 - 1e-9);
          expect(d).toBeLessThan(ceiling + 1e-9);
        }
        if (o.jitter === 'decorrelated') expect(d).toBeGreaterThanOrEqual(Math.min(o.initialDelayMs, maxDelayMs));
      }),
    );
  });

  it('grows exponentially: the ceiling doubles with multiplier 2', () => {
    const backoff = createBackoff({ initialDelayMs: 500, multiplier: 2, maxDelayMs: 10_000, jitter: 'equal', random: () => 0.999999 });
    expect([1, 2, 3, 4].map((n) => Math.round(backoff.delay(n, 0)))).toEqual([500, 1000, 2000, 4000]);
  });

  it('randomized: uniform within +-factor of the exponential ceiling, never above the cap (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2000 }),
        fc.double({ min: 1.01, max: 5, noNaN: true }),
        fc.nat(10_000),
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        fc.integer({ min: 1, max: 5 }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        (initialDelayMs, multiplier, extra, randomizationFactor, retry, r) => {
          const maxDelayMs = initialDelayMs + extra;
          const d = createBackoff({ initialDelayMs, multiplier, maxDelayMs, jitter: 'randomized', randomizationFactor, random: () => r }).delay(retry, 0);
          const ceiling = Math.min(maxDelayMs, initialDelayMs * multiplier ** (retry - 1));
          expect(d).toBeGreaterThanOrEqual(ceiling * (1 - randomizationFactor) - 1e-9);
          expect(d).toBeLessThanOrEqual(Math.min(maxDelayMs, ceiling * (1 + randomizationFactor)) + 1e-9);
        },
      ),
    );
  });

  it('randomized: a factor of 0 (no jitter) or 1, or a factor for another flavour, is refused', () => {
    const base = { initialDelayMs: 500, multiplier: 2, maxDelayMs: 2000 };
    expect(() => createBackoff({ ...base, jitter: 'randomized', randomizationFactor: 0 })).toThrow(RangeError);
    expect(() => createBackoff({ ...base, jitter: 'randomized', randomizationFactor: 1 })).toThrow(RangeError);
    expect(() => createBackoff({ ...base, jitter: 'full', randomizationFactor: 0.5 })).toThrow(/only to jitter 'randomized'/);
  });

  it('cannot express constant, linear or jitter-free backoff', () => {
    expect(() => createBackoff({ initialDelayMs: 500, multiplier: 1, maxDelayMs: 500, jitter: 'full' })).toThrow(RangeError);
    expect(() => createBackoff({ initialDelayMs: 500, multiplier: 2, maxDelayMs: 500, jitter: 'none' as Jitter })).toThrow(RangeError);
  });
});
