import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';

describe('@octokit/plugin-retry descriptor', () => {
  it('reads the defaults: 3 retries, (n)^2 × 1 s, no jitter, the library filter', () => {
    const [site] = analyse(`
      import { Octokit } from '@octokit/core';
      import { retry } from '@octokit/plugin-retry';
      const MyOctokit = Octokit.plugin(retry);
      const octokit = new MyOctokit({ auth: token });
    `);
    expect(site).toMatchObject({
      library: '@octokit/plugin-retry', attempts: 4, growth: 'polynomial', initialMs: 1000, jitter: false,
      filter: 'library-default', clientLevel: true, operation: 'new MyOctokit({ auth: token })',
      worstCaseMs: 1000 + 4000 + 9000,
    });
  });

  it('one retry with a small base (CJS, plugin with throttling): only the missing jitter', () => {
    const code = `
      const { Octokit } = require('@octokit/rest');
      const { retry } = require('@octokit/plugin-retry');
      const { throttling } = require('@octokit/plugin-throttling');
      const GitHub = Octokit.plugin(retry, throttling);
      const gh = new GitHub({ auth, retry: { retries: 1, retryAfterBaseValue: 500 } });
    `;
    expect(analyse(code, { js: true })[0]).toMatchObject({ attempts: 2, attemptsAt: 'retries: 1', worstCaseMs: 500 });
    // One retry is a single wait: nothing to grow, but without randomness every client comes back
    // at once. The plugin does not look at the method, so the POSTs sent through this client
    // elsewhere are re-sent.
    expect(lint(code, { js: true }).map((f) => f.rule).sort()).toEqual(['no-unsafe-write-retry', 'require-jitter']);
  });

  it('fine: retries disabled', () => {
    const code = `
      import { Octokit } from '@octokit/core';
      import { retry } from '@octokit/plugin-retry';
      const octokit = new (Octokit.plugin(retry))({ retry: { enabled: false } });
    `;
    expect(analyse(code)[0]).toMatchObject({ attempts: 1 });
    expect(lint(code)).toEqual([]);
  });

  it('trap: doNotRetry: [] retries every 4xx', () => {
    const code = `
      import { Octokit } from '@octokit/core';
      import { retry as retryPlugin } from '@octokit/plugin-retry';
      const MyOctokit = Octokit.plugin(retryPlugin);
      const octokit = new MyOctokit({ retry: { doNotRetry: [] } });
    `;
    expect(analyse(code)[0]).toMatchObject({ filter: 'none', retriesEverything: true });
    expect(lint(code)).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', messageId: 'retriesEverything', text: 'doNotRetry: []' }));
  });

  it('bad: a shortened doNotRetry and many retries', () => {
    const code = `
      import { Octokit } from '@octokit/core';
      import { retry } from '@octokit/plugin-retry';
      const MyOctokit = Octokit.plugin(retry);
      const octokit = new MyOctokit({ retry: { retries: 8, doNotRetry: [400, 401, 422] } });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ attempts: 9, filter: 'statuses', clientErrors: ['403, 404, 410 and 451'] });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'retries: 8' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', text: 'doNotRetry: [400, 401, 422]' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-duration', messageId: 'needsQueue' }));
  });

  it('a plugin class never constructed here runs at the defaults', () => {
    const [site] = analyse(`
      import { Octokit } from '@octokit/core';
      import { retry } from '@octokit/plugin-retry';
      export const MyOctokit = Octokit.plugin(retry);
    `);
    expect(site).toMatchObject({ attempts: 4, operation: 'Octokit.plugin(retry)' });
  });

  it('never throws on odd but valid shapes', () => {
    const code = `import { retry } from '@octokit/plugin-retry'; retry(); Octokit.plugin(retry); new (Octokit.plugin(retry))(...a); const M = Octokit.plugin(retry); new M(); new M({ retry: null }); new M({ retry: { doNotRetry: x, retries: y } }); class X extends Octokit.plugin(retry) {}`;
    process.env['SAFE_RETRY_STRICT_ANALYSIS'] = '1';
    try {
      expect(() => analyse(code)).not.toThrow();
      expect(() => analyse(code, { js: true })).not.toThrow();
    } finally {
      delete process.env['SAFE_RETRY_STRICT_ANALYSIS'];
    }
  });

  it("reads the plugin handed to @actions/github's getOctokit as an extra argument", () => {
    const code = `
      import { getOctokit } from '@actions/github';
      import { retry } from '@octokit/plugin-retry';
      export const github = getOctokit(token, { retry: { retries: 2 } }, retry);
    `;
    expect(analyse(code)[0]).toMatchObject({ label: 'getOctokit(retry)', attempts: 3, attemptsAt: 'retries: 2', jitter: false });
    const rules = lint(code).map((f) => f.rule);
    // Waits of 1 s and 4 s with no randomness; every method re-sent, wherever the client goes.
    expect(rules).toEqual(expect.arrayContaining(['require-jitter', 'no-unsafe-write-retry']));
    // Options the file cannot read stay unknown; a getOctokit without the plugin is no site.
    expect(analyse(`import { getOctokit } from '@actions/github'; import { retry } from '@octokit/plugin-retry'; getOctokit(token, opts, retry);`)[0]).toMatchObject({ attempts: 'unknown' });
    expect(analyse(`import { getOctokit } from '@actions/github'; getOctokit(token, { retry: { retries: 9 } });`)).toEqual([]);
  });
});
