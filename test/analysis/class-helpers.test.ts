import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

/**
 * Retry helpers that are class methods (issue 14 item 3): a method whose body is a retry is a
 * helper like a function, and `this.method(...)` / `instance.method(...)` calls of it are sites.
 */
const client = (more = '') => `
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  export class Api {
    async request(url: string, tries = 3) {
      for (let i = 1; ; i++) {
        try {
          return await fetch(url);
        } catch (error) {
          if (i >= tries) throw error;
          await sleep(500 * 2 ** i * Math.random());
        }
      }
    }
    listOrders() {
      return this.request('/orders');
    }
    listUsers = () => this.request('/users', 9);
  }
  ${more}
`;
const helperCalls = (code: string) => analyse(code).filter((s) => s.library === 'wrapper:request').map((s) => [s.operation, s.attempts]);

describe('class methods as retry helpers', () => {
  it('makes each this.method() call a site, read with what the call passes', () => {
    expect(helperCalls(client())).toEqual([["this.request('/orders')", 3], ["this.request('/users', 9)", 9]]);
  });

  it('follows calls on an instance the file builds, and an arrow held in an instance field', () => {
    const code = client(`
      const api = new Api();
      export const one = () => api.request('/one', 2);
      export class Jobs {
        private send = async (body: string) => {
          for (let n = 0; n < 4; n++) {
            try { return await fetch('/jobs', { body }); } catch { await sleep(1000); }
          }
        };
        run() { return this.send('x'); }
      }
    `);
    expect(helperCalls(code)).toContainEqual(["api.request('/one', 2)", 2]);
    expect(analyse(code).filter((s) => s.library === 'wrapper:send').map((s) => s.operation)).toEqual(["this.send('x')"]);
  });

  it('reports a count a call raises at the call, and a helper call inside another retry as nested', () => {
    const code = client(`
      import pRetry from 'p-retry';
      const api = new Api();
      export const deep = () => api.request('/deep', 12);
      export const nested = () => pRetry(() => api.request('/n'), { retries: 2, randomize: true });
    `);
    const findings = lint(code).map((f) => `${f.rule} ${f.line}`);
    // Line 17 is the field arrow passing 9; 22 passes 12; 23 runs the helper inside p-retry.
    expect(findings).toEqual(expect.arrayContaining(['max-retry-attempts 17', 'max-retry-attempts 22', 'no-nested-retry 23']));
  });

  it('does not take a same-named method of another class, a receiver it cannot see, or a static method (look-alikes)', () => {
    const code = client(`
      class Other { request(url: string, n?: number) { return fetch(url); } }
      const other = new Other();
      export const a = () => other.request('/a', 20);
      export const b = (api: Api) => api.request('/b', 20);
      export class Sub extends Api { go() { return this.request('/c', 20); } }
      export class Util {
        static async poll(url: string) {
          for (let i = 0; i < 3; i++) { try { return await fetch(url); } catch { await sleep(100); } }
        }
        static go() { return Util.poll('/d'); }
      }
    `);
    const ops = analyse(code).filter((s) => s.library.startsWith('wrapper:')).map((s) => s.operation);
    expect(ops).toEqual(["this.request('/orders')", "this.request('/users', 9)"]);
  });

  it('judges a recursive method helper once, in the method, when every caller passes the same starting counter', () => {
    const code = `
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      export class Client {
        private async again(request: (a: string) => Promise<unknown>, arg: string, counter: number): Promise<unknown> {
          try {
            return await request(arg);
          } catch (error: any) {
            if (error.response?.status === 429 && counter < 7) {
              await sleep(1000 * counter);
              return this.again(request, arg, counter + 1);
            }
            throw error;
          }
        }
        a() { return this.again((x) => fetch(x), '/a', 0); }
        b() { return this.again((x) => fetch(x), '/b', 0); }
      }
    `;
    const lines = lint(code).filter((f) => f.rule === 'require-jitter' || f.rule === 'require-exponential-backoff').map((f) => f.line);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toBeLessThan(15);
  });
});

/**
 * Helpers over helpers: a method or function that calls a retry helper with options built from its
 * own parameters (and a class field of defaults) is a helper too, its own site read with its
 * parameters left out, each call read with what it passes.
 */
describe('helpers that call a helper with their own parameters', () => {
  const retriable = `
    async function retriable<T>(fn: () => Promise<T>, props: { retryCount: number; retryDelay: number }): Promise<T> {
      let lastError: unknown;
      for (let i = 0; i < props.retryCount + 1; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, props.retryDelay));
        try {
          return await fn();
        } catch (e) {
          lastError = e;
        }
      }
      throw lastError;
    }
  `;
  const sdk = (more = '') => `
    ${retriable}
    export class Sdk {
      private retryOptions: { retryCount: number; retryDelay: number };
      constructor(options?: { fetchRetryCount?: number; fetchRetryDelay?: number }) {
        this.retryOptions = { retryCount: options?.fetchRetryCount ?? 3, retryDelay: options?.fetchRetryDelay ?? 3000 };
      }
      private fetchWithRetry(url: string, retryOptions?: Partial<{ retryCount: number; retryDelay: number }>) {
        return retriable(() => fetch(url), { ...this.retryOptions, ...retryOptions });
      }
      flags() { return this.fetchWithRetry('/flags', { retryCount: 0 }); }
      surveys() { return this.fetchWithRetry('/surveys'); }
      batch() { return this.fetchWithRetry('/batch', { retryCount: 12 }); }
      ${more}
    }
  `;

  it('reads the method with its parameters left out (the field defaults) and each call with what it passes', () => {
    const sites = analyse(sdk());
    expect(sites.filter((s) => s.library === 'wrapper:retriable').map((s) => [s.attempts, s.growth, s.initialMs])).toEqual([[4, 'constant', 3000]]);
    expect(sites.filter((s) => s.library === 'wrapper:fetchWithRetry').map((s) => [s.operation, s.attempts])).toEqual([
      ["this.fetchWithRetry('/flags', { retryCount: 0 })", 1],
      ["this.fetchWithRetry('/surveys')", 4],
      ["this.fetchWithRetry('/batch', { retryCount: 12 })", 13],
    ]);
  });

  it('judges the defaults once, in the method, and what a call raises at the call', () => {
    const findings = lint(sdk()).map((f) => `${f.rule} ${f.line}`);
    // retriable() waits the same props.retryDelay before every retry whatever a caller passes, so
    // backoff and jitter are reported once, at that wait in the helper (line 6), where the fix goes;
    // the 9 s of waits at the helper call in the method (22); 13 attempts where batch() asks for them (26).
    expect(findings.filter((f) => f.startsWith('require-jitter'))).toEqual(['require-jitter 6']);
    expect(findings.filter((f) => f.startsWith('require-exponential-backoff'))).toEqual(['require-exponential-backoff 6']);
    expect(findings).toEqual(expect.arrayContaining(['max-retry-duration 22', 'max-retry-attempts 26']));
    // flags() turns the retry off, surveys() adds nothing to the defaults.
    expect(findings.filter((f) => / 2[45]$/.test(f))).toEqual([]);
  });

  it('leaves a method whose helper call reads none of its parameters as a plain use (look-alike)', () => {
    const code = `
      ${retriable}
      export class Poller {
        check(url: string) { return retriable(() => fetch('/health'), { retryCount: 2, retryDelay: 100 }); }
        run() { return this.check('/x'); }
      }
    `;
    expect(analyse(code).filter((s) => s.library === 'wrapper:check')).toEqual([]);
  });

  it('leaves the defaults unknown when the field is set from an option without a default (look-alike)', () => {
    const code = sdk().replace('options?.fetchRetryCount ?? 3', 'options!.fetchRetryCount!');
    const own = analyse(code).filter((s) => s.library === 'wrapper:retriable');
    expect(own.map((s) => s.attempts)).toEqual(['unknown']);
    expect(lint(code).map((f) => `${f.rule} ${f.line}`)).not.toContain('max-retry-duration 22');
  });

  it('composes plain functions too', () => {
    const code = `
      ${retriable}
      function getWithRetry(url: string, opts?: { retryCount?: number }) {
        return retriable(() => fetch(url), { retryCount: 2, retryDelay: 200, ...opts });
      }
      export const a = () => getWithRetry('/a');
      export const b = () => getWithRetry('/b', { retryCount: 20 });
    `;
    expect(analyse(code).filter((s) => s.library === 'wrapper:getWithRetry').map((s) => s.attempts)).toEqual([3, 21]);
  });

  it('reads a required parameter as unknown in the defaults, not as left out', () => {
    // Shaped on @actions/http-client: the count depends on the verb every caller passes, so the
    // method read for its defaults must not take the verb as undefined (a count of 1, no retry).
    const code = `
      const RETRYABLE = ['GET', 'HEAD'];
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      export class Http {
        private allowRetries = true;
        private maxRetries = 3;
        get(url: string) { return this.request('GET', url); }
        post(url: string) { return this.request('POST', url); }
        async request(verb: string, url: string) {
          const maxTries = this.allowRetries && RETRYABLE.includes(verb) ? this.maxRetries + 1 : 1;
          let tries = 0;
          let res: Response;
          do {
            res = await fetch(url, { method: verb });
            if (res.status < 500) return res;
            tries++;
            if (tries < maxTries) await sleep(5 * 2 ** tries);
          } while (tries < maxTries);
          return res;
        }
      }
    `;
    // Read for its defaults the count was 1 (no retry, nothing to judge); read with the verbs the
    // file passes it is 4, and the waits that never vary are reported.
    const own = analyse(code).filter((s) => s.library === 'hand-written');
    expect(own.map((s) => s.attempts)).toEqual([4]);
    expect(lint(code).map((f) => f.rule)).toContain('require-jitter');
    // A call that leaves an optional parameter out still reads it as undefined.
    const optional = code.replace('verb: string, url: string', 'url: string, verb?: string').replace(/this\.request\('(\w+)', url\)/g, 'this.request(url)');
    expect(analyse(optional).filter((s) => s.library === 'hand-written').map((s) => s.attempts)).toEqual([1]);
  });
});

