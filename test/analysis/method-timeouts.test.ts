/**
 * A per-attempt timeout armed in the method of the class that a hand-written retry calls
 * (`await this.fetchWithTimeout(url, init, timeout, controller)`): in the method's body, or in a
 * function written inside it that makes the request and whose result the method returns. Each
 * attempt may run that long before it fails (R-RES-RE-4). Shaped on the client cores of two
 * generated API SDKs (makeRequest/retryRequest calling each other, the timer armed in
 * fetchWithTimeout, there directly or in a local function handed to a middleware chain).
 */
import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

/** A client whose retry calls `this.send(...)`; `methods` are the class's sending methods. */
const client = (methods: string, call = 'this.send(url, req, timeout, controller)', wait = 'await sleep(1000);') => `
declare function chain(f: (u: string, i: RequestInit) => Promise<Response>, m: unknown[]): (u: string, i: RequestInit) => Promise<Response>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export class Client {
  maxRetries: number;
  timeout: number;
  middleware: unknown[] = [];
  fetch = globalThis.fetch;
  constructor(opts: { maxRetries?: number; timeout?: number } = {}) {
    this.maxRetries = opts.maxRetries ?? 2;
    this.timeout = opts.timeout ?? 600000;
  }
  request(options: any) { return this.makeRequest(options, null); }
  private async makeRequest(options: any, retriesRemaining: number | null): Promise<Response> {
    if (retriesRemaining == null) retriesRemaining = options.maxRetries ?? this.maxRetries;
    const { req, url, timeout } = this.build(options);
    const controller = new AbortController();
    const response = await ${call}.catch((e) => e as Error);
    if (response instanceof Error) {
      if (retriesRemaining) return this.retryRequest(options, retriesRemaining, undefined);
      throw response;
    }
    if (!response.ok && response.status >= 500 && retriesRemaining) return this.retryRequest(options, retriesRemaining, response.headers);
    return response;
  }
  private async retryRequest(options: any, retriesRemaining: number, headers: Headers | undefined): Promise<Response> {
    ${wait}
    return this.makeRequest(options, retriesRemaining - 1);
  }
  build(options: any) {
    return { req: { method: options.method }, url: options.path, timeout: options.timeout ?? this.timeout };
  }
  private makeAbort(controller: AbortController) {
    return () => controller.abort();
  }
  ${methods}
}
`;

/** The timer in a local function that makes the request, handed to a middleware chain that the method's result comes from. */
const nestedTimer = (inner = 'await this.fetch.call(undefined, u, i)', result = 'chain(innerFetch, this.middleware)(url, { ...init, signal: controller.signal })') => `
  async send(url: string, init: RequestInit, ms: number, controller: AbortController): Promise<Response> {
    const abort = this.makeAbort(controller);
    const timedFetch = async (u: string, i: RequestInit) => {
      const timer = setTimeout(abort, ms);
      try {
        return ${inner};
      } finally {
        clearTimeout(timer);
      }
    };
    const innerFetch = this.middleware.length ? async (u: string, i: RequestInit) => timedFetch(u, i) : timedFetch;
    return await ${result};
  }`;

const site = (code: string) => analyse(code).find((s) => s.library === 'hand-written');
const durationFindings = (code: string) => lint(code).filter((f) => f.rule === 'max-retry-duration');

describe('a timer armed in the method a hand-written retry calls', () => {
  it('reads the timer armed in the method body, its duration the argument the retried code passes', () => {
    const code = client(`
  async send(url: string, init: RequestInit, ms: number, controller: AbortController): Promise<Response> {
    const abort = this.makeAbort(controller);
    const timer = setTimeout(abort, ms);
    try {
      return await this.fetch.call(undefined, url, { ...init, signal: controller.signal });
    } finally {
      clearTimeout(timer);
    }
  }`);
    expect(site(code)).toMatchObject({ attempts: 3, attemptTimeoutMs: 600000 });
    expect(durationFindings(code)).toHaveLength(1);
  });

  it("follows a method that hands on another method's result, and an inline aborting callback", () => {
    const code = client(`
  async send(url: string, init: RequestInit, timeout: number, controller: AbortController): Promise<Response> {
    if (init.headers) {
      await Promise.resolve();
    }
    const response = await this.sendTimed(url, init, timeout, controller);
    return response;
  }
  async sendTimed(url: string, init: RequestInit, ms: number, controller: AbortController): Promise<Response> {
    const timer = setTimeout(() => controller.abort(), ms);
    try {
      return await this.fetch.call(undefined, url, { ...init, signal: controller.signal });
    } finally {
      clearTimeout(timer);
    }
  }`);
    expect(site(code)).toMatchObject({ attemptTimeoutMs: 600000 });
  });

  it('reads the timer in a local function that makes the request and whose result the method returns', () => {
    const code = client(nestedTimer());
    expect(site(code)).toMatchObject({ attempts: 3, attemptTimeoutMs: 600000 });
    expect(durationFindings(code)).toHaveLength(1);
  });

  it("with a wait not known (an uncapped Retry-After), reports the attempts' timeouts as a lower bound", () => {
    const code = client(nestedTimer(), undefined, `
    let wait: number | undefined;
    const retryAfter = headers?.get('retry-after');
    if (retryAfter) wait = parseFloat(retryAfter) * 1000;
    if (wait === undefined) wait = 500 * 2 ** (2 - retriesRemaining);
    await sleep(wait);`);
    expect(site(code)).toMatchObject({ attempts: 3, attemptTimeoutMs: 600000, worstCaseMs: 'unknown' });
    const findings = lint(code).filter((f) => f.rule === 'max-retry-duration');
    expect(findings.map((f) => f.messageId)).toEqual(['timeoutsTooLong']);
  });

  it('stays silent within the budget: a short timer in the local function', () => {
    const code = client(nestedTimer().replace('setTimeout(abort, ms)', 'setTimeout(abort, 1000)'), 'this.send(url, req, 1000, controller)');
    expect(site(code)).toMatchObject({ attemptTimeoutMs: 1000 });
    expect(durationFindings(code)).toEqual([]);
  });
});

describe('look-alikes: a timer in the method that does not end the attempt', () => {
  it('a local function that arms a timer around the request but is never called nor handed on', () => {
    const code = client(`
  async send(url: string, init: RequestInit, ms: number, controller: AbortController): Promise<Response> {
    const abort = this.makeAbort(controller);
    const timedFetch = async (u: string, i: RequestInit) => {
      const timer = setTimeout(abort, ms);
      try {
        return await this.fetch.call(undefined, u, i);
      } finally {
        clearTimeout(timer);
      }
    };
    return await this.fetch.call(undefined, url, { ...init, signal: controller.signal });
  }`);
    expect(site(code)).toMatchObject({ attempts: 3 });
    expect(site(code)!.attemptTimeoutMs).toBeUndefined();
    expect(durationFindings(code)).toEqual([]);
  });

  it("a timer in a callback that is not the request's (a listener), the method's result not made through it", () => {
    const code = client(`
  async send(url: string, init: RequestInit, ms: number, controller: AbortController): Promise<Response> {
    const abort = this.makeAbort(controller);
    init.signal?.addEventListener('abort', () => {
      const timer = setTimeout(abort, ms);
      try {
        return controller.signal.throwIfAborted();
      } finally {
        clearTimeout(timer);
      }
    });
    return await this.fetch.call(undefined, url, { ...init, signal: controller.signal });
  }`);
    expect(site(code)!.attemptTimeoutMs).toBeUndefined();
  });

  it('a local function that wraps the request but a return of the method goes around it', () => {
    const code = client(nestedTimer().replace('    return await chain(', `    if (init.method === 'GET') return await this.fetch.call(undefined, url, init);\n    return await chain(`));
    expect(site(code)!.attemptTimeoutMs).toBeUndefined();
  });

  it('a local function whose timer does not abort (a log line), or is not cleared after the call', () => {
    const logs = client(nestedTimer().replace('setTimeout(abort, ms)', "setTimeout(() => console.warn('slow'), ms)"));
    expect(site(logs)!.attemptTimeoutMs).toBeUndefined();
    const kept = client(nestedTimer().replace('clearTimeout(timer);', "console.debug('sent');"));
    expect(site(kept)!.attemptTimeoutMs).toBeUndefined();
  });

  it('two aborting timers in the method: which ends the attempt is not read', () => {
    const code = client(nestedTimer().replace('const abort = this.makeAbort(controller);', 'const abort = this.makeAbort(controller);\n    setTimeout(() => controller.abort(), 5000);'));
    expect(site(code)!.attemptTimeoutMs).toBeUndefined();
  });

  it('a duration written inside the method that the retried code does not pass stays unknown', () => {
    const code = client(nestedTimer().replace('setTimeout(abort, ms)', 'setTimeout(abort, Number(init.headers))'));
    expect(site(code)!.attemptTimeoutMs).toBeUndefined();
  });
});

/** A retry whose per-attempt timeout comes from `this.build(options)`, which completes a local copy of the options. */
const built = (build: string, helpers = '') => `
declare function check(name: string, value: unknown): void;
export class Client {
  timeout: number;
  constructor(opts: { timeout?: number } = {}) {
    this.timeout = opts.timeout ?? 600000;
  }
  ${build}
  private body({ options: { body, headers } }: { options: any }) { return { body, headers }; }
  ${helpers}
  async run(options: any, left = 2): Promise<Response> {
    const { timeout } = await this.build(options);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeout);
    try {
      return await fetch(options.url, { signal: controller.signal });
    } catch (e) {
      if (left > 0) return this.run(options, left - 1);
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }
}`;

describe('the duration read through a local copy of the options', () => {
  const copy = (between: string) => `async build(input: any) {
    const options = { ...input };
    const { method } = options;
    if ('timeout' in options) check('timeout', options.timeout);
    options.timeout = options.timeout ?? this.timeout;
    ${between}
    return { method, timeout: options.timeout };
  }`;

  it('reads the member the one statement sets, the copy only read, tested, destructured or taken apart by a method', () => {
    const code = built(copy('const { body } = this.body({ options });'));
    expect(site(code)).toMatchObject({ attempts: 3, attemptTimeoutMs: 600000 });
    expect(durationFindings(code).map((f) => f.messageId)).toEqual(['needsQueue']);
  });

  it('stays unknown when the copy is handed on whole before the read (the callee may set the member)', () => {
    const code = built(copy('prepare(options);'), '');
    expect(site(code.replace('declare function check', 'declare function prepare(o: unknown): void;\ndeclare function check'))!.attemptTimeoutMs).toBeUndefined();
    const kept = built(copy('const { body } = this.keep({ options });'), 'private keep({ options }: { options: any }) { return { body: options.body }; }');
    expect(site(kept)!.attemptTimeoutMs).toBeUndefined();
  });

  it('stays unknown when the member is written twice, or in a branch', () => {
    expect(site(built(copy('options.timeout = options.timeout * 2;')))!.attemptTimeoutMs).toBeUndefined();
    const branch = copy('').replace('options.timeout = options.timeout ?? this.timeout;', 'if (input.slow) { options.timeout = 1000; }');
    expect(site(built(branch))!.attemptTimeoutMs).toBeUndefined();
  });

  it("a write of a fresh object's member leaves the class field known; a write of another object's does not", () => {
    const fresh = built(`async build(input: any) {
    const options = { ...input };
    options.timeout = 5;
    return { timeout: input.timeout ?? this.timeout };
  }`);
    expect(site(fresh)).toMatchObject({ attemptTimeoutMs: 600000 });
    const other = built(`async build(input: any) {
    input.timeout = 5;
    return { timeout: input.timeout ?? this.timeout };
  }`);
    expect(site(other)!.attemptTimeoutMs).toBeUndefined();
  });
});
