import { randomFillSync } from 'node:crypto';
import { TaskQueueError } from './errors.js';

let lastMs = 0;
let seq = 0;

// Random bytes are drawn a few kilobytes at a time: one call into the crypto binding per ~400 ids
// instead of one per id.
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolAt = POOL_SIZE;
function randomByte(): number {
  if (poolAt === POOL_SIZE) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++] as number;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

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
    seq = ((randomByte() << 8) | randomByte()) & 0x7ff;
  }
  // 48-bit milliseconds, version 7 and the 12-bit sequence, variant 10, then 62 random bits.
  const high = Math.floor(now / 2 ** 16);
  const low = now % 2 ** 16;
  let id = HEX[(high >>> 24) & 0xff]! + HEX[(high >>> 16) & 0xff]! + HEX[(high >>> 8) & 0xff]! + HEX[high & 0xff]! + '-';
  id += HEX[(low >>> 8) & 0xff]! + HEX[low & 0xff]! + '-' + HEX[0x70 | (seq >> 8)]! + HEX[seq & 0xff]! + '-';
  id += HEX[0x80 | (randomByte() & 0x3f)]! + HEX[randomByte()]! + '-';
  for (let i = 0; i < 6; i++) id += HEX[randomByte()]!;
  return id;
}

/** `payload.items[2]["a b"]`: where in the payload a value sits, as a reader would write it. */
function pathOf(segments: readonly (string | number)[]): string {
  let path = 'payload';
  for (let i = segments.length - 1; i >= 0; i--) {
    const key = segments[i] as string | number;
    if (typeof key === 'number') path += `[${key}]`;
    else path += /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
  }
  return path;
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  if (typeof value === 'bigint') return `a BigInt (${value}n)`;
  if (typeof value === 'number') return String(value);
  if (value instanceof Date) return 'a Date (JSON would bring it back as a string; store date.toISOString() or epoch ms)';
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === 'string' && name !== '' ? `an instance of ${name}` : 'an object with a custom prototype';
}

/** What is wrong, and where: the keys from the offending value up to the payload, innermost first. */
interface NotJson {
  problem: string;
  segments: (string | number)[];
}

/**
 * Why `value` would not come back from JSON as it went in, or undefined when it would. Plain
 * objects (prototype Object.prototype or null), arrays without holes, strings PostgreSQL's jsonb
 * accepts, finite numbers, booleans and null travel whole. An object property whose value is
 * undefined is accepted: it comes back absent, which reads the same.
 */
function notJson(value: unknown, ancestors: object[]): NotJson | undefined {
  switch (typeof value) {
    case 'string':
      return stringProblem(value);
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : { problem: `${describeValue(value)} (JSON has no such number; it would come back as null)`, segments: [] };
    case 'object':
      break;
    default:
      return { problem: describeValue(value), segments: [] };
  }
  if (value === null) return undefined;
  if (ancestors.includes(value)) return { problem: 'a reference to one of its own ancestors (a cycle)', segments: [] };
  const proto: unknown = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (proto !== Array.prototype) return { problem: describeValue(value), segments: [] };
    ancestors.push(value);
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return { problem: 'a hole in the array (it would come back as null)', segments: [i] };
      const item: unknown = value[i];
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') {
        return { problem: `${describeValue(item)} (in an array JSON turns it into null)`, segments: [i] };
      }
      const found = notJson(item, ancestors);
      if (found) {
        found.segments.push(i);
        return found;
      }
    }
    ancestors.pop();
    return undefined;
  }
  if (proto !== Object.prototype && proto !== null) return { problem: describeValue(value), segments: [] };
  if (Object.getOwnPropertySymbols(value).some((s) => Object.prototype.propertyIsEnumerable.call(value, s))) {
    return { problem: 'an object with symbol keys (JSON drops them)', segments: [] };
  }
  ancestors.push(value);
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const keyProblem = stringProblem(key);
    if (keyProblem) return { problem: `a key that ${keyProblem.problem}`, segments: [key] };
    const item: unknown = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    const found = notJson(item, ancestors);
    if (found) {
      found.segments.push(key);
      return found;
    }
  }
  ancestors.pop();
  return undefined;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** PostgreSQL's jsonb refuses NUL and lone surrogates, so neither store accepts them. */
function stringProblem(value: string): NotJson | undefined {
  if (value.includes('\u0000')) return { problem: 'a string containing a NUL character (\\u0000), which PostgreSQL jsonb cannot store', segments: [] };
  if (LONE_SURROGATE.test(value)) return { problem: 'a string with a lone UTF-16 surrogate, which is not valid Unicode text', segments: [] };
  return undefined;
}

/**
 * The payload as JSON text, refusing (code PAYLOAD_NOT_JSON, naming the path) anything JSON would
 * silently change: a task must run on the data it was given.
 */
export function toPayloadJson(kind: string, payload: unknown): string {
  if (payload === undefined) {
    throw new TaskQueueError('PAYLOAD_NOT_JSON', `payload of task "${kind}" is undefined; use null for "no payload"`, { path: 'payload' });
  }
  const found = notJson(payload, []);
  if (found) {
    const path = pathOf(found.segments);
    throw new TaskQueueError('PAYLOAD_NOT_JSON', `payload of task "${kind}" cannot be stored as JSON without changing it: ${path} is ${found.problem}`, { path });
  }
  return JSON.stringify(payload);
}

const MAX_ERROR_CHARS = 8000;

/** Handlers may throw anything; last_error must still say what happened. */
export function describeError(error: unknown): string {
  let text: string;
  if (error instanceof Error) {
    text = error.stack && error.stack.includes(error.message) ? error.stack : `${error.name}: ${error.message}`;
    // A code says what kind of failure it was without reading the message (HANDLER_TIMEOUT, ECONNRESET).
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '' && !text.includes(code)) text = `[${code}] ${text}`;
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
