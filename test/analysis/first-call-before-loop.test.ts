import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

const FERN = `
const MAX_RETRY_DELAY = 60000;
function isRetryableStatusCode(statusCode: number): boolean {
  return [408, 429].includes(statusCode) || statusCode >= 500;
}
function retryDelay(response: Response, attempt: number): number {
  const retryAfter = response.headers.get('Retry-After');
  if (retryAfter) {
    const seconds = parseInt(retryAfter, 10);
    if (!Number.isNaN(seconds) && seconds > 0) {
      return Math.min(seconds * 1000, MAX_RETRY_DELAY);
    }
  }
  return Math.min(1000 * 2 ** attempt, MAX_RETRY_DELAY) * (1 + (Math.random() - 0.5) * 0.2);
}
export async function requestWithRetries(requestFn: () => Promise<Response>, maxRetries = 2): Promise<Response> {
  let response: Response = await requestFn();
  for (let i = 0; i < maxRetries; ++i) {
    if (isRetryableStatusCode(response.status)) {
      const delay = retryDelay(response, i);
      await new Promise((resolve) => setTimeout(resolve, delay));
      response = await requestFn();
    } else {
      break;
    }
  }
  return response;
}
`;

const POLL = `
export async function waitForJob(url: string): Promise<Response> {
  let response = await fetch(url);
  for (let i = 0; i < 10; ++i) {
    if (response.status === 202) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      response = await fetch(url);
    } else {
      break;
    }
  }
  return response;
}
`;

describe('a loop whose first call is made before it', () => {
  it('counts the call before the loop, and bounds a wait capped by Math.min whatever its other side', () => {
    const [site] = analyse(FERN);
    // 2 passes of the loop, each a retry, after the first call: 3 calls; each wait at most 60 s.
    expect(site).toMatchObject({ label: 'for loop', attempts: 3, growth: 'unknown', jitter: true, worstCaseMs: 120000 });
    const rules = lint(FERN).map((f) => f.rule);
    expect(rules).toContain('max-retry-duration');
    // The Retry-After branch hides the growth: no backoff finding on a guess.
    expect(rules).not.toContain('require-exponential-backoff');
  });

  it('stays silent on a loop that polls while the response says 202', () => {
    expect(analyse(POLL)).toEqual([]);
    expect(lint(POLL)).toEqual([]);
  });
});
