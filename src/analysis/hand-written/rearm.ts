/**
 * Ways back into a retrying function through a timer or a callback, read by the recursion reader
 * (recursion.ts): a closure of the function that schedules the self-call, a named failure callback
 * of an object passed to a call, and the fields of a state object moved on the way back.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { contains, type Variable } from '../ast.js';
import type { Node } from '../model.js';
import type { HandWritten } from './attempts.js';

type Fn = TSESTree.FunctionLike;

/**
 * The one call of a closure declared in the function that schedules the way back
 * (`const scheduleRetry = () => { setTimeout(() => retry(next, n + 1), ms) }` called as
 * `scheduleRetry()`): it takes no parameters, is never reassigned, and is called exactly once,
 * inside the function and outside itself. Undefined for any other function.
 */
export function schedulingClosureCall(hw: HandWritten, fn: Fn, g: Fn): TSESTree.CallExpression | undefined {
  if (g.params.length > 0 || g === fn || !contains(fn, g)) return undefined;
  const holder = g.type === T.FunctionDeclaration ? g : g.parent?.type === T.VariableDeclarator && g.parent.init === g ? g.parent : undefined;
  if (!holder || (holder.type === T.VariableDeclarator && holder.id.type !== T.Identifier)) return undefined;
  let variable: Variable | undefined;
  try {
    variable = hw.ctx.sourceCode.scopeManager?.getDeclaredVariables(holder)[0];
  } catch {
    return undefined;
  }
  if (!variable || variable.defs.length !== 1) return undefined;
  const refs = variable.references.filter((r) => !r.init);
  if (refs.length !== 1 || refs[0]!.isWrite()) return undefined;
  const id = refs[0]!.identifier as Node;
  const call = id.parent;
  if (call?.type !== T.CallExpression || call.callee !== id || call.arguments.length > 0) return undefined;
  return contains(fn, call) && !contains(g, call) ? call : undefined;
}

/** `onFailure`, `onError`, `onFail`: a property naming the callback a call makes when it fails. */
const FAILURE_CALLBACK = /^on(?:Fail(?:ure|ed)?|Error|Reject(?:ed|ion)?)$/;

/**
 * The call a function is the failure callback of: `send(payload, { onSuccess, onFailure: () => ... })`,
 * the value of a property named for a failure in an object passed straight to a call.
 */
export function failureCallbackOf(x: TSESTree.ArrowFunctionExpression | TSESTree.FunctionExpression): TSESTree.CallExpression | undefined {
  const prop = x.parent;
  if (prop?.type !== T.Property || prop.value !== x || prop.computed || prop.key.type !== T.Identifier || !FAILURE_CALLBACK.test(prop.key.name)) return undefined;
  const object = prop.parent;
  const call = object?.parent;
  return call?.type === T.CallExpression && call.arguments.includes(object as TSESTree.ObjectExpression) ? call : undefined;
}

/** The fields of the variable the function assigns (`state.delay *= 2`, `opts.tries++`), each with the members written. */
export function fieldWrites(fn: Fn, v: Variable): Map<string, TSESTree.MemberExpression[]> {
  const out = new Map<string, TSESTree.MemberExpression[]>();
  for (const r of v.references) {
    const id = r.identifier as Node;
    const member = id.parent;
    if (member?.type !== T.MemberExpression || member.object !== id || !contains(fn, id)) continue;
    const w = member.parent;
    if (!((w?.type === T.AssignmentExpression && w.left === member) || (w?.type === T.UpdateExpression && w.argument === member))) continue;
    // A computed field (`state[key] = ...`) may be any: the object moves, no field is read as state.
    if (member.computed || member.property.type !== T.Identifier) return new Map([['', [member]]]);
    const key = member.property.name;
    out.set(key, [...(out.get(key) ?? []), member]);
  }
  return out;
}

/** The function a node is in. */
export function nearestFunction(n: Node): Fn | undefined {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type === T.ArrowFunctionExpression || p.type === T.FunctionExpression || p.type === T.FunctionDeclaration) return p;
  }
  return undefined;
}
