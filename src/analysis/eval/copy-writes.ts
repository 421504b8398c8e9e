/**
 * A member of a local copy, read after the one statement that sets it:
 *
 *   const options = { ...inputOptions };
 *   options.timeout = options.timeout ?? this.timeout;
 *   const { body } = this.buildBody({ options });     // destructured there, never kept
 *   return { req, url, timeout: options.timeout };     // reads `options.timeout ?? this.timeout`
 *
 * The const holds an object literal, a fresh object no other name can reach unless the code hands
 * it on. So a read of `options.timeout` in a later statement of the same block (same function)
 * is what the one plain `options.timeout = e;` statement set, when every other use of `options`
 * cannot change it: member reads, `'k' in options`, destructuring or spreading it into another
 * object, or handing it as a property of an object literal to a method of the class (`this.m({
 * options })`) whose parameter takes that property apart (`{ options: { body } }`) without keeping
 * the object. Any other use (an argument, a method called on it, a property kept, a second write,
 * a write in a branch or a loop) leaves the member to the evaluator's usual reading (unknown).
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { enclosingFunction, isWrittenMember, patternKey, staticPropertyName, unwrap, type Variable } from '../ast.js';
import { instanceMethod } from './calls.js';

type Node = TSESTree.Node;

/** Whether a variable is a const holding an object literal (a fresh object). */
export function holdsFreshObject(variable: Variable | undefined): boolean {
  const def = variable?.defs.length === 1 ? variable.defs[0] : undefined;
  if (def?.type !== 'Variable' || def.parent?.type !== T.VariableDeclaration || def.parent.kind !== 'const') return false;
  const decl = def.node as TSESTree.VariableDeclarator;
  return decl.id === def.name && !!decl.init && unwrap(decl.init).type === T.ObjectExpression;
}

const sources = new WeakMap<Node, Node | null>();

/** The expression the one statement `variable.key = e;` set before `read`, or undefined (see the module comment). Cached per read. */
export function copyWriteSource(variable: Variable, read: TSESTree.MemberExpression): Node | undefined {
  const hit = sources.get(read);
  if (hit !== undefined) return hit ?? undefined;
  const found = sourceOf(variable, read);
  sources.set(read, found ?? null);
  return found;
}

function sourceOf(variable: Variable, read: TSESTree.MemberExpression): Node | undefined {
  if (read.computed || read.property.type !== T.Identifier || !holdsFreshObject(variable)) return undefined;
  const key = read.property.name;
  const declaration = variable.defs[0]!.parent as TSESTree.VariableDeclaration;
  const block = declaration.parent;
  if (block?.type !== T.BlockStatement) return undefined;
  const fn = enclosingFunction(block);
  let write: TSESTree.AssignmentExpression | undefined;
  for (const ref of variable.references) {
    if (ref.init) continue;
    const id = ref.identifier as Node;
    const p = id.parent;
    if (p?.type === T.MemberExpression && p.object === id) {
      const w = p.parent;
      const written = isWrittenMember(p);
      const called = w?.type === T.CallExpression && w.callee === p;
      if (called) return undefined;
      if (!written) continue;
      const name = p.computed ? undefined : p.property.type === T.Identifier ? p.property.name : undefined;
      if (name === undefined) return undefined;
      if (name !== key) continue;
      if (write || w?.type !== T.AssignmentExpression || w.operator !== '=' || w.parent?.type !== T.ExpressionStatement || w.parent.parent !== block) return undefined;
      write = w;
      continue;
    }
    if (!harmlessUse(id)) return undefined;
  }
  if (!write || enclosingFunction(read) !== fn) return undefined;
  const at = statementIn(block, write);
  const readAt = statementIn(block, read);
  return at >= 0 && readAt > at ? write.right : undefined;
}

/** The index in `block` of the statement holding `node` (-1 when none). */
function statementIn(block: TSESTree.BlockStatement, node: Node): number {
  let n: Node = node;
  while (n.parent && n.parent !== block) n = n.parent;
  return n.parent === block ? block.body.indexOf(n as TSESTree.Statement) : -1;
}

/** A use of the object that cannot change it (see the module comment). */
function harmlessUse(id: Node): boolean {
  const p = id.parent;
  if (p?.type === T.BinaryExpression && p.operator === 'in' && p.right === id) return true;
  if (p?.type === T.SpreadElement && p.parent?.type === T.ObjectExpression) return true;
  if (p?.type === T.VariableDeclarator && p.init === id && p.id.type === T.ObjectPattern) return true;
  // `this.m({ options })`: the property taken apart by the method's parameter.
  if (p?.type === T.Property && p.value === id && p.parent?.type === T.ObjectExpression) return takenApart(p);
  return false;
}

function takenApart(property: TSESTree.Property): boolean {
  const object = property.parent as TSESTree.ObjectExpression;
  const call = object.parent;
  if (call?.type !== T.CallExpression || call.arguments.length !== 1 || call.arguments[0] !== object) return false;
  const callee = unwrap(call.callee);
  if (callee.type !== T.MemberExpression || callee.computed || unwrap(callee.object).type !== T.ThisExpression || callee.property.type !== T.Identifier) return false;
  const method = instanceMethod(unwrap(callee.object) as TSESTree.ThisExpression, callee.property.name);
  const key = staticPropertyName(property);
  let param = method?.params[0];
  if (param?.type === T.AssignmentPattern) param = param.left;
  if (param?.type !== T.ObjectPattern || key === undefined) return false;
  const taken = param.properties.find((q) => q.type === T.Property && patternKey(q) === key);
  let value: Node | undefined = taken?.type === T.Property ? taken.value : undefined;
  if (value?.type === T.AssignmentPattern) value = value.left;
  return value?.type === T.ObjectPattern && value.properties.every((q) => q.type === T.Property && (q.value.type === T.Identifier || q.value.type === T.AssignmentPattern));
}
