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

  it('leaves it unknown when one call passes the member', () => {
    const code = helper(`export const a = () => withRetry(() => fetch('/a'));\nexport const b = () => withRetry(() => fetch('/b'), { retries: 2 });`);
    const sites = analyse(code).filter((s) => s.library === 'p-retry' && s.line === 4);
    expect(sites.length).toBeGreaterThan(0);
    for (const s of sites) expect(s.attempts).toBe('unknown');
  });

  it('leaves it unknown when a call passes an object it cannot see into', () => {
    const code = helper(`export const a = (opts: { retries?: number }) => withRetry(() => fetch('/a'), opts);`);
    const sites = analyse(code).filter((s) => s.library === 'p-retry' && s.line === 4);
    expect(sites.length).toBeGreaterThan(0);
    for (const s of sites) expect(s.attempts).toBe('unknown');
  });

  it('leaves it unknown when the function is exported (callers elsewhere) or handed out', () => {
    const exported = helper(`withRetry(() => fetch('/a'));`, 'export ');
    const outside = analyse(exported).filter((x) => x.library === 'p-retry' && x.line === 4);
    expect(outside.length).toBeGreaterThan(0);
    for (const s of outside) expect(s.attempts).toBe('unknown');
    const handed = helper(`export const run = withRetry;`);
    for (const s of analyse(handed).filter((x) => x.library === 'p-retry' && x.line === 4)) expect(s.attempts).toBe('unknown');
  });
});
