import type { LibraryDescriptor } from '../library.js';
import { callOf, labelOf } from '../library.js';
import type { ErrorFilter, RetrySite, Setting } from '../model.js';
import type { OptionsView } from '../options.js';
import { customSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown, type Maybe } from '../eval/values.js';
import { NO_FILTER, optionsTarget, site } from './shared.js';
import { durationMs, implicitWhen, optionsArgument, writesNone, written } from './sdk-shared.js';

const DEFAULT_INITIAL_MS = 1000;
const DEFAULT_COEFFICIENT = 2;
/** `maximumInterval` defaults to 100 × `initialInterval`. */
const DEFAULT_MAX_FACTOR = 100;

/**
 * Temporal activity retries: `proxyActivities({ startToCloseTimeout, scheduleToCloseTimeout,
 * retry: { maximumAttempts, initialInterval, backoffCoefficient, maximumInterval,
 * nonRetryableErrorTypes } })` (and `proxyLocalActivities`) from `@temporalio/workflow`.
 * A durable engine: the server schedules each retry. `maximumAttempts` counts attempts and 0
 * or absent means unlimited; intervals are `ms`-style durations (`'1s'`, `'500 ms'`) or
 * numbers of ms; the server adds no jitter. Every error is retried unless it is a
 * non-retryable ApplicationFailure or listed in `nonRetryableErrorTypes`.
 */
export const temporal: LibraryDescriptor = {
  id: 'temporal',
  modules: ['@temporalio/workflow'],
  kind: 'durable',
  // The server adds no jitter and RetryPolicy has no setting for it.
  engine: { jitterSetting: false },
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      if (use.path !== 'proxyActivities' && use.path !== 'proxyLocalActivities') continue;
      const call = callOf(use);
      if (!call) continue;
      const view = optionsArgument(call, 0, ctx);
      const retry = view.sub('retry');
      const retryProperty = view.get('retry').property;

      const max = retry.number('maximumAttempts', 0);
      const attempts: Setting<number> = max.value === 0 || max.value === Infinity
        ? { value: Infinity, node: max.node ?? retryProperty }
        : totalAttempts(max, 'attempts');

      const initial = duration(retry, 'initialInterval');
      const coefficient = retry.number('backoffCoefficient', DEFAULT_COEFFICIENT);
      const maximum = duration(retry, 'maximumInterval');
      const initialMs = initial.value ?? DEFAULT_INITIAL_MS;
      const factor = coefficient.value ?? DEFAULT_COEFFICIENT;
      const cap: Maybe<number> = maximum.value !== undefined ? maximum.value
        : isKnown(initialMs) ? initialMs * DEFAULT_MAX_FACTOR : UNKNOWN;
      const growth = !isKnown(initialMs) ? UNKNOWN : initialMs <= 0 ? 'none' as const
        : !isKnown(factor) ? UNKNOWN : factor > 1 ? 'exponential' as const : 'constant' as const;
      const delay = customSchedule(growth, (n) => {
        if (growth === 'none') return 0;
        if (!isKnown(initialMs) || !isKnown(factor) || !isKnown(cap)) return UNKNOWN;
        return Math.min(initialMs * Math.max(factor, 1) ** (n - 1), cap);
      }, { initialMs, multiplier: factor, maxMs: cap, node: coefficient.node ?? initial.node ?? retryProperty });

      const nonRetryable = retry.get('nonRetryableErrorTypes');
      const errorFilter: ErrorFilter = written(retry, 'nonRetryableErrorTypes')
        ? { kind: 'custom', clientErrors: [], node: nonRetryable.property }
        : NO_FILTER;

      // Suggestions edit the `retry` object itself when it is written (inline or in a const).
      const inRetry = !!retry.object;
      const prefix = inRetry ? [] : ['retry'];
      sites.push(site({
        library: 'temporal',
        label: `${labelOf(use.expression, ctx.sourceCode)}()`,
        kind: 'durable',
        node: call,
        reportNode: use.expression,
        attempts,
        delay,
        jitter: { value: false },
        errorFilter,
        deadlineMs: duration(view, 'scheduleToCloseTimeout'),
        attemptTimeoutMs: duration(view, 'startToCloseTimeout'),
        // Activities retry by default; without a written `retry` the policy is the server's.
        ...implicitWhen(writesNone(view, ['retry'])),
        clientLevel: true,
        operation: call,
        options: inRetry ? { object: retry.object } : optionsTarget(view, call, 0),
        fixes: {
          attempts: (total) => [{ path: [...prefix, 'maximumAttempts'], text: String(total) }],
          exponential: () => [{ path: [...prefix, 'backoffCoefficient'], text: '2' }],
        },
      }));
    }
    return sites;
  },
};

function duration(view: OptionsView, key: string): Setting<number | undefined> {
  const v = view.get(key);
  return { value: durationMs(v.value), node: v.property };
}
