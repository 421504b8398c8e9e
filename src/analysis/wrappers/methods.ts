/**
 * Retry helpers that are methods: a class whose method (or instance-field arrow) wraps a retry is
 * called as `this.send(...)` inside the class, or as `client.send(...)` on an instance the file
 * builds (`const client = new Client(...)`). Those calls are the helper's call sites; a call from
 * a subclass, on an instance from elsewhere, or through a computed name is not followed.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import { constInitializer, unwrap } from '../ast.js';
import { memberName, thisClass } from '../eval/fields.js';
import type { AnalysisContext } from '../library.js';
import type { Node } from '../model.js';
import { nodesAtWord } from '../node-lookup.js';

type ClassNode = TSESTree.ClassDeclaration | TSESTree.ClassExpression;

export interface MethodCall {
  readonly call: TSESTree.CallExpression;
  readonly callee: TSESTree.MemberExpression;
  /** The `new Owner(...)` that built the instance called on (none for `this`). */
  readonly construction?: TSESTree.NewExpression | undefined;
}

/** Calls of method `name` of `owner` on its own instances, found from the name in the text. */
export function methodCalls(ctx: AnalysisContext, owner: ClassNode, name: string): MethodCall[] {
  const bare = name.startsWith('#') ? name.slice(1) : name;
  if (!/^[\w$]+$/.test(bare)) return [];
  const escaped = bare.replace(/\$/g, '\\$');
  const pattern = new RegExp(`${name.startsWith('#') ? '#' : '[.]\\s*'}${escaped}(?![\\w$])`, 'g');
  const out: MethodCall[] = [];
  nodesAtWord(ctx.sourceCode, pattern, (n) => {
    const member = n.parent;
    if (member?.type !== T.MemberExpression || member.property !== n || memberName(member) !== name) return false;
    let callee: Node = member;
    while (callee.parent && (callee.parent.type === T.ChainExpression || callee.parent.type === T.TSNonNullExpression)) callee = callee.parent;
    const call = callee.parent;
    const instance = call?.type === T.CallExpression && call.callee === callee ? instanceOf(ctx, member.object, owner) : undefined;
    if (instance) out.push({ call: call as TSESTree.CallExpression, callee: member, construction: instance === true ? undefined : instance });
    return false;
  }, { atEnd: true });
  return out;
}

/**
 * `this` inside the class (true), or an instance the file builds with `new Owner(...)`: held in a
 * const or called at once (`new Owner(...).send()`); that construction is returned.
 */
function instanceOf(ctx: AnalysisContext, object: Node, owner: ClassNode): TSESTree.NewExpression | boolean {
  const o = unwrap(object);
  if (o.type === T.ThisExpression) return thisClass(o) === owner;
  const init = o.type === T.Identifier ? constInitializer(ctx.evaluator.variableOf(o)) : o;
  const made = init && unwrap(init);
  if (made?.type !== T.NewExpression) return false;
  const ctor = unwrap(made.callee);
  if (ctor.type !== T.Identifier) return false;
  const v = ctx.evaluator.variableOf(ctor);
  const def = v?.defs.length === 1 ? v.defs[0] : undefined;
  return (def?.type === 'ClassName' ? def.node === owner : constInitializer(v) === owner) ? made : false;
}
