/**
 * Throw this from a task handler when repeating the task cannot help (a 4xx-style contract error,
 * a payload that fails validation): the task goes straight to FAILED instead of burning its
 * remaining attempts, and `onFailed` tells a human.
 */
export class NonRetryableTaskError extends Error {
  override readonly name: string = 'NonRetryableTaskError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export type TaskQueueErrorCode =
  | 'INVALID_OPTION'
  | 'UNKNOWN_KIND'
  | 'PAYLOAD_NOT_JSON'
  | 'IDEMPOTENCY_KEY_CONFLICT'
  | 'MISSING_DRIVER'
  | 'SQLITE_UNSAFE_MODE'
  | 'NOT_HANDED_OFF'
  | 'HANDLER_TIMEOUT'
  | 'STOPPED';

/** Misuse of the queue (bad options, bad input, unsafe database setup), reported at the call site. */
export class TaskQueueError extends Error {
  override readonly name: string = 'TaskQueueError';
  /** PAYLOAD_NOT_JSON: where the offending value sits, such as `payload.items[2].when`. */
  readonly path?: string;
  constructor(
    readonly code: TaskQueueErrorCode,
    message: string,
    options?: { cause?: unknown; path?: string },
  ) {
    super(message, options);
    if (options?.path !== undefined) this.path = options.path;
  }
}
