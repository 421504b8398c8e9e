/**
 * Options that fall back to defaults written in code (`opts ?? DEFAULTS`, lodash's
 * `get(config, path, DEFAULTS)`, spread into the options or passed whole) are judged by those
 * defaults, shown where they are written: what every use that configures nothing gets, as a
 * parameter's default is. Anything else that cannot be read stays unknown.
 */
import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

describe('options that fall back to defaults written in code', () => {
  it("reads lodash get's fallback spread into the options, at the defaults", () => {
    const [site] = analyse(`
      const retry = require('bluebird-retry');
      const get = require('lodash/get');
      const defaults = { max_tries: 10, interval: 500, backoff: 2, max_interval: 5000, timeout: 25000 };
      module.exports = (publisher, subscriber, args) => {
        const options = get(subscriber, ['retry', 'options'], defaults);
        return retry(publisher.publish, { context: publisher, args, ...options });
      };
    `, { js: true });
    expect(site).toMatchObject({ library: 'bluebird-retry', attempts: 10, attemptsAt: 'max_tries: 10', growth: 'exponential', deadlineMs: 25000 });
  });

  it('reads `opts ?? DEFAULTS` and `opts || {...}` passed whole, and a named import of get from lodash', () => {
    const sites = analyse(`
      import pRetry from 'p-retry';
      import { get } from 'lodash';
      const DEFAULTS = { retries: 8, minTimeout: 100, randomize: true };
      export const a = (fn, opts) => pRetry(fn, opts ?? DEFAULTS);
      export const b = (fn, opts) => pRetry(fn, opts || { retries: 2, factor: 1 });
      export const c = (fn, cfg) => pRetry(fn, { onFailedAttempt: log, ...get(cfg, 'retry', DEFAULTS) });
    `);
    expect(sites.map((s) => [s.attempts, s.attemptsAt])).toEqual([[9, 'retries: 8'], [3, 'retries: 2'], [9, 'retries: 8']]);
    expect(sites[1]).toMatchObject({ growth: 'constant' });
  });

  it('reports at the defaults, each rule once, when one retry uses them', () => {
    const findings = lint(`
      const retry = require('bluebird-retry');
      const get = require('lodash/get');
      const defaults = { max_tries: 10, interval: 500 };
      module.exports = (fn, config) => retry(fn, { ...get(config, 'retry', defaults) });
    `, { js: true });
    const at = (rule: string) => findings.filter((f) => f.rule === rule).map((f) => f.text);
    expect(at('max-retry-attempts')).toEqual(['max_tries: 10']);
    expect(at('require-exponential-backoff')).toEqual(['interval: 500']);
  });

  it('keeps what a fallback leaves out to the properties before the spread', () => {
    const [site] = analyse(`
      import pRetry from 'p-retry';
      export const run = (fn, opts) => pRetry(fn, { retries: 7, ...(opts ?? { minTimeout: 200 }) });
    `);
    expect(site).toMatchObject({ attempts: 8, attemptsAt: 'retries: 7' });
  });

  it('takes a method from the defaults only as evidence of a write', () => {
    // A caller may pass POST in place of the defaults' GET (or of no method at all): not known to be a read.
    const findings = lint(`
      import pRetry from 'p-retry';
      export const send = (url, init) => pRetry(() => fetch(url, { ...(init ?? { method: 'POST' }) }), { retries: 2 });
      export const read = (url, init) => pRetry(() => fetch(url, { ...(init ?? { method: 'GET' }) }), { retries: 2 });
      export const none = (url, init) => pRetry(() => fetch(url, { ...(init ?? { headers: {} }) }), { retries: 2 });
      export const plain = (url) => pRetry(() => fetch(url, { headers: {} }), { retries: 2 });
    `);
    expect(findings.filter((f) => f.rule === 'no-unsafe-write-retry').map((f) => f.line)).toEqual([3]);
  });

  describe('look-alikes that stay unknown', () => {
    it.each([
      ['a get without a fallback', `import get from 'lodash/get'; export const f = (fn, c) => pRetry(fn, { ...get(c, 'retry') });`],
      ['a get of another module', `import { get } from './config'; export const f = (fn, c) => pRetry(fn, { ...get(c, 'retry', { retries: 9 }) });`],
      ['a fallback that is a call', `export const f = (fn, o) => pRetry(fn, o ?? loadDefaults());`],
      ['a fallback that is a parameter', `export const f = (fn, o, d) => pRetry(fn, { ...(o ?? d) });`],
      ['an && (no fallback)', `export const f = (fn, o) => pRetry(fn, o && { retries: 9 });`],
      ['an empty fallback (no defaults written)', `export const f = (fn, o) => pRetry(fn, o || {});`],
      ['options changed after the fallback', `export const f = (fn, o) => { const options = o || { retries: 9 }; options.retries = o?.n; return pRetry(fn, options); };`],
      ['a fallback behind options the code sets', `const config = { retry: { retries: 2 } }; export const f = (fn) => pRetry(fn, config.retry ?? { retries: 9 });`],
      ['options assigned into after the fallback', `export const f = (fn, o) => { const options = o ?? { retries: 9 }; Object.assign(options, o); return pRetry(fn, { ...options }); };`],
    ])('%s', (_name, code) => {
      const [site] = analyse(`import pRetry from 'p-retry';\n${code}`);
      expect(site).toMatchObject({ library: 'p-retry', attempts: 'unknown' });
    });
  });
});
