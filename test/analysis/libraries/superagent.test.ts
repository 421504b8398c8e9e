import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';

describe('superagent descriptor', () => {
  it('.retry() with no argument means one retry, immediately', () => {
    const [site] = analyse(`import request from 'superagent'; const res = await request.get(url).retry();`);
    expect(site).toMatchObject({
      library: 'superagent', label: '.retry()', attempts: 2, attemptsAt: undefined, growth: 'none', jitter: false,
      filter: 'library-default', operation: 'request.get(url)', clientLevel: false,
    });
  });

  it('no .retry() call: no site', () => {
    expect(analyse(`import request from 'superagent'; await request.get(url).set('Accept', 'json').timeout(5000);`)).toEqual([]);
  });

  it('walks the chain and reads the per-attempt timeout (CJS)', () => {
    const [site] = analyse(`
      const superagent = require('superagent');
      const res = await superagent.post(url).send(body).set('X-Trace', id).retry(3).timeout({ response: 1000, deadline: 3000 });
    `, { js: true });
    expect(site).toMatchObject({ attempts: 4, attemptsAt: '3', attemptTimeoutMs: 3000, worstCaseMs: 12_000 });
  });

  it('an agent-level retry applies to every request the agent sends', () => {
    const sites = analyse(`
      import request from 'superagent';
      const agent = request.agent().set('Authorization', token);
      agent.retry(2);
      await agent.get('/a').retry(1);
    `);
    expect(sites.map((s) => [s.attempts, s.clientLevel])).toEqual([[3, true], [2, false]]);
  });

  it('bad: immediate retries, and a callback that retries everything', () => {
    const code = `
      import request from 'superagent';
      await request.get(url).retry(2);
      await request.get(url).retry(2, (err, res) => true);
    `;
    const [, second] = analyse(code);
    expect(second).toMatchObject({ filter: 'none', retriesEverything: true });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', messageId: 'noDelay', text: 'retry', line: 3 }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'no-retry-on-client-error', messageId: 'retriesEverything', text: '(err, res) => true' }));
  });

  it('bad: too many retries, reported on the count', () => {
    const code = `import request from 'superagent';\nconst MAX = 9;\nawait request('GET', url).retry(MAX);`;
    expect(analyse(code)[0]).toMatchObject({ attempts: 10 });
    expect(lint(code)).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'MAX' }));
  });

  it('.retry(0) and .retry(false) disable retrying', () => {
    const sites = analyse(`import request from 'superagent'; request.get(a).retry(0); request.get(b).retry(false);`);
    expect(sites.map((s) => s.attempts)).toEqual([1, 1]);
  });

  it('never throws on odd but valid shapes', () => {
    const code = `import request from 'superagent'; request.retry; request.get(u).retry(...a); request.get(u).retry(x, y).timeout(); request.get(u).timeout(t).retry(-3); const ag = request.agent(); ag.retry; ag.get(u)['retry'](2); request()();`;
    process.env['SAFE_RETRY_STRICT_ANALYSIS'] = '1';
    try {
      expect(() => analyse(code)).not.toThrow();
      expect(() => analyse(code, { js: true })).not.toThrow();
    } finally {
      delete process.env['SAFE_RETRY_STRICT_ANALYSIS'];
    }
  });
  it('reads a chain whose method is chosen at run time: request[action](route).send(body).retry(3)', () => {
    const code = `
      const request = require('superagent');
      function send(action, route, body) {
        return request[action](route).send(body).retry(3, (err) => { if (err) console.log(err); });
      }
    `;
    const [site] = analyse(code, { js: true });
    expect(site).toMatchObject({ library: 'superagent', attempts: 4, growth: 'none' });
    expect(lint(code, { js: true })).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff' }));
    expect(analyse(`const request = require('superagent'); request[m](url).send(b);`, { js: true })).toEqual([]);
  });
});
