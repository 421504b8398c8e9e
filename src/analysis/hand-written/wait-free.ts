/**
 * Whether an awaited call on a retry's way back certainly adds no wait. An awaited call the model
 * cannot see into may sleep, so it makes the schedule unknown; a function of the same file (or a
 * method of the same class) can be read instead: when its body has no sleep, no timer but a
 * timeout that only rejects, and awaits or returns only calls that are wait-free in turn, it
 * takes the time of its own work, not a pause between attempts.
 * What cannot be followed (an import, a parameter, a method of another object) may still wait.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { isFunctionNode, memberName, unwrap, walk, type Variable } from '../ast.js';
import { localFunction } from '../eval/functions.js';
import type { Node } from '../model.js';
import type { HandWritten } from './attempts.js';
import { calleeOf } from './control-flow.js';
import { classMethod, isGlobalTimeout, sleepOf } from './sleeps.js';

type Fn = TSESTree.FunctionLike;

/** Functions followed from the awaited call down. */
const MAX_DEPTH = 3;
/** Nodes read per function body; a larger body is not read (it may wait). */
const BODY_BUDGET = 4000;
/** A response's body readers: reading what came back, no pause. */
const BODY_READERS = new Set(['json', 'text', 'arrayBuffer', 'blob', 'formData']);
/** Global timers that always wait, whatever their callback. */
const REPEATING_TIMERS = new Set(['setInterval']);

/** Whether awaiting `expr` certainly adds no wait (see the file's comment). */
export function waitFree(hw: HandWritten, expr: Node, depth = 0, seen: Set<Fn> = new Set()): boolean {
  const e = unwrap(expr);
  if (e.type === T.NewExpression) {
    const callee = unwrap(e.callee);
    // A constructor runs at once; `new Promise(executor)`: its timers and awaits are read where it is written.
    if (callee.type !== T.Identifier || callee.name !== 'Promise' || hw.evaluator.shadowed(callee)) return true;
    const executor = e.arguments[0];
    return !!executor && isFunctionNode(executor) && bodyWaitFree(hw, executor as Fn, depth, seen);
  }
  if (e.type !== T.CallExpression) return false;
  if (sleepOf(hw, e)) return false;
  const callee = calleeOf(e);
  const method = memberName(callee);
  if (method !== undefined) {
    const object = unwrap((callee as TSESTree.MemberExpression).object);
    if (BODY_READERS.has(method) && e.arguments.length === 0) return true;
    // `refresh().then((t) => save(t))`: the chain waits for what it starts and for its handlers.
    if (method === 'then' || method === 'catch' || method === 'finally') {
      return waitFree(hw, object, depth, seen) && e.arguments.every((a) => isFunctionNode(a) && bodyWaitFree(hw, a as Fn, depth, seen));
    }
    if (object.type !== T.ThisExpression) return false;
    const own = classMethod(e, method);
    return !!own && bodyWaitFree(hw, own, depth + 1, seen);
  }
  if (callee.type !== T.Identifier) return false;
  if (hw.ctx.imports.resolve(callee)) return false;
  // The request itself: it takes its own time, it does not pause.
  if (callee.name === 'fetch' && !hw.evaluator.shadowed(callee)) return true;
  const variable = hw.evaluator.variableOf(callee);
  const fn = variable ? localFunction(variable) : undefined;
  return !!fn && bodyWaitFree(hw, fn, depth + 1, seen);
}

/** Whether a function's body holds no wait: no sleep, no timer but a rejecting timeout, only wait-free awaits and returned promises. */
function bodyWaitFree(hw: HandWritten, fn: Fn, depth: number, seen: Set<Fn>): boolean {
  if (seen.has(fn)) return true;
  if (depth > MAX_DEPTH || !fn.body) return false;
  seen.add(fn);
  if (fn.body.type !== T.BlockStatement && !returnedWaitFree(hw, fn.body, depth, seen)) return false;
  let ok = true;
  let visited = 0;
  walk(fn.body, (n) => {
    if (!ok) return;
    if (++visited > BODY_BUDGET) ok = false;
    else if (n.type === T.CallExpression) ok = callWaitFree(hw, n);
    else if (n.type === T.AwaitExpression) ok = waitFree(hw, n.argument, depth, seen);
    // The function's own returns are awaited by whoever awaits it.
    else if (n.type === T.ReturnStatement && n.argument && ownStatement(n, fn)) ok = returnedWaitFree(hw, n.argument, depth, seen);
  });
  return ok;
}

/** A returned value: a call or `new` must be wait-free; a plain value adds nothing. */
function returnedWaitFree(hw: HandWritten, value: Node, depth: number, seen: Set<Fn>): boolean {
  const v = unwrap(value);
  if (v.type === T.AwaitExpression) return waitFree(hw, v.argument, depth, seen);
  if (v.type === T.CallExpression || v.type === T.NewExpression) return waitFree(hw, v, depth, seen);
  return true;
}

/** A call anywhere in the body: no sleep, and no timer other than a timeout that only rejects. */
function callWaitFree(hw: HandWritten, call: TSESTree.CallExpression): boolean {
  const callee = unwrap(call.callee);
  const name = callee.type === T.Identifier ? callee.name : memberName(callee);
  if (name !== undefined && REPEATING_TIMERS.has(name)) return false;
  if (isGlobalTimeout(hw, call)) return rejectingTimeout(hw, call);
  return !sleepOf(hw, call);
}

/** Whether a return statement belongs to `fn` itself, not to a function nested in it. */
function ownStatement(n: Node, fn: Fn): boolean {
  for (let p = n.parent; p; p = p.parent) {
    if (p === fn) return true;
    if (isFunctionNode(p)) return false;
  }
  return false;
}

/**
 * `setTimeout(() => { cleanup(); reject(new Error('timeout')) }, 15000)` in a promise's executor:
 * the promise rejects when the timer fires, so whoever goes on after awaiting it did not wait for
 * the timer. The callback must call the executor's `reject` and never mention its `resolve`.
 */
export function rejectingTimeout(hw: HandWritten, timer: TSESTree.CallExpression): boolean {
  const executor = enclosingExecutor(timer);
  if (!executor) return false;
  const [resolveParam, rejectParam] = executor.params;
  if (rejectParam?.type !== T.Identifier) return false;
  const variableOf = (p: TSESTree.Parameter | undefined): Variable | undefined => {
    if (p?.type !== T.Identifier) return undefined;
    try {
      return hw.ctx.sourceCode.scopeManager?.getDeclaredVariables(executor).find((v) => v.defs.some((d) => d.name === p));
    } catch {
      return undefined;
    }
  };
  const resolveVar = variableOf(resolveParam);
  const rejectVar = variableOf(rejectParam);
  const callback = timer.arguments[0] && unwrap(timer.arguments[0]);
  if (!callback || !rejectVar) return false;
  if (callback.type === T.Identifier) return hw.evaluator.variableOf(callback) === rejectVar;
  if (!isFunctionNode(callback)) return false;
  let rejects = false;
  let resolves = false;
  walk((callback as Fn).body!, (n) => {
    if (n.type !== T.Identifier) return;
    const v = hw.evaluator.variableOf(n);
    if (v && v === resolveVar) resolves = true;
    if (v === rejectVar && n.parent?.type === T.CallExpression && n.parent.callee === n) rejects = true;
  });
  return rejects && !resolves;
}

/** The executor of the `new Promise(...)` a node is written in. */
function enclosingExecutor(n: Node): Fn | undefined {
  for (let p = n.parent; p; p = p.parent) {
    if (!isFunctionNode(p)) continue;
    const parent = p.parent;
    if (parent?.type === T.NewExpression && parent.arguments[0] === p) {
      const callee = unwrap(parent.callee);
      if (callee.type === T.Identifier && callee.name === 'Promise') return p as Fn;
    }
  }
  return undefined;
}
