/**
 * Statuses as classes. A filter is asked about every status from 400 to 599, and most filters
 * only compare the status with a few numbers (`status === 409`, `status >= 500`,
 * `[502, 503].includes(status)`, `switch (status) { case 429: ... }`). A read of the status whose
 * value goes straight into such a comparison is noted with the numbers it meets; when every read
 * of an answer was of that kind, any status on the same side of (or equal to) each of those
 * numbers takes the same path through the code and gets the same answer (filter.ts,
 * sameForFailures). Any other read (arithmetic, a call, a variable that holds the status) is
 * left unclassified, and its answer is asked status by status as before.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, memberName, unwrap, type Variable } from '../ast.js';
import { statusReads } from './environment.js';

type Node = TSESTree.Node;

const COMPARISONS: ReadonlySet<string> = new Set(['===', '!==', '==', '!=', '<', '<=', '>', '>=']);

const compared = new WeakMap<Node, readonly number[] | null>();

/**
 * Notes a read of the status at `read` (a member such as `res.status`): classified when its value
 * only meets numeric constants. `constOf` gives a name's const initialiser when the name is only
 * ever used as the object of `.includes(...)` / `.has(...)` calls.
 */
export function noteStatusRead(read: Node, constOf: (id: TSESTree.Identifier) => Node | undefined): void {
  let numbers = compared.get(read);
  if (numbers === undefined) compared.set(read, (numbers = comparedNumbers(read, constOf)));
  if (!numbers) return;
  statusReads.classified++;
  for (const n of numbers) statusReads.constants.push(n);
}

/** The side of each constant a status is on: equal statuses of a class share it. */
export function statusSignature(status: number, constants: readonly number[]): string {
  let out = '';
  for (const c of constants) out += status < c ? '<' : status === c ? '=' : '>';
  return out;
}

function comparedNumbers(read: Node, constOf: (id: TSESTree.Identifier) => Node | undefined): readonly number[] | null {
  let n: Node = read;
  while (n.parent && (n.parent.type === T.ChainExpression || n.parent.type === T.TSNonNullExpression || n.parent.type === T.TSAsExpression) && n.parent.expression === n) n = n.parent;
  const p = n.parent;
  if (!p) return null;
  if (p.type === T.BinaryExpression && COMPARISONS.has(p.operator)) {
    const other = numberOf(p.left === n ? p.right : p.left);
    return other === undefined ? null : [other];
  }
  if (p.type === T.SwitchStatement && p.discriminant === n) {
    const out: number[] = [];
    for (const c of p.cases) {
      if (!c.test) continue;
      const v = numberOf(c.test);
      if (v === undefined) return null;
      out.push(v);
    }
    return out;
  }
  // `[502, 503].includes(status)`, `RETRYABLE.has(status)` with a const list of numbers.
  if (p.type === T.CallExpression && p.arguments.length === 1 && p.arguments[0] === n) {
    const callee = p.callee;
    if (callee.type !== T.MemberExpression || callee.computed || callee.property.type !== T.Identifier) return null;
    const method = callee.property.name;
    if (method !== 'includes' && method !== 'has') return null;
    let list: Node | undefined = callee.object;
    if (list.type === T.Identifier) list = constOf(list);
    if (list?.type === T.NewExpression && list.callee.type === T.Identifier && list.callee.name === 'Set' && list.arguments.length === 1 && method === 'has') list = list.arguments[0];
    else if (method !== 'includes') return null;
    if (list?.type !== T.ArrayExpression) return null;
    const out: number[] = [];
    for (const e of list.elements) {
      const v = e && e.type !== T.SpreadElement ? numberOf(e) : undefined;
      if (v === undefined) return null;
      out.push(v);
    }
    return out;
  }
  return null;
}

/** A numeric literal (`409`, `-1`). */
function numberOf(n: Node): number | undefined {
  if (n.type === T.Literal && typeof n.value === 'number') return n.value;
  if (n.type === T.UnaryExpression && n.operator === '-' && n.argument.type === T.Literal && typeof n.argument.value === 'number') return -n.argument.value;
  return undefined;
}

/** A const list only ever asked `.includes(x)` / `.has(x)` of: its initialiser. */
export function askedList(variable: Variable | undefined): Node | undefined {
  const init = constInitializer(variable);
  if (!init) return undefined;
  for (const ref of variable!.references) {
    if (ref.init) continue;
    const m = (ref.identifier as Node).parent;
    const name = m?.type === T.MemberExpression && m.object === ref.identifier ? memberName(m) : undefined;
    if ((name !== 'includes' && name !== 'has') || m!.parent?.type !== T.CallExpression || m!.parent.callee !== m) return undefined;
  }
  return unwrap(init);
}
