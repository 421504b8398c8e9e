import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { alwaysTrue, argument, callOf, functionOf } from '../library.js';
import type { ErrorFilter, RetrySite } from '../model.js';
import type { OptionValue } from '../options.js';
import { geometricSchedule, growthOfFactor, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown } from '../eval/values.js';
import { NO_FILTER, customFilter, optionsTarget, orUnknown, site } from './shared.js';
import { keyedSchedule, type LibraryFixes } from '../fix-plan.js';
import { tableMigration } from '../fix-migrate.js';

/** Suggestions in this library's words (fixes.ts reads this facet). */
const EXPONENTIAL_BACKOFF_FIXES: LibraryFixes = {
  schedule: keyedSchedule({
    attempts: { path: ['numOfAttempts'], counts: 'attempts' },
    initialMs: ['startingDelay'],
    multiplier: ['timeMultiple'],
    maxMs: ['maxDelay'],
    jitter: { path: ['jitter'], text: "'full'" },
    jitterBound: { factor: 1 },
  }),
  // `backOff(fn, options)` on the runtime: the runtime always grows and jitters its waits.
  migrate: tableMigration('backOff()', 'exponential-backoff', {
    numOfAttempts: { to: 'maxAttempts', counts: 'attempts' },
    startingDelay: { to: 'initialDelayMs' },
    timeMultiple: { to: 'multiplier' },
    maxDelay: { to: 'maxDelayMs' },
    jitter: { to: 'dropped', accepts: ['none', 'full'] },
    delayFirstAttempt: { to: 'only', value: false },
    retry: { to: 'filter' },
  }),
};

/**
 * exponential-backoff (Coveo): `backOff(fn, { numOfAttempts, startingDelay, timeMultiple,
 * maxDelay, jitter, delayFirstAttempt, retry })`. `numOfAttempts` counts attempts (minimum 1,
 * default 10); waits are startingDelay × timeMultiple^(n−1), capped by maxDelay before jitter.
 */
export const exponentialBackoff: LibraryDescriptor = {
  id: 'exponential-backoff',
  modules: ['exponential-backoff'],
  // A standalone helper: no circuit breaker, metrics wired by hand, config in code (R-RES-RE-X4).
  legacy: { modules: ['exponential-backoff'] },
  fixes: EXPONENTIAL_BACKOFF_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      if (!call || use.path !== 'backOff') continue;
      const view = ctx.options(argument(call, 1));
      const attempts = totalAttempts(view.number('numOfAttempts', 10), 'attempts');
      const starting = view.number('startingDelay', 100);
      const multiple = view.number('timeMultiple', 2);
      const maxDelay = view.number('maxDelay', Infinity);
      const delayFirst = view.boolean('delayFirstAttempt', false);
      const jitterOption = view.get('jitter');
      const jitterValue = !jitterOption.property && jitterOption.value === undefined ? false
        : jitterOption.value === 'full' ? true
        : jitterOption.value === 'none' || jitterOption.value === undefined ? false
        : UNKNOWN;
      // With `delayFirstAttempt` every wait moves one step up the curve (the first call waits too).
      const initial = orUnknown(starting.value);
      const factor = orUnknown(multiple.value);
      const firstWait = delayFirst.value === false ? initial
        : delayFirst.value === true && isKnown(initial) && isKnown(factor) ? initial * factor : UNKNOWN;
      const delay = geometricSchedule({
        growth: growthOfFactor(factor, initial),
        initialMs: firstWait,
        multiplier: factor,
        maxMs: orUnknown(maxDelay.value),
        node: multiple.node ?? starting.node ?? view.object,
      });
      const operation = argument(call, 0);
      sites.push(site({
        library: 'exponential-backoff',
        label: 'backOff()',
        node: call,
        reportNode: use.expression,
        attempts,
        delay,
        jitter: { value: jitterValue, node: jitterOption.property },
        errorFilter: filterOf(view.get('retry'), ctx),
        operation,
        options: optionsTarget(view, call, 1),
        fixes: {
          attempts: (total) => [{ path: ['numOfAttempts'], text: String(total) }],
          exponential: () => [
            ...(isKnown(initial) && initial <= 0 ? [{ path: ['startingDelay'], text: '500' }] : []),
            { path: ['timeMultiple'], text: '2' },
          ],
          jitter: () => [{ path: ['jitter'], text: "'full'" }],
        },
      }));
    }
    return sites;
  },
};

/** Every error is retried unless `retry(e, n)` says otherwise; the operation has no way to stop it. */
function filterOf(retry: OptionValue, ctx: AnalysisContext): ErrorFilter {
  if (!retry.property && retry.value === undefined) return NO_FILTER;
  // `retry: () => true` is the library default spelled out: no filter at all.
  if (alwaysTrue(functionOf(retry.valueNode, ctx), ctx)) return { ...NO_FILTER, node: retry.property };
  return customFilter(retry.property);
}
