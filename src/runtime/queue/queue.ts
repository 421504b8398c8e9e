import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { NonRetryableTaskError, TaskQueueError } from './errors.js';
import type { Handoff, HandoffContext } from '../handoff.js';
import { metricsHub, type RuntimeMetrics } from '../metrics.js';
import type { PgQueryable } from './postgres.js';
import type { ClaimedTask, EnqueueOutcome, NewTaskRow, StoreNow, Task, TaskCounts, TaskStore } from './types.js';
import { assertInt, backoffDelayMs, describeError, sleep, toPayloadJson, uuidv7 } from './util.js';

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

/** A task this worker holds a lease on: waiting in the local buffer, or running. */
class InFlight {
  readonly done: Promise<void>;
  settle: () => void = () => undefined;
  aborted = false;
  #reason: unknown = undefined;
  #controller: AbortController | undefined = undefined;

  constructor(
    readonly id: string,
    readonly token: string,
  ) {
    this.done = new Promise<void>((resolve) => (this.settle = resolve));
  }

  /** Created on first read: an AbortSignal costs microseconds, and most handlers never look. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

class HandlerContext implements TaskContext {
  readonly #lease: InFlight;
  readonly taskId: string;
  readonly idempotencyKey: string | undefined;
  readonly attempt: number;
  readonly maxAttempts: number;

  constructor(task: ClaimedTask, lease: InFlight) {
    this.#lease = lease;
    this.taskId = task.id;
    this.idempotencyKey = task.idempotencyKey ?? undefined;
    this.attempt = task.attempts;
    this.maxAttempts = task.maxAttempts;
  }

  get signal(): AbortSignal {
    return this.#lease.signal;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as PromiseLike<unknown>).then === 'function';
}

function defaultOnError(error: unknown, where: string): void {
  console.error(`[safe-retry queue] ${where}:`, error);
}

export function createTaskQueue<H extends TaskHandlers>(options: TaskQueueOptions<H>): TaskQueue<H> {
  if (!options || typeof options !== 'object') throw new TaskQueueError('INVALID_OPTION', 'createTaskQueue needs an options object');
  const { store } = options;
  if (!store || typeof store.claim !== 'function') throw new TaskQueueError('INVALID_OPTION', 'createTaskQueue needs a store: sqliteStore(...) or postgresStore(...)');
  const handlers = options.handlers ?? ({} as H);
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

  let migrated: Promise<void> | undefined;
  const migrate = () => {
    migrated ??= store.migrate().catch((error: unknown) => {
      migrated = undefined;
      throw error;
    });
    return migrated;
  };

  function toRow(item: EnqueueItem, extra?: { delayMs?: number; lastError?: string | null }): NewTaskRow {
    const { kind } = item;
    if (typeof kind !== 'string' || !known.has(kind)) {
      throw new TaskQueueError(
        'UNKNOWN_KIND',
        `unknown task kind ${JSON.stringify(kind)}: no handler for it here (known: ${[...known].map((k) => JSON.stringify(k)).join(', ') || 'none'}); add a handler, or list it in enqueueOnlyKinds if another service runs it`,
      );
    }
    const payloadJson = toPayloadJson(kind, item.payload);
    const key = item.idempotencyKey;
    if (key !== undefined && (typeof key !== 'string' || key.length === 0 || key.length > 1000)) {
      throw new TaskQueueError('INVALID_OPTION', `idempotencyKey must be a non-empty string of at most 1000 characters, got ${JSON.stringify(key)}`);
    }
    let runAt: Date | null = null;
    if (item.runAt !== undefined) {
      runAt = item.runAt instanceof Date ? new Date(item.runAt.getTime()) : new Date(item.runAt);
      if (Number.isNaN(runAt.getTime())) throw new TaskQueueError('INVALID_OPTION', `runAt is not a valid time: ${String(item.runAt)}`);
    }
    return {
      id: uuidv7(),
      kind,
      payloadJson,
      idempotencyKey: key ?? null,
      runAt,
      delayMs: extra?.delayMs ?? 0,
      maxAttempts: assertInt('maxAttempts', item.maxAttempts ?? maxAttempts, 1),
      lastError: extra?.lastError ?? null,
    };
  }

  async function insert(rows: NewTaskRow[], client: unknown): Promise<EnqueueOutcome[]> {
    await migrate();
    return store.enqueue(rows, { now: now(), client });
  }

  // ---- worker state ----
  let running = false;
  let loopDone: Promise<void> | undefined;
  let unsubscribe: (() => Promise<void>) | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  const inflight = new Map<string, InFlight>();
  const buffer: ClaimedTask[] = [];
  let active = 0;
  // Refill the local buffer before it runs dry, so the next claim overlaps the running tasks.
  const lowWater = Math.min(concurrency, batchSize);
  let wakeResolve: (() => void) | undefined;
  let wakePending = false;
  let backlog = false;
  let alertsWanted = false;
  let lastAlertSweep = 0;

  const wake = () => {
    wakePending = true;
    wakeResolve?.();
  };

  function waitForWake(ms: number): Promise<void> {
    if (wakePending) {
      wakePending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeResolve = undefined;
        wakePending = false;
        resolve();
      }
      wakeResolve = done;
    });
  }

  async function withRetries<T>(what: string, fn: () => Promise<T>): Promise<T> {
    // A blip while recording an outcome should not cost a re-run; a long outage still ends in the
    // lease expiring and the task running again (at-least-once, which is why it carries a key).
    const waits = [100, 500, 2000];
    for (let i = 0; ; i++) {
      try {
        return await fn();
      } catch (error) {
        if (i >= waits.length) throw error;
        safeOnError(error, `${what} (retrying)`);
        await sleep(waits[i] ?? 0);
      }
    }
  }

  type Completion = { id: string; token: string; resolve: (ok: boolean) => void; reject: (e: unknown) => void };
  /**
   * Completions that arrive in the same turn of the event loop share one statement (one commit,
   * one fsync): with short handlers, per-task commits are what limits throughput. When the worker
   * is about to claim again anyway, they ride on that claim instead (`claimAndComplete`).
   */
  const completer = (() => {
    let batch: Completion[] = [];
    let scheduled = false;
    const flush = async () => {
      scheduled = false;
      if (batch.length === 0) return;
      const current = batch;
      batch = [];
      try {
        const done = await withRetries('completing tasks', () => store.complete({ tasks: current, now: now() }));
        for (const c of current) c.resolve(done.has(c.id));
      } catch (error) {
        for (const c of current) c.reject(error);
      }
    };
    return {
      complete(id: string, token: string): Promise<boolean> {
        return new Promise((resolve, reject) => {
          batch.push({ id, token, resolve, reject });
          if (!scheduled) {
            scheduled = true;
            setImmediate(() => {
              // The loop is claiming again: it takes this batch along (it flushes when it stops).
              if (claimWanted()) scheduled = false;
              else void flush();
            });
          }
        });
      },
      /** For the next claim: the completions waiting now. */
      take(): Completion[] {
        const current = batch;
        batch = [];
        return current;
      },
      flush,
    };
  })();

  /** A claim that carried completions tells each one how it went. */
  function settleCompletions(taken: Completion[], result: { completed: Set<string> } | { error: unknown }): void {
    for (const c of taken) {
      if ('error' in result) c.reject(result.error);
      else c.resolve(result.completed.has(c.id));
    }
  }

  async function recordFailure(task: ClaimedTask, error: string, terminal: boolean): Promise<void> {
    const delayMs = backoffDelayMs(task.attempts, { baseDelayMs, maxDelayMs, jitter });
    const status = await withRetries('recording a failed attempt', () =>
      store.fail({ id: task.id, token: task.leaseToken, error, delayMs, terminal, now: now() }),
    );
    meter?.failed(task.kind, status === 'failed');
    if (status === null) {
      safeOnError(new Error(`task ${task.id} (${task.kind}) failed after its lease was lost; the new owner decides its fate`), 'fail');
    } else if (status === 'failed' && onFailed) {
      alertsWanted = true;
      wake();
    }
  }

  /**
   * `freeSlot` is called as soon as the handler settles: the concurrency limit is about handlers,
   * and the outcome's write (batched with others) need not hold a slot. The lease stays held until
   * the write lands.
   */
  async function execute(task: ClaimedTask, lease: InFlight, freeSlot: () => void): Promise<void> {
    if (task.attempts > task.maxAttempts) {
      // The previous owner took the last attempt and never reported back (crash, or stalled past
      // its lease). Running it again would exceed the bound.
      await recordFailure(task, `attempt ${task.maxAttempts} of ${task.maxAttempts} never reported back (worker crashed or lost its lease); no attempts left. Previous error: ${task.lastError ?? 'none'}`, true);
      return;
    }
    const handler = handlers[task.kind];
    if (!handler) {
      await recordFailure(task, `no handler for task kind "${task.kind}" in worker ${workerId}`, true);
      return;
    }
    const outcome = await runHandler(handler, task, lease);
    freeSlot();
    if (outcome !== undefined) {
      await recordFailure(task, describeError(outcome.error), outcome.error instanceof NonRetryableTaskError);
      return;
    }
    const ok = await completer.complete(task.id, task.leaseToken);
    if (ok) meter?.completed(task.kind);
    if (!ok) {
      safeOnError(new Error(`task ${task.id} (${task.kind}) finished after its lease was lost; another worker may have run it too`), 'complete');
    }
  }

  /** Undefined when the handler succeeded; otherwise why the attempt failed. */
  function runHandler(handler: TaskHandler, task: ClaimedTask, lease: InFlight): Promise<{ error: unknown; timedOut: boolean } | undefined> | { error: unknown; timedOut: boolean } | undefined {
    let result: unknown;
    try {
      result = handler(task.payload, new HandlerContext(task, lease));
    } catch (error) {
      return { error, timedOut: false };
    }
    if (!isThenable(result)) return undefined;
    return new Promise((resolve) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        const error = new TaskQueueError(
          'HANDLER_TIMEOUT',
          `handler for task ${task.id} ("${task.kind}") did not settle within handlerTimeoutMs (${handlerTimeoutMs} ms); this attempt counts as failed and the task is retried after its backoff`,
        );
        lease.abort(error);
        resolve({ error, timedOut: true });
      }, handlerTimeoutMs);
      const settled = (error: unknown, failed: boolean) => {
        if (timedOut) {
          safeOnError(new Error(`the handler of task ${task.id} ("${task.kind}") settled after its timeout; its outcome was ignored`, failed ? { cause: error } : undefined), 'handler timeout');
          return;
        }
        clearTimeout(timer);
        resolve(failed ? { error, timedOut: false } : undefined);
      };
      result.then(
        () => settled(undefined, false),
        (error: unknown) => settled(error, true),
      );
    });
  }

  function hold(task: ClaimedTask): InFlight {
    const entry = new InFlight(task.id, task.leaseToken);
    inflight.set(task.id, entry);
    buffer.push(task);
    ensureHeartbeat();
    return entry;
  }

  function pump(): void {
    while (active < concurrency && buffer.length > 0) {
      const task = buffer.shift() as ClaimedTask;
      const entry = inflight.get(task.id);
      if (!entry) continue;
      active++;
      let freed = false;
      const freeSlot = () => {
        if (freed) return;
        freed = true;
        active--;
        pump();
        if ((backlog && buffer.length < lowWater) || alertsWanted) wake();
      };
      execute(task, entry, freeSlot)
        .catch((error: unknown) => safeOnError(error, `task ${task.id} (${task.kind})`))
        .finally(() => {
          freeSlot();
          if (inflight.get(task.id) === entry) inflight.delete(task.id);
          entry.settle();
          if (alertsWanted) wake();
        });
    }
  }

  function ensureHeartbeat() {
    if (heartbeat) return;
    heartbeat = setInterval(() => {
      if (inflight.size === 0) return;
      const leases = [...inflight.values()].map((e) => ({ id: e.id, token: e.token }));
      store.extendLeases({ leases, leaseMs, now: now() }).then(
        (kept) => {
          for (const l of leases) {
            const e = inflight.get(l.id);
            if (e && e.token === l.token && !kept.has(l.id)) {
              e.abort(new Error(`lease on task ${l.id} was lost; another worker may run it now`));
            }
          }
        },
        (error: unknown) => safeOnError(error, 'extending leases'),
      );
    }, Math.max(50, Math.floor(leaseMs / 3)));
    heartbeat.unref?.();
  }

  async function claimBatch(limit: number): Promise<InFlight[]> {
    await migrate();
    const req = { workerId, kinds, limit, leaseMs, token: randomUUID(), now: now() };
    const taken = store.claimAndComplete ? completer.take() : [];
    let tasks: ClaimedTask[];
    if (taken.length === 0) {
      tasks = await store.claim(req);
    } else {
      let result: { claimed: ClaimedTask[]; completed: Set<string> };
      try {
        result = await (store.claimAndComplete as NonNullable<TaskStore['claimAndComplete']>)({ ...req, complete: taken });
      } catch (error) {
        // The completions were not recorded: send them alone, with the usual retries.
        for (const c of taken) void completer.complete(c.id, c.token).then(c.resolve, c.reject);
        throw error;
      }
      settleCompletions(taken, result);
      tasks = result.claimed;
    }
    backlog = tasks.length === limit;
    const entries = tasks.map(hold);
    pump();
    return entries;
  }

  /** Gives back claimed tasks that never started, so they need not wait for their lease. */
  async function releaseBuffered(): Promise<void> {
    const unstarted = buffer.splice(0);
    if (unstarted.length === 0) return;
    try {
      await store.release({ tasks: unstarted.map((t) => ({ id: t.id, token: t.leaseToken })), now: now() });
    } catch (error) {
      safeOnError(error, 'releasing unstarted tasks (they come back when their lease expires)');
    }
    for (const t of unstarted) {
      inflight.get(t.id)?.settle();
      inflight.delete(t.id);
    }
  }

  async function sweepAlerts(): Promise<void> {
    if (!onFailed) return;
    alertsWanted = false;
    lastAlertSweep = Date.now();
    for (;;) {
      const token = randomUUID();
      const due = await store.claimAlerts({ limit: batchSize, leaseMs, token, now: now() });
      for (const task of due) {
        const { leaseToken: _, ...visible } = task;
        try {
          await onFailed({ ...visible, alertedAt: null });
        } catch (error) {
          // Left claimed: it is offered again once the alert lease runs out.
          safeOnError(error, `onFailed for task ${task.id}`);
          continue;
        }
        await withRetries('recording an alert', () => store.markAlerted({ id: task.id, token, now: now() }));
      }
      if (due.length < batchSize) return;
    }
  }

  async function loop(): Promise<void> {
    let errorDelay = 0;
    while (running) {
      try {
        if (!unsubscribe && store.subscribe) {
          await migrate();
          unsubscribe = await store.subscribe(wake, (error) => safeOnError(error, 'LISTEN connection'));
        }
        if (buffer.length < lowWater) await claimBatch(batchSize - buffer.length);
        if (onFailed && (alertsWanted || Date.now() - lastAlertSweep >= pollIntervalMs)) await sweepAlerts();
        errorDelay = 0;
      } catch (error) {
        safeOnError(error, 'polling');
        backlog = false;
        // Completions that were waiting for this claim go on their own.
        void completer.flush();
        errorDelay = Math.min(Math.max(errorDelay * 2, 250), pollIntervalMs);
        await sleep(errorDelay);
        continue;
      }
      if (!running) break;
      if (claimWanted()) {
        // Let several finished tasks free their slots before the next claim.
        await new Promise((r) => setImmediate(r));
        continue;
      }
      // No claim soon: completions waiting for one go on their own.
      await completer.flush();
      await waitForWake(pollIntervalMs);
    }
    await completer.flush();
  }

  /** The loop claims again as soon as it can: completions can wait for that claim. */
  function claimWanted(): boolean {
    return running && backlog && buffer.length < lowWater;
  }

  const queue: TaskQueue<H> = {
    store,
    workerId,
    migrate,

    async enqueue(kind, payload, opts = {}) {
      const row = toRow({ kind, payload, idempotencyKey: opts.idempotencyKey, runAt: opts.runAt, maxAttempts: opts.maxAttempts });
      const [out] = await insert([row], opts.client);
      return out as EnqueueOutcome;
    },

    async enqueueMany(items, opts = {}) {
      const rows = items.map((item) => toRow(item));
      return insert(rows, opts.client);
    },

    handoff(kind, payload, opts = {}) {
      const delayMs = assertInt('handoff delayMs', opts.delayMs ?? baseDelayMs * 2, 0);
      // Validate now: a bad payload should surface when the operation is set up, not when it gives up.
      toRow({ kind, payload, maxAttempts: opts.maxAttempts });
      return async (ctx: HandoffContext) => {
        if (ctx.reason === 'not-retryable') {
          throw new TaskQueueError('NOT_HANDED_OFF', `not handing off "${kind}": the error is not retryable (a contract error fails the same way from the queue)`, { cause: ctx.error });
        }
        const row = toRow(
          { kind, payload, idempotencyKey: ctx.idempotencyKey, maxAttempts: opts.maxAttempts },
          { delayMs, lastError: `handed off by the in-memory retry policy after ${ctx.attempts} attempt(s), reason "${ctx.reason}": ${describeError(ctx.error)}` },
        );
        const [out] = await insert([row], undefined);
        return { taskId: (out as EnqueueOutcome).taskId };
      };
    },

    start() {
      if (running) return;
      if (kinds.length === 0) throw new TaskQueueError('INVALID_OPTION', 'start() needs at least one handler; this queue can only enqueue');
      running = true;
      wakePending = true;
      loopDone = loop();
    },

    async stop(opts = {}) {
      const timeoutMs = opts.timeoutMs ?? stopTimeoutMs;
      if (running) {
        running = false;
        wake();
        await loopDone;
      }
      const unsub = unsubscribe;
      unsubscribe = undefined;
      await unsub?.().catch((error: unknown) => safeOnError(error, 'UNLISTEN'));
      await releaseBuffered();
      const pending = [...inflight.values()];
      if (pending.length > 0) {
        let timer: NodeJS.Timeout | undefined;
        const timedOut = await Promise.race([
          Promise.allSettled(pending.map((e) => e.done)).then(() => false),
          new Promise<boolean>((r) => (timer = setTimeout(() => r(true), timeoutMs))),
        ]);
        clearTimeout(timer);
        if (timedOut) {
          // Their rows stay RUNNING under a lease that is no longer renewed: another worker takes
          // them when it expires. Releasing them now would let two copies run at once.
          for (const e of inflight.values()) e.abort(new TaskQueueError('STOPPED', 'queue stopped before this task finished'));
        }
      }
      // Stopped means no more renewals, also for handlers still running past the timeout.
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = undefined;
    },

    async runOnce() {
      const started = await claimBatch(batchSize);
      await Promise.all(started.map((e) => e.done));
      await sweepAlerts();
      if (inflight.size === 0 && heartbeat && !running) {
        clearInterval(heartbeat);
        heartbeat = undefined;
      }
      return started.length;
    },

    async stats() {
      await migrate();
      return store.counts();
    },

    async getTask(id) {
      await migrate();
      return store.get(id);
    },

    async listFailed(opts = {}) {
      await migrate();
      return store.list({ status: 'failed', kind: opts.kind, limit: assertInt('limit', opts.limit ?? 100, 1), offset: assertInt('offset', opts.offset ?? 0, 0) });
    },

    async redrive(taskId) {
      await migrate();
      const ok = await store.redrive({ id: taskId, now: now() });
      if (ok) wake();
      return ok;
    },

    async purgeCompleted(opts) {
      await migrate();
      return store.purgeCompleted({ olderThanMs: assertInt('olderThanMs', opts?.olderThanMs, 0), now: now() });
    },
  };
  return queue;
}
