import { TaskQueueError } from './errors.js';
import type { TaskContext, TaskHandler } from './options.js';
import type { ClaimedTask } from './types.js';

/** A task this worker holds a lease on: waiting in the local buffer, or running. */
export class InFlight {
  aborted = false;
  /** The task holds one of the worker's concurrency slots (its handler runs). */
  slot = false;
  #settled = false;
  #done: Promise<void> | undefined = undefined;
  #resolve: (() => void) | undefined = undefined;
  #reason: unknown = undefined;
  #controller: AbortController | undefined = undefined;

  constructor(
    readonly id: string,
    readonly token: string,
  ) {}

  /** Resolves once the worker lets go of the task. Created on first read: most are never awaited. */
  get done(): Promise<void> {
    if (this.#done === undefined) {
      this.#done = this.#settled ? Promise.resolve() : new Promise<void>((resolve) => (this.#resolve = resolve));
    }
    return this.#done;
  }

  settle(): void {
    this.#settled = true;
    this.#resolve?.();
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

interface Running {
  readonly deadline: number;
  /** Called once when the deadline passes first; never after `settled`. */
  readonly expire: () => void;
  settled: boolean;
}

/**
 * The handler timeout for every running handler of a worker, on one timer instead of one per task.
 * All handlers share one timeout, so deadlines come in start order: the timer is set for the oldest
 * unsettled one. Settled entries are dropped from the front as the timer fires and compacted away
 * when they pile up behind a slow handler, so the list stays within a few times the running count.
 */
export class HandlerTimer {
  #entries: Running[] = [];
  #head = 0;
  #live = 0;
  #timer: NodeJS.Timeout | undefined = undefined;

  constructor(readonly timeoutMs: number) {}

  start(expire: () => void): Running {
    const entry: Running = { deadline: performance.now() + this.timeoutMs, expire, settled: false };
    this.#entries.push(entry);
    this.#live++;
    if (this.#timer === undefined) this.#arm(this.timeoutMs);
    return entry;
  }

  settle(entry: Running): void {
    if (entry.settled) return;
    entry.settled = true;
    this.#live--;
    const waiting = this.#entries.length - this.#head;
    if (this.#live === 0) {
      this.#entries = [];
      this.#head = 0;
      if (this.#timer !== undefined) clearTimeout(this.#timer);
      this.#timer = undefined;
    } else if (waiting > 2 * this.#live + 64) {
      this.#entries = this.#entries.slice(this.#head).filter((e) => !e.settled);
      this.#head = 0;
    }
  }

  #arm(ms: number): void {
    // Not unref'd: like the handler's own timer it used to be, it keeps a runOnce() alive until
    // a handler that never settles has timed out.
    this.#timer = setTimeout(() => this.#fire(), Math.max(1, Math.ceil(ms)));
  }

  #fire(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (;;) {
      const entry = this.#entries[this.#head];
      if (entry === undefined) break;
      if (!entry.settled) {
        if (entry.deadline > now) {
          this.#arm(entry.deadline - now);
          break;
        }
        this.settle(entry);
        entry.expire();
        // settle() may have emptied or compacted the list: read the front again.
        continue;
      }
      this.#head++;
    }
    if (this.#head > 0 && this.#head === this.#entries.length) {
      this.#entries = [];
      this.#head = 0;
    }
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

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as PromiseLike<unknown>).then === 'function';
}

/** Undefined when the handler succeeded; otherwise why the attempt failed. */
export function runHandler(
  handler: TaskHandler,
  task: ClaimedTask,
  lease: InFlight,
  timer: HandlerTimer,
  safeOnError: (error: unknown, where: string) => void,
): Promise<{ error: unknown; timedOut: boolean } | undefined> | { error: unknown; timedOut: boolean } | undefined {
  let result: unknown;
  try {
    result = handler(task.payload, new HandlerContext(task, lease));
  } catch (error) {
    return { error, timedOut: false };
  }
  if (!isThenable(result)) return undefined;
  return new Promise((resolve) => {
    let timedOut = false;
    const running = timer.start(() => {
      timedOut = true;
      const error = new TaskQueueError(
        'HANDLER_TIMEOUT',
        `handler for task ${task.id} ("${task.kind}") did not settle within handlerTimeoutMs (${timer.timeoutMs} ms); this attempt counts as failed and the task is retried after its backoff`,
      );
      lease.abort(error);
      resolve({ error, timedOut: true });
    });
    const settled = (error: unknown, failed: boolean) => {
      if (timedOut) {
        safeOnError(new Error(`the handler of task ${task.id} ("${task.kind}") settled after its timeout; its outcome was ignored`, failed ? { cause: error } : undefined), 'handler timeout');
        return;
      }
      timer.settle(running);
      resolve(failed ? { error, timedOut: false } : undefined);
    };
    result.then(
      () => settled(undefined, false),
      (error: unknown) => settled(error, true),
    );
  });
}
