import { isDependencyFailure } from './classify.js';
import { monotonicNow } from './clock.js';
import { CircuitOpenError } from './errors.js';
import { metricsHub, type BreakerMeter, type RuntimeMetrics } from './metrics.js';
import { SlidingCounts } from './window.js';

export type BreakerState = 'closed' | 'open' | 'half-open';
export type BreakerOutcome = 'success' | 'failure' | 'neutral';

/** Anything that can wrap a call, e.g. a cockatiel or opossum breaker adapter. */
export interface CircuitBreakerLike {
  execute<T>(fn: () => T | PromiseLike<T>): Promise<T>;
}

export interface CircuitBreakerOptions {
  /** Open when failures / calls in the sampling window reach this. Default 0.5. */
  failureRatio?: number;
  /** Never open on fewer calls than this in the window; one failure out of two proves nothing. Default 10. */
  minimumThroughput?: number;
  /** Sliding window over which the ratio is measured. Default 10000. */
  samplingMs?: number;
  /**
   * Measure the ratio over the last `windowCalls` calls instead of a time window (Resilience4j's
   * COUNT_BASED sliding window). `samplingMs` is then not used.
   */
  windowCalls?: number;
  /** How long to stay open before letting probes through. Default 5000. */
  breakMs?: number;
  /** Concurrent trial calls in half-open; this many successes close the breaker. Default 1. */
  halfOpenProbes?: number;
  /** Which thrown errors mean the dependency is unhealthy. Default: 5xx, 408, 429, network, unknown. */
  isFailure?: (error: unknown) => boolean;
  onStateChange?: (state: BreakerState) => void;
  /** Clock in ms; inject a virtual one for simulations. Default: monotonic time. */
  now?: () => number;
  /** The `breaker` attribute of this breaker's metrics. Default 'default'. */
  name?: string;
  /** From `enableMetrics()`: report state, transitions and rejections. */
  metrics?: RuntimeMetrics;
}

export interface CircuitBreaker extends CircuitBreakerLike {
  readonly state: BreakerState;
  /**
   * Low-level protocol (what the retry policy and simulations use): ask to send one call, and if
   * granted report its outcome with exactly one `settle`. Avoids a closure per call.
   */
  tryAcquire(): boolean;
  settle(outcome: BreakerOutcome): void;
  /** `settle` for a failed call, classified by this breaker's `isFailure`. */
  settleError(error: unknown): void;
  /** Whether the breaker is open now and will still be open `inMs` from now. */
  isOpenFor(inMs: number): boolean;
}

const CLOSED = 0;
const OPEN = 1;
const HALF_OPEN = 2;
const STATE_NAMES: readonly BreakerState[] = ['closed', 'open', 'half-open'];

type ResolvedBreakerOptions = Required<Omit<CircuitBreakerOptions, 'onStateChange' | 'windowCalls' | 'name' | 'metrics'>>
  & Pick<CircuitBreakerOptions, 'onStateChange' | 'windowCalls'>
  & { meter: BreakerMeter | undefined };

class SamplingCircuitBreaker implements CircuitBreaker {
  readonly #failureRatio: number;
  readonly #minimumThroughput: number;
  readonly #breakMs: number;
  readonly #halfOpenProbes: number;
  readonly #isFailure: (error: unknown) => boolean;
  readonly #onStateChange: ((state: BreakerState) => void) | undefined;
  readonly #now: () => number;
  /** Time-based window: first counts calls, second failures. */
  readonly #window: SlidingCounts;
  #state = CLOSED;
  #openUntil = 0;
  #probesInFlight = 0;
  #probeSuccesses = 0;
  /** Count-based window: the outcome of each of the last `windowCalls` calls, 1 for a failure. */
  readonly #ring: Uint8Array | undefined;
  #ringNext = 0;
  #ringCalls = 0;
  #ringFailures = 0;
  readonly #meter: BreakerMeter | undefined;

  constructor(o: ResolvedBreakerOptions) {
    this.#failureRatio = o.failureRatio;
    this.#minimumThroughput = o.minimumThroughput;
    this.#breakMs = o.breakMs;
    this.#halfOpenProbes = o.halfOpenProbes;
    this.#isFailure = o.isFailure;
    this.#onStateChange = o.onStateChange;
    this.#now = o.now;
    this.#window = new SlidingCounts(o.samplingMs, o.now);
    this.#ring = o.windowCalls === undefined ? undefined : new Uint8Array(o.windowCalls);
    this.#meter = o.meter;
    if (o.meter !== undefined) o.meter.current = this;
  }

  get state(): BreakerState {
    // Report half-open as soon as the break is over, even before a call asks.
    if (this.#state === OPEN && this.#now() >= this.#openUntil) return 'half-open';
    return STATE_NAMES[this.#state]!;
  }

  isOpenFor(inMs: number): boolean {
    return this.#state === OPEN && this.#now() + inMs < this.#openUntil;
  }

  #transition(state: number): void {
    if (this.#meter !== undefined) this.#meter.transitions[this.#state * STATE_NAMES.length + state]! += 1;
    this.#state = state;
    if (this.#onStateChange !== undefined) {
      try {
        this.#onStateChange(STATE_NAMES[state]!);
      } catch {
        // A metrics hook must not decide whether the call proceeds.
      }
    }
  }

  #open(): void {
    this.#openUntil = this.#now() + this.#breakMs;
    this.#probesInFlight = 0;
    this.#probeSuccesses = 0;
    this.#transition(OPEN);
  }

  #close(): void {
    this.#window.clear();
    this.#ring?.fill(0);
    this.#ringNext = 0;
    this.#ringCalls = 0;
    this.#ringFailures = 0;
    this.#transition(CLOSED);
  }

  tryAcquire(): boolean {
    if (this.#state === CLOSED) return true;
    if (this.#state === OPEN) {
      if (this.#now() < this.#openUntil) return this.#reject();
      this.#probesInFlight = 0;
      this.#probeSuccesses = 0;
      this.#transition(HALF_OPEN);
    }
    if (this.#probesInFlight >= this.#halfOpenProbes) return this.#reject();
    this.#probesInFlight++;
    return true;
  }

  #reject(): false {
    if (this.#meter !== undefined) this.#meter.rejections++;
    return false;
  }

  settle(outcome: BreakerOutcome): void {
    if (this.#state === HALF_OPEN) {
      if (this.#probesInFlight > 0) this.#probesInFlight--;
      if (outcome === 'failure') this.#open();
      else if (outcome === 'success' && ++this.#probeSuccesses >= this.#halfOpenProbes) this.#close();
      return;
    }
    // Results of calls that started before the breaker opened say nothing new.
    if (this.#state === OPEN || outcome === 'neutral') return;
    if (this.#ring !== undefined) {
      this.#record(this.#ring, outcome === 'failure' ? 1 : 0);
      return;
    }
    const w = this.#window;
    const failed = outcome === 'failure' ? 1 : 0;
    w.add(w.roll(), 1, failed);
    if (failed === 1 && w.first >= this.#minimumThroughput && w.second >= this.#failureRatio * w.first) this.#open();
  }

  /** Count-based window: the new outcome replaces the oldest once the ring is full. */
  #record(ring: Uint8Array, failed: number): void {
    const i = this.#ringNext;
    if (this.#ringCalls >= ring.length) {
      this.#ringCalls -= 1;
      this.#ringFailures -= ring[i]!;
    }
    ring[i] = failed;
    this.#ringNext = i + 1 === ring.length ? 0 : i + 1;
    this.#ringCalls += 1;
    this.#ringFailures += failed;
    if (failed === 1 && this.#ringCalls >= this.#minimumThroughput && this.#ringFailures >= this.#failureRatio * this.#ringCalls) {
      this.#open();
    }
  }

  settleError(error: unknown): void {
    this.settle(this.#isFailure(error) ? 'failure' : 'success');
  }

  async execute<T>(fn: () => T | PromiseLike<T>): Promise<T> {
    if (!this.tryAcquire()) throw new CircuitOpenError();
    let result: T;
    try {
      result = await fn();
    } catch (error) {
      this.settleError(error);
      throw error;
    }
    this.settle('success');
    return result;
  }
}

/**
 * A sampling circuit breaker: opens when the failure ratio over a sliding window crosses the
 * threshold (with enough traffic to mean something), sheds calls for `breakMs`, then lets a few
 * probes through. Retry and breaker belong on the same call (R-RES-CB-1): pass it to a policy.
 */
export function createCircuitBreaker(options: CircuitBreakerOptions = {}): CircuitBreaker {
  const failureRatio = options.failureRatio ?? 0.5;
  const minimumThroughput = options.minimumThroughput ?? 10;
  const samplingMs = options.samplingMs ?? 10_000;
  const breakMs = options.breakMs ?? 5_000;
  const halfOpenProbes = options.halfOpenProbes ?? 1;
  if (!(failureRatio > 0 && failureRatio <= 1)) {
    throw new RangeError(`failureRatio must be within (0, 1], got ${String(failureRatio)}`);
  }
  if (!(Number.isInteger(minimumThroughput) && minimumThroughput >= 1)) {
    throw new RangeError(`minimumThroughput must be a positive integer, got ${String(minimumThroughput)}`);
  }
  if (!(Number.isFinite(samplingMs) && samplingMs >= 100)) {
    throw new RangeError(`samplingMs must be at least 100, got ${String(samplingMs)}`);
  }
  if (!(Number.isFinite(breakMs) && breakMs > 0)) {
    throw new RangeError(`breakMs must be a positive finite number, got ${String(breakMs)}`);
  }
  if (!(Number.isInteger(halfOpenProbes) && halfOpenProbes >= 1)) {
    throw new RangeError(`halfOpenProbes must be a positive integer, got ${String(halfOpenProbes)}`);
  }
  const windowCalls = options.windowCalls;
  if (windowCalls !== undefined) {
    if (!(Number.isInteger(windowCalls) && windowCalls >= 1)) {
      throw new RangeError(`windowCalls must be a positive integer, got ${String(windowCalls)}`);
    }
    if (minimumThroughput > windowCalls) {
      throw new RangeError(`minimumThroughput (${minimumThroughput}) must not exceed windowCalls (${windowCalls}): the breaker could never open`);
    }
  }
  return new SamplingCircuitBreaker({
    failureRatio,
    minimumThroughput,
    samplingMs,
    breakMs,
    halfOpenProbes,
    isFailure: options.isFailure ?? isDependencyFailure,
    onStateChange: options.onStateChange,
    now: options.now ?? monotonicNow,
    windowCalls,
    meter: metricsHub(options.metrics)?.breaker(options.name ?? 'default'),
  });
}

/** Our own breakers expose the closure-free protocol; foreign ones only `execute`. */
export function isNativeBreaker(b: CircuitBreakerLike): b is CircuitBreaker {
  const candidate = b as Partial<CircuitBreaker>;
  return typeof candidate.tryAcquire === 'function' && typeof candidate.settleError === 'function' && typeof candidate.isOpenFor === 'function';
}
