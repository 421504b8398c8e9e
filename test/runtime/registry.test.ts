import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import {
  createPolicyRegistry,
  createRetryPolicy,
  PolicyConfigError,
  type PolicyConfigIssue,
  type PolicyRegistryOptions,
} from '../../src/runtime/index.js';
import { parseDuration } from '../../src/runtime/config.js';
import { drive, httpError, settle, transient } from './helpers.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Spring's 4xx exception for RestTemplate and RestClient: ignoring it is how a Resilience4j retry stops 4xx (R-RES-RE-X2). */
const CLIENT_4XX = 'org.springframework.web.client.HttpClientErrorException';

/** The guide's `sber` block (R-RES-RE-2), completed with the jitter the runtime insists on. */
const SBER = {
  'max-attempts': 3,
  'wait-duration': '500ms',
  'enable-exponential-backoff': true,
  'exponential-backoff-multiplier': 2.0,
  'enable-randomized-wait': true,
  'randomized-wait-factor': 0.2,
  'ignore-exceptions': [CLIENT_4XX],
};

const quiet: PolicyRegistryOptions = { onWarning: () => {} };

function issuesOf(config: unknown, options: PolicyRegistryOptions = quiet): PolicyConfigIssue[] {
  try {
    createPolicyRegistry(config, options);
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyConfigError);
    return [...(error as PolicyConfigError).issues];
  }
  return [];
}

function r4jRetry(instances: Record<string, unknown>, configs?: Record<string, unknown>): unknown {
  return { resilience4j: { retry: { instances, ...(configs ? { configs } : {}) } } };
}

describe('durations, as Spring Boot reads them', () => {
  it.each([
    ['500ms', 500],
    ['2s', 2000],
    ['1m', 60_000],
    ['1h', 3_600_000],
    ['250', 250],
    [750, 750],
    ['PT0.5S', 500],
    ['pt2s', 2000],
    ['PT1M30S', 90_000],
    ['P1DT1S', 86_401_000],
    ['-PT1S', -1000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['0.5s', 'soon', 'P', 'PT', '5 parsecs', '1.5m'])('%s is not a duration', (text) => {
    expect(typeof parseDuration(text)).toBe('string');
  });

  it('says how to write a fractional duration Spring would refuse', () => {
    expect(parseDuration('0.5s')).toMatch(/500ms or PT0\.5S/);
  });
});

describe('Resilience4j shape', () => {
  it('builds the guide\'s instance from nested keys', () => {
    const registry = createPolicyRegistry(r4jRetry({ sber: SBER }), quiet);
    expect(registry.names.retry).toEqual(['sber']);
    expect(registry.retry('sber').config).toMatchObject({
      maxAttempts: 3,
      initialDelayMs: 500,
      multiplier: 2,
      jitter: 'randomized',
      randomizationFactor: 0.2,
      deadlineMs: 5000,
    });
  });

  it('reads dotted keys at any depth as the same tree, and relaxed spellings of property names', () => {
    const flat = Object.fromEntries(Object.entries(SBER).map(([k, v]) => [`resilience4j.retry.instances.sber.${k}`, String(v)]));
    const mixed = {
      resilience4j: {
        'retry.instances': { sber: { maxAttempts: '3', WAIT_DURATION: 'PT0.5S', enableExponentialBackoff: 'true' } },
        retry: {
          'instances.sber.exponential-backoff-multiplier': 2,
          'instances.sber.enable-randomized-wait': 'on',
          'instances.sber.randomizedWaitFactor': 0.2,
          'instances.sber.ignore_exceptions': CLIENT_4XX,
        },
      },
    };
    const expected = createPolicyRegistry(r4jRetry({ sber: SBER }), quiet).retry('sber').config;
    expect(createPolicyRegistry(flat, quiet).retry('sber').config).toEqual(expected);
    expect(createPolicyRegistry(mixed, quiet).retry('sber').config).toEqual(expected);
  });

  it('keeps a bracketed instance name with dots in it whole', () => {
    const flat = Object.fromEntries(Object.entries(SBER).map(([k, v]) => [`resilience4j.retry.instances.[pay.v2].${k}`, v]));
    expect(createPolicyRegistry(flat, quiet).names.retry).toEqual(['pay.v2']);
  });

  it('inherits from base-config, and from configs.default when no base-config is named', () => {
    const registry = createPolicyRegistry(
      r4jRetry(
        { sber: { 'base-config': 'fast' }, payments: { 'max-attempts': 2 }, legacy: {} },
        { default: SBER, fast: { 'base-config': 'default', 'wait-duration': '100ms' } },
      ),
      quiet,
    );
    expect(registry.retry('sber').config).toMatchObject({ maxAttempts: 3, initialDelayMs: 100, multiplier: 2 });
    expect(registry.retry('payments').config).toMatchObject({ maxAttempts: 2, initialDelayMs: 500 });
    expect(registry.retry('legacy').config).toMatchObject({ maxAttempts: 3, initialDelayMs: 500 });
    // Configs are templates: they are validated, but there is no policy called 'fast'.
    expect([...registry.names.retry].sort()).toEqual(['legacy', 'payments', 'sber']);
  });

  it('uses Resilience4j\'s IntervalFunction defaults (multiplier 1.5, randomisation 0.5) when only the switches are set', () => {
    const registry = createPolicyRegistry(r4jRetry({ a: { 'wait-duration': '200ms', 'enable-exponential-backoff': true, 'enable-randomized-wait': true, 'ignore-exceptions': CLIENT_4XX } }), quiet);
    expect(registry.retry('a').config).toMatchObject({ multiplier: 1.5, randomizationFactor: 0.5, initialDelayMs: 200, maxAttempts: 3 });
  });

  it('waits what Resilience4j would: each wait within +-factor of the exponential schedule, capped', async () => {
    const waits: number[] = [];
    const policy = createPolicyRegistry(r4jRetry({ sber: { ...SBER, 'max-attempts': 4, 'exponential-max-wait-duration': '1200ms' } }), {
      ...quiet,
      retry: { sber: { random: () => 0.999999, onRetry: (e) => waits.push(e.delayMs) } },
    }).retry('sber');
    await drive(policy.read(() => Promise.reject(transient())));
    // 500 x 1.2, 1000 x 1.2, then the 1200 ms cap.
    expect(waits).toEqual([600, 1200, 1200]);
  });

  it('gives an attempt the timeout of the TimeLimiter of the same name (1 s when it sets none)', () => {
    const withTimeout = createPolicyRegistry({
      resilience4j: { retry: { instances: { sber: SBER, other: SBER } }, timelimiter: { instances: { sber: { 'timeout-duration': '800ms' }, other: {} } } },
    }, quiet);
    expect(withTimeout.retry('sber').config.attemptTimeoutMs).toBe(800);
    expect(withTimeout.retry('other').config.attemptTimeoutMs).toBe(1000);
  });

  it('pairs a retry instance with the circuit breaker of the same name, as Spring pairs @Retry and @CircuitBreaker', async () => {
    const registry = createPolicyRegistry({
      resilience4j: {
        retry: { instances: { payments: SBER } },
        circuitbreaker: { instances: { payments: { 'minimum-number-of-calls': 2, 'sliding-window-size': 4, 'wait-duration-in-open-state': '10s' } } },
      },
    }, quiet);
    const fn = vi.fn(() => Promise.reject(httpError(503)));
    const first = await drive(registry.retry('payments').read(fn));
    expect(first.ok).toBe(false);
    expect(registry.breaker('payments').state).toBe('open');
    // Two failures of two calls opened it: the third attempt was never made.
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it('pairs an instance with a native budget of its own name, which Resilience4j has no key for', async () => {
    const reasons: string[] = [];
    const registry = createPolicyRegistry(
      { resilience4j: { retry: { instances: { payments: SBER } } }, budget: { payments: { ratio: 0, minPerSecond: 0 } } },
      { ...quiet, retry: { payments: { onGiveUp: (e) => reasons.push(e.reason) } } },
    );
    await drive(registry.retry('payments').read(() => Promise.reject(transient())));
    expect(reasons).toEqual(['budget']);
  });

  it('says how to parse a file that uses YAML merge keys, and checks every TimeLimiter timeout', () => {
    expect(issuesOf(r4jRetry({ sber: { '<<': { 'max-attempts': 3 }, ...SBER } }))).toEqual([
      expect.objectContaining({ path: 'resilience4j.retry.instances.sber.<<', message: expect.stringMatching(/merge: true/) }),
    ]);
    expect(issuesOf({ resilience4j: { timelimiter: { configs: { default: { 'timeout-duration': 'soon' } } } } })).toEqual([
      expect.objectContaining({ path: 'resilience4j.timelimiter.configs.default.timeout-duration' }),
    ]);
  });

  it('maps the circuit breaker keys: percentage, count-based window (minimum lowered to the window), open wait, probes', () => {
    const registry = createPolicyRegistry({
      resilience4j: {
        circuitbreaker: {
          configs: { default: { 'failure-rate-threshold': 25, 'wait-duration-in-open-state': 'PT30S' } },
          instances: {
            count: { 'sliding-window-size': 10, 'minimum-number-of-calls': 50, 'permitted-number-of-calls-in-half-open-state': 3 },
            time: { 'sliding-window-type': 'TIME_BASED', 'sliding-window-size': 20 },
          },
        },
      },
    }, quiet);
    const count = registry.breaker('count');
    // Ten calls, three failures: 30% >= 25% over a full window of ten.
    for (let i = 0; i < 7; i++) {
      expect(count.tryAcquire()).toBe(true);
      count.settle('success');
    }
    for (let i = 0; i < 3; i++) {
      expect(count.tryAcquire()).toBe(true);
      count.settle('failure');
    }
    expect(count.state).toBe('open');
    vi.advanceTimersByTime(30_000);
    expect([count.tryAcquire(), count.tryAcquire(), count.tryAcquire(), count.tryAcquire()]).toEqual([true, true, true, false]);
    expect(registry.breaker('time').state).toBe('closed');
  });
});

describe('limits: the same as in code', () => {
  it('rejects the whole config, naming each key path and the rule it breaks', () => {
    const issues = issuesOf(r4jRetry({
      sber: { ...SBER, 'max-attempts': 10 },
      legacy: { 'max-attempts': 3, 'wait-duration': '500ms', 'enable-exponential-backoff': false, 'enable-randomized-wait': true, 'ignore-exceptions': CLIENT_4XX },
      fine: SBER,
    }));
    expect(issues).toEqual([
      expect.objectContaining({ path: 'resilience4j.retry.instances.sber.max-attempts', rule: 'R-RES-RE-3' }),
      expect.objectContaining({ path: 'resilience4j.retry.instances.legacy.enable-exponential-backoff', rule: 'R-RES-RE-X3' }),
    ]);
  });

  it('puts the rule and the path in the error message', () => {
    expect(() => createPolicyRegistry(r4jRetry({ sber: { ...SBER, 'max-attempts': 10 } }), quiet)).toThrow(
      /resilience4j\.retry\.instances\.sber\.max-attempts: is 10; .*\(R-RES-RE-3\)/,
    );
  });

  it.each([
    [{ 'exponential-backoff-multiplier': 1 }, 'exponential-backoff-multiplier', 'R-RES-RE-X3'],
    [{ 'exponential-backoff-multiplier': 0.5 }, 'exponential-backoff-multiplier', 'R-RES-RE-X3'],
    [{ 'enable-randomized-wait': false }, 'enable-randomized-wait', 'R-RES-RE-X3'],
    [{ 'randomized-wait-factor': 0 }, 'randomized-wait-factor', 'R-RES-RE-X3'],
    [{ 'wait-duration': '0ms' }, 'wait-duration', 'R-RES-RE-X3'],
    [{ 'max-attempts': 6 }, 'max-attempts', 'R-RES-RE-3'],
    [{ 'exponential-max-wait-duration': '100ms' }, 'exponential-max-wait-duration', 'R-RES-RE-X3'],
  ])('rejects %o at its key', (patch, key, rule) => {
    expect(issuesOf(r4jRetry({ sber: { ...SBER, ...patch } }))).toEqual([
      expect.objectContaining({ path: `resilience4j.retry.instances.sber.${key}`, rule }),
    ]);
  });

  it('rejects a schedule that cannot finish in memory within 5 s, naming the instance (R-RES-RE-4)', () => {
    const issues = issuesOf(r4jRetry({ slow: { ...SBER, 'max-attempts': 5, 'wait-duration': '1s' } }));
    expect(issues).toEqual([expect.objectContaining({ path: 'resilience4j.retry.instances.slow', rule: 'R-RES-RE-4' })]);
    expect(issues[0]!.message).toMatch(/up to 18 s/);
  });

  it('counts the TimeLimiter\'s per-attempt timeout into the in-memory time', () => {
    const config = {
      resilience4j: { retry: { instances: { sber: SBER } }, timelimiter: { instances: { sber: { 'timeout-duration': '2s' } } } },
    };
    expect(issuesOf(config)).toEqual([expect.objectContaining({ path: 'resilience4j.retry.instances.sber', rule: 'R-RES-RE-4' })]);
  });

  it('names the key to add when exponential backoff or jitter is simply not enabled (Resilience4j\'s default is a fixed wait)', () => {
    expect(issuesOf(r4jRetry({ sber: { 'max-attempts': 3, 'wait-duration': '500ms', 'ignore-exceptions': CLIENT_4XX } }))).toEqual([
      expect.objectContaining({ path: 'resilience4j.retry.instances.sber.enable-exponential-backoff', rule: 'R-RES-RE-X3' }),
      expect.objectContaining({ path: 'resilience4j.retry.instances.sber.enable-randomized-wait', rule: 'R-RES-RE-X3' }),
    ]);
  });

  it('knows that Spring ignores the backoff switches without a wait-duration', () => {
    const { 'wait-duration': _, ...noWait } = SBER;
    const issues = issuesOf(r4jRetry({ sber: noWait }));
    expect(issues).toEqual([expect.objectContaining({ path: 'resilience4j.retry.instances.sber.wait-duration', rule: 'R-RES-RE-X3' })]);
    expect(issues[0]!.message).toMatch(/fixed 500 ms/);
  });

  it('reports a bad value in a shared config once, at the config', () => {
    const issues = issuesOf(r4jRetry({ a: {}, b: {}, c: { 'base-config': 'default' } }, { default: { ...SBER, 'max-attempts': 8 } }));
    expect(issues).toEqual([expect.objectContaining({ path: 'resilience4j.retry.configs.default.max-attempts', rule: 'R-RES-RE-3' })]);
  });

  it('refuses max-attempts: 0, which Resilience4j refuses at startup (its setter wants at least 1)', () => {
    expect(issuesOf(r4jRetry({ sber: { ...SBER, 'max-attempts': 0 } }))).toEqual([
      expect.objectContaining({ path: 'resilience4j.retry.instances.sber.max-attempts', message: expect.stringMatching(/refuses at startup: it must be at least 1/) }),
    ]);
  });

  it('names unknown keys at every level, with the nearest known one', () => {
    const issues = issuesOf({
      resilience4j: {
        retry: { instances: { sber: { ...SBER, 'max-atempts': 3 } }, instanses: {} },
        circuitbraker: {},
      },
      retyr: {},
    });
    expect(issues.map((i) => [i.path, i.message.match(/did you mean ([\w-]+)/)?.[1]])).toEqual([
      ['resilience4j.retry.instances.sber.max-atempts', 'max-attempts'],
      ['resilience4j.retry.instanses', 'instances'],
      ['resilience4j.circuitbraker', 'circuitbreaker'],
      ['retyr', 'retry'],
    ]);
  });

  it('tells the caller to pass only the sections it reads', () => {
    expect(issuesOf({ spring: { application: { name: 'x' } }, resilience4j: {} })).toEqual([
      expect.objectContaining({ path: 'spring', message: expect.stringMatching(/resilience4j: doc\.resilience4j/) }),
    ]);
  });

  it('rejects a key given twice (nested and dotted), a missing base-config and a base-config loop', () => {
    const issues = issuesOf({
      'resilience4j.retry.instances.sber.max-attempts': 3,
      resilience4j: { retry: { instances: { sber: { ...SBER }, x: { 'base-config': 'nope' } }, configs: { a: { 'base-config': 'b' }, b: { 'base-config': 'a' } } } },
    });
    expect(issues.map((i) => i.path)).toEqual(
      expect.arrayContaining(['resilience4j.retry.instances.sber.max-attempts', 'resilience4j.retry.instances.x.base-config', 'resilience4j.retry.configs.a.base-config']),
    );
  });

  it('refuses an interval-bi-function and a Spring placeholder, and warns about keys that do nothing here', () => {
    const issues = issuesOf(r4jRetry({ sber: { ...SBER, 'interval-bi-function': 'com.acme.Backoff', 'max-attempts': '${RETRIES:3}' } }));
    expect(issues.map((i) => i.path)).toEqual([
      'resilience4j.retry.instances.sber.interval-bi-function',
      'resilience4j.retry.instances.sber.max-attempts',
    ]);
    expect(issues[1]!.message).toMatch(/Spring placeholder/);
    const warnings: PolicyConfigIssue[] = [];
    const { 'ignore-exceptions': _, ...sberWithoutLists } = SBER;
    createPolicyRegistry(
      {
        resilience4j: {
          retry: { instances: { sber: { ...sberWithoutLists, 'retry-exceptions': ['java.io.IOException'], 'ignore-exceptions[0]': 'x.Y', 'ignore-exceptions[1]': 'x.Z' } } },
          bulkhead: { instances: { sber: { 'max-concurrent-calls': 10 } } },
        },
      },
      { onWarning: (w) => warnings.push(w) },
    );
    expect(warnings.map((w) => w.path)).toEqual([
      'resilience4j.retry.instances.sber.retry-exceptions',
      'resilience4j.retry.instances.sber.ignore-exceptions',
      'resilience4j.bulkhead',
    ]);
  });

  it('accepts exactly the native configs createRetryPolicy accepts (property)', () => {
    const value = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
    fc.assert(
      fc.property(
        fc.record({
          maxAttempts: value(fc.integer({ min: -1, max: 8 })),
          initialDelayMs: value(fc.integer({ min: 0, max: 3000 })),
          multiplier: value(fc.double({ min: 0.5, max: 4, noNaN: true })),
          maxDelayMs: value(fc.integer({ min: 0, max: 5000 })),
          jitter: value(fc.constantFrom('full', 'equal', 'decorrelated', 'randomized')),
          deadlineMs: value(fc.integer({ min: 0, max: 40_000 })),
          attemptTimeoutMs: value(fc.integer({ min: -5, max: 5000 })),
          maxRetryAfterMs: value(fc.integer({ min: -5, max: 5000 })),
        }),
        (raw) => {
          const options = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
          let inCode = true;
          try {
            createRetryPolicy(options);
          } catch {
            inCode = false;
          }
          const issues = issuesOf({ retry: { p: options } });
          expect(issues.length === 0).toBe(inCode);
          if (inCode) expect(createPolicyRegistry({ retry: { p: options } }, quiet).retry('p').config).toEqual(createRetryPolicy(options).config);
        },
      ),
    );
  });

  it('never builds a Resilience4j policy over 5 attempts or over 5 s of worst-case waiting (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 0, max: 3000 }),
        fc.double({ min: 0.5, max: 4, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.option(fc.integer({ min: 1, max: 4000 }), { nil: undefined }),
        (attempts, wait, multiplier, factor, cap) => {
          const instance = {
            'max-attempts': attempts,
            'wait-duration': `${wait}ms`,
            'enable-exponential-backoff': true,
            'exponential-backoff-multiplier': multiplier,
            'enable-randomized-wait': true,
            'randomized-wait-factor': factor,
            'ignore-exceptions': CLIENT_4XX,
            ...(cap === undefined ? {} : { 'exponential-max-wait-duration': cap }),
          };
          if (issuesOf(r4jRetry({ p: instance })).length > 0) return;
          const config = createPolicyRegistry(r4jRetry({ p: instance }), quiet).retry('p').config;
          expect(config.maxAttempts).toBeGreaterThanOrEqual(1);
          expect(config.maxAttempts).toBeLessThanOrEqual(5);
          let worst = 0;
          for (let n = 1; n < config.maxAttempts; n++) {
            worst += Math.min(config.maxDelayMs, Math.min(config.maxDelayMs, config.initialDelayMs * config.multiplier ** (n - 1)) * (1 + config.randomizationFactor!));
          }
          expect(worst).toBeLessThanOrEqual(5000 + 1e-6);
        },
      ),
    );
  });
});

describe('native shape', () => {
  it('builds policies, breakers and budgets by name, with durations as text or milliseconds, and links them', async () => {
    const registry = createPolicyRegistry({
      retry: { orders: { maxAttempts: 2, initialDelayMs: '200ms', deadlineMs: 'PT3S', breaker: 'orders', budget: 'orders' } },
      circuitBreaker: { orders: { minimumThroughput: 1, breakMs: '5s' } },
      budget: { orders: { ratio: 0, minPerSecond: 0, windowMs: '10s' } },
    }, quiet);
    expect(registry.retry('orders').config).toMatchObject({ maxAttempts: 2, initialDelayMs: 200, deadlineMs: 3000 });
    expect(registry.names).toEqual({ retry: ['orders'], circuitBreaker: ['orders'], budget: ['orders'] });
    // A budget of zero refuses the retry.
    const gaveUp: string[] = [];
    const withHook = createPolicyRegistry({
      retry: { orders: { maxAttempts: 2, breaker: 'orders', budget: 'orders' } },
      circuitBreaker: { orders: { minimumThroughput: 5 } },
      budget: { orders: { ratio: 0, minPerSecond: 0 } },
    }, { ...quiet, retry: { orders: { onGiveUp: (e) => gaveUp.push(e.reason) } } });
    const result = await drive(withHook.retry('orders').read(() => Promise.reject(transient())));
    expect(result.ok).toBe(false);
    expect(gaveUp).toEqual(['budget']);
    expect(withHook.budget('orders').available()).toBe(0);
  });

  it('rejects unknown keys, dangling references and a name defined in both shapes', () => {
    const issues = issuesOf({
      resilience4j: { retry: { instances: { orders: SBER } } },
      retry: { orders: { maxAttempts: 2 }, audit: { maxAttempt: 2 }, other: { breaker: 'nope' } },
    });
    expect(issues.map((i) => i.path)).toEqual(['retry.orders', 'retry.audit.maxAttempt', 'retry.other.breaker']);
  });

  it('refuses to configure jitter off', () => {
    expect(issuesOf({ retry: { p: { jitter: 'none' } } })).toEqual([expect.objectContaining({ path: 'retry.p.jitter', rule: 'R-RES-RE-X3' })]);
  });
});

describe('update', () => {
  const config = (maxAttempts: number) => r4jRetry({ sber: { ...SBER, 'max-attempts': maxAttempts } });

  it('returns the same policy object before and after, with the new limits', () => {
    const registry = createPolicyRegistry(config(3), quiet);
    const policy = registry.retry('sber');
    registry.update(config(2));
    expect(registry.retry('sber')).toBe(policy);
    expect(policy.config.maxAttempts).toBe(2);
  });

  it('lets a call in flight finish under the limits it started with; the next call uses the new ones', async () => {
    const registry = createPolicyRegistry(config(3), quiet);
    const policy = registry.retry('sber');
    let calls = 0;
    const inFlight = settle(policy.read(() => {
      calls++;
      return Promise.reject(transient());
    }));
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(1);
    registry.update(config(1));
    await vi.runAllTimersAsync();
    expect((await inFlight).ok).toBe(false);
    expect(calls).toBe(3);

    calls = 0;
    await drive(policy.read(() => {
      calls++;
      return Promise.reject(transient());
    }));
    expect(calls).toBe(1);
  });

  it('keeps the previous config in force when the new one is rejected', async () => {
    const registry = createPolicyRegistry(config(3), quiet);
    const policy = registry.retry('sber');
    expect(() => registry.update(config(9))).toThrow(/previous configuration stays in force/);
    expect(() => registry.update(r4jRetry({ sber: SBER, other: { ...SBER, 'wait-duration': 'soon' } }))).toThrow(PolicyConfigError);
    expect(registry.names.retry).toEqual(['sber']);
    expect(policy.config.maxAttempts).toBe(3);
    await expect(policy.read(() => 'ok')).resolves.toBe('ok');
  });

  it('refuses a config that drops a policy the service uses', () => {
    const registry = createPolicyRegistry(r4jRetry({ sber: SBER, spare: SBER }), quiet);
    registry.retry('sber');
    registry.update(r4jRetry({ sber: SBER })); // 'spare' was never asked for
    expect(() => registry.update(r4jRetry({ other: SBER }))).toThrow(/resilience4j\.retry\.instances\.sber: is not in the configuration, but the service uses the retry policy 'sber'/);
    expect(() => registry.retry('spare')).toThrow(/no retry policy named 'spare' .*known: 'sber'/);
  });

  it('reports a used policy with a bad value as that value, not as gone', () => {
    const registry = createPolicyRegistry(config(3), quiet);
    registry.retry('sber');
    try {
      registry.update(config(7));
    } catch (error) {
      expect((error as PolicyConfigError).issues.map((i) => i.path)).toEqual(['resilience4j.retry.instances.sber.max-attempts']);
      return;
    }
    expect.unreachable();
  });

  it('keeps an unchanged breaker (and its open state) across an update, and starts a changed one afresh', () => {
    const breakers = (threshold: number) => ({ resilience4j: { circuitbreaker: { instances: { pay: { 'minimum-number-of-calls': 1, 'failure-rate-threshold': threshold } } } } });
    const registry = createPolicyRegistry(breakers(50), quiet);
    const breaker = registry.breaker('pay');
    expect(breaker.tryAcquire()).toBe(true);
    breaker.settle('failure');
    expect(breaker.state).toBe('open');
    registry.update(breakers(50));
    expect(registry.breaker('pay').state).toBe('open');
    registry.update(breakers(60));
    expect(registry.breaker('pay')).toBe(breaker);
    expect(breaker.state).toBe('closed');
  });

  it('refuses limits passed in code, which would override the config', () => {
    expect(() => createPolicyRegistry(config(3), { ...quiet, retry: { sber: { maxAttempts: 5 } as never } })).toThrow(/retry\.sber\.maxAttempts cannot be set in code/);
  });

  it('applies code options by name and refuses code options for a name the config lacks', async () => {
    expect(() => createPolicyRegistry(config(3), { ...quiet, retry: { sbre: { onRetry: () => {} } } })).toThrow(/retry policy 'sbre'/);
    const seen: number[] = [];
    const registry = createPolicyRegistry(config(2), { ...quiet, retry: { sber: { onRetry: (e) => seen.push(e.attempt) } } });
    registry.update(config(3));
    await drive(registry.retry('sber').read(() => Promise.reject(transient())));
    expect(seen).toEqual([1, 2]);
  });
});
