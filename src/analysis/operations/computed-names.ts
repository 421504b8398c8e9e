/**
 * A call of a method chosen by a computed name (`context[op](...)`, or a promisified
 * `Promise.promisify(context[op], { context })` called later), where the name takes each value of
 * constant lists: `['create', 'execute', 'get'].reduce((acc, op) => ...)`, or a local function's
 * list parameter iterated so, every call of that function passing an array of string literals.
 * Every element of the list is visited, so the code runs once with each name: each is a method
 * the retry certainly calls for some instance of the code.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, findVariable, propertyKey, unwrap } from '../ast.js';
import { argumentsOfEveryCall } from '../eval/functions.js';
import type { AnalysisContext } from '../library.js';
import type { Node } from '../model.js';

/** Array methods that call their callback with every element (the element is the first parameter; `reduce`'s is the second). */
const VISITS_EVERY = new Map([['forEach', 0], ['map', 0], ['flatMap', 0], ['reduce', 1], ['reduceRight', 1]]);

export interface ComputedCallee {
  /** The expression of the object whose method is called (`context`). */
  readonly object: Node;
  /** Every name the method takes. */
  readonly names: readonly string[];
}

/** The method names a call's computed callee takes, directly or through a promisified function. */
export function computedCallee(call: TSESTree.CallExpression, ctx: AnalysisContext): ComputedCallee | undefined {
  const member = memberOf(unwrap(call.callee), ctx, 0);
  if (!member || !member.computed) return undefined;
  const names = namesOf(unwrap(member.property), ctx);
  return names?.length ? { object: member.object, names } : undefined;
}

/** The member expression a callee stands for: itself, or what a promisified const wraps. */
function memberOf(callee: Node, ctx: AnalysisContext, depth: number): TSESTree.MemberExpression | undefined {
  if (callee.type === T.MemberExpression) return callee;
  if (callee.type !== T.Identifier || depth > 2) return undefined;
  const variable = findVariable(ctx.evaluator.scopeOf(callee), callee.name);
  const init = variable ? constInitializer(variable) : undefined;
  const wrapped = init && promisified(unwrap(init));
  return wrapped ? memberOf(unwrap(wrapped), ctx, depth + 1) : undefined;
}

/** `util.promisify(f)`, `promisify(f)`, bluebird's `Promise.promisify(f, { context })`: the function `f` the result calls. */
function promisified(init: Node): Node | undefined {
  if (init.type !== T.CallExpression) return undefined;
  const callee = unwrap(init.callee);
  const name = callee.type === T.Identifier ? callee.name : callee.type === T.MemberExpression ? propertyKey(callee, () => undefined) : undefined;
  const first = init.arguments[0];
  return name === 'promisify' && first && first.type !== T.SpreadElement ? first : undefined;
}

/** The string values a key takes: a literal, or an element parameter of a callback that visits every element of constant lists. */
function namesOf(key: Node, ctx: AnalysisContext): string[] | undefined {
  const value = ctx.evaluator.evaluate(key);
  if (typeof value === 'string') return [value];
  if (key.type !== T.Identifier) return undefined;
  const variable = findVariable(ctx.evaluator.scopeOf(key), key.name);
  const def = variable?.defs[0];
  if (!variable || variable.defs.length !== 1 || def?.type !== 'Parameter' || variable.references.some((r) => r.isWrite())) return undefined;
  const callback = def.node as Node;
  if (callback.type !== T.ArrowFunctionExpression && callback.type !== T.FunctionExpression) return undefined;
  const iteration = callback.parent;
  if (iteration?.type !== T.CallExpression || iteration.arguments[0] !== callback || unwrap(iteration.callee).type !== T.MemberExpression) return undefined;
  const method = propertyKey(unwrap(iteration.callee) as TSESTree.MemberExpression, () => undefined);
  const position = method === undefined ? undefined : VISITS_EVERY.get(method);
  if (position === undefined || callback.params[position] !== def.name) return undefined;
  return listsOf(unwrap((unwrap(iteration.callee) as TSESTree.MemberExpression).object), ctx);
}

/** The strings of a constant list, or of every list a local function's parameter is passed. */
function listsOf(list: Node, ctx: AnalysisContext): string[] | undefined {
  const direct = strings(list);
  if (direct) return direct;
  if (list.type !== T.Identifier) return undefined;
  const variable = findVariable(ctx.evaluator.scopeOf(list), list.name);
  const def = variable?.defs[0];
  if (!variable || variable.defs.length !== 1) return undefined;
  if (def?.type === 'Variable') {
    const init = constInitializer(variable);
    return init ? strings(unwrap(init)) : undefined;
  }
  if (def?.type !== 'Parameter' || variable.references.some((r) => r.isWrite())) return undefined;
  const fn = def.node as TSESTree.FunctionLike;
  const index = fn.params.indexOf(def.name as TSESTree.Parameter);
  const args = index >= 0 && fn.type !== T.TSDeclareFunction && fn.type !== T.TSEmptyBodyFunctionExpression ? argumentsOfEveryCall(ctx.sourceCode, fn, index) : undefined;
  if (!args) return undefined;
  // Every use of the (unexported) function is a call passing a list of string literals there.
  const names: string[] = [];
  for (const arg of args) {
    const listed = arg ? strings(unwrap(arg)) : undefined;
    if (!listed) return undefined;
    names.push(...listed);
  }
  return names.length ? [...new Set(names)] : undefined;
}

/** `['create', 'execute']`: the strings of an array literal of string literals only. */
function strings(node: Node): string[] | undefined {
  if (node.type !== T.ArrayExpression) return undefined;
  const out: string[] = [];
  for (const e of node.elements) {
    if (e?.type !== T.Literal || typeof e.value !== 'string') return undefined;
    out.push(e.value);
  }
  return out;
}
