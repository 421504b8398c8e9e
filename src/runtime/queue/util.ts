import { randomBytes } from 'node:crypto';
import { TaskQueueError } from './errors.js';

let lastMs = 0;
let seq = 0;

/**
 * UUID v7: ids sort by creation time, so the claim's `ORDER BY next_attempt_at, id` is FIFO among
 * tasks due at the same instant, and btree inserts stay at the right edge of the index.
 */
export function uuidv7(now: number = Date.now()): string {
  if (now <= lastMs) {
    // Same (or backwards) millisecond: keep ids monotonic within this process.
    seq = (seq + 1) & 0xfff;
    if (seq === 0) lastMs += 1;
    now = lastMs;
  } else {
    lastMs = now;
    seq = randomBytes(2).readUInt16BE(0) & 0x7ff;
  }
  const b = randomBytes(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = 0x70 | (seq >> 8);
  b[7] = seq & 0xff;
  b[8] = 0x80 | ((b[8] ?? 0) & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function toPayloadJson(kind: string, payload: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(payload);
  } catch (error) {
    throw new TaskQueueError(
      'PAYLOAD_NOT_JSON',
      `payload of task "${kind}" does not serialise to JSON: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (typeof json !== 'string') {
    throw new TaskQueueError(
      'PAYLOAD_NOT_JSON',
      `payload of task "${kind}" does not serialise to JSON (got ${typeof payload}); use null for "no payload"`,
    );
  }
  return json;
}

const MAX_ERROR_CHARS = 8000;

/** Handlers may throw anything; last_error must still say what happened. */
export function describeError(error: unknown): string {
  let text: string;
  if (error instanceof Error) {
    text = error.stack && error.stack.includes(error.message) ? error.stack : `${error.name}: ${error.message}`;
    if (error.cause !== undefined) text += `\ncaused by: ${describeError(error.cause)}`;
  } else {
    let shown: string;
    try {
      shown = typeof error === 'string' ? JSON.stringify(error) : (JSON.stringify(error) ?? String(error));
    } catch {
      shown = String(error);
    }
    text = `non-Error thrown (${error === null ? 'null' : typeof error}): ${shown}`;
  }
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}... [truncated]` : text;
}

/**
 * Delay before the next attempt after `attempt` (1-based) failed: base * 2^attempt, so with a 1 s
 * base the waits are 2, 4, 8 ... s (R-RES-RE-5), capped, then jittered downwards so that tasks that
 * failed together (one outage) do not come back together (R-RES-RE-X3).
 */
export function backoffDelayMs(
  attempt: number,
  opts: { baseDelayMs: number; maxDelayMs: number; jitter: number },
  random: () => number = Math.random,
): number {
  const raw = opts.baseDelayMs * 2 ** Math.min(attempt, 52);
  const capped = Math.min(opts.maxDelayMs, raw);
  return Math.round(capped * (1 - opts.jitter * random()));
}

export function assertInt(name: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new TaskQueueError('INVALID_OPTION', `${name} must be an integer >= ${min}, got ${String(value)}`);
  }
  return value;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Table names end up in SQL text, so only plain identifiers are accepted. */
export function checkIdentifier(what: string, name: string): string {
  if (!IDENT.test(name)) {
    throw new TaskQueueError('INVALID_OPTION', `${what} must be a plain SQL identifier ([A-Za-z_][A-Za-z0-9_]*), got ${JSON.stringify(name)}`);
  }
  return name;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
