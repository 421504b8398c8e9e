/**
 * @supabase/realtime-js: the reconnect Timer calls connect() again after reconnectAfterMs(tries)
 * on every unrequested close, with no count that stops it.
 */
import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';
import jitter from '../../../src/rules/require-jitter.js';
import { run } from '../../helpers/rule-tester.js';

const rules = (findings: { rule: string }[]) => [...new Set(findings.map((f) => f.rule))].sort();

describe('realtime-js descriptor', () => {
  it('judges the default schedule: 1, 2, 5, then 10 s forever, no randomness', () => {
    const code = `import { RealtimeClient } from '@supabase/realtime-js';\nexport const client = new RealtimeClient(process.env.REALTIME_URL!, { params: { apikey: 'k' } });`;
    const [site] = analyse(code);
    expect(site).toMatchObject({ library: '@supabase/realtime-js', attempts: Infinity, jitter: false, initialMs: 1000, clientLevel: true });
    expect(rules(lint(code))).toEqual(['max-retry-attempts', 'max-retry-duration', 'require-exponential-backoff', 'require-jitter']);
  });

  it('reads a written reconnectAfterMs: exponential with jitter is still unbounded', () => {
    const code = `import { RealtimeClient } from '@supabase/realtime-js';
      export const client = new RealtimeClient(url, { reconnectAfterMs: (tries: number) => Math.min(500 * 2 ** tries, 30000) * Math.random() });
      declare const url: string;`;
    const [site] = analyse(code);
    expect(site).toMatchObject({ attempts: Infinity, growth: 'exponential', jitter: true });
    expect(rules(lint(code))).toEqual(['max-retry-attempts', 'max-retry-duration']);
  });

  it('reads reconnectAfterMs passed through supabase-js createClient, and only when written', () => {
    const code = `import { createClient } from '@supabase/supabase-js';
      export const supabase = createClient('https://x.supabase.co', 'key', { realtime: { reconnectAfterMs: () => 3000 } });`;
    expect(analyse(code)[0]).toMatchObject({ label: "createClient()'s realtime reconnection", attempts: Infinity, growth: 'constant', jitter: false });
    expect(rules(lint(code))).toEqual(['max-retry-attempts', 'max-retry-duration', 'require-exponential-backoff', 'require-jitter']);
    expect(analyse(`import { createClient } from '@supabase/supabase-js';\nexport const s = createClient('u', 'k', { realtime: { params: { eventsPerSecond: 10 } } });`)).toEqual([]);
    expect(analyse(`import { createClient } from '@supabase/supabase-js';\nexport const s = createClient('u', 'k');`)).toEqual([]);
  });

  it('stays silent on what it cannot read and on look-alikes', () => {
    // Whatever the waits, the reconnection never stops; their shape and jitter are unknown.
    expect(rules(lint(`import { RealtimeClient } from '@supabase/realtime-js';\nimport { backoff } from './b';\nexport const c = new RealtimeClient('wss://x', { reconnectAfterMs: backoff });`))).toEqual(['max-retry-attempts', 'max-retry-duration']);
    expect(analyse(`import { RealtimeClient } from '@supabase/realtime-js';\nimport { opts } from './o';\nexport const c = new RealtimeClient('wss://x', opts);`)).toEqual([]);
    expect(analyse(`class RealtimeClient { constructor(u: string, o: object) {} }\nexport const c = new RealtimeClient('wss://x', { reconnectAfterMs: () => 1000 });`)).toEqual([]);
  });
});

run('require-jitter', jitter, {
  valid: [`import { RealtimeClient } from '@supabase/realtime-js'; export const c = new RealtimeClient('wss://x', { reconnectAfterMs: (n: number) => 1000 * 2 ** n * Math.random() });`],
  invalid: [{ code: `import { RealtimeClient } from '@supabase/realtime-js'; export const c = new RealtimeClient('wss://x', { reconnectAfterMs: (n: number) => 1000 * 2 ** n });`, errors: [{ messageId: 'noJitter' }] }],
});
