import { describe, it, expect } from 'vitest';
import { isRetryableError, isRetryableStatus, parseRetryAfter, statusOf, HttpStatusError, throwIfNotOk } from '../../src/runtime/index.js';
import { isDependencyFailure, retryAfterMsOf } from '../../src/runtime/classify.js';

function errno(code: string): Error {
  return Object.assign(new Error(code), { code });
}

describe('default classification', () => {
  it.each([408, 429, 500, 502, 503, 504])('retries %i for reads and writes', (status) => {
    expect(isRetryableStatus(status, 'read')).toBe(true);
    expect(isRetryableStatus(status, 'write')).toBe(true);
  });

  it.each([400, 401, 403, 404, 405, 410, 413, 422, 451, 501, 505, 507])('never retries %i', (status) => {
    expect(isRetryableStatus(status, 'read')).toBe(false);
    expect(isRetryableStatus(status, 'write')).toBe(false);
  });

  it('retries 409 only for writes (the keyed request is still in flight)', () => {
    expect(isRetryableStatus(409, 'write')).toBe(true);
    expect(isRetryableStatus(409, 'read')).toBe(false);
  });

  it.each(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_SOCKET'])(
    'retries network error %s, also when wrapped in fetch TypeError causes',
    (code) => {
      expect(isRetryableError(errno(code), 'read')).toBe(true);
      expect(isRetryableError(new TypeError('boom', { cause: new Error('x', { cause: errno(code) }) }), 'write')).toBe(true);
    },
  );

  it("retries fetch's network TypeError and timeouts", () => {
    expect(isRetryableError(new TypeError('fetch failed'), 'read')).toBe(true);
    expect(isRetryableError(new DOMException('t', 'TimeoutError'), 'read')).toBe(true);
    expect(isRetryableError(Object.assign(new Error('Timeout awaiting'), { name: 'TimeoutError', code: 'ETIMEDOUT' }), 'read')).toBe(true);
  });

  it('does not retry what it does not recognise', () => {
    expect(isRetryableError(new Error('boom'), 'read')).toBe(false);
    expect(isRetryableError(new TypeError('x is not a function'), 'read')).toBe(false);
    expect(isRetryableError(new DOMException('aborted', 'AbortError'), 'read')).toBe(false);
    expect(isRetryableError('string', 'read')).toBe(false);
    expect(isRetryableError(undefined, 'read')).toBe(false);
  });

  it('reads the status from every common client shape, status before network code', () => {
    const axios = Object.assign(new Error('Request failed'), { code: 'ERR_BAD_REQUEST', response: { status: 404, headers: {} } });
    const got = Object.assign(new Error('Response code 503'), { code: 'ERR_NON_2XX_3XX_RESPONSE', response: { statusCode: 503, headers: {} } });
    const ky = Object.assign(new Error('Request failed'), { name: 'HTTPError', response: new Response(null, { status: 502 }) });
    const sdk = Object.assign(new Error('card_declined'), { statusCode: 402 });
    const wrapped = new Error('outer', { cause: new Error('mid', { cause: { status: 500 } }) });
    const mixed = Object.assign(new Error('x'), { code: 'ECONNRESET', status: 400 });
    expect(statusOf(axios)).toBe(404);
    expect(statusOf(got)).toBe(503);
    expect(statusOf(ky)).toBe(502);
    expect(statusOf(sdk)).toBe(402);
    expect(statusOf(wrapped)).toBe(500);
    expect(isRetryableError(axios, 'read')).toBe(false);
    expect(isRetryableError(got, 'write')).toBe(true);
    expect(isRetryableError(mixed, 'read')).toBe(false);
  });

  it('follows cause chains only to a bounded depth (cycles terminate)', () => {
    const a: { cause?: unknown } = {};
    const b = { cause: a };
    a.cause = b;
    expect(statusOf(a)).toBeUndefined();
    expect(isRetryableError(a, 'read')).toBe(false);
    let deep: unknown = { status: 503 };
    for (let i = 0; i < 10; i++) deep = { cause: deep };
    expect(statusOf(deep)).toBeUndefined();
  });

  it('counts unknown errors and 5xx as dependency failures for breakers, 4xx as healthy answers', () => {
    expect(isDependencyFailure(new Error('x'))).toBe(true);
    expect(isDependencyFailure({ status: 503 })).toBe(true);
    expect(isDependencyFailure({ status: 429 })).toBe(true);
    expect(isDependencyFailure({ status: 404 })).toBe(false);
  });
});

describe('Retry-After', () => {
  const now = Date.UTC(2026, 5, 1, 12, 0, 0);

  it('parses delay-seconds and HTTP-date', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter(new Date(now + 7000).toUTCString(), now)).toBe(7000);
    expect(parseRetryAfter(new Date(now - 7000).toUTCString(), now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('is read from Responses, HttpStatusError, axios and got errors, but only on 429 and 503', () => {
    const r429 = new Response(null, { status: 429, headers: { 'Retry-After': '2' } });
    const r500 = new Response(null, { status: 500, headers: { 'Retry-After': '2' } });
    expect(retryAfterMsOf(r429, now)).toBe(2000);
    expect(retryAfterMsOf(new HttpStatusError(r429), now)).toBe(2000);
    expect(retryAfterMsOf(r500, now)).toBeUndefined();
    expect(retryAfterMsOf({ response: { status: 503, headers: { 'retry-after': '4' } } }, now)).toBe(4000);
    expect(retryAfterMsOf({ response: { statusCode: 429, headers: { 'retry-after': ['1'] } } }, now)).toBe(1000);
    expect(retryAfterMsOf({ status: 503 }, now)).toBeUndefined();
  });
});

describe('throwIfNotOk', () => {
  it('returns ok responses and throws HttpStatusError carrying the response otherwise', () => {
    const ok = new Response('fine');
    expect(throwIfNotOk(ok)).toBe(ok);
    const bad = new Response(null, { status: 503, statusText: 'Service Unavailable' });
    let caught: unknown;
    try {
      throwIfNotOk(bad);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(HttpStatusError);
    expect((caught as HttpStatusError).status).toBe(503);
    expect((caught as HttpStatusError).response).toBe(bad);
    expect((caught as Error).message).toBe('HTTP 503 Service Unavailable');
  });
});
