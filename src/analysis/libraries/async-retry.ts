import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import type { LibraryDescriptor } from '../library.js';
import { argument, callOf, functionOf } from '../library.js';
import { isDefaultPath } from '../imports.js';
import type { RetrySite } from '../model.js';
import { NODE_RETRY_DEFAULTS, NODE_RETRY_SCHEDULE, NO_FILTER, customFilter, optionsTarget, readNodeRetryOptions, site } from './shared.js';

/**
 * async-retry: `retry(async (bail, attempt) => ..., opts)`; node-retry's options passed through,
 * except that `randomize` defaults to true. Calling `bail` is its error filter.
 */
export const asyncRetry: LibraryDescriptor = {
  id: 'async-retry',
  modules: ['async-retry'],
  // A standalone helper: no circuit breaker, metrics wired by hand, config in code (R-RES-RE-X4).
  legacy: { modules: ['async-retry'] },
  attemptParameter: { index: 1 },
  fixes: { schedule: NODE_RETRY_SCHEDULE },
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      if (!call || !isDefaultPath(use.path)) continue;
      const view = ctx.options(argument(call, 1));
      const read = readNodeRetryOptions(view, { ...NODE_RETRY_DEFAULTS, randomize: true });
      const operation = argument(call, 0);
      const fn = functionOf(operation, ctx);
      // A declared `bail` parameter is how async-retry code stops on errors it must not retry.
      const bail = fn?.params[0];
      const filtered = !fn || (bail !== undefined && !(bail.type === T.Identifier && bail.name.startsWith('_')));
      sites.push(site({
        library: 'async-retry',
        label: 'retry()',
        node: call,
        reportNode: use.expression,
        ...read,
        errorFilter: filtered ? customFilter(bail) : NO_FILTER,
        operation,
        options: optionsTarget(view, call, 1),
      }));
    }
    return sites;
  },
};
