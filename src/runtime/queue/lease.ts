import { TaskQueueError } from './errors.js';
import type { TaskContext, TaskHandler } from './options.js';
import type { ClaimedTask } from './types.js';

/** A task this worker holds a lease on: waiting in the local buffer, or running. */
export class InFlight {
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

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as PromiseLike<unknown>).then === 'function';
}

/** Undefined when the handler succeeded; otherwise why the attempt failed. */
export function runHandler(
  handler: TaskHandler,
  task: ClaimedTask,
  lease: InFlight,
  handlerTimeoutMs: number,
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
