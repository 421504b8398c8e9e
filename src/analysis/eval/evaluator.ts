/**
 * The one evaluator. `evaluate`/`number` read an expression from the code alone (STATIC_ENV,
 * cached per node); `evaluateIn` reads it in an environment that binds more (a hand-written
 * retry's counters, a delay function's retry number). Every recursion is bounded by a depth and
 * every top-level evaluation by a budget of steps; what runs out is UNKNOWN.
 */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, findVariable, isWrittenMember, lookupProperty, memberName, patternKey, propertyKey, resolveExpression, unwrap, walk as walkNodes, type Scope, type Variable } from '../ast.js';
import { BUILTIN_CONSTANTS, GLOBAL_CONSTANTS } from './builtins.js';
import { enumMember, evaluateCall, mergeObjects } from './calls.js';
import { absentBranch } from './presence.js';
import { binaryValue, testHookGlobal, testRunnerFlag, unaryValue } from './operators.js';
import { straightLineValue } from './straight-line.js';
import { copyWriteSource, holdsFreshObject } from './copy-writes.js';
import { fieldValue, knownThisField, staticFieldValue, typedFieldValue } from './fields.js';
import { closedParameterDefault } from './functions.js';
import { askedList, noteStatusRead } from './status-classes.js';
import { FREE, INLINING_ENV, MAX_DEPTH, NO_RESPONSE, STATIC_ENV, statusOf, type Env, type ModuleValues } from './environment.js';
import {
  NO_HEADERS, RESPONSE, UNKNOWN, isInterval, isDataObject, isPrimitive, isStaticObject, isSymbolic, join, range, toInterval, toStatic, truth,
  type Maybe, type StaticValue, type Value,
} from './values.js';

type Node = TSESTree.Node;

/** Steps of one top-level evaluation: generous for any retry construct, a stop for pathological code. */
const STEP_BUDGET = 20_000;

/** Expressions whose static value, and every member of it, is never a function (no call is inlined statically). */
const NEVER_FUNCTION: ReadonlySet<string> = new Set([
  T.AwaitExpression, T.CallExpression, T.NewExpression, T.Literal, T.TemplateLiteral, T.BinaryExpression, T.UnaryExpression, T.UpdateExpression,
]);

/** Member names that carry an HTTP status on an error or a response. */
export const STATUS_KEYS: ReadonlySet<string> = new Set(['status', 'statusCode', 'httpStatusCode', 'httpStatus']);
/** Members that lead from an error to the response (or its metadata) that carries the status. */
const PASS_THROUGH_KEYS = new Set(['response', '$metadata', 'cause', 'res']);

/** Evaluator.neverAFunction; `depth` bounds the names followed through initialisers. */
function neverAFunction(ev: Evaluator, node: TSESTree.Identifier | TSESTree.MemberExpression, depth = 0): boolean {
  let root: Node = node;
  while (root.type === T.MemberExpression) root = unwrap(root.object);
  if (root.type === T.ThisExpression) return !knownThisField(ev.sourceCode, node);
  if (root.type !== T.Identifier) return NEVER_FUNCTION.has(root.type);
  // A name no declaration of the file could bind to a function settles it without a scope lookup.
  if (!mayNameFunction(ev.sourceCode, root.name)) return true;
  const variable = ev.variableOf(root);
  if (!variable || variable.defs.length !== 1) return true;
  const def = variable.defs[0]!;
  if (def.type === 'FunctionName') return false;
  if (def.type !== 'Variable') return true;
  const declarator = def.node as TSESTree.VariableDeclarator;
  if (!declarator.init) return true;
  return neverAFunctionInit(ev, declarator.init, root === node && declarator.id === def.name, depth);
}

/**
 * Whether the value an initialiser gives (`whole`: the variable itself, not a member of it or a
 * destructured part) is never a function: a call, `new`, `await` or operator (and any member of
 * them); for the whole variable also an object or array literal (`const x = { ... }`: x is no
 * function, `x.f` may be one) and a name or member neverAFunction settles (`const x = opts.y`,
 * the value being that of the initialiser). A conditional or logical expression gives one of its
 * branches (or operands), so it is never a function when none of them is one (`const x = a ? f() : {}`,
 * `const x = opts.x ?? []`): settled here instead of evaluating both branches.
 */
function neverAFunctionInit(ev: Evaluator, raw: Node, whole: boolean, depth: number): boolean {
  const init = unwrap(raw);
  if (NEVER_FUNCTION.has(init.type)) return true;
  if (depth >= 4) return false;
  if (init.type === T.ConditionalExpression) return neverAFunctionInit(ev, init.consequent, whole, depth + 1) && neverAFunctionInit(ev, init.alternate, whole, depth + 1);
  if (init.type === T.LogicalExpression) return neverAFunctionInit(ev, init.left, whole, depth + 1) && neverAFunctionInit(ev, init.right, whole, depth + 1);
  if (!whole) return false;
  if (init.type === T.ObjectExpression || init.type === T.ArrayExpression) return true;
  return (init.type === T.Identifier || init.type === T.MemberExpression) && neverAFunction(ev, init, depth + 1);
}

const functionNames = new WeakMap<object, Set<string> | null>();

/**
 * Whether some variable of the file of that name is declared once, as a function or a variable
 * with an initialiser neverAFunction cannot rule out: a superset, by name, of the variables it
 * evaluates. Built once per file from the scope analysis's variables (every name when there is none).
 */
function mayNameFunction(sourceCode: Readonly<TSESLint.SourceCode>, name: string): boolean {
  let names = functionNames.get(sourceCode);
  if (names === undefined) {
    const scopes = (sourceCode.scopeManager as { scopes?: readonly Scope[] } | null | undefined)?.scopes;
    names = null;
    if (Array.isArray(scopes)) {
      names = new Set();
      for (const scope of scopes) {
        for (const v of scope.variables) {
          if (v.defs.length !== 1) continue;
          const def = v.defs[0]!;
          const init = def.type === 'Variable' ? (def.node as TSESTree.VariableDeclarator).init : null;
          if (def.type === 'FunctionName' || (init && !NEVER_FUNCTION.has(unwrap(init).type))) names.add(v.name);
        }
      }
    }
    functionNames.set(sourceCode, names);
  }
  return names === null || names.has(name);
}

/** node's `response.message.statusCode`: the response's status under `message` (not an error's text). */
function statusUnder(node: TSESTree.MemberExpression): boolean {
  const p = node.parent;
  return p?.type === T.MemberExpression && p.object === node && STATUS_KEYS.has(memberName(p) ?? '');
}

/** A template literal whose every expression is a known primitive. */
function templateValue(ev: Evaluator, node: TSESTree.TemplateLiteral, env: Env, depth: number): Value {
  let out = node.quasis[0]?.value.cooked ?? '';
  for (let i = 0; i < node.expressions.length; i++) {
    const v = ev.eval(node.expressions[i], env, depth);
    if (!isPrimitive(v)) return UNKNOWN;
    out += String(v) + (node.quasis[i + 1]?.value.cooked ?? '');
  }
  return out;
}

/**
 * The static value of a written setting (an option, an argument a helper is called with): as
 * `evaluate`, and where that gives up on a call of a function of the file
 * (`getGlobal('TEST_MIN', 10)`, `retriesFor('upload')`), that function followed at the call with
 * its arguments, as a hand-written loop reads the same call. Not cached per node.
 */
export function settingValue(ev: Evaluator, node: Node | null | undefined): Maybe<StaticValue> {
  const value = ev.evaluate(node);
  return value === UNKNOWN && node && unwrap(node).type === T.CallExpression ? toStatic(ev.evaluateIn(node, INLINING_ENV)) : value;
}

export class Evaluator {
  private readonly staticCache = new WeakMap<Node, Value>();
  private readonly variables = new WeakMap<Node, Variable | null>();
  private steps = 0;
  private active = 0;

  /**
   * What another file of the project exports under an imported name or an inline `require('./x')`
   * (index.ts, where files can be opened): plain data, which crosses files; UNKNOWN otherwise.
   */
  moduleValue: ((node: TSESTree.Identifier | TSESTree.CallExpression) => Value) | undefined;

  /**
   * A field of a class another file of the project exports, as that class's own code sets it
   * (index.ts, where files can be opened; fields.ts typedFieldValue): plain values only.
   */
  classField: ((typeName: TSESTree.Identifier, key: string) => Value) | undefined;

  /** Values of imports written outside the code (node-config's files; index.ts sets it before the first evaluation). */
  modules: ModuleValues | undefined;

  constructor(readonly sourceCode: Readonly<TSESLint.SourceCode>) {}

  scopeOf(node: Node): Scope {
    return this.sourceCode.getScope(node);
  }

  /** The variable an identifier refers to (cached; undefined when the scope analysis has none). */
  variableOf(id: TSESTree.Identifier): Variable | undefined {
    const hit = this.variables.get(id);
    if (hit !== undefined) return hit ?? undefined;
    let v: Variable | undefined;
    try {
      v = findVariable(this.scopeOf(id), id.name);
    } catch {
      v = undefined;
    }
    this.variables.set(id, v ?? null);
    return v;
  }

  /** Whether a name is declared in the file (so `Math`, `Number` are not the built-ins). */
  shadowed(id: TSESTree.Identifier): boolean {
    return !!this.variableOf(id)?.defs.length;
  }

  /**
   * Whether the static value of a name, or of a member of it (`opts.dir`, `this.client.send`),
   * is certainly not a function, decided from declarations alone, without evaluating. It mirrors
   * the static environment: nothing binds a parameter, an import, a caught error, a class, an
   * enum, a global or a name declared more than once, nor `this`; a call, `new`, `await` or an
   * operator never gives a function there (no helper is inlined); an object or array literal is
   * not one, though a member of it may be. False means "evaluate to know". The evaluator tests
   * check it against `evaluate` on every name of their files.
   */
  neverAFunction(node: TSESTree.Identifier | TSESTree.MemberExpression): boolean {
    return neverAFunction(this, node);
  }

  /** The static value of an expression, from the code alone. */
  evaluate(node: Node | null | undefined): Maybe<StaticValue> {
    return toStatic(this.top(() => this.evaluateStaticAt(node, 0)));
  }

  number(node: Node | null | undefined): Maybe<number> {
    const v = this.evaluate(node);
    return typeof v === 'number' ? v : UNKNOWN;
  }

  /** Follows `const a = b` chains to the expression that produces the value. */
  resolve(node: Node): Node {
    return resolveExpression(node, (n) => this.scopeOf(n));
  }

  /** The value of an expression in an environment. */
  evaluateIn(node: Node | null | undefined, env: Env): Value {
    return this.top(() => this.eval(node, env, 0));
  }

  /**
   * The value of an expression at a depth, asked from another file's evaluation (a function carried
   * in from this file, StaticFunction.home): this evaluator's budget starts afresh only when it is
   * not already evaluating, and the depth goes on from the caller's, so a chain of calls between
   * files stays bounded.
   */
  evaluateNested(node: Node | null | undefined, env: Env, depth: number): Value {
    return this.top(() => this.eval(node, env, depth));
  }

  /**
   * The value of an expression in an environment, with a budget of its own: for values an
   * environment computes while answering a lookup (a counter at attempt k), which are cached.
   */
  evaluateFresh(node: Node | null | undefined, env: Env): Value {
    const saved = this.steps;
    this.steps = 0;
    this.active++;
    try {
      return this.eval(node, env, 0);
    } finally {
      this.active--;
      this.steps = saved;
    }
  }

  /** `a.b.c`, `this.x`: the dotted name of an expression, when it is one. */
  qualifiedName(node: Node): string | undefined {
    const n = unwrap(node);
    if (n.type === T.Identifier) return n.name;
    if (n.type === T.ThisExpression) return 'this';
    if (n.type === T.MemberExpression) {
      const base = this.qualifiedName(n.object);
      const key = propertyKey(n, () => UNKNOWN);
      return base !== undefined && key !== undefined ? `${base}.${key}` : undefined;
    }
    return undefined;
  }

  private top<R>(f: () => R): R {
    if (this.active++ === 0) this.steps = 0;
    try {
      return f();
    } finally {
      this.active--;
    }
  }

  /** Static evaluation at a depth, cached per node (a cycle such as `const a = a + 1` reads as UNKNOWN). */
  evaluateStaticAt(node: Node | null | undefined, depth: number): Value {
    if (!node) return undefined;
    const hit = this.staticCache.get(node);
    if (hit !== undefined || this.staticCache.has(node)) return hit;
    this.staticCache.set(node, UNKNOWN);
    const value = this.compute(node, STATIC_ENV, depth);
    this.staticCache.set(node, value);
    return value;
  }

  /** Evaluation in any environment; the static one goes through the cache. */
  eval(node: Node | null | undefined, env: Env, depth: number): Value {
    if (!node) return undefined;
    if (env === STATIC_ENV) return this.evaluateStaticAt(node, depth);
    return this.compute(node, env, depth);
  }

  private compute(raw: Node, env: Env, depth: number): Value {
    if (depth > MAX_DEPTH || ++this.steps > STEP_BUDGET) return UNKNOWN;
    const masked = env.mask?.get(raw);
    if (masked !== undefined) return masked;
    const node = unwrap(raw);
    const d = depth + 1;
    switch (node.type) {
      case T.Literal:
        if ('regex' in node && node.regex) return UNKNOWN;
        return node.value as Value;
      case T.TemplateLiteral:
        return templateValue(this, node, env, d);
      case T.Identifier:
        return this.identifier(node, env, d);
      case T.UnaryExpression:
        return unaryValue(this, node, env, d);
      case T.BinaryExpression:
        return binaryValue(this, node, env, d);
      case T.LogicalExpression:
        return this.logical(node, env, d);
      case T.ConditionalExpression: {
        const t = truth(this.eval(node.test, env, d));
        if (t !== UNKNOWN) return this.eval(t ? node.consequent : node.alternate, env, d);
        const absent = env.defaults ? absentBranch(node, (x) => !isKnownValue(this.eval(x, env, d))) : undefined;
        if (absent) return this.eval(absent, env, d);
        return join(this.eval(node.consequent, env, d), this.eval(node.alternate, env, d));
      }
      case T.MemberExpression:
        return this.member(node, env, d);
      case T.CallExpression:
        return evaluateCall(this, node, env, d);
      case T.NewExpression: {
        const callee = unwrap(node.callee);
        if (callee.type === T.Identifier && callee.name === 'Set' && !this.shadowed(callee) && node.arguments[0]?.type !== T.SpreadElement) {
          const items = node.arguments[0] ? this.eval(node.arguments[0], env, d) : [];
          return Array.isArray(items) ? { set: items as Value[] } : UNKNOWN;
        }
        return UNKNOWN;
      }
      case T.ObjectExpression:
        return { kind: 'object', node, env: env === STATIC_ENV ? undefined : env };
      case T.ArrowFunctionExpression:
      case T.FunctionExpression:
        return { kind: 'function', node };
      case T.ArrayExpression:
        return this.array(node, env, d);
      case T.UpdateExpression: {
        const v = toInterval(this.eval(node.argument, env, d));
        if (!v) return UNKNOWN;
        if (!node.prefix) return range(v.lo, v.hi);
        const step = node.operator === '++' ? 1 : -1;
        return range(v.lo + step, v.hi + step);
      }
      case T.SequenceExpression:
        return this.eval(node.expressions[node.expressions.length - 1], env, d);
      default: // `await x` where helpers are followed: what an inlined async helper returns
        return node.type === T.AwaitExpression && env.inlines ? this.eval(node.argument, env, d) : UNKNOWN;
    }
  }

  private array(node: TSESTree.ArrayExpression, env: Env, depth: number): Value {
    const out: Value[] = [];
    for (const el of node.elements) {
      if (!el) {
        out.push(undefined);
      } else if (el.type === T.SpreadElement) {
        const spread = this.eval(el.argument, env, depth);
        if (!Array.isArray(spread)) return UNKNOWN;
        out.push(...(spread as Value[]));
      } else {
        out.push(this.eval(el, env, depth));
      }
    }
    return out;
  }

  private identifier(id: TSESTree.Identifier, env: Env, depth: number): Value {
    const variable = this.variableOf(id);
    if (!variable || variable.defs.length === 0) return GLOBAL_CONSTANTS.has(id.name) ? GLOBAL_CONSTANTS.get(id.name) : UNKNOWN;
    for (let frame = env.frame; frame; frame = frame.outer) {
      const bound = frame.bindings.get(variable);
      if (bound) {
        if ('value' in bound) return bound.value;
        return bound.expr ? this.eval(bound.expr, { ...bound.env, flags: env.flags }, depth) : undefined;
      }
    }
    if (env.lookup) {
      const v = env.lookup(variable, id, env, depth);
      if (v !== FREE) return v;
    }
    const given = this.modules ? this.modules.value(variable) : FREE;
    return given !== FREE ? given : this.binding(variable, id, env, depth);
  }

  /** A variable nothing in the environment binds: a const, a function, a destructured member, a default. */
  private binding(variable: Variable, id: TSESTree.Identifier, env: Env, depth: number): Value {
    const def = variable.defs[0];
    if (!def || variable.defs.length !== 1) return this.orProbe(env);
    if (def.type === 'FunctionName') return { kind: 'function', node: def.node as TSESTree.FunctionDeclaration };
    if (def.type === 'TSEnumName') return env.names ? { symbolic: id.name } : this.orProbe(env);
    if (def.type === 'ImportBinding' && this.moduleValue) {
      const imported = this.moduleValue(id);
      if (imported !== UNKNOWN) return imported;
    }
    const init = constInitializer(variable);
    if (init) {
      if (env === STATIC_ENV) return this.evaluateStaticAt(init, depth);
      // What the code alone decides holds in every environment; a name (`opts.retries`) may be bound here.
      const known = toStatic(this.evaluateStaticAt(init, 0));
      // A literal with a spread (`{ ...DEFAULTS, ...opts }`) is read here, where `opts` may be bound or defaulted.
      if (known !== UNKNOWN && !isSymbolic(known) && !(isStaticObject(known) && known.node?.properties.some((p) => p.type === T.SpreadElement))) return known;
      // An unknown initialiser (a call we cannot see) stays unknown even when probing.
      return this.eval(init, env, depth);
    }
    const line = env === STATIC_ENV ? FREE : straightLineValue(this, variable, id, env, depth);
    if (line !== FREE) return line;
    if (variable.references.some((r) => r.isWrite() && !r.init)) return writtenPerAttempt(variable, env) ? UNKNOWN : this.orProbe(env);
    const name = def.name as Node;
    const parent = name.parent;
    if (parent?.type === T.AssignmentPattern && parent.left === name) {
      const source = this.patternSource(parent, env, depth);
      // `{ retries = 3 } = opts`: the default applies when the member is absent, or (by policy) when not known, or no caller can pass it.
      if (source.known) return source.value === undefined ? this.eval(parent.right, env, depth) : source.value;
      return env.defaults || closedParameterDefault(this.sourceCode, parent) ? this.eval(parent.right, env, depth) : UNKNOWN;
    }
    const source = this.patternSource(name, env, depth);
    return source.known ? source.value : this.orProbe(env);
  }

  /** The member a destructuring pattern takes from its initialiser: `{ status } = res` -> `res.status`. */
  private patternSource(target: Node, env: Env, depth: number): { known: boolean; value: Value } {
    const prop = target.parent;
    const none = { known: false, value: UNKNOWN as Value };
    if (prop?.type !== T.Property || prop.value !== target) return none;
    const key = patternKey(prop);
    const pattern = prop.parent;
    const declarator = pattern?.parent;
    if (key === undefined || pattern?.type !== T.ObjectPattern || declarator?.type !== T.VariableDeclarator || declarator.id !== pattern || !declarator.init) return none;
    const object = this.eval(declarator.init, env, depth);
    if (object === UNKNOWN) return none;
    return { known: true, value: this.memberOf(object, key, env, depth) };
  }

  private orProbe(env: Env): Value {
    return env.probe !== undefined ? env.probe : UNKNOWN;
  }

  /**
   * `a ?? b`, `a || b`, `a && b`. With `a` not known the result is unknown, except under the
   * defaults policy (see environment.ts), where the code's own default stands for it.
   */
  private logical(node: TSESTree.LogicalExpression, env: Env, depth: number): Value {
    const left = this.eval(node.left, env, depth);
    if (node.operator === '??') {
      if (left === null || left === undefined) return this.eval(node.right, env, depth);
      if (left !== UNKNOWN && !isSymbolic(left)) return left;
      return env.defaults && !entryField(this, node.left) ? this.eval(node.right, env, depth) : UNKNOWN;
    }
    const t = truth(left);
    if (node.operator === '&&') {
      if (t === false) return left;
      if (t === true) return this.eval(node.right, env, depth);
      if (!env.defaults) return UNKNOWN;
      const r = this.eval(node.right, env, depth);
      return truth(r) === false ? r : UNKNOWN;
    }
    if (t === true) return left;
    if (t === false) return this.eval(node.right, env, depth);
    if (!env.defaults) return UNKNOWN;
    const r = this.eval(node.right, env, depth);
    if (left === UNKNOWN && typeof r === 'number' && unwrap(node.left).type !== T.CallExpression) return r; // `opts.delay || 1000`
    return truth(r) === true ? r : UNKNOWN;
  }

  private member(node: TSESTree.MemberExpression, env: Env, depth: number): Value {
    const objectNode = unwrap(node.object);
    const decided = decidedField(this, node, objectNode, env);
    if (decided !== FREE) return decided;
    if (testRunnerFlag(this, node) || testHookGlobal(this, node, env, depth)) return undefined;
    if (!node.computed && node.property.type === T.Identifier && objectNode.type === T.Identifier && !this.shadowed(objectNode)) {
      const builtin = BUILTIN_CONSTANTS[`${objectNode.name}.${node.property.name}`];
      if (builtin !== undefined) return builtin;
    }
    const field = objectNode.type === T.ThisExpression ? fieldValue(this, node, env, depth) : objectNode.type === T.Identifier ? staticFieldValue(this, node, depth) : UNKNOWN;
    if (field !== UNKNOWN) return field;
    const typed = objectNode.type === T.MemberExpression ? typedFieldValue(this, node, env, depth) : UNKNOWN;
    if (typed !== UNKNOWN) return typed;
    // `options.timeout` of a local copy, after the one statement that sets it.
    if (objectNode.type === T.Identifier && !node.computed) {
      const variable = this.variableOf(objectNode);
      const set = variable && holdsFreshObject(variable) ? copyWriteSource(variable, node) : undefined;
      if (set) return this.eval(set, env, depth + 1);
    }
    const object = this.eval(node.object, env, depth);
    let key: string | undefined;
    if (!node.computed) key = node.property.type === T.Identifier ? node.property.name : undefined;
    else {
      const k = this.eval(node.property, env, depth);
      if (typeof k === 'number' || typeof k === 'string') key = String(k);
      else if (isInterval(k) && Array.isArray(object)) {
        // A random index into a delay table: the hull of the entries it can pick.
        const picks = (object as Value[]).slice(Math.max(0, Math.floor(k.lo)), Math.min(object.length, Math.floor(k.hi) + 1)).map(toInterval);
        if (picks.length === 0 || picks.some((p) => !p)) return UNKNOWN;
        return range(Math.min(...picks.map((p) => p!.lo)), Math.max(...picks.map((p) => p!.hi)));
      }
    }
    if (key === undefined) return UNKNOWN;
    if (object === UNKNOWN && env.probe !== undefined && objectNode.type === T.Identifier && fieldWrittenPerAttempt(this.variableOf(objectNode), key, env)) return UNKNOWN;
    if (object === UNKNOWN && env.names) {
      const name = this.qualifiedName(node);
      return name ? { symbolic: name } : UNKNOWN;
    }
    if (isSymbolic(object)) return env.names ? (enumMember(this, object, key, objectNode) ?? { symbolic: `${object.symbolic}.${key}` }) : UNKNOWN;
    if (object === RESPONSE && key === 'message' && statusUnder(node)) return RESPONSE;
    if (isStaticObject(object) && objectNode.type === T.Identifier && writtenField(this.variableOf(objectNode), node)) return UNKNOWN;
    // A read of the status asked about: noted with the numbers it is compared with (status-classes.ts).
    if (object === RESPONSE && STATUS_KEYS.has(key) && env.status !== undefined && env.status !== NO_RESPONSE) noteStatusRead(node, (id) => askedList(this.variableOf(id)));
    return this.memberOf(object, key, env, depth);
  }

  /** `object[key]` for a value already read. */
  memberOf(object: Value, key: string, env: Env, depth: number): Value {
    if (object === UNKNOWN) return this.orProbe(env); // `opts.baseDelay` while probing
    if (isDataObject(object)) return object.properties.has(key) ? (object.properties.get(key) as Value) : object.open ? UNKNOWN : undefined;
    if (isStaticObject(object)) {
      if (!object.node) return UNKNOWN;
      const found = lookupProperty(object.node, key, (n) => this.scopeOf(n));
      if (found.state === 'absent') return undefined;
      // A spread the code alone cannot resolve (`...opts`) may be bound, or a default, where the literal is read.
      if (found.state === 'unknown') {
        const merged = object.env ? mergeObjects(this, [object], { ...object.env, flags: env.flags }, depth + 1) : UNKNOWN;
        return merged === UNKNOWN ? UNKNOWN : this.memberOf(merged, key, env, depth + 1);
      }
      if (!object.env) return this.evaluateStaticAt(found.value, depth + 1);
      return this.eval(found.value, { ...object.env, flags: env.flags }, depth + 1);
    }
    if (object === RESPONSE) {
      // A failure without a response (a network error): no status; whatever else it carries is not known.
      if (env.status === NO_RESPONSE) return STATUS_KEYS.has(key) ? undefined : UNKNOWN;
      if (STATUS_KEYS.has(key) || documentedField(env, key)) return STATUS_KEYS.has(key) ? (env.status !== undefined ? statusOf(env)! : UNKNOWN) : env.errorFields![key];
      if (key === 'ok') return env.status !== undefined ? env.status >= 200 && env.status <= 299 : UNKNOWN;
      return PASS_THROUGH_KEYS.has(key) ? RESPONSE : key === 'headers' && env.status !== undefined ? NO_HEADERS : UNKNOWN;
    }
    if (Array.isArray(object)) {
      if (key === 'length') return object.length;
      const i = Number(key);
      return Number.isInteger(i) && i >= 0 ? (i < object.length ? (object[i] as Value) : undefined) : UNKNOWN;
    }
    if (typeof object === 'string' && key === 'length') return object.length;
    return UNKNOWN;
  }
}

/** A field the error carries in this question (`Env.errorFields`), asked with a status. */
function documentedField(env: Env, key: string): boolean {
  return env.status !== undefined && !!env.errorFields && Object.hasOwn(env.errorFields, key);
}

/**
 * Whether a variable is written (`x = f(attempt)`, `x++`) with a value that changes from one attempt
 * to the next: a probe stands for a scale that is the same on every attempt, not for such a variable.
 */
function writtenPerAttempt(variable: Variable, env: Env): boolean {
  if (env.probe === undefined) return false;
  return variable.references.some((r) => {
    const id = r.identifier as Node;
    const p = id.parent;
    if (!r.isWrite() || r.init) return false;
    return p?.type === T.UpdateExpression || (p?.type === T.AssignmentExpression && p.left === id && !!env.varies?.(p.right, env));
  });
}

/**
 * `s.n` where the code writes `s.n` somewhere (`s.n++`, `s.n = x`): the initialiser's value does
 * not hold everywhere; only an environment that follows the writes (decidedField) knows it.
 */
function writtenField(variable: Variable | undefined, node: TSESTree.MemberExpression): boolean {
  if (!variable || node.computed || node.property.type !== T.Identifier) return false;
  const key = node.property.name;
  return variable.references.some((r) => {
    const member = (r.identifier as Node).parent;
    if (member?.type !== T.MemberExpression || member.object !== r.identifier || member.computed || member.property.type !== T.Identifier || member.property.name !== key) return false;
    return isWrittenMember(member);
  });
}

/** Neither unknown nor a name standing for a value not known (`opts.retries` kept symbolic). */
function isKnownValue(v: Value): boolean {
  return v !== UNKNOWN && !isSymbolic(v);
}


/** A field the environment decides (`state.backoff` moved once per attempt); FREE otherwise. */
function decidedField(ev: Evaluator, node: TSESTree.MemberExpression, objectNode: Node, env: Env): Value | typeof FREE {
  if (!env.lookupField || node.computed || node.property.type !== T.Identifier || objectNode.type !== T.Identifier) return FREE;
  const variable = ev.variableOf(objectNode);
  return variable ? env.lookupField(variable, node.property.name, node, env) : FREE;
}

/**
 * Whether a field of a variable is moved from one attempt to the next (`state.backoff *= 2`,
 * `state.backoff = Math.min(max, state.backoff * 2)`, `opts.tries++`): a probe stands for a scale
 * that is the same on every attempt, not for such a field.
 */
function fieldWrittenPerAttempt(variable: Variable | undefined, key: string, env: Env): boolean {
  if (!variable) return false;
  return variable.references.some((r) => {
    const member = (r.identifier as Node).parent;
    if (member?.type !== T.MemberExpression || member.object !== r.identifier || member.computed || member.property.type !== T.Identifier || member.property.name !== key) return false;
    const w = member.parent;
    if (w?.type === T.UpdateExpression && w.argument === member) return true;
    if (w?.type !== T.AssignmentExpression || w.left !== member) return false;
    if (w.operator !== '=') return true;
    let reads = false;
    walkNodes(w.right, (n) => {
      if (n.type === T.MemberExpression && !n.computed && n.property.type === T.Identifier && n.property.name === key && unwrap(n.object).type === T.Identifier && (unwrap(n.object) as TSESTree.Identifier).name === variable.name) reads = true;
    });
    return reads || !!env.varies?.(w.right, env);
  });
}

export function createEvaluator(sourceCode: Readonly<TSESLint.SourceCode>): Evaluator {
  return new Evaluator(sourceCode);
}

/**
 * `cache.get(key)?.retries`, or a field of `const entry = cache.get(key)`: a field of an entry
 * looked up at run time. A `??` default on it stands for an entry not there yet, not for the
 * code's own setting, so the defaults policy leaves it unknown.
 */
function entryField(ev: Evaluator, raw: Node): boolean {
  let n = unwrap(raw);
  if (n.type !== T.MemberExpression) return false;
  while (n.type === T.MemberExpression) n = unwrap(n.object);
  if (n.type === T.Identifier) n = unwrap(ev.resolve(n));
  return n.type === T.CallExpression && n.arguments.length === 1 && memberName(unwrap(n.callee)) === 'get';
}
