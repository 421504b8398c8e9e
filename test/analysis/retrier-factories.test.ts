/**
 * Retriers returned by a factory call (issue 14, options that travel): calls of what a factory call
 * returns, kept in a const or an instance field set in the constructor, are retry sites read with
 * the factory's parameters bound to that call's arguments.
 */
import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

const wrappers = (code: string) => analyse(code).filter((s) => s.library.startsWith('wrapper:'));
const rulesAt = (code: string, line: number) => lint(code).filter((f) => f.line === line).map((f) => f.rule).sort();

const MAKE_RETRY = `
  declare function sleep(ms: number): Promise<void>;
  function makeRetry({ retries = 3 }: { retries?: number } = {}) {
    return async <T>(fn: () => Promise<T>): Promise<T> => {
      for (let i = 0; ; i++) {
        try {
          return await fn();
        } catch (e) {
          if (i >= retries) throw e;
          await sleep(100 * 2 ** i * (0.5 + Math.random()));
        }
      }
    };
  }
`;

describe('a retrier returned by a local factory', () => {
  it("is a site at each call of the const that keeps it, read with the factory call's arguments", () => {
    const code = `${MAKE_RETRY}
      const retry = makeRetry({ retries: 10 });
      export const load = () => retry(() => fetch('/a'));
      export const post = (body: string) => retry(() => fetch('/b', { method: 'POST', body }));
    `;
    const sites = wrappers(code);
    expect(sites).toHaveLength(2);
    expect(sites[0]).toMatchObject({ label: 'retry()', attempts: 11, operation: "() => fetch('/a')" });
    const rules = lint(code).map((f) => f.rule);
    expect(rules.filter((r) => r === 'max-retry-attempts')).toHaveLength(2);
    expect(rules).toContain('no-unsafe-write-retry');
  });

  it('a count the factory call sets is shown at that call when one retrier call uses it', () => {
    const code = `${MAKE_RETRY}
      const retry = makeRetry({ retries: 10 });
      export const load = () => retry(() => fetch('/a'));
    `;
    expect(lint(code).filter((f) => f.rule === 'max-retry-attempts').map((f) => f.text)).toEqual(['retries: 10']);
  });

  it('a retrier called at once, and a function-returning factory written with function declarations', () => {
    const code = `${MAKE_RETRY}
      export const load = () => makeRetry({ retries: 7 })(() => fetch('/a'));
      function makeOther(tries: number) {
        return function (fn: () => Promise<Response>) {
          return (async () => {
            for (let i = 0; i < tries; i++) {
              try { return await fn(); } catch { await new Promise((r) => setTimeout(r, 100 * 2 ** i * Math.random())); }
            }
            throw new Error('gave up');
          })();
        };
      }
      const other = makeOther(9);
      export const list = () => other(() => fetch('/b'));
    `;
    expect(wrappers(code).map((s) => [s.label, s.attempts])).toEqual([['makeRetry({ retries: 7 })()', 8], ['other()', 9]]);
  });

  it('a factory called with nothing is judged by its own defaults, in the factory', () => {
    const code = `${MAKE_RETRY}
      const retry = makeRetry();
      export const load = () => retry(() => fetch('/a'));
    `;
    expect(wrappers(code)).toMatchObject([{ attempts: 4 }]);
    expect(lint(code).map((f) => f.rule)).not.toContain('max-retry-attempts');
  });

  it('an instance field set from the factory in the constructor', () => {
    const code = `${MAKE_RETRY}
      export class Client {
        private readonly retrier;
        constructor() {
          this.retrier = makeRetry({ retries: 8 });
        }
        get(url: string) {
          return this.retrier(() => fetch(url));
        }
      }
    `;
    expect(wrappers(code)).toMatchObject([{ label: 'this.retrier()', attempts: 9 }]);
  });

  it('a write sent through a retrier the constructor makes with the defaults is reported at the call, the defaults in the factory', () => {
    const code = `${MAKE_RETRY}
      declare const api: { post(path: string, body: unknown): Promise<unknown> };
      export class Orders {
        private readonly retrier = makeRetry();
        send(body: unknown) {
          return this.retrier(() => api.post('/orders', body));
        }
      }
    `;
    const findings = lint(code);
    // What the call retries is judged at the call; the factory's 4 attempts are within bounds.
    expect(findings.map((f) => f.rule)).toEqual(['no-retry-on-client-error', 'no-unsafe-write-retry']);
    expect(findings.find((f) => f.rule === 'no-unsafe-write-retry')!.text).toBe("api.post('/orders', body)");
  });

  it('an argument the factory call cannot read stays unknown at the retrier calls', () => {
    const code = `${MAKE_RETRY}
      export function client(opts: { retries?: number }) {
        const retry = makeRetry(opts);
        return () => retry(() => fetch('/a'));
      }
    `;
    expect(wrappers(code)).toMatchObject([{ attempts: 'unknown' }]);
    expect(lint(code).map((f) => f.rule)).not.toContain('max-retry-attempts');
  });

  it("a retrier made in a promise executor, kafkajs-shaped: the factory's options merged over its defaults", () => {
    const code = `
      const DEFAULTS = { retries: 5, initialRetryTime: 300, multiplier: 2 };
      const createRetriable = (configs: typeof DEFAULTS, resolve: (v: unknown) => void, reject: (e: unknown) => void, fn: (n: number) => Promise<unknown>) => {
        const { retries, multiplier } = configs;
        const retry = (retryTime: number, retryCount = 0) => {
          const scheduleRetry = () => {
            setTimeout(() => retry(retryTime * multiplier, retryCount + 1), retryTime);
          };
          fn(retryCount).then(resolve).catch((e) => {
            if (retryCount < retries) scheduleRetry();
            else reject(e);
          });
        };
        return retry;
      };
      const createRetry = (opts = {}) => (fn: (n: number) => Promise<unknown>) =>
        new Promise((resolve, reject) => {
          const configs = { ...DEFAULTS, ...opts };
          const start = createRetriable(configs, resolve, reject, fn);
          start(configs.initialRetryTime);
        });
      export class Cluster {
        retrier: ReturnType<typeof createRetry>;
        constructor() {
          this.retrier = createRetry({ retries: 9 });
        }
        metadata() {
          return this.retrier(async () => fetch('/metadata'));
        }
      }
    `;
    const sites = wrappers(code).filter((s) => s.label === 'this.retrier()');
    expect(sites).toMatchObject([{ attempts: 10, operation: "async () => fetch('/metadata')" }]);
    // The same with Object.assign({}, DEFAULTS, opts), and with the options the class is given.
    const assigned = code.replace('const configs = { ...DEFAULTS, ...opts };', 'const configs = Object.assign({}, DEFAULTS, opts);');
    expect(wrappers(assigned).filter((s) => s.label === 'this.retrier()')).toMatchObject([{ attempts: 10 }]);
    const given = assigned.replace('constructor() {', 'constructor(retry?: { retries?: number }) {').replace('createRetry({ retries: 9 })', 'createRetry(retry)');
    const [site] = wrappers(given).filter((s) => s.label === 'this.retrier()');
    // Options a caller of the class may pass could override the defaults: not known at the call.
    expect(site).toMatchObject({ attempts: 'unknown' });
    expect(rulesAt(given, 26)).toEqual([]);
  });
});

describe('options merged over defaults', () => {
  const helper = (merge: string) => `
    const DEFAULTS = { retries: 9, delay: 100 };
    export async function withRetry<T>(fn: () => Promise<T>, opts?: { retries?: number }): Promise<T> {
      const o = ${merge};
      for (let i = 0; ; i++) {
        try {
          return await fn();
        } catch (e) {
          if (i >= o.retries) throw e;
          await new Promise((r) => setTimeout(r, o.delay * 2 ** i * Math.random()));
        }
      }
    }
  `;

  it('a helper read as it runs takes the defaults where the options are not known, as for opts.retries ?? 9', () => {
    for (const merge of ['Object.assign({}, DEFAULTS, opts)', '{ ...DEFAULTS, ...opts }']) {
      const code = helper(merge);
      expect(analyse(code).filter((s) => s.library === 'hand-written')).toMatchObject([{ attempts: 10 }]);
      expect(lint(code).map((f) => f.rule)).toContain('max-retry-attempts');
    }
  });

  it('a key written after the options wins; a source that is no object leaves the merge unknown', () => {
    expect(analyse(helper('Object.assign({}, DEFAULTS, opts, { retries: 2 })')).filter((s) => s.library === 'hand-written')).toMatchObject([{ attempts: 3 }]);
    expect(analyse(helper('Object.assign({}, DEFAULTS, opts, (x: number) => x)')).filter((s) => s.library === 'hand-written')).toMatchObject([{ attempts: 'unknown' }]);
  });
});

describe('look-alikes stay silent', () => {
  it('a factory that returns a function that does not retry', () => {
    const code = `
      const make = (base: string) => (path: string) => fetch(base + path);
      const get = make('/api');
      export const load = () => get('/a');
    `;
    expect(wrappers(code)).toHaveLength(0);
    expect(lint(code)).toEqual([]);
  });

  it('a let written again, and a field written outside the constructor, are not followed', () => {
    const code = `${MAKE_RETRY}
      let retry = makeRetry({ retries: 10 });
      retry = makeRetry({ retries: 10 });
      export const load = () => retry(() => fetch('/a'));
      export class Client {
        private retrier = makeRetry({ retries: 10 });
        reset() { this.retrier = makeRetry({ retries: 1 }); }
        get(url: string) { return this.retrier(() => fetch(url)); }
      }
    `;
    expect(wrappers(code)).toHaveLength(0);
  });
});
