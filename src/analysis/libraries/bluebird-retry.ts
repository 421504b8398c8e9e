import type { TSESTree } from '@typescript-eslint/utils';
import type { AnalysisContext, LibraryDescriptor, LibraryUse } from '../library.js';
import { argument, callOf, functionOf } from '../library.js';
import { isDefaultPath } from '../imports.js';
import type { ErrorFilter, Node, OptionEdit, RetrySite, Setting } from '../model.js';
import { customSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown } from '../eval/values.js';
import { usesPathInside } from './generic-helpers.js';
import { NO_FILTER, customFilter, optionsTarget, orUnknown, site } from './shared.js';
import { keyedSchedule, type LibraryFixes } from '../fix-plan.js';
import { tableMigration } from '../fix-migrate.js';

/** Suggestions in this library's words (fixes.ts reads this facet). */
const BLUEBIRD_FIXES: LibraryFixes = {
  schedule: keyedSchedule({
    attempts: { path: ['max_tries'], counts: 'attempts' },
    initialMs: ['interval'],
    multiplier: ['backoff'],
    maxMs: ['max_interval'],
  }),
  // `retry(fn, options)` on the runtime: `timeout` is an overall deadline like the runtime's.
  migrate: tableMigration('retry()', 'bluebird-retry', {
    max_tries: { to: 'maxAttempts', counts: 'attempts' },
    interval: { to: 'initialDelayMs' },
    backoff: { to: 'multiplier' },
    max_interval: { to: 'maxDelayMs' },
    timeout: { to: 'deadlineMs' },
    predicate: { to: 'filter' },
  }),
};

/**
 * bluebird-retry: `retry(fn, { max_tries, interval, backoff, max_interval, timeout, predicate })`.
 * `max_tries` counts ATTEMPTS; it defaults to 5 only when neither `max_tries` nor `timeout` is
 * set (with only `timeout`, tries are unlimited until the deadline). `interval` 1000 ms, constant
 * unless `backoff` multiplies it; `max_interval` caps the multiplied waits. `timeout` is an
 * overall deadline. `predicate` and throwing `retry.StopError` filter errors.
 */
export const bluebirdRetry: LibraryDescriptor = {
  id: 'bluebird-retry',
  modules: ['bluebird-retry'],
  // A standalone helper: no circuit breaker, metrics wired by hand, config in code (R-RES-RE-X4).
  legacy: { modules: ['bluebird-retry'] },
  fixes: BLUEBIRD_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      if (!call || !isDefaultPath(use.path)) continue;
      const view = ctx.options(argument(call, 1));
      const maxTries = view.get('max_tries');
      const timeoutSetting = view.number('timeout', undefined);
      const timeout = timeoutSetting.value;
      // `!max_tries && !giveup_time` picks the default: 0 and a falsy timeout count as unset.
      let attempts: Setting<number>;
      const tries = maxTries.value;
      if (typeof tries === 'number' && tries > 0) attempts = totalAttempts({ value: tries, node: maxTries.property }, 'attempts');
      else if (tries !== undefined && tries !== 0) attempts = { value: UNKNOWN, node: maxTries.property };
      else if (!isKnown(timeout)) attempts = { value: UNKNOWN, node: timeoutSetting.node };
      // Only a deadline: tries are unlimited until it passes (the library default, so no node).
      else if (timeout) attempts = { value: Infinity };
      else attempts = { value: 5, node: maxTries.property };

      const interval = orUnknown(view.number('interval', 1000).value);
      const backoff = view.number('backoff', undefined);
      const factor = backoff.value === undefined ? 1 : orUnknown(backoff.value);
      const maxInterval = view.number('max_interval', undefined);
      const cap = maxInterval.value === undefined || maxInterval.value === 0 ? Infinity : orUnknown(maxInterval.value);
      const growth = !isKnown(interval) ? UNKNOWN
        : interval <= 0 ? 'none'
        : !isKnown(factor) ? UNKNOWN
        : factor > 1 ? 'exponential' : 'constant';
      // The first wait is `interval` as written; later ones are multiplied, then capped.
      const delay = customSchedule(growth, (n) => {
        if (!isKnown(interval) || !isKnown(factor) || !isKnown(cap)) return UNKNOWN;
        if (interval <= 0) return 0;
        const f = factor || 1;
        return n <= 1 ? interval : Math.min(interval * f ** (n - 1), cap);
      }, { initialMs: interval, multiplier: factor, maxMs: cap, node: backoff.node ?? view.get('interval').property ?? view.object });

      const operation = argument(call, 0);
      sites.push(site({
        library: 'bluebird-retry',
        label: 'retry()',
        node: call,
        reportNode: use.expression,
        attempts,
        delay,
        jitter: { value: false },
        errorFilter: filterOf(view.get('predicate').property, operation, uses, ctx),
        deadlineMs: { value: isKnown(timeout) ? timeout || undefined : UNKNOWN, node: timeoutSetting.node },
        operation,
        options: optionsTarget(view, call, 1),
        fixes: {
          attempts: (total: number): OptionEdit[] => [{ path: ['max_tries'], text: String(total) }],
          exponential: (): OptionEdit[] => [
            ...(isKnown(interval) && interval <= 0 ? [{ path: ['interval'], text: '500' }] : []),
            { path: ['backoff'], text: '2' },
          ],
        },
      }));
    }
    return sites;
  },
};

function filterOf(predicate: TSESTree.Property | undefined, operation: Node | undefined, uses: readonly LibraryUse[], ctx: AnalysisContext): ErrorFilter {
  if (predicate) return customFilter(predicate);
  const fn = functionOf(operation, ctx);
  // Throwing `retry.StopError` ends the retries; an operation we cannot see might do so.
  if (!fn) return customFilter();
  return usesPathInside(uses, 'StopError', fn) ? customFilter() : NO_FILTER;
}
