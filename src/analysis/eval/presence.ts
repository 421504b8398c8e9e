/**
 * A choice on whether an option was given: `typeof opts.retries === 'number' ? opts.retries : 3`,
 * `opts.timeout != null ? toMs(opts.timeout) : null`. Under the
 * defaults policy (environment.ts) an option that is not known is read as not given, as `x ?? d`
 * is: the test is decided with the option `undefined`, and the branch the code takes without it
 * is its own default. Only tests made of such checks on names and members that are not known are
 * decided so (a bare `opts.x ? ... : ...` is not: an error's fields are read so too); any other
 * test stays unknown.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { unwrap } from '../ast.js';

type Node = TSESTree.Node;

/** The branch taken when every option the test checks is absent; undefined when the test is not such a check. */
export function absentBranch(node: TSESTree.ConditionalExpression, unknown: (n: Node) => boolean): Node | undefined {
  const t = truthWhenAbsent(node.test, unknown, 0);
  return t === undefined ? undefined : t ? node.consequent : node.alternate;
}

function isOption(n: Node, unknown: (n: Node) => boolean): boolean {
  const u = unwrap(n);
  return (u.type === T.MemberExpression || u.type === T.Identifier) && unknown(u);
}

function truthWhenAbsent(test: Node, unknown: (n: Node) => boolean, depth: number): boolean | undefined {
  if (depth > 4) return undefined;
  const t = unwrap(test);
  if (t.type === T.LogicalExpression && t.operator !== '??') {
    const left = truthWhenAbsent(t.left, unknown, depth + 1);
    if (left === undefined) return undefined;
    if (t.operator === '&&' ? !left : left) return left;
    return truthWhenAbsent(t.right, unknown, depth + 1);
  }
  if (t.type === T.BinaryExpression && ['==', '===', '!=', '!=='].includes(t.operator) && t.left.type !== T.PrivateIdentifier) {
    const equal = equalWhenAbsent(t.left, t.right, t.operator.length === 3, unknown) ?? equalWhenAbsent(t.right, t.left, t.operator.length === 3, unknown);
    if (equal === undefined) return undefined;
    return t.operator.startsWith('=') ? equal : !equal;
  }
  return undefined;
}

/** `typeof x === 'number'`, `x == null`, `x === undefined` with `x` absent (undefined). */
function equalWhenAbsent(a: Node, b: Node, strict: boolean, unknown: (n: Node) => boolean): boolean | undefined {
  const left = unwrap(a);
  const right = unwrap(b);
  if (left.type === T.UnaryExpression && left.operator === 'typeof' && isOption(left.argument, unknown)) {
    return right.type === T.Literal && typeof right.value === 'string' ? right.value === 'undefined' : undefined;
  }
  if (!isOption(left, unknown)) return undefined;
  if (right.type === T.Identifier && right.name === 'undefined') return true;
  if (right.type === T.Literal && right.value === null && !('regex' in right)) return !strict;
  return undefined;
}
