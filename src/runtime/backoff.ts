export type Jitter = 'full' | 'equal' | 'decorrelated';

export interface BackoffOptions {
  initialDelayMs: number;
  multiplier: number;
  maxDelayMs: number;
  jitter: Jitter;
  /** A [0, 1) source; swap it for a seeded one in simulations. */
  random?: () => number;
}

export interface Backoff {
  /**
   * Delay before retry number `retry` (1 = the first retry). `previousMs` is the delay used before
   * the previous retry (0 before the first); only decorrelated jitter depends on it.
   */
  delay(retry: number, previousMs: number): number;
}

class ExponentialJitterBackoff implements Backoff {
  readonly #initial: number;
  readonly #multiplier: number;
  readonly #max: number;
  readonly #jitter: Jitter;
  readonly #random: () => number;

  constructor(options: BackoffOptions) {
    this.#initial = options.initialDelayMs;
    this.#multiplier = options.multiplier;
    this.#max = options.maxDelayMs;
    this.#jitter = options.jitter;
    this.#random = options.random ?? Math.random;
  }

  delay(retry: number, previousMs: number): number {
    if (this.#jitter === 'decorrelated') {
      // AWS "decorrelated jitter": grows from the previous sleep, so clients drift apart over time.
      const prev = previousMs > 0 ? previousMs : this.#initial;
      const upper = Math.min(this.#max, prev * 3);
      return Math.min(this.#max, this.#initial + this.#random() * Math.max(0, upper - this.#initial));
    }
    const ceiling = Math.min(this.#max, this.#initial * this.#multiplier ** (retry - 1));
    if (this.#jitter === 'equal') return ceiling / 2 + this.#random() * (ceiling / 2);
    return this.#random() * ceiling;
  }
}

/**
 * Exponential backoff with mandatory jitter. There is deliberately no constant, linear or
 * jitter-free mode: all three make synchronised clients hit a recovering dependency together
 * (R-RES-RE-X3).
 */
export function createBackoff(options: BackoffOptions): Backoff {
  const { initialDelayMs, multiplier, maxDelayMs, jitter } = options;
  if (!(Number.isFinite(initialDelayMs) && initialDelayMs > 0)) {
    throw new RangeError(`initialDelayMs must be a positive finite number, got ${String(initialDelayMs)}`);
  }
  if (!(Number.isFinite(multiplier) && multiplier > 1)) {
    throw new RangeError(`multiplier must be > 1 (constant and linear backoff are not allowed), got ${String(multiplier)}`);
  }
  if (!(Number.isFinite(maxDelayMs) && maxDelayMs >= initialDelayMs)) {
    throw new RangeError(`maxDelayMs must be finite and >= initialDelayMs, got ${String(maxDelayMs)}`);
  }
  if (jitter !== 'full' && jitter !== 'equal' && jitter !== 'decorrelated') {
    throw new RangeError(`jitter must be 'full', 'equal' or 'decorrelated', got ${String(jitter)}`);
  }
  return new ExponentialJitterBackoff(options);
}
