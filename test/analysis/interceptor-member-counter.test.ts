import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

// The common form of an axios retry interceptor: the count kept and read on the config itself.
const INTERCEPTOR = (count: string, options = "{ baseURL: '/api' }") => `import axios from 'axios';
const api = axios.create(${options});
api.interceptors.response.use(undefined, async (error) => {
  const config = error.config;
${count}
  await new Promise((r) => setTimeout(r, 1000));
  return api(config);
});
export default api;
`;

const START_AND_STEP = `  config.__retryCount = config.__retryCount || 0;
  if (config.__retryCount >= 10) return Promise.reject(error);
  config.__retryCount += 1;`;

describe('an axios interceptor counting on the config itself', () => {
  it('reads the count from a start and a step written on the config', () => {
    const [site] = analyse(INTERCEPTOR(START_AND_STEP));
    expect(site).toMatchObject({ label: 'response interceptor re-send', attempts: 11, growth: 'constant', jitter: false });
    const rules = lint(INTERCEPTOR(START_AND_STEP)).map((f) => f.rule).sort();
    expect(rules).toEqual(['max-retry-attempts', 'max-retry-duration', 'no-retry-on-client-error', 'no-unsafe-write-retry', 'require-exponential-backoff', 'require-jitter']);
  });

  it('reads a step alone (`= (config.retries ?? 0) + 1`), and no count where two keys move', () => {
    const step = `  if ((config.retries ?? 0) >= 2) return Promise.reject(error);
  config.retries = (config.retries ?? 0) + 1;`;
    expect(analyse(INTERCEPTOR(step))[0]).toMatchObject({ attempts: 3 });
    const two = `  config.a = (config.a ?? 0) + 1;
  config.b = (config.b ?? 0) + 1;
  if (config.a >= 2) return Promise.reject(error);`;
    expect(analyse(INTERCEPTOR(two))).toEqual([]);
  });

  it('retries 4xx when nothing looks at the failure, unless the instance changes validateStatus', () => {
    const clientErrors = (options?: string) => lint(INTERCEPTOR(START_AND_STEP, options)).filter((f) => f.rule === 'no-retry-on-client-error');
    expect(clientErrors()).toHaveLength(1);
    expect(clientErrors('{ validateStatus: (s) => s < 500 }')).toHaveLength(0);
    // A status check is a filter: 5xx only, no 4xx.
    const filtered = lint(INTERCEPTOR(`  if (!(error.response?.status >= 500)) return Promise.reject(error);\n${START_AND_STEP}`)).filter((f) => f.rule === 'no-retry-on-client-error');
    expect(filtered).toHaveLength(0);
  });
});
