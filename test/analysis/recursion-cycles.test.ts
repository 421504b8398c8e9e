/**
 * Retries written as recursion through more than one way back: two functions (or two methods
 * through `this`) that call each other, a failure turned into a value (`.catch(toError)` then
 * `instanceof Error`), a falsy result under a counter, and several self-calls read as one site.
 */
import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

const handWritten = (code: string) => analyse(code).filter((s) => s.library === 'hand-written');
const rulesOf = (findings: { rule: string }[]) => findings.map((f) => f.rule).sort();

const twoFunctions = `
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  export async function submit(order: string, left = 3): Promise<Response> {
    const res = await fetch('/orders', { method: 'POST', body: order }).catch((e) => e);
    if (res instanceof Error) {
      if (left > 0) return again(order, left);
      throw res;
    }
    if (!res.ok) {
      if (left > 0 && (res.status === 409 || res.status >= 500)) return again(order, left);
      throw new Error(String(res.status));
    }
    return res;
  }
  async function again(order: string, left: number): Promise<Response> {
    await pause(400 * 2 ** (3 - left));
    return submit(order, left - 1);
  }
`;

describe('hand-written recursion through two functions', () => {
  it('reads two functions calling each other as one retry of the first, its counter passed back through the second', () => {
    const sites = handWritten(twoFunctions);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ label: 'submit() through again()', line: 3, attempts: 4, growth: 'exponential', jitter: false, clientErrors: ['409'] });
  });

  it('reports each rule once, and neither the call back nor the call across as an operation or a helper call', () => {
    const findings = lint(twoFunctions);
    expect(rulesOf(findings)).toEqual(['no-retry-on-client-error', 'no-unsafe-write-retry', 'require-jitter']);
    expect(findings.find((f) => f.rule === 'no-unsafe-write-retry')!.text).toContain('fetch(');
  });

  it('reads two methods calling each other through this, the wait taken in the second; the call back is no use of a retrying method', () => {
    const sites = analyse(`
      class Client {
        async request(path: string, retriesLeft = 2): Promise<Response> {
          const response = await fetch(this.base + path).catch((err) => err as Error);
          if (response instanceof globalThis.Error) {
            if (retriesLeft) return this.retry(path, retriesLeft);
            throw response;
          }
          return response;
        }
        private async retry(path: string, retriesLeft: number): Promise<Response> {
          await new Promise((r) => setTimeout(r, 1000));
          return this.request(path, retriesLeft - 1);
        }
      }
    `);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ label: 'request() through retry()', attempts: 3, growth: 'constant', initialMs: 1000 });
  });

  it('does not read a wait the other function computes into a variable per call as a constant one', () => {
    const code = `
      class Api {
        async send(n = 2): Promise<Response> {
          const r = await fetch('/status').catch((e) => e);
          if (r instanceof Error) {
            if (n) return this.retry(n);
            throw r;
          }
          return r;
        }
        private async retry(n: number, header?: string): Promise<Response> {
          let ms: number | undefined;
          if (header) ms = parseFloat(header);
          if (ms === undefined) ms = this.backoff(n);
          await new Promise((r) => setTimeout(r, ms));
          return this.send(n - 1);
        }
        private backoff(n: number): number {
          return 500 * 2 ** (2 - n) * (1 - Math.random() * 0.25);
        }
      }
    `;
    expect(handWritten(code)).toMatchObject([{ attempts: 3, growth: 'unknown' }]);
    expect(lint(code)).toEqual([]);
  });

  it('leaves a cycle unread when the other function decides on its own whether to call back', () => {
    expect(handWritten(`
      export async function load(url: string, n = 0): Promise<Response> {
        try {
          return await fetch(url);
        } catch (e) {
          return retry(url, n, e);
        }
      }
      async function retry(url: string, n: number, e: unknown): Promise<Response> {
        if (n >= 3) throw e;
        return load(url, n + 1);
      }
    `)).toEqual([]);
  });

  it('stays silent on a tree walked through two functions', () => {
    expect(handWritten(`
      interface Tree { children: Tree[]; value: number }
      function sum(node: Tree): number {
        return node.value + sumChildren(node.children);
      }
      function sumChildren(nodes: Tree[]): number {
        let total = 0;
        for (const n of nodes) total += sum(n);
        return total;
      }
    `)).toEqual([]);
  });

  it('stays silent on pagination through two methods', () => {
    expect(handWritten(`
      class Pages {
        async all(cursor?: string, out: Item[] = []): Promise<Item[]> {
          const res = await fetch('/items?cursor=' + cursor);
          const page = await res.json();
          out.push(...page.items);
          if (page.next) return this.more(page.next, out);
          return out;
        }
        private more(cursor: string, out: Item[]): Promise<Item[]> {
          return this.all(cursor, out);
        }
      }
    `)).toEqual([]);
  });

  it('stays silent on a cycle entered again after a success', () => {
    expect(handWritten(`
      export async function tick(n = 0): Promise<void> {
        const res = await fetch('/heartbeat');
        if (res.ok) return next(n);
      }
      async function next(n: number): Promise<void> {
        await new Promise((r) => setTimeout(r, 5000));
        return tick(n + 1);
      }
    `)).toEqual([]);
  });
});

describe('hand-written recursion: a failure as a value, and several ways back', () => {
  it('reads a falsy result under a growing counter as a failure, and a catch path with it as one site', () => {
    const code = `
      export async function assign(session: string, conduit: string, retryCount = 0): Promise<void> {
        try {
          const ok = await updateShard(session, conduit);
          if (!ok && retryCount < 5) {
            const fresh = await conduitId();
            return assign(session, fresh, retryCount + 1);
          }
        } catch (error) {
          if (retryCount < 5) {
            const delay = Math.min(1000 * 2 ** retryCount, 30000);
            await new Promise((resolve) => setTimeout(resolve, delay));
            return assign(session, conduit, retryCount + 1);
          }
        }
      }
    `;
    const sites = handWritten(code);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ attempts: 6, filter: 'none' });
    // `updateShard` reads as a write by its verb.
    expect(rulesOf(lint(code))).toEqual(['max-retry-attempts', 'no-unsafe-write-retry']);
  });

  it('reads the immediate way back and the waiting one together: the gentlest growth, the longest waits', () => {
    const code = `
      export async function assign(session: string, retryCount = 0): Promise<void> {
        try {
          const ok = await updateShard(session);
          if (!ok && retryCount < 5) return assign(session, retryCount + 1);
        } catch (error) {
          if (retryCount < 5) {
            await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** retryCount));
            return assign(session, retryCount + 1);
          }
        }
      }
    `;
    const sites = handWritten(code);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ attempts: 6, growth: 'none', jitter: false, worstCaseMs: 31000 });
    expect(rulesOf(lint(code))).toEqual(['max-retry-attempts', 'max-retry-duration', 'no-unsafe-write-retry', 'require-exponential-backoff', 'require-jitter']);
  });

  it('reports the 4xx statuses of several ways back once', () => {
    const findings = lint(`
      export async function put(id: string, n = 0): Promise<boolean> {
        const res = await fetch('/shards/' + id, { method: 'PUT' });
        if (res.status === 401) {
          if (n < 2) return put(id, n + 1);
          return false;
        }
        if (res.status !== 202) {
          if (n < 2) return put(id, n + 1);
          return false;
        }
        return true;
      }
    `);
    const clientErrors = findings.filter((f) => f.rule === 'no-retry-on-client-error');
    expect(clientErrors).toHaveLength(1);
  });

  it('stays silent on polling until ready: a falsy answer of a predicate, or a state read from a success', () => {
    expect(handWritten(`
      export async function waitReady(id: string, n = 0): Promise<void> {
        const ready = await isReady(id);
        if (!ready && n < 10) {
          await new Promise((r) => setTimeout(r, 1000));
          return waitReady(id, n + 1);
        }
      }
      export async function waitDone(id: string, n = 0): Promise<void> {
        const job = await getJob(id);
        if (job.state !== 'done' && n < 10) {
          await new Promise((r) => setTimeout(r, 1000));
          return waitDone(id, n + 1);
        }
      }
    `)).toEqual([]);
  });

  it('stays silent on a falsy result without a counter (a loop until some other event)', () => {
    expect(handWritten(`
      export async function claim(id: string): Promise<void> {
        const got = await tryLock(id);
        if (!got) {
          await new Promise((r) => setTimeout(r, 1000));
          return claim(id);
        }
      }
    `)).toEqual([]);
  });
});

describe('hand-written recursion: a filter written as a method of the class', () => {
  const client = (shouldRetry: string) => `
    class Client {
      private refreshed = false;
      async makeRequest(path: string, retriesRemaining = 2): Promise<Response> {
        const response = await fetch(path).catch((e) => e as Error);
        if (response instanceof Error) {
          if (retriesRemaining) return this.retryRequest(path, retriesRemaining);
          throw response;
        }
        if (!response.ok) {
          if (response.status === 401 && !this.refreshed) {
            this.refreshed = true;
            return this.makeRequest(path, retriesRemaining);
          }
          const shouldRetry = await this.shouldRetry(response);
          if (retriesRemaining && shouldRetry) return this.retryRequest(path, retriesRemaining);
          throw new Error('status ' + response.status);
        }
        return response;
      }
      private async shouldRetry(response: Response): Promise<boolean> {
        ${shouldRetry}
      }
      private async retryRequest(path: string, retriesRemaining: number): Promise<Response> {
        await new Promise((r) => setTimeout(r, 500 * 2 ** (2 - retriesRemaining) * Math.random()));
        return this.makeRequest(path, retriesRemaining - 1);
      }
    }
  `;

  it('reads the method at the call, a header the server may send taken as absent, and reports a retried 4xx once, where the retry is decided', () => {
    const code = client(`
        const header = response.headers.get('x-should-retry');
        if (header === 'true') return true;
        if (header === 'false') return false;
        if (response.status === 408 || response.status === 409 || response.status === 429) return true;
        return response.status >= 500;
    `);
    const findings = lint(code).filter((f) => f.rule === 'no-retry-on-client-error');
    expect(findings).toHaveLength(1);
    expect(code.split('\n')[findings[0]!.line - 1]).toContain('retriesRemaining && shouldRetry');
    expect(handWritten(code)).toMatchObject([{ label: 'makeRequest() through retryRequest()', clientErrors: ['409'] }]);
  });

  it('reports the 4xx a method certainly retries even where another branch of it is not read', () => {
    const code = client(`
        if (response.status === 401 && this.tokens.cached()) {
          this.tokens.invalidate();
          return true;
        }
        return response.status === 409 || response.status >= 500;
    `);
    expect(handWritten(code)).toMatchObject([{ filter: 'custom', clientErrors: ['409'] }]);
    expect(lint(code).filter((f) => f.rule === 'no-retry-on-client-error')).toHaveLength(1);
  });

  it('stays silent when the method retries no 4xx', () => {
    const code = client(`
        return response.status === 408 || response.status === 429 || response.status >= 500;
    `);
    expect(lint(code).filter((f) => f.rule === 'no-retry-on-client-error')).toEqual([]);
  });
});
