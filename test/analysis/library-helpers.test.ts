/**
 * Application retry helpers over a library (issues 13 and 14): a function whose body is a library
 * retry around a call of its own function parameter is a retry helper; each call of it is a site
 * with the library's options, judged at the call for what it passes.
 */
import { readFileSync } from 'node:fs';
import * as tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { beforeEach, describe, expect, it } from 'vitest';
import plugin from '../../src/index.js';
import { clearModuleCache } from '../../src/analysis/wrappers/index.js';
import { analyse, lint } from '../helpers/model.js';
import { temporaryProjects } from '../helpers/project.js';

/** Lints a file on disk with the recommended preset (files outside the working directory need cwd `/`). */
function lintFile(filename: string): { rule: string; line: number }[] {
  const linter = new Linter({ configType: 'flat', cwd: '/' });
  return linter.verify(readFileSync(filename, 'utf8'), [{
    files: ['**/*.ts'],
    plugins: { 'safe-retry': plugin as never },
    languageOptions: { parser: tsParser as never, ecmaVersion: 'latest', sourceType: 'module' },
    rules: plugin.configs.recommended.rules as never,
  }], filename).map((m) => ({ rule: (m.ruleId ?? '').replace('safe-retry/', ''), line: m.line }));
}

const at = (code: string, rule: string) => lint(code).filter((f) => f.rule === rule).map((f) => `${f.line} ${f.text}`);

describe('a library retry around a call of the function parameter', () => {
  // copilot-platforms/tasks-app's withRetry: fn and args separate parameters, fn(...args) inside a literal.
  const tasksApp = (options: string, calls: string) => `
    import pRetry from 'p-retry';
    import axios from 'axios';
    export const withRetry = async <T>(fn: (...args: any[]) => Promise<T>, args: any[]): Promise<T> => {
      return await pRetry(async () => {
        try {
          return await fn(...args);
        } catch (error) {
          console.warn('failed');
          throw error;
        }
      }, ${options});
    };
    ${calls}
  `;

  it('makes each call a site: a write passed in is reported at the call', () => {
    const code = tasksApp(`{ retries: 3, minTimeout: 500, factor: 2, randomize: true, shouldRetry: (e: any) => e.status >= 500 }`,
      `export const create = (body: unknown) => withRetry(() => axios.post('/clients', body), []);\nexport const get = (id: string) => withRetry(() => axios.get('/clients/' + id), []);`);
    const sites = analyse(code).filter((s) => s.library === 'wrapper:withRetry');
    expect(sites.map((s) => [s.line, s.attempts])).toEqual([[14, 4], [15, 4]]);
    expect(at(code, 'no-unsafe-write-retry')).toEqual(["14 axios.post('/clients', body)"]);
  });

  it('reports the helper\'s numbers once, in the helper, not at every call', () => {
    const code = tasksApp(`{ retries: 3, minTimeout: 500 }`,
      `export const a = () => withRetry(() => axios.get('/a'), []);\nexport const b = () => withRetry(() => axios.get('/b'), []);`);
    expect(at(code, 'require-jitter')).toEqual(['12 minTimeout: 500']);
    // The filter is the helper's (none), the 4xx are the operation's: shown at each call.
    expect(at(code, 'no-retry-on-client-error')).toEqual(['14 withRetry', '15 withRetry']);
  });

  it('stays silent on a compliant helper called with a read', () => {
    const code = tasksApp(`{ retries: 2, minTimeout: 200, factor: 2, randomize: true, maxTimeout: 1000, shouldRetry: (e: any) => e.status >= 500 || e.status === 429 }`,
      `export const get = (id: string) => withRetry(() => axios.get('/clients/' + id), []);`);
    expect(lint(code).filter((f) => f.rule !== 'no-legacy-retry')).toEqual([]);
  });

  it('reads `(fn) => pRetry(fn, ...)`: the retried parameter itself', () => {
    const code = `
      import pRetry from 'p-retry';
      export const withRetry = (fn: () => Promise<unknown>) => pRetry(fn, { retries: 2, randomize: true });
      declare const stripe: { charges: { create(o: object): Promise<unknown> } };
      export const charge = () => withRetry(() => stripe.charges.create({ amount: 1 }));
    `;
    expect(at(code, 'no-unsafe-write-retry')).toEqual(['5 stripe.charges.create({ amount: 1 })']);
  });

  it('reads an option the helper takes from its parameters with each call\'s value, at the call', () => {
    const code = `
      import pRetry from 'p-retry';
      function withRetry(fn: () => Promise<unknown>, retries = 2) {
        return pRetry(fn, { retries, randomize: true, maxTimeout: 1000 });
      }
      export const a = () => withRetry(() => fetch('/a'));
      export const b = () => withRetry(() => fetch('/b'), 9);
    `;
    const sites = analyse(code).filter((s) => s.library === 'wrapper:withRetry');
    expect(sites.map((s) => [s.line, s.attempts])).toEqual([[6, 3], [7, 10]]);
    expect(at(code, 'max-retry-attempts')).toEqual(['7 9']);
  });

  it('leaves a side call of a parameter alone: `log(...)` inside the retried function is no operation', () => {
    const code = `
      import pRetry from 'p-retry';
      export function getUser(id: string, log: (m: string) => void) {
        return pRetry(async () => { log('try'); const r = await fetch('/u/' + id); return r.json(); }, { retries: 2, randomize: true });
      }
      export const a = () => getUser('1', console.log);
    `;
    expect(analyse(code).filter((s) => s.library.startsWith('wrapper:'))).toEqual([]);
  });
});

describe('class fields that wrap methods by reference in a factory (tasks-app CopilotAPI)', () => {
  const api = (wrapper: string) => `
    import pRetry from 'p-retry';
    import { copilotApi } from 'copilot-node-sdk';
    const withRetry = (fn: (...a: any[]) => Promise<unknown>, args: any[]) => pRetry(() => fn(...args), { retries: 2, randomize: true, maxTimeout: 1000 });
    export class Api {
      copilot = copilotApi({ apiKey: 'k' });
      async _createClient(body: unknown) { return await this.copilot.createClient({ requestBody: body }); }
      async _getClient(id: string) { return await this.copilot.retrieveClient({ id }); }
      ${wrapper}
      createClient = this.wrapWithRetry(this._createClient);
      getClient = this.wrapWithRetry(this._getClient);
    }
  `;

  it('makes each call of the factory a site whose operation is the method handed over, reported there', () => {
    const code = api(`private wrapWithRetry<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
        return (...args: A): Promise<R> => withRetry(fn.bind(this), args);
      }`);
    const sites = analyse(code).filter((s) => s.library === 'wrapper:wrapWithRetry');
    expect(sites.map((s) => s.line)).toEqual([12, 13]);
    expect(at(code, 'no-unsafe-write-retry')).toEqual(['12 this._createClient']);
  });

  it('reads an arrow-bodied factory the same way, and a method handed over with bind', () => {
    const code = api(`wrapWithRetry = (fn: (...a: any[]) => Promise<unknown>) => (...args: unknown[]) => withRetry(fn.bind(this), args);
      direct = (b: unknown) => withRetry(this._createClient.bind(this), [b]);`);
    expect(at(code, 'no-unsafe-write-retry')).toEqual(['10 this._createClient.bind(this)', '11 this._createClient']);
  });

  it('shows a write made by a function handed over by name at the name, once per retry that repeats it', () => {
    const code = `
      import pRetry from 'p-retry';
      import axios from 'axios';
      async function createOrder() { return axios.post('/orders', {}); }
      export const a = () => pRetry(createOrder, { retries: 2, randomize: true });
      export const b = () => pRetry(createOrder, { retries: 2, randomize: true });
    `;
    expect(at(code, 'no-unsafe-write-retry')).toEqual(['5 createOrder', '6 createOrder']);
  });

  it('stays silent when the factory does not retry (a plain wrapper that logs)', () => {
    const code = api(`private wrapWithRetry<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
        return (...args: A): Promise<R> => { console.info('call'); return fn.apply(this, args); };
      }`);
    expect(at(code, 'no-unsafe-write-retry')).toEqual([]);
  });
});

describe('a filter function passed into a helper of the same file (posthog-js-lite retryCheck shape)', () => {
  const helper = (filter: string) => `
    import axios from 'axios';
    async function retriable<T>(fn: () => Promise<T>, props: { retryCount: number; retryDelay: number; retryCheck: (e: any) => boolean }): Promise<T> {
      let last: unknown = null;
      for (let i = 0; i < props.retryCount + 1; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, props.retryDelay * 2 ** i * Math.random()));
        try {
          return await fn();
        } catch (e) {
          last = e;
          if (!props.retryCheck(e)) throw e;
        }
      }
      throw last;
    }
    ${filter}
  `;

  it('reads a named function passed as the filter: it retries 404, reported at the call', () => {
    const code = helper(`function isRetryable(e: any) { return e.response?.status >= 500 || e.response?.status === 404; }
    export const get = () => retriable(() => axios.get('/a'), { retryCount: 2, retryDelay: 100, retryCheck: isRetryable });`);
    expect(at(code, 'no-retry-on-client-error')).toEqual(['17 retryCheck: isRetryable']);
  });

  it('stays silent on a filter function that bails on 4xx', () => {
    const code = helper(`function isRetryable(e: any) { const s = e.response?.status; return !s || s >= 500 || s === 429; }
    export const get = () => retriable(() => axios.get('/a'), { retryCount: 2, retryDelay: 100, retryCheck: isRetryable });`);
    expect(at(code, 'no-retry-on-client-error')).toEqual([]);
  });
});

describe('a library helper imported from another file', () => {
  const project = temporaryProjects('safe-retry-libhelper-');
  beforeEach(() => clearModuleCache());

  it('is followed across the import (the text names a retry module, with no catch in it)', () => {
    const file = project({
      'src/retry.ts': `import pRetry from 'p-retry';\nexport const withRetry = <T>(fn: () => Promise<T>) => pRetry(fn, { retries: 5 });\n`,
      'src/orders.ts': `import { withRetry } from './retry';\nimport axios from 'axios';\nexport const place = (o: unknown) => withRetry(() => axios.post('/orders', o));\nexport const list = () => withRetry(() => axios.get('/orders'));\n`,
    });
    const found = lintFile(file('src/orders.ts'));
    expect(found.filter((f) => f.rule === 'no-unsafe-write-retry').map((f) => f.line)).toEqual([3]);
    // The helper's own numbers (6 calls, no jitter) are reported in retry.ts, not here.
    expect(found.filter((f) => f.rule === 'max-retry-attempts' || f.rule === 'require-jitter')).toEqual([]);
  });
});
