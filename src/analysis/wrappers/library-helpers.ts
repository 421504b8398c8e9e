/**
 * Helpers over a retry library: a named function whose body is a library retry around a call of
 * its own function parameter (`export const withRetry = (fn) => pRetry(fn, { retries: 5 })`,
 * `withRetry(fn, args)` running `pRetry(() => fn(...args), {...})`) is a retry helper, as common
 * in application code as a hand-written one. Each call of it is a site with the library's options:
 * the library call inside keeps the findings about its numbers (it is the helper's own site), and
 * each call is judged for what it passes (the operation; an option the helper reads from its
 * parameters, read again by the library's descriptor with the call's values bound).
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { enclosingFunction, isFunctionNode, patternKey, unwrap, walk, type Variable } from '../ast.js';
import { FREE, STATIC_ENV, type Env } from '../eval/environment.js';
import type { Evaluator } from '../eval/evaluator.js';
import { parameterVariable } from '../eval/functions.js';
import { UNKNOWN, isDataObject, toStatic, type DataValue, type Value } from '../eval/values.js';
import type { AnalysisContext } from '../library.js';
import type { Node, RetrySite } from '../model.js';
import { OptionsView } from '../options.js';
import { cachedByArguments, nameOf, parameterPathOf, type ParamPath, type WrapperHelper } from './inferred.js';

type Fn = TSESTree.FunctionLike;

/** The library site read again in another context (its descriptor's `find` on the one call); from the model. */
export type Reread = (site: RetrySite, ctx: AnalysisContext) => RetrySite | undefined;

/** Nodes visited in a retried function literal looking for the call of a parameter. */
const OPERATION_BUDGET = 2000;

/** The helpers made of library retries around a call of the enclosing function's parameter. */
export function findLibraryHelpers(ctx: AnalysisContext, sites: readonly RetrySite[], reread: Reread | undefined): WrapperHelper[] {
  const out: WrapperHelper[] = [];
  const taken = new Set<Fn>();
  for (const s of sites) {
    if (s.library === 'hand-written' || s.library.startsWith('wrapper:') || s.clientLevel || s.kind !== 'in-memory' || s.executions || !s.operation) continue;
    const fn = enclosingFunction(s.node);
    if (!fn || taken.has(fn)) continue;
    const operation = retriedParameter(ctx, fn, s.operation);
    if (!operation) continue;
    const named = nameOf(ctx, fn);
    if (!named) continue;
    taken.add(fn);
    out.push(makeLibraryHelper(ctx, fn, named, s, operation, reread));
  }
  return out;
}

/** Which parameter of `fn` the library retries: `fn`, `opts.task`, `fn.bind(this)`, or a call of it inside the retried literal. */
function retriedParameter(ctx: AnalysisContext, fn: Fn, operation: Node): ParamPath | undefined {
  const op = unwrap(operation);
  const own = (callee: Node): ParamPath | undefined => {
    const found = parameterPathOf(ctx, stripBinding(callee));
    return found?.fn === fn ? found.path : undefined;
  };
  if (op.type === T.Identifier || op.type === T.MemberExpression || op.type === T.CallExpression) return own(op);
  if (!isFunctionNode(op) || !op.body) return undefined;
  let path: ParamPath | undefined;
  walk(op.body, (n) => {
    if (!path && n.type === T.CallExpression && isResult(n, op)) path = own(n.callee);
  }, { skipFunctions: true, budget: OPERATION_BUDGET });
  return path;
}

/** A call whose result the retried function waits for or returns (not a `log(...)` on the side). */
function isResult(call: Node, fn: TSESTree.FunctionLike): boolean {
  let n: Node = call;
  while (n.parent && (n.parent.type === T.TSAsExpression || n.parent.type === T.TSNonNullExpression || n.parent.type === T.ChainExpression)) n = n.parent;
  const p = n.parent;
  return p?.type === T.AwaitExpression || p?.type === T.ReturnStatement || (p === fn && fn.body === n);
}

/** `fn.bind(this)`, `fn.call(this, x)`, `fn.apply(this, args)`: `fn`. */
function stripBinding(node: Node): Node {
  let n = unwrap(node);
  if (n.type === T.CallExpression) n = unwrap(n.callee);
  if (n.type === T.MemberExpression && !n.computed && n.property.type === T.Identifier && ['bind', 'call', 'apply'].includes(n.property.name)) return unwrap(n.object);
  return node.type === T.CallExpression ? node : n;
}

function makeLibraryHelper(
  ctx: AnalysisContext,
  fn: Fn,
  named: NonNullable<ReturnType<typeof nameOf>>,
  site: RetrySite,
  operation: ParamPath,
  reread: Reread | undefined,
): WrapperHelper {
  // Options that read none of the parameters are the same for every call: no second reading.
  const configured = !!reread && readsParameters(ctx, fn, site.node, site.operation);
  const read = (args: readonly DataValue[]): RetrySite | null => {
    if (!configured) return site;
    try {
      return reread!(site, boundContext(ctx, bindParameters(ctx, fn, args))) ?? null;
    } catch (error) {
      if (process.env['SAFE_RETRY_STRICT_ANALYSIS']) throw error;
      return null;
    }
  };
  return {
    fn,
    ...named,
    site,
    kind: 'callback',
    operation,
    ctx,
    // The library call as written: its options read statically, with the parameters' defaults judged where they are written.
    defaults: () => site,
    specialise: cachedByArguments(read),
  };
}

/** Whether the library call reads a parameter of `fn` outside the retried operation. */
function readsParameters(ctx: AnalysisContext, fn: Fn, call: Node, operation: Node | undefined): boolean {
  let found = false;
  walk(call, (n) => {
    if (found || n.type !== T.Identifier) return;
    if (operation && n.range[0] >= operation.range[0] && n.range[1] <= operation.range[1]) return;
    const def = ctx.evaluator.variableOf(n)?.defs[0];
    if (def?.type === 'Parameter' && def.node === fn) found = true;
  }, { skipFunctions: true, budget: OPERATION_BUDGET });
  return found;
}

/** The file's context with its evaluator reading `fn`'s parameters as one call passes them. */
function boundContext(ctx: AnalysisContext, env: Env): AnalysisContext {
  const base = ctx.evaluator;
  const evaluator = Object.create(base) as Evaluator;
  evaluator.evaluate = (node) => toStatic(base.evaluateIn(node, env));
  evaluator.number = (node) => {
    const v = evaluator.evaluate(node);
    return typeof v === 'number' ? v : UNKNOWN;
  };
  return { ...ctx, evaluator, options: (node) => new OptionsView(evaluator, node) };
}

/**
 * The static environment with `fn`'s parameters bound to what a call passes: the argument's data,
 * a member of it for a destructured parameter, the default where the call passes nothing there,
 * unknown where the call passes something not known (an open object, a spread).
 */
function bindParameters(ctx: AnalysisContext, fn: Fn, args: readonly DataValue[]): Env {
  const bound = new Map<Variable, { value: Value } | { expr: Node }>();
  const bind = (target: Node, value: DataValue, fallback: Node | undefined) => {
    if (target.type !== T.Identifier) return;
    const variable = parameterVariable(ctx.sourceCode, fn, target);
    if (variable) bound.set(variable, value === undefined && fallback ? { expr: fallback } : { value });
  };
  fn.params.forEach((p, i) => {
    const target: Node = p.type === T.AssignmentPattern ? p.left : p;
    const arg = i < args.length ? args[i] : undefined;
    if (target.type === T.Identifier) return bind(target, arg, p.type === T.AssignmentPattern ? p.right : undefined);
    if (target.type !== T.ObjectPattern) return;
    for (const prop of target.properties) {
      if (prop.type === T.RestElement) {
        if (prop.argument.type === T.Identifier) bind(prop.argument, UNKNOWN, undefined);
        continue;
      }
      const key = patternKey(prop);
      const value = prop.value as Node;
      const inner = value.type === T.AssignmentPattern ? value.left : value;
      const fallback = value.type === T.AssignmentPattern ? value.right : undefined;
      let member: DataValue = UNKNOWN;
      if (arg === undefined) member = undefined;
      else if (key !== undefined && isDataObject(arg)) member = arg.properties.has(key) ? arg.properties.get(key) : arg.open ? UNKNOWN : undefined;
      bind(inner, member, fallback);
    }
  });
  return {
    ...STATIC_ENV,
    lookup(variable, _id, env, depth) {
      const b = bound.get(variable);
      if (!b) return FREE;
      return 'value' in b ? b.value : ctx.evaluator.eval(b.expr, env, depth);
    },
  };
}
