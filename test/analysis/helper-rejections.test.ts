import { describe, expect, it } from 'vitest';
import { lint } from '../helpers/model.js';

// A helper of the file that sends what its caller passes and throws on a failed response.
const FETCH_ONCE = `async function fetchOnce(url: string, options: RequestInit) {
  const res = await fetch(url, options);
  if (!res.ok) throw new Error(String(res.status));
  return res.text();
}`;

const clientErrors = (code: string) => lint(code).filter((f) => f.rule === 'no-retry-on-client-error').map((f) => f.messageId);

describe("a helper's rejection on 4xx when its own operations leave the kind to its name", () => {
  it('counts for a hand-written loop that catches everything around it', () => {
    const code = `${FETCH_ONCE}
export async function load(url: string, options: RequestInit = {}) {
  let last: unknown;
  for (let i = 0; i < 3; i++) {
    try {
      return await fetchOnce(url, options);
    } catch (e) {
      last = e;
      await new Promise((r) => setTimeout(r, 100 * 2 ** i * Math.random()));
    }
  }
  throw last;
}`;
    expect(clientErrors(code)).toEqual(['unfilteredHttp']);
  });

  it('counts for a library retry with no filter, and not for a helper that catches its own failure', () => {
    const wrapped = `import pRetry from 'p-retry';
${FETCH_ONCE}
export const load = (url: string, options: RequestInit) => pRetry(() => fetchOnce(url, options), { retries: 2, randomize: true, minTimeout: 100 });`;
    expect(clientErrors(wrapped)).toEqual(['unfilteredHttp']);
    const caught = wrapped.replace('if (!res.ok) throw new Error(String(res.status));', 'if (!res.ok) return undefined;');
    expect(clientErrors(caught)).toEqual([]);
  });
});
