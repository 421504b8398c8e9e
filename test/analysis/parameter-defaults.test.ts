import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

/**
 * Static option reading and a destructured parameter's default (`{ retries = 8 } = {}`): the
 * default is a fact only when no caller can pass the member (issue 14, "options that travel").
 */
describe('parameter defaults in static option reading', () => {
  const helper = (calls: string, exported = '') => `
    import pRetry from 'p-retry';
    ${exported}function withRetry(fn: () => Promise<unknown>, { retries = 8, signal }: { retries?: number; signal?: AbortSignal } = {}) {
      return pRetry(fn, { retries, signal });
    }
    ${calls}
  `;

  it('reads the default when every call of a local function leaves the member out', () => {
    const code = helper(`export const a = () => withRetry(() => fetch('/a'));\nexport const b = (s: AbortSignal) => withRetry(() => fetch('/b'), { signal: s });`);
    const sites = analyse(code).filter((s) => s.library === 'p-retry');
    expect(sites.length).toBeGreaterThan(0);
    expect(sites[0]).toMatchObject({ attempts: 9 });
    expect(lint(code).map((f) => f.rule)).toContain('max-retry-attempts');
  });

  it('reads the default when one call passes the member and another does not (the other gets it)', () => {
    const code = helper(`export const a = () => withRetry(() => fetch('/a'));\nexport const b = () => withRetry(() => fetch('/b'), { retries: 2 });`);
    const sites = analyse(code).filter((s) => s.library === 'p-retry' && s.line === 4);
    expect(sites.map((s) => s.attempts)).toEqual([9]);
  });

  it('leaves it unknown when every call passes the member or an object it cannot see into', () => {
    const code = helper(`export const a = (opts: { retries?: number }) => withRetry(() => fetch('/a'), opts);\nexport const b = () => withRetry(() => fetch('/b'), { retries: 2 });`);
    const sites = analyse(code).filter((s) => s.library === 'p-retry' && s.line === 4);
    expect(sites.length).toBeGreaterThan(0);
    for (const s of sites) expect(s.attempts).toBe('unknown');
    expect(lint(code).filter((f) => f.rule === 'max-retry-attempts')).toEqual([]);
  });

  it('judges the default of an exported or handed-out function where it is written (issue 14)', () => {
    const exported = helper(`withRetry(() => fetch('/a'));`, 'export ');
    const outside = analyse(exported).filter((x) => x.library === 'p-retry' && x.line === 4);
    expect(outside.map((s) => s.attempts)).toEqual([9]);
    const found = lint(exported).filter((f) => f.rule === 'max-retry-attempts');
    expect(found).toMatchObject([{ messageId: 'tooManyAttemptsByDefault', line: 3, text: 'retries = 8' }]);
    const handed = helper(`export const run = withRetry;`);
    expect(analyse(handed).filter((x) => x.library === 'p-retry' && x.line === 4).map((s) => s.attempts)).toEqual([9]);
  });

  it('judges a plain parameter default and a destructured one with its own name (lets.church shape)', () => {
    const code = `
      import pRetry from 'p-retry';
      export async function retryablePutFile({ maxAttempts = 5, signal, ...rest }: { maxAttempts?: number; signal: AbortSignal; key: string }) {
        return pRetry(() => putFile(rest), { signal, retries: maxAttempts });
      }
      export function getWithRetry(url: string, retries = 7) {
        return pRetry(() => fetch(url), { retries, randomize: true });
      }
      declare function putFile(o: unknown): Promise<void>;
    `;
    const found = lint(code).filter((f) => f.rule === 'max-retry-attempts');
    expect(found).toMatchObject([
      { messageId: 'tooManyAttemptsByDefault', line: 3, text: 'maxAttempts = 5' },
      { messageId: 'tooManyAttemptsByDefault', line: 6, text: 'retries = 7' },
    ]);
  });

  it('stays silent on a compliant default, and on a default every local call overrides', () => {
    const compliant = `
      import pRetry from 'p-retry';
      export function getWithRetry(url: string, retries = 2) {
        return pRetry(() => fetch(url), { retries, randomize: true, maxTimeout: 2000 });
      }
    `;
    expect(lint(compliant).filter((f) => f.rule === 'max-retry-attempts')).toEqual([]);
    const overridden = `
      import pRetry from 'p-retry';
      function getWithRetry(url: string, retries = 9) {
        return pRetry(() => fetch(url), { retries, randomize: true });
      }
      export const a = () => getWithRetry('/a', 2);
      export const b = (n: number) => getWithRetry('/b', n);
    `;
    expect(lint(overridden).filter((f) => f.rule === 'max-retry-attempts')).toEqual([]);
  });
});

/**
 * Options written before a spread of the caller's options (`got(url, { retry: {...}, ...opts })`):
 * what the function writes is what a call passing no such option gets, judged where it is written,
 * unless every call of a local function passes the key.
 */
describe('options written before the caller\'s options', () => {
  const helper = (exported: string, calls = '') => `
    import got from 'got';
    ${exported}function fetchText(url: string, opts?: Record<string, unknown>) {
      const { json = false, ...rest } = opts || {};
      return got(url, { responseType: json ? 'json' : 'text', retry: { limit: 9, statusCodes: [400, 500, 502] }, ...rest });
    }
    ${calls}
  `;

  it('judges the written retry of an exported helper at the property (count and the 400 it retries)', () => {
    const rules = lint(helper('export ')).map((f) => `${f.rule} ${f.line}`);
    expect(rules).toEqual(expect.arrayContaining(['max-retry-attempts 5', 'no-retry-on-client-error 5']));
  });

  it('leaves it unknown when every call of a local helper passes its own retry (look-alike)', () => {
    const code = helper('', `export const a = () => fetchText('/a', { retry: { limit: 2 } });\nexport const b = () => fetchText('/b', { retry: { limit: 1 } });`);
    expect(lint(code).filter((f) => f.rule === 'max-retry-attempts' || f.rule === 'no-retry-on-client-error')).toEqual([]);
  });

  it('leaves it unknown when the spread is not the caller\'s options (look-alike)', () => {
    const code = helper('export ').replace('...rest });', '...loadSettings() });');
    expect(lint(code).filter((f) => f.rule === 'max-retry-attempts')).toEqual([]);
  });

  it('reads a method written before the caller\'s options as what a call passing none sends: a POST is a write, a GET not known', () => {
    const code = (method: string) => `
      import pRetry from 'p-retry';
      export function send(url: string, init?: RequestInit) {
        return pRetry(() => fetch(url, { method: '${method}', ...init }), { retries: 2, randomize: true });
      }
    `;
    expect(lint(code('POST')).map((f) => f.rule)).toContain('no-unsafe-write-retry');
    // A caller may pass another method over the GET: neither a read nor a write is claimed.
    expect(lint(code('GET')).map((f) => f.rule)).not.toContain('no-unsafe-write-retry');
  });
});
