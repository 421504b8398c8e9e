import { RETRYABLE_CLIENT_ERRORS } from '../shared/guide-limits.js';
import type { ResponseLike } from './errors.js';

/** Deep enough for fetch → undici → socket chains and wrapper errors, bounded against cycles. */
const MAX_CAUSE_DEPTH = 5;

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/** What browsers and undici put in the TypeError that fetch rejects with on a network failure. */
const FETCH_NETWORK_MESSAGES = new Set([
  'fetch failed',
  'Failed to fetch',
  'NetworkError when attempting to fetch resource.',
  'Load failed',
]);

export type CallKind = 'read' | 'write';

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

function validStatus(value: unknown): number | undefined {
  return typeof value === 'number' && value >= 100 && value <= 599 ? value : undefined;
}

/**
 * The HTTP status carried by an error or response, in the shapes clients produce:
 * fetch Response / HttpStatusError / ky (`status`, `response.status`), axios (`response.status`),
 * got (`response.statusCode`), http-errors and SDKs (`statusCode`), then the `cause` chain.
 */
export function statusOf(error: unknown): number | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH; depth++) {
    const e = asRecord(current);
    if (e === undefined) return undefined;
    const direct = validStatus(e['status']) ?? validStatus(e['statusCode']);
    if (direct !== undefined) return direct;
    const response = asRecord(e['response']);
    if (response !== undefined) {
      const nested = validStatus(response['status']) ?? validStatus(response['statusCode']);
      if (nested !== undefined) return nested;
    }
    current = e['cause'];
  }
  return undefined;
}

function isTimeoutOrNetwork(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH; depth++) {
    const e = asRecord(current);
    if (e === undefined) return false;
    const code = e['code'];
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    // AbortSignal.timeout() and got both name their timeouts this way.
    if (e['name'] === 'TimeoutError') return true;
    if (current instanceof TypeError && FETCH_NETWORK_MESSAGES.has(current.message)) return true;
    current = e['cause'];
  }
  return false;
}

/**
 * Which statuses may be retried. 409 only for writes: with an idempotency key it means the first
 * request is still in flight, and retrying later returns its stored result. 422 (key reused with
 * another payload) and every other 4xx are contract errors that repeat forever (R-RES-RE-X2).
 */
export function isRetryableStatus(status: number, kind: CallKind): boolean {
  if (RETRYABLE_CLIENT_ERRORS.has(status)) return true;
  switch (status) {
    case 500:
    case 502:
    case 503:
    case 504:
      return true;
    case 409:
      return kind === 'write';
    default:
      return false;
  }
}

/**
 * The default classification. An error with a status is judged by the status alone; without one,
 * only network failures and timeouts qualify. Anything unrecognised is not retried: when in doubt,
 * no retry.
 */
export function isRetryableError(error: unknown, kind: CallKind): boolean {
  const status = statusOf(error);
  if (status !== undefined) return isRetryableStatus(status, kind);
  return isTimeoutOrNetwork(error);
}

/**
 * For a circuit breaker, the question is whether the dependency is healthy, not whether to retry:
 * a 404 is a healthy answer, an unknown exception is not evidence of health.
 */
export function isDependencyFailure(error: unknown): boolean {
  const status = statusOf(error);
  if (status === undefined) return true;
  return status >= 500 || RETRYABLE_CLIENT_ERRORS.has(status);
}

/** A resolved fetch Response that is not ok is treated as a failed attempt, without throwing. */
export function isFailedResponse(value: unknown): value is ResponseLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { ok?: unknown }).ok === false &&
    typeof (value as { status?: unknown }).status === 'number' &&
    typeof (value as { headers?: { get?: unknown } }).headers?.get === 'function'
  );
}

function headerOf(headers: unknown, name: string): string | undefined {
  const h = asRecord(headers);
  if (h === undefined) return undefined;
  if (typeof h['get'] === 'function') {
    const value = (h['get'] as (n: string) => unknown).call(headers, name);
    return typeof value === 'string' ? value : undefined;
  }
  const value = h[name];
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

/**
 * Parses Retry-After (delay-seconds or HTTP-date) into milliseconds from `nowMs`.
 * Returns undefined when absent or unparseable, so the computed backoff applies.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // All three HTTP-date forms start with a day name; V8's lenient Date.parse would read '-1' as a year.
  if (!/^[A-Za-z]{3}/.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/**
 * Retry-After is only meaningful on 429 and 503 (RFC 9110 §10.2.3 and the second guide document);
 * on other statuses it is ignored rather than trusted.
 */
export function retryAfterMsOf(failure: unknown, nowMs: number): number | undefined {
  let current: unknown = failure;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH; depth++) {
    const e = asRecord(current);
    if (e === undefined) return undefined;
    const direct = validStatus(e['status']) ?? validStatus(e['statusCode']);
    if (direct !== undefined) {
      if (direct !== 429 && direct !== 503) return undefined;
      // A Response carries its own headers; an error carries them on its response.
      return parseRetryAfter(headerOf(e['headers'], 'retry-after') ?? headerOf(asRecord(e['response'])?.['headers'], 'retry-after'), nowMs);
    }
    const response = asRecord(e['response']);
    if (response !== undefined) {
      const status = validStatus(response['status']) ?? validStatus(response['statusCode']);
      if (status !== undefined) {
        if (status !== 429 && status !== 503) return undefined;
        return parseRetryAfter(headerOf(response['headers'], 'retry-after'), nowMs);
      }
    }
    current = e['cause'];
  }
  return undefined;
}
