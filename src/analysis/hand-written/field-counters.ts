/**
 * Counts kept on an object declared outside a loop: `const meta = { attempts: 0 }` and
 * `while (meta.attempts <= maxRetries) { ... meta.attempts++; continue; ... }`. Each field the
 * loop's test reads and the loop writes is state of its own, carried from attempt to attempt like
 * a counter variable (the environment's `lookupField` reads it). Its first value is the object
 * literal's, when the object is a `const` written as one and nothing outside the loop writes the
 * field; otherwise not known.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { contains, lookupProperty, loopTest, unwrap, type Loop, type Variable } from '../ast.js';
import { UNKNOWN, type Value } from '../eval/values.js';
import type { Node } from '../model.js';
import { regionWrite, stepOf, type HandWritten, type Region, type StateVariable } from './attempts.js';
import { walkExpression } from './control-flow.js';

type Fields = Map<Variable, Map<string, StateVariable>>;

/** The field counters of a loop's test; undefined when the test reads none (the common case: no member in it). */
export function loopFieldCounters(hw: HandWritten, loop: Loop): Fields | undefined {
  const test = loopTest(loop);
  if (!test) return undefined;
  let out: Fields | undefined;
  walkExpression(test, (n) => {
    if (n.type !== T.MemberExpression || n.computed || n.property.type !== T.Identifier) return;
    const object = unwrap(n.object);
    const v = object.type === T.Identifier ? hw.evaluator.variableOf(object) : undefined;
    const def = v?.defs.length === 1 ? v.defs[0] : undefined;
    if (!v || !def || contains(loop, def.name as Node)) return;
    const key = n.property.name;
    if (out?.get(v)?.has(key)) return;
    const members = memberWrites(v, key);
    const inside = members.filter((m) => contains(loop, m));
    if (inside.length === 0) return;
    const { write, copies } = regionWrite(inside, (x) => hw.ctx.sourceCode.getText(x));
    const init = inside.length === members.length ? literalField(hw, v, def, key) : { expr: undefined, value: UNKNOWN as Value };
    const state: StateVariable = { variable: v, init, write, copies, step: write === 'multi' ? undefined : stepOf(hw, write, v), memo: new Map() };
    out ??= new Map();
    if (!out.has(v)) out.set(v, new Map());
    out.get(v)!.set(key, state);
  });
  return out;
}

/** Every write of `v.key` (`v.key++`, `v.key = x`, `v.key += 1`), as the member written. */
function memberWrites(v: Variable, key: string): TSESTree.MemberExpression[] {
  const out: TSESTree.MemberExpression[] = [];
  for (const r of v.references) {
    const member = (r.identifier as Node).parent;
    if (member?.type !== T.MemberExpression || member.object !== r.identifier || member.computed || member.property.type !== T.Identifier || member.property.name !== key) continue;
    const w = member.parent;
    if ((w?.type === T.UpdateExpression && w.argument === member) || (w?.type === T.AssignmentExpression && w.left === member)) out.push(member);
  }
  return out;
}

/** The field's first value: the property of a `const` object literal (absent: undefined); anything else is not known. */
function literalField(hw: HandWritten, v: Variable, def: Variable['defs'][number], key: string): StateVariable['init'] {
  const unknown = { expr: undefined, value: UNKNOWN as Value };
  const declarator = def.node;
  if (def.type !== 'Variable' || declarator.type !== T.VariableDeclarator || declarator.id !== def.name || def.parent?.type !== T.VariableDeclaration || def.parent.kind !== 'const') return unknown;
  const init = declarator.init && unwrap(declarator.init);
  if (init?.type !== T.ObjectExpression || v.references.some((r) => r.isWrite() && !r.init)) return unknown;
  const found = lookupProperty(init, key, (n) => hw.evaluator.scopeOf(n));
  if (found.state === 'absent') return { expr: undefined, value: undefined };
  return found.state === 'present' ? { expr: found.value } : unknown;
}

/** The state a test's operand names: a counter variable, or a field counter (`meta.attempts`). */
export function stateOf(hw: HandWritten, n: Node, region: Region): StateVariable | undefined {
  if (n.type === T.Identifier) {
    const v = hw.evaluator.variableOf(n);
    return v ? region.vars.get(v) : undefined;
  }
  if (!region.fields || n.type !== T.MemberExpression || n.computed || n.property.type !== T.Identifier) return undefined;
  const object = unwrap(n.object);
  const v = object.type === T.Identifier ? hw.evaluator.variableOf(object) : undefined;
  return v ? region.fields.get(v)?.get(n.property.name) : undefined;
}
