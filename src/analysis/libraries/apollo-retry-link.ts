import type { LibraryDescriptor } from '../library.js';
import { alwaysTrue, functionOf, labelOf, newOf } from '../library.js';
import type { DelaySchedule, ErrorFilter, RetrySite, Setting } from '../model.js';
import { UNKNOWN_SCHEDULE, customSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown, isStaticFunction, isStaticObject } from '../eval/values.js';
import type { OptionsView } from '../options.js';
import { LIBRARY_FILTER, optionsTarget, orUnknown, site } from './shared.js';
import { operationKindsRetried, optionsArgument, predicateFilter } from './sdk-shared.js';
import { keyedSchedule, type LibraryFixes } from '../fix-plan.js';

const DEFAULTS = { initial: 300, max: Infinity, jitter: true, attempts: 5 };

/** Suggestions in this library's words (fixes.ts reads this facet). */
const APOLLO_FIXES: LibraryFixes = {
  schedule: keyedSchedule({
    attempts: { path: ['attempts', 'max'], counts: 'attempts' },
    initialMs: ['delay', 'initial'],
    maxMs: ['delay', 'max'],
    jitter: { path: ['delay', 'jitter'], text: 'true' },
    jitterBound: { factor: 2, capAfterJitter: true },
  }),
};

/**
 * Apollo Client `RetryLink`: `new RetryLink({ delay: {initial, max, jitter} | fn,
 * attempts: {max, retryIf} | fn })`. `attempts.max` counts attempts including the first
 * (default 5); delays are full-jitter exponential from 300 ms by default. Without `retryIf`
 * every error reaching the link is retried (`retryIf` defaults to `!!error`): network and server
 * errors, not GraphQL errors inside a result. `HttpLink` turns every response with a status of 300
 * or more into a `ServerError`, a network error, so 4xx are retried too (Apollo Client 3,
 * `src/link/http/parseAndCheckHttpResponse.ts`; RetryLink's default in `src/link/retry/retryFunction.ts`).
 * Every operation kind goes through the link, mutations included, unless `retryIf` (or an
 * `attempts` function) reads the operation it is given.
 */
export const apolloRetryLink: LibraryDescriptor = {
  id: 'apollo-retry-link',
  modules: ['@apollo/client/link/retry', '@apollo/client', '@apollo/client/core', 'apollo-link-retry'],
  fixes: APOLLO_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      if (use.path !== 'RetryLink') continue;
      const call = newOf(use);
      if (!call) continue;
      const view = optionsArgument(call, 0, ctx);
      const attemptsOption = view.get('attempts');
      const delayOption = view.get('delay');

      let attempts: Setting<number>;
      let errorFilter: ErrorFilter;
      let retriesWrites: Setting<boolean>;
      const attemptsFn = isStaticFunction(attemptsOption.value) ? functionOf(attemptsOption.valueNode, ctx) : undefined;
      if (attemptsFn) {
        // A function replaces both the count and the filter: `() => true` never stops.
        const forever = alwaysTrue(attemptsFn, ctx);
        attempts = { value: forever ? Infinity : UNKNOWN, node: attemptsOption.property };
        errorFilter = forever
          ? { kind: 'none', clientErrors: [], retriesEverything: attemptsOption.property, node: attemptsOption.property }
          : { kind: 'custom', clientErrors: [], node: attemptsOption.property };
        // `(count, operation, error) => ...`
        retriesWrites = operationKindsRetried(attemptsOption, 1, ctx, use.expression);
      } else if (readable(attemptsOption.value)) {
        const sub = view.sub('attempts');
        attempts = totalAttempts(sub.number('max', DEFAULTS.attempts), 'attempts');
        // The default `!!error` retries every network error, 4xx ServerErrors included.
        const everyError: ErrorFilter = { ...LIBRARY_FILTER, retriesEverything: use.expression };
        errorFilter = predicateFilter(sub.get('retryIf'), ctx, everyError);
        // `retryIf(error, operation)`
        retriesWrites = operationKindsRetried(sub.get('retryIf'), 1, ctx, use.expression);
      } else {
        attempts = { value: UNKNOWN, node: attemptsOption.property };
        errorFilter = { kind: 'custom', clientErrors: [] };
        retriesWrites = { value: UNKNOWN, node: attemptsOption.property };
      }

      let delay: DelaySchedule;
      let jitter: Setting<boolean>;
      if (isStaticFunction(delayOption.value)) {
        delay = customSchedule('custom', () => UNKNOWN, { node: delayOption.property });
        jitter = { value: UNKNOWN, node: delayOption.property };
      } else if (readable(delayOption.value)) {
        ({ delay, jitter } = readDelay(view.sub('delay'), delayOption.property ?? view.object));
      } else {
        delay = UNKNOWN_SCHEDULE;
        jitter = { value: UNKNOWN, node: delayOption.property };
      }

      sites.push(site({
        library: 'apollo-retry-link',
        label: `new ${labelOf(use.expression, ctx.sourceCode)}()`,
        node: call,
        reportNode: use.expression,
        attempts,
        delay,
        jitter,
        errorFilter,
        clientLevel: true,
        retriesWrites,
        operation: call,
        options: optionsTarget(view, call, 0),
        fixes: {
          attempts: (total) => (attemptsFn ? undefined : [{ path: ['attempts', 'max'], text: String(total) }]),
          exponential: () => [{ path: ['delay'], text: '{ initial: 500, jitter: true }' }],
          jitter: () => (isStaticFunction(delayOption.value) ? undefined : [{ path: ['delay', 'jitter'], text: 'true' }]),
        },
      }));
    }
    return sites;
  },
};

/** Absent or a literal we can look into; a function or an unknown value is neither. */
function readable(value: unknown): boolean {
  return value === undefined || isStaticObject(value);
}

function readDelay(view: OptionsView, node: DelaySchedule['node']): { delay: DelaySchedule; jitter: Setting<boolean> } {
  const initial = orUnknown(view.number('initial', DEFAULTS.initial).value);
  const max = orUnknown(view.number('max', DEFAULTS.max).value);
  const jitter = view.boolean('jitter', DEFAULTS.jitter);
  const growth = isKnown(initial) && initial <= 0 ? 'none' as const : 'exponential' as const;
  // With jitter the wait before retry n is random × min(max, initial·2^n): full jitter whose
  // ceiling starts at twice `initial`; without it, min(max, initial·2^(n−1)).
  const delay = customSchedule(growth, (n) => {
    if (growth === 'none') return 0;
    if (!isKnown(initial) || !isKnown(max) || !isKnown(jitter.value)) return UNKNOWN;
    return Math.min(max, initial * 2 ** (jitter.value ? n : n - 1));
  }, { initialMs: initial, multiplier: 2, maxMs: max, node });
  return { delay, jitter };
}
