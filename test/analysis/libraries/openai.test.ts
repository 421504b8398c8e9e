import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import { suggestions } from './suggest.js';

describe('openai descriptor', () => {
  it('reads the defaults: 2 retries (3 calls), 0.5 s doubling capped at 8 s, jittered (fine)', () => {
    const code = `
      import OpenAI from 'openai';
      const client = new OpenAI();
      export const ask = (q: string) => client.chat.completions.create({ model, messages: [{ role: 'user', content: q }] });
    `;
    const sites = analyse(code);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({
      library: 'openai', label: 'new OpenAI()', attempts: 3, growth: 'exponential', initialMs: 500, maxMs: 8000,
      jitter: true, filter: 'library-default', clientLevel: true, worstCaseMs: 1500,
    });
    expect(lint(code)).toEqual([]);
  });

  it('reads named and CommonJS forms with written options: the written count re-sends POSTs and 409s', () => {
    const code = `
      const { OpenAI } = require('openai');
      const openai = new OpenAI({ apiKey: process.env.OPENAI_API_KEY, maxRetries: 1, timeout: 2000 });
      module.exports = openai;
    `;
    const [site] = analyse(code, { js: true });
    expect(site).toMatchObject({ attempts: 2, attemptsAt: 'maxRetries: 1', attemptTimeoutMs: 2000, worstCaseMs: 500 + 4000 });
    // The schedule is fine; what the SDK retries is not: every method on connection errors (a
    // completion is a POST with no key) and 409.
    expect(lint(code, { js: true }).map((f) => [f.rule, f.text])).toEqual([
      ['no-retry-on-client-error', 'maxRetries: 1'],
      ['no-unsafe-write-retry', 'maxRetries: 1'],
    ]);
    // Turned off: nothing is re-sent.
    expect(lint(`import OpenAI from 'openai'; export const c = new OpenAI({ maxRetries: 0 });`)).toEqual([]);
  });

  it('reports a client built under a condition and exported', () => {
    const code = `
      import { OpenAI } from 'openai';
      export const openai = key ? new OpenAI({ apiKey: key, maxRetries: 5, timeout: 60000 }) : null;
    `;
    const rules = lint(code).map((f) => f.rule);
    expect(rules).toEqual(expect.arrayContaining(['max-retry-attempts', 'max-retry-duration', 'no-retry-on-client-error', 'no-unsafe-write-retry']));
  });

  it('flags many retries and a long per-attempt timeout (bad)', () => {
    const code = `
      import OpenAI from 'openai';
      const openai = new OpenAI({ maxRetries: 8, timeout: 60 * 1000 });
    `;
    expect(analyse(code)[0]).toMatchObject({ attempts: 9, attemptTimeoutMs: 60000 });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'maxRetries: 8' }));
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'max-retry-duration' }));
  });

  it('finds per-request maxRetries (bad)', () => {
    const code = `
      import OpenAI from 'openai';
      const openai = new OpenAI();
      await openai.embeddings.create({ model, input }, { maxRetries: 10 });
    `;
    const sites = analyse(code);
    expect(sites[1]).toMatchObject({ label: 'openai.embeddings.create()', attempts: 11, clientLevel: false });
    expect(lint(code)).toContainEqual(expect.objectContaining({ rule: 'max-retry-attempts', text: 'maxRetries: 10' }));
  });

  it('recognises the Anthropic SDK, generated the same way', () => {
    const [site] = analyse(`import Anthropic from '@anthropic-ai/sdk'; const anthropic = new Anthropic({ maxRetries: 4 });`);
    expect(site).toMatchObject({ library: 'anthropic', attempts: 5, maxMs: 8000 });
  });

  it('suggests maxRetries: 2 for 3 calls', () => {
    const applied = suggestions(`import OpenAI from 'openai';\nnew OpenAI({ maxRetries: 7 });`);
    expect(applied.find((s) => s.rule === 'max-retry-attempts')?.output).toContain('new OpenAI({ maxRetries: 2 })');
  });
});
