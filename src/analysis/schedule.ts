/** Normalisation helpers shared by the library descriptors: attempts, delay schedules. */
import { UNKNOWN, isKnown, type Maybe } from './eval/values.js';
import type { DelaySchedule, Growth, Node, RetrySite, Setting } from './model.js';

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
  // A deadline written but not known may cut any total short: the worst case is unknown.
  if (deadlineMs === UNKNOWN) return UNKNOWN;
  if (isKnown(deadlineMs) && deadlineMs !== undefined && deadlineMs > 0) {
    const unbounded = computeTotal(attempts, delay, attemptTimeoutMs);
    return isKnown(unbounded) ? Math.min(unbounded, deadlineMs) : deadlineMs;
  }
  return computeTotal(attempts, delay, attemptTimeoutMs);
}

/**
 * What the per-attempt timeouts alone add up to, where the waits are not known: each attempt may
 * run that long before it fails (clipped by an overall deadline). A lower bound of the worst case,
 * never a guess above it; UNKNOWN without a known count and timeout.
 */
export function attemptTimeoutsMs(attempts: Maybe<number>, attemptTimeoutMs: Maybe<number | undefined>, deadlineMs: Maybe<number | undefined>): Maybe<number> {
  if (!isKnown(attempts) || attempts === Infinity || !isKnown(attemptTimeoutMs) || attemptTimeoutMs === undefined || attemptTimeoutMs <= 0) return UNKNOWN;
  const total = attempts * attemptTimeoutMs;
  if (!isKnown(deadlineMs)) return UNKNOWN;
  return deadlineMs !== undefined && deadlineMs > 0 ? Math.min(total, deadlineMs) : total;
}

/**
 * A lower bound of the worst case where it is not known because some failures' waits are not
 * (`DelaySchedule.leastWorst`): the waits of the failures whose waits are known, plus the known
 * per-attempt timeouts, clipped by a known deadline. UNKNOWN without such waits for every retry.
 */
export function leastWorstCaseMs(attempts: Maybe<number>, delay: DelaySchedule, attemptTimeoutMs: Maybe<number | undefined>, deadlineMs: Maybe<number | undefined>): Maybe<number> {
  if (!delay.leastWorst || !isKnown(attempts) || attempts === Infinity || attempts > 1000 || !isKnown(deadlineMs)) return UNKNOWN;
  let total = 0;
  for (let n = 1; n < attempts; n++) {
    const wait = delay.leastWorst(n);
    if (!isKnown(wait)) return UNKNOWN;
    total += wait;
  }
  if (isKnown(attemptTimeoutMs) && attemptTimeoutMs !== undefined && attemptTimeoutMs > 0) total += attemptTimeoutMs * attempts;
  return deadlineMs !== undefined && deadlineMs > 0 ? Math.min(total, deadlineMs) : total;
}

/** A site's worst case, counting the retries of the layers it repeats; see `worstCaseWithLayers`. */
export interface LayeredWorstCase {
  readonly totalMs: Maybe<number>;
  /** The longest total of one inner retry layer's waits, when it lengthens each attempt. */
  readonly inner?: { readonly site: RetrySite; readonly ms: number } | undefined;
}

/**
 * Worst-case total in-memory time of a site whose attempts each run another retry layer
 * (`for` twice around a helper that itself tries three times with 2 s waits): an attempt of the
 * outer site fails only once the inner layer has given up, so each one sleeps through all the
 * inner layer's waits (clipped by its own deadline), counted per attempt as a known attempt
 * timeout would be. The inner layer's attempt timeouts are left to its own site, where they are
 * judged (an inner layer over budget is reported there, not once more around it). A per-attempt
 * timeout of the outer site bounds an attempt already, and the outer deadline still clips the
 * total. Inner layers whose waits are unknown add nothing: a lower bound, never a guess above it.
 */
export function worstCaseWithLayers(site: RetrySite, inner: readonly RetrySite[]): LayeredWorstCase {
  const own = worstCaseDurationMs(site.attempts.value, site.delay, site.attemptTimeoutMs.value, site.deadlineMs.value);
  const timeout = site.attemptTimeoutMs.value;
  if (inner.length === 0 || (isKnown(timeout) && timeout !== undefined && timeout > 0)) return { totalMs: own };
  let longest: { site: RetrySite; ms: number } | undefined;
  for (const layer of inner) {
    if (layer === site || layer.kind === 'durable') continue;
    const ms = worstCaseDurationMs(layer.attempts.value, layer.delay, undefined, layer.deadlineMs.value);
    if (isKnown(ms) && ms > 0 && ms !== Infinity && (!longest || ms > longest.ms)) longest = { site: layer, ms };
  }
  if (!longest) return { totalMs: own };
  const total = worstCaseDurationMs(site.attempts.value, site.delay, longest.ms, site.deadlineMs.value);
  return isKnown(total) && isKnown(own) && total > own ? { totalMs: total, inner: longest } : { totalMs: own };
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

export interface GrowthReading {
  readonly growth: Growth;
  /** The factor between waits for exponential growth (1 for constant), else UNKNOWN. */
  readonly multiplier: Maybe<number>;
  /** A trailing plateau read as a cap on the growth before it. */
  readonly capMs?: number | undefined;
}

const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b), 1);

/**
 * The one growth classifier: the shape of a sequence of waits (the first retry's first) as none,
 * constant, linear, exponential (also `(2^n - 1) × base`, whose differences double), polynomial or
 * custom. A trailing plateau after at least three growing waits is a cap: the growth is read
 * before it and the plateau returned as `capMs`.
 */
export function classifyWaits(waits: readonly number[]): GrowthReading {
  const whole = shapeOf(waits);
  if (whole.growth !== 'custom') return whole;
  let end = waits.length;
  while (end > 1 && same(waits[end - 1]!, waits[end - 2]!)) end--;
  if (end === waits.length || end < 3) return whole;
  const cap = waits[end - 1]!;
  if (waits.some((w) => w > cap)) return whole;
  // The first wait at the cap may itself be cut short: read the growth with and without it.
  for (const upTo of [end, end - 1]) {
    if (upTo < 3) break;
    const before = shapeOf(waits.slice(0, upTo));
    if (before.growth !== 'custom' && before.growth !== 'constant' && before.growth !== 'none') return { ...before, capMs: cap };
  }
  return whole;
}

function shapeOf(xs: readonly number[]): GrowthReading {
  const first = xs[0] ?? 0;
  if (xs.every((x) => same(x, first))) return first <= 0 ? { growth: 'none', multiplier: 1 } : { growth: 'constant', multiplier: 1 };
  if (xs.length < 3) return { growth: 'custom', multiplier: UNKNOWN };
  if (xs.every((x) => x > 0)) {
    const r = xs[1]! / xs[0]!;
    if (r > 1 && xs.every((x, i) => i === 0 || same(x / xs[i - 1]!, r))) return { growth: 'exponential', multiplier: r };
  }
  const d = xs.slice(1).map((x, i) => x - xs[i]!);
  if (d[0]! > 0 && d.every((x) => same(x, d[0]!))) return { growth: 'linear', multiplier: UNKNOWN };
  if (d.every((x) => x > 0)) {
    const r = d[1]! / d[0]!;
    if (r > 1 && d.every((x, i) => i === 0 || same(x / d[i - 1]!, r))) return { growth: 'exponential', multiplier: r };
    const dd = d.slice(1).map((x, i) => x - d[i]!);
    if (dd.length > 0 && dd[0]! > 0 && dd.every((x) => same(x, dd[0]!))) return { growth: 'polynomial', multiplier: UNKNOWN };
  }
  return { growth: 'custom', multiplier: UNKNOWN };
}

/**
 * The waits of a schedule that falls back: a shape the classifier could not name (`custom`) whose
 * wait before some retry is shorter than the one before it (`(n - 1) ^ 2` read as a power but
 * written as XOR: 60 s, 4 min, 60 s). Waits that do not keep growing are no backoff, whatever their
 * largest step. Judged on the waits the site really makes (3+ attempts, every wait known; an
 * unbounded site on its first ten); a trailing plateau (a cap) is growth that stopped, not a fall.
 */
export function fallingWaits(site: RetrySite): number[] | undefined {
  const attempts = site.attempts.value;
  if (site.delay.growth !== 'custom' || !isKnown(attempts) || attempts < 3) return undefined;
  const waits: number[] = [];
  for (let n = 1; n < Math.min(attempts, 11); n++) {
    const w = site.delay.upperBound(n);
    if (!isKnown(w)) return undefined;
    waits.push(w);
  }
  return waits.some((w, i) => i > 0 && w < waits[i - 1]! && !same(w, waits[i - 1]!)) ? waits : undefined;
}

/**
 * Two attempts with a wait between them: a single wait, so there is no schedule to grow, only the
 * question whether there is a wait at all. require-exponential-backoff leaves it alone, as the
 * runtime's registry does for a Spring retry with `max-attempts: 2`; require-jitter does not: one
 * fixed wait still brings every client that failed together back at the same instant.
 */
export function singleWait(site: RetrySite): boolean {
  return site.attempts.value === 2 && isKnown(site.delay.growth) && site.delay.growth !== 'none';
}
