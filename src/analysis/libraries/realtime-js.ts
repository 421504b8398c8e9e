/**
 * @supabase/realtime-js: `new RealtimeClient(url, { reconnectAfterMs })`. On every close that was
 * not asked for (and on a heartbeat timeout) the client's reconnect Timer calls `connect()` again
 * after `reconnectAfterMs(tries)`, `tries` counting from 1 and reset only once connected: the
 * reconnection of a long-lived socket, which never stops. It is no request retry (a client that gave
 * up reconnecting would be broken), so the model marks it `connection: 'reconnection'`: judged only
 * for its schedule (backoff, jitter), and only where `reconnectAfterMs` is written; the default
 * steps are the library's reconnection design (`implicit`).
 *
 * Read from supabase/realtime-js at 41a65b0 (src/RealtimeClient.ts `_initializeOptions`,
 * `_setupReconnectionTimer`, `_onConnClose`; src/lib/timer.ts `scheduleTimeout`): the default
 * `reconnectAfterMs` is `[1000, 2000, 5000, 10000][tries - 1] || 10000`, steps that end at a
 * constant 10 s, no randomness; nothing bounds the count.
 *
 * @supabase/supabase-js's `createClient(url, key, { realtime })` builds that client with the
 * `realtime` options spread in (supabase/supabase-js at 00cdfd5,
 * packages/core/supabase-js/src/SupabaseClient.ts, `this._initRealtimeClient({ ..., ...settings.realtime })`);
 * it connects only once a channel is subscribed, so only a `reconnectAfterMs` written there is judged.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { callOf, functionOf, labelOf, newOf } from '../library.js';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { OptionsView } from '../options.js';
import type { Node, RetrySite } from '../model.js';
import { UNKNOWN } from '../eval/values.js';
import { customSchedule } from '../schedule.js';
import { LIBRARY_FILTER, optionsTarget, site } from './shared.js';
import { implicitWhen, optionsArgument } from './sdk-shared.js';
import { readDelayFunction, scheduleOfReading } from './delay-function.js';

const DEFAULT_STEPS = [1000, 2000, 5000, 10000];

export const realtimeJs: LibraryDescriptor = {
  id: '@supabase/realtime-js',
  modules: ['@supabase/realtime-js', '@supabase/supabase-js'],
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      if (use.module === '@supabase/realtime-js' && use.path === 'RealtimeClient') {
        const call = newOf(use);
        const s = call && realtimeSite(call, optionsArgument(call, 1, ctx), 1, use.expression, ctx);
        if (s) sites.push(s);
      } else if (use.module === '@supabase/supabase-js' && use.path === 'createClient') {
        const call = callOf(use);
        const realtime = call ? optionsArgument(call, 2, ctx).sub('realtime') : undefined;
        // Judged only where reconnectAfterMs is written: the default client may never connect.
        if (!call || !realtime || realtime.state !== 'object' || !realtime.get('reconnectAfterMs').property) continue;
        const s = realtimeSite(call, realtime, 2, use.expression, ctx);
        if (s) sites.push(s);
      }
    }
    return sites;
  },
};

function realtimeSite(call: TSESTree.NewExpression | TSESTree.CallExpression, options: OptionsView, index: number, callee: Node, ctx: AnalysisContext): RetrySite | undefined {
  if (options.state === 'unknown') return undefined;
  const option = options.get('reconnectAfterMs');
  const node = option.property;
  let read: Pick<RetrySite, 'delay' | 'jitter'>;
  if (!node && option.value === undefined) {
    // From the fourth reconnection on every wait is 10 s, and nothing ends them: a constant schedule.
    const at = (n: number) => DEFAULT_STEPS[Math.min(n, DEFAULT_STEPS.length) - 1]!;
    read = { delay: customSchedule('constant', at, { initialMs: at(1), multiplier: 1, maxMs: at(DEFAULT_STEPS.length) }), jitter: { value: false } };
  } else {
    const reading = functionOf(option.valueNode, ctx) ? readDelayFunction(option.valueNode, ctx, ['n']) : undefined;
    read = reading
      ? { delay: scheduleOfReading(reading, node), jitter: { value: reading.jitter, node } }
      : { delay: { ...customSchedule(UNKNOWN, () => UNKNOWN), node }, jitter: { value: UNKNOWN, node } };
  }
  return site({
    library: '@supabase/realtime-js',
    label: `${call.type === T.NewExpression ? 'new ' : ''}${labelOf(callee, ctx.sourceCode)}()'s realtime reconnection`,
    node: call,
    reportNode: callee,
    // The Timer re-arms on every close: no count stops it.
    attempts: { value: Infinity, node },
    ...read,
    errorFilter: LIBRARY_FILTER,
    clientLevel: true,
    connection: 'reconnection',
    ...implicitWhen(!node),
    options: optionsTarget(options, call, index),
  });
}
