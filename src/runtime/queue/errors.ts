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
  | 'STOPPED';

/** Misuse of the queue (bad options, bad input, unsafe database setup), reported at the call site. */
export class TaskQueueError extends Error {
  override readonly name: string = 'TaskQueueError';
  constructor(
    readonly code: TaskQueueErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
