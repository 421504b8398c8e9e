/**
 * The shape of a hand-written retry (what is repeated, what must hold to get from a failure to
 * the next attempt, the waits on the way) and how a shape is read into a retry site.
 */
import { isKnown, toInterval, truth, UNKNOWN, type Maybe, type Unknown } from '../eval/values.js';
import { NO_RESPONSE } from '../eval/environment.js';
import { site } from '../libraries/shared.js';
import type { DelaySchedule, ErrorFilter, Node, RetrySite } from '../model.js';
import { attemptEnv, evaluateAt, type AttemptQuestion, type HandWritten, type Region } from './attempts.js';
import { isCancellation, totalAttempts } from './bound.js';
import { clientErrorInclusions, errorFilter } from './filter.js';
import { combineSchedules, waitReader, waitSchedule } from './schedule.js';
import { attemptTimeout } from './timeouts.js';
import type { Sleep } from './sleeps.js';
import { rememberShape } from './wait-edit.js';
import { conflictRerun } from './conflict-rerun.js';

/** Constraint on getting from a failure to the next attempt: `test` must evaluate to `want`. */
export interface Constraint {
  readonly test: Node;
  readonly want: boolean;
  /** Evaluated at the start of the next attempt (a loop test, a guard before the operation). */
  readonly next: boolean;
  readonly loopTest?: boolean;
  /**
   * Met only on an attempt whose operation returned (a guard in the try after it): a failure thrown
   * into the catch that goes on never reads it, so it bounds the retry only through a counter.
   */
  readonly returnedOnly?: boolean;
  /** A `switch` on `test`: whether each case (first match wins) and any other value go on to another attempt. */
  readonly cases?: { readonly list: readonly { readonly test: Node; readonly retries: boolean }[]; readonly otherwise: boolean };
}

export interface Shape {
  readonly region: Region;
  readonly operation: Node;
  readonly constraints: Constraint[];
  /** Conditions under which the attempt throws into a catch that retries everything. */
  readonly throwGuards: Node[];
  readonly sleeps: Sleep[];
  /** Execution position of the operation (sleeps before it wait for the next attempt). */
  readonly opPos: number;
  /**
   * The first call is made before the loop (`let res = await op(); for (...) { ...; res = await op() }`):
   * each pass of the loop is a retry, so the calls are the passes plus one.
   */
  readonly firstCallBefore?: boolean | undefined;
  /** The same call is made once more right after the loop (`do { ... } while (n < max); return op();`). */
  readonly lastCallAfter?: boolean | undefined;
  /** The most passes the loop makes whatever its guards say (a `for…of` over a list of waits: its length). */
  readonly passes?: number | undefined;
  /** A way back that retries with no wait while the sleeps are on other ways back (immediate.ts). */
  readonly immediate?: Node | undefined;
}

/** Whether a constraint holds after attempt `attempt` failed (UNKNOWN when it cannot be read). */
export function holds(hw: HandWritten, c: Constraint, region: Region, attempt: number, question: AttemptQuestion = {}): boolean | Unknown {
  const env = attemptEnv(hw, region, attempt + (c.next ? 1 : 0), question);
  if (c.cases) return switchHolds(hw, c.test, c.cases, env);
  const v = truth(evaluateAt(hw, c.test, env));
  return v === UNKNOWN ? UNKNOWN : v === c.want;
}

function switchHolds(hw: HandWritten, discriminant: Node, cases: NonNullable<Constraint['cases']>, env: ReturnType<typeof attemptEnv>): boolean | Unknown {
  const d = evaluateAt(hw, discriminant, env);
  if (d === UNKNOWN || (typeof d === 'object' && d !== null)) return UNKNOWN;
  for (const c of cases.list) {
    const v = evaluateAt(hw, c.test, env);
    if (v === UNKNOWN || (typeof v === 'object' && v !== null)) return UNKNOWN;
    if (v === d) return c.retries;
  }
  return cases.otherwise;
}

/** Failures a retry commonly goes on after, whose waits may be known where a 429's is not. */
const GOING_ON = [NO_RESPONSE, 500, 503] as const;

/**
 * `DelaySchedule.leastWorst` for a retry with one sleep whose waits are not all known (a wait the
 * server sets on a 429): the waits of the failure status, among a network error, a 500 and a 503,
 * whose waits are all known and add up to the most, when that failure goes on to every retry
 * counted (no condition certainly stops it before). One status for all the retries: the waits of
 * a mixed sequence may depend on what came before.
 */
export function leastWorstWaits(hw: HandWritten, shape: Shape, attempts: Maybe<number>, delay: DelaySchedule): ((n: number) => Maybe<number>) | undefined {
  if (!isKnown(attempts) || attempts < 2 || attempts > 64 || shape.sleeps.length !== 1 || shape.immediate) return undefined;
  // Read on the first question only (a rule asks where the worst case is not known).
  let chosen: number[] | null | undefined;
  const read = (): number[] | null => {
    for (let n = 1; n < attempts; n++) if (!isKnown(delay.upperBound(n))) return bestWaits(hw, shape, attempts);
    return null;
  };
  return (n) => (chosen === undefined ? (chosen = read()) : chosen)?.[n - 1] ?? UNKNOWN;
}

function bestWaits(hw: HandWritten, shape: Shape, attempts: number): number[] | null {
  const waitAt = waitReader(hw, shape, shape.sleeps[0]!);
  let best: number[] | null = null;
  let bestTotal = -1;
  for (const status of GOING_ON) {
    const waits: number[] = [];
    for (let n = 1; n < attempts; n++) {
      const goesOn = shape.constraints.every((c) => (status === NO_RESPONSE && c.returnedOnly) || holds(hw, c, shape.region, n, { status }) !== false);
      const i = goesOn ? toInterval(waitAt(n, { status }).value) : undefined;
      if (!i) break;
      waits.push(Math.max(0, i.hi));
    }
    const total = waits.reduce((a, b) => a + b, 0);
    if (waits.length === attempts - 1 && total > bestTotal) {
      best = waits;
      bestTotal = total;
    }
  }
  return best;
}

export function buildSite(hw: HandWritten, shape: Shape, where: { node: Node; reportNode: Node; label: string }): RetrySite {
  const passes = totalAttempts(hw, shape);
  const attempts = (shape.firstCallBefore || shape.lastCallAfter) && typeof passes.value === 'number' ? { ...passes, value: passes.value + 1 } : passes;
  const schedule = waitSchedule(hw, shape, attempts.value);
  const leastWorst = leastWorstWaits(hw, shape, attempts.value, schedule.delay);
  const delay = leastWorst ? { ...schedule.delay, leastWorst } : schedule.delay;
  const { jitter } = schedule;
  // Unbounded but for an abort signal: the signal's holder decides the time (a deadline or never).
  const cancel = attempts.value === Infinity ? shape.constraints.find((c) => isCancellation(c.test)) : undefined;
  const built = site({
    library: 'hand-written',
    label: where.label,
    node: where.node,
    reportNode: where.reportNode,
    attempts,
    delay,
    jitter,
    errorFilter: errorFilter(hw, shape),
    attemptTimeoutMs: attemptTimeout(hw, shape),
    operation: shape.operation,
    ...(cancel ? { stopsOnAbort: true, deadlineMs: { value: UNKNOWN, node: cancel.test } } : {}),
    conflictRerun: conflictRerun(hw, shape),
  });
  rememberShape(built, hw, shape);
  return built;
}

/**
 * One site for a retry with several ways back (a recursion that calls itself from its catch and
 * again on a failed response, or through a cycle): the most attempts, the waits combined (the
 * gentlest growth, the longest wait), what any way back retries. Reported where the first is.
 */
export function mergeSites(sites: readonly RetrySite[]): RetrySite | undefined {
  const first = sites[0];
  if (sites.length <= 1 || !first) return first;
  const unknownAttempts = sites.find((s) => s.attempts.value === UNKNOWN);
  const attempts = unknownAttempts?.attempts ?? sites.reduce((a, b) => ((b.attempts.value as number) > (a.attempts.value as number) ? b : a)).attempts;
  // A repair beside counted ways back (refresh the token, call once more) is no retry's pause.
  const retries = sites.filter((s) => !s.repair);
  const { delay, jitter } = combineSchedules((retries.length ? retries : sites).map((s) => ({ delay: s.delay, jitter: s.jitter })));
  // A repair-and-retry only when every way back is one: a counted way back beside it is a retry.
  const repair = sites.every((s) => s.repair) ? first.repair : undefined;
  // A conflict re-run only when every way back is one.
  const rerun = sites.every((s) => s.conflictRerun) ? first.conflictRerun : undefined;
  return { ...first, attempts, delay, jitter, errorFilter: mergeFilters(sites.map((s) => s.errorFilter)), repair, conflictRerun: rerun };
}

/**
 * What any way back retries: every failure status when one retries them all; the 4xx statuses each
 * certainly retries (sound whatever the others do); a filter not read when one is not read.
 */
function mergeFilters(filters: readonly ErrorFilter[]): ErrorFilter {
  const refusedOnly = filters.every((f) => f.refusedOnly);
  // A way back that retries every failure status says it all. Otherwise one that reads the status
  // decides: beside it, a way back that retries whatever it catches (a rejection turned into a
  // value) retries what the call rejects with, not the statuses the other reads.
  const everything = filters.find((f) => f.retriesEverything);
  if (everything) return everything;
  const base = filters.find((f) => f.kind === 'custom') ?? filters.find((f) => f.kind === 'statuses') ?? filters[0]!;
  const listing = filters.filter((f) => f.clientErrors.length > 0);
  let clientErrors = listing.flatMap((f) => f.clientErrors);
  // Statuses several ways back retry are one list, reported once.
  if (listing.length > 1 && listing.every((f) => f.clientErrorStatuses)) {
    const statuses = [...new Set(listing.flatMap((f) => f.clientErrorStatuses!))].sort((a, b) => a - b);
    clientErrors = clientErrorInclusions(statuses, listing[0]!.clientErrors[0]!.node);
  }
  return { ...base, clientErrors, refusedOnly: refusedOnly || undefined };
}
