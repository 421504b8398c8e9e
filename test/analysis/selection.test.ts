import { describe, expect, it } from 'vitest';
import { SELECTION } from '../../src/analysis/selection.js';
import { lint } from '../helpers/model.js';

const rulesOf = (code: string, opts: { js?: boolean } = {}) => lint(code, { ...opts, rules: STRICT }).map((f) => f.rule).sort();

// Every rule that judges sites, at error: require-circuit-breaker is in strict only.
const STRICT = Object.fromEntries([
  'max-retry-attempts', 'max-retry-duration', 'require-exponential-backoff', 'require-jitter', 'require-circuit-breaker',
  'no-unsafe-write-retry', 'stable-idempotency-key', 'no-retry-on-client-error', 'no-nested-retry',
].map((r) => [`safe-retry/${r}`, 'error']));

describe('site selection policy', () => {
  it('judges a persistent connection\'s reconnection for a written schedule only, and its queued requests for count and time only', () => {
    const judged = (Object.keys(SELECTION) as (keyof typeof SELECTION)[]).filter((a) => SELECTION[a].reconnection === 'written');
    expect(judged.sort()).toEqual(['backoff', 'jitter']);
    const queued = (Object.keys(SELECTION) as (keyof typeof SELECTION)[]).filter((a) => !SELECTION[a].queuedRequest);
    expect(queued.sort()).toEqual(['backoff', 'breaker', 'jitter']);
    expect(rulesOf(`import Redis from 'ioredis';\nexport const r = new Redis({ maxRetriesPerRequest: null });`)).toEqual([]);
    expect(rulesOf(`import Redis from 'ioredis';\nexport const r = new Redis({ retryStrategy: () => 1000, maxRetriesPerRequest: 50 });`))
      .toEqual(['max-retry-attempts', 'max-retry-duration', 'require-exponential-backoff', 'require-jitter']);
  });

  it('judges durable engines by R-RES-RE-5 only: attempts and backoff, never time, breaker or writes', () => {
    expect(SELECTION.duration.durable).toBe('never');
    expect(SELECTION.breaker.durable).toBe('never');
    expect(SELECTION.attempts.durable).toBe('judged');
    expect(SELECTION.backoff.durable).toBe('judged');
    expect(SELECTION.jitter.durable).toBe('if-engine-has-setting');
  });

  it('a Temporal policy that retries forever at a constant wait: attempts and backoff, nothing in-memory', () => {
    expect(rulesOf(`
      import { proxyActivities } from '@temporalio/workflow';
      export const { chargeCard } = proxyActivities({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 0, backoffCoefficient: 1 } });
    `)).toEqual(['max-retry-attempts', 'require-exponential-backoff']);
  });

  it('asks BullMQ for jitter (its backoff has the setting) but Temporal not', () => {
    expect(rulesOf(`
      import { Queue } from 'bullmq';
      export const emails = new Queue('emails', { defaultJobOptions: { attempts: 6, backoff: { type: 'exponential', delay: 5000 } } });
    `)).toEqual(['require-jitter']);
    expect(rulesOf(`
      import { proxyActivities } from '@temporalio/workflow';
      export const acts = proxyActivities({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 } });
    `)).toEqual([]);
  });

  it('still judges the same configuration in memory by every in-memory rule', () => {
    expect(rulesOf(`
      import pRetry from 'p-retry';
      export const load = () => pRetry(() => fetch('/items'), { forever: true, factor: 1 });
    `)).toEqual(['max-retry-attempts', 'max-retry-duration', 'require-circuit-breaker', 'require-exponential-backoff', 'require-jitter']);
  });

  it('asks a repair-and-retry only about the write it may send again', () => {
    const judged = Object.entries(SELECTION).filter(([, policy]) => policy.repair).map(([aspect]) => aspect);
    expect(judged).toEqual(['attempts', 'writes', 'keys']);
    // A 401 answered by a session refresh, then the POST once more: the unkeyed write, and (nothing
    // bounds the refresh) the count.
    expect(rulesOf(`
      export async function pay(body: Body): Promise<Res> {
        try {
          return await api.post('/payments', body);
        } catch (e) {
          if (e.response?.status === 401) {
            await session.refresh();
            return pay(body);
          }
          throw e;
        }
      }
    `).sort()).toEqual(['max-retry-attempts', 'no-unsafe-write-retry']);
  });
});
