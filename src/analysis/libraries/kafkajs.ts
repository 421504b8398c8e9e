/**
 * kafkajs: `new Kafka({ retry })` (the cluster's retrier, used by every connection and metadata
 * call) and `kafka.producer({ retry, idempotent })` (the retrier around each send).
 *
 * Read from tulios/kafkajs at 2.2.4 (src/retry/defaults.js, src/retry/index.js,
 * src/producer/index.js, src/index.js): `retries` 5 (6 calls), `initialRetryTime` 300 ms,
 * `factor` 0.2 (randomisation, ±20%), `multiplier` 2, `maxRetryTime` 30 s. The first wait is
 * initialRetryTime ± factor; each next one is min(previous ± factor × multiplier, maxRetryTime).
 * A producer's retry is merged over the client's; a producer built without `retry` retries 5 times,
 * or without bound when `idempotent: true`. A producer that is not idempotent re-sends a batch
 * whose acknowledgement was lost: a retried write.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { labelOf, newOf } from '../library.js';
import type { DelaySchedule, Node, RetrySite, Setting } from '../model.js';
import type { OptionsView } from '../options.js';
import { customSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown } from '../eval/values.js';
import { LIBRARY_FILTER, optionsTarget, orUnknown, site } from './shared.js';
import { implicitWhen, instanceReferences, methodCalls, optionsArgument } from './sdk-shared.js';

const DEFAULTS = { retries: 5, initialRetryTime: 300, factor: 0.2, multiplier: 2, maxRetryTime: 30_000 };

export const kafkajs: LibraryDescriptor = {
  id: 'kafkajs',
  modules: ['kafkajs'],
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      if (use.path !== 'Kafka') continue;
      const call = newOf(use);
      if (!call) continue;
      const config = optionsArgument(call, 0, ctx);
      if (config.state === 'unknown') continue;
      const retry = config.sub('retry');
      const written = !!config.get('retry').property;
      if (retry.state !== 'unknown') {
        sites.push(site({
          library: 'kafkajs',
          label: `new ${labelOf(use.expression, ctx.sourceCode)}()`,
          node: call,
          reportNode: use.expression,
          ...readRetry(retry, undefined, written ? config.get('retry').property : undefined),
          errorFilter: LIBRARY_FILTER,
          clientLevel: true,
          ...implicitWhen(!written),
          options: optionsTarget(config, call, 0),
        }));
      }
      // kafka.producer({ retry, idempotent }): a retrier around every send.
      for (const ref of instanceReferences(call, ctx)) {
        const method = methodCalls(ref);
        if (!method || method.path.length !== 1 || method.path[0] !== 'producer') continue;
        const s = producerSite(method.call, retry, ctx);
        if (s) sites.push(s);
      }
    }
    return sites;
  },
  // `kafka.producer({ retry })` on a client built in another file: its retry options as written there.
  importedInstances: {
    constructors: ['Kafka'],
    methods: ['producer'],
    find(instances, ctx) {
      const sites: RetrySite[] = [];
      for (const instance of instances) {
        const config = optionsArgument(instance.construction, 0, instance.ctx);
        if (config.state === 'unknown') continue;
        const retry = config.sub('retry');
        for (const ref of instance.references) {
          const method = methodCalls(ref);
          if (!method || method.path.length !== 1 || method.path[0] !== 'producer') continue;
          const s = producerSite(method.call, retry, ctx, true);
          if (s) sites.push(s);
        }
      }
      return sites;
    },
  },
};

/** A producer's retrier; `remoteClient`: the client's options are written in another file (their nodes are no place to report here). */
function producerSite(call: TSESTree.CallExpression, clientRetry: OptionsView, ctx: AnalysisContext, remoteClient = false): RetrySite | undefined {
  const options = optionsArgument(call, 0, ctx);
  if (options.state === 'unknown') return undefined;
  const idempotent = options.get('idempotent');
  if (idempotent.value === UNKNOWN) return undefined;
  const retryOption = options.get('retry');
  const own = options.sub('retry');
  if (own.state === 'unknown' || (!retryOption.property && clientRetry.state === 'unknown')) return undefined;
  const isIdempotent = idempotent.value === true;
  // Without its own retry the producer uses { retries: idempotent ? MAX_SAFE_INTEGER : 5 } over the client's.
  const read = retryOption.property
    ? readRetry(own, clientRetry, retryOption.property, remoteClient)
    : { ...readRetry(clientRetry, undefined, undefined, remoteClient), attempts: { value: isIdempotent ? Infinity : DEFAULTS.retries + 1 } as Setting<number> };
  return site({
    library: 'kafkajs',
    label: `${labelOf(call.callee, ctx.sourceCode)}()`,
    node: call,
    reportNode: call.callee,
    ...read,
    errorFilter: LIBRARY_FILTER,
    clientLevel: true,
    // The broker may have appended a batch whose acknowledgement was lost; only the idempotent producer dedupes.
    retriesWrites: { value: !isIdempotent, node: idempotent.property },
    ...implicitWhen(!retryOption.property),
    options: optionsTarget(options, call, 0),
  });
}

/** The retry options of `view` merged over `base` (the client's, for a producer), then the defaults. */
function readRetry(view: OptionsView, base: OptionsView | undefined, node: Node | undefined, remote = false): { attempts: Setting<number>; delay: DelaySchedule; jitter: Setting<boolean> } {
  const local = (setting: Setting<number | undefined>): Setting<number | undefined> => (remote ? { value: setting.value } : setting);
  const get = (key: keyof typeof DEFAULTS): Setting<number | undefined> => {
    const own = view.number(key, undefined);
    if (own.node || own.value !== undefined) return base ? own : local(own);
    return base ? local(base.number(key, DEFAULTS[key])) : { value: DEFAULTS[key] };
  };
  const retries = get('retries');
  const initial = orUnknown(get('initialRetryTime').value);
  const factor = orUnknown(get('factor').value);
  const multiplier = orUnknown(get('multiplier').value);
  const max = orUnknown(get('maxRetryTime').value);
  const known = isKnown(initial) && isKnown(factor) && isKnown(multiplier) && isKnown(max);
  // Upper bound of the wait before retry n: the first is not capped, the next ones are.
  const bound = (n: number) => {
    if (!known) return UNKNOWN;
    const top = initial * (1 + factor) ** n * multiplier ** (n - 1);
    return n === 1 ? initial * (1 + factor) : Math.min(top, max);
  };
  // Capped from the second wait on, every later wait is the cap itself: constant, and no randomness left.
  const cappedAway = known && max <= initial * (1 - factor) * multiplier;
  const growth = !known ? UNKNOWN : cappedAway || multiplier <= 1 ? 'constant' as const : 'exponential' as const;
  const delay = customSchedule(growth, bound, { initialMs: initial, multiplier, maxMs: max, node: node ?? undefined });
  const jitter: Setting<boolean> = { value: known ? factor > 0 && !cappedAway : UNKNOWN, node };
  return { attempts: totalAttempts({ value: retries.value, node: retries.node ?? node }, 'retries'), delay, jitter };
}
