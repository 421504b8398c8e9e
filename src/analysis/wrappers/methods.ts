/**
 * Retry helpers that are methods: a class whose method (or instance-field arrow) wraps a retry is
 * called as `this.send(...)` inside the class, or as `client.send(...)` on an instance the file
 * builds (`const client = new Client(...)`), or on a field of another class that holds one
 * (`private retry = new RetryService()`, `constructor(private retry: RetryService)` as dependency
 * injection hands services over, Angular's `inject(RetryService)`). Those calls are the helper's
 * call sites; a call from a subclass, on an instance from elsewhere, or through a computed name is
 * not followed.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, unwrap } from '../ast.js';
import { fieldSource, memberName, parameterClassType, thisClass, thisMember } from '../eval/fields.js';
import type { AnalysisContext } from '../library.js';
import type { Node } from '../model.js';
import { nodeAt, nodesAtWord } from '../node-lookup.js';

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
    const call = callOf(member);
    const instance = call ? instanceOf(ctx, member.object, owner) : undefined;
    if (call && instance) out.push({ call, callee: member, construction: instance === true ? undefined : instance });
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
  if (o.type === T.MemberExpression) {
    const held = fieldInstance(ctx, o);
    return !!held && classNamed(ctx, held.type) === owner && (held.construction ?? true);
  }
  const init = o.type === T.Identifier ? constInitializer(ctx.evaluator.variableOf(o)) : o;
  const made = init && unwrap(init);
  if (made?.type !== T.NewExpression) return false;
  const ctor = unwrap(made.callee);
  return ctor.type === T.Identifier && classNamed(ctx, ctor) === owner ? made : false;
}

/** The call a member is the callee of, through `?.` and `!` (`this.retry?.execute(...)`). */
function callOf(member: Node): TSESTree.CallExpression | undefined {
  let callee: Node = member;
  while (callee.parent && (callee.parent.type === T.ChainExpression || callee.parent.type === T.TSNonNullExpression)) callee = callee.parent;
  const call = callee.parent;
  return call?.type === T.CallExpression && call.callee === callee ? call : undefined;
}

/** The class of the file a name stands for (`class C {}`, `const C = class {}`). */
function classNamed(ctx: AnalysisContext, name: TSESTree.Identifier): Node | undefined {
  const v = ctx.evaluator.variableOf(name);
  const def = v?.defs.length === 1 ? v.defs[0] : undefined;
  return def?.type === 'ClassName' ? def.node : constInitializer(v);
}

/** What a field holds: the class as its code names it, and the `new` that built it when there is one. */
export interface FieldInstance {
  readonly type: TSESTree.Identifier;
  readonly construction?: TSESTree.NewExpression | undefined;
}

/**
 * The instance a `this.x` field holds, read from the class's own code (the field's only write):
 * one built there (`private retry = new RetryService(3)`, `this.retry = new RetryService()` in the
 * constructor), one handed to the constructor and typed as a class (`constructor(private retry:
 * RetryService)`, or a typed parameter the constructor stores: how dependency injection in NestJS
 * and Angular hands a service over, built by the container with no arguments), or Angular's
 * `inject(RetryService)`. Undefined for anything else.
 */
export function fieldInstance(ctx: AnalysisContext, member: Node): FieldInstance | undefined {
  const holder = thisMember(member, ctx.sourceCode);
  const expr = holder && fieldSource(ctx.sourceCode, holder.cls, holder.name)?.expr;
  const e = expr && unwrap(expr);
  if (!e) return undefined;
  if (e.type === T.NewExpression) {
    const ctor = unwrap(e.callee);
    return ctor.type === T.Identifier ? { type: ctor, construction: e } : undefined;
  }
  if (e.type === T.CallExpression) {
    const ref = ctx.imports.resolve(e.callee);
    const arg = e.arguments[0] && unwrap(e.arguments[0]);
    return ref?.module === '@angular/core' && ref.path === 'inject' && arg?.type === T.Identifier ? { type: arg } : undefined;
  }
  const type = parameterClassType(ctx.evaluator, e);
  return type ? { type } : undefined;
}

export interface FieldMethodCall {
  readonly call: TSESTree.CallExpression;
  readonly callee: TSESTree.MemberExpression;
  readonly method: string;
  readonly held: FieldInstance;
}

/** fieldMethodCalls by class and field, so that each is searched once. */
const fieldCalls = new WeakMap<Node, Map<string, FieldMethodCall[]>>();

/** `this.retry.execute`: the field's name (with its `#`) and the offset of the method's last character. */
const FIELD_MEMBER = /this\s*\.\s*(#?[\w$]+)\s*\.\s*[\w$]+/g;

/** Where the text names a member of a field of `this`, by field: one search of the file for every field asked about. */
const fieldMembers = new WeakMap<object, Map<string, number[]>>();

function fieldMemberOffsets(sourceCode: AnalysisContext['sourceCode']): Map<string, number[]> {
  let byField = fieldMembers.get(sourceCode);
  if (byField) return byField;
  byField = new Map();
  fieldMembers.set(sourceCode, byField);
  const text = sourceCode.text;
  FIELD_MEMBER.lastIndex = 0;
  for (let m = FIELD_MEMBER.exec(text); m; m = FIELD_MEMBER.exec(text)) {
    const end = m.index + m[0].length - 1;
    const list = byField.get(m[1]!);
    if (list) list.push(end);
    else byField.set(m[1]!, [end]);
  }
  return byField;
}

/** Calls of a method on the instance field `name` of `cls` holds (`this.retry.execute(...)`), in `cls`. */
export function fieldMethodCalls(ctx: AnalysisContext, cls: Node, name: string): FieldMethodCall[] {
  let byName = fieldCalls.get(cls);
  if (!byName) fieldCalls.set(cls, (byName = new Map()));
  const known = byName.get(name);
  if (known) return known;
  const out: FieldMethodCall[] = [];
  byName.set(name, out);
  const seen = new Set<Node>();
  for (const offset of fieldMemberOffsets(ctx.sourceCode).get(name) ?? []) {
    // The node at the method name's last character; a match in a string or a comment lands elsewhere.
    const n = nodeAt(ctx.sourceCode, offset);
    const callee = n?.parent;
    if (!n || seen.has(n) || n.range[0] < cls.range[0] || n.range[1] > cls.range[1] || callee?.type !== T.MemberExpression || callee.property !== n) continue;
    seen.add(n);
    const method = memberName(callee);
    const call = callOf(callee);
    if (method === undefined || !call) continue;
    const held = fieldInstance(ctx, callee.object);
    if (held) out.push({ call, callee, method, held });
  }
  return out;
}
