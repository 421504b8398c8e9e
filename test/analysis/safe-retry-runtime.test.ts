import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

describe('safe-retry runtime descriptor', () => {
  it('reads createRetryPolicy with its defaults and finds read/write executions', () => {
    const [site] = analyse(`
      import { createRetryPolicy, createCircuitBreaker } from 'eslint-plugin-safe-retry/runtime';
      const policy = createRetryPolicy({ breaker: createCircuitBreaker({}) });
      await policy.read(({ signal }) => fetch(url, { signal }));
    `);
    expect(site).toMatchObject({
      library: 'safe-retry-runtime', attempts: 3, growth: 'exponential', initialMs: 500, multiplier: 2,
      maxMs: 2000, jitter: true, filter: 'library-default', deadlineMs: 5000, worstCaseMs: 500 + 1000,
    });
  });

  it('code written with the runtime passes every rule', () => {
    expect(lint(`
      import { createRetryPolicy, createCircuitBreaker, idempotencyKey } from 'eslint-plugin-safe-retry/runtime';
      const breaker = createCircuitBreaker({ failureRatio: 0.5, minimumThroughput: 10, samplingMs: 10_000, breakMs: 5_000, halfOpenProbes: 1 });
      const policy = createRetryPolicy({ maxAttempts: 3, initialDelayMs: 500, multiplier: 2, maxDelayMs: 2000, deadlineMs: 5000, breaker });
      export async function confirm(orderId: string) {
        const key = idempotencyKey.fromParts('orders', orderId, 'confirm');
        return policy.write({ idempotencyKey: key }, ({ signal, idempotencyKey }) =>
          fetch('/confirm', { method: 'POST', headers: { 'Idempotency-Key': idempotencyKey }, signal }));
      }
    `)).toEqual([]);
  });

  it('flags settings the runtime itself would reject', () => {
    const findings = lint(`
      import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';
      const policy = createRetryPolicy({ maxAttempts: 8, deadlineMs: 60_000, initialDelayMs: 2000, maxDelayMs: 20_000 });
    `);
    expect(findings).toEqual(expect.arrayContaining([
      expect.objectContaining({ rule: 'max-retry-attempts', text: 'maxAttempts: 8' }),
      expect.objectContaining({ rule: 'max-retry-duration' }),
    ]));
  });
});

describe('safe-retry runtime: policies from the registry', () => {
  it('judges what the code sends through registry.retry(name), never the configured limits', () => {
    const findings = lint(`
      import { createPolicyRegistry } from 'eslint-plugin-safe-retry/runtime';
      import { randomUUID } from 'node:crypto';
      const registry = createPolicyRegistry(config);
      export const list = () => registry.retry('orders').read(() => fetch('/orders'));
      export const create = () => registry.retry('orders').read(() => fetch('/orders', { method: 'POST' }));
      const payments = registry.retry('payments');
      export const pay = (key: string) => payments.write({ idempotencyKey: key }, () =>
        fetch('/pay', { method: 'POST', headers: { 'Idempotency-Key': randomUUID() } }));
    `);
    expect(findings.map((f) => `${f.line}:${f.rule}`)).toEqual([
      '6:no-unsafe-write-retry',
      '9:stable-idempotency-key',
    ]);
  });
});
