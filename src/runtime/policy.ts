import { IN_MEMORY_MS, MAX_ATTEMPTS, QUEUE_MS, TYPICAL_ATTEMPTS, TYPICAL_FIRST_WAIT_MS, TYPICAL_MULTIPLIER } from '../shared/guide-limits.js';
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
import { wheelFor, type Slot, type SlotMember, type Wheel } from './deadline.js';

export interface AttemptContext {
  /** 1 for the first call, 2 for the first retry, ... */
  readonly attempt: number;
  /**
   * Aborts when the caller aborts, at the policy deadline, or after `attemptTimeoutMs` (to the
   * millisecond, never late). The policy stops waiting at that moment whether or not the function
   * honours the signal. Attempts that stop in the same millisecond share one signal, created on
   * first read. Once the attempt has settled, the signal may still abort at the deadline it was
   * given or never: do not use it for work after the attempt (such as reading a body you return).
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

const noop = (): void => {};

/** Told once how an attempt ended: its own outcome, or the slot stopping it first. */
type Settled = (attempt: Attempt, call: Call, thrown: boolean, value: unknown) => void;

/** One call to `read` or `write`: what every attempt of it needs. */
class Call {
  /** Resolves the promise the caller holds. */
  resolve: (value: unknown) => void = noop;

  constructor(
    readonly kind: CallKind,
    readonly key: string | undefined,
    readonly fn: (ctx: AttemptContext) => unknown,
    readonly signal: AbortSignal | undefined,
    readonly handoff: Handoff | undefined,
    readonly deadlineAt: number,
    readonly wheel: Wheel,
  ) {}
}

let capturedResolve: (value: unknown) => void = noop;
/** A Promise executor without a closure per call. */
function captureResolve(resolve: (value: unknown) => void): void {
  capturedResolve = resolve;
}

/**
 * Per-attempt context, and the attempt's membership of its deadline slot. A class rather than an
 * object literal with a getter so the success path allocates one small object; what the attempt's
 * function must not see is private.
 */
class Attempt implements WriteAttemptContext, SlotMember {
  slotIndex = 0;
  #slot: Slot | undefined = undefined;
  #abortAt = 0;
  /** False while a foreign breaker has not called the function (it may refuse to). */
  #invoked = true;
  #expired: 'time' | 'caller' | undefined = undefined;
  #done = false;
  #reason: unknown = undefined;
  #pending: PromiseLike<unknown> | undefined = undefined;
  #settled: Settled | undefined = undefined;
  #call: Call | undefined = undefined;

  constructor(
    readonly attempt: number,
    readonly idempotencyKey: string,
  ) {}

  /**
   * Shared by every attempt of the same caller signal that stops in the same millisecond;
   * created on first read (see deadline.ts).
   */
  get signal(): AbortSignal {
    return (this.#slot as Slot).signal;
  }

  /** Joins the deadline slot and calls the function; then `watch` (or read the sync outcome). */
  start(call: Call, fn: (ctx: AttemptContext) => unknown, foreign: CircuitBreakerLike | undefined, abortAt: number, now: number): unknown {
    this.#abortAt = abortAt;
    this.#call = call;
    this.#slot = call.wheel.join(abortAt, now, this);
    if (foreign === undefined) return fn(this);
    this.#invoked = false;
    return foreign.execute(() => {
      this.#invoked = true;
      return fn(this);
    });
  }

  get invoked(): boolean {
    return this.#invoked;
  }

  get expired(): 'time' | 'caller' | undefined {
    return this.#expired;
  }

  /** Stopped by the deadline itself rather than by an attempt timeout. */
  expiredAtDeadline(): boolean {
    return this.#expired === 'time' && this.#abortAt === (this.#call as Call).deadlineAt;
  }

  leave(): void {
    (this.#call as Call).wheel.leave(this.#slot as Slot, this);
  }

  /**
   * Tells `settled` how the attempt ended: when `pending` settles or, if sooner, when the slot
   * fires or the caller aborts, whatever the function does with its signal.
   */
  watch(pending: PromiseLike<unknown>, settled: Settled): void {
    this.#pending = pending;
    this.#settled = settled;
    if (this.#expired !== undefined) {
      // Stopped while the function was still being called (it aborted its own caller).
      pending.then(discard, noop);
      this.#settle(true, this.#reason);
      return;
    }
    pending.then(
      (value) => this.#settle(false, value),
      (error: unknown) => this.#settle(true, error),
    );
  }

  #settle(thrown: boolean, value: unknown): void {
    if (this.#done) {
      // Nobody reads what an abandoned operation returns; an unread body would pin its connection.
      if (!thrown) discard(value);
      return;
    }
    this.#done = true;
    (this.#settled as Settled)(this, this.#call as Call, thrown, value);
  }

  expire(reason: unknown, byCaller: boolean): void {
    if (this.#expired !== undefined || this.#done) return;
    this.#expired = byCaller ? 'caller' : 'time';
    this.#reason = reason;
    if (this.#pending !== undefined) this.#settle(true, reason);
  }
}

/** The slow path waits for an attempt with await. */
function outcomeOf(attempt: Attempt, pending: PromiseLike<unknown>): Promise<{ thrown: boolean; value: unknown }> {
  return new Promise((resolve) => {
    attempt.watch(pending, (_, __, thrown, value) => resolve({ thrown, value }));
  });
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

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as PromiseLike<unknown>).then === 'function';
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
    const maxAttempts = options.maxAttempts ?? TYPICAL_ATTEMPTS;
    const initialDelayMs = options.initialDelayMs ?? TYPICAL_FIRST_WAIT_MS;
    const multiplier = options.multiplier ?? TYPICAL_MULTIPLIER;
    const maxDelayMs = options.maxDelayMs ?? 2000;
    const jitter = options.jitter ?? 'full';
    const deadlineMs = options.deadlineMs ?? IN_MEMORY_MS;
    const attemptTimeoutMs = options.attemptTimeoutMs;
    const maxRetryAfterMs = options.maxRetryAfterMs ?? deadlineMs;

    checkRange('maxAttempts', maxAttempts, Number.isInteger(maxAttempts) && maxAttempts >= 1 && maxAttempts <= MAX_ATTEMPTS,
      `must be an integer in 1..${MAX_ATTEMPTS} (more than ${MAX_ATTEMPTS} belongs in a task queue, R-RES-RE-3)`);
    checkRange('deadlineMs', deadlineMs, Number.isFinite(deadlineMs) && deadlineMs > 0 && deadlineMs <= QUEUE_MS,
      `must be in (0, ${QUEUE_MS}]; longer retry windows belong in a task queue (R-RES-RE-4)`);
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
    return this.#start('read', undefined, fn, options?.signal, options?.handoff) as Promise<T | Deferred>;
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
    return this.#start('write', key, fn as (ctx: AttemptContext) => T | PromiseLike<T>, signal, options.handoff) as Promise<T | Deferred>;
  }

  /**
   * The first attempt, without an async function: a call that succeeds at once costs one promise
   * for the caller and one reaction to the operation's promise. Anything else continues in
   * `#retry`.
   */
  #start(
    kind: CallKind,
    key: string | undefined,
    fn: (ctx: AttemptContext) => unknown,
    signal: AbortSignal | undefined,
    handoff: Handoff | undefined,
  ): Promise<unknown> {
    if (signal?.aborted) {
      this.#meter?.aborted(kind);
      return Promise.reject(signal.reason);
    }
    const now = monotonicNow();
    const deadlineAt = now + this.config.deadlineMs;
    const call = new Call(kind, key, fn, signal, handoff, deadlineAt, wheelFor(signal));
    this.#budget?.recordRequest();
    if (this.#native !== undefined && !this.#native.tryAcquire()) {
      return this.#giveUp(kind, 'circuit-open', 0, undefined, key, handoff);
    }
    // The key is typed as string for writes; reads never see it in their context type.
    const ctx = new Attempt(1, key as string);
    let pending: unknown;
    try {
      pending = ctx.start(call, fn, this.#foreign, this.#abortAt(now, deadlineAt), now);
    } catch (error) {
      ctx.leave();
      return this.#retry(call, ctx, true, error);
    }
    if (!isThenable(pending)) {
      ctx.leave();
      if (isFailedResponse(pending)) return this.#retry(call, ctx, false, pending);
      this.#native?.settle('success');
      return Promise.resolve(pending);
    }
    const promise = new Promise(captureResolve);
    call.resolve = capturedResolve;
    ctx.watch(pending, this.#firstSettled);
    return promise;
  }

  /** One function per policy, not one closure per call. */
  readonly #firstSettled: Settled = (ctx, call, thrown, value) => {
    ctx.leave();
    if (!thrown && !isFailedResponse(value)) {
      this.#native?.settle('success');
      call.resolve(value);
      return;
    }
    call.resolve(this.#retry(call, ctx, thrown, value));
  };

  #abortAt(now: number, deadlineAt: number): number {
    const timeoutMs = this.config.attemptTimeoutMs;
    return timeoutMs !== undefined && now + timeoutMs < deadlineAt ? now + timeoutMs : deadlineAt;
  }

  /** Judges how an attempt ended and, while the rules allow, makes the next one. */
  async #retry(call: Call, first: Attempt, firstThrown: boolean, firstResult: unknown): Promise<unknown> {
    const { kind, key, signal, handoff, deadlineAt } = call;
    const native = this.#native;
    let ctx = first;
    let thrown = firstThrown;
    let result = firstResult;
    let failure: Failure | undefined;
    let previousDelay = 0;

    for (;;) {
      const attempt = ctx.attempt;
      if (thrown && ctx.expiredAtDeadline() && !signal?.aborted) {
        // The deadline itself, not an attempt timeout: no time is left for anything else.
        native?.settleError(result);
        this.#meter?.attemptFailed(kind);
        return this.#giveUp(kind, 'deadline', attempt, { value: result, response: false }, key, handoff);
      }

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
        if (!ctx.invoked && ctx.expired === undefined) {
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
      } else {
        meter.retried(kind);
        try {
          await sleep(delay, signal);
        } catch (reason) {
          // Only the caller's abort ends a sleep early.
          meter.aborted(kind);
          throw reason;
        }
      }

      if (native !== undefined && !native.tryAcquire()) {
        return this.#giveUp(kind, 'circuit-open', attempt, failure, key, handoff);
      }
      ctx = new Attempt(attempt + 1, key as string);
      const now = monotonicNow();
      let pending: unknown;
      thrown = false;
      try {
        pending = ctx.start(call, call.fn, this.#foreign, this.#abortAt(now, deadlineAt), now);
      } catch (error) {
        thrown = true;
        pending = error;
      }
      if (!thrown && isThenable(pending)) {
        ({ thrown, value: result } = await outcomeOf(ctx, pending));
      } else {
        result = pending;
      }
      ctx.leave();
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
