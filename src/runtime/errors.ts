/** Thrown (or rejected with) when an open circuit breaker refused the very first attempt. */
export class CircuitOpenError extends Error {
  override readonly name = 'CircuitOpenError';
  readonly code = 'ECIRCUITOPEN';
  constructor(message = 'Circuit breaker is open; the call was not attempted', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Minimal structural view of a fetch `Response`, so other fetch implementations fit too. */
export interface ResponseLike {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText?: string;
  readonly headers: { get(name: string): string | null };
  readonly body?: unknown;
}

/** The error `throwIfNotOk` throws; carries the response so Retry-After can be read from it. */
export class HttpStatusError<R extends ResponseLike = ResponseLike> extends Error {
  override readonly name = 'HttpStatusError';
  readonly status: number;
  constructor(readonly response: R) {
    super(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
    this.status = response.status;
  }
}

/**
 * fetch resolves on 4xx/5xx; throwing here turns the status into something the policy (and the
 * caller's catch) can classify. Returns the response unchanged when it is ok, so it chains.
 */
export function throwIfNotOk<R extends ResponseLike>(response: R): R {
  if (!response.ok) throw new HttpStatusError(response);
  return response;
}
