/**
 * A retrier factory in another file of the project (kafkajs's `createRetry = require('../retry')`):
 * calls of the retrier an import's call returns, kept in an instance field set in the constructor or
 * in a const, are helper sites of this file. Real files, the recommended preset.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { clearModuleCache } from '../../src/analysis/wrappers/index.js';
import { temporaryProjects } from '../helpers/project.js';
import { lintAt as lintAtAs } from '../helpers/lint-at.js';
import { kafkajsRetrier } from '../helpers/kafkajs-retrier.js';

const project = temporaryProjects('safe-retry-factories-');

const lintAt = (code: string, filename: string): string[] => lintAtAs(code, filename, 'commonjs');

const RETRY = kafkajsRetrier('const RETRY_DEFAULT = { maxRetryTime: 30000, initialRetryTime: 300, factor: 0.2, multiplier: 2, retries: 5 }', { bail: true });

const CLUSTER = (made: string) => `
const createRetry = require('./retry')
module.exports = class Cluster {
  constructor({ retry, brokerPool }) {
    this.brokerPool = brokerPool
    this.retrier = ${made}
  }
  async metadata(topics) {
    return this.retrier(async (bail, retryCount) => {
      return this.brokerPool.metadata(topics)
    })
  }
}
`;

describe('a retrier made by a factory another file exports', () => {
  beforeEach(() => clearModuleCache());

  it('its defaults are judged in the factory\'s file, at the helper call the returned function makes with them', () => {
    const at = project({ 'src/retry.js': RETRY });
    // The first wait comes from start(...), the name the returned recursion is held under: about 20 s of waits.
    expect(lintAt(RETRY, at('src/retry.js'))).toEqual(['35 max-retry-attempts', '35 max-retry-duration']);
  });

  it('a count the factory call sets is the call\'s finding', () => {
    const code = CLUSTER('createRetry({ retries: 9 })');
    const at = project({ 'src/retry.js': RETRY, 'src/cluster.js': code });
    expect(lintAt(code, at('src/cluster.js'))).toContain('6 max-retry-attempts');
  });

  it('options the class is given may override the count: unknown, so silent at the calls', () => {
    const code = CLUSTER('createRetry(retry)');
    const at = project({ 'src/retry.js': RETRY, 'src/cluster.js': code });
    expect(lintAt(code, at('src/cluster.js'))).toEqual([]);
  });

  it('an import whose call result is not a retrier stays silent', () => {
    const code = `
const createRetry = require('./retry')
const parse = require('./parse')
const p = parse({ retries: 9 })
module.exports = () => p(() => fetch('/a'))
`;
    const at = project({ 'src/retry.js': RETRY, 'src/parse.js': 'module.exports = (o) => (f) => f(o)', 'src/use.js': code });
    expect(lintAt(code, at('src/use.js'))).toEqual([]);
  });
});
