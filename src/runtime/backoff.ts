/**
 * - `full`: uniform in [0, ceiling] (AWS "full jitter").
 * - `equal`: uniform in [ceiling / 2, ceiling].
 * - `decorrelated`: grows from the previous sleep (AWS "decorrelated jitter").
 * - `randomized`: uniform in ceiling x [1 - f, 1 + f] with f = `randomizationFactor`, Resilience4j's
 *   `enable-randomized-wait`, so a Spring service and a Node service read one config the same way.
 */
export type Jitter = 'full' | 'equal' | 'decorrelated' | 'randomized';

export interface BackoffOptions {
  initialDelayMs: number;
  multiplier: number;
  maxDelayMs: number;
  jitter: Jitter;
  /** Only for `randomized`: how far a wait may stray from the ceiling, within (0, 1). Default 0.5. */
  randomizationFactor?: number;
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
  readonly #factor: number;
  readonly #random: () => number;

  constructor(options: BackoffOptions) {
    this.#initial = options.initialDelayMs;
    this.#multiplier = options.multiplier;
    this.#max = options.maxDelayMs;
    this.#jitter = options.jitter;
    this.#factor = options.randomizationFactor ?? 0.5;
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
    if (this.#jitter === 'randomized') {
      // Resilience4j clamps the randomised wait to the cap, so at the cap every client sleeps the
      // same time again; narrowing the band below the cap keeps them apart.
      const low = ceiling * (1 - this.#factor);
      const high = Math.min(this.#max, ceiling * (1 + this.#factor));
      return low + this.#random() * (high - low);
    }
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
  if (jitter !== 'full' && jitter !== 'equal' && jitter !== 'decorrelated' && jitter !== 'randomized') {
    throw new RangeError(`jitter must be 'full', 'equal', 'decorrelated' or 'randomized', got ${String(jitter)}`);
  }
  const factor = options.randomizationFactor;
  if (factor !== undefined && jitter !== 'randomized') {
    throw new RangeError(`randomizationFactor applies only to jitter 'randomized', got jitter '${jitter}'`);
  }
  if (factor !== undefined && !(Number.isFinite(factor) && factor > 0 && factor < 1)) {
    // 0 would be no jitter at all; 1 would let a wait shrink to nothing.
    throw new RangeError(`randomizationFactor must be within (0, 1), got ${String(factor)}`);
  }
  return new ExponentialJitterBackoff(options);
}
