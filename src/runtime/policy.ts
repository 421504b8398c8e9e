import { createBackoff, type Backoff, type Jitter } from './backoff.js';
import { isNativeBreaker, type CircuitBreaker, type CircuitBreakerLike } from './breaker.js';
import type { RetryBudget } from './budget.js';
import {
  isFailedResponse,
  isRetryableError,
  isRetryableStatus,
  retryAfterMsOf,
  type CallKind,
} from './classify.js';
import { monotonicNow } from './clock.js';
import { CircuitOpenError, type ResponseLike } from './errors.js';
import { Deferred, isHandoffReason, type GiveUpReason, type Handoff } from './handoff.js';
import { metricsHub, type PolicyMeter, type RuntimeMetrics } from './metrics.js';

export interface AttemptContext {
  /** 1 for the first call, 2 for the first retry, ... */
  readonly attempt: number;
  /**
   * Aborts when the caller aborts, at the policy deadline, or after `attemptTimeoutMs`. Created on
   * first access: a function that never reads it costs no AbortController and no timer.
   */
  readonly signal: AbortSignal;
}

export interface WriteAttemptContext extends AttemptContext {
  /** The same key on every attempt; send it as the `Idempotency-Key` header (or the SDK option). */
  readonly idempotencyKey: string;
}

export interface RetryEvent {
  kind: CallKind;
  /** The attempt that just failed. */
  attempt: number;
  delayMs: number;
  error: unknown;
}

export interface GiveUpEvent {
  kind: CallKind;
  reason: GiveUpReason;
  /** Attempts actually made; 0 when an open breaker refused the first one. */
  attempts: number;
  error: unknown;
  idempotencyKey: string | undefined;
  /** Set when a handoff took the work over. */
  taskId?: string;
  /** Set when a handoff was tried and failed; the call then rejects with `error`. */
  handoffError?: unknown;
}

export interface RetryPolicyOptions {
  /** Total attempts, counting the first: an integer in 1..5 (R-RES-RE-3). Default 3. */
  maxAttempts?: number;
  /** Ceiling of the first wait (R-RES-RE-2). Default 500. */
  initialDelayMs?: number;
  /** Growth per retry; must be > 1 (R-RES-RE-X3). Default 2. */
  multiplier?: number;
  /** Cap on a single wait. Default 2000. */
  maxDelayMs?: number;
  /** Always on; choose the flavour. Default 'full'. */
  jitter?: Jitter;
  /** With jitter 'randomized': each wait is uniform in ceiling x [1 - f, 1 + f]. Default 0.5. */
  randomizationFactor?: number;
  /** Total time for attempts and waits together; at most 30000 (R-RES-RE-4). Default 5000. */
  deadlineMs?: number;
  /** Optional per-attempt timeout, so one hung attempt does not eat the whole deadline. */
  attemptTimeoutMs?: number;
  /** Longest Retry-After the policy will sleep through; longer gives up. Default: `deadlineMs`. */
  maxRetryAfterMs?: number;
  /**
   * Narrows the default classification: called only for failures the policy would retry anyway,
   * returning false stops. It cannot make a 4xx or an unknown error retryable.
   */
  retryOn?: (error: unknown, info: { kind: CallKind; attempt: number }) => boolean;
  /** Shared retry budget for the dependency (createRetryBudget). */
  budget?: RetryBudget;
  /** Circuit breaker wrapped around every attempt (createCircuitBreaker, or any `{ execute(fn) }`). */
  breaker?: CircuitBreakerLike;
  onRetry?: (event: RetryEvent) => void;
  onGiveUp?: (event: GiveUpEvent) => void;
  /** [0, 1) source for jitter; inject a seeded one in tests. */
  random?: () => number;
  /** The `policy` attribute of this policy's metrics. Default 'default'. */
  name?: string;
  /** From `enableMetrics()`: count calls, attempts, retries and give-ups. Default: off, and free. */
  metrics?: RuntimeMetrics;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface ReadOptions extends CallOptions {
  handoff?: Handoff;
}

/** An empty string literal is rejected at compile time; other strings are checked at run time. */
export type NonEmptyString<K extends string> = K extends '' ? never : K;

export interface WriteOptions<K extends string = string> extends CallOptions {
  idempotencyKey: NonEmptyString<K>;
  handoff?: Handoff;
}

export interface ResolvedRetryPolicyOptions {
  readonly maxAttempts: number;
  readonly initialDelayMs: number;
  readonly multiplier: number;
  readonly maxDelayMs: number;
  readonly jitter: Jitter;
  /** Set only for jitter 'randomized'. */
  readonly randomizationFactor?: number;
  readonly deadlineMs: number;
  readonly attemptTimeoutMs: number | undefined;
  readonly maxRetryAfterMs: number;
}

export interface RetryPolicy {
  readonly config: ResolvedRetryPolicyOptions;
  /** Retry a read (GET-like, no side effects). */
  read<T>(fn: (ctx: AttemptContext) => T | PromiseLike<T>, options: CallOptions & { handoff: Handoff }): Promise<T | Deferred>;
  read<T>(fn: (ctx: AttemptContext) => T | PromiseLike<T>, options?: CallOptions & { handoff?: undefined }): Promise<T>;
  read<T>(fn: (ctx: AttemptContext) => T | PromiseLike<T>, options?: ReadOptions): Promise<T | Deferred>;
  /** Retry a write the remote deduplicates by `idempotencyKey` (R-RES-RE-1). */
  write<T, K extends string>(
    options: WriteOptions<K> & { handoff: Handoff },
    fn: (ctx: WriteAttemptContext) => T | PromiseLike<T>,
    callOptions?: CallOptions,
  ): Promise<T | Deferred>;
  write<T, K extends string>(
    options: WriteOptions<K> & { handoff?: undefined },
    fn: (ctx: WriteAttemptContext) => T | PromiseLike<T>,
    callOptions?: CallOptions,
  ): Promise<T>;
  write<T, K extends string>(
    options: WriteOptions<K>,
    fn: (ctx: WriteAttemptContext) => T | PromiseLike<T>,
    callOptions?: CallOptions,
  ): Promise<T | Deferred>;
}

function timeoutReason(): DOMException {
  return new DOMException('The retry policy deadline or attempt timeout elapsed', 'TimeoutError');
}

function fireAttemptTimeout(attempt: Attempt): void {
  attempt.timeout();
}

/**
 * Per-attempt context. A class rather than an object literal with a getter so the success path
 * allocates one small object and no closure; it is also the 'abort' listener (handleEvent) for the
 * caller's signal, for the same reason.
 */
class Attempt implements WriteAttemptContext {
  #controller: AbortController | undefined = undefined;
  #timer: ReturnType<typeof setTimeout> | undefined = undefined;

  constructor(
    readonly attempt: number,
    readonly idempotencyKey: string,
    private readonly deadlineAt: number,
    private readonly timeoutMs: number | undefined,
    private readonly callerSignal: AbortSignal | undefined,
  ) {}

  get signal(): AbortSignal {
    return (this.#controller ?? this.#arm()).signal;
  }

  #arm(): AbortController {
    const controller = new AbortController();
    this.#controller = controller;
    const caller = this.callerSignal;
    if (caller !== undefined) {
      if (caller.aborted) {
        controller.abort(caller.reason);
        return controller;
      }
      caller.addEventListener('abort', this);
    }
    let ms = this.deadlineAt - monotonicNow();
    if (this.timeoutMs !== undefined && this.timeoutMs < ms) ms = this.timeoutMs;
    // Whole milliseconds, rounded down: firing a fraction early is harmless, firing late is not.
    this.#timer = setTimeout(fireAttemptTimeout, ms > 0 ? Math.floor(ms) : 0, this);
    return controller;
  }

  handleEvent(): void {
    this.#controller?.abort(this.callerSignal?.reason);
  }

  timeout(): void {
    this.#timer = undefined;
    this.#controller?.abort(timeoutReason());
  }

  release(): void {
    if (this.#controller === undefined) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.callerSignal?.removeEventListener('abort', this);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal === undefined) {
      setTimeout(resolve, ms);
      return;
    }
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** An unread body pins the connection in undici; release it before the next attempt. */
function discard(failure: unknown): void {
  const body = (failure as { body?: { cancel?: () => Promise<void> } } | undefined)?.body;
  const response = (failure as { response?: { body?: { cancel?: () => Promise<void> } } } | undefined)?.response;
  const stream = body ?? response?.body;
  if (stream !== null && typeof stream === 'object' && typeof stream.cancel === 'function') {
    try {
      stream.cancel().catch(() => {});
    } catch {
      // Already locked or disturbed by the caller: theirs to release.
    }
  }
}

let warnedHook = false;
function callHook<E>(hook: ((event: E) => void) | undefined, event: E): void {
  if (hook === undefined) return;
  try {
    hook(event);
  } catch (error) {
    // Metrics and logging must never change whether a payment is retried.
    if (!warnedHook) {
      warnedHook = true;
      process.emitWarning(`safe-retry: a retry policy hook threw and was ignored: ${String(error)}`);
    }
  }
}

/** A predicate that throws cannot vouch for a retry; the safe reading of "unsure" is "no". */
function narrowedIn(retryOn: NonNullable<RetryPolicyOptions['retryOn']>, error: unknown, kind: CallKind, attempt: number): boolean {
  try {
    return retryOn(error, { kind, attempt }) === true;
  } catch {
    return false;
  }
}

function checkRange(name: string, value: number, ok: boolean, rule: string): void {
  if (!ok) throw new RangeError(`${name} ${rule}, got ${String(value)}`);
}

/** Failures from an attempt: a thrown error, or a non-ok Response the function returned. */
interface Failure {
  value: unknown;
  response: boolean;
}

class Policy implements RetryPolicy {
  readonly config: ResolvedRetryPolicyOptions;
  readonly #backoff: Backoff;
  readonly #retryOn: RetryPolicyOptions['retryOn'];
  readonly #budget: RetryBudget | undefined;
  readonly #native: CircuitBreaker | undefined;
  readonly #foreign: CircuitBreakerLike | undefined;
  readonly #onRetry: RetryPolicyOptions['onRetry'];
  readonly #onGiveUp: RetryPolicyOptions['onGiveUp'];
  readonly #meter: PolicyMeter | undefined;

  constructor(options: RetryPolicyOptions) {
    const maxAttempts = options.maxAttempts ?? 3;
    const initialDelayMs = options.initialDelayMs ?? 500;
    const multiplier = options.multiplier ?? 2;
    const maxDelayMs = options.maxDelayMs ?? 2000;
    const jitter = options.jitter ?? 'full';
    const deadlineMs = options.deadlineMs ?? 5000;
    const attemptTimeoutMs = options.attemptTimeoutMs;
    const maxRetryAfterMs = options.maxRetryAfterMs ?? deadlineMs;

    checkRange('maxAttempts', maxAttempts, Number.isInteger(maxAttempts) && maxAttempts >= 1 && maxAttempts <= 5,
      'must be an integer in 1..5 (more than 5 belongs in a task queue, R-RES-RE-3)');
    checkRange('deadlineMs', deadlineMs, Number.isFinite(deadlineMs) && deadlineMs > 0 && deadlineMs <= 30_000,
      'must be in (0, 30000]; longer retry windows belong in a task queue (R-RES-RE-4)');
    if (attemptTimeoutMs !== undefined) {
      checkRange('attemptTimeoutMs', attemptTimeoutMs, Number.isFinite(attemptTimeoutMs) && attemptTimeoutMs > 0,
        'must be a positive finite number');
    }
    checkRange('maxRetryAfterMs', maxRetryAfterMs, Number.isFinite(maxRetryAfterMs) && maxRetryAfterMs >= 0,
      'must be a non-negative finite number');
    if (options.retryOn !== undefined && typeof options.retryOn !== 'function') {
      throw new TypeError('retryOn must be a function');
    }
    const randomizationFactor = options.randomizationFactor ?? (jitter === 'randomized' ? 0.5 : undefined);
    const backoffOptions = {
      initialDelayMs, multiplier, maxDelayMs, jitter,
      ...(randomizationFactor !== undefined ? { randomizationFactor } : {}),
      ...(options.random ? { random: options.random } : {}),
    };
    this.#backoff = createBackoff(backoffOptions);
    this.config = Object.freeze({
      maxAttempts, initialDelayMs, multiplier, maxDelayMs, jitter,
      ...(randomizationFactor !== undefined ? { randomizationFactor } : {}),
      deadlineMs, attemptTimeoutMs, maxRetryAfterMs,
    });
    this.#retryOn = options.retryOn;
    this.#budget = options.budget;
    const breaker = options.breaker;
    if (breaker !== undefined && isNativeBreaker(breaker)) this.#native = breaker;
    else this.#foreign = breaker;
    this.#onRetry = options.onRetry;
    this.#onGiveUp = options.onGiveUp;
    const meter = metricsHub(options.metrics)?.policy(options.name ?? 'default');
    this.#meter = meter;
    if (meter !== undefined) {
      // Successes are counted on the settled promise, and only by metered policies: these own
      // methods shadow the prototype's, so an unmetered policy's success path has no metrics code.
      const read = this.read;
      const write = this.write;
      const readSucceeded = countSuccess(meter, 'read');
      const writeSucceeded = countSuccess(meter, 'write');
      this.read = function meteredRead(this: Policy, ...args: Parameters<typeof read>) {
        return read.apply(this, args).then(readSucceeded);
      } as typeof read;
      this.write = function meteredWrite(this: Policy, ...args: Parameters<typeof write>) {
        return write.apply(this, args).then(writeSucceeded);
      } as typeof write;
    }
  }

  read<T>(fn: (ctx: AttemptContext) => T | PromiseLike<T>, options?: ReadOptions): Promise<T | Deferred> {
    if (typeof fn !== 'function') throw new TypeError('read(fn): fn must be a function');
    return this.#run('read', undefined, fn, options?.signal, options?.handoff) as Promise<T | Deferred>;
  }

  write<T, K extends string>(
    options: WriteOptions<K>,
    fn: (ctx: WriteAttemptContext) => T | PromiseLike<T>,
    callOptions?: CallOptions,
  ): Promise<T | Deferred> {
    const key: unknown = options?.idempotencyKey;
    // Thrown synchronously: a write without a key is a bug to fix, not a condition to handle.
    if (typeof key !== 'string' || key.trim() === '') {
      throw new TypeError('write() needs a non-empty idempotencyKey, created once per operation outside the retried function (R-RES-RE-1)');
    }
    if (typeof fn !== 'function') throw new TypeError('write(options, fn): fn must be a function');
    const signal = options.signal ?? callOptions?.signal;
    return this.#run('write', key, fn as (ctx: AttemptContext) => T | PromiseLike<T>, signal, options.handoff) as Promise<T | Deferred>;
  }

  async #run(
    kind: CallKind,
    key: string | undefined,
    fn: (ctx: AttemptContext) => unknown,
    signal: AbortSignal | undefined,
    handoff: Handoff | undefined,
  ): Promise<unknown> {
    if (signal?.aborted) {
      this.#meter?.aborted(kind);
      throw signal.reason;
    }
    const deadlineAt = monotonicNow() + this.config.deadlineMs;
    this.#budget?.recordRequest();
    const native = this.#native;
    const foreign = this.#foreign;
    let failure: Failure | undefined;
    let previousDelay = 0;

    for (let attempt = 1; ; attempt++) {
      if (native !== undefined && !native.tryAcquire()) {
        return this.#giveUp(kind, 'circuit-open', attempt - 1, failure, key, handoff);
      }
      // The key is typed as string for writes; reads never see it in their context type.
      const ctx = new Attempt(attempt, key as string, deadlineAt, this.config.attemptTimeoutMs, signal);
      let result: unknown;
      let thrown = false;
      let invoked = foreign === undefined;
      try {
        result = foreign === undefined
          ? await fn(ctx)
          : await foreign.execute(() => {
              invoked = true;
              return fn(ctx);
            });
      } catch (error) {
        thrown = true;
        result = error;
      }
      ctx.release();

      if (!thrown) {
        if (!isFailedResponse(result)) {
          native?.settle('success');
          return result;
        }
        native?.settleError(result);
        this.#meter?.attemptFailed(kind);
        // A non-retryable status is the server's answer, returned as fetch would return it.
        if (!isRetryableStatus(result.status, kind)) {
          this.#meter?.gaveUp(kind, 'not-retryable', false);
          return result;
        }
        failure = { value: result, response: true };
      } else {
        if (!invoked) {
          return this.#giveUp(kind, 'circuit-open', attempt - 1, failure, key, handoff, result);
        }
        this.#meter?.attemptFailed(kind);
        if (signal?.aborted) {
          native?.settle('neutral');
          this.#meter?.aborted(kind);
          throw signal.reason;
        }
        native?.settleError(result);
        failure = { value: result, response: false };
        if (!isRetryableError(result, kind)) {
          return this.#giveUp(kind, 'not-retryable', attempt, failure, key, handoff);
        }
      }

      if (signal?.aborted) {
        discard(failure.value);
        this.#meter?.aborted(kind);
        throw signal.reason;
      }
      if (this.#retryOn !== undefined && !narrowedIn(this.#retryOn, failure.value, kind, attempt)) {
        return this.#giveUp(kind, 'not-retryable', attempt, failure, key, handoff);
      }
      if (attempt >= this.config.maxAttempts) {
        return this.#giveUp(kind, 'attempts', attempt, failure, key, handoff);
      }

      // Whole milliseconds, at least 1: that is what a Node timer actually waits, so the deadline
      // check below judges the real sleep rather than a fraction the timer would round up.
      let delay = Math.max(1, Math.ceil(this.#backoff.delay(attempt, previousDelay)));
      previousDelay = delay;
      let lateReason: GiveUpReason = 'deadline';
      const retryAfter = retryAfterMsOf(failure.value, Date.now());
      if (retryAfter !== undefined) {
        if (retryAfter > this.config.maxRetryAfterMs) {
          return this.#giveUp(kind, 'retry-after-too-long', attempt, failure, key, handoff);
        }
        // Never earlier than the server asked, never earlier than our own backoff.
        if (retryAfter > delay) {
          delay = retryAfter;
          lateReason = 'retry-after-too-long';
        }
      }
      if (monotonicNow() + delay >= deadlineAt) {
        return this.#giveUp(kind, lateReason, attempt, failure, key, handoff);
      }
      // Sleeping only to be refused by a breaker that is still open would waste the caller's time.
      if (native?.isOpenFor(delay)) {
        return this.#giveUp(kind, 'circuit-open', attempt, failure, key, handoff);
      }
      if (this.#budget !== undefined && !this.#budget.tryRetry()) {
        return this.#giveUp(kind, 'budget', attempt, failure, key, handoff);
      }
      callHook(this.#onRetry, { kind, attempt, delayMs: delay, error: failure.value });
      discard(failure.value);
      const meter = this.#meter;
      if (meter === undefined) {
        await sleep(delay, signal);
        continue;
      }
      meter.retried(kind);
      try {
        await sleep(delay, signal);
      } catch (reason) {
        // Only the caller's abort ends a sleep early.
        meter.aborted(kind);
        throw reason;
      }
    }
  }

  async #giveUp(
    kind: CallKind,
    reason: GiveUpReason,
    attempts: number,
    failure: Failure | undefined,
    key: string | undefined,
    handoff: Handoff | undefined,
    breakerError?: unknown,
  ): Promise<unknown> {
    // An open breaker before any attempt leaves no operation error to surface; say what happened.
    let error: unknown;
    if (failure !== undefined) error = failure.value;
    else if (breakerError instanceof CircuitOpenError) error = breakerError;
    else error = new CircuitOpenError(undefined, breakerError === undefined ? undefined : { cause: breakerError });
    const event: GiveUpEvent = { kind, reason, attempts, error, idempotencyKey: key };
    if (handoff !== undefined && isHandoffReason(reason)) {
      try {
        const { taskId } = await handoff({ idempotencyKey: key, reason, error, attempts });
        event.taskId = taskId;
        this.#meter?.gaveUp(kind, reason, true);
        callHook(this.#onGiveUp, event);
        return new Deferred(taskId, reason, key, error);
      } catch (handoffError) {
        event.handoffError = handoffError;
      }
    }
    this.#meter?.gaveUp(kind, reason, false);
    callHook(this.#onGiveUp, event);
    if (failure?.response === true) return failure.value as ResponseLike;
    throw error;
  }
}

/** A resolved Deferred or failed Response was already counted where the policy gave up. */
function countSuccess(meter: PolicyMeter, kind: CallKind): <T>(value: T) => T {
  return (value) => {
    if (!(value instanceof Deferred) && !isFailedResponse(value)) meter.succeeded(kind);
    return value;
  };
}

/**
 * A retry policy whose options cannot express the unsafe configurations the rules forbid: more
 * than 5 attempts, constant or linear backoff, no jitter, no deadline, retrying 4xx, or a write
 * without an idempotency key.
 */
export function createRetryPolicy(options: RetryPolicyOptions = {}): RetryPolicy {
  return new Policy(options);
}
