import { describe, expect, it } from 'vitest';
import { lint } from '../helpers/model.js';

/**
 * A private method that retries by calling itself with its counter moved on: every call that
 * starts it is in its class, so what they all pass is where the counter starts, and the count and
 * the time are judged once, in the method (not at each call).
 */
const client = (method: string, calls: string) => `
  import { setTimeout as sleep } from 'node:timers/promises';
  export class Client {
    ${method} async retryRequest(request, args, counter): Promise<void> {
      try {
        return await request(args);
      } catch (error) {
        if (error.response.status === 429 && counter < 7) {
          await sleep(1000 * counter);
          return await this.retryRequest(request, args, counter + 1);
        }
        throw error;
      }
    }
    ${calls}
  }
`;
const START_AT_ZERO = `
    async a() { return this.retryRequest(send, '/a', 0); }
    async b() { return this.retryRequest(send, '/b', 0); }
`;
const findings = (code: string) => lint(code).map((f) => ({ line: f.line, rule: f.rule }));
/** The method is lines 4-15 of \`client\`; the calls start at line 16. */
const inMethod = (code: string) => findings(code).filter((f) => f.line < 16).map((f) => f.rule).sort();
const atCalls = (code: string) => findings(code).filter((f) => f.line >= 16).map((f) => f.rule);

describe('a private recursive method started by its class', () => {
  it('starts the counter at what every call in the class passes, judged once in the method', () => {
    const code = client('private', START_AT_ZERO);
    expect(inMethod(code)).toEqual(['max-retry-attempts', 'max-retry-duration', 'require-exponential-backoff', 'require-jitter']);
    expect(atCalls(code)).toEqual([]);
  });

  it('leaves the start to each call when the calls disagree, the method is public, or the class passes it on uncalled', () => {
    const counted = (code: string) => inMethod(code).filter((r) => r === 'max-retry-attempts' || r === 'max-retry-duration');
    expect(counted(client('private', `${START_AT_ZERO} async c() { return this.retryRequest(send, '/c', 5); }`))).toEqual([]);
    expect(counted(client('public', START_AT_ZERO))).toEqual([]);
    expect(counted(client('', START_AT_ZERO))).toEqual([]);
    expect(counted(client('private', `${START_AT_ZERO} later() { return [1].map(this.retryRequest); }`))).toEqual([]);
    expect(counted(client('private', ''))).toEqual([]);
  });
});
