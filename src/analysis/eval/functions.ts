/**
 * Functions the evaluator can follow: a local helper evaluated at its call (its parameters bound
 * to the arguments in a frame), and what a small function returns.
 */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, patternKey, staticPropertyName, unwrap, type Variable } from '../ast.js';
import type { Env, Frame } from './environment.js';
import { UNKNOWN, hull, toInterval, truth, type Value } from './values.js';

type Node = TSESTree.Node;
type Fn = TSESTree.FunctionLike;

/** A function declared in this file whose body we can read: `function f() {}`, `const f = () => ...`. */
export function localFunction(variable: Variable): Fn | undefined {
  const def = variable.defs[0];
  if (!def || variable.defs.length !== 1) return undefined;
  if (def.type === 'FunctionName') return def.node as TSESTree.FunctionDeclaration;
  const init = constInitializer(variable);
  const fn = init && unwrap(init);
  return fn && (fn.type === T.ArrowFunctionExpression || fn.type === T.FunctionExpression) ? fn : undefined;
}

/** The variable a function declares for one of its parameters. */
export function parameterVariable(sourceCode: Readonly<TSESLint.SourceCode>, fn: Fn, id: TSESTree.Identifier): Variable | undefined {
  try {
    return sourceCode.scopeManager?.getDeclaredVariables(fn).find((v) => v.defs.some((d) => d.name === id));
  } catch {
    return undefined;
  }
}

/** A frame binding each plain parameter of `fn` to its argument (or its default), read in the caller's `env`. */
export function frameFor(sourceCode: Readonly<TSESLint.SourceCode>, fn: Fn, args: readonly Node[], env: Env): Frame {
  const bindings = new Map<Variable, { expr: Node | undefined; env: Env }>();
  fn.params.forEach((p, i) => {
    const target = p.type === T.AssignmentPattern ? p.left : p;
    if (target.type !== T.Identifier) return;
    const variable = parameterVariable(sourceCode, fn, target);
    if (!variable) return;
    const arg = args[i];
    if (arg) bindings.set(variable, { expr: arg, env });
    else bindings.set(variable, { expr: p.type === T.AssignmentPattern ? p.right : undefined, env });
  });
  return { bindings, outer: env.frame };
}

/** What a small function returns: one expression, or `if (c) return a; ... return b;`. */
export type Returned = { readonly expr: Node } | { readonly test: Node; readonly then: Returned; readonly else: Returned };

/** The one expression returned on every path, when the `if`s on the way all lead to the same return. */
export function onlyReturned(ret: Returned): Node | undefined {
  if ('expr' in ret) return ret.expr;
  const a = onlyReturned(ret.then);
  return a && a === onlyReturned(ret.else) ? a : undefined;
}

export function returnOf(fn: Fn): Returned | undefined {
  if (!fn.body) return undefined;
  if (fn.body.type !== T.BlockStatement) return { expr: fn.body };
  return returnOfStatements(fn.body.body, 0);
}

/**
 * `after`: what is returned when these statements end without a return (the statements after the
 * enclosing `if`, whose branch fell through): `if (h) { if (n > 0) return n; } return d;`.
 */
function returnOfStatements(body: readonly TSESTree.Statement[], from: number, after?: () => Returned | undefined, depth = 0): Returned | undefined {
  if (depth > 8) return undefined;
  for (let j = from; j < body.length; j++) {
    const s = body[j]!;
    // Declarations, and statements done for their effect (`flags.refreshed = true`, a log line), do not change what is returned.
    if (s.type === T.VariableDeclaration || s.type === T.ExpressionStatement) continue;
    if (s.type === T.ReturnStatement) return s.argument ? { expr: s.argument } : undefined;
    if (s.type === T.IfStatement) {
      const next = () => returnOfStatements(body, j + 1, after, depth + 1);
      const then = returnOfStatement(s.consequent, next, depth + 1);
      if (!then) return undefined;
      const rest = s.alternate ? returnOfStatement(s.alternate, next, depth + 1) : next();
      return rest ? { test: s.test, then, else: rest } : undefined;
    }
    return undefined;
  }
  return after?.();
}

function returnOfStatement(s: TSESTree.Statement, after?: () => Returned | undefined, depth = 0): Returned | undefined {
  return returnOfStatements(s.type === T.BlockStatement ? s.body : [s], 0, after, depth);
}

/** The value returned: the branch the test decides, or the hull of both numbers. */
export function evalReturn(ret: Returned, evaluate: (n: Node) => Value): Value {
  if ('expr' in ret) return evaluate(ret.expr);
  // An `if` that returns nothing itself (`if (h) await ready;`) leads to the same return either way.
  const one = onlyReturned(ret);
  if (one) return evaluate(one);
  const t = truth(evaluate(ret.test));
  if (t !== UNKNOWN) return evalReturn(t ? ret.then : ret.else, evaluate);
  const a = toInterval(evalReturn(ret.then, evaluate));
  const b = toInterval(evalReturn(ret.else, evaluate));
  return a && b ? hull(a, b) : UNKNOWN;
}

/**
 * A destructured parameter's default, `function f({ retries = 5 } = {})`, read as a fact only when
 * it is what every call does: `f` is a function of this file that is not exported and used only as
 * the callee of calls, and no call passes that member (each passes nothing there, or an object
 * literal without the key and without a spread). Otherwise a caller may override it: unknown.
 * Returns whether the default can be relied on.
 */
export function closedParameterDefault(sourceCode: Readonly<TSESLint.SourceCode>, assignment: TSESTree.AssignmentPattern): boolean {
  const at = defaultPosition(assignment);
  if (!at || at.key === undefined) return false;
  const { fn, index, key } = at;
  const args = argumentsOfEveryCall(sourceCode, fn, index);
  if (!args) return false;
  for (const arg of args) {
    if (!arg) continue;
    const object = unwrap(arg);
    if (object.type !== T.ObjectExpression) return false;
    for (const p of object.properties) {
      const k = p.type === T.Property ? staticPropertyName(p) : undefined;
      if (k === undefined || k === key) return false;
    }
  }
  return true;
}

/**
 * What each call of a local, unexported function passes at one parameter position (undefined where
 * a call passes nothing there); undefined when the function is exported, used other than as the
 * callee of a call, or a spread comes before that position: then a caller may pass anything.
 */
export function argumentsOfEveryCall(sourceCode: Readonly<TSESLint.SourceCode>, fn: Fn, index: number): (Node | undefined)[] | undefined {
  const variable = functionVariable(sourceCode, fn);
  if (!variable) return undefined;
  const out: (Node | undefined)[] = [];
  for (const ref of variable.references) {
    if (ref.init) continue;
    const id = ref.identifier as Node;
    const call = id.parent;
    if (call?.type !== T.CallExpression || call.callee !== id) return undefined;
    if (call.arguments.slice(0, index + 1).some((a) => a.type === T.SpreadElement)) return undefined;
    out.push(call.arguments[index] as Node | undefined);
  }
  return out;
}

/** The variable a local, unexported function is bound to (its name, or the const it initialises). */
function functionVariable(sourceCode: Readonly<TSESLint.SourceCode>, fn: Fn): Variable | undefined {
  let holder: Node = fn;
  if (fn.type !== T.FunctionDeclaration) {
    const declarator = fn.parent;
    if (declarator?.type !== T.VariableDeclarator || declarator.init !== fn || declarator.id.type !== T.Identifier) return undefined;
    if (declarator.parent?.type !== T.VariableDeclaration || declarator.parent.kind !== 'const') return undefined;
    holder = declarator.parent;
  } else if (!fn.id) return undefined;
  // `export function f` / `export const f = ...`: callers elsewhere may pass anything.
  if (holder.parent?.type === T.ExportNamedDeclaration || holder.parent?.type === T.ExportDefaultDeclaration) return undefined;
  try {
    const declared = fn.type === T.FunctionDeclaration ? sourceCode.scopeManager?.getDeclaredVariables(fn) : sourceCode.scopeManager?.getDeclaredVariables(fn.parent!);
    return declared?.find((v) => v.defs.length === 1);
  } catch {
    return undefined;
  }
}

/**
 * The default a parameter name is declared with, `function f(retries = 3)` or
 * `function f({ retries = 3 } = {})`, when the name is such a parameter; undefined otherwise.
 */
export function parameterDefault(variable: Variable | undefined): TSESTree.AssignmentPattern | undefined {
  const def = variable?.defs.length === 1 ? variable.defs[0] : undefined;
  if (def?.type !== 'Parameter') return undefined;
  const name = def.name as Node;
  const p = name.parent;
  return p?.type === T.AssignmentPattern && p.left === name ? p : undefined;
}

/**
 * Whether some call may get a parameter's default (issue 14: a default is configuration that
 * travels, judged where it is written). It may unless the function is a local, unexported one
 * used only as a callee and every call passes a value there: a literal object with the member
 * for a destructured default, anything but `undefined` for a plain one (an object it cannot see
 * into counts as passing it, so such a default stays unjudged).
 */
export function parameterDefaultApplies(sourceCode: Readonly<TSESLint.SourceCode>, assignment: TSESTree.AssignmentPattern): boolean {
  const at = defaultPosition(assignment);
  return !!at && callerMayOmit(sourceCode, at.fn, at.index, at.key);
}

/**
 * Where a parameter default sits: the function, the parameter's position, and for a destructured
 * one (`{ retries = 5 } = {}`) the member's key. Undefined for a default that is no parameter's.
 */
function defaultPosition(assignment: TSESTree.AssignmentPattern): { fn: Fn; index: number; key: string | undefined } | undefined {
  let key: string | undefined;
  let param: Node = assignment;
  const prop = assignment.parent;
  if (prop?.type === T.Property && prop.value === assignment) {
    key = patternKey(prop);
    const pattern = prop.parent;
    if (key === undefined || pattern?.type !== T.ObjectPattern) return undefined;
    // The pattern is a parameter, itself or with a default (`{ retries = 5 } = {}`).
    param = pattern.parent?.type === T.AssignmentPattern && pattern.parent.left === pattern ? pattern.parent : pattern;
  }
  const fn = param.parent;
  if (!fn || (fn.type !== T.FunctionDeclaration && fn.type !== T.FunctionExpression && fn.type !== T.ArrowFunctionExpression)) return undefined;
  const index = fn.params.indexOf(param as TSESTree.Parameter);
  return index < 0 ? undefined : { fn, index, key };
}

/**
 * The parameter a spread's argument is a caller's options from: `...opts` with `opts` a parameter,
 * or `...rest` from `const { a, ...rest } = opts || {}`. With its function and position.
 */
export function callerOptionsOf(argument: Node, variableOf: (id: TSESTree.Identifier) => Variable | undefined): { fn: Fn; index: number } | undefined {
  const id = unwrap(argument);
  const v = id.type === T.Identifier ? parameterBehind(variableOf(id), variableOf) : undefined;
  const at = parameterPosition(v);
  return at && { fn: at.fn, index: at.index };
}

/**
 * Where a parameter sits: its function, its position and the parameter as written (`method` or
 * `method = 'GET'`). Undefined for any other variable, or a name inside a destructured parameter.
 */
export function parameterPosition(v: Variable | undefined): { fn: Fn; index: number; param: TSESTree.Parameter } | undefined {
  const def = v?.defs.length === 1 ? v.defs[0] : undefined;
  if (def?.type !== 'Parameter') return undefined;
  const fn = def.node as Fn;
  const name = def.name as Node;
  const param = (name.parent?.type === T.AssignmentPattern && name.parent.left === name ? name.parent : name) as TSESTree.Parameter;
  const index = fn.params.indexOf(param);
  return index < 0 ? undefined : { fn, index, param };
}

/**
 * The parameter a variable stands for: itself when it is one, or the parameter it is destructured
 * from (`const { method, ...rest } = init || {}`: `init`, or nothing).
 */
export function parameterBehind(v: Variable | undefined, variableOf: (id: TSESTree.Identifier) => Variable | undefined): Variable | undefined {
  const def = v?.defs.length === 1 ? v.defs[0] : undefined;
  if (!v || !def) return undefined;
  if (def.type === 'Parameter') return v;
  if (def.type !== 'Variable' || def.node.type !== T.VariableDeclarator || def.node.id.type !== T.ObjectPattern || !def.node.init) return undefined;
  let from = unwrap(def.node.init);
  // `init || {}`, `init ?? {}`: the parameter, or nothing.
  if (from.type === T.LogicalExpression && from.operator !== '&&' && unwrap(from.right).type === T.ObjectExpression) from = unwrap(from.left);
  if (from.type !== T.Identifier) return undefined;
  const source = variableOf(from);
  return source?.defs.length === 1 && source.defs[0]!.type === 'Parameter' ? source : undefined;
}

/**
 * Whether some call may pass nothing at a parameter position, or (with `key`) an options object
 * without that member: true unless the function is a local, unexported one used only as a callee
 * and every call passes a value there (an object it cannot see into counts as passing the member).
 */
export function callerMayOmit(sourceCode: Readonly<TSESLint.SourceCode>, fn: Fn, index: number, key: string | undefined): boolean {
  const args = argumentsOfEveryCall(sourceCode, fn, index);
  if (!args) return true;
  return args.some((arg) => {
    if (!arg) return true;
    const a = unwrap(arg);
    if (a.type === T.Identifier && a.name === 'undefined') return true;
    if (key === undefined || a.type !== T.ObjectExpression) return false;
    return !a.properties.some((p) => p.type === T.SpreadElement || (p.type === T.Property && staticPropertyName(p) === key));
  });
}
