/** Normalisation helpers shared by the library descriptors: attempts, delay schedules. */
import { UNKNOWN, isKnown, type Maybe } from './static-value.js';
import type { DelaySchedule, Growth, Node, Setting } from './model.js';

/** Converts a count of retries or attempts into total attempts (the first call included). */
export function totalAttempts(setting: Setting<number | undefined>, counts: 'retries' | 'attempts'): Setting<number> {
  const v = setting.value;
  if (!isKnown(v) || v === undefined || Number.isNaN(v)) return { value: UNKNOWN, node: setting.node };
  if (counts === 'attempts') return { value: Math.max(1, v), node: setting.node };
  return { value: v <= 0 ? 1 : v + 1, node: setting.node };
}

export function attemptsOf(value: Maybe<number>, node?: Node): Setting<number> {
  return { value, node };
}

export interface ScheduleParts {
  growth: Maybe<Growth>;
  initialMs: Maybe<number>;
  multiplier?: Maybe<number>;
  maxMs?: Maybe<number>;
  /** Upper bound of random inflation on top of the base delay (2 for p-retry's randomize). */
  jitterFactor?: Maybe<number>;
  /** Fixed random addition, in ms (got's `noise`). */
  jitterAddMs?: Maybe<number>;
  /** node-retry applies the random factor before the cap; most libraries cap first. */
  capAfterJitter?: boolean;
  node?: Node | undefined;
}

/** initial × multiplier^(n−1), capped, inflated by jitter: the classic schedule. */
export function geometricSchedule(parts: ScheduleParts): DelaySchedule {
  const { growth, initialMs, node } = parts;
  const multiplier = parts.multiplier ?? (growth === 'constant' ? 1 : UNKNOWN);
  const maxMs = parts.maxMs ?? Infinity;
  const jitterFactor = parts.jitterFactor ?? 1;
  const jitterAddMs = parts.jitterAddMs ?? 0;
  return {
    growth,
    initialMs,
    multiplier,
    maxMs,
    node,
    upperBound(n) {
      if (growth === 'none') return 0;
      if (!isKnown(initialMs) || !isKnown(maxMs) || !isKnown(jitterFactor) || !isKnown(jitterAddMs)) return UNKNOWN;
      let base: number;
      if (growth === 'linear') base = initialMs * n;
      else if (growth === 'constant') base = initialMs;
      else if (growth === 'exponential') {
        if (!isKnown(multiplier)) return UNKNOWN;
        base = initialMs * multiplier ** (n - 1);
      } else return UNKNOWN;
      if (parts.capAfterJitter) return Math.min(base * jitterFactor, maxMs) + jitterAddMs;
      return Math.min(base, maxMs) * jitterFactor + jitterAddMs;
    },
  };
}

/** A schedule given as explicit per-retry upper bounds. */
export function customSchedule(
  growth: Maybe<Growth>,
  bound: (n: number) => Maybe<number>,
  extra: Partial<Pick<DelaySchedule, 'initialMs' | 'multiplier' | 'maxMs'>> & { node?: Node | undefined } = {},
): DelaySchedule {
  return {
    growth,
    initialMs: extra.initialMs ?? UNKNOWN,
    multiplier: extra.multiplier ?? UNKNOWN,
    maxMs: extra.maxMs ?? UNKNOWN,
    node: extra.node,
    upperBound: bound,
  };
}

export const NO_DELAY: DelaySchedule = geometricSchedule({ growth: 'none', initialMs: 0, multiplier: 1, maxMs: 0 });

export const UNKNOWN_SCHEDULE: DelaySchedule = customSchedule(UNKNOWN, () => UNKNOWN);

/** Growth kind of `initial × factor^n`: a factor of 1 (or less) is constant backoff. */
export function growthOfFactor(factor: Maybe<number>, initialMs: Maybe<number>): Maybe<Growth> {
  if (isKnown(initialMs) && initialMs <= 0) return 'none';
  if (!isKnown(factor)) return UNKNOWN;
  return factor > 1 ? 'exponential' : 'constant';
}

/**
 * Worst-case total in-memory time: every wait at its upper bound plus, where known, every
 * attempt running to its timeout, clipped by an overall deadline.
 */
export function worstCaseDurationMs(
  attempts: Maybe<number>,
  delay: DelaySchedule,
  attemptTimeoutMs: Maybe<number | undefined>,
  deadlineMs: Maybe<number | undefined>,
): Maybe<number> {
  if (isKnown(deadlineMs) && deadlineMs !== undefined && deadlineMs > 0) {
    const unbounded = computeTotal(attempts, delay, attemptTimeoutMs);
    return isKnown(unbounded) ? Math.min(unbounded, deadlineMs) : deadlineMs;
  }
  return computeTotal(attempts, delay, attemptTimeoutMs);
}

function computeTotal(attempts: Maybe<number>, delay: DelaySchedule, attemptTimeoutMs: Maybe<number | undefined>): Maybe<number> {
  if (!isKnown(attempts)) return UNKNOWN;
  if (attempts === Infinity) return delay.growth === 'none' ? UNKNOWN : Infinity;
  let total = 0;
  for (let n = 1; n < attempts && n <= 1000; n++) {
    const wait = delay.upperBound(n);
    if (!isKnown(wait)) return UNKNOWN;
    total += wait;
    if (total === Infinity) return Infinity;
  }
  if (isKnown(attemptTimeoutMs) && attemptTimeoutMs !== undefined && attemptTimeoutMs > 0) total += attemptTimeoutMs * attempts;
  return total;
}
