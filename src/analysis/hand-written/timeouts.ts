/**
 * The per-attempt timeout of a hand-written retry, when the retried code sets one itself:
 * `fetch(url, { signal: AbortSignal.timeout(15000) })`, or an `AbortController` aborted by a timer
 * (`setTimeout(() => controller.abort(), 15000)`), or a timer promise raced against the call
 * (`Promise.race([call, timeout])`, the timeout a `new Promise` whose timer rejects, written there or
 * made by a function of this file or an imported one: `createTimeout(15000)`), or the retried
 * request's own timeout in its config (request-timeouts.ts), or a timer armed in the method of the
 * class the retried code calls (method-timeouts.ts). Each attempt may run
 * that long before it fails, so it counts towards the time the retry holds a worker (R-RES-RE-4).
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { isFunctionNode, memberName, unwrap, walk } from '../ast.js';
import type { Value } from '../eval/values.js';
import { rangeOf } from '../operations/file.js';
import type { Node, Setting } from '../model.js';
import { attemptEnv, evaluateAt, type HandWritten } from './attempts.js';
import { calleeOf } from './control-flow.js';
import type { Shape } from './site.js';
import { isGlobalTimeout } from './sleeps.js';
import { importedRequestTimeout } from './request-timeouts.js';
import { methodTimeout } from './method-timeouts.js';

export function attemptTimeout(hw: HandWritten, shape: Shape): Setting<number | undefined> {
  let best: { ms: number; node: Node } | undefined;
  for (const call of rangeOf(hw.ctx.nodesOfType(T.CallExpression), shape.region.root)) {
    const raced = isPromiseRace(hw, call) ? racedTimeout(hw, call) : undefined;
    const expr = raced ? raced.expr : timeoutExpression(hw, call);
    if (!expr) continue;
    const ms = raced?.ms ?? evaluateAt(hw, expr, attemptEnv(hw, shape.region, 1));
    // The shortest timer is the one that ends the attempt; an unreadable one says nothing.
    if (typeof ms === 'number' && Number.isFinite(ms) && ms > 0 && (!best || ms < best.ms)) best = { ms, node: expr };
  }
  // The retried request's own timeout (`axios(config)` with `config.timeout`): it ends the attempt too.
  const request = requestOf(shape.operation);
  const env = attemptEnv(hw, shape.region, 1);
  const own = request ? importedRequestTimeout(hw.ctx, request, env) : undefined;
  if (own && own !== 'none') {
    const ms = evaluateAt(hw, own.expr, env);
    if (typeof ms === 'number' && Number.isFinite(ms) && ms > 0 && (!best || ms < best.ms)) best = { ms, node: own.expr };
  }
  // A timer armed in the method of the class the operation calls (`this.fetchWithTimeout(url, init, timeout)`).
  const method = methodTimeout(hw, shape.operation);
  if (method) {
    const ms = evaluateAt(hw, method.expr, env);
    if (typeof ms === 'number' && Number.isFinite(ms) && ms > 0 && (!best || ms < best.ms)) best = { ms, node: method.expr };
  }
  return best ? { value: best.ms, node: best.node } : { value: undefined };
}

/** The call an operation makes (`await axios(config)`). */
function requestOf(operation: Node): TSESTree.CallExpression | undefined {
  let n = unwrap(operation);
  if (n.type === T.AwaitExpression) n = unwrap(n.argument);
  return n.type === T.CallExpression ? n : undefined;
}

/** The duration of `AbortSignal.timeout(ms)`, or of a `setTimeout` whose callback aborts a controller. */
function timeoutExpression(hw: HandWritten, call: TSESTree.CallExpression): Node | undefined {
  const callee = calleeOf(call);
  if (memberName(callee) === 'timeout') {
    const object = unwrap((callee as TSESTree.MemberExpression).object);
    return object.type === T.Identifier && object.name === 'AbortSignal' && !hw.evaluator.shadowed(object) ? call.arguments[0] : undefined;
  }
  // The global timer only (a local `setTimeout` or `window.setTimeout` is decided by the shared test).
  if (!isGlobalTimeout(hw, call)) return undefined;
  const [fn, ms] = call.arguments;
  if (!fn || !ms || !isFunctionNode(fn)) return undefined;
  return callsAbort(fn) ? ms : undefined;
}

/** Whether a timer's callback aborts something: its body calls `.abort()` (`controller.abort()`, `abort(reason)` on a member). */
export function callsAbort(fn: TSESTree.FunctionLike): boolean {
  let aborts = false;
  if (fn.body) walk(fn.body, (n) => {
    if (!aborts && n.type === T.CallExpression && memberName(unwrap(n.callee)) === 'abort' && n.arguments.length <= 1) aborts = true;
  }, { budget: 2000 });
  return aborts;
}

/** `Promise.race([...])` on the global Promise. */
function isPromiseRace(hw: HandWritten, call: TSESTree.CallExpression): boolean {
  const callee = calleeOf(call);
  if (memberName(callee) !== 'race') return false;
  const object = unwrap((callee as TSESTree.MemberExpression).object);
  return object.type === T.Identifier && object.name === 'Promise' && !hw.evaluator.shadowed(object) && unwrap(call.arguments[0] ?? call).type === T.ArrayExpression;
}

/**
 * The timer of a rejecting timeout among the raced promises: where its duration is written in the
 * retried code (the argument a timeout-making function gets, or the inline timer's), with its value
 * when it was read in another function's file.
 */
function racedTimeout(hw: HandWritten, race: TSESTree.CallExpression): { expr: Node; ms?: Value } | undefined {
  const entries = (unwrap(race.arguments[0]!) as TSESTree.ArrayExpression).elements;
  for (const entry of entries) {
    if (!entry || entry.type === T.SpreadElement) continue;
    const made = madeBy(hw, unwrap(entry));
    if (!made) continue;
    if (made.type === T.NewExpression) {
      const ms = rejectingTimer(made);
      if (ms) return { expr: ms };
      continue;
    }
    const found = timeoutMaker(hw, made);
    if (found) return found;
  }
  return undefined;
}

/** The expression a raced entry comes from: itself, or the initialiser of the const (or destructured member) it names. */
function madeBy(hw: HandWritten, entry: Node): TSESTree.NewExpression | TSESTree.CallExpression | undefined {
  let n = entry;
  if (n.type === T.Identifier) {
    const def = hw.evaluator.variableOf(n)?.defs[0];
    if (def?.type !== 'Variable') return undefined;
    const init = (def.node as TSESTree.VariableDeclarator).init;
    n = init ? unwrap(init) : n;
  }
  if (n.type === T.AwaitExpression) n = unwrap(n.argument);
  return n.type === T.NewExpression || n.type === T.CallExpression ? n : undefined;
}

/** `new Promise((_, reject) => setTimeout(() => reject(...), ms))`: the `ms` of its rejecting timer. */
function rejectingTimer(promise: TSESTree.NewExpression): Node | undefined {
  const callee = unwrap(promise.callee);
  const executor = promise.arguments[0];
  if (callee.type !== T.Identifier || callee.name !== 'Promise' || !executor || !isFunctionNode(executor) || !executor.body) return undefined;
  const reject = executor.params[1];
  if (reject?.type !== T.Identifier) return undefined;
  let ms: Node | undefined;
  walk(executor.body, (n) => {
    if (ms || n.type !== T.CallExpression) return;
    const name = unwrap(calleeOf(n));
    if ((name.type !== T.Identifier || name.name !== 'setTimeout') && memberName(name) !== 'setTimeout') return;
    const [fn, time] = n.arguments;
    if (!fn || !time) return;
    let rejects = fn.type === T.Identifier && fn.name === reject.name;
    if (isFunctionNode(fn)) walk(fn.body, (m) => {
      if (m.type === T.CallExpression && unwrap(m.callee).type === T.Identifier && (unwrap(m.callee) as TSESTree.Identifier).name === reject.name) rejects = true;
    }, { budget: 500 });
    if (rejects) ms = time;
  }, { budget: 2000 });
  return ms;
}

/**
 * `createTimeout(15000, message)`: a function of this file, or one imported from the project, whose
 * body makes a rejecting timer promise. When the timer's duration is one of its parameters, the
 * argument the call passes there is where it is written; otherwise the duration is read in the
 * function's own file.
 */
function timeoutMaker(hw: HandWritten, call: TSESTree.CallExpression): { expr: Node; ms?: Value } | undefined {
  const callee = unwrap(call.callee);
  if (callee.type !== T.Identifier) return undefined;
  let fn: TSESTree.FunctionLike | undefined;
  let ctx = hw.ctx;
  const local = hw.evaluator.evaluate(callee);
  if (typeof local === 'object' && local !== null && 'kind' in local && local.kind === 'function') fn = local.node;
  else if (hw.evaluator.variableOf(callee)?.defs[0]?.type === 'ImportBinding') {
    const imported = hw.ctx.importedValue?.(callee);
    const node = imported && unwrap(imported.node);
    if (node && isFunctionNode(node)) {
      fn = node;
      ctx = imported.ctx;
    } else if (imported && node?.type === T.Identifier) {
      const value = imported.ctx.evaluator.evaluate(node);
      if (typeof value === 'object' && value !== null && 'kind' in value && value.kind === 'function') {
        fn = value.node;
        ctx = imported.ctx;
      }
    }
  }
  if (!fn?.body) return undefined;
  let ms: Node | undefined;
  walk(fn.body, (n) => {
    if (!ms && n.type === T.NewExpression) ms = rejectingTimer(n);
  }, { budget: 5000 });
  if (!ms) return undefined;
  const time = unwrap(ms);
  const index = time.type === T.Identifier ? fn.params.findIndex((p) => (p.type === T.AssignmentPattern ? p.left : p).type === T.Identifier && ((p.type === T.AssignmentPattern ? p.left : p) as TSESTree.Identifier).name === time.name) : -1;
  const passed = index >= 0 ? call.arguments[index] : undefined;
  if (passed && passed.type !== T.SpreadElement) return { expr: passed };
  if (index >= 0) return undefined;
  return { expr: call, ms: ctx.evaluator.evaluate(ms) };
}
