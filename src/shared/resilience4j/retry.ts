/**
 * What a Resilience4j retry block does, as the starter builds it (CommonRetryConfigurationProperties
 * and IntervalFunction, resilience4j 2.x):
 * - `max-attempts` and the exception lists are inherited along the base-config chain (the instance
 *   builds on its base's RetryConfig); defaults 3 attempts and every exception retried.
 * - The waits come from the nearest block in the chain that writes `wait-duration` (or
 *   `interval-bi-function`, which wins in its own block): that block builds the interval function
 *   from its own wait-duration and randomized-wait-factor, and from the enable switches, multiplier
 *   and max wait it inherits (mergePropertiesIfAny). A switch written below that block does nothing.
 *   Without any wait-duration, RetryConfig's fixed 500 ms stays.
 * - IntervalFunction's defaults are multiplier 1.5 and randomization factor 0.5. With both switches
 *   on, the factor is used only when the multiplier is set, and the cap only when both are; with
 *   exponential backoff alone, the cap only when the multiplier is set. The cap applies after the
 *   randomization.
 * In a profile file (partial), a block's waits are taken to be its own: its switches decide.
 */
import type { Chain, Block, Prop, Resilience4jTree } from './read.js';
import { errorCoverage, written, type ErrorCoverage, type Lookup } from './coverage.js';
import type { MessageCode } from './messages.js';
import { UNKNOWN, formatMs, isKnown, joinPath, type Maybe } from './source.js';

/** RetryConfig's and IntervalFunction's defaults. */
export const RETRY_DEFAULTS = { maxAttempts: 3, waitMs: 500, multiplier: 1.5, randomizationFactor: 0.5 } as const;
/** TimeLimiterConfig's default timeout. */
export const TIME_LIMITER_DEFAULT_MS = 1000;

export type Growth = 'none' | 'constant' | 'exponential';

/** The settings only the block that writes wait-duration reads (configureRetryIntervalFunction). */
const INTERVAL_SETTINGS = ['enableexponentialbackoff', 'enablerandomizedwait', 'exponentialbackoffmultiplier', 'exponentialmaxwaitduration', 'randomizedwaitfactor'];
export type IntervalKind = 'fixed' | 'randomized' | 'exponential' | 'exponential-randomized' | 'custom';

/** Why the waits do not grow, or are not randomised: the setting a person would change. */
export interface Cause<P> {
  readonly code: MessageCode;
  readonly path: string;
  readonly at: P | undefined;
  readonly data?: Readonly<Record<string, string | number>>;
}

export interface Schedule<P> {
  readonly kind: Maybe<IntervalKind>;
  readonly waitMs: Maybe<number>;
  readonly multiplier: Maybe<number>;
  /** Infinity when there is no cap (or Resilience4j drops it). */
  readonly capMs: Maybe<number>;
  /** 0 when the waits are not randomised. */
  readonly factor: Maybe<number>;
  /** The block whose wait-duration the waits use; undefined for RetryConfig's fixed 500 ms. */
  readonly source: Block<P> | undefined;
  readonly wait?: Prop<P> | undefined;
  readonly exponential?: Prop<P> | undefined;
  readonly randomized?: Prop<P> | undefined;
  readonly multiplierProp?: Prop<P> | undefined;
  readonly cap?: Prop<P> | undefined;
  readonly factorProp?: Prop<P> | undefined;
  readonly intervalFunction?: Prop<P> | undefined;
}

export interface RetrySettings<P> {
  readonly block: Block<P>;
  readonly chain: Chain<P>;
  readonly attempts: Maybe<number>;
  readonly attemptsProp: Prop<P> | undefined;
  readonly schedule: Schedule<P>;
  readonly growth: Maybe<Growth>;
  /** Set when growth is none or constant. */
  readonly growthCause?: Cause<P> | undefined;
  readonly jitter: Maybe<boolean>;
  /** Set when jitter is false. */
  readonly jitterCause?: Cause<P> | undefined;
  readonly errors: ErrorCoverage<P>;
  /** The TimeLimiter instance of the same name, for instances: its per-attempt timeout. */
  readonly timeout?: { readonly ms: Maybe<number>; readonly prop: Prop<P> | undefined; readonly path: string } | undefined;
  /** The longest wait before retry n (1-based). */
  upperBound(n: number): Maybe<number>;
  /** Every wait at its longest, plus every attempt's timeout. */
  worstCaseMs(): Maybe<number>;
}

function value<T>(lookup: Lookup<unknown>, fallback: T): Maybe<T> {
  if (lookup === 'default') return fallback;
  if (lookup === 'unknown') return UNKNOWN;
  return lookup.prop.value as Maybe<T>;
}

export function retrySettings<P>(tree: Resilience4jTree<P>, block: Block<P>): RetrySettings<P> {
  const chain = tree.chainOf(block);
  const find = (name: string, from = 0): Lookup<P> => {
    for (const b of chain.blocks.slice(from)) {
      const prop = b.props.get(name);
      if (prop !== undefined) return { prop };
    }
    return chain.complete ? 'default' : 'unknown';
  };
  const attemptsLookup = find('maxattempts');
  const schedule = scheduleOf(tree, chain, find);
  const { growth, growthCause } = growthOf(block, chain, schedule);
  const { jitter, jitterCause } = jitterOf(block, chain, schedule, growthCause);
  const errors = errorCoverage(find('retryexceptions'), find('ignoreexceptions'), find('retryexceptionpredicate'));
  const timeout = block.group === 'instances' ? timeoutOf(tree, block.name) : undefined;
  const attempts = value<number>(attemptsLookup, RETRY_DEFAULTS.maxAttempts);
  const upperBound = (n: number) => upperBoundOf(schedule, n);
  return {
    block,
    chain,
    attempts,
    attemptsProp: written(attemptsLookup),
    schedule,
    growth,
    growthCause,
    jitter,
    jitterCause,
    errors,
    timeout,
    upperBound,
    worstCaseMs: () => worstCase(attempts, upperBound, timeout?.ms),
  };
}

function scheduleOf<P>(tree: Resilience4jTree<P>, chain: Chain<P>, find: (name: string, from?: number) => Lookup<P>): Schedule<P> {
  const partial = !!tree.options.partial;
  let index = chain.blocks.findIndex((b) => b.props.has('waitduration') || b.props.has('intervalbifunction'));
  if (partial) index = 0;
  if (index === -1) {
    if (!chain.complete) return unknownSchedule();
    return { kind: 'fixed', waitMs: RETRY_DEFAULTS.waitMs, multiplier: 1, capMs: Infinity, factor: 0, source: undefined };
  }
  const source = chain.blocks[index]!;
  // What a block nearer the instance writes about the waits never reaches the interval function.
  for (const block of chain.blocks.slice(0, index)) {
    for (const name of INTERVAL_SETTINGS) {
      const prop = block.props.get(name);
      if (prop) tree.problems.add('switchIgnored', prop.path, prop.at, { source: source.path });
    }
  }
  const intervalFunction = source.props.get('intervalbifunction');
  if (intervalFunction !== undefined) return { ...unknownSchedule(), kind: 'custom', source, intervalFunction };
  const wait = source.props.get('waitduration');
  const waitMs: Maybe<number> = wait === undefined ? UNKNOWN : (wait.value as Maybe<number>);
  const exp = find('enableexponentialbackoff', index);
  const rnd = find('enablerandomizedwait', index);
  const multLookup = find('exponentialbackoffmultiplier', index);
  const capLookup = find('exponentialmaxwaitduration', index);
  const factorProp = source.props.get('randomizedwaitfactor');
  const factorLookup: Lookup<P> = factorProp ? { prop: factorProp } : partial ? 'unknown' : 'default';
  const expOn = value<boolean>(exp, false);
  const rndOn = value<boolean>(rnd, false);
  const kind: Maybe<IntervalKind> = !isKnown(expOn) || !isKnown(rndOn) ? UNKNOWN
    : expOn ? (rndOn ? 'exponential-randomized' : 'exponential') : rndOn ? 'randomized' : 'fixed';
  const props = { wait, exponential: written(exp), randomized: written(rnd), multiplierProp: written(multLookup), cap: written(capLookup), factorProp };
  const set = (l: Lookup<P>): Maybe<boolean> => (l === 'unknown' ? UNKNOWN : l !== 'default');
  const multSet = set(multLookup);
  const capSet = set(capLookup);
  const factorSet = set(factorLookup);
  const multiplier = expOn === true ? value<number>(multLookup, RETRY_DEFAULTS.multiplier) : expOn === false ? 1 : UNKNOWN;

  let capMs: Maybe<number> = Infinity;
  let factor: Maybe<number> = kind === 'fixed' || kind === 'exponential' ? 0 : UNKNOWN;
  const drop = (prop: Prop<P> | undefined, needs: string, actual: string) => {
    if (prop) tree.problems.add('dropped', prop.path, prop.at, { needs, actual });
  };
  if (kind === 'exponential-randomized') {
    const capUsed = and(factorSet, multSet, capSet);
    capMs = capUsed === true ? value<number>(capLookup, Infinity) : capUsed === false ? Infinity : UNKNOWN;
    factor = multSet === true ? value<number>(factorLookup, RETRY_DEFAULTS.randomizationFactor) : multSet === false ? RETRY_DEFAULTS.randomizationFactor : UNKNOWN;
    if (multSet === false) {
      const actual = `${describeWait(waitMs)} x ${RETRY_DEFAULTS.multiplier} with +-${RETRY_DEFAULTS.randomizationFactor * 100}% and no cap`;
      drop(written(capLookup), 'exponential-backoff-multiplier', actual);
      drop(factorProp, 'exponential-backoff-multiplier', actual);
    } else if (multSet === true && factorSet === false && capSet === true) {
      drop(written(capLookup), 'randomized-wait-factor', `${describeWait(waitMs)} x ${String(multiplier)} with +-50% and no cap`);
    }
  } else if (kind === 'exponential') {
    const capUsed = and(multSet, capSet);
    capMs = capUsed === true ? value<number>(capLookup, Infinity) : capUsed === false ? Infinity : UNKNOWN;
    if (multSet === false) drop(written(capLookup), 'exponential-backoff-multiplier', `${describeWait(waitMs)} x ${RETRY_DEFAULTS.multiplier} with no cap`);
  } else if (kind === 'randomized') {
    factor = value<number>(factorLookup, RETRY_DEFAULTS.randomizationFactor);
  }
  // IntervalFunction refuses a first wait (and a cap) under 1 ms once the waits grow or are randomised.
  if (isKnown(kind) && kind !== 'fixed' && isKnown(waitMs) && Math.trunc(waitMs) < 1 && wait) {
    tree.problems.add('intervalNeedsWait', wait.path, wait.at);
  }
  if (isKnown(capMs) && Number.isFinite(capMs) && Math.trunc(capMs) < 1 && props.cap) tree.problems.add('capNeedsWait', props.cap.path, props.cap.at);
  return { kind, waitMs, multiplier, capMs, factor, source, ...props };
}

function unknownSchedule<P>(): Schedule<P> {
  return { kind: UNKNOWN, waitMs: UNKNOWN, multiplier: UNKNOWN, capMs: UNKNOWN, factor: UNKNOWN, source: undefined };
}

function and(...values: Maybe<boolean>[]): Maybe<boolean> {
  if (values.includes(false)) return false;
  return values.every((v) => v === true) ? true : UNKNOWN;
}

function describeWait(ms: Maybe<number>): string {
  return isKnown(ms) ? formatMs(ms) : 'wait-duration';
}

/** A switch set to true in a block below the one whose wait-duration the waits use: it does nothing. */
function ignoredSwitch<P>(chain: Chain<P>, schedule: Schedule<P>, name: string): Cause<P> | undefined {
  const limit = schedule.source === undefined ? chain.blocks.length : chain.blocks.indexOf(schedule.source);
  for (const block of chain.blocks.slice(0, limit)) {
    const prop = block.props.get(name);
    if (prop !== undefined && prop.value === true) {
      const from = schedule.source === undefined ? "Resilience4j's fixed 500 ms" : schedule.source.path;
      return { code: 'switchIgnored', path: prop.path, at: prop.at, data: { source: from } };
    }
  }
  return undefined;
}

function growthOf<P>(block: Block<P>, chain: Chain<P>, s: Schedule<P>): { growth: Maybe<Growth>; growthCause?: Cause<P> } {
  // A switch this block turns on in vain says more than the inherited one that is off.
  const switchCause = (): Cause<P> => {
    const ignored = ignoredSwitch(chain, s, 'enableexponentialbackoff');
    if (ignored) return ignored;
    if (s.exponential !== undefined && s.exponential.value === false) return { code: 'backoffOff', path: s.exponential.path, at: s.exponential.at };
    return { code: 'backoffNotSet', path: joinPath(block.path, 'enable-exponential-backoff'), at: s.wait?.at };
  };
  if (s.source === undefined && s.kind === 'fixed') {
    // No wait-duration anywhere: every switch in the chain is ignored.
    const switchOn = chain.blocks.flatMap((b) => [b.props.get('enableexponentialbackoff'), b.props.get('enablerandomizedwait')]).find((p) => p?.value === true);
    if (switchOn) return { growth: 'constant', growthCause: { code: 'noIntervalFunction', path: joinPath(block.path, 'wait-duration'), at: switchOn.at } };
    return { growth: 'constant', growthCause: switchCause() };
  }
  if (s.kind === 'custom') return { growth: UNKNOWN };
  if (s.exponential !== undefined && s.exponential.value === false && !isKnown(s.kind)) return { growth: 'constant', growthCause: switchCause() };
  if (s.kind === 'fixed' || s.kind === 'randomized') {
    if (s.waitMs === 0) return { growth: 'none', growthCause: { code: s.kind === 'fixed' ? 'noBackoff' : 'intervalNeedsWait', path: s.wait!.path, at: s.wait!.at } };
    return { growth: 'constant', growthCause: switchCause() };
  }
  if (s.kind === 'exponential' || s.kind === 'exponential-randomized') {
    if (s.waitMs === 0) return { growth: 'none', growthCause: { code: 'intervalNeedsWait', path: s.wait!.path, at: s.wait!.at } };
    if (!isKnown(s.multiplier)) return { growth: UNKNOWN };
    if (s.multiplier <= 1) {
      const at = s.multiplierProp ?? s.exponential;
      return { growth: 'constant', growthCause: { code: 'multiplierFlat', path: at?.path ?? block.path, at: at?.at, data: { m: s.multiplier } } };
    }
    if (isKnown(s.capMs) && isKnown(s.waitMs) && s.capMs <= s.waitMs && s.cap) {
      return { growth: 'constant', growthCause: { code: 'capBelowWait', path: s.cap.path, at: s.cap.at, data: { cap: formatMs(s.capMs), wait: formatMs(s.waitMs) } } };
    }
    return { growth: 'exponential' };
  }
  return { growth: UNKNOWN };
}

function jitterOf<P>(block: Block<P>, chain: Chain<P>, s: Schedule<P>, growthCause: Cause<P> | undefined): { jitter: Maybe<boolean>; jitterCause?: Cause<P> } {
  const switchCause = (): Cause<P> => {
    const ignored = ignoredSwitch(chain, s, 'enablerandomizedwait');
    if (ignored) return ignored;
    if (s.randomized !== undefined && s.randomized.value === false) return { code: 'jitterOff', path: s.randomized.path, at: s.randomized.at };
    return { code: 'jitterNotSet', path: joinPath(block.path, 'enable-randomized-wait'), at: undefined };
  };
  if (s.kind === 'custom') return { jitter: UNKNOWN };
  // The missing wait-duration is the one cause of both: one message says so.
  if (growthCause?.code === 'noIntervalFunction') return { jitter: false };
  if (s.kind === 'fixed' || s.kind === 'exponential') return { jitter: false, jitterCause: switchCause() };
  if (s.randomized !== undefined && s.randomized.value === false) return { jitter: false, jitterCause: switchCause() };
  if (!isKnown(s.kind) || !isKnown(s.factor)) return { jitter: UNKNOWN };
  if (s.factor > 0) return { jitter: true };
  const at = s.factorProp;
  return { jitter: false, jitterCause: { code: 'factorZero', path: at?.path ?? block.path, at: at?.at } };
}

function upperBoundOf(s: Schedule<unknown>, n: number): Maybe<number> {
  const { kind, waitMs, multiplier, capMs, factor } = s;
  if (!isKnown(kind) || kind === 'custom' || !isKnown(waitMs)) return UNKNOWN;
  if (kind === 'fixed') return waitMs;
  if (!isKnown(factor)) return UNKNOWN;
  if (kind === 'randomized') return waitMs * (1 + factor);
  if (!isKnown(multiplier) || !isKnown(capMs)) return UNKNOWN;
  return Math.min(waitMs * multiplier ** (n - 1) * (1 + factor), capMs);
}

function worstCase(attempts: Maybe<number>, upperBound: (n: number) => Maybe<number>, timeoutMs: Maybe<number> | undefined): Maybe<number> {
  if (!isKnown(attempts)) return UNKNOWN;
  let total = 0;
  for (let n = 1; n < attempts; n++) {
    const wait = upperBound(n);
    if (!isKnown(wait)) return UNKNOWN;
    total += wait;
  }
  if (timeoutMs === undefined) return total;
  if (!isKnown(timeoutMs)) return UNKNOWN;
  return timeoutMs > 0 ? total + timeoutMs * attempts : total;
}

/** The TimeLimiter instance of a retry instance's name (Spring's aspect order puts it inside Retry). */
function timeoutOf<P>(tree: Resilience4jTree<P>, name: string): RetrySettings<P>['timeout'] {
  const limiter = tree.block('timelimiter', 'instances', name);
  if (limiter === undefined) return undefined;
  const chain = tree.chainOf(limiter);
  const prop = chain.blocks.map((b) => b.props.get('timeoutduration')).find((p) => p !== undefined);
  const path = prop?.path ?? joinPath(limiter.path, 'timeout-duration');
  if (prop === undefined) return { ms: chain.complete ? TIME_LIMITER_DEFAULT_MS : UNKNOWN, prop, path };
  const ms = prop.value as Maybe<number>;
  if (ms === 0) tree.problems.add('timeoutZero', prop.path, prop.at);
  return { ms, prop, path };
}
