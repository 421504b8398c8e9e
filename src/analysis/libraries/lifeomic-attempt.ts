import type { LibraryDescriptor } from '../library.js';
import { keyedSchedule } from '../fix-plan.js';
import { tableMigration } from '../fix-migrate.js';
import { argument, callOf } from '../library.js';
import type { RetrySite, Setting } from '../model.js';
import type { OptionsView } from '../options.js';
import { UNKNOWN_SCHEDULE, geometricSchedule, growthOfFactor, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown, type Maybe } from '../eval/values.js';
import { NO_FILTER, NO_TIMEOUT, customFilter, optionsTarget, orUnknown, site } from './shared.js';

/**
 * @lifeomic/attempt: `retry(attemptFunc, options)`. Read from `src/index.ts` of v3.1.0
 * (lifeomic/attempt, `applyDefaults`, `defaultCalculateDelay` and `retry`):
 * - `maxAttempts` counts attempts, default 3; `0` means no bound at all (`attemptsRemaining` -1).
 * - `delay` 200 ms, `factor` 0: without a factor every wait is `delay` (constant); with one the
 *   wait before retry n is delay × factor^(n−1), capped by `maxDelay` (0: no cap; the cap applies
 *   only with a factor). `delay: 0` means no wait.
 * - `jitter: true` (default false) is full jitter between `minDelay` and that wait.
 * - `timeout` (0: none) bounds each attempt; `handleTimeout` then supplies a result instead.
 * - `initialDelay` waits before the first call (not counted here, so durations stay lower bounds).
 * - `calculateDelay(context, options)` replaces the whole schedule (read as unknown).
 * - Every error is retried unless `handleError(err, context)` calls `context.abort()` or throws;
 *   `beforeAttempt` can abort too, but sees no error.
 * - The attempt function gets `{ attemptNum }` (0 on the first call) as its first argument.
 *
 * A standalone helper that composes with no breaker or bulkhead and has no metrics of its own:
 * legacy under R-RES-RE-X4, like async-retry and promise-retry (its last feature release, 3.1.0
 * with `initialJitter`, was in March 2024).
 */
export const lifeomicAttempt: LibraryDescriptor = {
  id: '@lifeomic/attempt',
  modules: ['@lifeomic/attempt'],
  attemptParameter: { index: 0, property: 'attemptNum' },
  legacy: { modules: ['@lifeomic/attempt'] },
  // `maxAttempts` counts attempts; `factor` grows `delay` up to `maxDelay`; `jitter: true` is full jitter.
  fixes: {
    schedule: keyedSchedule({
      attempts: { path: ['maxAttempts'], counts: 'attempts' },
      initialMs: ['delay'],
      multiplier: ['factor'],
      maxMs: ['maxDelay'],
      jitter: { path: ['jitter'], text: 'true' },
      jitterBound: { factor: 1 },
    }),
    // `retry(fn, options)` on the runtime: 0 means "none" for the cap and the per-attempt timeout,
    // and "no bound" for maxAttempts (brought within the guide).
    migrate: tableMigration('retry()', '@lifeomic/attempt', {
      maxAttempts: { to: 'maxAttempts', counts: 'attempts', zeroIsUnbounded: true },
      delay: { to: 'initialDelayMs' },
      factor: { to: 'multiplier' },
      maxDelay: { to: 'maxDelayMs', zeroIsNone: true },
      jitter: { to: 'dropped', accepts: 'boolean' },
      timeout: { to: 'attemptTimeoutMs', zeroIsNone: true },
    }),
  },
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      if (!call || use.path !== 'retry') continue;
      const view = ctx.options(argument(call, 1));
      const handleError = view.get('handleError');
      sites.push(site({
        library: '@lifeomic/attempt',
        label: 'retry()',
        node: call,
        reportNode: use.expression,
        ...readSchedule(view),
        attempts: attemptsOf(view),
        errorFilter: handleError.property || handleError.value !== undefined ? customFilter(handleError.property) : NO_FILTER,
        attemptTimeoutMs: timeoutOf(view),
        operation: argument(call, 0),
        options: optionsTarget(view, call, 1),
        fixes: {
          attempts: (total) => [{ path: ['maxAttempts'], text: String(total) }],
          exponential: () => [
            ...(isKnown(view.get('delay').value) && view.get('delay').value === 0 ? [{ path: ['delay'], text: '500' }] : []),
            { path: ['factor'], text: '2' },
          ],
          jitter: () => [{ path: ['jitter'], text: 'true' }],
        },
      }));
    }
    return sites;
  },
};

function attemptsOf(view: OptionsView): Setting<number> {
  const max = view.number('maxAttempts', 3);
  return max.value === 0 ? { value: Infinity, node: max.node } : totalAttempts(max, 'attempts');
}

function readSchedule(view: OptionsView) {
  const jitter = view.boolean('jitter', false);
  const custom = view.get('calculateDelay');
  if (custom.property || custom.value !== undefined) {
    return { delay: { ...UNKNOWN_SCHEDULE, node: custom.property }, jitter: { value: UNKNOWN, node: custom.property } as Setting<boolean> };
  }
  const delay = view.number('delay', 200);
  const factor = view.number('factor', 0);
  const maxDelay = view.number('maxDelay', 0);
  const initialMs = orUnknown(delay.value);
  const f = orUnknown(factor.value);
  const cap = orUnknown(maxDelay.value);
  // The cap applies only with a factor, and 0 means none.
  const maxMs: Maybe<number> = !isKnown(f) ? UNKNOWN : f === 0 ? Infinity : !isKnown(cap) ? UNKNOWN : cap === 0 ? Infinity : cap;
  return {
    delay: geometricSchedule({
      growth: growthOfFactor(f, initialMs),
      initialMs,
      multiplier: isKnown(f) && f === 0 ? 1 : f,
      maxMs,
      node: factor.node ?? delay.node ?? view.object,
    }),
    jitter,
  };
}

function timeoutOf(view: OptionsView): Setting<number | undefined> {
  const timeout = view.number('timeout', 0);
  if (!timeout.node) return NO_TIMEOUT;
  return { value: timeout.value === 0 ? undefined : timeout.value, node: timeout.node };
}
