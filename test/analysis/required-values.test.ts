/**
 * Values another file of the project exports, read by the evaluator: an object a CommonJS file
 * `require`s (kafkajs's retry defaults) or an ES module imports, handed over as plain data; and
 * the one fact about the environment it assumes, that production is not a test run, so a
 * configuration chosen by `process.env.NODE_ENV === 'test'` is read as the one users get.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { clearModuleCache } from '../../src/analysis/wrappers/index.js';
import { temporaryProjects } from '../helpers/project.js';
import { lintAt } from '../helpers/lint-at.js';
import { kafkajsRetrier } from '../helpers/kafkajs-retrier.js';

const project = temporaryProjects('safe-retry-required-');

const DEFAULTS = 'module.exports = {\n  retries: 9, // max retries\n  minTimeout: 1000,\n}\n';
const TEST_DEFAULTS = 'module.exports = {\n  retries: 0,\n  minTimeout: 1,\n}\n';

/** A retry whose options come from a defaults object picked by `pick`. */
const retryWith = (pick: string) => `
const pRetry = require('p-retry');
${pick}
async function load(url) {
  return pRetry(() => fetch(url), { retries: RETRY_DEFAULT.retries, minTimeout: RETRY_DEFAULT.minTimeout });
}
module.exports = { load };
`;

const attemptsFindings = (findings: string[]) => findings.filter((f) => f.endsWith('max-retry-attempts'));

describe('an object required from another file', () => {
  beforeEach(() => clearModuleCache());

  it('is read where the test-mode check picks the production defaults', () => {
    const at = project({ 'retry/defaults.js': DEFAULTS, 'retry/defaults.test.js': TEST_DEFAULTS, 'retry/index.js': '' });
    const code = retryWith(`const isTestMode = process.env.NODE_ENV === 'test'
const RETRY_DEFAULT = isTestMode ? require('./defaults.test') : require('./defaults')`);
    expect(attemptsFindings(lintAt(code, at('retry/index.js'), 'commonjs'))).toEqual(['6 max-retry-attempts']);
  });

  it('reads the test-mode check either way round, and a test runner flag as unset', () => {
    const at = project({ 'retry/defaults.js': DEFAULTS, 'retry/defaults.test.js': TEST_DEFAULTS, 'retry/a.js': '', 'retry/b.js': '', 'retry/f.js': '' });
    const flipped = retryWith(`const RETRY_DEFAULT = 'test' !== process.env.NODE_ENV ? require('./defaults') : require('./defaults.test')`);
    expect(attemptsFindings(lintAt(flipped, at('retry/a.js'), 'commonjs'))).toEqual(['5 max-retry-attempts']);
    const jest = retryWith(`const RETRY_DEFAULT = process.env.JEST_WORKER_ID ? require('./defaults.test') : require('./defaults')`);
    expect(attemptsFindings(lintAt(jest, at('retry/b.js'), 'commonjs'))).toEqual(['5 max-retry-attempts']);
    const bracket = retryWith(`const RETRY_DEFAULT = process.env['NODE_ENV'] === 'test' ? require('./defaults.test') : require('./defaults')`);
    expect(attemptsFindings(lintAt(bracket, at('retry/f.js'), 'commonjs'))).toEqual(['5 max-retry-attempts']);
  });

  it('stays unknown where another environment variable picks, or the required file is no object of the project', () => {
    const at = project({ 'retry/defaults.js': DEFAULTS, 'retry/defaults.test.js': TEST_DEFAULTS, 'retry/c.js': '', 'retry/d.js': '', 'retry/e.js': '' });
    // Production or development is the deployment's choice, not a test run: either may hold.
    const production = retryWith(`const RETRY_DEFAULT = process.env.NODE_ENV === 'production' ? require('./defaults') : require('./defaults.test')`);
    expect(attemptsFindings(lintAt(production, at('retry/c.js'), 'commonjs'))).toEqual([]);
    const region = retryWith(`const RETRY_DEFAULT = process.env.REGION === 'test' ? require('./defaults.test') : require('./defaults')`);
    expect(attemptsFindings(lintAt(region, at('retry/d.js'), 'commonjs'))).toEqual([]);
    const missing = retryWith(`const RETRY_DEFAULT = require('./nowhere')`);
    expect(attemptsFindings(lintAt(missing, at('retry/e.js'), 'commonjs'))).toEqual([]);
  });

  it('reads a destructured require and an exports.x assignment', () => {
    const at = project({ 'lib/limits.js': 'exports.RETRIES = 7;\nexports.label = "x";\n', 'lib/use.js': '' });
    const code = `
const pRetry = require('p-retry');
const { RETRIES } = require('./limits');
async function load(url) {
  return pRetry(() => fetch(url), { retries: RETRIES });
}
module.exports = { load };
`;
    expect(attemptsFindings(lintAt(code, at('lib/use.js'), 'commonjs'))).toEqual(['5 max-retry-attempts']);
  });
});

describe('a constant an ES module imports', () => {
  beforeEach(() => clearModuleCache());

  it('is read from the file that exports it, and a namespace import or a package stays unknown', () => {
    const at = project({ 'src/policy.ts': 'export const RETRY = { retries: 8, factor: 2 };\nexport default { retries: 6 };\n', 'src/use.ts': '', 'src/other.ts': '' });
    const named = `
import pRetry from 'p-retry';
import { RETRY } from './policy';
import FALLBACK from './policy';
export const load = (url: string) => pRetry(() => fetch(url), { retries: RETRY.retries });
export const again = (url: string) => pRetry(() => fetch(url), { retries: FALLBACK.retries });
`;
    expect(attemptsFindings(lintAt(named, at('src/use.ts')))).toEqual(['5 max-retry-attempts', '6 max-retry-attempts']);
    const unknown = `
import pRetry from 'p-retry';
import * as policy from './policy';
import { RETRY } from 'some-package';
export const load = (url: string) => pRetry(() => fetch(url), { retries: policy.RETRY.retries });
export const again = (url: string) => pRetry(() => fetch(url), { retries: RETRY.retries });
// A namespace is not the default export: it has no member \`retries\`.
export const third = (url: string) => pRetry(() => fetch(url), { retries: policy.retries });
`;
    expect(attemptsFindings(lintAt(unknown, at('src/other.ts')))).toEqual([]);
  });

  it('hands an array over as data (the statuses a fetch-retry policy lists)', () => {
    const at = project({ 'src/policy.ts': 'export const POLICY = { retries: 2, retryOn: [404, 503] };\n', 'src/use.ts': '' });
    const code = `
import fetchBuilder from 'fetch-retry';
import { POLICY } from './policy';
export const f = fetchBuilder(fetch, { retries: POLICY.retries, retryDelay: (n: number) => 2 ** n * 1000, retryOn: POLICY.retryOn });
`;
    expect(lintAt(code, at('src/use.ts'))).toContain('4 no-retry-on-client-error');
  });
});

const RETRIER = kafkajsRetrier(`const isTestMode = process.env.NODE_ENV === 'test'
const RETRY_DEFAULT = isTestMode ? require('./defaults.test') : require('./defaults')`);
const KAFKA_DEFAULTS = 'module.exports = {\n  maxRetryTime: 30 * 1000,\n  initialRetryTime: 300,\n  factor: 0.2,\n  multiplier: 2,\n  retries: 5,\n}\n';
const KAFKA_TEST_DEFAULTS = 'module.exports = {\n  maxRetryTime: 1000,\n  initialRetryTime: 50,\n  factor: 0.02,\n  multiplier: 1.5,\n  retries: 15,\n}\n';

describe('a recursion started through the name a caller holds it under', () => {
  beforeEach(() => clearModuleCache());

  it('takes its first wait from that call, and reads the production defaults required from another file', () => {
    const at = project({ 'retry/defaults.js': KAFKA_DEFAULTS, 'retry/defaults.test.js': KAFKA_TEST_DEFAULTS, 'retry/index.js': '' });
    // 6 calls; waits at most 360 ms, then x2.4 each (x2 on a value up to 20% above the last), capped at 30 s: about 20 s.
    expect(lintAt(RETRIER, at('retry/index.js'), 'commonjs')).toEqual(['30 max-retry-attempts', '30 max-retry-duration']);
  });

  it('stays silent on the waits where the first call passes what it cannot read', () => {
    const at = project({ 'retry/defaults.js': KAFKA_DEFAULTS, 'retry/defaults.test.js': KAFKA_TEST_DEFAULTS, 'retry/other.js': '' });
    const code = RETRIER.replace('start(randomFromRetryTime(configs.factor, configs.initialRetryTime))', 'start(readFirstWait())');
    expect(lintAt(code, at('retry/other.js'), 'commonjs').filter((f) => f.endsWith('max-retry-duration'))).toEqual([]);
  });
});
