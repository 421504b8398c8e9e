import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import type { LibraryDescriptor } from '../library.js';
import { argument, callOf, isFunctionNode } from '../library.js';
import { isDefaultPath } from '../imports.js';
import type { RetrySite } from '../model.js';
import { NODE_RETRY_DEFAULTS, NODE_RETRY_SCHEDULE, customFilter, optionsTarget, readNodeRetryOptions, site } from './shared.js';

/**
 * promise-retry: `promiseRetry((retry, n) => op().catch(retry), opts)` or `promiseRetry(opts, fn)`.
 * Retrying is opt-in per error (only errors handed to `retry` are retried), so it always has a filter.
 */
export const promiseRetry: LibraryDescriptor = {
  id: 'promise-retry',
  modules: ['promise-retry'],
  // A standalone helper: no circuit breaker, metrics wired by hand, config in code (R-RES-RE-X4).
  legacy: { modules: ['promise-retry'] },
  attemptParameter: { index: 1 },
  fixes: { schedule: NODE_RETRY_SCHEDULE },
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      if (!call || !isDefaultPath(use.path)) continue;
      const first = argument(call, 0);
      const optionsFirst = !!first && !isFunctionNode(first) && (first.type === T.ObjectExpression || isFunctionNode(argument(call, 1)));
      const optionsIndex = optionsFirst ? 0 : 1;
      const view = ctx.options(argument(call, optionsIndex));
      sites.push(site({
        library: 'promise-retry',
        label: 'promiseRetry()',
        node: call,
        reportNode: use.expression,
        ...readNodeRetryOptions(view, NODE_RETRY_DEFAULTS),
        errorFilter: customFilter(),
        operation: argument(call, optionsFirst ? 1 : 0),
        options: optionsTarget(view, call, optionsIndex),
      }));
    }
    return sites;
  },
};
