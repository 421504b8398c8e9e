/**
 * The properties Resilience4j's Spring Boot starter binds (CommonRetryConfigurationProperties,
 * CommonCircuitBreakerConfigurationProperties, CommonTimeLimiterConfigurationProperties), with the
 * Java type Spring converts each to, the check its setter makes (a failed check stops Spring at
 * startup), and what the Node runtime does with it.
 */
import { uniform } from './source.js';

export type ValueType = 'duration' | 'boolean' | 'integer' | 'double' | 'text' | 'class' | 'classes' | { readonly oneOf: readonly string[] };

/** applied: the runtime uses it; ignored: valid, but does nothing in Node; rejected: cannot be honoured; renamed: Resilience4j 2 no longer reads it. */
export type Role = 'applied' | 'ignored' | 'rejected' | 'renamed';

export interface KeyInfo {
  /** kebab-case, as the documentation writes it. */
  readonly name: string;
  readonly type: ValueType;
  readonly role: Role;
  /** For ignored and rejected keys: why; for renamed keys: the current name. */
  readonly note?: string;
  /** Resilience4j's setter check: the rule the value breaks, or undefined when it passes. Durations in ms. */
  readonly check?: (value: number) => string | undefined;
}

const atLeast = (min: number, what = '') => (n: number) => (n >= min ? undefined : `it must be at least ${min}${what}`);
const notNegative = (n: number) => (n >= 0 ? undefined : 'it must not be negative');
const aboveZero = (n: number) => (n > 0 ? undefined : 'it must be above 0');
const factorRange = (n: number) => (n >= 0 && n < 1 ? undefined : 'it must be within [0, 1)');
const percentage = (n: number) => (n >= 1 && n <= 100 ? undefined : 'it must be within [1, 100]');
// Duration.toMillis() truncates: 500us is 0 ms.
const atLeastOneMs = (ms: number) => (Math.trunc(ms) >= 1 ? undefined : 'it must be at least 1 ms');

const JAVA_CLASSES = 'names Java classes; the runtime classifies errors itself (network errors, timeouts, 408, 429, 5xx; never other 4xx) and code can narrow that with retryOn';
const OPEN_WAIT = 'the open state lasts wait-duration-in-open-state every time';
const SLOW_CALLS = 'the breaker does not count slow calls; give attempts a timeout (resilience4j.timelimiter) instead';
const ACTUATOR = 'Spring Actuator only';

function table(entries: readonly KeyInfo[]): ReadonlyMap<string, KeyInfo> {
  return new Map(entries.map((e) => [uniform(e.name), e]));
}

export const RETRY_KEYS = table([
  { name: 'base-config', type: 'text', role: 'applied' },
  { name: 'max-attempts', type: 'integer', role: 'applied', check: atLeast(1, ' (1 attempt means no retry)') },
  { name: 'wait-duration', type: 'duration', role: 'applied', check: notNegative },
  { name: 'enable-exponential-backoff', type: 'boolean', role: 'applied' },
  { name: 'exponential-backoff-multiplier', type: 'double', role: 'applied', check: aboveZero },
  { name: 'exponential-max-wait-duration', type: 'duration', role: 'applied', check: notNegative },
  { name: 'enable-randomized-wait', type: 'boolean', role: 'applied' },
  { name: 'randomized-wait-factor', type: 'double', role: 'applied', check: factorRange },
  { name: 'retry-exceptions', type: 'classes', role: 'ignored', note: JAVA_CLASSES },
  { name: 'ignore-exceptions', type: 'classes', role: 'ignored', note: JAVA_CLASSES },
  { name: 'retry-exception-predicate', type: 'class', role: 'ignored', note: JAVA_CLASSES },
  { name: 'result-predicate', type: 'class', role: 'ignored', note: JAVA_CLASSES },
  { name: 'consume-result-before-retry-attempt', type: 'class', role: 'ignored', note: 'the runtime releases an unread response body before every retry' },
  { name: 'fail-after-max-attempts', type: 'boolean', role: 'ignored', note: 'the runtime always rejects with the last error once it gives up' },
  { name: 'event-consumer-buffer-size', type: 'integer', role: 'ignored', note: 'use onRetry / onGiveUp or metrics', check: atLeast(1) },
  { name: 'writable-stack-trace-enabled', type: 'boolean', role: 'ignored', note: 'JavaScript errors keep their stack' },
  {
    name: 'interval-bi-function',
    type: 'class',
    role: 'rejected',
    note: "a Java interval function cannot set a Node policy's waits, nor can its waits be checked against the guide; use enable-exponential-backoff with enable-randomized-wait",
  },
  { name: 'max-retry-attempts', type: 'integer', role: 'renamed', note: 'max-attempts' },
]);

export const BREAKER_KEYS = table([
  { name: 'base-config', type: 'text', role: 'applied' },
  { name: 'failure-rate-threshold', type: 'double', role: 'applied', check: percentage },
  { name: 'minimum-number-of-calls', type: 'integer', role: 'applied', check: atLeast(1) },
  { name: 'sliding-window-type', type: { oneOf: ['COUNT_BASED', 'TIME_BASED'] }, role: 'applied' },
  { name: 'sliding-window-size', type: 'integer', role: 'applied', check: atLeast(1) },
  { name: 'wait-duration-in-open-state', type: 'duration', role: 'applied', check: atLeastOneMs },
  { name: 'permitted-number-of-calls-in-half-open-state', type: 'integer', role: 'applied', check: atLeast(1) },
  { name: 'automatic-transition-from-open-to-half-open-enabled', type: 'boolean', role: 'ignored', note: 'the breaker lets probes through as soon as the open wait is over' },
  { name: 'record-exceptions', type: 'classes', role: 'ignored', note: JAVA_CLASSES },
  { name: 'ignore-exceptions', type: 'classes', role: 'ignored', note: JAVA_CLASSES },
  { name: 'record-failure-predicate', type: 'class', role: 'ignored', note: JAVA_CLASSES },
  { name: 'record-result-predicate', type: 'class', role: 'ignored', note: JAVA_CLASSES },
  { name: 'ignore-exception-predicate', type: 'class', role: 'ignored', note: JAVA_CLASSES },
  { name: 'ignore-class-binding-exceptions', type: 'boolean', role: 'ignored', note: 'there are no Java classes to bind in Node' },
  { name: 'slow-call-rate-threshold', type: 'double', role: 'ignored', note: SLOW_CALLS, check: percentage },
  { name: 'slow-call-duration-threshold', type: 'duration', role: 'ignored', note: SLOW_CALLS, check: aboveZero },
  { name: 'max-wait-duration-in-half-open-state', type: 'duration', role: 'ignored', note: 'half-open lasts until the probes report', check: notNegative },
  { name: 'transition-to-state-after-wait-duration', type: { oneOf: ['OPEN', 'CLOSED'] }, role: 'ignored', note: 'half-open lasts until the probes report' },
  { name: 'initial-state', type: { oneOf: ['CLOSED', 'OPEN', 'HALF_OPEN', 'DISABLED', 'METRICS_ONLY', 'FORCED_OPEN'] }, role: 'ignored', note: 'a breaker starts closed' },
  { name: 'enable-exponential-backoff', type: 'boolean', role: 'ignored', note: OPEN_WAIT },
  { name: 'exponential-backoff-multiplier', type: 'double', role: 'ignored', note: OPEN_WAIT, check: aboveZero },
  { name: 'exponential-max-wait-duration-in-open-state', type: 'duration', role: 'ignored', note: OPEN_WAIT, check: atLeastOneMs },
  { name: 'enable-randomized-wait', type: 'boolean', role: 'ignored', note: OPEN_WAIT },
  { name: 'randomized-wait-factor', type: 'double', role: 'ignored', note: OPEN_WAIT, check: factorRange },
  { name: 'register-health-indicator', type: 'boolean', role: 'ignored', note: ACTUATOR },
  { name: 'allow-health-indicator-to-fail', type: 'boolean', role: 'ignored', note: ACTUATOR },
  { name: 'event-consumer-buffer-size', type: 'integer', role: 'ignored', note: 'use onStateChange or metrics', check: atLeast(1) },
  { name: 'writable-stack-trace-enabled', type: 'boolean', role: 'ignored', note: 'JavaScript errors keep their stack' },
]);

export const TIME_LIMITER_KEYS = table([
  { name: 'base-config', type: 'text', role: 'applied' },
  { name: 'timeout-duration', type: 'duration', role: 'applied', check: notNegative },
  { name: 'cancel-running-future', type: 'boolean', role: 'ignored', note: 'an attempt that times out always has its ctx.signal aborted' },
  { name: 'event-consumer-buffer-size', type: 'integer', role: 'ignored', note: 'use metrics', check: atLeast(1) },
]);

export type ModuleName = 'retry' | 'circuitbreaker' | 'timelimiter';

export interface ModuleInfo {
  readonly name: ModuleName;
  readonly keys: ReadonlyMap<string, KeyInfo>;
  readonly aspectOrder: string;
}

export const MODULES: ReadonlyMap<string, ModuleInfo> = new Map([
  ['retry', { name: 'retry', keys: RETRY_KEYS, aspectOrder: 'retry-aspect-order' }],
  ['circuitbreaker', { name: 'circuitbreaker', keys: BREAKER_KEYS, aspectOrder: 'circuit-breaker-aspect-order' }],
  ['timelimiter', { name: 'timelimiter', keys: TIME_LIMITER_KEYS, aspectOrder: 'time-limiter-aspect-order' }],
]);

/** The other modules the starter binds; the Node runtime builds none of them. */
export const OTHER_MODULES = ['bulkhead', 'thread-pool-bulkhead', 'ratelimiter', 'micrometer', 'scheduled', 'thread'];

export const MODULE_KEYS = ['retry', 'circuitbreaker', 'timelimiter', ...OTHER_MODULES];
