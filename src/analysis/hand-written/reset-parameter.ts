/**
 * A count parameter that the first call leaves empty and the function fills in itself:
 *
 *   private async makeRequest(options, retriesRemaining: number | null) {
 *     const maxRetries = options.maxRetries ?? this.maxRetries;
 *     if (retriesRemaining == null) retriesRemaining = maxRetries;
 *     ...
 *     return this.retryRequest(options, retriesRemaining);   // which calls back with `retriesRemaining - 1`
 *   }
 *
 * The write is no change per attempt: it runs once, on the first call, when the callers from
 * outside pass nothing (`null`, `undefined`, or leave the argument out), and the calls back pass a
 * number on. So the count starts at the written value and moves by the calls back. Only a write
 * that is the whole of an `if (p == null)` (or `=== undefined`, `typeof p === 'undefined'`) at the
 * top level of the function, or a top-level `p ??= x`, is read so; when some caller from outside
 * passes something else (or cannot be found) the start stays what the callers say.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { unwrap, type Variable } from '../ast.js';
import type { Node } from '../model.js';
import type { Value } from '../eval/values.js';

type Fn = TSESTree.FunctionLike;

/** The value a reset gives the parameter (the assignment's right side), when `write` is such a reset of `v` in `fn`. */
export interface Reset {
  /** The value written. */
  readonly value: Node;
  /** What the test lets through: `==` checks both, `=== null` null only, `=== undefined` and `typeof` undefined only. */
  readonly passes: 'nullish' | 'null' | 'undefined';
}

export function nullishReset(fn: Fn, v: Variable, write: TSESTree.AssignmentExpression | TSESTree.UpdateExpression): Reset | undefined {
  if (write.type !== T.AssignmentExpression || unwrap(write.left).type !== T.Identifier) return undefined;
  const statement = write.parent;
  if (statement?.type !== T.ExpressionStatement) return undefined;
  const body = fn.body?.type === T.BlockStatement ? fn.body : undefined;
  if (!body) return undefined;
  if (write.operator === '??=') return statement.parent === body ? { value: write.right, passes: 'nullish' } : undefined;
  if (write.operator !== '=') return undefined;
  let holder: Node | undefined = statement.parent;
  if (holder?.type === T.BlockStatement) holder = holder.parent;
  if (holder?.type !== T.IfStatement || holder.alternate || holder.parent !== body) return undefined;
  const passes = testsNullish(holder.test, v);
  return passes ? { value: write.right, passes } : undefined;
}

/** `p == null`, `p === null`, `p === undefined`, `p == undefined`, `typeof p === 'undefined'` (either side). */
function testsNullish(test: Node, v: Variable): Reset['passes'] | undefined {
  const t = unwrap(test);
  if (t.type !== T.BinaryExpression || (t.operator !== '==' && t.operator !== '===')) return undefined;
  const isV = (n: Node) => {
    const u = unwrap(n);
    return u.type === T.Identifier && v.references.some((r) => r.identifier === u);
  };
  const nullish = (n: Node): 'null' | 'undefined' | undefined => {
    const u = unwrap(n);
    if (u.type === T.Literal && u.value === null && !('regex' in u)) return 'null';
    return u.type === T.Identifier && u.name === 'undefined' ? 'undefined' : undefined;
  };
  const typeofV = (n: Node) => {
    const u = unwrap(n);
    return u.type === T.UnaryExpression && u.operator === 'typeof' && isV(u.argument);
  };
  const undefinedText = (n: Node) => {
    const u = unwrap(n);
    return u.type === T.Literal && u.value === 'undefined';
  };
  const [a, b] = [t.left as Node, t.right];
  const compared = isV(a) ? nullish(b) : isV(b) ? nullish(a) : undefined;
  if (compared) return t.operator === '==' ? 'nullish' : compared;
  return (typeofV(a) && undefinedText(b)) || (typeofV(b) && undefinedText(a)) ? 'undefined' : undefined;
}

/**
 * Whether every call from outside `fn` (and the other function of its cycle) passes nothing at
 * position `i` that the reset's test lets through: `null`, `undefined`, no argument, or a
 * parameter of the caller whose own default is one (`request(options, retries = null)`, read
 * under the defaults policy by `valueOf`). No such call found: not known.
 */
export function outsideCallsPassNothing(calls: readonly TSESTree.CallExpression[], i: number, passes: Reset['passes'], valueOf: (n: Node) => Value): boolean {
  if (calls.length === 0) return false;
  return calls.every((c) => {
    if (c.arguments.slice(0, i + 1).some((a) => a.type === T.SpreadElement)) return false;
    const a = c.arguments[i];
    const value = a ? valueOf(a) : undefined;
    const given = value === undefined ? 'undefined' : value === null ? 'null' : undefined;
    return given !== undefined && (passes === 'nullish' || passes === given);
  });
}
