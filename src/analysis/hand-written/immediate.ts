/**
 * A way back that waits for nothing while another waits: a retry loop whose catch backs off
 * before `continue`, and whose 502/503/504 branch counts the attempt and goes straight on with
 * `attempts++; continue`. The schedule is that of every way back: the immediate one retries with
 * no wait at all (R-RES-RE-X3), whatever the other one does.
 *
 * A `continue` of the loop is such a way back when, on its way from the failed operation:
 *   - no sleep of the site comes before it (a sleep at the top of the loop waits before every
 *     attempt, so no way back is immediate then);
 *   - it counts an attempt: a counter of the loop's bound moves on the way (`attempts++`), or in
 *     the update of a `for` loop every `continue` goes through, so the branch is a retry, not a
 *     "repair, then try once more" or a skip to other work.
 * Awaits the model cannot read on the way are not waits here, as for the site's own sleeps (an
 * unreadable await counts as a wait only where no sleep is found at all).
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { contains, walk, type Loop } from '../ast.js';
import type { Node } from '../model.js';
import { isCounter } from './bound.js';
import type { HandWritten, Region } from './attempts.js';
import { stateOf } from './field-counters.js';
import { sleepOf, type Sleep } from './sleeps.js';

/** The first `continue` of the loop that retries with no wait while the site's sleeps are elsewhere; undefined when none does. */
export function immediateWayBack(hw: HandWritten, loop: Loop, continues: readonly TSESTree.ContinueStatement[], region: Region, sleeps: readonly Sleep[], opPos: number): Node | undefined {
  if (sleeps.length === 0 || sleeps.some((s) => s.pos < opPos)) return undefined;
  const throughUpdate = updateCounts(hw, loop, region);
  for (const c of continues) {
    if (c.label || c.range[0] < opPos) continue;
    const before = pathTo(c, loop);
    if (sleeps.some((s) => before.some((st) => contains(st, s.node))) || before.some((st) => sleepsIn(hw, st, opPos))) continue;
    if (before.some((st) => st.range[0] > opPos && countsAttempt(hw, st, region)) || throughUpdate) return c;
  }
  return undefined;
}

/** A `for` loop whose update moves a counter of its bound (`attempt++`): every `continue` goes through it, so counts an attempt. */
function updateCounts(hw: HandWritten, loop: Loop, region: Region): boolean {
  if (loop.type !== T.ForStatement || !loop.update) return false;
  const update = loop.update.type === T.SequenceExpression ? loop.update.expressions : [loop.update];
  return update.some((e) => movesCounter(hw, e, region));
}

/** The statements run before `c` in each block around it up to the loop body, and the `try` block before a `catch` it is in. */
function pathTo(c: Node, loop: Loop): Node[] {
  const out: Node[] = [];
  let child: Node = c;
  for (let p = c.parent; p && p !== loop; child = p, p = p.parent) {
    if (p.type === T.BlockStatement || p.type === T.SwitchCase) {
      const body = (p.type === T.SwitchCase ? p.consequent : p.body) as Node[];
      const i = body.indexOf(child);
      if (i > 0) out.push(...body.slice(0, i));
    }
    // A `case` entered by falling through runs the cases before it too: not one path, leave it.
    if (p.type === T.SwitchCase) return [loop];
    if (p.type === T.CatchClause && p.parent?.type === T.TryStatement) out.push(p.parent.block);
  }
  return out;
}

/** Whether a statement is a counter's move (`attempts++`, `meta.attempts += 1`) of the loop's state. */
function countsAttempt(hw: HandWritten, st: Node, region: Region): boolean {
  return st.type === T.ExpressionStatement && movesCounter(hw, st.expression, region);
}

/** `attempts++`, `meta.attempts += 1`: an expression moving a counter of the loop's state. */
function movesCounter(hw: HandWritten, e: Node, region: Region): boolean {
  const target = e.type === T.UpdateExpression ? e.argument : e.type === T.AssignmentExpression ? e.left : undefined;
  const state = target && stateOf(hw, target, region);
  return !!state && state.step !== undefined && state.step !== 0 && isCounter(hw, state);
}

/** Whether a statement awaits a sleep after the operation (a sleep in the `try`, which the site's own sleeps leave out). */
function sleepsIn(hw: HandWritten, st: Node, opPos: number): boolean {
  let found = false;
  walk(st, (n) => {
    if (!found && n.type === T.AwaitExpression && n.range[0] > opPos && sleepOf(hw, n.argument)) found = true;
  }, { skipFunctions: true });
  return found;
}
