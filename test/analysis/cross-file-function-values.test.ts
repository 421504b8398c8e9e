/**
 * A function a caller passes to a retry helper of another file (a `retryCheck` filter) is carried
 * with its own file's evaluator: the helper asks it per status where it calls it in a condition.
 * A helper that calls a passed function for its effect (which may throw to stop) stays unknown.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { clearModuleCache } from '../../src/analysis/wrappers/index.js';
import { temporaryProjects } from '../helpers/project.js';
import { lintAt } from '../helpers/lint-at.js';

const project = temporaryProjects('safe-retry-fn-values-');

const RETRIABLE = `
export async function retriable(fn, props) {
  let lastError = null;
  for (let i = 0; i < props.retryCount + 1; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, props.retryDelay * 2 ** i * Math.random()));
    try {
      return await fn();
    } catch (e) {
      lastError = e;
      if (!props.retryCheck(e)) throw e;
    }
  }
  throw lastError;
}
`;

const clientErrors = (code: string, at: string) => lintAt(code, at).filter((f) => f.endsWith('no-retry-on-client-error'));

describe('a function value carried into a helper of another file', () => {
  beforeEach(() => clearModuleCache());

  it('is evaluated in its own file, per status, where the helper tests it', () => {
    const at = project({ 'lib/retriable.js': RETRIABLE, 'app/a.ts': '' });
    expect(clientErrors(`
      import axios from 'axios';
      import { retriable } from '../lib/retriable.js';
      const LIMIT = 500;
      const only5xx = (err) => err.response?.status >= LIMIT;
      function everything() { return true; }
      export const a = () => retriable(() => axios.get('/a'), { retryCount: 2, retryDelay: 300, retryCheck: (err) => err.response?.status !== 401 });
      export const b = () => retriable(() => axios.get('/b'), { retryCount: 2, retryDelay: 300, retryCheck: only5xx });
      export const c = () => retriable(() => axios.get('/c'), { retryCount: 2, retryDelay: 300, retryCheck: everything });
      export const d = (check) => retriable(() => axios.get('/d'), { retryCount: 2, retryDelay: 300, retryCheck: check });
    `, at('app/a.ts'))).toEqual(['7 no-retry-on-client-error', '9 no-retry-on-client-error']);
  });

  it('stays unknown where the helper calls a passed function for its effect', () => {
    const at = project({
      'lib/retrying.js': `
        export async function retrying(input, options = {}) {
          for (let attempt = 0; attempt < 3; attempt++) {
            try {
              return await input(attempt);
            } catch (error) {
              await options.onFailedAttempt({ error, attempt });
              if (!options.shouldRetry(error)) throw error;
              await new Promise((r) => setTimeout(r, Math.random() * 100 * 2 ** attempt));
            }
          }
        }
      `,
      'app/b.ts': '',
    });
    expect(clientErrors(`
      import axios from 'axios';
      import { retrying } from '../lib/retrying.js';
      const stop = ({ error }) => { if (error.response?.status < 500) throw error; };
      export const a = () => retrying(() => axios.get('/a'), { onFailedAttempt: stop, shouldRetry: () => true });
    `, at('app/b.ts'))).toEqual([]);
  });

  it('stays unknown where the helper uses a passed function\'s value other than in a condition', () => {
    const at = project({
      'lib/kept.js': `
        function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }
        export async function kept(input, options = {}) {
          for (let attempt = 0; attempt < 3; attempt++) {
            try {
              return await input(attempt);
            } catch (error) {
              const note = await options.onFailedAttempt(error);
              await sleep(Math.random() * 100 * 2 ** attempt);
            }
          }
        }
        export async function delayed(input, options = {}) {
          for (let attempt = 0; attempt < 3; attempt++) {
            try {
              return await input(attempt);
            } catch (error) {
              await sleep(options.delay(error, attempt));
            }
          }
        }
      `,
      'app/k.ts': '',
    });
    // Either function may throw on a 4xx to stop the retry; a count and a local sleep alone are no filter.
    expect(clientErrors(`
      import axios from 'axios';
      import { kept, delayed } from '../lib/kept.js';
      const stop = (error) => { if (error.response?.status < 500) throw error; };
      export const a = () => kept(() => axios.get('/a'), { onFailedAttempt: stop });
      export const b = () => delayed(() => axios.get('/b'), { delay: (error, n) => { if (error.response?.status < 500) throw error; return 100 * 2 ** n; } });
      export const c = () => kept(() => axios.get('/c'));
    `, at('app/k.ts'))).toEqual(['7 no-retry-on-client-error']);
  });

  it('keeps functions of two files at the same place apart', () => {
    const at = project({ 'lib/retriable.js': RETRIABLE, 'app/c.ts': '', 'app/d.ts': '' });
    const code = (body: string) => `import axios from 'axios';\nimport { retriable } from '../lib/retriable.js';\nexport const a = () => retriable(() => axios.get('/a'), { retryCount: 2, retryDelay: 300, retryCheck: ${body} });\n`;
    expect(clientErrors(code('(e) => e.response?.status >= 500'), at('app/c.ts'))).toEqual([]);
    expect(clientErrors(code('(e) => e.response?.status >= 400'), at('app/d.ts'))).toEqual(['3 no-retry-on-client-error']);
  });

  it('decides err instanceof C for the classes the operation passed with it throws', () => {
    const at = project({ 'lib/retriable.js': RETRIABLE, 'app/e.ts': '' });
    expect(clientErrors(`
      import { retriable } from '../lib/retriable.js';
      class HttpError extends Error { constructor(res) { super('http'); this.response = res; } get status() { return this.response.status; } }
      class ServerError extends Error {}
      class NetworkError extends Error {}
      const isFetchError = (err) => typeof err === 'object' && (err instanceof HttpError || err instanceof NetworkError);
      async function serverOnly(url) {
        let res = null;
        try { res = await fetch(url); } catch (e) { throw new NetworkError(); }
        if (res.status >= 500) throw new ServerError();
        return res;
      }
      export const a = (url) => retriable(async () => {
        let res = null;
        try { res = await fetch(url); } catch (e) { throw new NetworkError(); }
        if (res.status >= 400) throw new HttpError(res);
        return res;
      }, { retryCount: 2, retryDelay: 300, retryCheck: isFetchError });
      export const b = (url) => retriable(() => serverOnly(url), { retryCount: 2, retryDelay: 300, retryCheck: (err) => err instanceof ServerError || err instanceof NetworkError });
      export const c = (url) => retriable(async () => {
        let res = null;
        try { res = await fetch(url); } catch (e) { throw new NetworkError(); }
        if (res.status >= 400) throw new HttpError(res);
        return res;
      }, { retryCount: 2, retryDelay: 300, retryCheck: (err) => err instanceof NetworkError });
    `, at('app/e.ts'))).toEqual(['18 no-retry-on-client-error']);
  });

  it('reads a delay function passed to a helper of another file too', () => {
    const at = project({
      'lib/plain.js': `
        function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }
        export async function plain(input, options = {}) {
          for (let attempt = 0; attempt < 3; attempt++) {
            try {
              return await input(attempt);
            } catch (error) {
              await sleep(options.delay(attempt));
            }
          }
        }
      `,
      'app/p.ts': '',
    });
    const findings = lintAt(`
      import { plain } from '../lib/plain.js';
      export const a = () => plain(() => load('/a'), { delay: () => 1000 });
      export const b = () => plain(() => load('/b'), { delay: (n) => Math.random() * 100 * 2 ** n });
    `, at('app/p.ts')).filter((f) => /backoff|jitter/.test(f));
    expect(findings).toEqual(['3 require-exponential-backoff', '3 require-jitter']);
  });
});
