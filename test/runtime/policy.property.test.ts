import { afterEach, beforeEach, describe, it, expect, vi } from 'vitest';
import fc from 'fast-check';
import { createRetryPolicy, type RetryPolicyOptions } from '../../src/runtime/index.js';
import { httpError, settle, transient, work } from './helpers.js';

type Outcome =
  | { type: 'ok' }
  | { type: 'transient' }
  | { type: '5xx'; status: number }
  | { type: '4xx'; status: number }
  | { type: 'retry-after'; status: 429 | 503; seconds: number };

const outcome: fc.Arbitrary<Outcome> = fc.oneof(
  fc.constant({ type: 'ok' as const }),
  fc.constant({ type: 'transient' as const }),
  fc.constantFrom(500, 502, 503, 504, 408).map((status) => ({ type: '5xx' as const, status })),
  fc.constantFrom(400, 401, 403, 404, 422).map((status) => ({ type: '4xx' as const, status })),
  fc.record({ type: fc.constant('retry-after' as const), status: fc.constantFrom(429 as const, 503 as const), seconds: fc.nat(8) }),
);

const step = fc.record({ durationMs: fc.nat(4000), outcome });

const config: fc.Arbitrary<RetryPolicyOptions> = fc
  .record({
    maxAttempts: fc.integer({ min: 1, max: 5 }),
    initialDelayMs: fc.integer({ min: 1, max: 1000 }),
    multiplier: fc.double({ min: 1.1, max: 4, noNaN: true }),
    extraDelayMs: fc.nat(3000),
    jitter: fc.constantFrom('full' as const, 'equal' as const, 'decorrelated' as const),
    deadlineMs: fc.integer({ min: 100, max: 30_000 }),
    attemptTimeoutMs: fc.option(fc.integer({ min: 1, max: 5000 }), { nil: undefined }),
    maxRetryAfterMs: fc.option(fc.nat(10_000), { nil: undefined }),
  })
  .map(({ extraDelayMs, ...rest }) => ({ ...rest, maxDelayMs: rest.initialDelayMs + extraDelayMs }));

function fail(o: Outcome): unknown {
  switch (o.type) {
    case 'transient':
      return transient();
    case '5xx':
    case '4xx':
      return httpError(o.status);
    case 'retry-after':
      return httpError(o.status, { 'retry-after': String(o.seconds) });
    case 'ok':
      return undefined;
  }
}

interface Run {
  calls: { attempt: number; key: string | undefined; at: number; afterAbort: boolean }[];
  elapsed: number;
  result: Awaited<ReturnType<typeof settle>>;
  abortedAt: number | undefined;
}

async function run(
  options: RetryPolicyOptions,
  script: { durationMs: number; outcome: Outcome }[],
  randoms: number[],
  kind: 'read' | 'write',
  abortAfterMs: number | undefined,
): Promise<Run> {
  let r = 0;
  const policy = createRetryPolicy({ ...options, random: () => randoms[r++ % randoms.length]! });
  const controller = new AbortController();
  const start = Date.now();
  let abortedAt: number | undefined;
  if (abortAfterMs !== undefined) {
    setTimeout(() => {
      abortedAt = Date.now() - start;
      controller.abort(new Error('caller gave up'));
    }, abortAfterMs);
  }
  const calls: Run['calls'] = [];
  let end = start;
  const attemptFn = (ctx: { attempt: number; signal: AbortSignal; idempotencyKey?: string }): Promise<string> => {
    calls.push({ attempt: ctx.attempt, key: ctx.idempotencyKey, at: Date.now() - start, afterAbort: controller.signal.aborted });
    const s = script[(ctx.attempt - 1) % script.length]!;
    return work(ctx.signal, s.durationMs, () => {
      if (s.outcome.type === 'ok') return 'ok';
      throw fail(s.outcome);
    });
  };
  const promise =
    kind === 'write'
      ? policy.write({ idempotencyKey: 'order-42:capture' }, attemptFn, { signal: controller.signal })
      : policy.read(attemptFn, { signal: controller.signal });
  const settled = settle(promise.finally(() => void (end = Date.now())));
  await vi.runAllTimersAsync();
  const result = await settled;
  return { calls, elapsed: end - start, result, abortedAt };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const scriptArb = fc.array(step, { minLength: 1, maxLength: 6 });
const randomsArb = fc.array(fc.double({ min: 0, max: 0.999999, noNaN: true }), { minLength: 1, maxLength: 8 });
const kindArb = fc.constantFrom('read' as const, 'write' as const);

describe('retry policy invariants (property-based, virtual time)', () => {
  it('never makes more calls than maxAttempts and never runs past the deadline', async () => {
    await fc.assert(
      fc.asyncProperty(config, scriptArb, randomsArb, kindArb, async (options, script, randoms, kind) => {
        const { calls, elapsed } = await run(options, script, randoms, kind, undefined);
        expect(calls.length).toBeGreaterThanOrEqual(1);
        expect(calls.length).toBeLessThanOrEqual(options.maxAttempts!);
        // Fake timers have no slack; 1 ms covers rounding of fractional deadlines.
        expect(elapsed).toBeLessThanOrEqual(options.deadlineMs! + 1);
        expect(calls.map((c) => c.attempt)).toEqual(calls.map((_, i) => i + 1));
      }),
      { numRuns: 300 },
    );
  });

  it('hands the same key to every attempt of a write', async () => {
    await fc.assert(
      fc.asyncProperty(config, scriptArb, randomsArb, async (options, script, randoms) => {
        const { calls } = await run(options, script, randoms, 'write', undefined);
        expect(new Set(calls.map((c) => c.key))).toEqual(new Set(['order-42:capture']));
      }),
      { numRuns: 150 },
    );
  });

  it('calls a 4xx exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(
        config,
        fc.constantFrom(400, 401, 403, 404, 405, 410, 422, 451),
        fc.nat(3000),
        kindArb,
        randomsArb,
        async (options, status, durationMs, kind, randoms) => {
          const script = [{ durationMs, outcome: { type: '4xx' as const, status } }];
          const { calls, result } = await run({ ...options, deadlineMs: 30_000, attemptTimeoutMs: undefined }, script, randoms, kind, undefined);
          expect(calls).toHaveLength(1);
          expect(result.ok).toBe(false);
          if (!result.ok) expect((result.error as { status: number }).status).toBe(status);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('makes no call after the caller aborts, and rejects with the abort reason unless already done', async () => {
    await fc.assert(
      fc.asyncProperty(config, scriptArb, randomsArb, kindArb, fc.nat(8000), async (options, script, randoms, kind, abortAfterMs) => {
        const { calls, result, abortedAt, elapsed } = await run(options, script, randoms, kind, abortAfterMs);
        expect(calls.filter((c) => c.afterAbort)).toEqual([]);
        if (abortedAt !== undefined && abortedAt < elapsed) {
          expect(result.ok).toBe(false);
          if (!result.ok) expect((result.error as Error).message).toBe('caller gave up');
        }
      }),
      { numRuns: 300 },
    );
  });
});
