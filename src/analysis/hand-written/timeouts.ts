/**
 * The per-attempt timeout of a hand-written retry, when the retried code sets one itself:
 * `fetch(url, { signal: AbortSignal.timeout(15000) })`, or an `AbortController` aborted by a timer
 * (`setTimeout(() => controller.abort(), 15000)`). Each attempt may run that long before it fails,
 * so it counts towards the time the retry holds a worker (R-RES-RE-4).
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import { isFunctionNode, memberName, unwrap, walk } from '../ast.js';
import { rangeOf } from '../operations/file.js';
import type { Node, Setting } from '../model.js';
import { attemptEnv, evaluateAt, type HandWritten } from './attempts.js';
import { calleeOf } from './control-flow.js';
import type { Shape } from './site.js';
import { isGlobalTimeout } from './sleeps.js';

export function attemptTimeout(hw: HandWritten, shape: Shape): Setting<number | undefined> {
  let best: { ms: number; node: Node } | undefined;
  for (const call of rangeOf(hw.ctx.nodesOfType(T.CallExpression), shape.region.root)) {
    const expr = timeoutExpression(hw, call);
    if (!expr) continue;
    const ms = evaluateAt(hw, expr, attemptEnv(hw, shape.region, 1));
    // The shortest timer is the one that ends the attempt; an unreadable one says nothing.
    if (typeof ms === 'number' && Number.isFinite(ms) && ms > 0 && (!best || ms < best.ms)) best = { ms, node: expr };
  }
  return best ? { value: best.ms, node: best.node } : { value: undefined };
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
  let aborts = false;
  walk(fn.body, (n) => {
    if (n.type === T.CallExpression && memberName(unwrap(n.callee)) === 'abort' && n.arguments.length <= 1) aborts = true;
  });
  return aborts ? ms : undefined;
}
