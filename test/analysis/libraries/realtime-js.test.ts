/**
 * @supabase/realtime-js: the reconnect Timer calls connect() again after reconnectAfterMs(tries)
 * on every unrequested close, with no count that stops it: the reconnection of a long-lived socket,
 * judged only for its schedule (backoff, jitter) and only where reconnectAfterMs is written.
 */
import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import plugin from '../../../src/index.js';
import attempts from '../../../src/rules/max-retry-attempts.js';
import duration from '../../../src/rules/max-retry-duration.js';
import backoff from '../../../src/rules/require-exponential-backoff.js';
import jitter from '../../../src/rules/require-jitter.js';
import { run } from '../../helpers/rule-tester.js';

const rules = (findings: { rule: string }[]) => [...new Set(findings.map((f) => f.rule))].sort();
/** Every rule, the strict-only circuit breaker included. */
const all = { rules: plugin.configs.all.rules as Record<string, unknown> };

describe('realtime-js descriptor', () => {
  it('reads the default schedule (1, 2, 5, then 10 s forever, no randomness) as the library\'s design: no finding', () => {
    const code = `import { RealtimeClient } from '@supabase/realtime-js';\nexport const client = new RealtimeClient(process.env.REALTIME_URL!, { params: { apikey: 'k' } });`;
    const [site] = analyse(code);
    expect(site).toMatchObject({ library: '@supabase/realtime-js', attempts: Infinity, jitter: false, initialMs: 1000, clientLevel: true });
    expect(lint(code, all)).toEqual([]);
  });

  it('reads a written reconnectAfterMs: exponential with jitter is silent, however long it goes on', () => {
    const code = `import { RealtimeClient } from '@supabase/realtime-js';
      export const client = new RealtimeClient(url, { reconnectAfterMs: (tries: number) => Math.min(500 * 2 ** tries, 30000) * Math.random() });
      declare const url: string;`;
    const [site] = analyse(code);
    expect(site).toMatchObject({ attempts: Infinity, growth: 'exponential', jitter: true });
    expect(lint(code, all)).toEqual([]);
  });

  it('reads reconnectAfterMs passed through supabase-js createClient, and only when written', () => {
    const code = `import { createClient } from '@supabase/supabase-js';
      export const supabase = createClient('https://x.supabase.co', 'key', { realtime: { reconnectAfterMs: () => 3000 } });`;
    expect(analyse(code)[0]).toMatchObject({ label: "createClient()'s realtime reconnection", attempts: Infinity, growth: 'constant', jitter: false });
    expect(rules(lint(code, all))).toEqual(['require-exponential-backoff', 'require-jitter']);
    expect(analyse(`import { createClient } from '@supabase/supabase-js';\nexport const s = createClient('u', 'k', { realtime: { params: { eventsPerSecond: 10 } } });`)).toEqual([]);
    expect(analyse(`import { createClient } from '@supabase/supabase-js';\nexport const s = createClient('u', 'k');`)).toEqual([]);
  });

  it('stays silent on what it cannot read and on look-alikes', () => {
    // Whatever the waits, their shape and jitter are unknown.
    expect(lint(`import { RealtimeClient } from '@supabase/realtime-js';\nimport { backoff } from './b';\nexport const c = new RealtimeClient('wss://x', { reconnectAfterMs: backoff });`, all)).toEqual([]);
    expect(analyse(`import { RealtimeClient } from '@supabase/realtime-js';\nimport { opts } from './o';\nexport const c = new RealtimeClient('wss://x', opts);`)).toEqual([]);
    expect(analyse(`class RealtimeClient { constructor(u: string, o: object) {} }\nexport const c = new RealtimeClient('wss://x', { reconnectAfterMs: () => 1000 });`)).toEqual([]);
  });
});

const BARE = `import { RealtimeClient } from '@supabase/realtime-js'; export const c = new RealtimeClient(url); declare const url: string;`;
const CONSTANT = `import { RealtimeClient } from '@supabase/realtime-js'; export const c = new RealtimeClient('wss://x', { reconnectAfterMs: () => 1000 });`;

run('max-retry-attempts', attempts, { valid: [BARE, CONSTANT], invalid: [] });
run('max-retry-duration', duration, { valid: [BARE, CONSTANT], invalid: [] });

run('require-exponential-backoff', backoff, {
  valid: [BARE, `import { RealtimeClient } from '@supabase/realtime-js'; export const c = new RealtimeClient('wss://x', { reconnectAfterMs: (n: number) => 1000 * 2 ** n * Math.random() });`],
  invalid: [{ code: CONSTANT, errors: [{ messageId: 'constantDelay' }] }],
});

run('require-jitter', jitter, {
  valid: [BARE, `import { RealtimeClient } from '@supabase/realtime-js'; export const c = new RealtimeClient('wss://x', { reconnectAfterMs: (n: number) => 1000 * 2 ** n * Math.random() });`],
  invalid: [
    { code: `import { RealtimeClient } from '@supabase/realtime-js'; export const c = new RealtimeClient('wss://x', { reconnectAfterMs: (n: number) => 1000 * 2 ** n });`, errors: [{ messageId: 'noJitter' }] },
    { code: CONSTANT, errors: [{ messageId: 'noJitter' }] },
  ],
});
