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
