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
    // Every Web API call is a POST with no key, and a non-200 status is retried: the exported
    // client re-sends writes and 4xx wherever it is used, reported at the construction.
    expect(rules(lint(code, { js: true }))).toEqual(['max-retry-attempts', 'max-retry-duration', 'no-retry-on-client-error', 'no-unsafe-write-retry']);
    expect(lint(code, { js: true })).toContainEqual(expect.objectContaining({ rule: 'no-unsafe-write-retry', messageId: 'configuredWrites', text: 'WebClient' }));
  });

  it('follows a client kept on the instance to the messages it posts', () => {
    const code = `
      const { WebClient } = require('@slack/web-api');
      class Bot {
        constructor(config) { this.web = new WebClient(config.token); }
        async say(message) { await this.web.chat.postMessage(message); }
      }
      module.exports = Bot;
    `;
    expect(lint(code, { js: true })).toContainEqual(expect.objectContaining({ rule: 'no-unsafe-write-retry', messageId: 'unsafeClientWrites', text: 'WebClient' }));
  });

  it('judges a client used here by what this file sends through it', () => {
    const code = `
      import { WebClient } from '@slack/web-api';
      const web = new WebClient(token, { retryConfig: { retries: 2, minTimeout: 500, randomize: true } });
      export async function channels() { return await web.conversations.list({ limit: 100 }); }
    `;
    expect(rules(lint(code))).toEqual(['no-retry-on-client-error']);
  });

  it('reports a written retryConfig as the place the writes and 4xx are retried', () => {
    const code = `import { WebClient } from '@slack/web-api'; export const web = new WebClient(token, { retryConfig: { retries: 2, minTimeout: 500, randomize: true } });`;
    const findings = lint(code);
    expect(findings.filter((f) => f.rule === 'no-unsafe-write-retry').map((f) => f.text)).toEqual(['retryConfig: { retries: 2, minTimeout: 500, randomize: true }']);
    expect(findings.filter((f) => f.rule === 'no-retry-on-client-error').map((f) => f.text)).toEqual(['retryConfig: { retries: 2, minTimeout: 500, randomize: true }']);
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
    expect(rules(lint(`import { WebClient } from '@slack/web-api'; new WebClient(token, { retryConfig: { retries: 2 } });`))).toEqual(['no-retry-on-client-error', 'no-unsafe-write-retry', 'require-jitter']);
  });

  it('stays silent when retries are off or the policy is compliant', () => {
    const off = `import { WebClient, LogLevel } from '@slack/web-api'; const slack = new WebClient(t, { retryConfig: { retries: 0 }, logLevel: LogLevel.WARN });`;
    expect(analyse(off)).toEqual([]);
    expect(lint(off)).toEqual([]);
    // A compliant schedule: only what the client re-sends (every POST, every non-200) is left.
    const fine = `import { WebClient } from '@slack/web-api'; new WebClient(t, { retryConfig: { retries: 2, minTimeout: 500, maxTimeout: 2000, randomize: true } });`;
    expect(rules(lint(fine))).toEqual(['no-retry-on-client-error', 'no-unsafe-write-retry']);
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
