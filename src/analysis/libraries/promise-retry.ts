import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { LibraryDescriptor } from '../library.js';
import { argument, callOf, isFunctionNode } from '../library.js';
import { isDefaultPath } from '../imports.js';
import type { Node, RetrySite } from '../model.js';
import type { AnalysisContext } from '../library.js';
import { nodeRetryOptions, type Migration } from '../fix-migrate.js';
import { unwrap } from '../ast.js';
import { NODE_RETRY_DEFAULTS, NODE_RETRY_SCHEDULE, customFilter, optionsTarget, readNodeRetryOptions, site } from './shared.js';
import { callbackFilter, type CallbackFilter } from '../hand-written/callback-filter.js';

/**
 * promise-retry: `promiseRetry((retry, n) => op().catch(retry), opts)` or `promiseRetry(opts, fn)`.
 * Retrying is opt-in per error (only errors handed to `retry` are retried), so it always has a filter:
 * the conditions on the way to each `retry(err)` call, read status by status where they can be
 * (hand-written/callback-filter.ts), with the methods a guard on the request's method lets through.
 * `@gar/promise-retry` (npm's fork, read at 1.0.2 lib/index.js) exports `{ promiseRetry }`, takes
 * the function first only, and keeps the options and their defaults.
 */
export const promiseRetry: LibraryDescriptor = {
  id: 'promise-retry',
  modules: ['promise-retry', '@gar/promise-retry'],
  // A standalone helper: no circuit breaker, metrics wired by hand, config in code (R-RES-RE-X4).
  legacy: { modules: ['promise-retry', '@gar/promise-retry'] },
  attemptParameter: { index: 1 },
  fixes: { schedule: NODE_RETRY_SCHEDULE, migrate: promiseRetryMigration },
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      const entry = use.module === '@gar/promise-retry' ? use.path === 'promiseRetry' : isDefaultPath(use.path);
      if (!call || !entry) continue;
      const first = argument(call, 0);
      const optionsFirst = !!first && !isFunctionNode(first) && (first.type === T.ObjectExpression || isFunctionNode(argument(call, 1)));
      const optionsIndex = optionsFirst ? 0 : 1;
      const view = ctx.options(argument(call, optionsIndex));
      const operation = argument(call, optionsFirst ? 1 : 0);
      const read = retryCalls(operation, ctx);
      sites.push(site({
        library: 'promise-retry',
        label: 'promiseRetry()',
        node: call,
        reportNode: use.expression,
        ...readNodeRetryOptions(view, NODE_RETRY_DEFAULTS),
        errorFilter: read?.filter ?? customFilter(),
        ...(read?.methods ? { retriedMethods: read.methods } : {}),
        operation,
        options: optionsTarget(view, call, optionsIndex),
      }));
    }
    return sites;
  },
};

/** The filter of a retried function written at the call, read from its calls of the `retry` parameter. */
function retryCalls(operation: Node | undefined, ctx: AnalysisContext): CallbackFilter | undefined {
  const fn = operation && unwrap(operation);
  if (!fn || (fn.type !== T.ArrowFunctionExpression && fn.type !== T.FunctionExpression) || fn.params[0]?.type !== T.Identifier) return undefined;
  const name = fn.params[0].name;
  const retry = ctx.sourceCode.getDeclaredVariables(fn).find((v) => v.name === name);
  return retry ? callbackFilter(ctx, fn, retry) : undefined;
}

/**
 * `promiseRetry((retry) => op().catch(retry), opts)` retries every rejection of `op()`: on the
 * runtime that is `() => op()`. A function that hands `retry` only some errors, or reads the
 * attempt number, decides per error in a way that has no equivalent.
 */
function promiseRetryMigration(site: RetrySite, ctx: AnalysisContext): Migration {
  if (site.node.type !== T.CallExpression || site.node.arguments.length > 2) return 'only promiseRetry(fn, options) calls are migrated';
  const fn = site.operation && unwrap(site.operation);
  if (!fn || (fn.type !== T.ArrowFunctionExpression && fn.type !== T.FunctionExpression)) return 'the retried function is not written at the promise-retry call';
  const [retryParam, ...rest] = fn.params;
  const body = fn.body.type === T.BlockStatement && fn.body.body.length === 1 && fn.body.body[0]!.type === T.ReturnStatement ? fn.body.body[0]!.argument : fn.body;
  const call = body && unwrap(body);
  const passesAll = retryParam?.type === T.Identifier && rest.length === 0 && call?.type === T.CallExpression &&
    call.callee.type === T.MemberExpression && !call.callee.computed && call.callee.property.type === T.Identifier &&
    call.callee.property.name === 'catch' && call.arguments.length === 1 && call.arguments[0]!.type === T.Identifier &&
    call.arguments[0]!.name === retryParam.name &&
    // `retry` is referenced only there: no other error is handed to it.
    (ctx.sourceCode.getDeclaredVariables(fn).find((v) => v.name === retryParam.name)?.references.length ?? 0) === 1;
  if (!passesAll || call?.type !== T.CallExpression || call.callee.type !== T.MemberExpression) {
    return "the retried function decides per error through promise-retry's retry callback";
  }
  const options = nodeRetryOptions(argument(site.node, site.options?.argumentIndex ?? 1), ctx, false);
  if (typeof options === 'string') return options;
  const asyncPrefix = fn.async ? 'async ' : '';
  return { fn: `${asyncPrefix}() => ${ctx.sourceCode.getText(call.callee.object)}`, ...options };
}
