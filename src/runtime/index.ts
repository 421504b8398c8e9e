/**
 * eslint-plugin-safe-retry/runtime: the retry engine the plugin's rules point to. Production code;
 * it depends on nothing but Node's standard library.
 */
export { createRetryPolicy } from './policy.js';
export type {
  AttemptContext,
  CallOptions,
  GiveUpEvent,
  NonEmptyString,
  ReadOptions,
  ResolvedRetryPolicyOptions,
  RetryEvent,
  RetryPolicy,
  RetryPolicyOptions,
  WriteAttemptContext,
  WriteOptions,
} from './policy.js';
export { createRetryBudget } from './budget.js';
export type { RetryBudget, RetryBudgetOptions } from './budget.js';
export { createCircuitBreaker } from './breaker.js';
export type { BreakerOutcome, BreakerState, CircuitBreaker, CircuitBreakerLike, CircuitBreakerOptions } from './breaker.js';
export { createBackoff } from './backoff.js';
export type { Backoff, BackoffOptions, Jitter } from './backoff.js';
export { CircuitOpenError, HttpStatusError, throwIfNotOk } from './errors.js';
export type { ResponseLike } from './errors.js';
export { isRetryableError, isRetryableStatus, parseRetryAfter, statusOf } from './classify.js';
export type { CallKind } from './classify.js';
export { idempotencyKey } from './idempotency-key.js';
export { Deferred } from './handoff.js';
export type { GiveUpReason, Handoff, HandoffContext } from './handoff.js';
export * from './queue/index.js';
export { createPolicyRegistry, PolicyConfigError } from './registry.js';
export type { PolicyConfigIssue, PolicyRegistry, PolicyRegistryOptions } from './registry.js';
export { enableMetrics } from './metrics.js';
export type {
  EnableMetricsOptions,
  MeterLike,
  MeterProviderLike,
  MetricAttributes,
  MetricInstrumentOptions,
  ObservableInstrumentLike,
  ObservableResultLike,
  RuntimeMetrics,
} from './metrics.js';
