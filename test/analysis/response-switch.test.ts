import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

// A loop on a response (no try/catch) whose status is chosen by a `switch` after the request.
const LOOP = (cases: string) => `
export async function load(url: string): Promise<Response> {
  for (let i = 0; i < 3; i++) {
    const res = await fetch(url);
    if (res.ok) return res;
    switch (res.status) {
${cases}
    }
    await new Promise((r) => setTimeout(r, 200 * 2 ** i * Math.random()));
  }
  throw new Error('gave up');
}
`;

describe('a switch on the response status in a retry loop', () => {
  it('retries only the cases that go on, and no 4xx when those are all 5xx', () => {
    const serverOnly = LOOP(`      case 502:
      case 503:
        break;
      default:
        throw new Error('no retry');`);
    const [site] = analyse(serverOnly);
    expect(site).toMatchObject({ label: 'for loop', attempts: 3, clientErrors: [], retriesEverything: false });
    expect(lint(serverOnly).map((f) => f.rule)).not.toContain('no-retry-on-client-error');
  });

  it('names the 4xx cases that go on', () => {
    const some = LOOP(`      case 404:
      case 500:
        break;
      case 410:
        continue;
      default:
        throw new Error('no retry');`);
    expect(analyse(some)[0]!.clientErrors).toEqual(['404', '410']);
  });

  it('reads a flag the loop sets from the response on each attempt (`ok = res.ok`) as the response', () => {
    const code = `const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export async function check(url: string) {
  let tries = 0;
  let ok = false;
  let res: Response | undefined;
  do {
    res = await fetch(url);
    ok = res.ok;
    if (!ok) await sleep(3000);
    tries++;
  } while (!ok && tries < 6);
  return res;
}`;
    const [site] = analyse(code);
    expect(site).toMatchObject({ label: 'do...while loop', attempts: 6, growth: 'constant', jitter: false, retriesEverything: true });
  });
});

