import { monotonicNow } from './clock.js';
import { metricsHub, type BudgetMeter, type RuntimeMetrics } from './metrics.js';
import { SlidingCounts } from './window.js';

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

class SlidingRetryBudget implements RetryBudget {
  readonly #ratio: number;
  readonly #reserve: number;
  /** first: requests, second: retries. */
  readonly #window: SlidingCounts;
  readonly #meter: BudgetMeter | undefined;

  constructor(ratio: number, minPerSecond: number, windowMs: number, now: () => number, meter: BudgetMeter | undefined) {
    this.#ratio = ratio;
    this.#reserve = (minPerSecond * windowMs) / 1000;
    this.#window = new SlidingCounts(windowMs, now);
    this.#meter = meter;
    if (meter !== undefined) meter.current = this;
  }

  recordRequest(): void {
    const w = this.#window;
    w.add(w.roll(), 1, 0);
  }

  available(): number {
    const w = this.#window;
    w.roll();
    return Math.max(0, Math.floor(this.#ratio * w.first + this.#reserve - w.second));
  }

  tryRetry(): boolean {
    const w = this.#window;
    const slot = w.roll();
    if (w.second + 1 > this.#ratio * w.first + this.#reserve) {
      if (this.#meter !== undefined) this.#meter.exhausted++;
      return false;
    }
    w.add(slot, 0, 1);
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
