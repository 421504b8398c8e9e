/**
 * Class fields as values: `this.x` inside a class reads the one expression that sets `x`, when
 * every write of `x` is statically visible and happens while the object is built.
 *
 * A field is known when each write of a member named `x` in the file is the class's own field
 * initialiser (`x = 3`, `private x = opts.x ?? 3`), a constructor parameter property
 * (`constructor(private x = 3)`), or one plain `this.x = ...` statement at the top level of the
 * class's constructor (the constructor's wins over the initialiser, as it runs later). Any other
 * write (`this.x = ...` in another method, in a branch or callback of the constructor,
 * `client.x = ...` anywhere in the file, `this.x++`, `delete`, destructuring into it,
 * `Object.assign(this, ...)`) leaves the field unknown. Methods, accessors and static members are
 * not fields.
 *
 * The written expression is read under the defaults policy (see environment.ts): a field set from
 * a constructor option with a default (`opts.retries ?? 6`, `{ retries = 6 } = {}`) is the
 * class's own default, the value it has when it is not configured, as a helper's own site is read
 * with its parameter defaults; a field set from an option without a default stays unknown.
 */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { findVariable, staticPropertyName, unwrap } from '../ast.js';
import { nodesAtWord } from '../node-lookup.js';
import { holdsFreshObject } from './copy-writes.js';
import type { Env } from './environment.js';
import type { Evaluator } from './evaluator.js';
import { UNKNOWN, isSymbolic, type Value } from './values.js';

type Node = TSESTree.Node;
type Class = TSESTree.ClassDeclaration | TSESTree.ClassExpression;

/** How a field's value is read: the code's own defaults apply, names stay symbolic, nothing else is assumed. */
export const FIELD_ENV: Env = Object.freeze({ defaults: true, randomness: false, names: true, inlines: false });

/** The expression that sets a field (undefined: declared without a value and never assigned). */
export interface FieldSource {
  readonly expr: Node | undefined;
}

/** The class whose instance `this` is: in an instance method, accessor, constructor or instance field initialiser (arrows see through). */
export function thisClass(node: TSESTree.ThisExpression): Class | undefined {
  let child: Node = node;
  for (let p = node.parent; p; child = p, p = p.parent) {
    if (p.type === T.ArrowFunctionExpression) continue;
    if (p.type === T.FunctionExpression) {
      const owner = p.parent;
      if (owner?.type === T.MethodDefinition && owner.value === p && !owner.static) return classOfBody(owner.parent);
      return undefined;
    }
    if (p.type === T.FunctionDeclaration || p.type === T.StaticBlock) return undefined;
    if (p.type === T.PropertyDefinition) return p.value === child && !p.static ? classOfBody(p.parent) : undefined;
    if (p.type === T.ClassBody || p.type === T.Program) return undefined;
  }
  return undefined;
}

function classOfBody(body: Node | undefined): Class | undefined {
  const cls = body?.type === T.ClassBody ? body.parent : undefined;
  return cls?.type === T.ClassDeclaration || cls?.type === T.ClassExpression ? cls : undefined;
}

/** The name a member access reads: `x` for `a.x` / `a['x']`, `#x` for `a.#x`; undefined when computed from something else. */
export function memberName(node: TSESTree.MemberExpression): string | undefined {
  if (node.property.type === T.PrivateIdentifier) return `#${node.property.name}`;
  if (!node.computed) return node.property.type === T.Identifier ? node.property.name : undefined;
  return node.property.type === T.Literal && typeof node.property.value === 'string' ? node.property.value : undefined;
}

/**
 * The name a field access of `this` reads: its member name, or `[k]` for `this[k]` with `k` a
 * module's constant or an import (`this[kMaxRetries]`, a symbol key): the same binding wherever
 * the file writes it, so one field. A computed key of any other variable may be any field.
 */
function fieldKey(sourceCode: Readonly<TSESLint.SourceCode>, node: TSESTree.MemberExpression): string | undefined {
  const name = memberName(node);
  if (name !== undefined || !node.computed || node.property.type !== T.Identifier) return name;
  if (symbolKeys.has(node)) return symbolKeys.get(node);
  const key = symbolKey(sourceCode, node.property);
  symbolKeys.set(node, key);
  return key;
}

const symbolKeys = new WeakMap<Node, string | undefined>();

function symbolKey(sourceCode: Readonly<TSESLint.SourceCode>, property: TSESTree.Identifier): string | undefined {
  const variable = findVariable(sourceCode.getScope(property), property.name);
  const def = variable?.defs.length === 1 ? variable.defs[0] : undefined;
  if (!def || (variable!.scope.type !== 'module' && variable!.scope.type !== 'global')) return undefined;
  const constant = def.type === 'ImportBinding' || (def.type === 'Variable' && def.parent?.type === T.VariableDeclaration && def.parent.kind === 'const');
  return constant ? `[${property.name}]` : undefined;
}

interface ClassFacts {
  /** Field name -> its source, or null when not statically known. */
  readonly fields: Map<string, FieldSource | null>;
  /** Fields still to be checked against the file's other writes, on first use (most are never read). */
  readonly pending: Map<string, { source: FieldSource; writes: Set<Node> }>;
  /** `Object.assign(this, ...)` or the like: no field is known. */
  readonly opaque: boolean;
}

const factsCache = new WeakMap<Class, ClassFacts>();

/**
 * The source of field `name` of `cls`, or undefined when it is not a field known statically.
 * Cached per class and name; a name is checked against the file's writes only when asked for.
 */
export function fieldSource(sourceCode: Readonly<TSESLint.SourceCode>, cls: Class, name: string): FieldSource | undefined {
  let facts = factsCache.get(cls);
  if (!facts) {
    facts = classFacts(cls, sourceCode);
    factsCache.set(cls, facts);
  }
  if (facts.opaque) return undefined;
  const hit = facts.fields.get(name);
  if (hit !== undefined) return hit ?? undefined;
  const pending = facts.pending.get(name);
  if (!pending) return undefined;
  facts.pending.delete(name);
  const source = otherWrites(sourceCode, name, pending.writes) ? null : pending.source;
  facts.fields.set(name, source);
  return source ?? undefined;
}

function keyOf(m: TSESTree.PropertyDefinition | TSESTree.MethodDefinition): string | undefined {
  if (m.key.type === T.PrivateIdentifier) return `#${m.key.name}`;
  return staticPropertyName(m);
}

function parameterPropertyName(p: TSESTree.TSParameterProperty): string | undefined {
  const target = p.parameter.type === T.AssignmentPattern ? p.parameter.left : p.parameter;
  return target.type === T.Identifier ? target.name : undefined;
}

/** `this.x = value;` as a statement: the name `x`. */
function topLevelThisWrite(s: TSESTree.Statement, sourceCode: Readonly<TSESLint.SourceCode>): string | undefined {
  if (s.type !== T.ExpressionStatement) return undefined;
  const e = s.expression;
  if (e.type !== T.AssignmentExpression || e.operator !== '=') return undefined;
  const left = e.left;
  if (left.type !== T.MemberExpression || left.object.type !== T.ThisExpression) return undefined;
  return fieldKey(sourceCode, left);
}

function classFacts(cls: Class, sourceCode: Readonly<TSESLint.SourceCode>): ClassFacts {
  const candidates = new Map<string, { source: FieldSource; writes: Set<Node> }>();
  const methods = new Set<string>();
  let ctor: TSESTree.FunctionExpression | undefined;
  for (const m of cls.body.body) {
    if (m.type === T.MethodDefinition) {
      if (m.kind === 'constructor') ctor = m.value.type === T.FunctionExpression ? m.value : undefined;
      else if (!m.static) {
        const k = keyOf(m);
        if (k !== undefined) methods.add(k);
      }
    } else if (m.type === T.PropertyDefinition && !m.static && !m.computed) {
      const k = keyOf(m);
      if (k !== undefined && !m.declare) candidates.set(k, { source: { expr: m.value ?? undefined }, writes: new Set() });
    }
  }
  const fields = new Map<string, FieldSource | null>();
  if (ctor) {
    for (const p of ctor.params) {
      if (p.type !== T.TSParameterProperty) continue;
      const name = parameterPropertyName(p);
      const target = p.parameter.type === T.AssignmentPattern ? p.parameter.left : p.parameter;
      if (name !== undefined) candidates.set(name, { source: { expr: target }, writes: new Set() });
    }
    const assigned = new Set<string>();
    for (const s of ctor.body?.body ?? []) {
      const name = topLevelThisWrite(s, sourceCode);
      if (name === undefined) continue;
      const e = (s as TSESTree.ExpressionStatement).expression as TSESTree.AssignmentExpression;
      if (assigned.has(name)) {
        fields.set(name, null);
        continue;
      }
      assigned.add(name);
      candidates.set(name, { source: { expr: e.right }, writes: new Set([e.left]) });
    }
  }
  const text = sourceCode.text.slice(cls.range[0], cls.range[1]);
  const opaque = /\bObject\s*\.\s*(?:assign|defineProperty|defineProperties)\s*\(\s*this\b/.test(text);
  const pending = new Map<string, { source: FieldSource; writes: Set<Node> }>();
  for (const [name, c] of candidates) {
    if (fields.has(name) || methods.has(name)) fields.set(name, null);
    else pending.set(name, c);
  }
  return { fields, pending, opaque };
}

/** Whether a member named `name` is written anywhere in the file other than at `allowed`. */
function otherWrites(sourceCode: Readonly<TSESLint.SourceCode>, name: string, allowed: ReadonlySet<Node>): boolean {
  const symbol = /^\[([\w$]+)\]$/.exec(name)?.[1];
  const bare = name.startsWith('#') ? name.slice(1) : symbol ?? name;
  if (!/^[\w$]+$/.test(bare)) return true;
  const pattern = symbol ? new RegExp(`\\[\\s*${bare.replace(/\$/g, '\\$')}\\s*\\]`, 'g') : new RegExp(`${name.startsWith('#') ? '#' : '[.]\\s*'}${bare.replace(/\$/g, '\\$')}(?![\\w$])|\\[\\s*['"\`]${bare.replace(/\$/g, '\\$')}['"\`]\\s*\\]`, 'g');
  let found = false;
  nodesAtWord(sourceCode, pattern, (n) => {
    if (found) return false;
    let member: Node = n;
    if (member.type === T.Identifier || member.type === T.PrivateIdentifier || member.type === T.Literal) member = n.parent ?? n;
    if (member.type !== T.MemberExpression) return false;
    // A write of a const's fresh object (`options.timeout = ...` on `const options = { ...input }`) is no write of an instance.
    if (!allowed.has(member) && isWritten(member) && !freshObjectMember(sourceCode, member as TSESTree.MemberExpression)) found = true;
    return false;
  }, { atEnd: true });
  return found;
}

function freshObjectMember(sourceCode: Readonly<TSESLint.SourceCode>, member: TSESTree.MemberExpression): boolean {
  const object = unwrap(member.object);
  return object.type === T.Identifier && holdsFreshObject(findVariable(sourceCode.getScope(object), object.name));
}

/** Whether a member expression is the target of a write. */
function isWritten(member: Node): boolean {
  let n: Node = member;
  while (n.parent && (n.parent.type === T.TSAsExpression || n.parent.type === T.TSNonNullExpression || n.parent.type === T.TSSatisfiesExpression)) n = n.parent;
  const p = n.parent;
  if (!p) return false;
  switch (p.type) {
    case T.AssignmentExpression:
      return p.left === n;
    case T.UpdateExpression:
      return true;
    case T.UnaryExpression:
      return p.operator === 'delete';
    case T.ArrayPattern:
    case T.RestElement:
      return true;
    case T.AssignmentPattern:
      return p.left === n;
    case T.Property:
      return p.value === n && p.parent?.type === T.ObjectPattern;
    case T.ForInStatement:
    case T.ForOfStatement:
      return p.left === n;
    default:
      return false;
  }
}

/** `this.x` (possibly wrapped): the class and field name, when `node` reads a field of the enclosing class's instance. */
export function thisMember(node: Node, sourceCode: Readonly<TSESLint.SourceCode>): { cls: Class; name: string } | undefined {
  const n = unwrap(node);
  if (n.type !== T.MemberExpression || unwrap(n.object).type !== T.ThisExpression) return undefined;
  const name = fieldKey(sourceCode, n);
  const cls = name === undefined ? undefined : thisClass(unwrap(n.object) as TSESTree.ThisExpression);
  return cls && name !== undefined ? { cls, name } : undefined;
}

/** Field values by the expression that sets them (read once: FIELD_ENV binds nothing). */
const valueCache = new WeakMap<Node, Value>();

/**
 * `this.x` read from the class's own field; UNKNOWN when the field is not known. A field set from
 * a name not known (`config.delay`) stays symbolic only where `env` keeps names; elsewhere it reads
 * as any unknown member does (UNKNOWN, or the probe).
 */
export function fieldValue(ev: Evaluator, node: TSESTree.MemberExpression, env: Env, depth: number): Value {
  if (env.boundFunctions) {
    const bound = constructedValue(ev, node, env, depth);
    if (bound !== UNKNOWN) return bound;
  }
  const value = sourceValue(ev, node, depth);
  return env.names || !isSymbolic(value) ? value : UNKNOWN;
}

function sourceValue(ev: Evaluator, node: TSESTree.MemberExpression, depth: number): Value {
  const field = thisMember(node, ev.sourceCode);
  const source = field && fieldSource(ev.sourceCode, field.cls, field.name);
  if (!source) return UNKNOWN;
  return source.expr ? written(ev, source.expr, depth) : undefined;
}

/**
 * `this.x` where `x` is set in the constructor from its parameters and the environment binds them
 * (a method helper read as called on `new Client(3, 10)`): the setting read in `env`, not cached.
 */
function constructedValue(ev: Evaluator, node: TSESTree.MemberExpression, env: Env, depth: number): Value {
  const field = thisMember(node, ev.sourceCode);
  const source = field && fieldSource(ev.sourceCode, field.cls, field.name);
  const ctor = source?.expr && constructorOf(source.expr);
  if (!ctor || !env.boundFunctions!.has(ctor)) return UNKNOWN;
  return ev.eval(source!.expr, env, depth + 1);
}

/** The constructor a node is written in (its parameters or body, no function in between). */
function constructorOf(node: Node): TSESTree.FunctionExpression | undefined {
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === T.FunctionExpression) return p.parent?.type === T.MethodDefinition && p.parent.kind === 'constructor' ? p : undefined;
    if (p.type === T.ArrowFunctionExpression || p.type === T.FunctionDeclaration || p.type === T.ClassBody) return undefined;
  }
  return undefined;
}

/** The value of the expression that sets a field, read once under FIELD_ENV (a cycle reads as UNKNOWN). */
function written(ev: Evaluator, expr: Node, depth: number): Value {
  const hit = valueCache.get(expr);
  if (hit !== undefined || valueCache.has(expr)) return hit;
  valueCache.set(expr, UNKNOWN);
  const value = ev.eval(expr, FIELD_ENV, depth + 1);
  valueCache.set(expr, value);
  return value;
}

/** Whether `this.x` (or `this.x.y`) starts at a field known statically, which may hold a function or an object of them. */
export function knownThisField(sourceCode: Readonly<TSESLint.SourceCode>, node: Node): boolean {
  let first: Node = unwrap(node);
  while (first.type === T.MemberExpression && unwrap(first.object).type !== T.ThisExpression) first = unwrap(first.object);
  const field = thisMember(first, sourceCode);
  return !!field && !!fieldSource(sourceCode, field.cls, field.name);
}

/**
 * `Retry.MAX` where `Retry` is a class of this file with `static MAX = 5` (readonly or not) and
 * no write of a member named `MAX` anywhere in the file: the initialiser's value. UNKNOWN otherwise.
 */
export function staticFieldValue(ev: Evaluator, node: TSESTree.MemberExpression, depth: number): Value {
  const object = unwrap(node.object);
  const name = object.type === T.Identifier ? memberName(node) : undefined;
  if (name === undefined || name.startsWith('#')) return UNKNOWN;
  const variable = ev.variableOf(object as TSESTree.Identifier);
  const def = variable?.defs.length === 1 ? variable.defs[0] : undefined;
  if (def?.type !== 'ClassName' || variable!.references.some((r) => r.isWrite())) return UNKNOWN;
  const cls = def.node as Class;
  const member = cls.body.body.find((m): m is TSESTree.PropertyDefinition => m.type === T.PropertyDefinition && m.static && !m.computed && keyOf(m) === name);
  if (!member?.value || otherWrites(ev.sourceCode, name, new Set())) return UNKNOWN;
  return written(ev, member.value, depth);
}

/**
 * `this.config.retries` where the field `config` is set from a constructor parameter typed as a
 * class (`constructor(private config: Configuration)`, `this.config = config` with `config:
 * Configuration`): that class's own field `retries`, read as fieldSource reads it, so with the
 * class's defaults (`opts.retries ?? 3`), the value it has when nobody configures it. The class is
 * one of this file, or one another file of the project exports (`classField`, which hands over
 * plain values only). Read only under the defaults policy (environment.ts): an instance built with
 * options differs, as an option differs from its default. UNKNOWN when any step is not known.
 */
export function typedFieldValue(ev: Evaluator, node: TSESTree.MemberExpression, env: Env, depth: number): Value {
  if (!env.defaults) return UNKNOWN;
  const key = memberName(node);
  const holder = thisMember(node.object, ev.sourceCode);
  if (key === undefined || key.startsWith('#') || !holder) return UNKNOWN;
  const typeName = parameterClassType(ev, fieldSource(ev.sourceCode, holder.cls, holder.name)?.expr);
  if (!typeName) return UNKNOWN;
  const variable = ev.variableOf(typeName);
  const def = variable?.defs.length === 1 ? variable.defs[0] : undefined;
  if (def?.type === 'ClassName') return classFieldValue(ev, def.node as Class, key, depth);
  if (def?.type === 'ImportBinding' && ev.classField) return ev.classField(typeName, key);
  return UNKNOWN;
}

/** The value of instance field `key` of `cls`, as its own code sets it (UNKNOWN when not known). */
export function classFieldValue(ev: Evaluator, cls: Class, key: string, depth = 0): Value {
  const source = fieldSource(ev.sourceCode, cls, key);
  if (!source) return UNKNOWN;
  return source.expr ? written(ev, source.expr, depth) : undefined;
}

/** `config` of `constructor(config: Configuration)`: the class name its type annotation names, for a constructor's parameter. */
export function parameterClassType(ev: Evaluator, expr: Node | undefined): TSESTree.Identifier | undefined {
  const id = expr && unwrap(expr);
  if (id?.type !== T.Identifier) return undefined;
  const variable = ev.variableOf(id);
  const def = variable?.defs.length === 1 ? variable.defs[0] : undefined;
  const fn = def?.type === 'Parameter' ? def.node : undefined;
  if (fn?.type !== T.FunctionExpression || fn.parent?.type !== T.MethodDefinition || fn.parent.kind !== 'constructor') return undefined;
  const name = def!.name as TSESTree.Identifier;
  const annotation = name.typeAnnotation?.typeAnnotation;
  if (annotation?.type !== T.TSTypeReference || annotation.typeName.type !== T.Identifier) return undefined;
  return annotation.typeName;
}
