/**
 * The team's own retry helpers: declared in settings, inferred from a hand-written retry around
 * a callback (in the file and across imports), and SDK clients' own retries as the inner layer.
 */
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import * as tsParser from '@typescript-eslint/parser';
import type { TSESLint } from '@typescript-eslint/utils';
import { Linter } from 'eslint';
import { beforeEach, describe, expect, it } from 'vitest';
import { getRetryModel } from '../../src/analysis/index.js';
import type { RetrySite } from '../../src/analysis/model.js';
import { readSettings } from '../../src/analysis/settings.js';
import { clearModuleCache, FRESH_MS, moduleCacheStats } from '../../src/analysis/wrappers/index.js';
import plugin from '../../src/index.js';
import { summarise, type SiteSummary } from '../helpers/model.js';
import { temporaryProjects } from '../helpers/project.js';

interface RunOptions {
  js?: boolean;
  /** JavaScript parsed by the presets' own parser (espree, which gives no scope analysis of its own). */
  presetParser?: boolean;
  /** Absolute path of the linted file (cross-file tests), else `file.ts` / `file.js`. */
  filename?: string;
  settings?: Record<string, unknown>;
}

interface Message {
  rule: string;
  line: number;
  text: string;
  message: string;
}

interface Run {
  sites: (SiteSummary & { fromHelper: string[] })[];
  raw: RetrySite[];
  findings: Message[];
}

/** Lints with the recommended preset and captures the model, with settings and a real filename. */
function run(code: string, opts: RunOptions = {}): Run {
  let raw: RetrySite[] = [];
  let sites: Run['sites'] = [];
  const capture = {
    meta: { type: 'problem' as const, schema: [] },
    create(context: TSESLint.RuleContext<string, []>) {
      return {
        'Program:exit'() {
          raw = [...getRetryModel(context).sites];
          sites = raw.map((s) => ({ ...summarise(s, context.sourceCode), fromHelper: [...(s.fromHelper ?? [])].sort() }));
        },
      };
    },
  };
  // Files in a temporary folder lie outside the working directory that config patterns are relative to.
  const linter = new Linter({ configType: 'flat', ...(opts.filename ? { cwd: '/' } : {}) });
  const filename = opts.filename ?? (opts.js || opts.presetParser ? 'file.js' : 'file.ts');
  const messages = linter.verify(code, [
    {
      files: ['**/*.{js,mjs,cjs,ts,mts,cts,tsx,jsx}'],
      plugins: { 'safe-retry': plugin as never, test: { rules: { capture } } as never },
      languageOptions: opts.presetParser
        ? { parser: plugin.configs.recommended.languageOptions.parser as never, sourceType: 'module' }
        : opts.js ? { ecmaVersion: 'latest', sourceType: 'module' } : { parser: tsParser as never, sourceType: 'module' },
      settings: opts.settings ?? {},
      rules: { ...plugin.configs.recommended.rules, 'test/capture': 'error' } as never,
    },
  ], filename);
  const lines = code.split('\n');
  const findings = messages.map((m) => {
    if (m.fatal) throw new Error(`parse error: ${m.message}`);
    const line = lines[m.line - 1] ?? '';
    const text = m.endLine === m.line ? line.slice(m.column - 1, (m.endColumn ?? m.column) - 1) : line.slice(m.column - 1);
    return { rule: (m.ruleId ?? '').replace('safe-retry/', ''), line: m.line, text, message: m.message };
  });
  return { sites, raw, findings };
}

const rulesOf = (findings: readonly Message[]) => findings.map((f) => `${f.rule} ${f.text}`).sort();

// ---------------------------------------------------------------------------------------------

const ACME = {
  module: '@acme/http',
  export: 'withRetry',
  operation: 0,
  options: 1,
  attempts: { option: 'retries', counts: 'retries', default: 2 },
  delay: { option: 'backoff.delay', default: 200 },
  factor: { option: 'backoff.factor', default: 2 },
  maxDelay: { option: 'backoff.max', default: 5000 },
  jitter: { option: 'jitter', default: true },
  errorFilter: { option: 'retryIf', default: 'none' },
  deadline: { option: 'deadlineMs' },
};
const acme = (...more: object[]) => ({ 'safe-retry': { wrappers: [ACME, ...more] } });

describe('declared helpers (settings["safe-retry"].wrappers)', () => {
  it('reads calls like a library: options, nested options, defaults, and findings on the option', () => {
    const code = `
      import { withRetry } from '@acme/http';
      export const fine = () => withRetry(() => fetch('/a'));
      export const many = () => withRetry(() => fetch('/b'), { retries: 10, backoff: { factor: 1 }, jitter: false });
      export const capped = () => withRetry(() => fetch('/c'), { deadlineMs: 2000, retryIf: (e) => e.status >= 500 });
    `;
    const { sites, findings } = run(code, { settings: acme() });
    expect(sites).toHaveLength(3);
    expect(sites[0]).toMatchObject({
      library: 'wrapper:@acme/http#withRetry', label: 'withRetry()', attempts: 3, attemptsAt: undefined, growth: 'exponential',
      initialMs: 200, multiplier: 2, maxMs: 5000, jitter: true, filter: 'none', operation: "() => fetch('/a')", worstCaseMs: 600,
    });
    expect(sites[1]).toMatchObject({ attempts: 11, attemptsAt: 'retries: 10', growth: 'constant', jitter: false });
    expect(sites[2]).toMatchObject({ attempts: 3, filter: 'custom', deadlineMs: 2000 });
    // A constant wait with no randomness breaks both R-RES-RE-2 and X3's jitter: both are reported.
    expect(rulesOf(findings)).toEqual(['max-retry-attempts retries: 10', 'require-exponential-backoff factor: 1', 'require-jitter jitter: false']);
    expect(findings.find((f) => f.rule === 'max-retry-attempts')?.message).toMatch(/^withRetry\(\) makes up to 11 calls/);
  });

  it('is import-aware: namespace members, CommonJS, renamed imports; never by bare name', () => {
    const esm = run(`
      import * as http from '@acme/http';
      import { withRetry as retrying } from '@acme/http';
      import { withRetry as other } from '@other/http';
      const opts = { retries: 6 };
      http.withRetry(() => load(), opts);
      retrying(() => load(), { ...opts, retries: 1 });
      other(() => load(), { retries: 50 });
      function withRetry(fn) { return fn(); }
      withRetry(() => load(), { retries: 50 });
    `, { settings: acme() });
    expect(esm.sites.map((s) => [s.label, s.attempts, s.attemptsAt])).toEqual([['http.withRetry()', 7, 'retries: 6'], ['retrying()', 2, 'retries: 1']]);
    const cjs = run(`
      const { withRetry } = require('@acme/http');
      const http = require('@acme/http');
      withRetry(() => load(), { retries: 7 });
      http.withRetry(() => load());
    `, { js: true, settings: acme() });
    expect(cjs.sites.map((s) => [s.label, s.attempts])).toEqual([['withRetry()', 8], ['http.withRetry()', 3]]);
  });

  it('matches relative modules as written, default exports, attempt counts and positional arguments', () => {
    const settings = {
      'safe-retry': {
        wrappers: [
          { module: '../lib/retry.js', export: 'default', operation: 1, attempts: { argument: 0, counts: 'attempts', default: 3 } },
          { module: './resilience', export: 'retrying', operation: 0, options: 1, attempts: { option: 'maxAttempts', counts: 'attempts' } },
        ],
      },
    };
    const { sites, findings } = run(`
      import retry from '../lib/retry.js';
      import { retrying } from './resilience';
      retry(8, () => load());
      retry(undefined, () => load());
      retrying(() => load(), { maxAttempts: 3 });
      retrying(() => load());
    `, { settings });
    expect(sites.map((s) => [s.attempts, s.attemptsAt, s.operation])).toEqual([
      [8, '8', '() => load()'], [3, 'undefined', '() => load()'], [3, 'maxAttempts: 3', '() => load()'], ['unknown', undefined, '() => load()'],
    ]);
    // Nothing declared about the waits: they stay unknown, never guessed.
    expect(sites[0]).toMatchObject({ growth: 'unknown', jitter: 'unknown', filter: 'custom', worstCaseMs: 'unknown' });
    expect(rulesOf(findings)).toEqual(['max-retry-attempts 8']);
  });

  it('matches a method of an exported object by its dotted path', () => {
    const settings = { 'safe-retry': { wrappers: [{ module: './http', export: 'client.withRetry', operation: 0, options: 1, attempts: { option: 'retries', counts: 'retries', default: 2 } }] } };
    const { sites } = run(`import { client } from './http'; client.withRetry(() => load(), { retries: 4 }); client.get('/x');`, { settings });
    expect(sites.map((s) => [s.label, s.attempts])).toEqual([['client.withRetry()', 5]]);
  });

  it('suggests fixes in the helper\'s own option names', () => {
    const { raw } = run(`import { withRetry } from '@acme/http'; withRetry(() => load(), { retries: 9, jitter: false, backoff: { delay: 0 } });`, { settings: acme() });
    const fixes = raw[0]!.fixes!;
    expect(fixes.attempts!(3)).toEqual([{ path: ['retries'], text: '2' }]);
    expect(fixes.jitter!()).toEqual([{ path: ['jitter'], text: 'true' }]);
    expect(fixes.exponential!()).toEqual([{ path: ['backoff', 'delay'], text: '500' }, { path: ['backoff', 'factor'], text: '2' }]);
  });

  it('judges what a declared helper retries like any other site (writes, nested layers)', () => {
    const { findings } = run(`
      import pRetry from 'p-retry';
      import { withRetry } from '@acme/http';
      export const pay = (order) => withRetry(() => payments.charge(order));
      export const twice = () => pRetry(() => withRetry(() => fetch('/x')), { retries: 2, minTimeout: 200, randomize: true });
    `, { settings: acme() });
    expect(rulesOf(findings)).toEqual(["no-legacy-retry 'p-retry'", 'no-nested-retry withRetry', 'no-unsafe-write-retry payments.charge(order)']);
    expect(findings.find((f) => f.rule === 'no-nested-retry')?.message).toContain('3 x 3 = 9');
  });

  it('rejects a malformed declaration with an error naming the key', () => {
    const bad = (w: unknown) => () => readSettings({ 'safe-retry': { wrappers: [w] } });
    expect(bad({ ...ACME, module: '' })).toThrow(/wrappers\[0\]\.module must be a non-empty string/);
    expect(bad({ ...ACME, operation: -1 })).toThrow(/wrappers\[0\]\.operation must be an argument index/);
    expect(bad({ ...ACME, attempts: { option: 'retries', counts: 'tries' } })).toThrow(/wrappers\[0\]\.attempts\.counts must be 'retries'/);
    expect(bad({ ...ACME, options: undefined })).toThrow(/wrappers\[0\]\.attempts\.option needs .*wrappers\[0\]\.options/);
    expect(bad({ ...ACME, retries: 3 })).toThrow(/wrappers\[0\]\.retries is not a known key/);
    expect(bad({ ...ACME, delay: { option: 'delay', argument: 2 } })).toThrow(/wrappers\[0\]\.delay must name an option or an argument, not both/);
    expect(bad({ ...ACME, jitter: { option: 'jitter', default: 'yes' } })).toThrow(/wrappers\[0\]\.jitter\.default must be true or false/);
    expect(bad({ ...ACME, factor: {} })).toThrow(/wrappers\[0\]\.factor must have an option, an argument or a default/);
    expect(bad({ ...ACME, options: 0 })).toThrow(/options must differ from .*operation/);
    expect(() => readSettings({ 'safe-retry': { wrappers: {} } })).toThrow(/wrappers must be an array/);
    expect(readSettings({ 'safe-retry': { wrappers: [ACME] } }).wrappers?.[0]).toMatchObject({ module: '@acme/http', attempts: { counts: 'retries', default: 2 } });
  });
});

// ---------------------------------------------------------------------------------------------

const WITH_RETRY = `
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  async function withRetry(fn, { retries = 2, delay = 200, jitter = true } = {}) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (error) {
        if (attempt >= retries) throw error;
        const wait = delay * 2 ** attempt;
        await sleep(jitter ? Math.random() * wait : wait);
      }
    }
  }
`;

describe('inferred helpers in the same file', () => {
  it('makes each call a site: the operation passed in, the numbers its arguments give', () => {
    const { sites, findings } = run(`${WITH_RETRY}
      export const a = () => withRetry(() => api.get('/a'));
      export const b = () => withRetry(() => api.get('/b'), { retries: 10 });
      export const c = () => withRetry(() => api.get('/c'), { delay: 1000, jitter: false });
    `, { js: true });
    const calls = sites.filter((s) => s.library === 'wrapper:withRetry');
    expect(calls.map((s) => [s.label, s.operation, s.attempts, s.attemptsAt, s.growth, s.initialMs, s.jitter])).toEqual([
      ['withRetry()', "() => api.get('/a')", 3, undefined, 'exponential', 200, true],
      ['withRetry()', "() => api.get('/b')", 11, 'retries: 10', 'exponential', 200, true],
      ['withRetry()', "() => api.get('/c')", 3, undefined, 'exponential', 1000, false],
    ]);
    // The helper's own site speaks for its defaults, which are sound.
    expect(sites.find((s) => s.library === 'hand-written')).toMatchObject({ attempts: 3, jitter: true, operation: 'fn()' });
    // api.get('/a') is an HTTP call and withRetry retries every failure: 4xx too, at each call.
    expect(rulesOf(findings)).toEqual([
      'max-retry-attempts retries: 10', 'max-retry-duration withRetry',
      'no-retry-on-client-error withRetry', 'no-retry-on-client-error withRetry', 'no-retry-on-client-error withRetry',
      'require-jitter jitter: false',
    ]);
    expect(findings.find((f) => f.rule === 'require-jitter')?.message).toMatch(/^withRetry\(\) backs off/);
  });

  it('reports numbers hard-coded in the helper once, in the helper, and still multiplies them when nested', () => {
    const { sites, findings } = run(`
      import pRetry from 'p-retry';
      async function retry10(fn) {
        for (let i = 0; i < 10; i++) {
          try { return await fn(); } catch (e) { await new Promise((r) => setTimeout(r, 100)); }
        }
        throw new Error('gave up');
      }
      export const a = () => retry10(() => api.get('/a'));
      export const b = () => retry10(() => api.get('/b'));
      export const c = () => pRetry(() => retry10(() => api.get('/c')), { retries: 2, minTimeout: 200, randomize: true });
    `);
    const calls = sites.filter((s) => s.library === 'wrapper:retry10');
    expect(calls).toHaveLength(3);
    expect(calls[0]).toMatchObject({ attempts: 10, growth: 'constant', fromHelper: ['attempts', 'backoff', 'breaker', 'duration', 'jitter'] });
    expect(rulesOf(findings)).toEqual([
      'max-retry-attempts 10',
      "no-legacy-retry 'p-retry'",
      'no-nested-retry retry10',
      'no-retry-on-client-error pRetry',
      'no-retry-on-client-error retry10',
      'no-retry-on-client-error retry10',
      'no-retry-on-client-error retry10',
      'require-exponential-backoff 100',
      'require-jitter 100',
    ]);
    expect(findings.find((f) => f.rule === 'no-nested-retry')?.message).toContain('3 x 10 = 30');
  });

  it('leaves the helper\'s missing jitter and constant waits to the helper when a call only changes the scale', () => {
    const { sites, findings } = run(`
      async function withRetry(fn, { retries = 2, delay = 100 } = {}) {
        for (let attempt = 0; ; attempt++) {
          try { return await fn(); } catch (e) { if (attempt >= retries) throw e; await sleep(delay * 2 ** attempt); }
        }
      }
      async function steady(fn, { retries = 2, delay = 100 } = {}) {
        for (let attempt = 0; ; attempt++) {
          try { return await fn(); } catch (e) { if (attempt >= retries) throw e; await sleep(delay); }
        }
      }
      withRetry(() => api.get('/a'), { delay: 300 });
      steady(() => api.get('/b'), { delay: 300 });
    `);
    expect(sites.filter((s) => s.library.startsWith('wrapper:')).map((s) => [s.initialMs, s.fromHelper])).toEqual([
      [300, ['attempts', 'backoff', 'breaker', 'jitter']],
      [300, ['attempts', 'backoff', 'breaker', 'jitter']],
    ]);
    expect(findings.map((f) => [f.rule, f.line]).sort()).toEqual([['no-retry-on-client-error', 12], ['no-retry-on-client-error', 13], ['require-exponential-backoff', 9], ['require-jitter', 4], ['require-jitter', 9]]);
  });

  it('reports a bad default at the default, and a call that overrides it at the call', () => {
    const { findings } = run(`
      async function withRetry(fn, retries = 10) {
        for (let attempt = 1; ; attempt++) {
          try { return await fn(); } catch (e) { if (attempt > retries) throw e; await sleep(100 * 2 ** attempt * Math.random()); }
        }
      }
      withRetry(() => api.get('/a'));
      withRetry(() => api.get('/b'), 2);
      withRetry(() => api.get('/c'), 20);
    `);
    // The bound as written in the helper (`attempt > retries`), then the call's own argument.
    expect(findings.filter((f) => f.rule === 'max-retry-attempts').map((f) => [f.line, f.text])).toEqual([[4, 'retries'], [9, '20']]);
  });

  it('reads positional and options-object parameters, `??` defaults and recursion that passes counters on', () => {
    const { sites, findings } = run(`
      function retry(fn, retries = 3, delay = 500) {
        return fn().catch((err) => retries > 0 ? wait(delay).then(() => retry(fn, retries - 1, delay * 2)) : Promise.reject(err));
      }
      async function attempt(task, opts = {}) {
        const max = opts.maxAttempts ?? 3;
        for (let n = 1; n <= max; n++) {
          try { return await task(); } catch (e) { if (n === max) throw e; await sleep(opts.delayMs ?? 100); }
        }
      }
      retry(() => api.get('/r'), 9, 50);
      attempt(() => api.get('/a'), { maxAttempts: 8, delayMs: 250 });
      attempt(() => api.get('/b'));
    `, { js: true });
    const calls = sites.filter((s) => s.library.startsWith('wrapper:'));
    expect(calls.map((s) => [s.label, s.attempts, s.attemptsAt, s.growth, s.initialMs])).toEqual([
      ['retry()', 10, '9', 'exponential', 50],
      ['attempt()', 8, 'maxAttempts: 8', 'constant', 250],
      ['attempt()', 3, undefined, 'constant', 100],
    ]);
    // One finding per problem: the recursion's body no longer speaks for the call's argument.
    expect(findings.filter((f) => f.rule === 'max-retry-attempts').map((f) => f.text)).toEqual(['9', 'maxAttempts: 8']);
  });

  it('finds the operation inside an options object, and helpers written as const arrows', () => {
    const { sites } = run(`
      export const withRetry = async ({ task, retries = 2 }) => {
        for (let i = 0; ; i++) {
          try { return await task(); } catch (e) { if (i >= retries) throw e; await sleep(100 * 2 ** i * Math.random()); }
        }
      };
      withRetry({ task: () => api.post('/orders', order), retries: 4 });
    `);
    expect(sites.find((s) => s.library === 'wrapper:withRetry')).toMatchObject({ attempts: 5, attemptsAt: 'retries: 4', operation: "() => api.post('/orders', order)" });
  });

  it('treats a helper that retries a call built from its parameters as a wrapper, the call as its operation', () => {
    const { sites, findings } = run(`
      function getJson(url, tries = 3) {
        return fetch(url).then((res) => {
          if (res.status >= 500 && tries > 1) return sleep(300).then(() => getJson(url, tries - 1));
          return res.json();
        });
      }
      export const a = () => getJson('/a');
      export const b = () => getJson('/b', 12);
      export const c = () => pRetry(() => getJson('/c'), { retries: 2, minTimeout: 200, randomize: true });
      import pRetry from 'p-retry';
    `);
    const calls = sites.filter((s) => s.library === 'wrapper:getJson');
    expect(calls.map((s) => [s.operation, s.attempts])).toEqual([["getJson('/a')", 3], ["getJson('/b', 12)", 12], ["getJson('/c')", 3]]);
    expect(rulesOf(findings)).toContain('max-retry-attempts 12');
    expect(rulesOf(findings)).toContain('no-nested-retry getJson');
  });

  it('judges what each call retries: unkeyed writes and nested retries at the call', () => {
    const { findings } = run(`${WITH_RETRY}
      import pRetry from 'p-retry';
      export const pay = (order) => withRetry(() => payments.charge(order));
      export const inner = () => withRetry(() => pRetry(() => api.get('/x'), { retries: 2, minTimeout: 200, randomize: true }));
    `, { js: true });
    expect(rulesOf(findings)).toEqual(["no-legacy-retry 'p-retry'", 'no-nested-retry pRetry', 'no-retry-on-client-error pRetry', 'no-retry-on-client-error withRetry', 'no-unsafe-write-retry payments.charge(order)']);
  });

  it('leaves alone functions that retry a fixed call, and calls from inside the helper', () => {
    const { sites } = run(`
      async function loadConfig(n = 0) {
        try { return await api.get('/config'); }
        catch (e) { if (n >= 3) throw e; await sleep(100 * 2 ** n); return loadConfig(n + 1); }
      }
      loadConfig();
      ${WITH_RETRY}
    `, { js: true });
    expect(sites.map((s) => s.library)).toEqual(['hand-written', 'hand-written']);
  });

  it('never throws on odd but valid calls', () => {
    const { sites } = run(`${WITH_RETRY}
      withRetry();
      withRetry(...args);
      withRetry(() => x(), ...rest);
      withRetry(() => x(), { ...unknown, retries: 4 });
      withRetry(() => x(), { [key]: 1, get retries() { return 9; } });
      withRetry(() => x(), null);
      withRetry.call(null, () => x());
      new withRetry(() => x());
    `, { js: true });
    const calls = sites.filter((s) => s.library === 'wrapper:withRetry');
    expect(calls.map((s) => s.attempts)).toEqual([3, 'unknown', 'unknown', 5, 'unknown', 'unknown']);
  });
});

// ---------------------------------------------------------------------------------------------

/** Writes a small project to a temporary folder; returns absolute paths by relative name. */
const project = temporaryProjects('safe-retry-wrappers-');

const HELPER_TS = `
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export async function withRetry<T>(fn: () => Promise<T>, { retries = 2, delay = 200 }: { retries?: number; delay?: number } = {}): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (attempt >= retries) throw error;
      await sleep(Math.random() * delay * 2 ** attempt);
    }
  }
}
`;

describe('inferred helpers in other files', () => {
  beforeEach(() => clearModuleCache());

  it('follows relative imports (`./retry.js` to retry.ts), default exports, namespaces and re-exports', () => {
    const at = project({
      'src/retry.ts': HELPER_TS,
      'src/default.ts': HELPER_TS.replace('export async function withRetry', 'export default async function withRetry'),
      'src/index.ts': "export { withRetry as retrying } from './retry.js';\nexport * from './retry.js';\n",
      'src/app.ts': '',
    });
    const code = `
      import { withRetry } from './retry.js';
      import retryDefault from './default';
      import * as lib from './index.js';
      import { retrying } from './index.js';
      withRetry(() => api.get('/a'), { retries: 9 });
      retryDefault(() => api.get('/b'));
      lib.withRetry(() => api.get('/c'), { retries: 1 });
      retrying(() => api.get('/d'), { delay: 10 });
    `;
    const { sites, findings } = run(code, { filename: at('src/app.ts') });
    expect(sites.map((s) => [s.library, s.label, s.attempts, s.attemptsAt, s.initialMs])).toEqual([
      ['wrapper:withRetry', 'withRetry()', 10, 'retries: 9', 200],
      ['wrapper:withRetry', 'retryDefault()', 3, undefined, 200],
      ['wrapper:withRetry', 'lib.withRetry()', 2, 'retries: 1', 200],
      ['wrapper:withRetry', 'retrying()', 3, undefined, 10],
    ]);
    expect(rulesOf(findings)).toEqual([
      'max-retry-attempts retries: 9', 'max-retry-duration withRetry',
      'no-retry-on-client-error lib.withRetry', 'no-retry-on-client-error retryDefault', 'no-retry-on-client-error retrying', 'no-retry-on-client-error withRetry',
    ]);
  });

  it('counts a client configured in another file, called inside a retry here, as the inner layer', () => {
    const at = project({
      'src/api.ts': `import axios from 'axios';
import axiosRetry from 'axios-retry';
export const api = axios.create({ baseURL: '/api' });
axiosRetry(api, { retries: 3, retryDelay: axiosRetry.exponentialDelay });
export const plain = axios.create({ baseURL: '/plain' });
`,
      'src/ky-api.ts': `import ky from 'ky';
export const kapi = ky.create({ prefixUrl: '/api', retry: { limit: 2 } });
export const quiet = ky.create({ prefixUrl: '/api', retry: 0 });
`,
      'src/app.ts': '',
    });
    const code = `
      import pRetry from 'p-retry';
      import { api, plain } from './api';
      import { kapi, quiet } from './ky-api';
      const opts = { retries: 2, randomize: true, maxTimeout: 1000 };
      export const a = () => pRetry(() => api.get('/orders'), opts);
      export const b = () => pRetry(() => kapi.get('orders').json(), opts);
      // No retry of its own (no axios-retry on it; ky told not to retry): one layer.
      export const c = () => pRetry(() => plain.get('/x'), opts);
      export const d = () => pRetry(() => quiet.get('x').json(), opts);
    `;
    const { findings } = run(code, { filename: at('src/app.ts') });
    expect(findings.filter((f) => f.rule === 'no-nested-retry').map((f) => [f.line, f.message.split(', which')[0], f.message.includes('no edit of the inner layer')])).toEqual([
      // The other file's options are not edited from here.
      [6, 'pRetry() retries api.get() (axiosRetry() in api.ts)', true],
      [7, 'pRetry() retries kapi.get() (ky.create() in ky-api.ts)', true],
    ]);
  });

  it('follows a helper that retries on its own when it is called inside another retry (a nested retry)', () => {
    const at = project({
      'src/send-email.ts': `import { mailer } from './mailer';
export async function sendEmail(to: string, subject: string, retries = 3) {
  for (let i = 0; i < retries; i++) {
    try {
      await mailer.sendMail({ to, subject });
      return;
    } catch (err) {
      if (i === retries - 1) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 2000));
    }
  }
}
`,
      'src/app.ts': '',
    });
    const code = `
      import { sendEmail } from './send-email';
      export async function notify(to: string) {
        for (let attempt = 1; attempt <= 2; attempt++) {
          try {
            return await sendEmail(to, 'hello');
          } catch (error) {
            await new Promise((r) => setTimeout(r, Math.random() * 1000));
          }
        }
      }
      // Outside any retry, the helper is not followed: the call is the helper's business.
      export const once = (to: string) => sendEmail(to, 'once');
    `;
    const { sites, findings } = run(code, { filename: at('src/app.ts') });
    expect(sites.map((s) => [s.library, s.label, s.attempts])).toEqual([
      ['hand-written', 'for loop', 2],
      ['wrapper:sendEmail', 'sendEmail()', 3],
    ]);
    expect(findings.filter((f) => f.rule === 'no-nested-retry').map((f) => [f.line, f.message.split(':')[0]])).toEqual([
      [6, 'for loop retries sendEmail(), which already makes up to 3 calls'],
    ]);
  });

  it('counts a function of another file that retries on its own, called inside a retry here, as the inner layer', () => {
    const at = project({
      'src/shard.ts': `const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export async function refreshShards(): Promise<boolean> {
  for (let attempt = 0; attempt < 4; attempt++) {
    try {
      return (await fetch('/shards')).ok;
    } catch (error) {
      await sleep(Math.random() * 500 * 2 ** attempt);
    }
  }
  return false;
}
// Defines a retrying function without running it: calling this runs no retry.
export function makeUpdater() {
  return async function again(id: string, attempt = 0): Promise<void> {
    try { await fetch('/shards/' + id); } catch { if (attempt < 3) return again(id, attempt + 1); }
  };
}
`,
      'src/app.ts': '',
    });
    const code = `
      import { makeUpdater, refreshShards } from './shard';
      export async function connect(id: string, attempt = 0): Promise<void> {
        const ok = await refreshShards();
        if (!ok && attempt < 2) {
          await new Promise((r) => setTimeout(r, Math.random() * 1000 * 2 ** attempt));
          return connect(id, attempt + 1);
        }
      }
      export async function setup() {
        for (let i = 0; i < 2; i++) {
          try { return makeUpdater(); } catch { await new Promise((r) => setTimeout(r, Math.random() * 100)); }
        }
      }
      // Outside any retry: the function's own retry is its business.
      export const once = () => refreshShards();
    `;
    const { findings } = run(code, { filename: at('src/app.ts') });
    expect(findings.filter((f) => f.rule === 'no-nested-retry').map((f) => [f.line, f.message.split(', which')[0]])).toEqual([
      [4, 'recursive connect() retries refreshShards() (for loop in shard.ts)'],
    ]);
  });

  it('follows CommonJS requires in JavaScript linted with the default parser', () => {
    const at = project({
      'lib/retry.js': `
        const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
        async function withRetry(fn, retries = 2) {
          for (let i = 0; ; i++) {
            try { return await fn(); } catch (e) { if (i >= retries) throw e; await sleep(100 * 2 ** i * Math.random()); }
          }
        }
        module.exports = { withRetry };
      `,
      'lib/single.js': "const { withRetry } = require('./retry');\nmodule.exports = async function retryOnce(fn, times = 1) { for (let i = 0; ; i++) { try { return await fn(); } catch (e) { if (i >= times) throw e; } } };\n",
    });
    const { sites } = run(`
      const { withRetry } = require('./retry');
      const retryOnce = require('./single.js');
      withRetry(() => api.get('/a'), 7);
      retryOnce(() => api.get('/b'));
    `, { js: true, filename: at('lib/app.js') });
    expect(sites.map((s) => [s.label, s.attempts, s.attemptsAt])).toEqual([['withRetry()', 8, '7'], ['retryOnce()', 2, undefined]]);
  });

  it('follows ES module imports in JavaScript linted with the presets\' parser, which gives the tree without scopes', () => {
    const at = project({
      'utils/retries.js': `
        export async function withRetries(task, options = {}) {
          const { maxRetries = 5, initialDelay = 1000, isRecoverable = () => true } = options;
          let retries = 0;
          let delay = initialDelay;
          while (retries < maxRetries) {
            try {
              return await task();
            } catch (error) {
              retries++;
              if (!isRecoverable(error)) console.error(error.message);
              await new Promise((resolve) => setTimeout(resolve, delay));
              delay = delay * 2;
            }
          }
        }
      `,
      'utils/app.js': '',
    });
    const { sites, findings } = run(`
      import axios from 'axios';
      import { withRetries } from './retries.js';
      export const playlist = (url) => withRetries(async () => (await axios.get(url)).data);
    `, { presetParser: true, filename: at('utils/app.js') });
    expect(sites.map((s) => [s.library, s.label, s.attempts])).toEqual([['wrapper:withRetries', 'withRetries()', 5]]);
    expect(rulesOf(findings)).toEqual(['no-retry-on-client-error withRetries']);
  });

  it('follows workspace packages linked into node_modules, not installed packages', () => {
    const at = project({
      'packages/http/package.json': JSON.stringify({ name: '@acme/http', main: 'dist/index.js', types: 'dist/index.d.ts' }),
      'packages/http/src/index.ts': HELPER_TS,
      'node_modules/installed-retry/package.json': JSON.stringify({ name: 'installed-retry', main: 'index.js' }),
      'node_modules/installed-retry/index.js': HELPER_TS.replace(/: [A-Za-z<>(){}?;, =]+(?=[,)=])/g, ''),
      'apps/api/src/app.ts': '',
    });
    mkdirSync(at('node_modules/@acme'), { recursive: true });
    symlinkSync(at('packages/http'), at('node_modules/@acme/http'), 'dir');
    const { sites } = run(`
      import { withRetry } from '@acme/http';
      import { withRetry as installed } from 'installed-retry';
      withRetry(() => api.get('/a'), { retries: 6 });
      installed(() => api.get('/b'), { retries: 6 });
    `, { filename: at('apps/api/src/app.ts') });
    expect(sites.map((s) => [s.label, s.attempts])).toEqual([['withRetry()', 7]]);
  });

  it('follows tsconfig path aliases (nearest config, a relative extends chain, the longest prefix, comments in the JSON)', () => {
    const at = project({
      'tsconfig.base.json': `{
        // the workspace's aliases
        "compilerOptions": { "baseUrl": ".", "paths": { "@acme/http": ["libs/http/src/index.ts"], "@/*": ["apps/api/src/*"], "@/lib/*": ["apps/api/lib/*",], }, },
      }`,
      'apps/api/tsconfig.json': '{ "extends": "../../tsconfig.base.json", /* no paths of its own */ "compilerOptions": { "strict": true } }',
      'libs/http/src/index.ts': HELPER_TS,
      'apps/api/lib/retry.ts': HELPER_TS.replace('retries = 2', 'retries = 4'),
      'apps/api/src/app.ts': '',
    });
    const { sites } = run(`
      import { withRetry } from '@acme/http';
      import { withRetry as local } from '@/lib/retry';
      import { withRetry as missing } from '@/nowhere';
      withRetry(() => api.get('/a'), { retries: 6 });
      local(() => api.get('/b'));
      missing(() => api.get('/c'), { retries: 6 });
    `, { filename: at('apps/api/src/app.ts') });
    expect(sites.map((s) => [s.label, s.attempts])).toEqual([['withRetry()', 7], ['local()', 5]]);
  });

  it('parses an imported file once per version, and only for calls that pass a function', async () => {
    const at = project({ 'src/retry.ts': HELPER_TS, 'src/format.ts': 'export const format = (x: unknown) => String(x);\n' });
    const before = moduleCacheStats().parses;
    const first = run(`import { withRetry } from './retry.js'; import { format } from './format.js'; format(1); withRetry(() => load());`, { filename: at('src/app.ts') });
    expect(first.sites).toHaveLength(1);
    expect(moduleCacheStats().parses - before).toBe(1);
    // Every keystroke re-lints the caller: the helper is not parsed again.
    for (let i = 0; i < 5; i++) run(`import { withRetry } from './retry.js'; withRetry(() => load${i}(), { retries: ${i} });`, { filename: at('src/app.ts') });
    expect(moduleCacheStats().parses - before).toBe(1);
    // A changed helper is read again, once the last check of it is older than the freshness window.
    writeFileSync(at('src/retry.ts'), HELPER_TS.replace('retries = 2', 'retries = 4'));
    utimesSync(at('src/retry.ts'), new Date(), new Date(Date.now() + 5000));
    await new Promise((resolve) => setTimeout(resolve, FRESH_MS + 50));
    const changed = run(`import { withRetry } from './retry.js'; withRetry(() => load());`, { filename: at('src/app.ts') });
    expect(changed.sites[0]).toMatchObject({ attempts: 5 });
    expect(moduleCacheStats().parses - before).toBe(2);
    // No function passed: the import is not followed at all.
    run(`import { withRetry } from './retry.js'; withRetry(value);`, { filename: at('src/other.ts') });
    expect(moduleCacheStats().parses - before).toBe(2);
  });

  it('settles calls through a module an earlier file found without helpers, and sees the module once it offers one', async () => {
    // The module offers a plain function first; a later file passes it a function held in a const
    // (read only by evaluating it), and the module is then edited to make that name a retry helper.
    const plain = `export function withRetry<T>(fn: () => Promise<T>): Promise<T> { return fn(); }\nexport const noop = () => {};\n// retry later, catch nothing\n`;
    const at = project({ 'src/retry.ts': plain });
    const code = `import { withRetry } from './retry.js'; const job = () => load(); withRetry(job);`;
    expect(run(`import { withRetry } from './retry.js'; withRetry(() => load());`, { filename: at('src/first.ts') }).sites).toEqual([]);
    // The second file's call is settled by what the first found, before `job` is evaluated.
    const before = moduleCacheStats().settledUnread;
    expect(run(code, { filename: at('src/app.ts') }).sites).toEqual([]);
    expect(moduleCacheStats().settledUnread - before).toBe(1);
    writeFileSync(at('src/retry.ts'), HELPER_TS);
    utimesSync(at('src/retry.ts'), new Date(), new Date(Date.now() + 5000));
    await new Promise((resolve) => setTimeout(resolve, FRESH_MS + 50));
    const changed = run(code, { filename: at('src/app.ts') });
    expect(changed.sites.map((s) => [s.label, s.attempts])).toEqual([['withRetry()', 3]]);
  });

  it('reuses what linting a file found when the same run then imports it, never an editor\'s unsaved text', () => {
    const at = project({ 'src/retry.ts': HELPER_TS });
    const code = `import { withRetry } from './retry.js'; withRetry(() => load()); withRetry(() => save(), { retries: 9 });`;
    const alone = run(code, { filename: at('src/app.ts') });
    // A CLI run that lints the helper's file first: the import takes that file's summary, no parse.
    clearModuleCache();
    const before = moduleCacheStats();
    run(HELPER_TS, { filename: at('src/retry.ts') });
    const after = run(code, { filename: at('src/app.ts') });
    expect(after.sites).toEqual(alone.sites);
    expect(after.findings).toEqual(alone.findings);
    expect(moduleCacheStats().parses).toBe(before.parses);
    expect(moduleCacheStats().reuses).toBe(before.reuses + 1);
    // The helper's file open in an editor with unsaved changes: the import reads the file on disk.
    clearModuleCache();
    run(HELPER_TS.replace('retries = 2', 'retries = 4'), { filename: at('src/retry.ts') });
    const fromDisk = run(code, { filename: at('src/app.ts') });
    expect(fromDisk.sites).toEqual(alone.sites);
    expect(fromDisk.sites[0]).toMatchObject({ attempts: 3 });
    expect(moduleCacheStats().parses).toBe(before.parses + 1);
  });

  it('keeps the linted text only of files an import could take a helper from', () => {
    const plain = 'export const format = (x: unknown) => String(x);\n';
    const at = project({ 'src/retry.ts': HELPER_TS, 'src/format.ts': plain });
    clearModuleCache();
    // A file no helper hint matches is settled from the disk's text alone: nothing to remember.
    run(plain, { filename: at('src/format.ts') });
    expect(moduleCacheStats().remembered).toBe(0);
    run(HELPER_TS, { filename: at('src/retry.ts') });
    expect(moduleCacheStats().remembered).toBe(1);
    // An edit that takes the hint away forgets the earlier text.
    run('export const withRetry = (fn: () => unknown) => fn();\n', { filename: at('src/retry.ts') });
    expect(moduleCacheStats().remembered).toBe(0);
    // Calls into the plain file are settled without a parse, as before.
    const before = moduleCacheStats().parses;
    const { sites } = run(`import { format } from './format.js'; import { withRetry } from './retry.js'; format(() => 1); withRetry(() => load());`, { filename: at('src/app.ts') });
    expect(sites).toHaveLength(1);
    expect(moduleCacheStats().parses - before).toBe(1);
  });

  it('treats unreadable, unparsable and missing files as unknown, without throwing', () => {
    const at = project({ 'src/broken.ts': 'export async function withRetry(fn {{{ retry', 'src/folder/readme.md': '#' });
    const { sites, findings } = run(`
      import { withRetry } from './broken.js';
      import { other } from './missing.js';
      import { x } from './folder';
      withRetry(() => load(), { retries: 50 });
      other(() => load());
      x(() => load());
    `, { filename: at('src/app.ts') });
    expect(sites).toEqual([]);
    expect(findings).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('retries inside SDK clients', () => {
  it('sees the OpenAI client\'s own retries under an outer retry, and its attempt bound', () => {
    const { findings } = run(`
      import OpenAI from 'openai';
      import pRetry from 'p-retry';
      const openai = new OpenAI();
      export const ask = (q: string) => pRetry(() => openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: q }] }), { retries: 2, minTimeout: 200, randomize: true });
      export const eager = new OpenAI({ maxRetries: 10 });
    `);
    const nested = findings.find((f) => f.rule === 'no-nested-retry');
    expect(nested?.text).toMatch(/^openai\.chat\.completions\.create\(/);
    expect(nested?.message).toContain('3 x 3 = 9');
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'maxRetries: 10' }));
  });

  it('does the same for Stripe and Octokit clients', () => {
    const { findings } = run(`
      import Stripe from 'stripe';
      import { Octokit } from '@octokit/rest';
      import { retry } from '@octokit/plugin-retry';
      import pRetry from 'p-retry';
      const stripe = new Stripe(process.env.STRIPE_KEY);
      const octokit = new (Octokit.plugin(retry))({ auth });
      export const customer = (id: string) => pRetry(() => stripe.customers.retrieve(id), { retries: 2, minTimeout: 200, randomize: true });
      export const repo = () => pRetry(() => octokit.rest.repos.get({ owner, repo }), { retries: 2, minTimeout: 200, randomize: true });
      export const eager = new Stripe('sk', { maxNetworkRetries: 9 });
      export const gh = new (Octokit.plugin(retry))({ retry: { retries: 9 } });
    `);
    const nested = findings.filter((f) => f.rule === 'no-nested-retry').map((f) => f.message.match(/\d+ x \d+ = \d+/)?.[0]);
    expect(nested).toEqual(['3 x 3 = 9', '3 x 4 = 12']);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'maxNetworkRetries: 9' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'retries: 9' }));
  });

  it('does the same for AWS SDK clients', () => {
    const { findings } = run(`
      import { S3Client, GetObjectCommand } from '@aws-sdk/client-s3';
      import pRetry from 'p-retry';
      const s3 = new S3Client({});
      export const read = (Key: string) => pRetry(() => s3.send(new GetObjectCommand({ Bucket, Key })), { retries: 2, minTimeout: 200, randomize: true });
    `);
    expect(findings.find((f) => f.rule === 'no-nested-retry')?.message).toContain('3 x 3 = 9');
  });

  it('sees an SDK client retried through the team\'s helper in another file', () => {
    clearModuleCache();
    const at = project({ 'src/retry.ts': HELPER_TS });
    const { findings } = run(`
      import OpenAI from 'openai';
      import { withRetry } from './retry.js';
      const openai = new OpenAI();
      export const ask = (q: string) => withRetry(() => openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: q }] }));
    `, { filename: at('src/app.ts') });
    expect(findings.find((f) => f.rule === 'no-nested-retry')?.message).toMatch(/^withRetry\(\) retries .* 3 x 3 = 9/);
  });
});
