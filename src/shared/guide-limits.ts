/**
 * The guide's limits (GUIDE.md), stated once. The runtime enforces them, the rules judge code and
 * Spring YAML against them, and the Resilience4j reader applies them to `application.yml`; none of
 * them keeps a number of its own.
 *
 * Pure: imports nothing, so the runtime (which ships to production) and the linter share it.
 */

/** Attempts, the first call included: 3 is the typical configuration (R-RES-RE-2, R-RES-RE-3). */
export const TYPICAL_ATTEMPTS = 3;

/** More attempts than this is not an in-memory retry but a task queue (R-RES-RE-3). */
export const MAX_ATTEMPTS = 5;

/** The typical first wait (R-RES-RE-2). */
export const TYPICAL_FIRST_WAIT_MS = 500;

/** The typical growth per retry: 500 ms, 1 s, ... (R-RES-RE-2). */
export const TYPICAL_MULTIPLIER = 2;

/**
 * Worst-case time a retry may spend in memory, waits and per-attempt timeouts included (R-RES-RE-4,
 * "under about 5 s"); also the caller's SLA bound of R-RES-RE-2.
 */
export const IN_MEMORY_MS = 5000;

/** Past this much time, a durable task queue with a database-driven scheduler (R-RES-RE-4, R-RES-RE-5). */
export const QUEUE_MS = 30_000;

/** A durable retry gives up after this many attempts, marks the task FAILED and alerts a human (R-RES-RE-5). */
export const DURABLE_MAX_ATTEMPTS = 10;

/**
 * Backoff must grow: a multiplier of 1 is constant backoff and below 1 it shrinks (R-RES-RE-X3).
 * Jitter is required on top of it (R-RES-RE-X3, second document).
 */
export function growsExponentially(multiplier: number): boolean {
  return multiplier > 1;
}

/** The only 4xx that may succeed later: a request timeout, and rate limiting honouring Retry-After (R-RES-RE-X2). */
export const RETRYABLE_CLIENT_ERRORS: ReadonlySet<number> = new Set([408, 429]);

/** A 4xx contract error (validation, auth, not found): never retried (R-RES-RE-X2). */
export function isNonRetryableClientError(status: number): boolean {
  return Number.isInteger(status) && status >= 400 && status <= 499 && !RETRYABLE_CLIENT_ERRORS.has(status);
}
