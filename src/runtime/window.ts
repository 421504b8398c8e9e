/**
 * Two running counts over a sliding time window (calls and failures for the breaker, requests and
 * retries for the budget), kept in a small ring of time slots that is slid lazily on access.
 */

/** Enough slots that the window slides smoothly, few enough to stay cheap. */
const SLOTS = 10;

export class SlidingCounts {
  /** Window sum of the first count. */
  first = 0;
  /** Window sum of the second count. */
  second = 0;
  readonly #first = new Float64Array(SLOTS);
  readonly #second = new Float64Array(SLOTS);
  readonly #slotMs: number;
  readonly #now: () => number;
  #slot = 0;
  #epoch: number;

  constructor(windowMs: number, now: () => number) {
    this.#slotMs = windowMs / SLOTS;
    this.#now = now;
    this.#epoch = Math.floor(now() / this.#slotMs);
  }

  /** Drops the slots that fell out of the window; returns the current slot for `add`. */
  roll(): number {
    const epoch = Math.floor(this.#now() / this.#slotMs);
    // A clock that steps back keeps the current slot rather than corrupting the sums.
    if (epoch <= this.#epoch) return this.#slot;
    const steps = Math.min(SLOTS, epoch - this.#epoch);
    let slot = this.#slot;
    for (let i = 0; i < steps; i++) {
      slot = (slot + 1) % SLOTS;
      this.first -= this.#first[slot]!;
      this.second -= this.#second[slot]!;
      this.#first[slot] = 0;
      this.#second[slot] = 0;
    }
    this.#slot = slot;
    this.#epoch = epoch;
    return slot;
  }

  /** Adds to the slot `roll()` returned, so one clock read serves a check and its update. */
  add(slot: number, first: number, second: number): void {
    this.#first[slot]! += first;
    this.#second[slot]! += second;
    this.first += first;
    this.second += second;
  }

  clear(): void {
    this.#first.fill(0);
    this.#second.fill(0);
    this.first = 0;
    this.second = 0;
  }
}
