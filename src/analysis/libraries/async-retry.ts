import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { LibraryDescriptor } from '../library.js';
import { argument, callOf, functionOf } from '../library.js';
import { isDefaultPath } from '../imports.js';
import type { OptionEdit, RetrySite } from '../model.js';
import type { AnalysisContext } from '../library.js';
import type { HttpCall } from '../operations/types.js';
import { clientErrorTest, statusOfText } from '../fix-filters.js';
import { nameInUse } from '../fix-imports.js';
import { applyWithin, nodeRetryCall, nodeRetryOptions, type Migration } from '../fix-migrate.js';
import { findVariable, isFunctionNode } from '../ast.js';
import { unwrap } from '../ast.js';
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
  fixes: {
    schedule: NODE_RETRY_SCHEDULE,
    clientErrors: bailOnClientErrors,
    migrate: asyncRetryMigration,
  },
  // `const POLICY: WrapOptions = {...}`: the options read as the library reads them, filter unknown.
  optionsType: { names: ['Options'], read: (view) => ({ ...readNodeRetryOptions(view, { ...NODE_RETRY_DEFAULTS, randomize: true }), errorFilter: customFilter() }) },
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

/**
 * async-retry stops on an error through `bail`: the retried function, written inline without
 * parameters, takes `bail` and calls it on a 4xx other than 408 and 429. The error thrown after it
 * carries `bail: true`, which async-retry reads as "do not retry" (a plain rethrow after `bail`
 * would still schedule the next attempt), and keeps the function's return type unchanged.
 */
function bailOnClientErrors(site: RetrySite, ctx: AnalysisContext, httpCalls: readonly HttpCall[]): OptionEdit[] | undefined {
  if (site.errorFilter.kind !== 'none' || !site.operation) return undefined;
  const fn = unwrap(site.operation);
  if (fn.type !== T.ArrowFunctionExpression && fn.type !== T.FunctionExpression) return undefined;
  if (fn.params.length > 0 || fn.generator || !fn.body || nameInUse(ctx, 'bail', fn) || nameInUse(ctx, 'error', fn) || nameInUse(ctx, 'status', fn)) return undefined;
  const source = ctx.sourceCode;
  const status = statusOfText('error', httpCalls);
  if (!status) return undefined;
  const guard = `const status = ${status}; if (${clientErrorTest('status')}) { bail(Object(error)); throw Object.assign(new Error('not retried: HTTP ' + String(status)), { bail: true }); }`;
  const body = fn.body.type === T.BlockStatement
    ? source.getText(fn.body).slice(1, -1).trim()
    : `return await (${source.getText(fn.body)});`;
  const wrapped = `{ try { ${body} } catch (error) { ${guard} throw error; } }`;
  const text = fn.type === T.ArrowFunctionExpression ? `async (bail) => ${wrapped}` : `async function${fn.id ? ` ${fn.id.name}` : ''}(bail) ${wrapped}`;
  return [{ path: [], range: fn.range, text, label: 'bail(error) on 4xx' }];
}

/**
 * `retry(fn, options)` on the runtime. A function that stops through `bail(new Error(...))` followed
 * by `return` throws that error instead: the runtime does not retry an error it cannot classify
 * (no status, not a network error or timeout), which is what bail meant. Any other use of `bail`
 * decides per error in a way the runtime has no word for.
 */
function asyncRetryMigration(site: RetrySite, ctx: AnalysisContext): Migration {
  if (site.node.type !== T.CallExpression || site.node.arguments.length > 2) return 'only retry(fn, options) calls are migrated';
  const [fnArg, optionsArg] = site.node.arguments;
  const fn = fnArg && unwrap(fnArg);
  if (!isFunctionNode(fn) || fn.params.length !== 1 || fn.params[0]!.type !== T.Identifier) return nodeRetryCall(fnArg, optionsArg, ctx, 'async-retry');
  const rewritten = withoutBail(fn, fn.params[0]!, ctx);
  if (typeof rewritten === 'string') return rewritten;
  const options = nodeRetryOptions(optionsArg, ctx, false);
  return typeof options === 'string' ? options : { fn: rewritten.fn, ...options };
}

/** The function's source with `bail(new Error(...)); return;` written `throw new Error(...);`, or why not. */
function withoutBail(fn: TSESTree.FunctionLike, param: TSESTree.Identifier, ctx: AnalysisContext): { fn: string } | string {
  const refuse = `the retried function calls async-retry's bail other than as bail(new Error(...)) before a return`;
  const variable = ctx.sourceCode.getDeclaredVariables(fn).find((v) => v.name === param.name);
  if (!variable) return refuse;
  const edits: Array<{ range: readonly [number, number]; text: string }> = [];
  for (const ref of variable.references) {
    const call = ref.identifier.parent;
    if (call?.type !== T.CallExpression || call.callee !== ref.identifier || call.arguments.length !== 1) return refuse;
    const error = call.arguments[0]!;
    const ctor = error.type === T.NewExpression ? unwrap(error.callee) : undefined;
    if (ctor?.type !== T.Identifier || ctor.name !== 'Error' || findVariable(ctx.sourceCode.getScope(ctor), 'Error')?.defs.length) return refuse;
    const thrown = `throw ${ctx.sourceCode.getText(error)};`;
    const statement = call.parent;
    if (statement?.type === T.ReturnStatement) { edits.push({ range: statement.range, text: thrown }); continue; }
    if (statement?.type !== T.ExpressionStatement) return refuse;
    const block = statement.parent;
    const body = block?.type === T.BlockStatement ? block.body : undefined;
    const next = body?.[body.indexOf(statement) + 1];
    if (next?.type !== T.ReturnStatement || next.argument) return refuse;
    edits.push({ range: [statement.range[0], next.range[1]], text: thrown });
  }
  // The parameter goes: `async (bail) =>` becomes `async () =>`, `async bail =>` too.
  const before = ctx.sourceCode.getTokenBefore(param);
  edits.push({ range: param.range, text: before?.value === '(' ? '' : '()' });
  return { fn: applyWithin(ctx.sourceCode.getText(fn), fn.range[0], edits) };
}
