/**
 * A fetch held under another name (`const _fetch = this.fetch; _fetch(url, init)`, as replicate's
 * client calls the fetch it was given without its `this`) is that member's request; the method it
 * sends is read as for any fetch.
 */
import { describe, expect, it } from 'vitest';
import { lint } from '../helpers/model.js';

const writesAt = (code: string) => lint(code).filter((f) => f.rule === 'no-unsafe-write-retry').map((f) => f.line);

const client = (body: string) => `
import pRetry from 'p-retry';
export class Client {
  constructor(private fetch: typeof globalThis.fetch) {}
  async send(url: string, data: unknown, options: { method?: string } = {}) {
    const _fetch = this.fetch;
${body}
  }
}
`;

describe('a fetch held under another name', () => {
  it('is a request: one sending the method its caller passes (a destructured option with a GET default) is read as every method, writes included', () => {
    expect(writesAt(client(`    const { method = 'GET' } = options;
    return pRetry(() => _fetch(url, { method, body: JSON.stringify(data) }), { retries: 2 });`))).toEqual([8]);
  });

  it('stays silent for a GET, and for a method the code compares', () => {
    expect(writesAt(client(`    return pRetry(() => _fetch(url), { retries: 2 });`))).toEqual([]);
    // The method is the caller's, but compared: the code may keep writes out of the retry.
    expect(writesAt(client(`    const { method = 'GET' } = options;
    const retryOn = method === 'GET' ? [500, 502] : [429];
    return pRetry(() => _fetch(url, { method }), { retries: 2, shouldRetry: (e: any) => retryOn.includes(e.status) });`))).toEqual([]);
  });
});
