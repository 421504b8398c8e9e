/**
 * Monotonic milliseconds. Looked up on every call (not captured at import) so fake timers in tests
 * and wall-clock adjustments in production both behave.
 */
export function monotonicNow(): number {
  return performance.now();
}
