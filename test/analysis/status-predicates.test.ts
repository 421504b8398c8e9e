import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

// A response judged by a function of the file, not by `res.status` written in the loop.
const LOOP = (predicate: string, call = 'shouldRetry(res)') => `
${predicate}
export async function charge(url: string, body: string): Promise<Response> {
  for (let i = 0; i < 6; i++) {
    const res = await fetch(url, { method: 'POST', body });
    if (!${call}) return res;
    await new Promise((r) => setTimeout(r, 1000 * 2 ** i));
  }
  throw new Error('gave up');
}
`;

const PREDICATE = `function shouldRetry(res: Response): boolean {
  return res.status >= 500 || res.status === 409;
}`;

const METHOD = `
class Payments {
  private isRetryable(response: Response): boolean {
    if (response.status === 409) return true;
    return response.status >= 500;
  }
  async pay(url: string, n = 0): Promise<Response> {
    const response = await fetch(url, { method: 'POST' });
    if (n < 3 && this.isRetryable(response)) {
      await new Promise((r) => setTimeout(r, 400 * 2 ** n));
      return this.pay(url, n + 1);
    }
    return response;
  }
}
`;

// An SDK's response class with a status getter, judged by a static method of the class, re-armed through a timer.
const STATIC = `
interface SdkResponse { getStatusCode(): number; getHeaders(): Record<string, string> }
declare const http: { send(path: string, method: string): Promise<SdkResponse> };
export class Sender {
  static shouldRetry(res: SdkResponse | null, numRetries: number, maxRetries: number): boolean {
    if (numRetries >= maxRetries) return false;
    if (!res) return true;
    if (res.getHeaders()['x-should-retry'] === 'false') return false;
    if (res.getStatusCode() === 409) return true;
    return res.getStatusCode() >= 500;
  }
  request(path: string, numRetries = 0): void {
    http.send(path, 'GET').then((res) => {
      if (Sender.shouldRetry(res, numRetries, 2)) {
        setTimeout(() => this.request(path, numRetries + 1), 500 * 2 ** numRetries);
        return;
      }
      console.log(res.getStatusCode());
    });
  }
}
`;

describe('a response judged by a function of the file', () => {
  it('reads a loop whose response goes to a predicate function as a retry on the statuses that function picks', () => {
    const [site] = analyse(LOOP(PREDICATE));
    expect(site).toMatchObject({ label: 'for loop', attempts: 6, jitter: false, operation: "fetch(url, { method: 'POST', body })" });
    expect(site!.clientErrors).toEqual(['409']);
    const rules = lint(LOOP(PREDICATE)).map((f) => f.rule).sort();
    expect(rules).toEqual(['max-retry-attempts', 'max-retry-duration', 'no-retry-on-client-error', 'no-unsafe-write-retry', 'require-jitter']);
  });

  it('reads a const arrow predicate the same way, and nothing where the predicate reads no response', () => {
    const arrow = 'const shouldRetry = (res: Response) => res.status >= 500;';
    expect(analyse(LOOP(arrow))).toHaveLength(1);
    // `isDone(res)` reads the body, not the response's status: a poll as far as the loop shows.
    const body = 'function shouldRetry(res: { state: string }): boolean { return res.state !== "done"; }';
    expect(analyse(LOOP(body))).toHaveLength(0);
  });

  it('reads a recursion through a method of the class that judges the response', () => {
    const [site] = analyse(METHOD);
    expect(site).toMatchObject({ label: 'recursive pay()', attempts: 4, jitter: false });
    expect(site!.clientErrors).toEqual(['409']);
    const rules = lint(METHOD).map((f) => f.rule);
    expect(rules).toContain('no-unsafe-write-retry');
    expect(rules).toContain('no-retry-on-client-error');
  });

  it("reads a static method of the class and an SDK response's status getter", () => {
    const [site] = analyse(STATIC);
    expect(site).toMatchObject({ attempts: 3, jitter: false });
    expect(site!.clientErrors).toEqual(['409']);
    const rules = lint(STATIC).map((f) => f.rule);
    expect(rules).toContain('no-retry-on-client-error');
    expect(rules).toContain('require-jitter');
  });
});
