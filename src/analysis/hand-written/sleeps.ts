/**
 * Waits on the failure path: `await sleep(ms)`, `new Promise((r) => setTimeout(r, ms))`,
 * `timers/promises`, Bluebird's `Promise.delay`, and local helpers that end in one of those
 * (`backoff(n)` -> `sleep(2 ** n * 100)` -> `setTimeout`), with where their duration is written.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, contains, memberName, unwrap, walk, type Variable } from '../ast.js';
import { localFunction } from '../eval/functions.js';
import type { Node } from '../model.js';
import type { HandWritten } from './attempts.js';
import { calleeName, calleeOf, type LoopScan } from './control-flow.js';
import { rejectingTimeout, waitFree } from './wait-free.js';

type Fn = TSESTree.FunctionLike;

/** A wait on the failure path, and how to read its duration. */
export interface Sleep {
  /** Where the duration is written at the call site: the squiggle for backoff findings. */
  readonly node: Node;
  /** The duration expression, in the innermost helper frame; undefined when not readable. */
  readonly expr: Node | undefined;
  /** Helpers between the call site and the timer (`backoff(n)` -> `sleep(2 ** n * 100)` -> `setTimeout`). */
  readonly frames: readonly { fn: Fn; args: readonly Node[] }[];
  readonly pos: number;
}

const SLEEP_NAME = /^(?:sleep|delay|wait|pause|snooze|backoff)(?:ms|millis|milliseconds)?$/i;
/** Helpers followed from a call down to its timer. */
const MAX_HELPER_DEPTH = 4;

/** A wait whose duration is `expr`, at `call`. */
export function plainSleep(node: Node, expr: Node | undefined, at: Node): Sleep {
  return { node, expr, frames: [], pos: at.range[0] };
}

/** The sleep an expression performs, if it is one. */
export function sleepOf(hw: HandWritten, raw: Node, depth = 0): Sleep | undefined {
  const expr = unwrap(raw);
  if (depth > MAX_HELPER_DEPTH) return undefined;
  if (expr.type === T.NewExpression) return promiseSleep(hw, expr);
  if (expr.type !== T.CallExpression) return undefined;
  const callee = calleeOf(expr);
  const args = expr.arguments as Node[];
  const first = args[0];
  const plain = (e: Node | undefined): Sleep => plainSleep(first ?? expr, e, expr);
  const ref = hw.ctx.imports.resolve(callee);
  if (ref) {
    if (ref.module === 'timers/promises' && (ref.path === 'setTimeout' || ref.path === 'scheduler.wait')) return plain(first);
    if (ref.module === 'bluebird' && ref.path === 'delay') return plain(first);
    if (ref.module === 'delay' && (ref.path === 'default' || ref.path === 'module')) return plain(first);
  }
  const method = memberName(callee);
  if (method !== undefined) {
    const object = unwrap((callee as TSESTree.MemberExpression).object);
    // Native promises have no `delay`: `Promise.delay(ms)` is Bluebird's.
    if (method === 'delay' && object.type === T.Identifier && object.name === 'Promise') return plain(first);
    // `await this.timer(s)`: a method of the same class whose body is a sleep, followed like a local helper.
    const own = object.type === T.ThisExpression ? classMethod(expr, method) : undefined;
    if (own) {
      const inner = sleepInBody(hw, own, depth);
      if (inner) return { node: first ?? expr, expr: inner.expr, frames: [{ fn: own, args }, ...inner.frames], pos: expr.range[0] };
    }
    return SLEEP_NAME.test(method) ? namedSleep(method, expr, first) : undefined;
  }
  if (callee.type !== T.Identifier) return undefined;
  const variable = hw.evaluator.variableOf(callee);
  if (variable && variable.defs.length > 0 && !ref) {
    const local = localSleep(hw, variable, expr, args, depth);
    if (local !== 'not-local') return local;
  }
  if (ref && ref.path !== 'default' && ref.path !== 'module' && !SLEEP_NAME.test(ref.path.split('.').pop() ?? '') && !SLEEP_NAME.test(callee.name)) return undefined;
  return SLEEP_NAME.test(callee.name) ? namedSleep(callee.name, expr, first) : undefined;
}

/** The method `name` of the class whose code `at` is in (instance methods only, not getters). */
export function classMethod(at: Node, name: string): Fn | undefined {
  let p: Node | undefined = at.parent;
  while (p && p.type !== T.ClassBody) p = p.parent;
  if (!p) return undefined;
  for (const m of p.body) {
    if (m.type !== T.MethodDefinition || m.static || m.computed || m.kind !== 'method') continue;
    if (m.key.type === T.Identifier && m.key.name === name) return m.value;
  }
  return undefined;
}

/** `new Promise((resolve) => setTimeout(resolve, ms))`. */
function promiseSleep(hw: HandWritten, expr: TSESTree.NewExpression): Sleep | undefined {
  const callee = unwrap(expr.callee);
  if (callee.type !== T.Identifier || callee.name !== 'Promise') return undefined;
  const executor = expr.arguments[0];
  if (!executor || (executor.type !== T.ArrowFunctionExpression && executor.type !== T.FunctionExpression)) return undefined;
  const timer = timerInExecutor(hw, executor);
  if (timer === 'unreadable') return plainSleep(expr, undefined, expr);
  return timer ? plainSleep(timer.arguments[1] ?? timer, timer.arguments[1], expr) : undefined;
}

/** A call of a function declared in this file: a sleep when its body is one (followed with its arguments bound). */
function localSleep(hw: HandWritten, variable: Variable, call: TSESTree.CallExpression, args: Node[], depth: number): Sleep | undefined | 'not-local' {
  const first = args[0];
  const fn = localFunction(variable);
  if (fn) {
    const inner = sleepInBody(hw, fn, depth);
    if (!inner) return undefined;
    return { node: first ?? call, expr: inner.expr, frames: [{ fn, args }, ...inner.frames], pos: call.range[0] };
  }
  const init = constInitializer(variable);
  if (init && isPromisifiedTimeout(unwrap(init))) return plainSleep(first ?? call, first, call);
  return init ? undefined : 'not-local';
}

/** A helper we cannot see: `sleep/delay/wait/pause(ms)` take milliseconds; `backoff(n)` takes who knows what. */
function namedSleep(name: string, call: Node, first: Node | undefined): Sleep {
  const readable = !/backoff/i.test(name) && !!first;
  return plainSleep(first ?? call, readable ? first : undefined, call);
}

/** The sleep a small helper's body performs: its expression body, or its one statement. */
function sleepInBody(hw: HandWritten, fn: Fn, depth: number): Sleep | undefined {
  const body = fn.body;
  if (!body) return undefined;
  if (body.type !== T.BlockStatement) return sleepOf(hw, body, depth + 1);
  const statements = body.body.filter((s) => s.type !== T.VariableDeclaration);
  // `retryNumber = Math.min(CEILING, retryNumber)` first: the parameter is read as reassigned.
  const reassigned = parameterReassignments(fn, statements.slice(0, -1));
  if (!reassigned) return undefined;
  const only = statements[statements.length - 1];
  if (!only) return undefined;
  let e: Node | null | undefined;
  if (only.type === T.ReturnStatement) e = only.argument;
  else if (only.type === T.ExpressionStatement) e = only.expression;
  if (!e) return undefined;
  const inner = unwrap(e);
  const found = sleepOf(hw, inner.type === T.AwaitExpression ? inner.argument : inner, depth + 1);
  if (!found || reassigned.size === 0) return found;
  // A second frame of the same function binds each reassigned parameter to its new value, read in the first.
  const args = fn.params.map((p) => {
    const id = p.type === T.AssignmentPattern ? p.left : p;
    return (id.type === T.Identifier && reassigned.get(id.name)) || (id as Node);
  });
  return { ...found, frames: [{ fn, args }, ...found.frames] };
}

/** `p = expr` statements, each assigning a distinct parameter of `fn` once; undefined when another statement is among them. */
function parameterReassignments(fn: Fn, statements: readonly TSESTree.Statement[]): Map<string, Node> | undefined {
  const names = new Set(fn.params.map((p) => (p.type === T.AssignmentPattern ? p.left : p)).filter((p): p is TSESTree.Identifier => p.type === T.Identifier).map((p) => p.name));
  const out = new Map<string, Node>();
  for (const st of statements) {
    const a = st.type === T.ExpressionStatement ? unwrap(st.expression) : undefined;
    if (a?.type !== T.AssignmentExpression || a.operator !== '=' || a.left.type !== T.Identifier) return undefined;
    if (!names.has(a.left.name) || out.has(a.left.name)) return undefined;
    out.set(a.left.name, a.right);
  }
  return out;
}

/** `resolve => setTimeout(resolve, ms)` / `(r) => { setTimeout(() => r(), ms); }` */
function timerInExecutor(hw: HandWritten, executor: TSESTree.ArrowFunctionExpression | TSESTree.FunctionExpression): TSESTree.CallExpression | 'unreadable' | undefined {
  const resolve = executor.params[0];
  if (resolve?.type !== T.Identifier) return undefined;
  const candidates: Node[] = [];
  walk(executor.body, (n) => { if (n.type === T.CallExpression) candidates.push(n); }, { skipFunctions: true });
  let timers = 0;
  const callsResolve = (n: Node | undefined) => {
    const inner = n && unwrap(n);
    return inner?.type === T.CallExpression && unwrap(inner.callee).type === T.Identifier && (unwrap(inner.callee) as TSESTree.Identifier).name === resolve.name;
  };
  for (const c of candidates) {
    const call = unwrap(c);
    if (call.type !== T.CallExpression || !isGlobalTimeout(hw, call)) continue;
    // A timeout that only rejects (`setTimeout(() => reject(new Error('timeout')), ms)`) is no wait.
    if (rejectingTimeout(hw, call)) continue;
    timers++;
    const cb = call.arguments[0] && unwrap(call.arguments[0]);
    if (!cb) continue;
    if (cb.type === T.Identifier && cb.name === resolve.name) return call;
    if (cb.type === T.ArrowFunctionExpression || cb.type === T.FunctionExpression) {
      const b = cb.body.type === T.BlockStatement ? (cb.body.body.length === 1 && cb.body.body[0]!.type === T.ExpressionStatement ? cb.body.body[0]!.expression : undefined) : cb.body;
      if (callsResolve(b)) return call;
    }
  }
  // A timer that settles the promise some other way is still a wait, of a length we cannot read.
  return timers > 0 ? 'unreadable' : undefined;
}

/** `setTimeout(...)`, `globalThis.setTimeout(...)`: the global timer, not a local of that name. */
export function isGlobalTimeout(hw: HandWritten, call: TSESTree.CallExpression): boolean {
  const callee = unwrap(call.callee);
  if (callee.type === T.Identifier) return callee.name === 'setTimeout' && (!hw.evaluator.shadowed(callee) || importedTimer(hw, callee));
  if (memberName(callee) !== 'setTimeout') return false;
  const object = unwrap((callee as TSESTree.MemberExpression).object);
  return object.type === T.Identifier && ['window', 'globalThis', 'global', 'self'].includes(object.name);
}

/**
 * `import { setTimeout } from './tools/timer'` (a project's wrapper of the global, keeping its
 * signature) or from `node:timers`; not `timers/promises`, whose `setTimeout(ms)` is a sleep.
 */
function importedTimer(hw: HandWritten, id: TSESTree.Identifier): boolean {
  const def = hw.evaluator.variableOf(id)?.defs[0];
  if (def?.type !== 'ImportBinding' || def.node.type !== T.ImportSpecifier) return false;
  const imported = def.node.imported;
  if ((imported.type === T.Identifier ? imported.name : imported.value) !== 'setTimeout') return false;
  const source = (def.parent as TSESTree.ImportDeclaration | null)?.source.value;
  return typeof source === 'string' && (source === 'timers' || source === 'node:timers' || /^\.\.?\//.test(source));
}

export function isSleepCall(hw: HandWritten, n: Node): boolean {
  return !!sleepOf(hw, n);
}

function isPromisifiedTimeout(init: Node): boolean {
  if (init.type !== T.CallExpression) return false;
  const arg = init.arguments[0];
  return calleeName(init) === 'promisify' && arg?.type === T.Identifier && arg.name === 'setTimeout';
}

/**
 * The waits on a loop's failure path. An awaited call we cannot see into (`await onFailure(e)`)
 * may wait too: without a recognised sleep, the schedule is then unknown rather than "no delay".
 */
export function loopSleeps(hw: HandWritten, scan: LoopScan, exclude: (n: Node) => boolean, operation: Node, roots: ReadonlySet<Variable> = new Set()): Sleep[] {
  const out: Sleep[] = [];
  let opaque: TSESTree.AwaitExpression | undefined;
  for (const w of scan.awaits) {
    if (exclude(w) || contains(w, operation)) continue;
    const s = sleepOf(hw, w.argument);
    if (s) {
      out.push(s);
      continue;
    }
    if (w.range[0] < operation.range[0]) continue;
    if (!mayWait(hw, w, roots)) continue;
    opaque ??= w;
  }
  return withOpaqueWait(out, opaque);
}

/**
 * An await that is no recognised sleep, does not read the failure (`await res.text()`) and calls
 * nothing the model can read as wait-free (`await getConduitId(true)` of a local function with no
 * timer): it may wait.
 */
export function mayWait(hw: HandWritten, w: TSESTree.AwaitExpression, roots: ReadonlySet<Variable>): boolean {
  return !readsFailure(hw, w.argument, roots) && !waitFree(hw, w.argument);
}

/** The sleeps found, or, when none is, a wait of unknown length at the first await that may wait. */
export function withOpaqueWait(sleeps: Sleep[], opaque: TSESTree.AwaitExpression | undefined): Sleep[] {
  if (sleeps.length === 0 && opaque) sleeps.push(plainSleep(opaque.argument, undefined, opaque));
  return sleeps;
}

/** `await res.text()`: reading the failed response, not waiting. */
export function readsFailure(hw: HandWritten, expr: Node, roots: ReadonlySet<Variable>): boolean {
  let n = unwrap(expr);
  while (n.type === T.CallExpression || n.type === T.MemberExpression) n = unwrap(n.type === T.CallExpression ? n.callee : n.object);
  if (n.type !== T.Identifier) return false;
  const v = hw.evaluator.variableOf(n);
  return !!v && roots.has(v);
}

