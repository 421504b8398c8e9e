import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

const TOOLKIT = (maxTries: string) => `
const HttpResponseRetryCodes = [502, 503, 504];
const ExponentialBackoffCeiling = 10;
const ExponentialBackoffTimeSlice = 5;
interface Raw { message: { statusCode?: number }; readBody(): Promise<string> }
export class HttpClient {
  async request(verb: string, data: string): Promise<Raw> {
    const maxTries = ${maxTries};
    let numTries = 0;
    let response: Raw | undefined;
    do {
      response = await this.requestRaw(verb, data);
      if (!response.message.statusCode || !HttpResponseRetryCodes.includes(response.message.statusCode)) {
        return response;
      }
      numTries += 1;
      if (numTries < maxTries) {
        await response.readBody();
        await this._performExponentialBackoff(numTries);
      }
    } while (numTries < maxTries);
    return response;
  }
  private async requestRaw(verb: string, data: string): Promise<Raw> { return {} as Raw; }
  private async _performExponentialBackoff(retryNumber: number): Promise<void> {
    retryNumber = Math.min(ExponentialBackoffCeiling, retryNumber);
    const ms: number = ExponentialBackoffTimeSlice * Math.pow(2, retryNumber);
    return new Promise((resolve) => setTimeout(() => resolve(), ms));
  }
}
`;

const REDIRECTS = `
export class Client {
  async get(url: string): Promise<{ message: { statusCode?: number; headers: Record<string, string> } }> {
    let response = await this.raw(url);
    let left = 50;
    while (response.message.statusCode === 302 && left > 0) {
      url = response.message.headers['location']!;
      response = await this.raw(url);
      left--;
    }
    return response;
  }
  private async raw(url: string) { return { message: { statusCode: 200, headers: {} as Record<string, string> } }; }
}
`;

describe("node's response.message.statusCode and a sleep helper that reassigns its parameter", () => {
  it('reads a do-while retry on response.message.statusCode and a wait whose parameter is capped first', () => {
    const [site] = analyse(TOOLKIT('3'));
    expect(site).toMatchObject({ label: 'do...while loop', attempts: 3, growth: 'exponential', initialMs: 10, multiplier: 2, jitter: false, filter: 'statuses' });
    const rules = lint(TOOLKIT('3')).map((f) => f.rule);
    expect(rules).toContain('require-jitter');
    expect(rules).not.toContain('require-exponential-backoff');
    expect(rules).not.toContain('no-retry-on-client-error');
  });

  it('one try in all is no retry', () => {
    expect(lint(TOOLKIT('1'))).toEqual([]);
  });

  it('stays silent on a loop that follows redirects', () => {
    expect(lint(REDIRECTS)).toEqual([]);
  });
});
