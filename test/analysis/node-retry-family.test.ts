import { describe, expect, it } from 'vitest';
import { analyse } from '../helpers/model.js';

describe('p-retry descriptor', () => {
  it('normalises retries to total attempts and reads the default schedule', () => {
    const [site] = analyse(`import pRetry from 'p-retry'; await pRetry(() => fetch(u));`);
    expect(site).toMatchObject({
      library: 'p-retry', attempts: 11, growth: 'exponential', initialMs: 1000, multiplier: 2,
      maxMs: Infinity, jitter: false, filter: 'none', operation: '() => fetch(u)',
    });
  });
  it('treats shouldRetry and AbortError as an error filter', () => {
    const sites = analyse(`
      import pRetry, { AbortError } from 'p-retry';
      await pRetry(async () => { const r = await fetch(u); if (r.status === 404) throw new AbortError('gone'); return r; }, { retries: 2 });
      await pRetry(run, { retries: 2, shouldRetry: ({ error }) => error.code !== 'E' });
    `);
    expect(sites.map((s) => s.filter)).toEqual(['custom', 'custom']);
  });
  it('reads an onFailedAttempt that may throw as a filter, and one that only logs as none', () => {
    const sites = analyse(`
      import pRetry from 'p-retry';
      await pRetry(() => fetch(u), { retries: 2, onFailedAttempt: ({ error }) => { if (error.status === 404) throw error; } });
      await pRetry(() => fetch(u), { retries: 2, onFailedAttempt: ({ error }) => handle(error) });
      await pRetry(() => fetch(u), { retries: 2, onFailedAttempt: async (e) => Promise.reject(new Error('stop')) });
      await pRetry(() => fetch(u), { retries: 2, onFailedAttempt: onFailure });
      await pRetry(() => fetch(u), { retries: 2, onFailedAttempt: (error) => { console.warn(error); log(\`\${error.attemptNumber}: \${error.message}\`); } });
      await pRetry(() => fetch(u), { retries: 2, onFailedAttempt: (error) => { logger.warn(error); this.logger.debug(error); } });
      await pRetry(() => fetch(u), { retries: 2, onFailedAttempt: (error) => { loggerLike.warn(error); } });
    `);
    expect(sites.map((s) => s.filter)).toEqual(['custom', 'custom', 'custom', 'custom', 'none', 'none', 'custom']);
  });
  it('computes the worst case with randomize and a cap', () => {
    const [site] = analyse(`import pRetry from 'p-retry'; pRetry(run, { retries: 3, minTimeout: 500, maxTimeout: 1500, randomize: true });`);
    // waits: min(1000,1500) + min(2000,1500) + min(4000,1500)
    expect(site).toMatchObject({ attempts: 4, jitter: true, worstCaseMs: 1000 + 1500 + 1500 });
  });
  it('marks values it cannot know as unknown', () => {
    const [site] = analyse(`import pRetry from 'p-retry'; pRetry(run, { ...defaults, retries: 2 });`);
    expect(site).toMatchObject({ attempts: 3, growth: 'unknown', jitter: 'unknown' });
  });
  it('ignores look-alikes that are not bound to p-retry', () => {
    expect(analyse(`function pRetry(f, o) { return f(); } pRetry(run, { retries: 99 });`)).toEqual([]);
  });
});

describe('async-retry descriptor', () => {
  it('defaults randomize to true and counts bail as a filter', () => {
    const [a, b] = analyse(`
      const retry = require('async-retry');
      retry(async () => run(), { retries: 3 });
      retry(async (bail) => { const r = await fetch(u); if (r.status < 500) bail(new Error()); }, { retries: 3 });
    `, { js: true });
    expect(a).toMatchObject({ library: 'async-retry', attempts: 4, jitter: true, filter: 'none' });
    expect(b).toMatchObject({ filter: 'custom' });
  });
});

describe('node-retry descriptor', () => {
  it('reads retry.operation options and the attempt callback', () => {
    const [site] = analyse(`
      const retry = require('retry');
      const op = retry.operation({ retries: 5, factor: 1, minTimeout: 200 });
      op.attempt((n) => call((err) => { if (op.retry(err)) return; done(err); }));
    `, { js: true });
    expect(site).toMatchObject({ library: 'retry', attempts: 6, growth: 'constant', initialMs: 200, filter: 'custom' });
    expect(site!.operation).toMatch(/^\(n\) =>/);
  });
});

describe('promise-retry descriptor', () => {
  it('accepts both argument orders', () => {
    const sites = analyse(`
      import promiseRetry from 'promise-retry';
      promiseRetry((retry) => run().catch(retry), { retries: 1 });
      promiseRetry({ retries: 4 }, (retry) => run().catch(retry));
    `);
    expect(sites.map((s) => s.attempts)).toEqual([2, 5]);
    expect(sites[1]!.operation).toBe('(retry) => run().catch(retry)');
  });
});

describe('CommonJS files', () => {
  it('recognises require() when ESLint declares it as a commonjs global', async () => {

    const { Linter } = await import('eslint');
    const plugin = (await import('../../src/index.js')).default;
    const linter = new Linter({ configType: 'flat' });
    const messages = linter.verify(`const pRetry = require('p-retry');\npRetry(run, { retries: 9 });`, [{
      files: ['**/*.js'], plugins: { 'safe-retry': plugin as never }, languageOptions: { sourceType: 'commonjs' },
      rules: { 'safe-retry/max-retry-attempts': 'error' },
    }], 'a.js');
    expect(messages.map((m) => m.ruleId)).toEqual(['safe-retry/max-retry-attempts']);
  });

  it('reads compiled CommonJS: interop helpers around require() and `(0, x.default)(...)` calls', () => {
    // What tsc, Babel and esbuild emit for `import pRetry from 'p-retry'` (@slack/web-api ships this).
    const sites = analyse(`
      var __importDefault = (this && this.__importDefault) || function (mod) { return (mod && mod.__esModule) ? mod : { default: mod }; };
      const p_retry_1 = __importDefault(require("p-retry"));
      const retry_1 = tslib.__importStar(require("async-retry"));
      const promise_retry_1 = _interopRequireDefault(require("promise-retry"));
      const retry_2 = __toESM(require("retry"));
      async function a() { return (0, p_retry_1.default)(() => fetchIt(), { retries: 9 }); }
      async function b() { return (0, retry_1.default)(async () => fetchIt(), { retries: 1 }); }
      async function c() { return promise_retry_1.default((again) => fetchIt().catch(again), { retries: 2 }); }
      const op = retry_2.default.operation({ retries: 3 });
      // Not interop helpers: their result is not the module.
      const other = wrap(require("p-retry"));
      (0, other.default)(() => fetchIt(), { retries: 20 });
    `, { js: true });
    expect(sites.map((s) => [s.library, s.attempts]).sort()).toEqual([['async-retry', 2], ['p-retry', 10], ['promise-retry', 3], ['retry', 4]]);
  });
});

describe('node-retry and promise-retry under the rules', () => {
  it('flags node-retry defaults and a constant factor, and passes a small jittered config', async () => {
    const { lint } = await import('../helpers/model.js');
    const bad = lint(`
      const retry = require('retry');
      const op = retry.operation();
      const op2 = retry.operation({ retries: 2, factor: 1, minTimeout: 200, randomize: true });
    `, { js: true }).map((f) => `${f.rule}:${f.text}`);
    expect(bad).toEqual(expect.arrayContaining([
      'max-retry-attempts:retry.operation', 'max-retry-duration:retry.operation', 'require-jitter:retry.operation',
      'require-exponential-backoff:factor: 1',
    ]));
    const good = lint(`
      const retry = require('retry');
      const op = retry.operation({ retries: 2, minTimeout: 500, randomize: true });
    `, { js: true }).filter((f) => f.rule !== 'no-legacy-retry');
    expect(good).toEqual([]);
  });

  it('flags promise-retry defaults in both argument orders, and passes a short jittered retry', async () => {
    const { lint } = await import('../helpers/model.js');
    const bad = lint(`
      import promiseRetry from 'promise-retry';
      await promiseRetry((retry) => send().catch(retry));
      await promiseRetry({ retries: 7, randomize: true, minTimeout: 100 }, (retry) => send().catch(retry));
    `).map((f) => `${f.rule}:${f.line}:${f.text}`);
    expect(bad).toEqual(expect.arrayContaining([
      'max-retry-attempts:3:promiseRetry', 'require-jitter:3:promiseRetry', 'max-retry-attempts:4:retries: 7',
    ]));
    const good = lint(`
      import promiseRetry from 'promise-retry';
      await promiseRetry((retry) => load().catch(retry), { retries: 2, minTimeout: 500, randomize: true });
    `).filter((f) => f.rule !== 'no-legacy-retry');
    expect(good).toEqual([]);
  });
});
