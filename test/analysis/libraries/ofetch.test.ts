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
});
