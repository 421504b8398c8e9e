/**
 * The per-attempt timeout armed in a method of the class that the retried operation calls:
 *
 *   const response = await this.fetchWithTimeout(url, init, timeout, controller);   // the attempt
 *   ...
 *   async fetchWithTimeout(url, init, ms, controller) {
 *     const abort = this.makeAbort(controller);        // returns () => controller.abort()
 *     const timedFetch = async (u, i) => {              // a function written in the method
 *       const timer = setTimeout(abort, ms);
 *       try { return await this.fetch.call(undefined, u, i); } finally { clearTimeout(timer); }
 *     };
 *     return await wrap(timedFetch, this.middleware)(url, init);
 *   }
 *
 * The method is followed from the call the operation starts with (`this.name(...)`, the class's
 * one method of that name), and on through a method that only hands its result on from another
 * `this.name(...)` call (`fetchWithAuth` returning what `fetchWithTimeout` resolves to). A timer
 * whose callback aborts (written inline, or a const holding such a function, made by a method of
 * the class) counts where it is armed:
 *  - in the method's own body, as a timer in the retried code counts (timeouts.ts);
 *  - in a function written inside the method only when that function makes the request the timer
 *    guards (it arms the timer, then returns the awaited call inside a `try` whose `finally` clears
 *    that timer) and the method's result comes from it: every `return` of the method returns a
 *    call of that function, or of a call it is handed to, directly or through a const of the
 *    method that holds it (`const inner = cond ? timedFetch : (u, i) => timedFetch(u, i)`).
 *    A nested function never called nor handed on, or one that arms a timer around something
 *    else, says nothing.
 * The duration is the argument the retried code passes where the method takes it (through each
 * method followed), read in the attempt's environment; a duration that is no parameter is read in
 * the method. Nothing is read past three methods.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { enclosingFunction, isFunctionNode, memberName, unwrap, walk } from '../ast.js';
import { instanceMethod } from '../eval/calls.js';
import { onlyReturned, returnOf } from '../eval/functions.js';
import type { Node } from '../model.js';
import type { HandWritten } from './attempts.js';
import { calleeOf, chainRoot } from './control-flow.js';
import { isGlobalTimeout } from './sleeps.js';
import { callsAbort } from './timeouts.js';

type Fn = TSESTree.FunctionLike;
type Call = TSESTree.CallExpression;

/** How deep methods are followed. */
const MAX_METHODS = 3;

/**
 * Where the duration of the timer armed in the method the operation calls is written: an
 * expression of the retried code (`inRegion`) or of the method. Undefined when there is none.
 */
export function methodTimeout(hw: HandWritten, operation: Node): MethodTimeout | undefined {
  const hit = cache.get(operation);
  if (hit !== undefined) return hit ?? undefined;
  const found = read(hw, operation);
  cache.set(operation, found ?? null);
  return found;
}

type MethodTimeout = { readonly expr: Node; readonly inRegion: boolean };

/** Per operation: what the methods it calls arm does not depend on the attempt read. */
const cache = new WeakMap<Node, MethodTimeout | null>();

function read(hw: HandWritten, operation: Node): MethodTimeout | undefined {
  let call = thisCall(chainRoot(operation));
  if (!call) return undefined;
  // Each parameter of the methods followed, mapped to the expression of the retried code it gets (null: not one).
  const passed = new Map<TSESTree.Identifier, Node | null>();
  for (let depth = 0; depth < MAX_METHODS && call; depth++) {
    const fn = methodOf(call);
    if (!fn?.body || fn.params.length < call.arguments.length || call.arguments.some((a) => a.type === T.SpreadElement)) return undefined;
    fn.params.forEach((p, i) => {
      if (p.type !== T.Identifier) return;
      const arg = call!.arguments[i] as Node | undefined;
      passed.set(p, arg ? (depth === 0 ? arg : regionExpression(hw, arg, passed)) : null);
    });
    const ms = timerIn(hw, fn);
    if (ms === 'many') return undefined;
    if (ms) {
      const inRegion = regionExpression(hw, ms, passed);
      if (inRegion) return { expr: inRegion, inRegion: true };
      // A parameter that gets nothing of the retried code is not known here.
      return parameterOf(hw, ms) ? undefined : { expr: ms, inRegion: false };
    }
    call = handedOn(hw, fn);
  }
  return undefined;
}

/** `this.name(...)`: a call of a method of the class the code is in. */
function thisCall(n: Node): Call | undefined {
  if (n.type !== T.CallExpression) return undefined;
  const callee = unwrap(n.callee);
  return callee.type === T.MemberExpression && !callee.computed && unwrap(callee.object).type === T.ThisExpression && memberName(callee) !== undefined ? n : undefined;
}

/** The method of the class a `this.name(...)` call (thisCall) runs. */
function methodOf(call: Call): Fn | undefined {
  const callee = unwrap(call.callee) as TSESTree.MemberExpression;
  return instanceMethod(unwrap(callee.object) as TSESTree.ThisExpression, memberName(callee)!);
}

/** The parameter of a followed method that an identifier names. */
function parameterOf(hw: HandWritten, n: Node): TSESTree.Identifier | undefined {
  const id = unwrap(n);
  if (id.type !== T.Identifier) return undefined;
  const def = hw.evaluator.variableOf(id)?.defs[0];
  return def?.type === 'Parameter' && def.name.type === T.Identifier ? def.name : undefined;
}

/** An argument written in a followed method, as the retried code's expression: a parameter the retried code fills. */
function regionExpression(hw: HandWritten, n: Node, passed: ReadonlyMap<TSESTree.Identifier, Node | null>): Node | null {
  const param = parameterOf(hw, n);
  return param ? passed.get(param) ?? null : null;
}

/** The result of a method that only hands on another method's: `return await this.other(...)`, or a const holding it. */
function handedOn(hw: HandWritten, fn: Fn): Call | undefined {
  const ret = returnOf(fn);
  const expr = ret && onlyReturned(ret);
  if (!expr) return undefined;
  let n = unwrap(expr);
  if (n.type === T.AwaitExpression) n = unwrap(n.argument);
  if (n.type === T.Identifier) {
    const def = hw.evaluator.variableOf(n)?.defs[0];
    const init = def?.type === 'Variable' && (def.node as TSESTree.VariableDeclarator).id === def.name ? (def.node as TSESTree.VariableDeclarator).init : undefined;
    if (!init || def!.parent?.type !== T.VariableDeclaration || def!.parent.kind !== 'const') return undefined;
    n = unwrap(init);
    if (n.type === T.AwaitExpression) n = unwrap(n.argument);
  }
  return thisCall(n);
}

/**
 * The duration of the aborting timer that guards the method's attempt (see the module comment);
 * undefined when there is none, or more than one (which ends the attempt is not read here).
 */
function timerIn(hw: HandWritten, fn: Fn): Node | 'many' | undefined {
  const found: Node[] = [];
  walk(fn.body!, (n) => {
    if (n.type !== T.CallExpression || !isGlobalTimeout(hw, n)) return;
    const [cb, ms] = n.arguments;
    if (!cb || !ms || cb.type === T.SpreadElement || ms.type === T.SpreadElement || !aborts(hw, cb)) return;
    const owner = enclosingFunction(n);
    if (owner === fn || (owner && enclosingFunction(owner) === fn && guardsCall(hw, owner, n) && resultFrom(hw, fn, owner))) found.push(ms);
  }, { budget: 20_000 });
  return found.length > 1 ? 'many' : found[0];
}

/** A timer callback that aborts: a function calling `.abort()`, or a const holding one (made here or returned by a method of the class). */
function aborts(hw: HandWritten, cb: Node): boolean {
  let n = unwrap(cb);
  if (n.type === T.Identifier) {
    const def = hw.evaluator.variableOf(n)?.defs[0];
    const decl = def?.type === 'Variable' ? (def.node as TSESTree.VariableDeclarator) : undefined;
    if (!decl?.init || decl.id !== def!.name || def!.parent?.type !== T.VariableDeclaration || def!.parent.kind !== 'const') return false;
    n = unwrap(decl.init);
    const made = thisCall(n);
    if (made) {
      const method = methodOf(made);
      const ret = method && returnOf(method);
      const expr = ret && onlyReturned(ret);
      if (!expr) return false;
      n = unwrap(expr);
    }
  }
  // `controller.abort.bind(controller)`
  if (n.type === T.CallExpression && memberName(unwrap(n.callee)) === 'bind') return memberName(unwrap((unwrap(n.callee) as TSESTree.MemberExpression).object)) === 'abort';
  return isFunctionNode(n) && callsAbort(n);
}

/**
 * `const t = setTimeout(...); try { return await call(...); } finally { clearTimeout(t); }` in a
 * function: the timer is armed for that call only.
 */
function guardsCall(hw: HandWritten, owner: Fn, timer: Call): boolean {
  const decl = timer.parent;
  if (decl?.type !== T.VariableDeclarator || decl.init !== timer || decl.id.type !== T.Identifier || owner.body?.type !== T.BlockStatement) return false;
  const statement = decl.parent;
  const body = owner.body.body;
  const at = body.findIndex((s) => s === statement);
  const next = at >= 0 ? body[at + 1] : undefined;
  if (next?.type !== T.TryStatement || !next.finalizer) return false;
  const ret = next.block.body.find((s): s is TSESTree.ReturnStatement => s.type === T.ReturnStatement);
  let made = ret?.argument ? unwrap(ret.argument) : undefined;
  if (made?.type === T.AwaitExpression) made = unwrap(made.argument);
  if (made?.type !== T.CallExpression) return false;
  const timerVar = hw.evaluator.variableOf(decl.id);
  return next.finalizer.body.some((s) => {
    const e = s.type === T.ExpressionStatement ? unwrap(s.expression) : undefined;
    if (e?.type !== T.CallExpression) return false;
    const c = unwrap(calleeOf(e));
    const arg = e.arguments[0] && unwrap(e.arguments[0] as Node);
    return c.type === T.Identifier && c.name === 'clearTimeout' && arg?.type === T.Identifier && !!timerVar && hw.evaluator.variableOf(arg) === timerVar;
  });
}

/**
 * Whether every `return` of `fn` returns what `inner` (a function written in it) makes: a call of
 * it, or of a call it is handed to (`wrap(inner, ...)(url)`), directly or through a const of `fn`
 * that holds it.
 */
function resultFrom(hw: HandWritten, fn: Fn, inner: Fn): boolean {
  const holders = new Set<unknown>();
  const named = inner.parent?.type === T.VariableDeclarator && inner.parent.id.type === T.Identifier ? hw.evaluator.variableOf(inner.parent.id) : undefined;
  if (!named) return false;
  holders.add(named);
  // Consts of `fn` whose initialiser refers to a holder hold it too (`cond ? timed : (u) => timed(u)`).
  for (let changed = true, rounds = 0; changed && rounds < 4; rounds++) {
    changed = false;
    walk(fn.body!, (n) => {
      if (n.type !== T.VariableDeclarator || n.id.type !== T.Identifier || !n.init || n.parent?.type !== T.VariableDeclaration || n.parent.kind !== 'const') return;
      const v = hw.evaluator.variableOf(n.id);
      if (!v || holders.has(v) || !refersTo(hw, n.init, holders)) return;
      holders.add(v);
      changed = true;
    }, { budget: 20_000, skipFunctions: true });
  }
  const returns: TSESTree.ReturnStatement[] = [];
  walk(fn.body!, (n) => {
    if (n.type === T.ReturnStatement) returns.push(n);
  }, { budget: 20_000, skipFunctions: true, skip: (n) => isFunctionNode(n) });
  return returns.length > 0 && returns.every((r) => {
    let n = r.argument ? unwrap(r.argument) : undefined;
    if (n?.type === T.AwaitExpression) n = unwrap(n.argument);
    return n?.type === T.CallExpression && madeBy(hw, n, holders);
  });
}

/** `h(...)`, `wrap(h, ...)(...)` or `call(h)` with `h` a holder. */
function madeBy(hw: HandWritten, call: Call, holders: ReadonlySet<unknown>): boolean {
  const callee = unwrap(call.callee);
  if (callee.type === T.Identifier && holders.has(hw.evaluator.variableOf(callee))) return true;
  if (callee.type === T.CallExpression && madeBy(hw, callee, holders)) return true;
  return call.arguments.some((a) => {
    const x = unwrap(a as Node);
    return x.type === T.Identifier && holders.has(hw.evaluator.variableOf(x));
  });
}

/** Whether an expression names a holder (inside a function written there too). */
function refersTo(hw: HandWritten, expr: Node, holders: ReadonlySet<unknown>): boolean {
  let found = false;
  walk(expr, (n) => {
    if (!found && n.type === T.Identifier && holders.has(hw.evaluator.variableOf(n))) found = true;
  }, { budget: 5000 });
  return found;
}
