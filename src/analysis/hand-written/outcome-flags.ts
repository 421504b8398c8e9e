/**
 * An exit that reads a flag the retried operation sets from its own outcome.
 *
 * `if (state.status !== Status.DOWN) return` before re-arming looks like a bound, but when the
 * only writes of `status` in the file are the operation's own (`UP` after a success, `DOWN` after
 * a failure), the flag says nothing but how the last attempt went: the retry goes on until the
 * operation succeeds, with no bound of its own on attempts or on time. A flag written anywhere
 * else (a `stop()` method, a timer, a caller) may be a cancellation or a deadline, and is left to
 * the caller's reading of unknown exits.
 */
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { contains, isPlainReference, unwrap } from '../ast.js';
import { localFunction } from '../eval/functions.js';
import type { Node } from '../model.js';
import type { HandWritten } from './attempts.js';
import { walkExpression } from './control-flow.js';

/** Whether `test` reads only flags that `operation`'s own function sets from its outcome. */
export function isOutcomeFlag(hw: HandWritten, test: Node, operation: Node): boolean {
  const names = flagNames(test);
  if (!names) return false;
  const body = operationFunction(hw, operation);
  if (!body) return false;
  let flags = 0;
  for (const name of names) {
    const writes = memberWrites(hw, name);
    if (writes.length === 0) continue; // a constant read beside the flag (`Status.DOWN`)
    if (!writes.every((w) => contains(body, w))) return false;
    // Set on a success and on a failure: two different values, or it only marks that a call ran.
    if (new Set(writes.map((w) => (w.type === T.AssignmentExpression ? hw.ctx.sourceCode.getText(w.right) : '++'))).size < 2) return false;
    flags++;
  }
  return flags > 0;
}

/**
 * The property names a condition reads, when it is only comparisons and negations of property
 * reads on names (`state.status !== Status.DOWN`, `!conn.up`) and literals; undefined otherwise.
 */
function flagNames(test: Node): Set<string> | undefined {
  const names = new Set<string>();
  let plain = true;
  const visit = (node: Node): void => {
    const n = unwrap(node);
    if (n.type === T.UnaryExpression && n.operator === '!') return visit(n.argument);
    if (n.type === T.LogicalExpression || (n.type === T.BinaryExpression && ['===', '!==', '==', '!='].includes(n.operator))) {
      visit(n.left as Node);
      visit(n.right);
      return;
    }
    if (n.type === T.Literal) return;
    if (n.type === T.MemberExpression && !n.computed && n.property.type === T.Identifier && isPlainReference(n.object)) {
      names.add(n.property.name);
      return;
    }
    plain = false;
  };
  visit(test);
  return plain && names.size ? names : undefined;
}

/** The function the operation calls, declared in this file. */
function operationFunction(hw: HandWritten, operation: Node): Node | undefined {
  let call: Node | undefined;
  walkExpression(operation, (n) => {
    call ??= n.type === T.CallExpression ? n : undefined;
  });
  if (call?.type !== T.CallExpression) return undefined;
  const callee = unwrap(call.callee);
  if (callee.type !== T.Identifier) return undefined;
  const variable = hw.evaluator.variableOf(callee);
  return variable ? localFunction(variable) : undefined;
}

/** Every write of a property by this name anywhere in the file (`x.name = v`, `x.name++`). */
function memberWrites(hw: HandWritten, name: string): Node[] {
  const named = (n: Node) => n.type === T.MemberExpression && !n.computed && n.property.type === T.Identifier && n.property.name === name;
  return [
    ...hw.ctx.nodesOfType(T.AssignmentExpression).filter((a) => named(a.left)),
    ...hw.ctx.nodesOfType(T.UpdateExpression).filter((u) => named(u.argument)),
  ];
}
