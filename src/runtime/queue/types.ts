export type TaskStatus = 'pending' | 'running' | 'completed' | 'failed';

/** A task row as the stores return it. */
export interface Task<P = unknown> {
  id: string;
  kind: string;
  payload: P;
  status: TaskStatus;
  /** Unique across the table: enqueueing the same key again returns the existing task. */
  idempotencyKey: string | null;
  /** How many times the task has been started (claimed), including runs lost to a crash. */
  attempts: number;
  maxAttempts: number;
  /**
   * When the scheduler next acts on the row: pending, run it; running, the lease expires and another
   * worker may take it; failed and not yet alerted, call `onFailed`.
   */
  nextAttemptAt: Date;
  lastError: string | null;
  lockedAt: Date | null;
  lockedBy: string | null;
  alertedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a store hands back from a claim: the row plus the lease token that complete/fail must match. */
export interface ClaimedTask extends Task {
  leaseToken: string;
}

export interface NewTaskRow {
  id: string;
  kind: string;
  payloadJson: string;
  idempotencyKey: string | null;
  /** Absolute due time; when null the task is due `delayMs` after the store's now. */
  runAt: Date | null;
  delayMs: number;
  maxAttempts: number;
  lastError: string | null;
}

export interface EnqueueOutcome {
  taskId: string;
  /** false when a task with the same idempotency key already existed (whatever its status). */
  created: boolean;
}

export type TaskCounts = Record<TaskStatus, number>;

/**
 * Time as the queue sees it. `undefined` means "the database's own clock" (PostgreSQL `now()`);
 * a Date comes only from an injected test clock.
 */
export type StoreNow = Date | undefined;

/**
 * What the queue needs from a database. Both shipped stores implement it; it is exported so that
 * the conformance suite can describe it, not as an invitation to write stores without that suite.
 */
export interface TaskStore {
  readonly dialect: 'sqlite' | 'postgres';
  /** Creates or upgrades the schema; safe to call from several processes at once. */
  migrate(): Promise<void>;
  enqueue(rows: readonly NewTaskRow[], ctx: { now: StoreNow; client?: unknown }): Promise<EnqueueOutcome[]>;
  claim(req: { workerId: string; kinds: readonly string[]; limit: number; leaseMs: number; token: string; now: StoreNow }): Promise<ClaimedTask[]>;
  /**
   * Completes `complete` as `complete` does and claims as `claim` does, in one round trip and one
   * commit. Optional: without it the queue sends the two separately.
   */
  claimAndComplete?(req: {
    workerId: string;
    kinds: readonly string[];
    limit: number;
    leaseMs: number;
    token: string;
    now: StoreNow;
    complete: readonly { id: string; token: string }[];
  }): Promise<{ claimed: ClaimedTask[]; completed: Set<string> }>;
  /** Completes the tasks whose lease token still matches; returns their ids. */
  complete(req: { tasks: readonly { id: string; token: string }[]; now: StoreNow }): Promise<Set<string>>;
  /** Puts claimed tasks that never started back to pending, undoing the claim's attempt count. */
  release(req: { tasks: readonly { id: string; token: string }[]; now: StoreNow }): Promise<number>;
  /** Returns the new status, or null when the lease was lost (someone else owns the task now). */
  fail(req: { id: string; token: string; error: string; delayMs: number; terminal: boolean; now: StoreNow }): Promise<'pending' | 'failed' | null>;
  /** Extends the leases still held; returns the ids whose lease was extended. */
  extendLeases(req: { leases: readonly { id: string; token: string }[]; leaseMs: number; now: StoreNow }): Promise<Set<string>>;
  claimAlerts(req: { limit: number; leaseMs: number; token: string; now: StoreNow }): Promise<ClaimedTask[]>;
  markAlerted(req: { id: string; token: string; now: StoreNow }): Promise<boolean>;
  get(id: string): Promise<Task | undefined>;
  list(req: { status?: TaskStatus; kind?: string; limit: number; offset: number }): Promise<Task[]>;
  redrive(req: { id: string; now: StoreNow }): Promise<boolean>;
  purgeCompleted(req: { olderThanMs: number; now: StoreNow }): Promise<number>;
  counts(): Promise<TaskCounts>;
  /** Push wake-ups (PostgreSQL LISTEN). Absent: the queue only polls. */
  subscribe?(onWake: () => void, onError: (error: unknown) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
