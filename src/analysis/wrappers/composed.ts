/**
 * Helpers over helpers: a function or method whose body calls a retry helper with arguments built
 * from its own parameters (`fetchWithRetry(url, options, retryOptions)` calling
 * `retriable(() => this.fetch(url, options), { ...this.retryDefaults, ...retryOptions })`) is a
 * retry helper too. Its own site is the inner call read with its parameters left out (its
 * defaults); each call of it is a site read with what that call passes, through the inner call's
 * arguments into the inner helper. One level: the inner helper is one the file already knows.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { enclosingFunction, unwrap, walk, type Variable } from '../ast.js';
import { FREE, type Env } from '../eval/environment.js';
import { parameterVariable } from '../eval/functions.js';
import type { DataValue, Value } from '../eval/values.js';
import type { AnalysisContext } from '../library.js';
import type { Node, RetrySite } from '../model.js';
import { cachedByArguments, callableName, pathInParams, wrapperCallSite, type ParamPath, type WrapperHelper } from './inferred.js';

type Fn = TSESTree.FunctionLike;

/** One inner helper call found in the file, as the wrappers made it. */
export interface InnerCall {
  readonly helper: WrapperHelper;
  readonly call: TSESTree.CallExpression;
  readonly callee: Node;
  readonly site: RetrySite;
}

/** The helpers made of inner helper calls whose arguments read the enclosing function's parameters. */
export function composedHelpers(ctx: AnalysisContext, inner: readonly InnerCall[], known: ReadonlyMap<Fn, WrapperHelper>): WrapperHelper[] {
  const out: WrapperHelper[] = [];
  const taken = new Set<Fn>();
  for (const c of inner) {
    const fn = helperFunctionOf(ctx, c);
    if (!fn || known.has(fn) || taken.has(fn) || c.helper.fn === fn) continue;
    const named = callableName(ctx, fn);
    if (!named || !readsParameters(ctx, fn, c.call)) continue;
    taken.add(fn);
    out.push(compose(ctx, fn, named, c));
  }
  return out;
}

/** The function a call is made in; a call in a promise's executor (`new Promise((resolve) => ...)`) is made in the function around it. */
function callerOf(call: TSESTree.CallExpression): Fn | undefined {
  const fn = enclosingFunction(call);
  const p = fn?.parent;
  return p?.type === T.NewExpression && p.arguments[0] === fn && unwrap(p.callee).type === T.Identifier && (unwrap(p.callee) as TSESTree.Identifier).name === 'Promise'
    ? enclosingFunction(p)
    : fn;
}

/**
 * The function a helper call makes a helper of: the one it is written in, or, when that is a
 * function literal the enclosing function returns and the function retried is one that factory is
 * passed (`wrapWithRetry(fn) { return (...args) => withRetry(fn.bind(this), args) }`), the
 * factory: each call of it makes a retrying function of what it is passed. A retrier a factory
 * returns around its own parameter (`(opts) => (fn) => retry(fn, opts)`) stays the helper.
 */
function helperFunctionOf(ctx: AnalysisContext, c: InnerCall): Fn | undefined {
  const fn = callerOf(c.call);
  if (!fn || fn.type === T.FunctionDeclaration) return fn;
  let holder: Node = fn;
  while (holder.parent && (holder.parent.type === T.TSAsExpression || holder.parent.type === T.TSSatisfiesExpression)) holder = holder.parent;
  const p = holder.parent;
  const outer = p?.type === T.ReturnStatement ? enclosingFunction(p) : p?.type === T.ArrowFunctionExpression && p.body === holder ? p : undefined;
  const index = c.helper.operation?.index;
  const retried = index === undefined ? undefined : c.call.arguments[index];
  return outer && retried && isParameterOf(ctx, retried, outer) ? outer : fn;
}

/** `fn` or `fn.bind(this)` where `fn` is a parameter of `outer`. */
function isParameterOf(ctx: AnalysisContext, arg: Node, outer: Fn): boolean {
  let a = unwrap(arg);
  if (a.type === T.CallExpression && a.callee.type === T.MemberExpression && !a.callee.computed && a.callee.property.type === T.Identifier && a.callee.property.name === 'bind') a = unwrap(a.callee.object);
  if (a.type !== T.Identifier) return false;
  const v = ctx.evaluator.variableOf(a);
  return !!v && v.defs.length === 1 && v.defs[0]!.type === 'Parameter' && v.defs[0]!.node === outer;
}

/** Whether an argument of the call (other than a function written in it) reads a parameter of `fn`. */
function readsParameters(ctx: AnalysisContext, fn: Fn, call: TSESTree.CallExpression): boolean {
  let found = false;
  for (const arg of call.arguments) {
    const a = unwrap(arg.type === T.SpreadElement ? arg.argument : arg);
    if (a.type === T.ArrowFunctionExpression || a.type === T.FunctionExpression) continue;
    walk(a, (n) => {
      if (found || n.type !== T.Identifier) return;
      const def = ctx.evaluator.variableOf(n)?.defs[0];
      if (def?.type === 'Parameter' && def.node === fn) found = true;
    }, { skipFunctions: true, budget: 2000 });
    if (found) return true;
  }
  return false;
}

function compose(ctx: AnalysisContext, fn: Fn, named: NonNullable<ReturnType<typeof callableName>>, c: InnerCall, outer?: Outer): WrapperHelper {
  let defaults: RetrySite | null | undefined;
  const read = (args: readonly DataValue[]): RetrySite | null => {
    try {
      return wrapperCallSite(c.helper, c.call, c.callee, ctx, bindingEnv(ctx, fn, args, outer)) ?? null;
    } catch (error) {
      if (process.env['SAFE_RETRY_STRICT_ANALYSIS']) throw error;
      return null;
    }
  };
  // The inner helper's retried function, when the caller passes it in: a callback helper.
  const passed = c.helper.operation ? operationArgument(c.call, c.helper.operation) : undefined;
  const op = passed ? parameterPath(ctx, fn, passed) : undefined;
  return {
    fn,
    ...named,
    site: c.site,
    kind: op ? 'callback' : 'forwarding',
    operation: op,
    ctx,
    defaults() {
      if (defaults === undefined) defaults = read([]);
      return defaults ?? undefined;
    },
    specialise: cachedByArguments(read),
    madeWith: named.returnedBy ? (factoryArgs) => compose(ctx, fn, named, c, { fn: named.returnedBy!, args: factoryArgs }) : undefined,
  };
}

/** The function that returned a helper, with the arguments of the call that made it. */
interface Outer {
  readonly fn: Fn;
  readonly args: readonly DataValue[];
}

/** The argument (or property of one) the inner helper retries. */
function operationArgument(call: TSESTree.CallExpression, path: ParamPath): Node | undefined {
  let n: Node | undefined = call.arguments[path.index];
  for (const key of path.keys) {
    const o: Node | undefined = n && unwrap(n);
    if (o?.type !== T.ObjectExpression) return undefined;
    const p: TSESTree.ObjectLiteralElement | undefined = o.properties.find((q) => q.type === T.Property && !q.computed && q.key.type === T.Identifier && q.key.name === key);
    n = p?.type === T.Property ? (p.value as Node) : undefined;
  }
  return n;
}

/** `fn`'s parameter (and keys into it) an expression is, when it is one. */
function parameterPath(ctx: AnalysisContext, fn: Fn, expr: Node): ParamPath | undefined {
  let n = unwrap(expr);
  // `fn.bind(this)`: the parameter handed on with its receiver.
  if (n.type === T.CallExpression && n.callee.type === T.MemberExpression && !n.callee.computed && n.callee.property.type === T.Identifier && n.callee.property.name === 'bind') n = unwrap(n.callee.object);
  if (n.type !== T.Identifier) return undefined;
  const def = ctx.evaluator.variableOf(n)?.defs[0];
  if (def?.type !== 'Parameter' || def.node !== fn) return undefined;
  return pathInParams(fn, def.name as Node);
}

/**
 * An environment in which `fn`'s plain parameters are what a call passes: the argument's data,
 * the parameter's default when the call passes nothing there, else undefined. Destructured and
 * rest parameters stay unbound (unknown).
 */
function bindingEnv(ctx: AnalysisContext, fn: Fn, args: readonly DataValue[], outer?: Outer): Env {
  const bound = new Map<Variable, { value: Value } | { expr: Node }>();
  const bind = (f: Fn, values: readonly DataValue[]) => f.params.forEach((p, i) => {
    const target = p.type === T.AssignmentPattern ? p.left : p;
    if (target.type !== T.Identifier) return;
    const variable = parameterVariable(ctx.sourceCode, f, target);
    if (!variable) return;
    const value = i < values.length ? values[i] : undefined;
    bound.set(variable, value === undefined && p.type === T.AssignmentPattern ? { expr: p.right } : { value });
  });
  bind(fn, args);
  if (outer) bind(outer.fn, outer.args);
  return {
    defaults: false,
    randomness: false,
    names: false,
    inlines: false,
    lookup(variable, _id, env, depth) {
      const b = bound.get(variable);
      if (!b) return FREE;
      return 'value' in b ? b.value : ctx.evaluator.eval(b.expr, env, depth);
    },
  };
}
