import type { LibraryDescriptor } from '../library.js';
import { argument, callOf, functionOf, isFunctionNode } from '../library.js';
import { isDefaultPath } from '../imports.js';
import { retryableErrorArrow } from '../fix-filters.js';
import type { HttpCall } from '../operations/types.js';
import { predicateClientErrors } from './http-shared.js';
import type { AnalysisContext } from '../library.js';
import { nodeRetryCall, type Migration } from '../fix-migrate.js';
import type { Node, OptionEdit, RetrySite } from '../model.js';
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { memberName, unwrap, walk } from '../ast.js';
import { abortFilter, constructsAbort } from '../hand-written/abort-filter.js';
import { NODE_RETRY_DEFAULTS, NODE_RETRY_SCHEDULE, NO_FILTER, customFilter, optionsTarget, readNodeRetryOptions, site, usesImportInside, writtenOptionKeys } from './shared.js';
import { LOGGER_NAME } from '../operations/vocabulary.js';

/**
 * p-retry: `pRetry(fn, {retries})`, `makeRetriable(fn, opts)`; retries default 10, no jitter. The
 * retried function stops the retry by throwing `AbortError`: what it throws at each status is read
 * (hand-written/abort-filter.ts) when nothing else decides (`shouldRetry`, `onFailedAttempt`). A
 * `shouldRetry` is read as the HTTP clients' predicates are: the 4xx its returned terms accept.
 */
export const pRetry: LibraryDescriptor = {
  id: 'p-retry',
  modules: ['p-retry'],
  // A standalone helper: no circuit breaker, metrics wired by hand, config in code (R-RES-RE-X4).
  legacy: { modules: ['p-retry'] },
  attemptParameter: { index: 0 },
  fixes: { schedule: NODE_RETRY_SCHEDULE, clientErrors: pRetryClientErrors, migrate: pRetryMigration },
  // `const POLICY: WrapOptions = {...}`: the options read as the library reads them, filter unknown.
  optionsType: { names: ['Options'], read: (view) => ({ ...readNodeRetryOptions(view, { ...NODE_RETRY_DEFAULTS, forever: true }), errorFilter: customFilter() }) },
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      if (!call || !(isDefaultPath(use.path) || use.path === 'makeRetriable')) continue;
      const view = ctx.options(argument(call, 1));
      const read = readNodeRetryOptions(view, { ...NODE_RETRY_DEFAULTS, forever: true });
      const operation = argument(call, 0);
      const fn = functionOf(operation, ctx);
      const shouldRetry = view.get('shouldRetry');
      // Options the view cannot read may still be followed to where they are written, for their keys.
      const keys = view.state === 'unknown' ? writtenOptionKeys(ctx, argument(call, 1)) : undefined;
      const written = (key: string) => (keys ? keys.has(key) : !!view.get(key).property || view.get(key).value !== undefined);
      const predicate = written('shouldRetry');
      // An `onFailedAttempt` that throws also stops the retry: only without one is the function's
      // own AbortError all there is to read.
      const aborts = !predicate && (usesImportInside(ctx, 'p-retry', 'AbortError', fn) || (!!fn && constructsAbort(ctx, fn, isAbortError)));
      const readable = aborts && isFunctionNode(fn) && !written('onFailedAttempt');
      const abortRead = readable ? abortFilter(ctx, fn as TSESTree.FunctionLike, isAbortError) : undefined;
      // p-retry stops when onFailedAttempt throws: a handler that may throw decides which errors go on.
      const handler = view.get('onFailedAttempt');
      const stops = written('onFailedAttempt') && mayStop(handler.valueNode, ctx);
      const filtered = predicate || aborts || stops || !isFunctionNode(fn);
      sites.push(site({
        library: 'p-retry',
        label: use.path === 'makeRetriable' ? 'makeRetriable()' : 'pRetry()',
        node: call,
        reportNode: use.expression,
        ...read,
        errorFilter: abortRead ?? (filtered ? { ...customFilter(predicate || !stops ? shouldRetry.property : handler.property), clientErrors: predicate ? predicateClientErrors(shouldRetry.valueNode, ctx, {}) : [] } : NO_FILTER),
        operation,
        options: optionsTarget(view, call, 1),
      }));
    }
    return sites;
  },
};

/**
 * Whether an `onFailedAttempt` may stop the retry, which it does by throwing (or returning a
 * rejection): a handler that cannot be read, one with a `throw` or a `Promise.reject(...)`, or one
 * that hands the failure itself to another function (`this.onFailedAttempt?.(error)`, which may
 * throw), other than to a logger (`console`, `logger`, `log`, `this.logger`). A handler that only logs what it was told (`log(error.message)`,
 * a template) lets every error go on.
 */
function mayStop(node: Node | undefined, ctx: AnalysisContext): boolean {
  const fn = functionOf(node, ctx);
  if (!fn?.body) return true;
  const failure = new Set<unknown>(ctx.sourceCode.scopeManager?.getDeclaredVariables(fn) ?? []);
  let stops = false;
  walk(fn.body, (n) => {
    if (stops) return;
    if (n.type === T.ThrowStatement) stops = true;
    else if (n.type === T.CallExpression) {
      const callee = unwrap(n.callee);
      const owner = callee.type === T.MemberExpression ? unwrap(callee.object) : undefined;
      const named = (o: Node | undefined, name: string) => o?.type === T.Identifier && o.name === name && !ctx.evaluator.shadowed(o);
      if (named(owner, 'Promise') && memberName(callee) === 'reject') stops = true;
      else if (!isLogger(owner, named)) {
        stops = n.arguments.some((a) => a.type === T.Identifier && failure.has(ctx.evaluator.variableOf(a)));
      }
    }
  });
  return stops;
}

/** A receiver that logs (`console`, `logger`, `log`, `this.logger`): handing it the failure stops nothing. */
function isLogger(owner: Node | undefined, named: (o: Node | undefined, name: string) => boolean): boolean {
  if (!owner) return false;
  if (owner.type === T.MemberExpression && unwrap(owner.object).type === T.ThisExpression) return LOGGER_NAME.test(memberName(owner) ?? '');
  return owner.type === T.Identifier && LOGGER_NAME.test(owner.name) && (owner.name !== 'console' || named(owner, 'console'));
}

/** `AbortError` imported from p-retry (`new AbortError(err)`, `err instanceof AbortError`). */
function isAbortError(callee: Node, ctx: AnalysisContext): boolean {
  const ref = ctx.imports.resolve(callee);
  return ref?.module === 'p-retry' && ref.path === 'AbortError';
}

/** p-retry 7+ hands `shouldRetry` a context `{ error, attemptNumber, retriesLeft }`. */
function pRetryClientErrors(site: RetrySite, _ctx: AnalysisContext, httpCalls: readonly HttpCall[]): OptionEdit[] | undefined {
  if (site.errorFilter.kind !== 'none') return undefined;
  const text = retryableErrorArrow('{ error }', 'error', httpCalls);
  return text ? [{ path: ['shouldRetry'], text }] : undefined;
}

/** `pRetry(() => ..., opts)` on the runtime; `signal` moves to the `read` call. */
function pRetryMigration(site: RetrySite, ctx: AnalysisContext): Migration {
  if (site.label !== 'pRetry()' || site.node.type !== 'CallExpression' || site.node.arguments.length > 2) return 'only pRetry(fn, options) calls are migrated';
  return nodeRetryCall(site.node.arguments[0], site.node.arguments[1], ctx, 'p-retry', true);
}
