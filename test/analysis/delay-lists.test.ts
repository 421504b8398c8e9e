import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

const SLEEP = 'const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));';

describe('a for...of over a list of waits', () => {
  it('is a retry with one pass per entry, the entry being the wait after that pass', () => {
    const code = `${SLEEP}
export async function sync(url: string): Promise<Response> {
  for (const delay of [1000, 2000, 4000, 8000]) {
    try {
      return await fetch(url);
    } catch {
      await sleep(delay);
    }
  }
  return fetch(url);
}`;
    const [site] = analyse(code);
    // Four passes and the call after the loop.
    expect(site).toMatchObject({ label: 'for...of loop', attempts: 5, jitter: false, worstCaseMs: 15000 });
    expect(lint(code).map((f) => f.rule).sort()).toEqual(['max-retry-duration', 'require-jitter']);
  });

  it('reads a named list, jitter added to the entry, and a write repeated through it', () => {
    const code = `${SLEEP}
const RETRY_DELAYS = [500, 1000, 2000, 4000, 8000, 16000];
export async function post(url: string, body: string): Promise<Response> {
  let last: unknown;
  for (const ms of RETRY_DELAYS) {
    try {
      return await fetch(url, { method: 'POST', body });
    } catch (e) {
      last = e;
      await sleep(ms + Math.random() * 100);
    }
  }
  throw last;
}`;
    const [site] = analyse(code);
    expect(site).toMatchObject({ label: 'for...of loop', attempts: 6, jitter: true });
    expect(lint(code).map((f) => f.rule).sort()).toEqual(['max-retry-attempts', 'max-retry-duration', 'no-unsafe-write-retry']);
  });

  it('leaves a for...of whose variable is anything but a wait: a walk over items', () => {
    const items = `${SLEEP}
export async function each(urls: string[]) {
  for (const url of urls) {
    try { await fetch(url); } catch { await sleep(100); }
  }
}
export async function ids() {
  for (const id of [1, 2, 3]) {
    try { await fetch('/x/' + id); } catch { await sleep(id); }
  }
}`;
    expect(analyse(items)).toEqual([]);
  });

  it('reads a list spread after a first 0 whose wait an if skips, the wait before each attempt', () => {
    const code = `const RETRY_DELAYS_MS = [1000, 3000, 9000];
export async function fetchText(url: string) {
  let lastError;
  for (const delay of [0, ...RETRY_DELAYS_MS]) {
    if (delay > 0) {
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
    try {
      return await (await fetch(url)).text();
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}`;
    const [site] = analyse(code);
    expect(site).toMatchObject({ label: 'for...of loop', attempts: 4, growth: 'exponential', multiplier: 3, jitter: false, worstCaseMs: 13000 });
  });
});

