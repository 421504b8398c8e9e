import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import { suggestions } from './suggest.js';

describe('temporal descriptor', () => {
  it('is a durable site: default retry is unlimited, 1 s doubling capped at 100 × initial, no jitter', () => {
    const [site] = analyse(`
      import { proxyActivities } from '@temporalio/workflow';
      import type * as activities from './activities';
      const { chargeCard } = proxyActivities<typeof activities>({ startToCloseTimeout: '1 minute' });
    `);
    expect(site).toMatchObject({
      library: 'temporal', label: 'proxyActivities()', kind: 'durable', attempts: Infinity, growth: 'exponential',
      initialMs: 1000, multiplier: 2, maxMs: 100000, jitter: false, filter: 'none', attemptTimeoutMs: 60000,
    });
  });

  it('reads maximumAttempts as total attempts and parses duration strings (fine)', () => {
    const code = `
      import * as wf from '@temporalio/workflow';
      const retry = { initialInterval: '500 ms', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10, nonRetryableErrorTypes: ['ValidationError'] };
      const acts = wf.proxyActivities({ startToCloseTimeout: 10_000, scheduleToCloseTimeout: '5m', retry });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({
      attempts: 10, attemptsAt: 'maximumAttempts: 10', initialMs: 500, maxMs: 30000, filter: 'custom',
      attemptTimeoutMs: 10000, deadlineMs: 300000,
    });
    // Durable: ten attempts and minutes of waiting are what a workflow engine is for (R-RES-RE-5).
    // Temporal's RetryPolicy has no jitter setting, so require-jitter does not ask for one.
    expect(lint(code).map((f) => f.rule)).toEqual([]);
  });

  it('treats maximumAttempts: 0 as unlimited and reads proxyLocalActivities: unbounded durable work breaks R-RES-RE-5', () => {
    const code = `
      import { proxyLocalActivities } from '@temporalio/workflow';
      const local = proxyLocalActivities({ startToCloseTimeout: '2s', retry: { maximumAttempts: 0, initialInterval: 1000 } });
    `;
    expect(analyse(code)[0]).toMatchObject({ attempts: Infinity, kind: 'durable' });
    expect(lint(code).filter((f) => f.rule === 'max-retry-attempts' || f.rule === 'max-retry-duration')).toEqual([
      expect.objectContaining({ rule: 'max-retry-attempts', messageId: 'durableUnbounded', text: 'maximumAttempts: 0' }),
    ]);
    // An overall deadline bounds it; the in-memory time limit never applies to a durable engine.
    expect(lint(`
      import { proxyActivities } from '@temporalio/workflow';
      proxyActivities({ startToCloseTimeout: '2s', scheduleToCloseTimeout: '1 hour', retry: { maximumAttempts: 0 } });
    `).filter((f) => f.rule === 'max-retry-attempts' || f.rule === 'max-retry-duration')).toEqual([]);
  });

  it('still judges backoff: a coefficient of 1 is constant backoff (bad)', () => {
    const code = `
      import { proxyActivities } from '@temporalio/workflow';
      const { sendEmail } = proxyActivities({
        startToCloseTimeout: '30 seconds',
        retry: { initialInterval: '5s', backoffCoefficient: 1, maximumAttempts: 20 },
      });
    `;
    expect(analyse(code)[0]).toMatchObject({ growth: 'constant', initialMs: 5000, attempts: 20 });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', text: 'backoffCoefficient: 1' }));
    // Twenty attempts is above R-RES-RE-5's ten; the in-memory bound of five does not apply.
    expect(findings.filter((f) => f.rule === 'max-retry-attempts')).toEqual([
      expect.objectContaining({ messageId: 'durableTooMany', text: 'maximumAttempts: 20' }),
    ]);
  });

  it('leaves durations it cannot parse unknown', () => {
    const [site] = analyse(`
      import { proxyActivities } from '@temporalio/workflow';
      proxyActivities({ startToCloseTimeout: timeouts.start, retry: { initialInterval: 'soon' } });
    `);
    expect(site).toMatchObject({ attemptTimeoutMs: 'unknown', initialMs: 'unknown', growth: 'unknown' });
  });

  it('suggests backoffCoefficient: 2, inside the retry object even when it lives in a const', () => {
    const applied = suggestions(`import { proxyActivities } from '@temporalio/workflow';\nconst retry = { initialInterval: '1s', backoffCoefficient: 1 };\nproxyActivities({ startToCloseTimeout: '1m', retry });`);
    expect(applied.find((s) => s.rule === 'require-exponential-backoff')?.output).toContain("{ initialInterval: '1s', backoffCoefficient: 2 }");
    const added = suggestions(`import { proxyActivities } from '@temporalio/workflow';\nproxyActivities({ retry: { initialInterval: '1s', backoffCoefficient: 1 } });`);
    expect(added.find((s) => s.rule === 'require-exponential-backoff')?.output).toContain('backoffCoefficient: 2 }');
  });
});
