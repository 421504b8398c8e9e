import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';

const rules = (findings: { rule: string }[]) => [...new Set(findings.map((f) => f.rule))].sort();

describe('slack-web-api descriptor', () => {
  it('judges a bare WebClient by tenRetriesInAboutThirtyMinutes: 11 calls over about half an hour', () => {
    const code = `
      const { WebClient } = require('@slack/web-api');
      module.exports = new WebClient(process.env.SLACK_TOKEN);
    `;
    const [site] = analyse(code, { js: true });
    expect(site).toMatchObject({ library: 'slack-web-api', attempts: 11, growth: 'exponential', multiplier: 1.96821, jitter: true, filter: 'library-default', clientLevel: true });
    expect(site!.worstCaseMs).toBeGreaterThan(25 * 60_000);
    expect(rules(lint(code, { js: true }))).toEqual(['max-retry-attempts', 'max-retry-duration']);
  });

  it('reports a posted message re-sent through the client', () => {
    const code = `
      import { WebClient } from '@slack/web-api';
      const web = new WebClient(token);
      export async function announce(text: string) {
        await web.chat.postMessage({ channel: 'C1', text });
      }
    `;
    expect(lint(code)).toContainEqual(expect.objectContaining({ rule: 'no-unsafe-write-retry', text: 'WebClient' }));
  });

  it('takes p-retry defaults for what a written retryConfig leaves out', () => {
    const [site] = analyse(`import { WebClient } from '@slack/web-api'; new WebClient(token, { retryConfig: { retries: 2 } });`);
    expect(site).toMatchObject({ attempts: 3, multiplier: 2, jitter: false, attemptsAt: 'retries: 2' });
    expect(rules(lint(`import { WebClient } from '@slack/web-api'; new WebClient(token, { retryConfig: { retries: 2 } });`))).toEqual(['require-jitter']);
  });

  it('stays silent when retries are off or the policy is compliant', () => {
    const off = `import { WebClient, LogLevel } from '@slack/web-api'; const slack = new WebClient(t, { retryConfig: { retries: 0 }, logLevel: LogLevel.WARN });`;
    expect(analyse(off)).toEqual([]);
    expect(lint(off)).toEqual([]);
    const fine = `import { WebClient } from '@slack/web-api'; new WebClient(t, { retryConfig: { retries: 2, minTimeout: 500, maxTimeout: 2000, randomize: true } });`;
    expect(lint(fine)).toEqual([]);
  });

  it('knows the exported policies by name', () => {
    const code = `
      import { WebClient, retryPolicies } from '@slack/web-api';
      new WebClient(token, { retryConfig: retryPolicies.fiveRetriesInFiveMinutes });
    `;
    expect(analyse(code)[0]).toMatchObject({ attempts: 6, multiplier: 3.86, jitter: false });
    expect(analyse(`import { WebClient } from '@slack/web-api'; new WebClient(token, { retryConfig: shared });`)).toEqual([]);
    expect(analyse(`import { WebClient } from '@slack/web-api'; new WebClient(token, options);`)).toEqual([]);
  });
});
