/**
 * ioredis: a client's reconnection is a retry scheduled by `retryStrategy(times)`; commands wait
 * through at most `maxRetriesPerRequest` reconnections (20 by default, `null`: forever).
 */
import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import attempts from '../../../src/rules/max-retry-attempts.js';
import duration from '../../../src/rules/max-retry-duration.js';
import backoff from '../../../src/rules/require-exponential-backoff.js';
import jitter from '../../../src/rules/require-jitter.js';
import { run } from '../../helpers/rule-tester.js';

const rules = (findings: { rule: string }[]) => [...new Set(findings.map((f) => f.rule))].sort();

/** Stops after 3 reconnections, doubling from 200 ms under a 2 s cap, with up to 100 ms of jitter. */
const BOUNDED = `retryStrategy: (times) => times > 3 ? null : Math.min(100 * 2 ** times, 2000) + Math.floor(Math.random() * 100)`;

describe('ioredis descriptor', () => {
  it('judges a client on the defaults: reconnection never stops, commands wait through 20 reconnections', () => {
    const code = `import Redis from 'ioredis';\nexport const redis = new Redis(process.env.REDIS_URL!);`;
    const [site] = analyse(code);
    expect(site).toMatchObject({ library: 'ioredis', attempts: Infinity, clientLevel: true, growth: 'unknown', jitter: 'unknown' });
    // The smaller of v5's and v6's default waits over 20 reconnections: 10.5 s.
    expect(site!.worstCaseMs).toBe(10_500);
    expect(rules(lint(code))).toEqual(['max-retry-attempts', 'max-retry-duration']);
  });

  it('reads a client built from a URL constant as one on the defaults', () => {
    const code = `import Redis from 'ioredis';\nconst REDIS_URL = process.env.REDIS_URL ?? 'redis://localhost:6379';\nexport const redis = new Redis(REDIS_URL);`;
    expect(analyse(code)[0]).toMatchObject({ attempts: Infinity, worstCaseMs: 10_500 });
  });

  it('reads a constant strategy that never stops, and maxRetriesPerRequest: null as no limit', () => {
    const code = `import { Redis } from 'ioredis';\nexport const redis = new Redis({ host: 'h', maxRetriesPerRequest: null, retryStrategy: (times) => 1000 });`;
    const [site] = analyse(code);
    expect(site).toMatchObject({ attempts: Infinity, growth: 'constant', jitter: false, deadlineMs: undefined });
    expect(rules(lint(code))).toEqual(['max-retry-attempts', 'max-retry-duration', 'require-exponential-backoff', 'require-jitter']);
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
    expect(lint(code)).toEqual([]);
  });

  it('reads the sentinel resolution of a client given sentinels, and a cluster\'s reconnection', () => {
    const code = `import Redis from 'ioredis';
      export const redis = new Redis({ sentinels: [{ host: 's1', port: 26379 }], name: 'mymaster', ${BOUNDED} });`;
    const sites = analyse(code);
    expect(sites.map((s) => s.label)).toEqual(["new Redis()'s reconnection", "new Redis()'s sentinel resolution"]);
    // The default sentinel strategy: min(times x 10, 1000) ms, never stops, no randomness.
    expect(sites[1]).toMatchObject({ attempts: Infinity, growth: 'linear', jitter: false });
    expect(rules(lint(code))).toEqual(['max-retry-attempts', 'max-retry-duration', 'require-exponential-backoff', 'require-jitter']);
    const bounded = code.replace("name: 'mymaster',", "name: 'mymaster', sentinelRetryStrategy: (times) => (times > 2 ? null : 100 * 2 ** times + Math.random() * 100),");
    expect(lint(bounded)).toEqual([]);
    const cluster = `import { Cluster } from 'ioredis';\nexport const c = new Cluster([{ host: 'a', port: 6379 }], { clusterRetryStrategy: (times) => 500 });`;
    expect(analyse(cluster)[0]).toMatchObject({ label: "new Cluster()'s reconnection", attempts: Infinity, growth: 'constant', jitter: false });
    expect(rules(lint(cluster))).toEqual(['max-retry-attempts', 'require-exponential-backoff', 'require-jitter']);
  });

  it('makes no retry of retryStrategy: null, nor of options it cannot read', () => {
    expect(analyse(`import Redis from 'ioredis';\nexport const r = new Redis({ retryStrategy: null });`)[0]).toMatchObject({ attempts: 1 });
    expect(lint(`import Redis from 'ioredis';\nexport const r = new Redis({ retryStrategy: null });`)).toEqual([]);
    // undefined is filled with the default, which never stops.
    expect(analyse(`import Redis from 'ioredis';\nexport const r = new Redis({ retryStrategy: undefined });`)[0]).toMatchObject({ attempts: Infinity });
    // Options from elsewhere, a strategy from a helper: unknown, never reported.
    expect(analyse(`import Redis from 'ioredis';\nimport { config } from './config';\nexport const r = new Redis(config.redis);`)).toEqual([]);
    expect(rules(lint(`import Redis from 'ioredis';\nimport { backoff } from './b';\nexport const r = new Redis({ retryStrategy: backoff, maxRetriesPerRequest: 3 });`))).toEqual([]);
    expect(analyse(`import Redis from 'ioredis';\nimport { backoff } from './b';\nexport const r = new Redis({ retryStrategy: (times) => backoff(times) });`)[0]).toMatchObject({ attempts: 'unknown', growth: 'unknown' });
    // A look-alike: a class named Redis that is not ioredis's.
    expect(analyse(`class Redis { constructor(o: object) {} }\nexport const r = new Redis({ retryStrategy: () => 1000 });`)).toEqual([]);
  });
});

run('max-retry-attempts', attempts, {
  valid: [
    `import Redis from 'ioredis'; export const r = new Redis({ ${BOUNDED} });`,
    `import Redis from 'ioredis'; export const r = new Redis({ retryStrategy: null });`,
    `import Redis from 'my-redis'; export const r = new Redis({ retryStrategy: () => 1000 });`,
  ],
  invalid: [
    { code: `import Redis from 'ioredis'; export const r = new Redis({ retryStrategy: () => 1000 });`, errors: [{ messageId: 'unbounded' }] },
    { code: `import Redis from 'ioredis'; export const r = new Redis({ retryStrategy: (n) => (n > 8 ? null : 50) });`, errors: [{ messageId: 'tooManyAttempts' }] },
  ],
});

run('max-retry-duration', duration, {
  valid: [`import Redis from 'ioredis'; export const r = new Redis({ ${BOUNDED}, maxRetriesPerRequest: null });`],
  invalid: [
    { code: `import Redis from 'ioredis'; export const r = new Redis({ maxRetriesPerRequest: null });`, errors: [{ messageId: 'needsQueue' }] },
  ],
});

run('require-exponential-backoff', backoff, {
  valid: [`import Redis from 'ioredis'; export const r = new Redis({ ${BOUNDED} });`, `import Redis from 'ioredis'; export const r = new Redis();`],
  invalid: [{ code: `import Redis from 'ioredis'; export const r = new Redis({ retryStrategy: (times) => Math.min(times * 50, 2000) });`, errors: [{ messageId: 'linearDelay' }] }],
});

run('require-jitter', jitter, {
  valid: [`import Redis from 'ioredis'; export const r = new Redis({ ${BOUNDED} });`],
  invalid: [{ code: `import Redis from 'ioredis'; export const r = new Redis({ retryStrategy: (times) => (times > 3 ? null : 2 ** times * 100) });`, errors: [{ messageId: 'noJitter' }] }],
});
