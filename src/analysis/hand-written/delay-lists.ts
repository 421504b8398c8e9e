/**
 * Retry loops over a list of waits: `for (const delay of [1000, 2000, 4000]) { try { return await
 * op(); } catch { await sleep(delay); } }`. The list is the schedule: one pass per entry, and the
 * entry is the wait after that pass's failure. A `for…of` whose variable is used for anything but
 * a wait (an item handed to the operation, a URL) walks a collection and is no retry.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { isFunctionNode, type Variable } from '../ast.js';
import { isInterval, type Value } from '../eval/values.js';
import type { Node } from '../model.js';
import type { HandWritten } from './attempts.js';
import { isSleepCall } from './sleeps.js';

/** The most entries read as a list of waits (a longer list is a table of data, not a schedule). */
const MAX_ENTRIES = 50;

export interface DelayList {
  /** The loop's variable: the wait of each pass. */
  readonly variable: Variable;
  /** Its value on each pass, in order. */
  readonly values: readonly Value[];
}

/** The list of waits a `for…of` runs through, when its every entry is a number and its variable is only ever waited on. */
export function delayList(hw: HandWritten, loop: TSESTree.ForOfStatement): DelayList | undefined {
  if (loop.left.type !== T.VariableDeclaration || loop.left.declarations.length !== 1) return undefined;
  let variable: Variable | undefined;
  try {
    variable = hw.ctx.sourceCode.scopeManager?.getDeclaredVariables(loop.left.declarations[0]!)[0];
  } catch {
    variable = undefined;
  }
  if (!variable) return undefined;
  const list = hw.evaluator.evaluate(loop.right);
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_ENTRIES) return undefined;
  const values = list as Value[];
  if (!values.every((v) => typeof v === 'number' || isInterval(v))) return undefined;
  let reads = 0;
  for (const ref of variable.references) {
    if (ref.init) continue;
    if (ref.isWrite() || !waitedOn(hw, ref.identifier as Node, loop)) return undefined;
    reads++;
  }
  return reads > 0 ? { variable, values } : undefined;
}

/**
 * Whether a read sits in the argument of a sleep awaited in the loop (`await sleep(delay)`, `await
 * new Promise((r) => setTimeout(r, delay))`), or in the test of an `if` that only guards such
 * sleeps (`if (delay > 0) await sleep(delay)`: no wait before the first attempt).
 */
function waitedOn(hw: HandWritten, id: Node, loop: TSESTree.ForOfStatement): boolean {
  let child: Node = id;
  for (let p = id.parent; p && p !== loop; child = p, p = p.parent) {
    if (p.type === T.AwaitExpression) return isSleepCall(hw, p.argument);
    if (p.type === T.IfStatement) return p.test === child && !p.alternate && onlySleeps(hw, p.consequent);
    // The executor of `new Promise(...)` is a function: its timer is the sleep awaited outside it.
    if (isFunctionNode(p) && !(p.parent?.type === T.NewExpression)) return false;
  }
  return false;
}

/** A statement that only awaits sleeps (`await sleep(ms);`, or a block of such statements). */
function onlySleeps(hw: HandWritten, st: TSESTree.Statement): boolean {
  const list = st.type === T.BlockStatement ? st.body : [st];
  return list.length > 0 && list.every((s) => s.type === T.ExpressionStatement && s.expression.type === T.AwaitExpression && isSleepCall(hw, s.expression.argument));
}
