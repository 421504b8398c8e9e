import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

/**
 * SDK clients whose retry reads its bound and waits from constructor options and class fields,
 * and whose request method comes from the caller (openai-node, anthropic-sdk, elastic-transport).
 */
const handWritten = (code: string) => analyse(code).filter((s) => s.library === 'hand-written');
const rulesOf = (code: string) => lint(code).map((f) => f.rule).sort();

describe('a count parameter filled in on the first call (makeRequest/retryRequest)', () => {
  const client = (request: string, reset = 'if (retriesRemaining == null) retriesRemaining = maxRetries;') => `
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    export class Client {
      maxRetries: number;
      constructor(options: { maxRetries?: number } = {}) {
        this.maxRetries = options.maxRetries ?? 2;
      }
      ${request}
      private async makeRequest(options: { path: string; maxRetries?: number }, retriesRemaining: number | null | undefined): Promise<Response> {
        const maxRetries = options.maxRetries ?? this.maxRetries;
        ${reset}
        const response = await fetch(options.path).catch((e) => e as Error);
        if (response instanceof Error) {
          if (retriesRemaining) return this.retryRequest(options, retriesRemaining);
          throw response;
        }
        return response;
      }
      private async retryRequest(options: { path: string; maxRetries?: number }, retriesRemaining: number): Promise<Response> {
        await sleep(500 * Math.random());
        return this.makeRequest(options, retriesRemaining - 1);
      }
    }
  `;

  it('starts at the value written when every call from outside passes null (or its own null default)', () => {
    expect(handWritten(client('request(options: { path: string }) { return this.makeRequest(options, null); }'))[0]).toMatchObject({ attempts: 3, attemptsAt: 'maxRetries' });
    expect(handWritten(client('request(options: { path: string }, remaining: number | null = null) { return this.makeRequest(options, remaining); }'))[0]).toMatchObject({ attempts: 3 });
    expect(handWritten(client('request(options: { path: string }) { return this.makeRequest(options, undefined); }', 'retriesRemaining ??= maxRetries;'))[0]).toMatchObject({ attempts: 3 });
  });

  it('stays unknown when a caller passes a count of its own, or the test does not let its argument through (look-alikes)', () => {
    expect(handWritten(client('request(options: { path: string }, remaining: number) { return this.makeRequest(options, remaining); }'))[0]).toMatchObject({ attempts: 'unknown' });
    expect(handWritten(client('request(options: { path: string }) { return this.makeRequest(options, undefined); }', 'if (retriesRemaining === null) retriesRemaining = maxRetries;'))[0]?.attempts).not.toBe(3);
    // No caller in the class: whoever calls it may pass anything.
    expect(handWritten(client(''))[0]).toMatchObject({ attempts: 'unknown' });
  });
});

describe('a request whose method is the caller\'s, through this.fetch.call(undefined, url, init)', () => {
  const client = (fetchWithTimeout: string) => `
    export class Client {
      fetch: typeof fetch;
      constructor(options: { fetch?: typeof fetch } = {}) { this.fetch = options.fetch ?? globalThis.fetch; }
      async get(path: string) { return this.send(path, { method: 'get' }); }
      async post(path: string, body: string) { return this.send(path, { method: 'post', body }); }
      private async send(url: string, init: RequestInit, retries = 2): Promise<Response> {
        const response = await this.fetchWithTimeout(url, init, 60000).catch((e) => e as Error);
        if (response instanceof Error) {
          if (retries > 0) {
            await new Promise((r) => setTimeout(r, 500 * 2 ** (2 - retries) * Math.random()));
            return this.send(url, init, retries - 1);
          }
          throw response;
        }
        return response;
      }
      async fetchWithTimeout(url: string, init: RequestInit | undefined, ms: number): Promise<Response> {
        ${fetchWithTimeout}
      }
    }
  `;

  it('reads the method assigned from the destructured init as every method', () => {
    const code = client(`
        const { signal, method, ...options } = init || {};
        const fetchOptions: RequestInit = { method: 'GET', ...options };
        if (method) fetchOptions.method = method.toUpperCase();
        return await this.fetch.call(undefined, url, fetchOptions);
    `);
    const writes = lint(code).filter((f) => f.rule === 'no-unsafe-write-retry');
    expect(writes).toHaveLength(1);
  });

  it('stays silent when the helper always sends GET, or looks at the method (look-alikes)', () => {
    const getOnly = client(`
        const { signal, method, ...options } = init || {};
        return await this.fetch.call(undefined, url, { ...options, method: 'GET' });
    `);
    expect(rulesOf(getOnly)).not.toContain('no-unsafe-write-retry');
    const checked = client(`
        const { signal, method, ...options } = init || {};
        if (method && method !== 'get') throw new Error('reads only');
        const fetchOptions: RequestInit = { method: 'GET', ...options };
        if (method) fetchOptions.method = method.toUpperCase();
        return await this.fetch.call(undefined, url, fetchOptions);
    `);
    expect(rulesOf(checked)).not.toContain('no-unsafe-write-retry');
  });
});

describe('a count kept on an object declared outside the loop', () => {
  const loop = (extra = '') => `
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    declare function op(): Promise<number>;
    export async function run() {
      const state = { tries: 0 };
      ${extra}
      while (state.tries < 3) {
        try {
          return await op();
        } catch {
          state.tries++;
          await sleep(100 * 2 ** state.tries * Math.random());
        }
      }
    }
  `;

  it('counts it (it read as a fixed 0 before, so the loop looked unbounded)', () => {
    expect(handWritten(loop())[0]).toMatchObject({ attempts: 3, growth: 'exponential', jitter: true });
    expect(rulesOf(loop())).toEqual([]);
  });

  it('stays unknown when the field is also written outside the loop (look-alike)', () => {
    const code = loop('state.tries = Number(process.env.SKIP);');
    expect(handWritten(code)[0]).toMatchObject({ attempts: 'unknown' });
    expect(rulesOf(code)).not.toContain('max-retry-attempts');
  });
});

describe('fields set from options with a presence check, under symbol keys', () => {
  const transport = (ctor: string, more = '') => `
    import { kMaxRetries } from './symbols';
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    export class Transport {
      [kMaxRetries]: number;
      constructor(opts: { maxRetries?: number }) {
        ${ctor}
      }
      ${more}
      async request(params: { path: string }, options: { maxRetries?: number } = {}) {
        const maxRetries = typeof options.maxRetries === 'number' ? options.maxRetries : this[kMaxRetries];
        let attempts = 0;
        while (attempts <= maxRetries) {
          try {
            return await fetch(params.path);
          } catch {
            attempts++;
            await sleep(200 * 2 ** attempts * Math.random());
          }
        }
      }
    }
  `;

  it('reads this[kMaxRetries] set from typeof opts.maxRetries === "number" ? opts.maxRetries : 9 as 9', () => {
    const code = transport("this[kMaxRetries] = typeof opts.maxRetries === 'number' ? opts.maxRetries : 9;");
    expect(handWritten(code)[0]).toMatchObject({ attempts: 10 });
    expect(rulesOf(code)).toContain('max-retry-attempts');
    expect(handWritten(transport('this[kMaxRetries] = opts.maxRetries != null ? opts.maxRetries : 9;'))[0]).toMatchObject({ attempts: 10 });
  });

  it('stays unknown for a field written again in a method, or a presence check that is no default (look-alikes)', () => {
    const rewritten = transport("this[kMaxRetries] = typeof opts.maxRetries === 'number' ? opts.maxRetries : 9;", 'configure(n: number) { this[kMaxRetries] = n; }');
    expect(handWritten(rewritten)[0]).toMatchObject({ attempts: 'unknown' });
    expect(rulesOf(rewritten)).not.toContain('max-retry-attempts');
    const noDefault = transport('this[kMaxRetries] = opts.maxRetries ? opts.maxRetries : 9;');
    expect(handWritten(noDefault)[0]).toMatchObject({ attempts: 'unknown' });
  });

  it('does not read a computed key of a local variable as a field (look-alike)', () => {
    const code = `
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      export class Transport {
        [k: string]: unknown;
        constructor(opts: Record<string, number>) {
          let key = 'maxRetries';
          this[key] = 9;
        }
        async request(path: string) {
          const key = 'other';
          const maxRetries = this[key] as number;
          let attempts = 0;
          while (attempts <= maxRetries) {
            try { return await fetch(path); } catch { attempts++; await sleep(200 * 2 ** attempts * Math.random()); }
          }
        }
      }
    `;
    expect(handWritten(code)[0]).toMatchObject({ attempts: 'unknown' });
  });
});

describe('elastic-transport-like loop: a fallthrough guard, a backoff function held in a field, and a way back with no wait', () => {
  const transport = (onBadGateway: string) => `
    import { setTimeout } from 'node:timers/promises';
    export class Transport {
      private retryOnTimeout: boolean;
      private retryBackoff: (min: number, max: number, attempt: number) => number;
      private pool: { size: number; get(): { request(p: object): Promise<{ statusCode: number }> } };
      constructor(opts: { retryOnTimeout?: boolean; retryBackoff?: (min: number, max: number, attempt: number) => number; pool: any }) {
        this.retryOnTimeout = opts.retryOnTimeout != null ? opts.retryOnTimeout : false;
        this.retryBackoff = opts.retryBackoff ?? retryBackoff;
        this.pool = opts.pool;
      }
      async request(params: { method: string; path: string }, options: { retryBackoff?: (min: number, max: number, attempt: number) => number } = {}) {
        const maxRetries = 3;
        const meta = { attempts: 0 };
        while (meta.attempts <= maxRetries) {
          try {
            const { statusCode } = await this.pool.get().request({ method: params.method, path: params.path });
            if (statusCode === 502 || statusCode === 503 || statusCode === 504) {
              ${onBadGateway}
            }
            if (statusCode >= 400) throw new Error('response');
            return statusCode;
          } catch (error: any) {
            switch (error.name) {
              case 'ResponseError':
                throw error;
              case 'TimeoutError':
                if (!this.retryOnTimeout) throw error;
              // falls through
              case 'ConnectionError': {
                if (meta.attempts < maxRetries) {
                  meta.attempts++;
                  if (meta.attempts >= this.pool.size) {
                    const backoff = options.retryBackoff ?? this.retryBackoff;
                    const wait = backoff(0, 4, meta.attempts);
                    if (wait > 0) await setTimeout(wait * 1000);
                  }
                  continue;
                }
                throw error;
              }
              default:
                throw error;
            }
          }
        }
      }
    }
    function retryBackoff(min: number, max: number, attempt: number): number {
      const ceiling = Math.min(max, 2 ** attempt) / 2;
      return ceiling + Math.random() * (ceiling - min) + min;
    }
  `;

  it('reads 4 attempts, the waits of the backoff function (2 s, 4 s, 4 s), and the immediate way back on 502/503/504', () => {
    const code = transport('if (meta.attempts < maxRetries) { meta.attempts++; continue; }');
    expect(handWritten(code)[0]).toMatchObject({ attempts: 4, growth: 'none', jitter: false, worstCaseMs: 10000 });
    expect(rulesOf(code)).toEqual(['max-retry-duration', 'require-exponential-backoff', 'require-jitter']);
  });

  it('keeps the backoff when the 502 branch waits too, or goes back without counting an attempt (look-alikes)', () => {
    const waits = transport('if (meta.attempts < maxRetries) { meta.attempts++; await setTimeout(1000 * 2 ** meta.attempts * Math.random()); continue; }');
    expect(handWritten(waits)[0]).toMatchObject({ attempts: 4, jitter: true });
    expect(rulesOf(waits)).not.toContain('require-jitter');
    const repair = transport('this.pool.size = 0;');
    expect(handWritten(repair)[0]?.growth).not.toBe('none');
    expect(rulesOf(repair)).not.toContain('require-exponential-backoff');
  });
});

describe('a wait held in a let written on several paths (openai-node retryRequest)', () => {
  const client = (retryRequest: string) => `
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    export class Client {
      maxRetries = 2;
      request(path: string) { return this.makeRequest(path, null); }
      private async makeRequest(path: string, retriesRemaining: number | null): Promise<Response> {
        if (retriesRemaining == null) retriesRemaining = this.maxRetries;
        const response = await fetch(path).catch((e) => e as Error);
        if (response instanceof Error) {
          if (retriesRemaining) return this.retryRequest(path, retriesRemaining);
          throw response;
        }
        if (response.status >= 500 && retriesRemaining) return this.retryRequest(path, retriesRemaining, response.headers);
        return response;
      }
      private async retryRequest(path: string, retriesRemaining: number, headers?: Headers): Promise<Response> {
        ${retryRequest}
        return this.makeRequest(path, retriesRemaining - 1);
      }
      private backoffMillis(retriesRemaining: number): number {
        return Math.min(500 * 2 ** (this.maxRetries - retriesRemaining), 8000) * (1 - Math.random() * 0.25);
      }
    }
  `;

  it("reads the server's wait kept up to 60 s as a cap, and the own backoff for its shape", () => {
    const code = client(`
        let timeoutMillis: number | undefined;
        const header = headers?.get('retry-after');
        if (header) timeoutMillis = parseFloat(header) * 1000;
        if (timeoutMillis === undefined || !Number.isFinite(timeoutMillis) || timeoutMillis < 0 || timeoutMillis > 60 * 1000) {
          timeoutMillis = this.backoffMillis(retriesRemaining);
        }
        await sleep(timeoutMillis);
    `);
    expect(handWritten(code)[0]).toMatchObject({ attempts: 3, growth: 'exponential', jitter: true, worstCaseMs: 120000 });
    expect(rulesOf(code)).toEqual(['max-retry-duration']);
  });

  it('stays unknown for an uncapped server wait, or a write in a branch it cannot follow (look-alikes)', () => {
    const uncapped = client(`
        let timeoutMillis: number | undefined;
        const header = headers?.get('retry-after');
        if (header) timeoutMillis = parseFloat(header) * 1000;
        if (timeoutMillis === undefined) timeoutMillis = this.backoffMillis(retriesRemaining);
        await sleep(timeoutMillis);
    `);
    expect(handWritten(uncapped)[0]).toMatchObject({ worstCaseMs: 'unknown' });
    expect(rulesOf(uncapped)).not.toContain('max-retry-duration');
    const branch = client(`
        let timeoutMillis = this.backoffMillis(retriesRemaining);
        if (headers) { if (headers.has('retry-after')) timeoutMillis = Number(headers.get('retry-after')) * 1000; }
        await sleep(timeoutMillis);
    `);
    expect(handWritten(branch)[0]).toMatchObject({ worstCaseMs: 'unknown' });
  });

  it('takes the last plain write before the read, and no write after it in a loop (look-alike)', () => {
    const plain = client(`
        let timeoutMillis: number;
        timeoutMillis = 20000;
        timeoutMillis = this.backoffMillis(retriesRemaining);
        await sleep(timeoutMillis);
    `);
    expect(handWritten(plain)[0]).toMatchObject({ growth: 'exponential', worstCaseMs: 1500 });
    const looped = `
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      export async function poll(path: string) {
        let wait = 100;
        const send = async (): Promise<Response> => {
          for (let i = 0; i < 3; i++) {
            try { return await fetch(path); } catch { await sleep(wait); wait = 5000; }
          }
          throw new Error('down');
        };
        return send();
      }
    `;
    expect(handWritten(looped)[0]?.worstCaseMs).not.toBe(200);
  });
});

describe('a repair way back beside counted ones', () => {
  const client = (repair: string) => `
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    export class Client {
      private refreshed = false;
      request(path: string) { return this.makeRequest(path, 2); }
      private async makeRequest(path: string, retriesRemaining: number): Promise<Response> {
        const response = await fetch(path).catch((e) => e as Error);
        if (response instanceof Error) {
          if (retriesRemaining) return this.retryRequest(path, retriesRemaining);
          throw response;
        }
        ${repair}
        return response;
      }
      private async retryRequest(path: string, retriesRemaining: number): Promise<Response> {
        await sleep(3000 * 2 ** (2 - retriesRemaining) * Math.random());
        return this.makeRequest(path, retriesRemaining - 1);
      }
      private async refreshToken(): Promise<void> {}
    }
  `;

  it('adds no pause of its own: the counted ways back decide the jitter', () => {
    const code = client(`
        if (response.status === 401 && !this.refreshed) {
          this.refreshed = true;
          await this.refreshToken();
          return this.makeRequest(path, retriesRemaining);
        }
    `);
    // Its own "schedule" (no pause) once made the whole site read as waiting without randomness.
    expect(handWritten(code)[0]).toMatchObject({ jitter: true });
    expect(rulesOf(code)).not.toContain('require-jitter');
  });
});
