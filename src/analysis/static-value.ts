/**
 * Static evaluation of option values. Anything that cannot be decided from the
 * file alone evaluates to UNKNOWN, and UNKNOWN never produces a report.
 */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';

export const UNKNOWN: unique symbol = Symbol('unknown');
export type Unknown = typeof UNKNOWN;
export type Maybe<V> = V | Unknown;

export function isKnown<V>(value: Maybe<V>): value is V {
  return value !== UNKNOWN;
}

/** A qualified reference that could not be reduced to a value, e.g. `BackOffPolicy.Exponential`. */
export interface SymbolicValue {
  readonly symbolic: string;
}

export type StaticValue =
  | number
  | string
  | boolean
  | null
  | undefined
  | bigint
  | RegExp
  | SymbolicValue
  | readonly StaticValue[]
  | StaticObject
  | StaticFunction;

export interface StaticObject {
  readonly kind: 'object';
  readonly node: TSESTree.ObjectExpression | undefined;
}

export interface StaticFunction {
  readonly kind: 'function';
  readonly node: TSESTree.FunctionLike;
}

export type Scope = TSESLint.Scope.Scope;

const MAX_DEPTH = 24;

type Expr = TSESTree.Node;

/** Strips TypeScript-only wrappers (`as`, `satisfies`, `!`, `<T>x`) that do not change a value. */
export function unwrap(node: Expr): Expr {
  let current = node;
  for (;;) {
    switch (current.type) {
      case T.TSAsExpression:
      case T.TSSatisfiesExpression:
      case T.TSNonNullExpression:
      case T.TSTypeAssertion:
      case T.TSInstantiationExpression:
        current = current.expression;
        break;
      case T.ChainExpression:
        current = current.expression;
        break;
      default:
        return current;
    }
  }
}

export function isSymbolic(value: unknown): value is SymbolicValue {
  return typeof value === 'object' && value !== null && 'symbolic' in value;
}

export function findVariable(scope: Scope | null, name: string): TSESLint.Scope.Variable | undefined {
  for (let s: Scope | null = scope; s; s = s.upper) {
    const v = s.set.get(name);
    if (v) return v;
  }
  return undefined;
}

/**
 * The single expression a `const` binding is initialised with, or undefined when the
 * binding is not a plain never-reassigned const (a `let` may change between definition and use).
 */
export function constInitializer(variable: TSESLint.Scope.Variable | undefined): Expr | undefined {
  if (!variable || variable.defs.length !== 1) return undefined;
  const def = variable.defs[0]!;
  if (def.type !== 'Variable') return undefined;
  const declarator = def.node as TSESTree.VariableDeclarator;
  const declaration = def.parent as TSESTree.VariableDeclaration | null;
  if (!declaration || declarator.id.type !== T.Identifier || !declarator.init) return undefined;
  if (declaration.kind !== 'const') {
    // A `let` that is never written again is as good as a const.
    const writes = variable.references.filter((r) => r.isWrite());
    if (writes.length !== 1 || writes[0]!.identifier !== declarator.id) return undefined;
  }
  return declarator.init;
}

/** Follows `const a = b` chains to the expression that actually produces the value. */
export function resolveExpression(node: Expr, scopeOf: (n: Expr) => Scope, depth = 0): Expr {
  const inner = unwrap(node);
  if (inner.type !== T.Identifier || depth > MAX_DEPTH) return inner;
  const init = constInitializer(findVariable(scopeOf(inner), inner.name));
  return init ? resolveExpression(init, scopeOf, depth + 1) : inner;
}

export interface Evaluator {
  evaluate(node: Expr | null | undefined): Maybe<StaticValue>;
  number(node: Expr | null | undefined): Maybe<number>;
  resolve(node: Expr): Expr;
  qualifiedName(node: Expr): string | undefined;
  scopeOf(node: Expr): Scope;
}

export function createEvaluator(sourceCode: Readonly<TSESLint.SourceCode>): Evaluator {
  const cache = new WeakMap<Expr, Maybe<StaticValue>>();
  const scopeOf = (n: Expr): Scope => sourceCode.getScope(n);

  function evaluate(node: Expr | null | undefined, depth = 0): Maybe<StaticValue> {
    if (!node) return undefined;
    if (depth > MAX_DEPTH) return UNKNOWN;
    const hit = cache.get(node);
    if (hit !== undefined || cache.has(node)) return hit as Maybe<StaticValue>;
    cache.set(node, UNKNOWN); // guards against cycles such as `const a = a + 1`
    const value = compute(node, depth);
    cache.set(node, value);
    return value;
  }

  function compute(raw: Expr, depth: number): Maybe<StaticValue> {
    const node = unwrap(raw);
    switch (node.type) {
      case T.Literal:
        if ('regex' in node && node.regex) return UNKNOWN;
        return node.value as StaticValue;
      case T.TemplateLiteral: {
        let out = node.quasis[0]?.value.cooked ?? '';
        for (let i = 0; i < node.expressions.length; i++) {
          const v = evaluate(node.expressions[i], depth + 1);
          if (!isPrimitive(v)) return UNKNOWN;
          out += String(v) + (node.quasis[i + 1]?.value.cooked ?? '');
        }
        return out;
      }
      case T.Identifier:
        return identifier(node, depth);
      case T.UnaryExpression: {
        if (node.operator === 'void') return undefined;
        const v = evaluate(node.argument, depth + 1);
        if (!isPrimitive(v)) return UNKNOWN;
        switch (node.operator) {
          case '-': return typeof v === 'number' ? -v : UNKNOWN;
          case '+': return typeof v === 'number' ? v : UNKNOWN;
          case '!': return !v;
          default: return UNKNOWN;
        }
      }
      case T.BinaryExpression:
        return binary(node, depth);
      case T.LogicalExpression: {
        const left = evaluate(node.left, depth + 1);
        if (!isPrimitive(left)) return UNKNOWN;
        if (node.operator === '??') return left ?? evaluate(node.right, depth + 1);
        if (node.operator === '||') return left || evaluate(node.right, depth + 1);
        return left && evaluate(node.right, depth + 1);
      }
      case T.ConditionalExpression: {
        const test = evaluate(node.test, depth + 1);
        if (!isPrimitive(test)) return UNKNOWN;
        return evaluate(test ? node.consequent : node.alternate, depth + 1);
      }
      case T.ArrayExpression: {
        const out: StaticValue[] = [];
        for (const el of node.elements) {
          if (!el) { out.push(undefined); continue; }
          if (el.type === T.SpreadElement) {
            const spread = evaluate(el.argument, depth + 1);
            if (!Array.isArray(spread)) return UNKNOWN;
            out.push(...(spread as StaticValue[]));
            continue;
          }
          const v = evaluate(el, depth + 1);
          if (v === UNKNOWN) return UNKNOWN;
          out.push(v);
        }
        return out;
      }
      case T.ObjectExpression:
        return { kind: 'object', node };
      case T.ArrowFunctionExpression:
      case T.FunctionExpression:
        return { kind: 'function', node };
      case T.MemberExpression:
        return member(node, depth);
      case T.CallExpression:
        return call(node, depth);
      case T.SequenceExpression:
        return evaluate(node.expressions[node.expressions.length - 1], depth + 1);
      default:
        return UNKNOWN;
    }
  }

  function identifier(node: TSESTree.Identifier, depth: number): Maybe<StaticValue> {
    const variable = findVariable(scopeOf(node), node.name);
    if (!variable || variable.defs.length === 0) {
      // Globals nobody shadows.
      if (node.name === 'undefined') return undefined;
      if (node.name === 'Infinity') return Infinity;
      if (node.name === 'NaN') return NaN;
      return UNKNOWN;
    }
    const def = variable.defs[0]!;
    if (def.type === 'FunctionName' && variable.defs.length === 1) {
      return { kind: 'function', node: def.node as TSESTree.FunctionDeclaration };
    }
    if (def.type === 'TSEnumName') return { symbolic: node.name };
    const init = constInitializer(variable);
    return init ? evaluate(init, depth + 1) : UNKNOWN;
  }

  function binary(node: TSESTree.BinaryExpression, depth: number): Maybe<StaticValue> {
    if (node.left.type === T.PrivateIdentifier) return UNKNOWN;
    const a = evaluate(node.left, depth + 1);
    const b = evaluate(node.right, depth + 1);
    if (!isPrimitive(a) || !isPrimitive(b)) return UNKNOWN;
    if (node.operator === '+') {
      if (typeof a === 'string' || typeof b === 'string') return String(a) + String(b);
      return typeof a === 'number' && typeof b === 'number' ? a + b : UNKNOWN;
    }
    if (node.operator === '===' || node.operator === '==') return a === b;
    if (node.operator === '!==' || node.operator === '!=') return a !== b;
    if (typeof a !== 'number' || typeof b !== 'number') return UNKNOWN;
    switch (node.operator) {
      case '-': return a - b;
      case '*': return a * b;
      case '/': return a / b;
      case '%': return a % b;
      case '**': return a ** b;
      case '<': return a < b;
      case '<=': return a <= b;
      case '>': return a > b;
      case '>=': return a >= b;
      case '<<': return a << b;
      case '>>': return a >> b;
      case '|': return a | b;
      case '&': return a & b;
      default: return UNKNOWN;
    }
  }

  function member(node: TSESTree.MemberExpression, depth: number): Maybe<StaticValue> {
    const key = propertyKey(node, (n) => evaluate(n, depth + 1));
    if (key === undefined) return UNKNOWN;
    const object = unwrap(node.object);
    if (object.type === T.Identifier && !findVariable(scopeOf(object), object.name)?.defs.length) {
      const builtin = BUILTIN_CONSTANTS[`${object.name}.${key}`];
      if (builtin !== undefined) return builtin;
    }
    const base = evaluate(object, depth + 1);
    if (base === UNKNOWN) {
      const name = qualifiedName(node);
      return name ? { symbolic: name } : UNKNOWN;
    }
    if (isSymbolic(base)) return enumMember(base, key, object) ?? { symbolic: `${base.symbolic}.${key}` };
    if (Array.isArray(base)) {
      if (key === 'length') return base.length;
      const i = Number(key);
      return Number.isInteger(i) && i >= 0 && i < base.length ? base[i] : UNKNOWN;
    }
    if (typeof base === 'string' && key === 'length') return base.length;
    if (isStaticObject(base) && base.node) {
      const found = lookupProperty(base.node, key, scopeOf, depth + 1);
      if (found.state === 'present') return evaluate(found.value, depth + 1);
      return found.state === 'absent' ? undefined : UNKNOWN;
    }
    return UNKNOWN;
  }

  /** `enum E { A = 1 }` in this file: the member's value; `E.B` without initialiser stays symbolic. */
  function enumMember(base: SymbolicValue, key: string, object: Expr): Maybe<StaticValue> | undefined {
    if (object.type !== T.Identifier) return undefined;
    const variable = findVariable(scopeOf(object), object.name);
    const def = variable?.defs[0];
    if (!def || def.type !== 'TSEnumName') return undefined;
    const decl = def.node as TSESTree.TSEnumDeclaration;
    const members = decl.body?.members ?? (decl as unknown as { members: TSESTree.TSEnumMember[] }).members;
    for (const m of members) {
      const name = m.id.type === T.Identifier ? m.id.name : String((m.id as TSESTree.StringLiteral).value);
      if (name === key) return m.initializer ? evaluate(m.initializer, 1) : { symbolic: `${base.symbolic}.${key}` };
    }
    return undefined;
  }

  function call(node: TSESTree.CallExpression, depth: number): Maybe<StaticValue> {
    const callee = unwrap(node.callee);
    if (callee.type !== T.MemberExpression) return UNKNOWN;
    const name = qualifiedName(callee);
    const fn = name ? MATH_FUNCTIONS[name] : undefined;
    if (!fn) return UNKNOWN;
    const root = rootIdentifier(callee);
    if (root && findVariable(scopeOf(root), root.name)?.defs.length) return UNKNOWN; // shadowed Math
    const args: number[] = [];
    for (const a of node.arguments) {
      if (a.type === T.SpreadElement) return UNKNOWN;
      const v = evaluate(a, depth + 1);
      if (typeof v !== 'number') return UNKNOWN;
      args.push(v);
    }
    return fn(...args);
  }

  function qualifiedName(node: Expr): string | undefined {
    const n = unwrap(node);
    if (n.type === T.Identifier) return n.name;
    if (n.type === T.ThisExpression) return 'this';
    if (n.type === T.MemberExpression) {
      const base = qualifiedName(n.object);
      const key = propertyKey(n, () => UNKNOWN);
      return base !== undefined && key !== undefined ? `${base}.${key}` : undefined;
    }
    return undefined;
  }

  return {
    evaluate: (n) => evaluate(n),
    number(n) {
      const v = evaluate(n);
      return typeof v === 'number' ? v : UNKNOWN;
    },
    resolve: (n) => resolveExpression(n, scopeOf),
    qualifiedName,
    scopeOf,
  };
}

export function isStaticObject(v: unknown): v is StaticObject {
  return typeof v === 'object' && v !== null && (v as StaticObject).kind === 'object';
}

export function isStaticFunction(v: unknown): v is StaticFunction {
  return typeof v === 'object' && v !== null && (v as StaticFunction).kind === 'function';
}

function isPrimitive(v: Maybe<StaticValue>): v is number | string | boolean | null | undefined | bigint {
  return v === null || v === undefined || (typeof v !== 'object' && typeof v !== 'symbol');
}

function rootIdentifier(node: Expr): TSESTree.Identifier | undefined {
  let n = unwrap(node);
  while (n.type === T.MemberExpression) n = unwrap(n.object);
  return n.type === T.Identifier ? n : undefined;
}

/** The static key of `a.b` / `a['b']`, or undefined when computed from something unknown. */
export function propertyKey(
  node: TSESTree.MemberExpression,
  evaluateComputed: (n: Expr) => Maybe<StaticValue>,
): string | undefined {
  if (!node.computed) return node.property.type === T.Identifier ? node.property.name : undefined;
  const v = evaluateComputed(node.property);
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
}

export type PropertyLookup =
  | { state: 'present'; property: TSESTree.Property; value: Expr }
  | { state: 'absent' }
  | { state: 'unknown' };

/**
 * Finds the property that wins for `key` in an object literal, honouring override order
 * and spreads of other statically known objects.
 */
export function lookupProperty(
  object: TSESTree.ObjectExpression,
  key: string,
  scopeOf: (n: Expr) => Scope,
  depth = 0,
): PropertyLookup {
  if (depth > MAX_DEPTH) return { state: 'unknown' };
  for (let i = object.properties.length - 1; i >= 0; i--) {
    const p = object.properties[i]!;
    if (p.type === T.SpreadElement) {
      const target = resolveExpression(p.argument, scopeOf, depth + 1);
      if (target.type === T.ObjectExpression) {
        const inner = lookupProperty(target, key, scopeOf, depth + 1);
        if (inner.state !== 'absent') return inner;
        continue;
      }
      if (isNullish(target)) continue;
      return { state: 'unknown' };
    }
    const name = staticPropertyName(p);
    if (name === undefined) return { state: 'unknown' };
    if (name === key) {
      if (p.kind !== 'init') return { state: 'unknown' };
      return { state: 'present', property: p, value: p.value as Expr };
    }
  }
  return { state: 'absent' };
}

function isNullish(n: Expr): boolean {
  return (n.type === T.Literal && n.value === null) || (n.type === T.Identifier && n.name === 'undefined');
}

export function staticPropertyName(p: TSESTree.Property | TSESTree.MethodDefinition | TSESTree.PropertyDefinition): string | undefined {
  if (!p.computed) {
    if (p.key.type === T.Identifier) return p.key.name;
    if (p.key.type === T.Literal) return String(p.key.value);
    return undefined;
  }
  if (p.key.type === T.Literal) return String(p.key.value);
  if (p.key.type === T.TemplateLiteral && p.key.expressions.length === 0) return p.key.quasis[0]?.value.cooked ?? undefined;
  return undefined;
}

const BUILTIN_CONSTANTS: Record<string, number> = {
  'Number.POSITIVE_INFINITY': Infinity,
  'Number.NEGATIVE_INFINITY': -Infinity,
  'Number.MAX_SAFE_INTEGER': Number.MAX_SAFE_INTEGER,
  'Number.MAX_VALUE': Number.MAX_VALUE,
  'Number.MIN_SAFE_INTEGER': Number.MIN_SAFE_INTEGER,
};

const MATH_FUNCTIONS: Record<string, (...a: number[]) => number> = {
  'Math.min': Math.min,
  'Math.max': Math.max,
  'Math.pow': Math.pow,
  'Math.round': Math.round,
  'Math.floor': Math.floor,
  'Math.ceil': Math.ceil,
  'Math.abs': Math.abs,
  'Math.trunc': Math.trunc,
};
