import type { LibraryDescriptor } from '../library.js';
import { callOf, labelOf } from '../library.js';
import type { ErrorFilter, RetrySite, Setting } from '../model.js';
import type { OptionsView } from '../options.js';
import { customSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown, type Maybe } from '../eval/values.js';
import { LIBRARY_FILTER, optionsTarget, site } from './shared.js';
import { operationKindsRetried, optionsArgument, predicateFilter, written } from './sdk-shared.js';
import { keyedSchedule, type LibraryFixes } from '../fix-plan.js';

const DEFAULTS = { initialDelayMs: 1000, maxDelayMs: 15_000, maxNumberAttempts: 2, randomDelay: true };
/** With `randomDelay` each retry multiplies the previous wait by a random factor in [1.5, 2.5). */
const MAX_RANDOM_FACTOR = 2.5;

/** Suggestions in this library's words (fixes.ts reads this facet). */
const URQL_FIXES: LibraryFixes = {
  schedule: keyedSchedule({
    attempts: { path: ['maxNumberAttempts'], counts: 'attempts' },
    initialMs: ['initialDelayMs'],
    exponential: { path: ['randomDelay'], text: 'true' },
    maxMs: ['maxDelayMs'],
    jitter: { path: ['randomDelay'], text: 'true' },
    jitterBound: { factor: 1.5 },
  }),
};

/**
 * urql `retryExchange({ initialDelayMs, maxDelayMs, randomDelay, maxNumberAttempts, retryIf,
 * retryWith })`. `maxNumberAttempts` counts attempts including the first (default 2). The
 * numeric options are read with `||`, so a written 0 means the default. Without
 * `randomDelay` the wait grows linearly (retryCount × initialDelayMs). Only network errors
 * are retried unless `retryIf`/`retryWith` says otherwise, but urql's fetch exchange makes a
 * network error of any non-2xx response whose body is not a GraphQL result, so such 4xx are
 * retried by default. Every operation kind is retried, mutations included, unless `retryIf`
 * reads the operation it is given (`retryIf(error, operation)`).
 */
export const urqlRetryExchange: LibraryDescriptor = {
  id: 'urql-retry-exchange',
  modules: ['@urql/exchange-retry'],
  fixes: URQL_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      if (use.path !== 'retryExchange') continue;
      const call = callOf(use);
      if (!call) continue;
      const view = optionsArgument(call, 0, ctx);
      const initial = orDefault(view, 'initialDelayMs', DEFAULTS.initialDelayMs);
      const max = orDefault(view, 'maxDelayMs', DEFAULTS.maxDelayMs);
      const count = orDefault(view, 'maxNumberAttempts', DEFAULTS.maxNumberAttempts);
      const random = view.get('randomDelay');
      // `randomDelay != null ? !!randomDelay : true`
      const jitter: Setting<boolean> = random.value === undefined ? { value: true, node: random.property }
        : random.value === UNKNOWN || typeof random.value === 'object' ? { value: UNKNOWN, node: random.property }
        : { value: !!random.value, node: random.property };
      const growth = jitter.value === UNKNOWN ? UNKNOWN : jitter.value ? 'exponential' as const : 'linear' as const;
      const delay = customSchedule(growth, (n) => bound(n, initial.value, max.value, jitter.value), {
        initialMs: initial.value,
        multiplier: jitter.value === true ? 2 : UNKNOWN,
        maxMs: max.value,
        node: random.property ?? initial.property ?? view.object,
      });

      const retryWith = view.get('retryWith');
      const networkErrors: ErrorFilter = { ...LIBRARY_FILTER, clientErrors: [{ status: '4xx without a GraphQL body', node: use.expression }] };
      let errorFilter = predicateFilter(view.get('retryIf'), ctx, networkErrors);
      if (errorFilter === networkErrors && written(view, 'retryWith')) errorFilter = { kind: 'custom', clientErrors: [], node: retryWith.property };
      // `retryWith(error, operation)` returns the operation to send again (or null): it reads it by design.
      const retriesWrites: Setting<boolean> = view.state === 'unknown' ? { value: UNKNOWN }
        : written(view, 'retryWith') ? { value: UNKNOWN, node: retryWith.property }
        : operationKindsRetried(view.get('retryIf'), 1, ctx, use.expression);

      sites.push(site({
        library: 'urql-retry-exchange',
        label: `${labelOf(use.expression, ctx.sourceCode)}()`,
        node: call,
        reportNode: use.expression,
        attempts: totalAttempts({ value: count.value, node: count.property }, 'attempts'),
        delay,
        jitter,
        errorFilter,
        clientLevel: true,
        retriesWrites,
        operation: call,
        options: optionsTarget(view, call, 0),
        fixes: {
          attempts: (total) => [{ path: ['maxNumberAttempts'], text: String(total) }],
          exponential: () => [{ path: ['randomDelay'], text: 'true' }],
          jitter: () => [{ path: ['randomDelay'], text: 'true' }],
        },
      }));
    }
    return sites;
  },
};

/** A numeric option read as `option || fallback`. */
function orDefault(view: OptionsView, key: string, fallback: number): { value: Maybe<number>; property: ReturnType<OptionsView['get']>['property'] } {
  const v = view.get(key);
  if (v.value === UNKNOWN) return { value: UNKNOWN, property: v.property };
  if (typeof v.value === 'number') return { value: v.value || fallback, property: v.property };
  if (!v.value) return { value: fallback, property: v.property };
  return { value: UNKNOWN, property: v.property };
}

function bound(n: number, initial: Maybe<number>, max: Maybe<number>, random: Maybe<boolean>): Maybe<number> {
  if (!isKnown(initial) || !isKnown(max) || !isKnown(random)) return UNKNOWN;
  if (!random) return Math.min(n * initial, max);
  // The factor is only applied while the product stays under the cap, so a wait never exceeds
  // it, but an initial delay already above the cap is kept as is.
  return Math.max(initial, Math.min(initial * MAX_RANDOM_FACTOR ** n, max));
}
