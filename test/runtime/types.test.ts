import { describe, it, expect, expectTypeOf } from 'vitest';
import { createRetryPolicy, Deferred, type Handoff } from '../../src/runtime/index.js';

// These checks run in `npm run typecheck`: each @ts-expect-error fails the build if the line compiles.
describe('write() types', () => {
  const policy = createRetryPolicy();
  const fn = async (): Promise<number> => 1;
  const handoff: Handoff = async () => ({ taskId: 't' });

  it('does not compile without a non-empty idempotency key', () => {
    const compileOnly = (key: string): void => {
      // @ts-expect-error idempotencyKey is required
      void policy.write({}, fn);
      // @ts-expect-error an empty key literal is rejected
      void policy.write({ idempotencyKey: '' }, fn);
      // @ts-expect-error the options with the key come first
      void policy.write(fn);
      // @ts-expect-error a key must be a string
      void policy.write({ idempotencyKey: 42 }, fn);
      // A runtime string is accepted by the types and checked when called.
      void policy.write({ idempotencyKey: key }, fn);
    };
    expect(typeof compileOnly).toBe('function');
  });

  it('gives write attempts the key and keeps it out of read contexts', () => {
    const compileOnly = (): void => {
      void policy.write({ idempotencyKey: 'k' }, ({ idempotencyKey, attempt, signal }) => {
        expectTypeOf(idempotencyKey).toEqualTypeOf<string>();
        expectTypeOf(attempt).toEqualTypeOf<number>();
        expectTypeOf(signal).toEqualTypeOf<AbortSignal>();
        return 1;
      });
      void policy.read((ctx) => {
        // @ts-expect-error reads carry no key
        return ctx.idempotencyKey;
      });
    };
    expect(typeof compileOnly).toBe('function');
  });

  it('returns T without a handoff and T | Deferred with one', () => {
    const compileOnly = (): void => {
      expectTypeOf(policy.read(fn)).toEqualTypeOf<Promise<number>>();
      expectTypeOf(policy.read(fn, { handoff })).toEqualTypeOf<Promise<number | Deferred>>();
      expectTypeOf(policy.write({ idempotencyKey: 'k' }, fn)).toEqualTypeOf<Promise<number>>();
      expectTypeOf(policy.write({ idempotencyKey: 'k', handoff }, fn)).toEqualTypeOf<Promise<number | Deferred>>();
      const maybe: Handoff | undefined = undefined as Handoff | undefined;
      expectTypeOf(policy.write({ idempotencyKey: 'k', handoff: maybe }, fn)).toEqualTypeOf<Promise<number | Deferred>>();
    };
    expect(typeof compileOnly).toBe('function');
  });
});
