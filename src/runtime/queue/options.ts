import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { TaskQueueError } from './errors.js';
import type { Handoff } from '../handoff.js';
import { metricsHub, type QueueMeter, type RuntimeMetrics } from '../metrics.js';
import type { PgQueryable } from './postgres.js';
import type { EnqueueOutcome, StoreNow, Task, TaskCounts, TaskStore } from './types.js';
import { assertInt } from './util.js';

export interface TaskContext {
  taskId: string;
  /** The key the task was enqueued with (the same one the in-memory attempts used, after a hand-off). */
  idempotencyKey: string | undefined;
  /** 1-based; counts runs lost to a crash too. */
  attempt: number;
  maxAttempts: number;
  /** Aborted when the worker lost its lease (another worker may run the task now) or stop() timed out. */
  signal: AbortSignal;
}

export type TaskHandler<P = any> = (payload: P, ctx: TaskContext) => unknown;
export type TaskHandlers = Record<string, TaskHandler<any>>;
export type PayloadOf<H> = H extends TaskHandler<infer P> ? P : never;

/** What `onFailed` receives: the task as it was when it reached FAILED. */
export type FailedTask = Task;

export interface TaskQueueOptions<H extends TaskHandlers> {
  store: TaskStore;
  /** One handler per task kind. This queue claims only the kinds it has handlers for. */
  handlers: H;
  /** Kinds this process may enqueue but does not run (another service handles them). */
  enqueueOnlyKinds?: readonly string[];
  /** Poll period when nothing wakes the worker. Default 5000 ms (PostgreSQL also wakes on NOTIFY). */
  pollIntervalMs?: number;
  /** Most tasks taken by one claim; they wait in a local buffer for a free slot. Default 50. */
  batchSize?: number;
  /** Most tasks running at once in this process. Default 8. */
  concurrency?: number;
  /** Attempts before FAILED (R-RES-RE-5 says about 10). Default 10. */
  maxAttempts?: number;
  /** Next attempt after baseDelayMs * 2^attempt: 2, 4, 8 ... s with the default 1000. */
  baseDelayMs?: number;
  /** Cap for one wait. Default one hour. */
  maxDelayMs?: number;
  /** Fraction of each wait that is randomised away (0 = exact, 1 = full jitter). Default 0.2. */
  jitter?: number;
  /** A crashed worker's task is taken again after this. Renewed while the handler runs. Default 60 s. */
  leaseMs?: number;
  /** Called once per task that reaches FAILED; after a crash mid-call it is called again (see README). */
  onFailed?: (task: FailedTask) => unknown;
  /** Errors the queue cannot throw to anyone (database down while polling, onFailed threw). Default: console.error. */
  onError?: (error: unknown, where: string) => void;
  /**
   * Longest a handler may run. When it passes, the handler's signal aborts with a TaskQueueError
   * coded HANDLER_TIMEOUT, the attempt is recorded as failed with that error (retried after the
   * usual backoff, or FAILED if it was the last), the concurrency slot is freed and the lease is no
   * longer renewed. Whatever the handler does later is ignored. Default 5 minutes.
   */
  handlerTimeoutMs?: number;
  /** How long stop() waits for running handlers. Default 30 s. */
  stopTimeoutMs?: number;
  workerId?: string;
  /** The `queue` attribute of this queue's metrics. Default 'default'. */
  name?: string;
  /** From `enableMetrics()`: report depth by status (read from the store at export), completions and failures. */
  metrics?: RuntimeMetrics;
  /**
   * Test hook: epoch-ms clock used for every time decision instead of the database's own clock.
   * Leave unset in production; on PostgreSQL the default is `now()` of the database.
   */
  clock?: () => number;
}

export interface EnqueueOptions {
  /** Deduplicates: a second enqueue with the same key returns the first task (while it exists). */
  idempotencyKey?: string;
  /** When the first attempt is due (Date or epoch ms). Default: now. */
  runAt?: Date | number;
  maxAttempts?: number;
  /** PostgreSQL: a pg client inside your transaction; the task commits or rolls back with it. */
  client?: PgQueryable;
}

export interface EnqueueItem<K extends string = string> extends Omit<EnqueueOptions, 'client'> {
  kind: K;
  payload: unknown;
}

export interface HandoffOptions {
  /** Delay before the queue's first attempt. Default 2 * baseDelayMs: the dependency just failed. */
  delayMs?: number;
  maxAttempts?: number;
}

export interface TaskQueue<H extends TaskHandlers = TaskHandlers> {
  readonly store: TaskStore;
  readonly workerId: string;
  migrate(): Promise<void>;
  enqueue<K extends string>(kind: K, payload: K extends keyof H ? PayloadOf<H[K]> : unknown, options?: EnqueueOptions): Promise<EnqueueOutcome>;
  enqueueMany(items: readonly EnqueueItem[], options?: { client?: PgQueryable }): Promise<EnqueueOutcome[]>;
  /**
   * A hand-off for the in-memory retry policy: when it gives up for a retryable reason, the
   * operation is enqueued here with the SAME idempotency key. The payload is serialised now, so a
   * payload that is not JSON fails before the operation runs, not when it gives up.
   */
  handoff<K extends string>(kind: K, payload: K extends keyof H ? PayloadOf<H[K]> : unknown, options?: HandoffOptions): Handoff;
  start(): void;
  /**
   * Stops claiming, gives back claimed tasks that had not started, waits for running handlers up
   * to the timeout, then aborts their signals.
   */
  stop(options?: { timeoutMs?: number }): Promise<void>;
  /** Claims one batch of due tasks, runs it to the end (`concurrency` at a time) and delivers pending alerts; returns how many ran. */
  runOnce(): Promise<number>;
  stats(): Promise<TaskCounts>;
  getTask(id: string): Promise<Task | undefined>;
  listFailed(options?: { limit?: number; offset?: number; kind?: string }): Promise<Task[]>;
  /** Sends a FAILED task back to pending with a fresh attempt count. */
  redrive(taskId: string): Promise<boolean>;
  purgeCompleted(options: { olderThanMs: number }): Promise<number>;
}

/** The options of `createTaskQueue`, checked, with their defaults, and what is derived from them. */
export interface QueueSettings {
  readonly store: TaskStore;
  readonly handlers: TaskHandlers;
  readonly pollIntervalMs: number;
  readonly batchSize: number;
  readonly concurrency: number;
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly jitter: number;
  readonly leaseMs: number;
  readonly stopTimeoutMs: number;
  readonly handlerTimeoutMs: number;
  readonly onFailed: ((task: FailedTask) => unknown) | undefined;
  readonly workerId: string;
  /** The kinds this queue runs (it has handlers for them). */
  readonly kinds: string[];
  /** The kinds it may enqueue. */
  readonly known: Set<string>;
  readonly meter: QueueMeter | undefined;
  /** The injected test clock as a Date, or undefined for the store's own clock. */
  readonly now: () => StoreNow;
  /** onError, never throwing. */
  readonly safeOnError: (error: unknown, where: string) => void;
}

function defaultOnError(error: unknown, where: string): void {
  console.error(`[safe-retry queue] ${where}:`, error);
}

export function resolveSettings(options: TaskQueueOptions<TaskHandlers>): QueueSettings {
  if (!options || typeof options !== 'object') throw new TaskQueueError('INVALID_OPTION', 'createTaskQueue needs an options object');
  const { store } = options;
  if (!store || typeof store.claim !== 'function') throw new TaskQueueError('INVALID_OPTION', 'createTaskQueue needs a store: sqliteStore(...) or postgresStore(...)');
  const handlers = options.handlers ?? {};
  for (const [kind, fn] of Object.entries(handlers)) {
    if (typeof fn !== 'function') throw new TaskQueueError('INVALID_OPTION', `handler for "${kind}" is not a function`);
  }
  const pollIntervalMs = assertInt('pollIntervalMs', options.pollIntervalMs ?? 5000, 1);
  const batchSize = assertInt('batchSize', options.batchSize ?? 50, 1);
  const concurrency = assertInt('concurrency', options.concurrency ?? 8, 1);
  const maxAttempts = assertInt('maxAttempts', options.maxAttempts ?? 10, 1);
  const baseDelayMs = assertInt('baseDelayMs', options.baseDelayMs ?? 1000, 0);
  const maxDelayMs = assertInt('maxDelayMs', options.maxDelayMs ?? 3_600_000, 0);
  const leaseMs = assertInt('leaseMs', options.leaseMs ?? 60_000, 100);
  const stopTimeoutMs = assertInt('stopTimeoutMs', options.stopTimeoutMs ?? 30_000, 0);
  const handlerTimeoutMs = assertInt('handlerTimeoutMs', options.handlerTimeoutMs ?? 300_000, 1);
  if (handlerTimeoutMs > 2_147_483_647) throw new TaskQueueError('INVALID_OPTION', `handlerTimeoutMs must be at most 2147483647 (a Node timer's limit), got ${handlerTimeoutMs}`);
  const jitter = options.jitter ?? 0.2;
  if (typeof jitter !== 'number' || !(jitter >= 0 && jitter <= 1)) throw new TaskQueueError('INVALID_OPTION', `jitter must be within [0, 1], got ${String(jitter)}`);
  const onError = options.onError ?? defaultOnError;
  const onFailed = options.onFailed;
  const clock = options.clock;
  const workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const kinds = Object.keys(handlers);
  const known = new Set([...kinds, ...(options.enqueueOnlyKinds ?? [])]);
  const meter = metricsHub(options.metrics)?.queue(options.name ?? 'default');

  const now = (): StoreNow => (clock ? new Date(clock()) : undefined);
  const safeOnError = (error: unknown, where: string) => {
    try {
      onError(error, where);
    } catch {
      // an error reporter that throws must not stop the worker
    }
  };
  if (meter !== undefined) {
    // Read at export, not migrated first: a metrics scrape must not change the database.
    meter.counts = () => store.counts();
    meter.onError = (error) => safeOnError(error, 'metrics: reading queue depth');
  }
  return {
    store, handlers, pollIntervalMs, batchSize, concurrency, maxAttempts, baseDelayMs, maxDelayMs, jitter, leaseMs,
    stopTimeoutMs, handlerTimeoutMs, onFailed, workerId, kinds, known, meter, now, safeOnError,
  };
}
