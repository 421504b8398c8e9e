/**
 * Calls and names the evaluator knows beyond operators: built-in functions, local helpers
 * evaluated at their call, enum members.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { staticPropertyName, unwrap, type Variable } from '../ast.js';
import { MATH, NUMBER_PARSERS, NUMBER_PREDICATES, RANDOM_NAME, numberPredicate, parseNumber } from './builtins.js';
import { FREE, MAX_DEPTH, STATIC_ENV, sawCap, sawRandom, type Env } from './environment.js';
import type { Evaluator } from './evaluator.js';
import { thisClass } from './fields.js';
import { evalReturn, frameFor, localFunction, parameterVariable, returnOf } from './functions.js';
import { NO_HEADERS, RESPONSE, UNKNOWN, continuousRange, isDataObject, isInterval, isSetValue, isStaticFunction, isStaticObject, range, toInterval, type DataValue, type StaticFunction, type SymbolicValue, type Value } from './values.js';

type Node = TSESTree.Node;

/** Inlined helpers stop this far below MAX_DEPTH, so their bodies still have room. */
const INLINE_HEADROOM = 8;

/** A call: `Math.*`, `Number()`/`parseInt()`, `includes`/`has`, `crypto.randomInt`, a local helper (inlined), a random-named call. */
export function evaluateCall(ev: Evaluator, node: TSESTree.CallExpression, env: Env, depth: number): Value {
  const callee = unwrap(node.callee);
  const args = node.arguments as Node[];
  if (args.some((a) => a.type === T.SpreadElement)) return UNKNOWN;
  if (callee.type === T.MemberExpression && !callee.computed && callee.property.type === T.Identifier) {
    const name = callee.property.name;
    const object = unwrap(callee.object);
    if (object.type === T.Identifier && object.name === 'Math' && !ev.shadowed(object)) return math(ev, name, args, env, depth);
    if (object.type === T.Identifier && object.name === 'Number' && NUMBER_PREDICATES.has(name) && !ev.shadowed(object)) return numberPredicate(name, ev.eval(args[0], env, depth));
    if (name === 'assign' && object.type === T.Identifier && object.name === 'Object' && !ev.shadowed(object) && unwrap(args[0] ?? callee).type === T.ObjectExpression) {
      return mergeObjects(ev, args.map((a) => ev.eval(a, env, depth)), env, depth);
    }
    if (name === 'includes' || name === 'has') {
      const collection = ev.eval(callee.object, env, depth);
      const items = Array.isArray(collection) ? (collection as Value[]) : isSetValue(collection) ? collection.set : undefined;
      if (!items) return UNKNOWN;
      const x = ev.eval(args[0], env, depth);
      if (x === UNKNOWN || isInterval(x)) return UNKNOWN;
      return items.some((i) => !isInterval(i) && i === x);
    }
    if (name === 'randomInt' && env.importOf?.(callee.object)?.module === 'crypto') return randomInt(ev, args, env, depth);
    const given = ev.modules ? ev.modules.call(callee, (i) => ev.eval(args[i], env, depth)) : FREE;
    if (given !== FREE) return given;
    // `response.headers.get(name)` of a response asked about by its status: no such header.
    if (name === 'get' && args.length === 1 && ev.eval(callee.object, env, depth) === NO_HEADERS) return null;
    // `res.getStatusCode()`: an SDK response's status (or headers) read through a getter.
    const getter = args.length === 0 ? RESPONSE_GETTERS.get(name) : undefined;
    if (getter && ev.eval(callee.object, env, depth) === RESPONSE) return ev.memberOf(RESPONSE, getter, env, depth);
    // `this.shouldRetry(res)`, `Client.shouldRetry(res)`: a method of a class of the file, followed like a local helper.
    const method = !env.inlines ? undefined : object.type === T.ThisExpression ? instanceMethod(object, name) : object.type === T.Identifier ? staticMethod(ev, object, name) : undefined;
    if (method) return inline(ev, method, args, env, depth);
    if (env.randomness && RANDOM_NAME.test(name)) sawRandom(env);
    // `props.retryCheck(e)` with `props` bound to what a call passes: a function of this file passed in.
    return env.inlines && env.lookup ? passedFunction(ev, callee, args, env, depth) : UNKNOWN;
  }
  if (callee.type !== T.Identifier) return UNKNOWN;
  // `Object(error)`: the same error object (the form suggestions write so that it type-checks).
  if (callee.name === 'Object' && args.length === 1 && !ev.shadowed(callee)) {
    const inner = ev.eval(args[0], env, depth);
    return inner === RESPONSE ? RESPONSE : UNKNOWN;
  }
  const variable = ev.variableOf(callee);
  // `require('./defaults')`: what that file of the project exports.
  if (callee.name === 'require' && !variable?.defs.length && ev.moduleValue) return ev.moduleValue(node);
  if (NUMBER_PARSERS.has(callee.name) && !variable?.defs.length) return parseNumber(callee.name, ev.eval(args[0], env, depth));
  const imported = env.importOf?.(callee);
  if (imported?.module === 'crypto' && imported.path === 'randomInt') return randomInt(ev, args, env, depth);
  const fn = env.inlines && variable && !imported ? localFunction(variable) : undefined;
  if (fn) return inline(ev, fn, args, env, depth);
  // `const backoff = options.retryBackoff ?? this[kRetryBackoff]`: a function value read from a name.
  const held = env.inlines && variable && !imported && variable.defs.length === 1 && variable.defs[0]!.type === 'Variable' ? ev.eval(callee, env, depth + 1) : undefined;
  if (isStaticFunction(held)) return callFunctionValue(ev, held, args, env, depth);
  if (env.randomness && RANDOM_NAME.test(callee.name)) sawRandom(env);
  // `shouldRetry(e)` with the parameter bound to a function of this file a call passes.
  return env.inlines && env.lookup && variable?.defs[0]?.type === 'Parameter' ? passedFunction(ev, callee, args, env, depth) : UNKNOWN;
}

/** A function a helper's call passes in (bound by the environment, `env.lookup`), called here. */
function passedFunction(ev: Evaluator, callee: Node, args: readonly Node[], env: Env, depth: number): Value {
  const value = ev.eval(callee, env, depth);
  return isStaticFunction(value) ? callFunctionValue(ev, value, args, env, depth) : UNKNOWN;
}

/**
 * A call of a function value: inlined here when it is written in this file; evaluated by its home
 * evaluator when it was carried in from another file (a closure keeps its file's environment),
 * its parameters bound to the arguments read here; UNKNOWN when it is of another file and has no
 * home (an evaluator reads only its own file's nodes).
 */
export function callFunctionValue(ev: Evaluator, value: StaticFunction, args: readonly Node[], env: Env, depth: number): Value {
  const home = value.home && value.home !== ev ? value.home : undefined;
  if (!home) return rootOf(value.node) === ev.sourceCode.ast ? inline(ev, value.node, args, env, depth) : UNKNOWN;
  if (rootOf(value.node) !== home.sourceCode.ast || depth > MAX_DEPTH - INLINE_HEADROOM) return UNKNOWN;
  const ret = returnOf(value.node);
  if (!ret) return UNKNOWN;
  const bindings = new Map<Variable, { expr: Node | undefined; env: Env; value?: Value }>();
  // The home file's own environment: what this one binds (its variables, masks, imports) means nothing there.
  const base: Env = {
    defaults: env.defaults, randomness: env.randomness, names: env.names, inlines: env.inlines, probe: env.probe,
    status: env.status, errorFields: env.errorFields, thrown: env.thrown, flags: env.flags,
  };
  value.node.params.forEach((p, i) => {
    const target = p.type === T.AssignmentPattern ? p.left : p;
    if (target.type !== T.Identifier) return;
    const variable = parameterVariable(home.sourceCode, value.node, target);
    if (!variable) return;
    const arg = args[i];
    if (arg) bindings.set(variable, { expr: undefined, env: base, value: portable(ev, ev.eval(arg, env, depth), env, depth) });
    else bindings.set(variable, { expr: p.type === T.AssignmentPattern ? p.right : undefined, env: base });
  });
  const inner: Env = { ...base, frame: { bindings, outer: undefined } };
  return evalReturn(ret, (n) => home.evaluateNested(n, inner, depth + 1));
}

function rootOf(node: Node): Node {
  let root: Node = node;
  for (let guard = 0; root.parent && guard < 400; guard++) root = root.parent;
  return root;
}

/**
 * A value read here, as another file's evaluator may hold it: what carries nodes of this file is
 * made plain data (an object literal merged), or keeps this evaluator as its home (a function).
 */
function portable(ev: Evaluator, v: Value, env: Env, depth: number): Value {
  if (isStaticFunction(v)) return v.home ? v : { kind: 'function', node: v.node, home: ev };
  if (isStaticObject(v)) return asData(ev, v, 0, depth);
  if (Array.isArray(v)) return (v as Value[]).map((x) => portable(ev, x, env, depth));
  if (isSetValue(v)) return { set: v.set.map((x) => portable(ev, x, env, depth)) };
  return v;
}

/** Getters of SDK response classes and the response member each reads (stripe's `res.getStatusCode()`). */
export const RESPONSE_GETTERS: ReadonlyMap<string, string> = new Map([['getStatusCode', 'status'], ['getStatus', 'status'], ['getHeaders', 'headers']]);

/**
 * The static method `name` of a class of this file named by `object` (`Client.shouldRetry`), when
 * the class declares exactly one and its name is never reassigned.
 */
export function staticMethod(ev: Evaluator, object: TSESTree.Identifier, name: string): TSESTree.FunctionLike | undefined {
  const variable = ev.variableOf(object);
  const def = variable?.defs.length === 1 ? variable.defs[0] : undefined;
  if (def?.type !== 'ClassName' || variable!.references.some((r) => r.isWrite())) return undefined;
  return classMethod(def.node as TSESTree.ClassDeclaration, name, true);
}

/** The one plain method `name` (static or not) a class declares; undefined for overloads, accessors or none. */
function classMethod(cls: TSESTree.ClassDeclaration | TSESTree.ClassExpression | undefined, name: string, isStatic: boolean): TSESTree.FunctionLike | undefined {
  let found: TSESTree.FunctionLike | undefined;
  for (const m of cls?.body.body ?? []) {
    if (m.type !== T.MethodDefinition || m.static !== isStatic || m.computed || m.key.type !== T.Identifier || m.key.name !== name) continue;
    if (found || m.kind !== 'method' || !m.value.body) return undefined;
    found = m.value;
  }
  return found;
}

/** The instance method `name` of the class `self` is in, when the class declares exactly one (no overloads, accessors). */
export function instanceMethod(self: TSESTree.ThisExpression, name: string): TSESTree.FunctionLike | undefined {
  return classMethod(thisClass(self), name, false);
}

/** `crypto.randomInt(max)` / `randomInt(min, max)`. */
function randomInt(ev: Evaluator, args: readonly Node[], env: Env, depth: number): Value {
  if (!env.randomness) return UNKNOWN;
  sawRandom(env);
  const a = toInterval(ev.eval(args[0], env, depth));
  const b = args.length > 1 && args[1]?.type !== T.ArrowFunctionExpression && args[1]?.type !== T.FunctionExpression ? toInterval(ev.eval(args[1], env, depth)) : undefined;
  if (!a) return UNKNOWN;
  return b ? range(a.lo, b.hi) : range(0, a.hi);
}

function math(ev: Evaluator, name: string, args: readonly Node[], env: Env, depth: number): Value {
  if (name === 'random') {
    if (!env.randomness) return UNKNOWN;
    sawRandom(env);
    return continuousRange(0, 1);
  }
  if (name === 'min' && env.uncapped && env.varies && args.length >= 2) {
    // Under the cap: keep the argument that changes per attempt, remember the constant one as the cap.
    const varying = args.filter((a) => env.varies!(a, env));
    if (varying.length === 1) {
      const caps = args.filter((a) => a !== varying[0]).map((a) => toInterval(ev.eval(a, env, depth)));
      if (caps.every((c) => c && c.lo === c.hi)) sawCap(env, Math.min(...caps.map((c) => c!.lo)));
      return ev.eval(varying[0], env, depth);
    }
  }
  const f = MATH[name];
  if (!f) return UNKNOWN;
  const values = args.map((a) => toInterval(ev.eval(a, env, depth)));
  if (values.some((v) => !v)) {
    // `Math.min(retryAfter * 1000, MAX_DELAY)`: whatever the unknown side is, the result is at most the known one.
    const known = values.filter((v): v is NonNullable<typeof v> => !!v);
    return name === 'min' && !env.uncapped && known.length > 0 ? range(-Infinity, Math.min(...known.map((v) => v.hi))) : UNKNOWN;
  }
  return f(values as { lo: number; hi: number }[]);
}

/** Evaluates a small helper (`const backoff = (n) => Math.min(100 * 2 ** n, 5000)`) at its call. */
function inline(ev: Evaluator, fn: TSESTree.FunctionLike, args: readonly Node[], env: Env, depth: number): Value {
  if (depth > MAX_DEPTH - INLINE_HEADROOM) return UNKNOWN;
  const ret = returnOf(fn);
  if (!ret) return UNKNOWN;
  const inner: Env = { ...env, frame: frameFor(ev.sourceCode, fn, args, env) };
  return evalReturn(ret, (n) => ev.eval(n, inner, depth + 1));
}

/** `enum E { A = 1 }` in this file: the member's value; `E.B` without initialiser stays symbolic. */
export function enumMember(ev: Evaluator, base: SymbolicValue, key: string, object: Node): Value | undefined {
  if (object.type !== T.Identifier) return undefined;
  const def = ev.variableOf(object)?.defs[0];
  if (!def || def.type !== 'TSEnumName') return undefined;
  const decl = def.node as TSESTree.TSEnumDeclaration;
  const members = decl.body?.members ?? (decl as unknown as { members: TSESTree.TSEnumMember[] }).members;
  for (const m of members) {
    const name = m.id.type === T.Identifier ? m.id.name : String((m.id as TSESTree.StringLiteral).value);
    if (name === key) return m.initializer ? ev.evaluateStaticAt(m.initializer, 1) : { symbolic: `${base.symbolic}.${key}` };
  }
  return undefined;
}

/** How deep merged objects nest before their members read as unknown. */
const MAX_MERGE_DEPTH = 3;

/**
 * Objects merged in order (`Object.assign({}, DEFAULTS, opts)`, `{ ...DEFAULTS, ...opts }`) as plain
 * data: a later key wins. A source that is not known may override any key before it, unless the
 * defaults policy holds (environment.ts): then it stands for options not given, as `opts.x ?? d` does.
 */
export function mergeObjects(ev: Evaluator, sources: readonly Value[], env: Env, depth: number): Value {
  const properties = new Map<string, DataValue>();
  let open = false;
  const unknownSource = (optionsNotGiven = true) => {
    if (optionsNotGiven && env.defaults) return;
    open = true;
    properties.clear();
  };
  const merge = (v: Value, d: number): boolean => {
    if (v === undefined || v === null) return true;
    if (v === UNKNOWN) {
      unknownSource();
      return true;
    }
    if (isDataObject(v)) {
      if (v.open) unknownSource();
      for (const [k, x] of v.properties) properties.set(k, x);
      return true;
    }
    if (!isStaticObject(v) || !v.node || d > MAX_MERGE_DEPTH) return false;
    const within: Env = v.env ? { ...v.env, flags: env.flags } : STATIC_ENV;
    for (const p of v.node.properties) {
      if (p.type === T.SpreadElement) {
        if (!merge(ev.eval(p.argument, within, depth + 1), d + 1)) return false;
        continue;
      }
      const key = staticPropertyName(p);
      if (key === undefined || p.kind !== 'init' || p.method) {
        unknownSource(false);
        continue;
      }
      properties.set(key, asData(ev, ev.eval(p.value as Node, within, depth + 1), d + 1, depth));
    }
    return true;
  };
  for (const v of sources) if (!merge(v, 0)) return UNKNOWN;
  return { properties, open };
}

/** A value as plain data: nested object literals merged the same way; ranges, functions and the like unknown. */
export function asData(ev: Evaluator, v: Value, d: number, depth: number): DataValue {
  if (v === null || v === undefined || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' || isDataObject(v)) return v;
  if (Array.isArray(v) && d <= MAX_MERGE_DEPTH) return (v as Value[]).map((x) => asData(ev, x, d + 1, depth));
  if (isStaticObject(v) && v.node && d <= MAX_MERGE_DEPTH) {
    const merged = mergeObjects(ev, [v], v.env ?? STATIC_ENV, depth + 1);
    return isDataObject(merged) ? merged : UNKNOWN;
  }
  return UNKNOWN;
}
