/**
 * Per-attempt timeouts written in a request's config (axios `timeout`), and class fields read
 * through a constructor parameter typed as a class of the project (issue 14: options that travel).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { clearModuleCache } from '../../src/analysis/wrappers/index.js';
import { analyse, lint } from '../helpers/model.js';
import { lintAt } from '../helpers/lint-at.js';
import { temporaryProjects } from '../helpers/project.js';

const LOOP = (config: string, extra = '') => `
import axios from 'axios';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export async function load(url: string, { skipTimeout = false }: { skipTimeout?: boolean } = {}) {
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      const options: any = ${config};
      ${extra}
      return await axios(options);
    } catch (e) {
      if (attempt === 3) throw e;
      await sleep(100 * 2 ** attempt * Math.random());
    }
  }
}
`;

describe('the retried request\'s own timeout', () => {
  it('a timeout in the config literal is each attempt\'s: three 10 s attempts are over the budget', () => {
    const code = LOOP('{ url, method: "get", timeout: 10000 }');
    expect(analyse(code)[0]).toMatchObject({ attempts: 3, attemptTimeoutMs: 10000 });
    expect(lint(code).map((f) => f.rule)).toContain('max-retry-duration');
  });

  it('a config with no timeout says nothing: silent', () => {
    const code = LOOP('{ url, method: "get" }');
    expect(analyse(code)[0]).toMatchObject({ attempts: 3, attemptTimeoutMs: undefined });
    expect(lint(code).map((f) => f.rule)).not.toContain('max-retry-duration');
  });

  it('a write after the literal under an if read with the code\'s defaults applies', () => {
    const code = LOOP('{ url, method: "get" }', 'if (skipTimeout !== true) { options.timeout = 5 * 1000; }');
    expect(analyse(code)[0]).toMatchObject({ attemptTimeoutMs: 5000 });
    expect(lint(code).map((f) => f.rule)).toContain('max-retry-duration');
    // The branch the defaults do not take leaves the literal's (none).
    const skipped = LOOP('{ url, method: "get" }', 'if (skipTimeout === true) { options.timeout = 5000; }');
    expect(analyse(skipped)[0]).toMatchObject({ attemptTimeoutMs: undefined });
  });

  it('look-alikes stay unknown: a condition not known, a config handed to another call, two writes', () => {
    const unknownCondition = LOOP('{ url, method: "get" }', 'if ((globalThis as any).slow) { options.timeout = 60000; }');
    expect(analyse(unknownCondition)[0]).toMatchObject({ attemptTimeoutMs: undefined });
    const escapes = LOOP('{ url, method: "get", timeout: 10000 }', 'prepare(options);');
    expect(analyse(escapes)[0]).toMatchObject({ attemptTimeoutMs: undefined });
    expect(lint(escapes).map((f) => f.rule)).not.toContain('max-retry-duration');
    const twice = LOOP('{ url, method: "get" }', 'options.timeout = 10000; options.timeout = 100;');
    expect(analyse(twice)[0]).toMatchObject({ attemptTimeoutMs: undefined });
  });

  it('axios.get(url, config) and axios.post(url, data, config) take the config in their own place', () => {
    expect(analyse(LOOP('{ timeout: 10000 }').replace('axios(options)', 'axios.get(url, options)'))[0]).toMatchObject({ attemptTimeoutMs: 10000 });
    // The body of a post is not its config.
    expect(analyse(LOOP('{ timeout: 10000 }').replace('axios(options)', 'axios.post(url, options)'))[0]).toMatchObject({ attemptTimeoutMs: undefined });
    expect(analyse(LOOP('{ timeout: 10000 }').replace('axios(options)', 'axios.post(url, {}, options)'))[0]).toMatchObject({ attemptTimeoutMs: 10000 });
  });

  it('an instance made here with a timeout: its requests carry it unless their config sets another', () => {
    const viaInstance = (create: string, send: string, extra = '') => LOOP('{ url }', extra)
      .replace("import axios from 'axios';", `import axios from 'axios';\nconst api = axios.create(${create});`)
      .replace('axios(options)', send);
    expect(analyse(viaInstance('{ timeout: 8000 }', 'api.get(url)'))[0]).toMatchObject({ attemptTimeoutMs: 8000 });
    expect(lint(viaInstance('{ timeout: 8000 }', 'api.get(url)')).map((f) => f.rule)).toContain('max-retry-duration');
    expect(analyse(viaInstance('{ timeout: 8000 }', 'api.get(url, { timeout: 1000 })'))[0]).toMatchObject({ attemptTimeoutMs: 1000 });
    expect(analyse(viaInstance('{ baseURL: "/x" }', 'api.get(url)'))[0]).toMatchObject({ attemptTimeoutMs: undefined });
    // The instance's defaults written again elsewhere: not known.
    expect(analyse(viaInstance('{ timeout: 8000 }', 'api.get(url)', 'api.defaults.timeout = 100;'))[0]).toMatchObject({ attemptTimeoutMs: undefined });
  });

  it('a client that is not axios is not read for an axios option', () => {
    const code = LOOP('{ url, timeout: 10000 }').replace("import axios from 'axios';", "import axios from './my-client';");
    expect(analyse(code)[0]).toMatchObject({ attemptTimeoutMs: undefined });
  });
});

const INTERCEPTED = (timeout: string, sender = 'this.axios(options)') => `
import axios, { AxiosInstance, AxiosResponse } from 'axios';
function handler(axios: AxiosInstance, maxRetries: number) {
  return function (res: AxiosResponse) {
    const config: any = res.config;
    if (res.status !== 429) return res;
    const retryCount = (config.retryCount || 0) + 1;
    if (retryCount <= maxRetries) {
      config.retryCount = retryCount;
      const delay = Math.floor(Math.min(3000, 100 * Math.pow(2, retryCount)) * Math.random());
      return new Promise((resolve) => { setTimeout(() => resolve(axios(config)), delay); });
    }
    return res;
  };
}
export class Client {
  axios: AxiosInstance;
  defaultTimeout: number;
  constructor(opts: { timeout?: number } = {}) {
    this.defaultTimeout = opts.timeout || 30000;
    this.axios = axios.create();
    this.axios.interceptors.response.use(handler(this.axios, 3));
  }
  request(opts: { uri: string; timeout?: number }) {
    const options = { url: opts.uri, ${timeout} };
    return ${sender};
  }
}
`;

describe('an interceptor re-send carries the timeout of the request that failed', () => {
  it('the requests the class sends through the intercepted instance set 30 s by default: four of them are minutes', () => {
    const code = INTERCEPTED('timeout: opts.timeout || this.defaultTimeout');
    expect(analyse(code)[0]).toMatchObject({ attempts: 4, attemptTimeoutMs: 30000 });
    expect(lint(code).map((f) => f.rule)).toContain('max-retry-duration');
  });

  it('requests without a timeout, or sent through another client, say nothing', () => {
    expect(analyse(INTERCEPTED('method: "get"'))[0]).toMatchObject({ attemptTimeoutMs: undefined });
    const other = INTERCEPTED('timeout: 30000', 'axios.request(options)');
    expect(analyse(other)[0]).toMatchObject({ attemptTimeoutMs: undefined });
    expect(lint(other).map((f) => f.rule)).not.toContain('max-retry-duration');
  });

  it('a timeout the caller passes with no default stays unknown', () => {
    expect(analyse(INTERCEPTED('timeout: opts.timeout'))[0]).toMatchObject({ attemptTimeoutMs: undefined });
  });
});

const CONFIGURATION = `
export default class Configuration {
  readonly numRetries: number;
  readonly retryIntervalSeconds: number;
  constructor(options: { numRetries?: number; retryIntervalSeconds?: number }) {
    this.numRetries = options.numRetries ?? 8;
    this.retryIntervalSeconds = options.retryIntervalSeconds || 0.1;
  }
}
`;

const API_CALL = (typeImport: string, type = 'Configuration') => `
${typeImport}
const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));
export class ApiCall {
  private numRetriesPerRequest: number;
  private retryIntervalSeconds: number;
  constructor(private configuration: ${type}) {
    this.numRetriesPerRequest = this.configuration.numRetries;
    this.retryIntervalSeconds = this.configuration.retryIntervalSeconds;
  }
  async perform(send: () => Promise<unknown>) {
    for (let numTries = 1; numTries <= this.numRetriesPerRequest + 1; numTries++) {
      try {
        return await send();
      } catch (e) {
        if (numTries === this.numRetriesPerRequest + 1) throw e;
        await sleep(this.retryIntervalSeconds);
      }
    }
  }
}
`;

describe('a field read through a constructor parameter typed as a class', () => {
  const project = temporaryProjects('safe-retry-typed-fields-');
  beforeEach(() => clearModuleCache());

  it('a class of the same file: its own defaults (9 calls)', () => {
    const code = `${CONFIGURATION.replace('export default class', 'class')}\n${API_CALL('')}`;
    expect(analyse(code)[0]).toMatchObject({ attempts: 9 });
    expect(lint(code).map((f) => f.rule)).toContain('max-retry-attempts');
  });

  it('a class another file exports: read there, with its defaults', () => {
    const code = API_CALL("import Configuration from './Configuration';");
    const at = project({ 'src/Configuration.ts': CONFIGURATION, 'src/ApiCall.ts': code });
    expect(lintAt(code, at('src/ApiCall.ts'))).toContain('12 max-retry-attempts');
  });

  it('look-alikes stay unknown: an interface type, an option without a default, an untyped parameter', () => {
    const iface = `interface Configuration { numRetries: number; retryIntervalSeconds: number }\n${API_CALL('')}`;
    expect(analyse(iface)[0]).toMatchObject({ attempts: 'unknown' });
    const noDefault = `${CONFIGURATION.replace('export default class', 'class').replace('options.numRetries ?? 8', 'options.numRetries')}\n${API_CALL('')}`;
    expect(analyse(noDefault)[0]).toMatchObject({ attempts: 'unknown' });
    const untyped = `${CONFIGURATION.replace('export default class', 'class')}\n${API_CALL('', 'any')}`;
    expect(analyse(untyped)[0]).toMatchObject({ attempts: 'unknown' });
    expect(lint(untyped).map((f) => f.rule)).not.toContain('max-retry-attempts');
  });
});
