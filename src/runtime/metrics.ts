/**
 * OpenTelemetry metrics for policies, breakers, budgets and task queues, opt-in.
 *
 * The runtime ships to production and depends on nothing but Node, so this file never imports
 * `@opentelemetry/api`: `enableMetrics()` loads it on demand, or takes the Meter / MeterProvider a
 * service already has. Objects created without `metrics` hold `undefined` and pay one comparison.
 *
 * Counting on a call's path is a typed-array increment. The totals reach OpenTelemetry through
 * observable instruments read at collection time, so a call pays no attribute hashing and no SDK
 * lookup, however many calls it makes between two exports.
 */
import { createRequire } from 'node:module';
import type { BreakerState } from './breaker.js';
import type { CallKind } from './classify.js';
import type { GiveUpReason } from './handoff.js';
import type { TaskCounts } from './queue/types.js';

/** Structural views of the few OpenTelemetry API types used, so no import of the API is needed. */
export type MetricAttributes = Record<string, string | number | boolean>;

export interface ObservableResultLike {
  observe(value: number, attributes?: MetricAttributes): void;
}

export interface ObservableInstrumentLike {
  addCallback(callback: (result: ObservableResultLike) => void | Promise<void>): void;
}

export interface MetricInstrumentOptions {
  description?: string;
  unit?: string;
}

export interface MeterLike {
  createObservableCounter(name: string, options?: MetricInstrumentOptions): ObservableInstrumentLike;
  createObservableUpDownCounter(name: string, options?: MetricInstrumentOptions): ObservableInstrumentLike;
  createObservableGauge(name: string, options?: MetricInstrumentOptions): ObservableInstrumentLike;
}

export interface MeterProviderLike {
  getMeter(name: string, version?: string): MeterLike;
}

export interface EnableMetricsOptions {
  /** A Meter to record with. */
  meter?: MeterLike;
  /** A MeterProvider to take the `eslint-plugin-safe-retry` Meter from. */
  meterProvider?: MeterProviderLike;
}

/** What `enableMetrics()` returns; pass it as the `metrics` option. Opaque on purpose. */
export interface RuntimeMetrics {
  readonly meter: MeterLike;
}

export const METER_NAME = 'eslint-plugin-safe-retry';

const KINDS = ['read', 'write'] as const;
const OUTCOMES = ['success', 'gave_up', 'deferred', 'aborted'] as const;
const SUCCESS = 0;
const GAVE_UP = 1;
const DEFERRED = 2;
const ABORTED = 3;
const REASONS: readonly GiveUpReason[] = ['not-retryable', 'attempts', 'deadline', 'budget', 'circuit-open', 'retry-after-too-long'];
const REASON_INDEX = new Map<GiveUpReason, number>(REASONS.map((r, i) => [r, i]));
const STATES: readonly BreakerState[] = ['closed', 'open', 'half-open'];
const STATUSES = ['pending', 'running', 'completed', 'failed'] as const;

/**
 * Totals for every policy of one name; a registry that swaps a policy's limits keeps counting into
 * the same totals, so the counters stay monotonic across a config update. An attempt is counted
 * when it ends, so a call's successful attempt and its success are one step.
 */
export class PolicyMeter {
  /** [kind], kind 0 read, 1 write. */
  readonly attempts = new Float64Array(2);
  readonly retries = new Float64Array(2);
  /** [kind * OUTCOMES.length + outcome] */
  readonly calls = new Float64Array(2 * OUTCOMES.length);
  /** [kind * REASONS.length + reason] */
  readonly giveups = new Float64Array(2 * REASONS.length);

  constructor(readonly name: string) {}

  succeeded(kind: CallKind): void {
    const k = kind === 'write' ? 1 : 0;
    this.attempts[k]! += 1;
    this.calls[k * OUTCOMES.length + SUCCESS]! += 1;
  }

  /** An attempt that ended in a failure (or the caller's abort). */
  attemptFailed(kind: CallKind): void {
    this.attempts[kind === 'write' ? 1 : 0]! += 1;
  }

  retried(kind: CallKind): void {
    this.retries[kind === 'write' ? 1 : 0]! += 1;
  }

  gaveUp(kind: CallKind, reason: GiveUpReason, deferred: boolean): void {
    const k = kind === 'write' ? 1 : 0;
    this.giveups[k * REASONS.length + REASON_INDEX.get(reason)!]! += 1;
    this.calls[k * OUTCOMES.length + (deferred ? DEFERRED : GAVE_UP)]! += 1;
  }

  aborted(kind: CallKind): void {
    this.calls[(kind === 'write' ? 1 : 0) * OUTCOMES.length + ABORTED]! += 1;
  }
}

export class BreakerMeter {
  /** [from * 3 + to], indices as in STATES. */
  readonly transitions = new Float64Array(STATES.length * STATES.length);
  rejections = 0;
  /** The newest breaker of this name: the one whose state is reported. */
  current: { readonly state: BreakerState } | undefined = undefined;

  constructor(readonly name: string) {}
}

export class BudgetMeter {
  exhausted = 0;
  current: { available(): number } | undefined = undefined;

  constructor(readonly name: string) {}
}

export class QueueMeter {
  readonly completions = new Map<string, number>();
  /** Per task kind: [attempt failed, will run again; attempt failed, task is now FAILED]. */
  readonly failures = new Map<string, [number, number]>();
  counts: (() => Promise<TaskCounts>) | undefined = undefined;
  onError: ((error: unknown) => void) | undefined = undefined;
  #failing = false;

  constructor(readonly name: string) {}

  completed(taskKind: string): void {
    this.completions.set(taskKind, (this.completions.get(taskKind) ?? 0) + 1);
  }

  failed(taskKind: string, final: boolean): void {
    let pair = this.failures.get(taskKind);
    if (pair === undefined) this.failures.set(taskKind, (pair = [0, 0]));
    pair[final ? 1 : 0] += 1;
  }

  /** Reports the first failure of a streak only: a closed store would otherwise log every export. */
  async observeDepth(result: ObservableResultLike): Promise<void> {
    if (this.counts === undefined) return;
    let counts: TaskCounts;
    try {
      counts = await this.counts();
    } catch (error) {
      if (!this.#failing) this.onError?.(error);
      this.#failing = true;
      return;
    }
    this.#failing = false;
    for (const status of STATUSES) result.observe(counts[status] ?? 0, { queue: this.name, status });
  }
}

function named<M>(map: Map<string, M>, name: string, make: (name: string) => M): M {
  let meter = map.get(name);
  if (meter === undefined) map.set(name, (meter = make(name)));
  return meter;
}

class MetricsHub implements RuntimeMetrics {
  readonly #policies = new Map<string, PolicyMeter>();
  readonly #breakers = new Map<string, BreakerMeter>();
  readonly #budgets = new Map<string, BudgetMeter>();
  readonly #queues = new Map<string, QueueMeter>();

  constructor(readonly meter: MeterLike) {
    const counter = (name: string, unit: string, description: string, observe: (r: ObservableResultLike) => void) =>
      meter.createObservableCounter(name, { unit, description }).addCallback(observe);

    counter('safe_retry.calls', '{call}', 'Calls through a retry policy, by how they ended', (r) => {
      for (const m of this.#policies.values()) {
        for (let k = 0; k < 2; k++) {
          for (let o = 0; o < OUTCOMES.length; o++) {
            const v = m.calls[k * OUTCOMES.length + o]!;
            if (v > 0) r.observe(v, { policy: m.name, kind: KINDS[k]!, outcome: OUTCOMES[o]! });
          }
        }
      }
    });
    counter('safe_retry.attempts', '{attempt}', 'Attempts made, the first of each call included', (r) => {
      for (const m of this.#policies.values()) observeKinds(r, m.attempts, m.name);
    });
    counter('safe_retry.retries', '{retry}', 'Retries scheduled (a wait was started before another attempt)', (r) => {
      for (const m of this.#policies.values()) observeKinds(r, m.retries, m.name);
    });
    counter('safe_retry.giveups', '{call}', 'Calls a retry policy stopped retrying, by reason', (r) => {
      for (const m of this.#policies.values()) {
        for (let k = 0; k < 2; k++) {
          for (let i = 0; i < REASONS.length; i++) {
            const v = m.giveups[k * REASONS.length + i]!;
            if (v > 0) r.observe(v, { policy: m.name, kind: KINDS[k]!, reason: REASONS[i]! });
          }
        }
      }
    });

    counter('safe_retry.budget.exhausted', '{retry}', 'Retries a retry budget refused', (r) => {
      for (const m of this.#budgets.values()) if (m.exhausted > 0) r.observe(m.exhausted, { budget: m.name });
    });
    meter.createObservableGauge('safe_retry.budget.available', { unit: '{retry}', description: 'Retries a retry budget would grant now' }).addCallback((r) => {
      for (const m of this.#budgets.values()) if (m.current !== undefined) r.observe(m.current.available(), { budget: m.name });
    });

    meter.createObservableGauge('safe_retry.breaker.state', { unit: '1', description: '1 for the state a circuit breaker is in, 0 for the others' }).addCallback((r) => {
      for (const m of this.#breakers.values()) {
        if (m.current === undefined) continue;
        const state = m.current.state;
        for (const s of STATES) r.observe(s === state ? 1 : 0, { breaker: m.name, state: s });
      }
    });
    counter('safe_retry.breaker.transitions', '{transition}', 'Circuit breaker state changes', (r) => {
      for (const m of this.#breakers.values()) {
        for (let i = 0; i < m.transitions.length; i++) {
          const v = m.transitions[i]!;
          if (v > 0) r.observe(v, { breaker: m.name, from: STATES[Math.floor(i / STATES.length)]!, to: STATES[i % STATES.length]! });
        }
      }
    });
    counter('safe_retry.breaker.rejections', '{call}', 'Calls an open (or saturated half-open) circuit breaker refused', (r) => {
      for (const m of this.#breakers.values()) if (m.rejections > 0) r.observe(m.rejections, { breaker: m.name });
    });

    meter.createObservableUpDownCounter('safe_retry.queue.depth', { unit: '{task}', description: 'Tasks in the task queue table, by status' }).addCallback(async (r) => {
      await Promise.all([...this.#queues.values()].map((m) => m.observeDepth(r)));
    });
    counter('safe_retry.queue.task.completions', '{task}', 'Tasks a worker completed', (r) => {
      for (const m of this.#queues.values()) for (const [kind, v] of m.completions) r.observe(v, { queue: m.name, task_kind: kind });
    });
    counter('safe_retry.queue.task.failures', '{task}', 'Task attempts that failed; final=true when the task reached FAILED', (r) => {
      for (const m of this.#queues.values()) {
        for (const [kind, [retrying, final]] of m.failures) {
          if (retrying > 0) r.observe(retrying, { queue: m.name, task_kind: kind, final: false });
          if (final > 0) r.observe(final, { queue: m.name, task_kind: kind, final: true });
        }
      }
    });
  }

  policy(name: string): PolicyMeter {
    return named(this.#policies, name, (n) => new PolicyMeter(n));
  }

  breaker(name: string): BreakerMeter {
    return named(this.#breakers, name, (n) => new BreakerMeter(n));
  }

  budget(name: string): BudgetMeter {
    return named(this.#budgets, name, (n) => new BudgetMeter(n));
  }

  queue(name: string): QueueMeter {
    return named(this.#queues, name, (n) => new QueueMeter(n));
  }
}

function observeKinds(r: ObservableResultLike, values: Float64Array, policy: string): void {
  for (let k = 0; k < 2; k++) {
    const v = values[k]!;
    if (v > 0) r.observe(v, { policy, kind: KINDS[k]! });
  }
}

/** The metrics option as the constructors use it; a value not made by enableMetrics is a bug. */
export function metricsHub(metrics: RuntimeMetrics | undefined): MetricsHub | undefined {
  if (metrics === undefined) return undefined;
  if (!(metrics instanceof MetricsHub)) throw new TypeError('metrics must be the value enableMetrics() returns');
  return metrics;
}

const hubs = new WeakMap<MeterLike, MetricsHub>();

function packageVersion(require: NodeJS.Require): string | undefined {
  try {
    return (require('../../package.json') as { version?: string }).version;
  } catch {
    return undefined;
  }
}

function globalMeterProvider(require: NodeJS.Require): MeterProviderLike {
  let api: { metrics: { getMeterProvider(): MeterProviderLike } };
  try {
    api = require('@opentelemetry/api') as typeof api;
  } catch (error) {
    throw new Error(
      'enableMetrics() without { meter } or { meterProvider } reads the global MeterProvider from @opentelemetry/api, which is not installed. Install it (npm install @opentelemetry/api) with an SDK, or pass a Meter.',
      { cause: error },
    );
  }
  return api.metrics.getMeterProvider();
}

/**
 * Turns metrics on for the objects given its result as `metrics`. Without arguments it loads
 * `@opentelemetry/api` (an optional peer dependency) and takes the global MeterProvider; call it
 * after the OpenTelemetry SDK has registered one, or the API hands out its no-op meter. The same
 * meter always gives the same result, so instruments are registered once.
 */
export function enableMetrics(options: EnableMetricsOptions = {}): RuntimeMetrics {
  if (options.meter !== undefined && options.meterProvider !== undefined) {
    throw new TypeError('enableMetrics: pass a meter or a meterProvider, not both');
  }
  let meter = options.meter;
  if (meter === undefined) {
    const require = createRequire(import.meta.url);
    const provider = options.meterProvider ?? globalMeterProvider(require);
    meter = provider.getMeter(METER_NAME, packageVersion(require));
  }
  if (typeof meter?.createObservableCounter !== 'function') throw new TypeError('enableMetrics: meter is not an OpenTelemetry Meter');
  let hub = hubs.get(meter);
  if (hub === undefined) hubs.set(meter, (hub = new MetricsHub(meter)));
  return hub;
}
