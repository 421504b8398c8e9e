import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';

describe('ofetch descriptor', () => {
  it("bad: Nuxt's global $fetch.create retrying a 403 at once", () => {
    const code = `
      export default defineNuxtPlugin(() => {
        const api = $fetch.create({ retryStatusCodes: [403], retry: 1, baseURL: '/api' });
        return { provide: { api } };
      });
    `;
    const sites = analyse(code);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ library: 'ofetch', label: '$fetch.create()', attempts: 2, growth: 'none', clientErrors: ['403'], clientLevel: true });
    const rules = lint(code).map((f) => f.rule);
    expect(rules).toEqual(expect.arrayContaining(['no-retry-on-client-error', 'require-exponential-backoff', 'require-jitter']));
    expect(rules).not.toContain('no-unsafe-write-retry');
  });

  it('a $fetch the file declares is its own function (look-alike)', () => {
    const code = `
      const $fetch = { create: (o: object) => o };
      export const api = $fetch.create({ retryStatusCodes: [403], retry: 5 });
    `;
    expect(analyse(code)).toEqual([]);
  });

  it('bad: a per-call retry on a POST, with a constant retryDelay', () => {
    const code = `
      import { ofetch } from 'ofetch';
      export const pay = (body: object) => ofetch('/charges', { method: 'POST', body, retry: 3, retryDelay: 500 });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ attempts: 4, attemptsAt: 'retry: 3', growth: 'constant', initialMs: 500, jitter: false, filter: 'library-default' });
    const rules = lint(code).map((f) => f.rule);
    expect(rules).toEqual(expect.arrayContaining(['require-exponential-backoff', 'require-jitter']));
  });

  it('a client retrying 5xx (or a network error) with retry written re-sends writes wherever it is used', () => {
    const code = `
      import { ofetch } from 'ofetch';
      export const api = ofetch.create({ retry: 2, retryDelay: (ctx) => 1000 * Math.random(), retryStatusCodes: [500, 503] });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ attempts: 3, jitter: true });
    expect(lint(code).map((f) => f.rule)).toContain('no-unsafe-write-retry');
  });

  it('calls that write no retry option are no sites (look-alike), and retry: false is none', () => {
    const code = `
      import { ofetch } from 'ofetch';
      const api = ofetch.create({ baseURL: '/api', retry: false });
      export const a = () => ofetch('/users');
      export const b = () => api('/users', { method: 'POST', body: {} });
    `;
    const sites = analyse(code);
    expect(sites.every((s) => s.attempts === 1)).toBe(true);
    expect(lint(code)).toEqual([]);
  });
  it('reads a retryDelay function of the countdown context.options.retry against the written count', () => {
    // retry: 4 sees options.retry = 4, 3, 2, 1 before its retries: waits 500 ms, 1 s, 2 s, 4 s.
    const code = `
      import { ofetch } from 'ofetch';
      export const api = ofetch.create({ retry: 4, retryDelay: (ctx) => 500 * 2 ** (4 - Number(ctx.options.retry)) });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ attempts: 5, growth: 'exponential', initialMs: 500, multiplier: 2, jitter: false });
    const rules = lint(code).map((f) => f.rule);
    expect(rules).toContain('require-jitter');
    expect(rules).toContain('max-retry-duration');
    expect(rules).not.toContain('require-exponential-backoff');
  });

  it('with a count it cannot read, a function of options.retry stays unknown (no report on its waits)', () => {
    const code = `
      import { ofetch } from 'ofetch';
      export const make = (n: number) => ofetch.create({ retry: n, retryDelay: (ctx) => 500 * 2 ** (4 - Number(ctx.options.retry)) });
    `;
    const rules = lint(code).map((f) => f.rule);
    expect(rules).not.toContain('require-exponential-backoff');
    expect(rules).not.toContain('require-jitter');
    expect(rules).not.toContain('max-retry-duration');
  });
});
