import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

const CONTENTFUL = `
import type { AxiosInstance } from 'axios';
const delay = (ms: number): Promise<void> => new Promise((resolve) => { setTimeout(resolve, ms); });
export default function rateLimit(instance: AxiosInstance, maxRetry = 5): void {
  instance.interceptors.response.use(
    (response) => response,
    async function (error) {
      const { response } = error;
      const { config } = error;
      if (!config) return Promise.reject(error);
      const doneAttempts = config.attempts || 1;
      if (doneAttempts > maxRetry) return Promise.reject(error);
      if (!response || response.status >= 500) {
        const wait = Math.floor(2 ** doneAttempts * 1000 + Math.random() * 200);
        config.attempts = doneAttempts + 1;
        return delay(wait).then(() => instance(config));
      }
      return Promise.reject(error);
    },
  );
}
`;

const TWILIO = `
import axios, { AxiosInstance, AxiosResponse } from 'axios';
function handler(axios: AxiosInstance, maxRetries: number) {
  return function (res: AxiosResponse) {
    const config: any = res.config;
    if (res.status !== 429) return res;
    const retryCount = (config.retryCount || 0) + 1;
    if (retryCount <= maxRetries) {
      config.retryCount = retryCount;
      const delay = Math.floor(Math.min(3000, 100 * Math.pow(2, retryCount)) * Math.random());
      return new Promise((resolve) => { setTimeout(() => resolve(axios(config)), delay); });
    }
    return res;
  };
}
export const client = axios.create();
client.interceptors.response.use(handler(client, 3));
`;

const REFRESH_ONCE = `
import axios from 'axios';
export const api = axios.create();
api.interceptors.response.use(
  (response) => response,
  async (error) => {
    const prevRequest = error?.config;
    if (error?.response?.status === 401 && !prevRequest?.sent) {
      prevRequest.sent = true;
      const token = await refresh();
      prevRequest.headers['Authorization'] = 'Bearer ' + token;
      return api(prevRequest);
    }
    return Promise.reject(error);
  },
);
declare function refresh(): Promise<string>;
`;

const GET_ONLY = CONTENTFUL.replace('if (!config) return Promise.reject(error);', "if (!config || config.method !== 'get') return Promise.reject(error);");

const POLLS_ON_SUCCESS = `
import axios from 'axios';
export const api = axios.create();
api.interceptors.response.use((response) => {
  const config: any = response.config;
  const seen = (config.polls || 0) + 1;
  if (response.status === 202 && seen < 10) {
    config.polls = seen;
    return new Promise((resolve) => setTimeout(() => resolve(api(config)), 1000));
  }
  return response;
});
`;

describe('axios response interceptors that re-send the failed request', () => {
  it('reads a counter kept on the config and the delay promise before the re-send', () => {
    const [site, ...rest] = analyse(CONTENTFUL);
    expect(rest).toEqual([]);
    expect(site).toMatchObject({ label: 'response interceptor re-send', attempts: 6, growth: 'exponential', initialMs: 2000, jitter: true, clientLevel: true, operation: 'instance', attemptsAt: 'maxRetry' });
    const rules = lint(CONTENTFUL).map((f) => f.rule);
    expect(rules).toContain('max-retry-attempts');
    expect(rules).toContain('no-unsafe-write-retry');
    expect(rules).toContain('max-retry-duration');
  });

  it('reads a re-send from a timer in a handler a factory returns; 429 only re-sends no write', () => {
    const [site] = analyse(TWILIO);
    // The factory's parameter is bound to what its call passes (3).
    expect(site).toMatchObject({ attempts: 4, refusedOnly: true, clientLevel: true, operation: 'client' });
    expect(lint(TWILIO).map((f) => f.rule)).not.toContain('no-unsafe-write-retry');
    const bounded = TWILIO.replace('retryCount <= maxRetries', 'retryCount <= 3');
    expect(analyse(bounded)[0]).toMatchObject({ attempts: 4, maxMs: 3000, jitter: true });
  });

  it('binds the factory\'s options parameter to its call in a constructor, defaults read as the code runs', () => {
    const code = `
      import axios, { AxiosInstance, AxiosResponse } from 'axios';
      function getHandler(axios: AxiosInstance, opts: { maxIntervalMillis: number; maxRetries: number }) {
        const maxIntervalMillis = opts.maxIntervalMillis;
        const maxRetries = opts.maxRetries;
        return function (res: AxiosResponse) {
          const config: any = res.config;
          if (res.status !== 429) return res;
          const retryCount = (config.retryCount || 0) + 1;
          if (retryCount <= maxRetries) {
            config.retryCount = retryCount;
            const delay = Math.floor(Math.min(maxIntervalMillis, 100 * Math.pow(2, retryCount)) * Math.random());
            return new Promise((resolve) => { setTimeout(() => resolve(axios(config)), delay); });
          }
          return res;
        };
      }
      export class RequestClient {
        axios: AxiosInstance;
        maxRetries: number;
        maxRetryDelay: number;
        constructor(opts?: { maxRetries?: number; maxRetryDelay?: number }) {
          opts = opts || {};
          this.maxRetryDelay = opts.maxRetryDelay || 3000;
          this.maxRetries = opts.maxRetries || 8;
          this.axios = axios.create();
          this.axios.interceptors.response.use(getHandler(this.axios, { maxIntervalMillis: this.maxRetryDelay, maxRetries: this.maxRetries }));
        }
      }
    `;
    expect(analyse(code)[0]).toMatchObject({ attempts: 9, maxMs: 3000, jitter: true });
    expect(lint(code).map((f) => f.rule)).toContain('max-retry-attempts');
    // A count passed from outside the file stays unknown.
    const passedIn = code.replace('maxRetries: this.maxRetries }', 'maxRetries: (opts as any).limit }');
    expect(analyse(passedIn)[0]).toMatchObject({ attempts: 'unknown' });
  });

  it('an interceptor that looks at the method is not said to re-send writes', () => {
    expect(analyse(GET_ONLY)[0]).toMatchObject({ attempts: 6 });
    expect(lint(GET_ONLY).map((f) => f.rule)).not.toContain('no-unsafe-write-retry');
  });

  it('stays silent on a refresh-then-re-send-once interceptor (a flag, no count)', () => {
    expect(analyse(REFRESH_ONCE)).toEqual([]);
    expect(lint(REFRESH_ONCE)).toEqual([]);
  });

  it('stays silent on a handler that polls on a successful response', () => {
    expect(lint(POLLS_ON_SUCCESS).map((f) => f.rule)).toEqual([]);
  });
});
