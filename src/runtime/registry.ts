/**
 * Named retry policies, circuit breakers and budgets built from configuration, so limits can change
 * without a deploy (R-RES-RE-X4: a legacy helper's config lives in code).
 *
 * `registry.retry(name)` hands out a stable object. `update(config)` validates the whole new config
 * first and, only if all of it is valid, points every stable object at freshly built limits in one
 * synchronous step. A call already running keeps the policy (and breaker and budget) it started
 * with until it settles; the next call uses the new one.
 */
import { createCircuitBreaker, type BreakerOutcome, type BreakerState, type CircuitBreaker, type CircuitBreakerOptions } from './breaker.js';
import { createRetryBudget, type RetryBudget, type RetryBudgetOptions } from './budget.js';
import { readPolicyConfig, type BreakerData, type BudgetData, type PolicyConfigIssue, type RetrySpec, type Spec } from './config.js';
import type { RuntimeMetrics } from './metrics.js';
import { metricsHub } from './metrics.js';
import {
  createRetryPolicy,
  type AttemptContext,
  type CallOptions,
  type ReadOptions,
  type ResolvedRetryPolicyOptions,
  type RetryPolicy,
  type RetryPolicyOptions,
  type WriteAttemptContext,
  type WriteOptions,
} from './policy.js';

export type { PolicyConfigIssue } from './config.js';

/** What cannot come from a config file: functions. Keyed by policy, breaker or budget name. */
export interface PolicyRegistryOptions {
  retry?: Record<string, Pick<RetryPolicyOptions, 'retryOn' | 'onRetry' | 'onGiveUp' | 'random'>>;
  circuitBreaker?: Record<string, Pick<CircuitBreakerOptions, 'isFailure' | 'onStateChange' | 'now'>>;
  budget?: Record<string, Pick<RetryBudgetOptions, 'now'>>;
  /** From `enableMetrics()`; every object is named after its config entry in the metrics. */
  metrics?: RuntimeMetrics;
  /**
   * Keys that are valid Resilience4j but change nothing here (`retry-exceptions`, ...), reported
   * on every accepted config. Default: `process.emitWarning`.
   */
  onWarning?: (warning: PolicyConfigIssue) => void;
}

export interface PolicyRegistry {
  /** The retry policy of that name; the same object for the registry's lifetime. */
  retry(name: string): RetryPolicy;
  breaker(name: string): CircuitBreaker;
  budget(name: string): RetryBudget;
  /**
   * Swaps every limit to `config`, or throws `PolicyConfigError` and changes nothing. Calls in
   * flight finish under the limits they started with.
   */
  update(config: unknown): void;
  readonly names: { readonly retry: readonly string[]; readonly circuitBreaker: readonly string[]; readonly budget: readonly string[] };
}

export class PolicyConfigError extends Error {
  override readonly name = 'PolicyConfigError';
  readonly code = 'EPOLICYCONFIG';

  constructor(
    readonly issues: readonly PolicyConfigIssue[],
    keptPrevious: boolean,
  ) {
    const lines = issues.map((i) => `  ${i.path}: ${i.message}${i.rule ? ` (${i.rule})` : ''}`);
    const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
    super(`retry policy configuration rejected (${count})${keptPrevious ? '; the previous configuration stays in force' : ''}:\n${lines.join('\n')}`);
  }
}

/** Delegates to the current policy; a call resolves `#current` once, when it starts. */
class SwappablePolicy {
  constructor(public current: RetryPolicy) {}

  get config(): ResolvedRetryPolicyOptions {
    return this.current.config;
  }

  read<T>(fn: (ctx: AttemptContext) => T | PromiseLike<T>, options?: ReadOptions): Promise<unknown> {
    return this.current.read(fn, options);
  }

  write<T, K extends string>(options: WriteOptions<K>, fn: (ctx: WriteAttemptContext) => T | PromiseLike<T>, callOptions?: CallOptions): Promise<unknown> {
    return this.current.write(options, fn, callOptions);
  }
}

/**
 * A breaker's state cannot move to a new window size or threshold, so a changed breaker starts
 * closed with an empty window; an unchanged one is kept as it is (open stays open).
 * Code that holds this object through a swap may settle one outcome on the new breaker that was
 * acquired on the old one; that costs one sample, never a stuck probe.
 */
class SwappableBreaker implements CircuitBreaker {
  constructor(public current: CircuitBreaker) {}

  get state(): BreakerState {
    return this.current.state;
  }

  tryAcquire(): boolean {
    return this.current.tryAcquire();
  }

  settle(outcome: BreakerOutcome): void {
    this.current.settle(outcome);
  }

  settleError(error: unknown): void {
    this.current.settleError(error);
  }

  isOpenFor(inMs: number): boolean {
    return this.current.isOpenFor(inMs);
  }

  execute<T>(fn: () => T | PromiseLike<T>): Promise<T> {
    return this.current.execute(fn);
  }
}

class SwappableBudget implements RetryBudget {
  constructor(public current: RetryBudget) {}

  recordRequest(): void {
    this.current.recordRequest();
  }

  tryRetry(): boolean {
    return this.current.tryRetry();
  }

  available(): number {
    return this.current.available();
  }
}

interface Built<O, T> {
  readonly spec: Spec<O>;
  readonly object: T;
}

/** Option sets are flat records of numbers and strings; key order must not matter. */
function sameOptions(a: object, b: object): boolean {
  const canonical = (o: object) => JSON.stringify(Object.entries(o).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
  return canonical(a) === canonical(b);
}

const CODE_KEYS = {
  retry: ['retryOn', 'onRetry', 'onGiveUp', 'random'],
  circuitBreaker: ['isFailure', 'onStateChange', 'now'],
  budget: ['now'],
} as const;

/** A limit passed in code would override the config and could not be changed without a deploy. */
function checkCodeOptions(options: PolicyRegistryOptions): void {
  for (const section of Object.keys(CODE_KEYS) as (keyof typeof CODE_KEYS)[]) {
    const allowed: readonly string[] = CODE_KEYS[section];
    for (const [name, entry] of Object.entries(options[section] ?? {})) {
      for (const key of Object.keys(entry ?? {})) {
        if (!allowed.includes(key)) {
          throw new TypeError(`createPolicyRegistry: ${section}.${name}.${key} cannot be set in code (only ${allowed.join(', ')}); limits belong in the configuration`);
        }
      }
    }
  }
}

function emitWarning(warning: PolicyConfigIssue): void {
  process.emitWarning(`${warning.path} ${warning.message}`, { code: 'SAFE_RETRY_CONFIG' });
}

class Registry implements PolicyRegistry {
  readonly #options: PolicyRegistryOptions;
  readonly #policies = new Map<string, SwappablePolicy>();
  readonly #breakers = new Map<string, SwappableBreaker>();
  readonly #budgets = new Map<string, SwappableBudget>();
  #retrySpecs = new Map<string, RetrySpec>();
  #builtBreakers = new Map<string, Built<BreakerData, CircuitBreaker>>();
  #builtBudgets = new Map<string, Built<BudgetData, RetryBudget>>();
  /** Names the service has asked for: a config that drops one would break running code. */
  readonly #used = { retry: new Set<string>(), breaker: new Set<string>(), budget: new Set<string>() };

  constructor(config: unknown, options: PolicyRegistryOptions) {
    this.#options = options;
    metricsHub(options.metrics);
    checkCodeOptions(options);
    for (const name of Object.keys(options.retry ?? {})) this.#used.retry.add(name);
    for (const name of Object.keys(options.circuitBreaker ?? {})) this.#used.breaker.add(name);
    for (const name of Object.keys(options.budget ?? {})) this.#used.budget.add(name);
    this.#apply(config, false);
  }

  get names(): PolicyRegistry['names'] {
    return { retry: [...this.#retrySpecs.keys()], circuitBreaker: [...this.#builtBreakers.keys()], budget: [...this.#builtBudgets.keys()] };
  }

  retry(name: string): RetryPolicy {
    const policy = this.#policies.get(name);
    if (policy === undefined) throw new RangeError(`no retry policy named '${name}' in the configuration (known: ${this.#list(this.#policies)})`);
    this.#used.retry.add(name);
    return policy as unknown as RetryPolicy;
  }

  breaker(name: string): CircuitBreaker {
    const breaker = this.#breakers.get(name);
    if (breaker === undefined) throw new RangeError(`no circuit breaker named '${name}' in the configuration (known: ${this.#list(this.#breakers)})`);
    this.#used.breaker.add(name);
    return breaker;
  }

  budget(name: string): RetryBudget {
    const budget = this.#budgets.get(name);
    if (budget === undefined) throw new RangeError(`no retry budget named '${name}' in the configuration (known: ${this.#list(this.#budgets)})`);
    this.#used.budget.add(name);
    return budget;
  }

  update(config: unknown): void {
    this.#apply(config, true);
  }

  #list(map: Map<string, unknown>): string {
    return map.size === 0 ? 'none' : [...map.keys()].map((k) => `'${k}'`).join(', ');
  }

  #apply(config: unknown, hasPrevious: boolean): void {
    const read = readPolicyConfig(config);
    const issues = read.issues;
    const kept = (kind: string, used: Set<string>, present: Set<string>, where: (name: string) => string | undefined) => {
      for (const name of used) {
        if (!present.has(name)) {
          issues.push({
            path: where(name) ?? `${kind} '${name}'`,
            message: `is not in the configuration, but the service uses the ${kind} '${name}' (a registry call or the registry's code options); keep it, or drop its use first`,
          });
        }
      }
    };
    kept('retry policy', this.#used.retry, read.defined.retry, (n) => this.#retrySpecs.get(n)?.path);
    kept('circuit breaker', this.#used.breaker, read.defined.breakers, (n) => this.#builtBreakers.get(n)?.spec.path);
    kept('retry budget', this.#used.budget, read.defined.budgets, (n) => this.#builtBudgets.get(n)?.spec.path);
    if (issues.length > 0) throw new PolicyConfigError(issues, hasPrevious);

    const hub = this.#options.metrics;
    // Build everything first; nothing the service can see changes until the swap below.
    const breakers = new Map<string, Built<BreakerData, CircuitBreaker>>();
    for (const spec of read.breakers.values()) {
      const previous = this.#builtBreakers.get(spec.name);
      if (previous !== undefined && sameOptions(previous.spec.options, spec.options)) {
        breakers.set(spec.name, { spec, object: previous.object });
        continue;
      }
      const object = createCircuitBreaker({ ...spec.options, ...this.#options.circuitBreaker?.[spec.name], name: spec.name, ...(hub ? { metrics: hub } : {}) });
      breakers.set(spec.name, { spec, object });
    }
    const budgets = new Map<string, Built<BudgetData, RetryBudget>>();
    for (const spec of read.budgets.values()) {
      const previous = this.#builtBudgets.get(spec.name);
      if (previous !== undefined && sameOptions(previous.spec.options, spec.options)) {
        budgets.set(spec.name, { spec, object: previous.object });
        continue;
      }
      budgets.set(spec.name, { spec, object: createRetryBudget({ ...spec.options, ...this.#options.budget?.[spec.name], name: spec.name, ...(hub ? { metrics: hub } : {}) }) });
    }
    const policies = new Map<string, RetryPolicy>();
    for (const spec of read.retry.values()) {
      const breaker = spec.breaker === undefined ? undefined : breakers.get(spec.breaker)?.object;
      const budget = spec.budget === undefined ? undefined : budgets.get(spec.budget)?.object;
      policies.set(spec.name, createRetryPolicy({
        ...spec.options,
        ...this.#options.retry?.[spec.name],
        ...(breaker ? { breaker } : {}),
        ...(budget ? { budget } : {}),
        name: spec.name,
        ...(hub ? { metrics: hub } : {}),
      }));
    }

    // The swap: synchronous, so no call can see half of it.
    for (const [name, policy] of policies) {
      const stable = this.#policies.get(name);
      if (stable === undefined) this.#policies.set(name, new SwappablePolicy(policy));
      else stable.current = policy;
    }
    for (const [name, { object }] of breakers) {
      const stable = this.#breakers.get(name);
      if (stable === undefined) this.#breakers.set(name, new SwappableBreaker(object));
      else stable.current = object;
    }
    for (const [name, { object }] of budgets) {
      const stable = this.#budgets.get(name);
      if (stable === undefined) this.#budgets.set(name, new SwappableBudget(object));
      else stable.current = object;
    }
    // Names nobody used may go; a later config can bring them back as new objects.
    for (const name of [...this.#policies.keys()]) if (!policies.has(name)) this.#policies.delete(name);
    for (const name of [...this.#breakers.keys()]) if (!breakers.has(name)) this.#breakers.delete(name);
    for (const name of [...this.#budgets.keys()]) if (!budgets.has(name)) this.#budgets.delete(name);
    this.#retrySpecs = read.retry;
    this.#builtBreakers = breakers;
    this.#builtBudgets = budgets;

    const onWarning = this.#options.onWarning ?? emitWarning;
    for (const warning of read.warnings) {
      try {
        onWarning(warning);
      } catch {
        // A logging hook must not undo an accepted configuration.
      }
    }
  }
}

/**
 * Builds named retry policies, circuit breakers and retry budgets from configuration: parsed JSON
 * or YAML, or dotted keys from `.properties` or the environment, in the Resilience4j shape
 * (`resilience4j.retry.instances.<name>`) or the native one (`{ retry: { <name>: {...} } }`).
 * The limits are the runtime's own (1..5 attempts, growing and jittered waits, at most 30 s); a
 * config that breaks one is rejected as a whole with a `PolicyConfigError` naming each key path.
 */
export function createPolicyRegistry(config: unknown, options: PolicyRegistryOptions = {}): PolicyRegistry {
  return new Registry(config, options);
}
