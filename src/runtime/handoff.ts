/**
 * The contract between the in-memory retry policy and a durable task queue.
 *
 * In-memory retry is for transient failures that clear within a few seconds (R-RES-RE-4). When the
 * policy runs out of attempts, time, budget or breaker permission, the work is still worth doing,
 * just not by blocking the caller. A `Handoff` takes it over and the caller gets a `Deferred`
 * receipt instead of an error.
 */

export type GiveUpReason =
  | 'not-retryable'
  | 'attempts'
  | 'deadline'
  | 'budget'
  | 'circuit-open'
  | 'retry-after-too-long';

export interface HandoffContext {
  /** The same key every attempt used; a queue must reuse it or the remote cannot deduplicate. */
  idempotencyKey: string | undefined;
  reason: GiveUpReason;
  error: unknown;
  attempts: number;
}

export type Handoff = (ctx: HandoffContext) => Promise<{ taskId: string }>;

export class Deferred {
  readonly deferred = true;
  constructor(
    readonly taskId: string,
    readonly reason: GiveUpReason,
    readonly idempotencyKey: string | undefined,
    readonly error: unknown,
  ) {}
}

/**
 * Only failures that could succeed later are handed off. A contract error (4xx) would fail the
 * same way from the queue, and the caller's own abort means nobody wants the result any more.
 */
export function isHandoffReason(reason: GiveUpReason): boolean {
  return reason !== 'not-retryable';
}
