/*
 * Structural copy of the hand-off contract of the in-memory retry policy (src/runtime/handoff.ts).
 * Kept here until that module is on main; the shapes must stay identical.
 */
export type GiveUpReason = 'not-retryable' | 'attempts' | 'deadline' | 'budget' | 'circuit-open' | 'retry-after-too-long';

export interface HandoffContext {
  idempotencyKey: string | undefined;
  reason: GiveUpReason;
  error: unknown;
  attempts: number;
}

export type Handoff = (ctx: HandoffContext) => Promise<{ taskId: string }>;
