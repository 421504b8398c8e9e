/**
 * A `let` read after straight-line writes in the same function:
 *
 *   let timeoutMillis: number | undefined;
 *   ... (writes from the Retry-After headers) ...
 *   if (timeoutMillis === undefined || !Number.isFinite(timeoutMillis) || timeoutMillis < 0 || timeoutMillis > 60 * 1000) {
 *     timeoutMillis = this.calculateDefaultRetryTimeoutMillis(retriesRemaining, maxRetries);
 *   }
 *   await sleep(timeoutMillis);
 *
 * Walking back from the read through the statements before it: a plain `x = e;` decides the value;
 * an `if (g) x = e;` (no else) is `e` or, where `g` is false, the value before it, and a test
 * `x > K` among `g`'s alternatives bounds that value by K even when it is not known (a server's
 * wait taken only up to 60 s). Where waits are read for their shape (`uncapped`), such a bound
 * is a cap (noted in the flags) and the value is `e`'s, as for `Math.min(e, cap)`. Any other write
 * on the way (in a branch, a loop around the read, a `try` left for its `catch`, a closure) leaves
 * the variable to the evaluator's usual reading, except in an `if` whose test a question about one
 * failure decides (`if (err.status === 429) wait = retryAfter;` asked about a 503): only the branch taken
 * is read, its last write deciding the value, and a branch that writes nothing leaves the value
 * before it.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { contains, enclosingFunction, isLoopNode, unwrap, type Variable } from '../ast.js';
import { FREE, sawCap, type Env } from './environment.js';
import type { Evaluator } from './evaluator.js';
import { UNKNOWN, join, range, toInterval, truth, type Value } from './values.js';

type Node = TSESTree.Node;

/** A path that writes nothing of the variable. */
const NONE: unique symbol = Symbol('none');

export function straightLineValue(ev: Evaluator, variable: Variable, id: TSESTree.Identifier, env: Env, depth: number): Value | typeof FREE {
  const def = variable.defs[0];
  if (def?.type !== 'Variable' || def.parent?.type !== T.VariableDeclaration || def.parent.kind !== 'let' || def.node.type !== T.VariableDeclarator) return FREE;
  const declaration = def.parent;
  const fn = enclosingFunction(declaration);
  if (enclosingFunction(id) !== fn) return FREE;
  const writes: Node[] = [];
  for (const r of variable.references) {
    if (!r.isWrite() || r.init) continue;
    const w = r.identifier.parent;
    if (w?.type !== T.AssignmentExpression || w.operator !== '=' || w.left !== r.identifier || w.parent?.type !== T.ExpressionStatement || enclosingFunction(w) !== fn) return FREE;
    writes.push(w);
  }
  // A loop around the read that writes the variable brings a later write back before it.
  for (let p: Node | undefined = id.parent; p && p !== fn; p = p.parent) {
    if (isLoopNode(p) && !contains(p, declaration) && writes.some((w) => contains(p!, w))) return FREE;
  }
  const writesIn = (n: Node) => writes.filter((w) => contains(n, w));
  const valueOf = (e: Node) => ev.eval(e, env, depth + 1);
  // The branch of an `if` the environment decides (null: a missing else), or undefined when it is not decided.
  const taken = (s: Node): Node | null | undefined => {
    // Only a question about one failure decides such a branch (reading every `if` would cost each read).
    if (s.type !== T.IfStatement || env.status === undefined) return undefined;
    const t = truth(valueOf(s.test));
    return t === UNKNOWN ? undefined : t ? s.consequent : s.alternate;
  };
  // The value the last write run in `n` leaves; NONE when the path through `n` writes nothing.
  const lastWrite = (n: Node): Value | typeof FREE | typeof NONE => {
    const inside = writesIn(n);
    if (inside.length === 0) return NONE;
    if (n.type === T.ExpressionStatement && inside.length === 1 && n.expression === inside[0]) return valueOf((inside[0] as TSESTree.AssignmentExpression).right);
    if (n.type === T.BlockStatement) {
      for (let i = n.body.length - 1; i >= 0; i--) {
        const v = lastWrite(n.body[i]!);
        if (v !== NONE) return v;
      }
      return NONE;
    }
    const branch = taken(n);
    if (branch === undefined) return FREE;
    return branch === null ? NONE : lastWrite(branch);
  };
  // The value before `from`, walking back through the statements run before it.
  const before = (from: Node, steps: number): Value | typeof FREE => {
    let child: Node = from;
    for (let p: Node | undefined = from.parent; p && steps < 64; child = p!, p = p!.parent) {
      if (p.type === T.CatchClause && p.parent?.type === T.TryStatement && writesIn(p.parent.block).length) return FREE;
      if (p.type === T.TryStatement && child === p.finalizer && writesIn(p).length > writesIn(p.finalizer).length) return FREE;
      if (p.type !== T.BlockStatement && p.type !== T.Program && p.type !== T.SwitchCase) {
        if (p === fn) return FREE;
        continue;
      }
      const body = (p.type === T.SwitchCase ? p.consequent : p.body) as Node[];
      for (let i = body.indexOf(child) - 1; i >= 0; i--, steps++) {
        const s = body[i]!;
        if (s === declaration) return def.node.init ? valueOf(def.node.init) : undefined;
        const inside = writesIn(s);
        if (inside.length === 0) continue;
        if (s.type === T.ExpressionStatement && inside.length === 1 && s.expression === inside[0]) return valueOf((inside[0] as TSESTree.AssignmentExpression).right);
        const branch = taken(s);
        if (branch !== undefined) {
          const v = branch === null ? NONE : lastWrite(branch);
          if (v === NONE) continue;
          return v;
        }
        const guarded = guardedWrite(s, inside);
        if (!guarded) return FREE;
        const written = valueOf(guarded.right);
        const hi = upperWhenFalse(ev, guarded.test, variable);
        if (hi !== undefined) {
          if (env.uncapped) {
            sawCap(env, hi);
            return written;
          }
          const w = toInterval(written);
          return w ? range(Math.min(0, w.lo), Math.max(hi, w.hi)) : UNKNOWN;
        }
        const previous = before(s, steps + 1);
        return previous === FREE ? FREE : join(written, previous);
      }
      if (p === declaration.parent && p.type !== T.SwitchCase) return FREE;
    }
    return FREE;
  };
  let statement: Node = id;
  while (statement.parent && statement.parent.type !== T.BlockStatement && statement.parent.type !== T.Program && statement.parent.type !== T.SwitchCase) statement = statement.parent;
  if (writesIn(statement).some((w) => w.range[1] <= id.range[0])) return FREE;
  return before(statement, 0);
}

/** `if (g) x = e;` or `if (g) { ...; x = e; }` with no else: the test and the assignment. */
function guardedWrite(s: Node, inside: Node[]): { test: Node; right: Node } | undefined {
  if (s.type !== T.IfStatement || s.alternate || inside.length !== 1) return undefined;
  const c = s.consequent;
  // The write ends the branch (what comes before it in the branch writes nothing of the variable).
  const only = c.type === T.BlockStatement ? c.body[c.body.length - 1] : c;
  if (only?.type !== T.ExpressionStatement || only.expression !== inside[0]) return undefined;
  return { test: s.test, right: (inside[0] as TSESTree.AssignmentExpression).right };
}

/** The upper bound `x` keeps when `test` is false: the least K of its alternatives `x > K`, `x >= K`, `K < x`. */
function upperWhenFalse(ev: Evaluator, test: Node, variable: Variable): number | undefined {
  const t = unwrap(test);
  if (t.type === T.LogicalExpression && t.operator === '||') {
    const a = upperWhenFalse(ev, t.left, variable);
    const b = upperWhenFalse(ev, t.right, variable);
    return a === undefined ? b : b === undefined ? a : Math.min(a, b);
  }
  if (t.type !== T.BinaryExpression || t.left.type === T.PrivateIdentifier) return undefined;
  const isX = (n: Node) => {
    const u = unwrap(n);
    return u.type === T.Identifier && ev.variableOf(u) === variable;
  };
  const constant = (n: Node) => {
    const v = ev.evaluate(n);
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  };
  if (isX(t.left) && (t.operator === '>' || t.operator === '>=')) return constant(t.right);
  if (isX(t.right) && (t.operator === '<' || t.operator === '<=')) return constant(t.left);
  return undefined;
}
