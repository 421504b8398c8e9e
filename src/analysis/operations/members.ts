/**
 * The method a member call runs, so that its body can decide what the call is: `this.send()`
 * inside a class, `api.create()` on an object literal or on an instance of a class written in the
 * file (`const api = new Api()`), `Api.create()` on the class itself, and `service.create()` on an
 * object imported from another file of the project (its default or named export: an instance of a
 * class of that file, an object literal, a class's static method), through its re-exports.
 * Inheritance, reassigned names and computed members are not followed: what cannot be resolved is
 * no method, and the call stays what the rest of the classifier makes of it.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { isAbsolute } from 'node:path';
import { constInitializer, enclosingFunction, isFunctionNode, lookupProperty, propertyKey, staticPropertyName, unwrap } from '../ast.js';
import type { AnalysisContext, ImportedValue } from '../library.js';
import type { Node } from '../model.js';
import { classFieldValue, thisClass } from '../eval/fields.js';
import { asData } from '../eval/calls.js';
import { UNKNOWN, isDataObject, type DataValue, type Value } from '../eval/values.js';

type Fn = TSESTree.FunctionLike;
type Class = TSESTree.ClassDeclaration | TSESTree.ClassExpression;

/** A method body and the file it is written in. */
export interface MethodTarget {
  readonly fn: Fn;
  readonly ctx: AnalysisContext;
}

/** Another file of the project, parsed and ready to read (cached by the caller); undefined when it cannot be. */
export type OpenModule = (specifier: string, fromFile: string) => AnalysisContext | undefined;

/** What an expression holds, as far as calling a member of it goes. */
type Holder =
  | { readonly kind: 'class'; readonly cls: Class; readonly instance: boolean }
  | { readonly kind: 'object'; readonly object: TSESTree.ObjectExpression };

export interface MethodResolver {
  /** The method `callee` (a member expression) runs, when it is written where the model can read it. */
  methodOf(callee: Node): MethodTarget | undefined;
  /**
   * The function an imported name is (`import { makeRequest } from './makeRequest'`, through
   * re-exports and workspace packages), when a file of the project exports it with a body.
   */
  importedFunction(callee: Node): MethodTarget | undefined;
}

export function createMethodResolver(ctx: AnalysisContext, filename: string | undefined, open: OpenModule | undefined): MethodResolver {
  function methodOf(raw: Node): MethodTarget | undefined {
    const callee = unwrap(raw);
    if (callee.type !== T.MemberExpression) return undefined;
    const name = propertyKey(callee, () => undefined);
    if (name === undefined) return undefined;
    const object = unwrap(callee.object);
    if (object.type === T.ThisExpression) {
      const holder = thisHolder(callee);
      const fn = holder && memberFunction(holder, name, ctx);
      return fn ? { fn, ctx } : undefined;
    }
    if (object.type !== T.Identifier) return undefined;
    const local = holderOf(object, ctx);
    if (local) {
      const fn = memberFunction(local, name, ctx);
      return fn ? { fn, ctx } : undefined;
    }
    return imported(object, name);
  }

  /** `service.create()` with `service` imported from a file of the project. */
  function imported(object: TSESTree.Identifier, name: string): MethodTarget | undefined {
    if (!open || !filename || !isAbsolute(filename)) return undefined;
    const value = importedValue(object, ctx, filename, open);
    const holder = value && holderOfExpression(value.node, value.ctx);
    const fn = holder && memberFunction(holder, name, value.ctx);
    return fn ? { fn, ctx: value.ctx } : undefined;
  }

  function importedFunction(raw: Node): MethodTarget | undefined {
    const callee = unwrap(raw);
    if (callee.type !== T.Identifier || !open || !filename || !isAbsolute(filename) || !ctx.imports.resolve(callee)) return undefined;
    const value = importedValue(callee, ctx, filename, open);
    if (!value) return undefined;
    let node = unwrap(value.node);
    // `const makeRequest = async (...) => {...}; export { makeRequest }`
    if (node.type === T.Identifier) node = unwrap(value.ctx.evaluator.resolve(node));
    return isFunctionNode(node) && node.body ? { fn: node, ctx: value.ctx } : undefined;
  }

  return { methodOf, importedFunction };
}

/**
 * What an imported name holds in the file that exports it (`import { api } from './api'` where
 * `api.ts` has `export const api = axios.create()`), through that file's re-exports.
 */
export function createImportedValueReader(ctx: AnalysisContext, filename: string | undefined, open: OpenModule | undefined): (id: TSESTree.Identifier) => ImportedValue | undefined {
  return (id) => {
    if (!open || !filename || !isAbsolute(filename)) return undefined;
    const value = importedValue(id, ctx, filename, open);
    if (!value) return undefined;
    // `const api = axios.create(); export default api;`
    const local = unwrap(value.node);
    return { node: local.type === T.Identifier ? value.ctx.evaluator.resolve(local) : local, ctx: value.ctx };
  };
}

/** The class `this` is inside a method (or a class field's arrow) of, and whether it is an instance. */
function thisHolder(node: Node): Holder | undefined {
  // Arrows keep the `this` of the function around them.
  let fn = enclosingFunction(node);
  while (fn?.type === T.ArrowFunctionExpression && fn.parent?.type !== T.PropertyDefinition) fn = enclosingFunction(fn);
  // `create = this.wrap(this._create)`: an instance field's initialiser, outside any function.
  const object = node.type === T.MemberExpression ? unwrap(node.object) : undefined;
  if (!fn && object?.type === T.ThisExpression) {
    const cls = thisClass(object);
    return cls ? { kind: 'class', cls, instance: true } : undefined;
  }
  const member = fn?.parent;
  if (!fn || (member?.type !== T.MethodDefinition && member?.type !== T.PropertyDefinition) || member.value !== fn) return undefined;
  const cls = member.parent?.parent;
  if (cls?.type !== T.ClassDeclaration && cls?.type !== T.ClassExpression) return undefined;
  return { kind: 'class', cls, instance: !member.static };
}

/** What a name of this file holds: a class, an instance of one, an object literal. */
function holderOf(id: TSESTree.Identifier, ctx: AnalysisContext): Holder | undefined {
  const variable = ctx.evaluator.variableOf(id);
  if (!variable || variable.defs.length !== 1) return undefined;
  const def = variable.defs[0]!;
  if (def.type === 'ClassName') return { kind: 'class', cls: def.node as Class, instance: false };
  if (def.type !== 'Variable' || variable.references.some((r) => r.isWrite() && !r.init)) return undefined;
  const init = constInitializer(variable);
  return init ? holderOfExpression(init, ctx) : undefined;
}

function holderOfExpression(raw: Node, ctx: AnalysisContext): Holder | undefined {
  const node = unwrap(raw);
  switch (node.type) {
    case T.ObjectExpression:
      return { kind: 'object', object: node };
    case T.ClassDeclaration:
    case T.ClassExpression:
      return { kind: 'class', cls: node, instance: false };
    case T.NewExpression: {
      const callee = unwrap(node.callee);
      if (callee.type === T.ClassExpression) return { kind: 'class', cls: callee, instance: true };
      const cls = callee.type === T.Identifier ? holderOf(callee, ctx) : undefined;
      return cls?.kind === 'class' && !cls.instance ? { kind: 'class', cls: cls.cls, instance: true } : undefined;
    }
    case T.Identifier:
      return holderOf(node, ctx);
    default:
      return undefined;
  }
}

/** The function a member of a class or object literal is, when written there with a body. */
function memberFunction(holder: Holder, name: string, ctx: AnalysisContext): Fn | undefined {
  if (holder.kind === 'object') {
    const found = lookupProperty(holder.object, name, (n) => ctx.evaluator.scopeOf(n));
    if (found.state !== 'present') return undefined;
    const value = unwrap(found.value);
    return isFunctionNode(value) && value.body ? value : undefined;
  }
  for (const m of holder.cls.body.body) {
    if ((m.type !== T.MethodDefinition && m.type !== T.PropertyDefinition) || m.static === holder.instance) continue;
    if (m.type === T.MethodDefinition && m.kind !== 'method') continue;
    if (staticPropertyName(m) !== name) continue;
    const value = m.value && unwrap(m.value);
    return isFunctionNode(value) && value.body ? value : undefined;
  }
  return undefined;
}

/** Re-exports followed from the imported file to the one that declares the name. */
const MAX_REEXPORTS = 4;

/**
 * What an imported name stands for in the project file that exports it: the exported expression
 * (an identifier of that file when exported by name) and that file's context. `export { x } from`
 * and `export * from` are followed up to MAX_REEXPORTS files; each file is opened through `open`
 * (parsed once per version of the file, in a bounded cache).
 */
export function importedValue(id: TSESTree.Identifier, ctx: AnalysisContext, filename: string, open: OpenModule): ImportedValue | undefined {
  const ref = ctx.imports.resolve(id);
  if (!ref) return undefined;
  if (isNamespaceImport(id, ctx)) return undefined;
  const exported = ref.path === 'module' ? 'default' : ref.path;
  if (exported.includes('.')) return undefined;
  return exportIn(open(ref.module, filename), exported, open, 0);
}

/**
 * `import * as ns`: the module's namespace object, which no export expression stands for (unlike
 * `require('./x')`, also bound to the whole module, which is what the file assigns to module.exports).
 */
function isNamespaceImport(id: TSESTree.Identifier, ctx: AnalysisContext): boolean {
  return ctx.evaluator.variableOf(id)?.defs[0]?.node.type === T.ImportNamespaceSpecifier;
}

function exportIn(other: AnalysisContext | undefined, name: string, open: OpenModule, depth: number): ImportedValue | undefined {
  if (!other) return undefined;
  const node = exportedValue(other, name);
  if (node) return { node, ctx: other };
  if (depth >= MAX_REEXPORTS || !other.file) return undefined;
  for (const st of other.sourceCode.ast.body) {
    if (st.type === T.ExportNamedDeclaration && st.source && st.exportKind !== 'type') {
      for (const s of st.specifiers) {
        if (s.type !== T.ExportSpecifier || exportName(s.exported) !== name) continue;
        return exportIn(open(st.source.value, other.file), exportName(s.local), open, depth + 1);
      }
    } else if (st.type === T.ExportAllDeclaration && !st.exported && name !== 'default' && st.exportKind !== 'type') {
      const found = exportIn(open(st.source.value, other.file), name, open, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Files a value is read through at once. Today one: a file opened through `open` gets no
 * moduleValue of its own (index.ts), so a constant it imports stays unknown there; this bounds a
 * chain should that change.
 */
const MAX_CROSSING = 3;
let crossing = 0;

/**
 * The value another file of the project exports under an imported name (`import { RETRY } from
 * './config'`, `const { retries } = require('./defaults')`) or an inline `require('./defaults')`,
 * read by that file's evaluator from its code alone and handed over as plain data (numbers,
 * strings, object literals merged, arrays of those): functions and nodes never cross files.
 * Packages are not read; a namespace import stays unknown.
 */
export function crossFileValue(node: TSESTree.Identifier | TSESTree.CallExpression, ctx: AnalysisContext, filename: string, open: OpenModule): Value {
  if (crossing >= MAX_CROSSING) return UNKNOWN;
  const ref = ctx.imports.resolve(node);
  if (!ref) return UNKNOWN;
  if (node.type === T.Identifier && isNamespaceImport(node, ctx)) return UNKNOWN;
  const [head, ...rest] = ref.path === 'module' ? ['default'] : ref.path.split('.');
  crossing++;
  try {
    const other = open(ref.module, filename);
    const found = exportIn(other, head!, open, 0);
    let value: Value;
    if (found) {
      const ev = found.ctx.evaluator;
      value = asData(ev, ev.evaluate(found.node) as Value, 0, 0);
    } else if (head === 'default' && other) {
      value = namedCommonJsExports(other);
    } else {
      return UNKNOWN;
    }
    for (const key of rest) {
      if (!isDataObject(value)) return UNKNOWN;
      value = value.properties.has(key) ? (value.properties.get(key) as Value) : value.open ? UNKNOWN : undefined;
    }
    return value;
  } finally {
    crossing--;
  }
}

/**
 * Instance field `key` of a class another file of the project exports under an imported name
 * (`import Configuration from './Configuration'`, named in a type annotation), as that class's own
 * code sets it (fields.ts classFieldValue, its defaults applying), handed over as plain data.
 */
export function crossFileClassField(typeName: TSESTree.Identifier, key: string, ctx: AnalysisContext, filename: string, open: OpenModule): Value {
  if (crossing >= MAX_CROSSING) return UNKNOWN;
  crossing++;
  try {
    const found = importedValue(typeName, ctx, filename, open);
    const cls = found && unwrap(found.node);
    if (cls?.type !== T.ClassDeclaration && cls?.type !== T.ClassExpression) return UNKNOWN;
    const ev = found!.ctx.evaluator;
    return asData(ev, classFieldValue(ev, cls, key), 0, 0);
  } finally {
    crossing--;
  }
}

/**
 * A CommonJS file with no `module.exports = ...`: its `exports.x = ...` assignments as an object of
 * data, open (other ways of exporting may add keys, which read as unknown).
 */
function namedCommonJsExports(other: AnalysisContext): Value {
  const properties = new Map<string, DataValue>();
  for (const st of other.sourceCode.ast.body) {
    if (st.type !== T.ExpressionStatement || st.expression.type !== T.AssignmentExpression || st.expression.operator !== '=') continue;
    const left = unwrap(st.expression.left);
    if (left.type !== T.MemberExpression || left.computed || !isExportsObject(left.object)) continue;
    const key = propertyKey(left, () => undefined);
    if (key !== undefined) properties.set(key, asData(other.evaluator, other.evaluator.evaluate(st.expression.right) as Value, 0, 0));
  }
  return properties.size > 0 ? { properties, open: true } : UNKNOWN;
}

const exportName = (n: TSESTree.Identifier | TSESTree.StringLiteral): string => (n.type === T.Identifier ? n.name : n.value);

/** The expression a file exports under `name` (`default` included), in ES module or CommonJS form. */
function exportedValue(ctx: AnalysisContext, name: string): Node | undefined {
  for (const st of ctx.sourceCode.ast.body) {
    if (st.type === T.ExportDefaultDeclaration) {
      if (name === 'default') return st.declaration as Node;
    } else if (st.type === T.ExportNamedDeclaration && !st.source) {
      const d = st.declaration;
      if ((d?.type === T.ClassDeclaration || d?.type === T.FunctionDeclaration) && d.id?.name === name) return d;
      if (d?.type === T.VariableDeclaration) {
        for (const v of d.declarations) if (v.id.type === T.Identifier && v.id.name === name && v.init) return v.init;
      }
      for (const s of st.specifiers) {
        const exported = s.exported.type === T.Identifier ? s.exported.name : s.exported.value;
        if (s.type === T.ExportSpecifier && exported === name && s.local.type === T.Identifier) return s.local;
      }
    } else if (st.type === T.ExpressionStatement && st.expression.type === T.AssignmentExpression && st.expression.operator === '=') {
      const left = unwrap(st.expression.left);
      if (left.type !== T.MemberExpression || left.computed) continue;
      const target = unwrap(left.object).type === T.Identifier && (unwrap(left.object) as TSESTree.Identifier).name === 'module' ? 'default' : propertyKey(left, () => undefined);
      if (target === name && (target === 'default' ? (left.property as TSESTree.Identifier).name === 'exports' : isExportsObject(left.object))) return st.expression.right;
    }
  }
  return undefined;
}

/** `exports` or `module.exports`. */
function isExportsObject(raw: Node): boolean {
  const n = unwrap(raw);
  if (n.type === T.Identifier) return n.name === 'exports';
  return n.type === T.MemberExpression && !n.computed && unwrap(n.object).type === T.Identifier &&
    (unwrap(n.object) as TSESTree.Identifier).name === 'module' && n.property.type === T.Identifier && n.property.name === 'exports';
}
