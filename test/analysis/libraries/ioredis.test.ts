/**
 * ioredis: a client's reconnection (`retryStrategy(times)`) is a long-lived connection
 * re-established, judged only for its schedule where a strategy is written; the commands queued on
 * it are a request retry judged only where `maxRetriesPerRequest` is written as a number.
 */
import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import plugin from '../../../src/index.js';
import attempts from '../../../src/rules/max-retry-attempts.js';
import duration from '../../../src/rules/max-retry-duration.js';
import backoff from '../../../src/rules/require-exponential-backoff.js';
import jitter from '../../../src/rules/require-jitter.js';
import breaker from '../../../src/rules/require-circuit-breaker.js';
import nested from '../../../src/rules/no-nested-retry.js';
import { run } from '../../helpers/rule-tester.js';

const rules = (findings: { rule: string }[]) => [...new Set(findings.map((f) => f.rule))].sort();
/** Every rule, the strict-only circuit breaker included. */
const all = { rules: plugin.configs.all.rules as Record<string, unknown> };

/** Stops after 3 reconnections, doubling from 200 ms under a 2 s cap, with up to 100 ms of jitter. */
const BOUNDED = `retryStrategy: (times) => times > 3 ? null : Math.min(100 * 2 ** times, 2000) + Math.floor(Math.random() * 100)`;

describe('ioredis descriptor', () => {
  it('reads a client on the defaults as the library\'s reconnection design: no finding', () => {
    const code = `import Redis from 'ioredis';\nexport const redis = new Redis(process.env.REDIS_URL!);`;
    const [site] = analyse(code);
    expect(site).toMatchObject({ library: 'ioredis', attempts: Infinity, clientLevel: true, growth: 'unknown', jitter: 'unknown', deadlineMs: undefined });
    expect(analyse(code)).toHaveLength(1);
    expect(lint(code, all)).toEqual([]);
  });

  it('reads a client built from a URL constant as one on the defaults', () => {
    const code = `import Redis from 'ioredis';\nconst REDIS_URL = process.env.REDIS_URL ?? 'redis://localhost:6379';\nexport const redis = new Redis(REDIS_URL);`;
    expect(analyse(code)[0]).toMatchObject({ attempts: Infinity });
    expect(lint(code, all)).toEqual([]);
  });

  it('judges a written constant strategy for its schedule only: never for attempts, time or a breaker', () => {
    const code = `import { Redis } from 'ioredis';\nexport const redis = new Redis({ host: 'h', maxRetriesPerRequest: null, retryStrategy: (times) => 1000 });`;
    const sites = analyse(code);
    // maxRetriesPerRequest: null (BullMQ's workers need it) makes no command retry site.
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ attempts: Infinity, growth: 'constant', jitter: false });
    expect(rules(lint(code, all))).toEqual(['require-exponential-backoff', 'require-jitter']);
  });

  it('judges maxRetriesPerRequest written as a number as a request retry: its count and time', () => {
    const code = `import Redis from 'ioredis';\nexport const redis = new Redis({ maxRetriesPerRequest: 50 });`;
    const sites = analyse(code);
    expect(sites.map((s) => s.label)).toEqual(["new Redis()'s reconnection", "new Redis()'s command retry"]);
    // The first send and 50 reconnections waited through, on the default waits (the smaller of v5's and v6's).
    expect(sites[1]).toMatchObject({ attempts: 51, attemptsAt: 'maxRetriesPerRequest: 50' });
    expect(sites[1]!.worstCaseMs).toBe(61_000);
    expect(rules(lint(code, all))).toEqual(['max-retry-attempts', 'max-retry-duration']);
    // Within the bound and the budget: silent. A strategy that gives up sooner bounds the commands too.
    expect(lint(`import Redis from 'ioredis';\nexport const r = new Redis({ maxRetriesPerRequest: 2 });`, all)).toEqual([]);
    expect(analyse(`import Redis from 'ioredis';\nexport const r = new Redis({ ${BOUNDED}, maxRetriesPerRequest: 50 });`)[1]).toMatchObject({ attempts: 4 });
    // The default 20 and null are the library's and BullMQ's design: no command retry site.
    expect(analyse(`import Redis from 'ioredis';\nexport const r = new Redis({ maxRetriesPerRequest: null });`)).toHaveLength(1);
    expect(analyse(`import Redis from 'ioredis';\nexport const r = new Redis({ host: 'h' });`)).toHaveLength(1);
  });

  it('is no inner retry of the calls made through the client; a written command count is', () => {
    const code = (opts: string) => `import Redis from 'ioredis';\nimport pRetry from 'p-retry';
      const redis = new Redis(${opts});
      export const get = (k: string) => pRetry(() => redis.get(k), { retries: 2 });`;
    expect(rules(lint(code(`{ retryStrategy: (times) => 1000 + Math.random() * 100 }`), { rules: { 'safe-retry/no-nested-retry': 'error' } }))).toEqual([]);
    expect(rules(lint(code(`{ maxRetriesPerRequest: 3 }`), { rules: { 'safe-retry/no-nested-retry': 'error' } }))).toEqual(['no-nested-retry']);
  });

  it('reads a strategy written as a method with a fall-through end and a local const', () => {
    const code = `import Redis from 'ioredis';
      export const redis = new Redis(6379, 'cache', {
        retryStrategy(times) {
          const delay = Math.min(times * 50, 2000);
          if (times <= 10) return delay;
        },
      });`;
    const [site] = analyse(code);
    // Ten reconnections after the first connection: 11 tries; linear waits without randomness.
    expect(site).toMatchObject({ attempts: 11, growth: 'linear', jitter: false });
  });

  it('stays silent on a strategy that gives up after 3 reconnections with exponential waits and jitter', () => {
    const code = `import Redis from 'ioredis';\nexport const redis = new Redis({ ${BOUNDED} });`;
    const [site] = analyse(code);
    expect(site).toMatchObject({ attempts: 4, growth: 'exponential', jitter: true });
    expect(lint(code, all)).toEqual([]);
  });

  it('reads the sentinel resolution of a client given sentinels, and a cluster\'s reconnection', () => {
    const code = `import Redis from 'ioredis';
      export const redis = new Redis({ sentinels: [{ host: 's1', port: 26379 }], name: 'mymaster', ${BOUNDED} });`;
    const sites = analyse(code);
    expect(sites.map((s) => s.label)).toEqual(["new Redis()'s reconnection", "new Redis()'s sentinel resolution"]);
    // The default sentinel strategy: min(times x 10, 1000) ms, never stops, no randomness; the library's, so silent.
    expect(sites[1]).toMatchObject({ attempts: Infinity, growth: 'linear', jitter: false });
    expect(lint(code, all)).toEqual([]);
    const linear = code.replace("name: 'mymaster',", "name: 'mymaster', sentinelRetryStrategy: (times) => Math.min(times * 10, 1000),");
    expect(rules(lint(linear, all))).toEqual(['require-exponential-backoff', 'require-jitter']);
    const bounded = code.replace("name: 'mymaster',", "name: 'mymaster', sentinelRetryStrategy: (times) => (times > 2 ? null : 100 * 2 ** times + Math.random() * 100),");
    expect(lint(bounded, all)).toEqual([]);
    const cluster = `import { Cluster } from 'ioredis';\nexport const c = new Cluster([{ host: 'a', port: 6379 }], { clusterRetryStrategy: (times) => 500 });`;
    expect(analyse(cluster)[0]).toMatchObject({ label: "new Cluster()'s reconnection", attempts: Infinity, growth: 'constant', jitter: false });
    expect(rules(lint(cluster, all))).toEqual(['require-exponential-backoff', 'require-jitter']);
    expect(lint(`import { Cluster } from 'ioredis';\nexport const c = new Cluster([{ host: 'a', port: 6379 }]);`, all)).toEqual([]);
  });

  it('makes no retry of retryStrategy: null, nor of options it cannot read', () => {
    expect(analyse(`import Redis from 'ioredis';\nexport const r = new Redis({ retryStrategy: null });`)[0]).toMatchObject({ attempts: 1 });
    expect(lint(`import Redis from 'ioredis';\nexport const r = new Redis({ retryStrategy: null });`)).toEqual([]);
    // undefined is filled with the default, which never stops.
    expect(analyse(`import Redis from 'ioredis';\nexport const r = new Redis({ retryStrategy: undefined });`)[0]).toMatchObject({ attempts: Infinity });
    expect(lint(`import Redis from 'ioredis';\nexport const r = new Redis({ sentinels: [{ host: 's' }], sentinelRetryStrategy: undefined });`, all)).toEqual([]);
    // Options from elsewhere, a strategy from a helper: unknown, never reported.
    expect(analyse(`import Redis from 'ioredis';\nimport { config } from './config';\nexport const r = new Redis(config.redis);`)).toEqual([]);
    expect(rules(lint(`import Redis from 'ioredis';\nimport { backoff } from './b';\nexport const r = new Redis({ retryStrategy: backoff, maxRetriesPerRequest: 30 });`, all))).toEqual([]);
    expect(analyse(`import Redis from 'ioredis';\nimport { backoff } from './b';\nexport const r = new Redis({ retryStrategy: (times) => backoff(times) });`)[0]).toMatchObject({ attempts: 'unknown', growth: 'unknown' });
    // A look-alike: a class named Redis that is not ioredis's.
    expect(analyse(`class Redis { constructor(o: object) {} }\nexport const r = new Redis({ retryStrategy: () => 1000 });`)).toEqual([]);
  });
});

run('max-retry-attempts', attempts, {
  valid: [
    `import Redis from 'ioredis'; export const r = new Redis();`,
    `import Redis from 'ioredis'; export const r = new Redis({ maxRetriesPerRequest: null });`,
    `import Redis from 'ioredis'; export const r = new Redis({ maxRetriesPerRequest: 2 });`,
    `import Redis from 'ioredis'; export const r = new Redis({ retryStrategy: () => 1000 });`,
    `import Redis from 'ioredis'; export const r = new Redis({ retryStrategy: (n) => (n > 8 ? null : 50) });`,
    `import Redis from 'ioredis'; export const r = new Redis({ retryStrategy: null, maxRetriesPerRequest: 50 });`,
    `import Redis from 'my-redis'; export const r = new Redis({ maxRetriesPerRequest: 50 });`,
  ],
  invalid: [
    {
      code: `import Redis from 'ioredis'; export const r = new Redis({ maxRetriesPerRequest: 50 });`,
      errors: [{ messageId: 'tooManyAttempts', suggestions: [{ messageId: 'setThreeAttempts', output: `import Redis from 'ioredis'; export const r = new Redis({ maxRetriesPerRequest: 2 });` }] }],
    },
  ],
});

run('max-retry-duration', duration, {
  valid: [
    `import Redis from 'ioredis'; export const r = new Redis();`,
    `import Redis from 'ioredis'; export const r = new Redis({ maxRetriesPerRequest: null });`,
    `import Redis from 'ioredis'; export const r = new Redis({ retryStrategy: () => 1000, maxRetriesPerRequest: null });`,
    `import Redis from 'ioredis'; export const r = new Redis({ ${BOUNDED}, maxRetriesPerRequest: 50 });`,
  ],
  invalid: [
    { code: `import Redis from 'ioredis'; export const r = new Redis({ retryStrategy: () => 1000, maxRetriesPerRequest: 50 });`, errors: [{ messageId: 'needsQueue' }] },
  ],
});

run('require-circuit-breaker', breaker, {
  valid: [
    `import Redis from 'ioredis'; export const r = new Redis({ retryStrategy: () => 1000 });`,
    `import Redis from 'ioredis'; export const r = new Redis({ maxRetriesPerRequest: 50 });`,
  ],
  invalid: [],
});

run('no-nested-retry', nested, {
  valid: [`import Redis from 'ioredis'; import pRetry from 'p-retry'; const r = new Redis({ retryStrategy: () => 1000 }); export const g = () => pRetry(() => r.get('k'), { retries: 2 });`],
  invalid: [],
});

run('require-exponential-backoff', backoff, {
  valid: [`import Redis from 'ioredis'; export const r = new Redis({ ${BOUNDED} });`, `import Redis from 'ioredis'; export const r = new Redis();`],
  invalid: [
    { code: `import Redis from 'ioredis'; export const r = new Redis({ retryStrategy: () => 1000 });`, errors: [{ messageId: 'constantDelay' }] },
    { code: `import Redis from 'ioredis'; export const r = new Redis({ retryStrategy: (times) => Math.min(times * 50, 2000) });`, errors: [{ messageId: 'linearDelay' }] },
  ],
});

run('require-jitter', jitter, {
  valid: [
    `import Redis from 'ioredis'; export const r = new Redis({ ${BOUNDED} });`,
    `import Redis from 'ioredis'; export const r = new Redis();`,
    `import Redis from 'ioredis'; export const r = new Redis({ maxRetriesPerRequest: null });`,
  ],
  invalid: [
    { code: `import Redis from 'ioredis'; export const r = new Redis({ retryStrategy: () => 1000 });`, errors: [{ messageId: 'noJitter' }] },
    { code: `import Redis from 'ioredis'; export const r = new Redis({ retryStrategy: (times) => (times > 3 ? null : 2 ** times * 100) });`, errors: [{ messageId: 'noJitter' }] },
  ],
});
