import { vi } from 'vitest';

export class PaymentGatewayError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export function transient(code = 'ECONNRESET'): PaymentGatewayError {
  return new PaymentGatewayError(`socket ${code}`, code);
}

export function httpError(status: number, headers: Record<string, string> = {}): Error & { status: number } {
  return Object.assign(new Error(`HTTP ${status}`), { status, response: { status, headers } });
}

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Attach handlers at once so a rejection while timers run is never reported as unhandled. */
export function settle<T>(p: Promise<T>): Promise<Settled<T>> {
  return p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

/** Runs the promise to completion under fake timers. */
export async function drive<T>(p: Promise<T>): Promise<Settled<T>> {
  const s = settle(p);
  await vi.runAllTimersAsync();
  return s;
}

/** A fake attempt that takes `ms` of (fake) time and honours the attempt signal. */
export function work<T>(signal: AbortSignal, ms: number, outcome: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      try {
        resolve(outcome());
      } catch (e) {
        reject(e);
      }
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
