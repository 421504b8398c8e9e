import { monotonicNow } from './clock.js';
import { metricsHub, type BudgetMeter, type RuntimeMetrics } from './metrics.js';

export interface RetryBudgetOptions {
  /** Retries allowed as a fraction of recent first attempts. Default 0.1. */
  ratio?: number;
  /** Retries always allowed per second, so a quiet client can still retry. Default 10. */
  minPerSecond?: number;
  /** How far back "recent" reaches. Default 10000. */
  windowMs?: number;
  /** Clock in ms; inject a virtual one for simulations. Default: monotonic time. */
  now?: () => number;
  /** The `budget` attribute of this budget's metrics. Default 'default'. */
  name?: string;
  /** From `enableMetrics()`: report refused retries and the retries available. */
  metrics?: RuntimeMetrics;
}

export interface RetryBudget {
  /** Count one first attempt (a request). The policy calls this once per call. */
  recordRequest(): void;
  /** Take permission for one retry; false when the budget is spent. */
  tryRetry(): boolean;
  /** Retries still available right now. */
  available(): number;
}

/** Ring buffers need enough slots that the window slides smoothly, and few enough to stay cheap. */
const SLOTS = 10;

class SlidingRetryBudget implements RetryBudget {
  readonly #ratio: number;
  readonly #reserve: number;
  readonly #slotMs: number;
  readonly #now: () => number;
  readonly #requests = new Float64Array(SLOTS);
  readonly #retries = new Float64Array(SLOTS);
  #slot = 0;
  #epoch: number;
  #requestSum = 0;
  #retrySum = 0;
  readonly #meter: BudgetMeter | undefined;

  constructor(ratio: number, minPerSecond: number, windowMs: number, now: () => number, meter: BudgetMeter | undefined) {
    this.#ratio = ratio;
    this.#reserve = (minPerSecond * windowMs) / 1000;
    this.#slotMs = windowMs / SLOTS;
    this.#now = now;
    this.#epoch = Math.floor(now() / this.#slotMs);
    this.#meter = meter;
    if (meter !== undefined) meter.current = this;
  }

  #roll(): number {
    const epoch = Math.floor(this.#now() / this.#slotMs);
    // A clock that steps back keeps the current slot rather than corrupting the sums.
    if (epoch <= this.#epoch) return this.#slot;
    const steps = Math.min(SLOTS, epoch - this.#epoch);
    let slot = this.#slot;
    for (let i = 0; i < steps; i++) {
      slot = (slot + 1) % SLOTS;
      this.#requestSum -= this.#requests[slot]!;
      this.#retrySum -= this.#retries[slot]!;
      this.#requests[slot] = 0;
      this.#retries[slot] = 0;
    }
    this.#slot = slot;
    this.#epoch = epoch;
    return slot;
  }

  recordRequest(): void {
    const slot = this.#roll();
    this.#requests[slot]! += 1;
    this.#requestSum += 1;
  }

  available(): number {
    this.#roll();
    return Math.max(0, Math.floor(this.#ratio * this.#requestSum + this.#reserve - this.#retrySum));
  }

  tryRetry(): boolean {
    const slot = this.#roll();
    if (this.#retrySum + 1 > this.#ratio * this.#requestSum + this.#reserve) {
      if (this.#meter !== undefined) this.#meter.exhausted++;
      return false;
    }
    this.#retries[slot]! += 1;
    this.#retrySum += 1;
    return true;
  }
}

/**
 * A retry budget shared by every policy that calls the same dependency. Per-call attempt limits
 * cannot stop a storm: 100 instances x 3 attempts is still 3x the load on a dead dependency.
 * Capping retries to a fraction of recent traffic bounds the amplification at about 1 + ratio.
 */
export function createRetryBudget(options: RetryBudgetOptions = {}): RetryBudget {
  const ratio = options.ratio ?? 0.1;
  const minPerSecond = options.minPerSecond ?? 10;
  const windowMs = options.windowMs ?? 10_000;
  if (!(Number.isFinite(ratio) && ratio >= 0 && ratio <= 1)) {
    throw new RangeError(`ratio must be within [0, 1], got ${String(ratio)}`);
  }
  if (!(Number.isFinite(minPerSecond) && minPerSecond >= 0)) {
    throw new RangeError(`minPerSecond must be a non-negative finite number, got ${String(minPerSecond)}`);
  }
  if (!(Number.isFinite(windowMs) && windowMs >= 100)) {
    throw new RangeError(`windowMs must be at least 100, got ${String(windowMs)}`);
  }
  const meter = metricsHub(options.metrics)?.budget(options.name ?? 'default');
  return new SlidingRetryBudget(ratio, minPerSecond, windowMs, options.now ?? monotonicNow, meter);
}
