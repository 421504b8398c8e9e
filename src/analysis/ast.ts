/**
 * Small syntax helpers shared by the whole analysis: wrappers that do not change a value,
 * variable lookup, const initialisers, property names, source ranges, one bounded tree walker.
 * Nothing here evaluates; see eval/ for values.
 */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';

type Node = TSESTree.Node;
export type Scope = TSESLint.Scope.Scope;
export type Variable = TSESLint.Scope.Variable;
/** A loop that may retry: `for`, `while`, `do…while`, and a `for…of` over a list of waits (hand-written/delay-lists.ts). */
export type Loop = TSESTree.ForStatement | TSESTree.WhileStatement | TSESTree.DoWhileStatement | TSESTree.ForOfStatement;

/** A loop's own test (none for `for…of`, nor for `for (;;)`). */
export function loopTest(loop: Loop): TSESTree.Expression | null | undefined {
  return loop.type === T.ForOfStatement ? undefined : loop.test;
}

const MAX_CHAIN = 24;

/** Strips TypeScript-only wrappers (`as`, `satisfies`, `!`, `<T>x`) and `?.` chains, which do not change a value. */
export function unwrap(node: Node): Node {
  let current = node;
  for (;;) {
    switch (current.type) {
      case T.TSAsExpression:
      case T.TSSatisfiesExpression:
      case T.TSNonNullExpression:
      case T.TSTypeAssertion:
      case T.TSInstantiationExpression:
      case T.ChainExpression:
        current = current.expression;
        break;
      default:
        return current;
    }
  }
}

/** The variable `name` refers to from `scope`, looking outwards. */
export function findVariable(scope: Scope | null, name: string): Variable | undefined {
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
export function constInitializer(variable: Variable | undefined): Node | undefined {
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
export function resolveExpression(node: Node, scopeOf: (n: Node) => Scope, depth = 0): Node {
  const inner = unwrap(node);
  if (inner.type !== T.Identifier || depth > MAX_CHAIN) return inner;
  const init = constInitializer(findVariable(scopeOf(inner), inner.name));
  return init ? resolveExpression(init, scopeOf, depth + 1) : inner;
}

/** The name of a property, method or class field when it is written statically (`a`, `'a'`, `['a']`, `` [`a`] ``). */
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

/** The key a destructuring property takes (`{ a: x }`, `{ 'a': x }`); undefined when computed. */
export function patternKey(p: TSESTree.Property): string | undefined {
  if (p.computed) return undefined;
  return p.key.type === T.Identifier ? p.key.name : p.key.type === T.Literal ? String(p.key.value) : undefined;
}

/** The static key of `a.b` / `a['b']`, or undefined when computed from something unknown. */
export function propertyKey<V>(node: TSESTree.MemberExpression, evaluateComputed: (n: Node) => V): string | undefined {
  if (!node.computed) return node.property.type === T.Identifier ? node.property.name : undefined;
  const v = evaluateComputed(node.property) as unknown;
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
}

/** `a.b` with a plain identifier property: its name. */
export function memberName(node: Node): string | undefined {
  return node.type === T.MemberExpression && !node.computed && node.property.type === T.Identifier ? node.property.name : undefined;
}

export type PropertyLookup =
  | { state: 'present'; property: TSESTree.Property; value: Node }
  | { state: 'absent' }
  | { state: 'unknown' };

/**
 * Finds the property that wins for `key` in an object literal, honouring override order
 * and spreads of other statically known objects.
 */
export function lookupProperty(object: TSESTree.ObjectExpression, key: string, scopeOf: (n: Node) => Scope, depth = 0): PropertyLookup {
  if (depth > MAX_CHAIN) return { state: 'unknown' };
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
      // `...(cond ? { cache } : {})`, `...(cond && { cache })`: a key either side may add is there
      // only sometimes (unknown); a key neither side has is not added by the spread.
      if (!spreadsNoKey(target, key, scopeOf, depth + 1)) return { state: 'unknown' };
      continue;
    }
    const name = staticPropertyName(p);
    if (name === undefined) return { state: 'unknown' };
    if (name === key) {
      if (p.kind !== 'init') return { state: 'unknown' };
      return { state: 'present', property: p, value: p.value as Node };
    }
  }
  return { state: 'absent' };
}

/** Whether a spread's conditional argument adds no `key`: each object literal it may spread lacks it. */
function spreadsNoKey(target: Node, key: string, scopeOf: (n: Node) => Scope, depth: number): boolean {
  const sides = target.type === T.ConditionalExpression ? [target.consequent, target.alternate] : target.type === T.LogicalExpression && target.operator === '&&' ? [target.right] : undefined;
  if (!sides) return false;
  return sides.every((side) => {
    const n = resolveExpression(side, scopeOf, depth);
    return isNullish(n) || (n.type === T.ObjectExpression && lookupProperty(n, key, scopeOf, depth).state === 'absent');
  });
}

/** Whether a member expression is written in place: assigned, incremented or decremented, or deleted. */
export function isWrittenMember(member: TSESTree.MemberExpression): boolean {
  const w = member.parent;
  return (w?.type === T.AssignmentExpression && w.left === member) || (w?.type === T.UpdateExpression && w.argument === member) || (w?.type === T.UnaryExpression && w.operator === 'delete' && w.argument === member);
}

export function isNullish(n: Node): boolean {
  return (n.type === T.Literal && n.value === null) || (n.type === T.Identifier && n.name === 'undefined');
}

/** True when `inner` lies inside `outer` in the source. */
export function contains(outer: Node, inner: Node): boolean {
  return inner.range[0] >= outer.range[0] && inner.range[1] <= outer.range[1];
}

export function isFunctionNode(node: Node | undefined | null): node is TSESTree.FunctionLike {
  return !!node && (node.type === T.ArrowFunctionExpression || node.type === T.FunctionExpression || node.type === T.FunctionDeclaration);
}

/** A name or a chain of property reads on a name or `this`, with no call in it (`signal`, `this.state.status`). */
export function isPlainReference(node: Node): boolean {
  const n = unwrap(node);
  if (n.type === T.Identifier || n.type === T.ThisExpression) return true;
  return n.type === T.MemberExpression && !n.computed && isPlainReference(n.object);
}

/** What a member chain starts from: `api` of `api.get`, the call `api.get(url)` of `api.get(url).json`. */
export function memberRoot(node: Node): Node {
  let n = unwrap(node);
  while (n.type === T.MemberExpression) n = unwrap(n.object);
  return n;
}

/** The nearest function around `node` (not `node` itself). */
export function enclosingFunction(node: Node): TSESTree.FunctionLike | undefined {
  for (let p = node.parent; p; p = p.parent) {
    if (isFunctionNode(p)) return p;
  }
  return undefined;
}

/** The nearest class around `node`. */
export function enclosingClass(node: Node): TSESTree.ClassDeclaration | TSESTree.ClassExpression | undefined {
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === T.ClassDeclaration || p.type === T.ClassExpression) return p;
  }
  return undefined;
}

/** `for`, `while`, `do…while`, `for…of`, `for…in`. */
export function isLoopNode(n: Node): boolean {
  return n.type === T.ForStatement || n.type === T.WhileStatement || n.type === T.DoWhileStatement || n.type === T.ForOfStatement || n.type === T.ForInStatement;
}

/** The labels written on a statement (`outer: for (...)`). */
export function labelsOf(statement: Node): string[] {
  const out: string[] = [];
  for (let p = statement.parent; p?.type === T.LabeledStatement; p = p.parent) out.push(p.label.name);
  return out;
}

/** Source text of a node shortened for messages, e.g. `pRetry(fn, { retries: 5 })` or `got.extend(...)`. */
export function labelOf(node: Node, sourceCode: Readonly<TSESLint.SourceCode>, max = 40): string {
  return shorten(sourceCode.getText(node), max);
}

export function shorten(text: string, max = 40): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** Keys that hold no runtime children (types, decorators) or are back links, when walking without visitor keys. */
const SKIP_KEYS = new Set(['parent', 'loc', 'range', 'typeAnnotation', 'returnType', 'typeParameters', 'typeArguments', 'decorators']);

export interface WalkOptions {
  /** Do not enter functions nested in the root (they are still visited). */
  readonly skipFunctions?: boolean;
  /** Neither visit nor enter a child when this says so. */
  readonly skip?: (n: Node) => boolean;
  /** Visit at most this many nodes. */
  readonly budget?: number;
  /**
   * The parser's visitor keys (every child, decorators and types included); without them the
   * walk lists each node's own keys and leaves out types and decorators.
   */
  readonly keys?: Readonly<Record<string, readonly string[] | undefined>>;
}

/** The default budget: far above any retry construct, low enough that a generated file cannot stall a keystroke. */
export const WALK_BUDGET = 200_000;

/** Visits a subtree in document order (pre-order, children pushed in reverse), within a budget of visited nodes. */
export function walk(root: Node, visit: (n: Node) => void, options: WalkOptions = {}): void {
  const { skipFunctions = false, skip, keys } = options;
  let budget = options.budget ?? WALK_BUDGET;
  const stack: Node[] = [root];
  const push = (c: unknown) => {
    if (c && typeof c === 'object' && typeof (c as Node).type === 'string' && !skip?.(c as Node)) stack.push(c as Node);
  };
  while (stack.length && budget-- > 0) {
    const n = stack.pop()!;
    visit(n);
    if (skipFunctions && n !== root && isFunctionNode(n)) continue;
    const childKeys = keys ? keys[n.type] : Object.keys(n);
    if (!childKeys) continue;
    for (let i = childKeys.length - 1; i >= 0; i--) {
      const key = childKeys[i]!;
      if (!keys && SKIP_KEYS.has(key)) continue;
      const child = (n as unknown as Record<string, unknown>)[key];
      if (Array.isArray(child)) {
        for (let j = child.length - 1; j >= 0; j--) push(child[j]);
      } else push(child);
    }
  }
}

/** Where an environment variable is read from: `process.env` (Node) or `import.meta.env` (Vite and the like). */
export type EnvironmentSource = 'process' | 'import.meta';

/**
 * `process.env.X`, `process.env['X']` or `import.meta.env.X`: where it is read from and the
 * variable's name; undefined for anything else, or when `process` names a binding of the file
 * (`shadowed` says whether it does).
 */
export function environmentRead(raw: Node, shadowed: (id: TSESTree.Identifier) => boolean): { readonly source: EnvironmentSource; readonly name: string } | undefined {
  const node = unwrap(raw);
  if (node.type !== T.MemberExpression) return undefined;
  const name = memberName(node) ?? (node.computed && node.property.type === T.Literal && typeof node.property.value === 'string' ? node.property.value : undefined);
  if (name === undefined) return undefined;
  const env = unwrap(node.object);
  if (memberName(env) !== 'env' || env.type !== T.MemberExpression) return undefined;
  const root = unwrap(env.object);
  if (root.type === T.Identifier && root.name === 'process' && !shadowed(root)) return { source: 'process', name };
  if (root.type === T.MetaProperty && root.meta.name === 'import' && root.property.name === 'meta') return { source: 'import.meta', name };
  return undefined;
}

/**
 * Whether code inside `fn` looks at a request's `method` (`req.method === 'GET'`,
 * `config.method`), read from the file's member expressions; `init.method = ...` sets the method
 * and does not look at it. With `on`, only reads on objects it accepts count.
 */
export function readsMethod(members: Iterable<TSESTree.MemberExpression>, fn: Node, on?: (object: Node) => boolean): boolean {
  for (const m of members) {
    if (!contains(fn, m) || m.computed || memberName(m) !== 'method') continue;
    if (m.parent?.type === T.AssignmentExpression && m.parent.left === m) continue;
    if (!on || on(unwrap(m.object))) return true;
  }
  return false;
}
