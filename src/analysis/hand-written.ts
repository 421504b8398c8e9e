/**
 * Hand-written retries: loops and self-recursion that re-run an operation after a failure.
 *
 * The detector reads three things from the code around a retried call:
 * - the constraints that must hold to get from a failure back to another attempt (the loop
 *   test, `if (attempt >= max) throw` guards, `retries > 0 ? again() : reject()`), evaluated
 *   per attempt to find the bound;
 * - the sleep on the failure path, whose argument is evaluated per attempt with interval
 *   arithmetic (`Math.random()` is [0, 1]) to get the schedule, its growth and its jitter;
 * - the guards that look at the error or the response, evaluated per HTTP status to get the
 *   error filter.
 * Counters are modelled per attempt: a variable written once per iteration (`attempt++`,
 * `delay *= 2`), or a parameter the recursive call passes on (`retries - 1`, `delay * 2`).
 * Anything that cannot be read stays UNKNOWN.
 */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import type { AnalysisContext } from './library.js';
import type { ClientErrorInclusion, DelaySchedule, ErrorFilter, Growth, Node, RetrySite, Setting } from './model.js';
import { customSchedule } from './schedule.js';
import { catchClauses, nodeAt, nodesAtWord } from './node-lookup.js';
import { site, NO_FILTER } from './libraries/shared.js';
import { UNKNOWN, isKnown, isSymbolic, type DataObject, type DataValue, type Maybe, type StaticValue } from './eval/values.js';
import { constInitializer, findVariable, lookupProperty, unwrap } from './ast.js';


/**
 * One call of a helper whose body is a hand-written retry: the helper's parameters take these
 * values instead of their defaults (an empty list means "called with nothing": the defaults).
 */
export interface BoundCall {
  readonly fn: TSESTree.FunctionLike;
  readonly args: readonly DataValue[];
}

type Variable = TSESLint.Scope.Variable;
type Loop = TSESTree.ForStatement | TSESTree.WhileStatement | TSESTree.DoWhileStatement;
type Fn = TSESTree.FunctionLike;

// ---------------------------------------------------------------------------------------------
// Values

interface Iv { readonly lo: number; readonly hi: number }
/** An error or response object whose `status`/`ok` the filter analysis substitutes. */
const ROOT = Object.freeze({ root: true as const });
interface SetVal { readonly set: readonly Val[] }
interface RefVal { readonly ref: StaticValue }
/** An object literal written in the retry code (`calculateDelay(n, { minDelay: 100 })`), read in its own frame. */
interface ObjVal { readonly obj: TSESTree.ObjectExpression; readonly env: Env }
/** An object passed to a bound helper call, already read in the caller's file. */
interface DataVal { readonly props: ReadonlyMap<string, Val>; readonly open: boolean }
type Val = number | Iv | string | boolean | null | undefined | readonly Val[] | SetVal | RefVal | ObjVal | DataVal | typeof ROOT | typeof UNKNOWN;

function fromArgument(v: DataValue): Val {
  if (Array.isArray(v)) return (v as DataValue[]).map(fromArgument);
  if (typeof v === 'object' && v !== null) {
    const o = v as DataObject;
    return { props: new Map([...o.properties].map(([k, x]) => [k, fromArgument(x)])), open: o.open };
  }
  return v as Val;
}

const isIv = (v: Val): v is Iv => typeof v === 'object' && v !== null && 'lo' in v;
const num = (lo: number, hi: number): number | Iv => (lo === hi || Number.isNaN(lo) || Number.isNaN(hi) ? (Number.isNaN(lo) ? NaN : lo) : { lo, hi });
function toIv(v: Val): Iv | undefined {
  if (typeof v === 'number') return { lo: v, hi: v };
  return isIv(v) ? v : undefined;
}
function truth(v: Val): boolean | typeof UNKNOWN {
  if (v === UNKNOWN) return UNKNOWN;
  if (isIv(v)) return v.lo > 0 || v.hi < 0 ? true : UNKNOWN;
  if (typeof v === 'object') return v !== null;
  return !!v;
}
function corners(a: Iv, b: Iv, f: (x: number, y: number) => number): number | Iv | typeof UNKNOWN {
  const c = [f(a.lo, b.lo), f(a.lo, b.hi), f(a.hi, b.lo), f(a.hi, b.hi)].map((x) => (Number.isNaN(x) ? 0 : x));
  return num(Math.min(...c), Math.max(...c));
}
function fromStatic(v: Maybe<StaticValue>): Val {
  if (v === UNKNOWN) return UNKNOWN;
  if (v === null || v === undefined || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return (v as StaticValue[]).map((x) => fromStatic(x));
  if (typeof v === 'object') return { ref: v };
  return UNKNOWN;
}
function sameVal(a: Val, b: Val): boolean {
  if (isIv(a) || isIv(b)) return false;
  return a === b;
}

// ---------------------------------------------------------------------------------------------
// Regions: what varies from one attempt to the next

interface VarModel {
  readonly variable: Variable;
  /** Value at the first attempt (loop entry, or the first call of a recursive function). */
  readonly init: { expr: Node | undefined; value?: Val };
  /** The single write inside the region (`attempt++`, `delay *= 2`); `multi` when written in several places. */
  readonly write?: TSESTree.UpdateExpression | TSESTree.AssignmentExpression | 'multi' | undefined;
  /** For a recursive parameter: the argument the recursive call passes on. */
  readonly next?: Node | undefined;
  /** Constant change per attempt when it is one (`i++` = 1, `retries - 1` = -1). */
  readonly step?: number | undefined;
  readonly memo: Map<string, { vals: Val[]; random: boolean[]; cap?: number | undefined }>;
}

interface Region {
  readonly kind: 'loop' | 'recursion';
  readonly root: Node;
  readonly loop?: Loop | undefined;
  readonly vars: Map<Variable, VarModel>;
  /** Error and response variables whose `.status`/`.ok` the filter analysis substitutes. */
  readonly roots: Set<Variable>;
  /** The error-first callback parameter (`(err, res) => ...`) of a callback-style retry. */
  readonly errVar?: Variable | undefined;
}

interface Env {
  readonly region: Region;
  readonly k: number;
  readonly status?: number | undefined;
  /** Callback-style retries: evaluate with the error parameter set (failure) or null (success). */
  readonly errTruthy?: boolean | undefined;
  /** Value for free numeric unknowns, to read a growth shape whose scale is not known. */
  readonly probe?: number | undefined;
  /** Ignore `Math.min` caps, to read the growth under the cap. */
  readonly uncapped?: boolean | undefined;
  readonly subst?: ReadonlyMap<Variable, { expr: Node | undefined; env: Env }> | undefined;
  /** Fixed truth values for parts of a condition (counter checks, when reading the error filter). */
  readonly mask?: ReadonlyMap<Node, boolean> | undefined;
  readonly flags: Flags;
  readonly depth: number;
}

interface Flags { random: boolean; unknown: boolean; cap?: number | undefined }

const MAX_DEPTH = 40;
const MAX_SIM = 2000;

const modeKey = (env: Env) => `${env.status ?? ''}|${env.probe ?? ''}|${env.uncapped ? 1 : 0}|${env.errTruthy ?? ''}`;

class Analyzer {
  private readonly variables = new WeakMap<Node, Variable | null>();

  constructor(readonly ctx: AnalysisContext, readonly bound?: BoundCall) {}

  get sourceCode() {
    return this.ctx.sourceCode;
  }

  variableOf(id: TSESTree.Identifier): Variable | undefined {
    const hit = this.variables.get(id);
    if (hit !== undefined) return hit ?? undefined;
    let v: Variable | undefined;
    try {
      v = findVariable(this.ctx.evaluator.scopeOf(id), id.name);
    } catch {
      v = undefined;
    }
    this.variables.set(id, v ?? null);
    return v;
  }

  /** Position of a node in execution order: a for-loop's update clause runs after the body. */
  effPos(node: Node, region: Region, end = false): number {
    const p = end ? node.range[1] : node.range[0];
    const loop = region.loop;
    if (loop?.type === T.ForStatement && loop.update && contains(loop.update, node)) {
      return loop.body.range[1] + (p - loop.update.range[0]) + 1;
    }
    return p;
  }

  // -------------------------------------------------------------------------------------------
  // Evaluation

  eval(raw: Node | null | undefined, env: Env): Val {
    if (!raw) return undefined;
    if (env.depth > MAX_DEPTH) return this.unknown(env);
    const masked = env.mask?.get(raw);
    if (masked !== undefined) return masked;
    const node = unwrap(raw);
    const e2: Env = { ...env, depth: env.depth + 1 };
    switch (node.type) {
      case T.Literal:
        if ('regex' in node && node.regex) return UNKNOWN;
        if (typeof node.value === 'bigint') return UNKNOWN;
        return node.value as Val;
      case T.Identifier:
        return this.identifier(node, e2);
      case T.UnaryExpression:
        return this.unary(node, e2);
      case T.BinaryExpression:
        return this.binary(node, e2);
      case T.LogicalExpression:
        return this.logical(node, e2);
      case T.ConditionalExpression: {
        const t = truth(this.eval(node.test, e2));
        if (t !== UNKNOWN) return this.eval(t ? node.consequent : node.alternate, e2);
        const a = this.eval(node.consequent, e2);
        const b = this.eval(node.alternate, e2);
        const ia = toIv(a);
        const ib = toIv(b);
        if (ia && ib) return num(Math.min(ia.lo, ib.lo), Math.max(ia.hi, ib.hi));
        return sameVal(a, b) ? a : UNKNOWN;
      }
      case T.MemberExpression:
        return this.member(node, e2);
      case T.CallExpression:
        return this.call(node, e2);
      case T.NewExpression: {
        const callee = unwrap(node.callee);
        if (callee.type === T.Identifier && callee.name === 'Set' && !this.shadowed(callee)) {
          const items = node.arguments[0] ? this.eval(node.arguments[0], e2) : [];
          return Array.isArray(items) ? { set: items } : UNKNOWN;
        }
        return this.unknown(env);
      }
      case T.ObjectExpression:
        return { obj: node, env };
      case T.ArrayExpression: {
        const out: Val[] = [];
        for (const el of node.elements) {
          if (!el || el.type === T.SpreadElement) return UNKNOWN;
          out.push(this.eval(el, e2));
        }
        return out;
      }
      case T.UpdateExpression: {
        const v = toIv(this.eval(node.argument, e2));
        if (!v) return this.unknown(env);
        if (!node.prefix) return num(v.lo, v.hi);
        const d = node.operator === '++' ? 1 : -1;
        return num(v.lo + d, v.hi + d);
      }
      case T.SequenceExpression:
        return this.eval(node.expressions[node.expressions.length - 1], e2);
      case T.TemplateLiteral:
        if (node.expressions.length === 0) return node.quasis[0]?.value.cooked ?? UNKNOWN;
        return this.unknown(env);
      default:
        return this.unknown(env);
    }
  }

  private unknown(env: Env): typeof UNKNOWN {
    env.flags.unknown = true;
    return UNKNOWN;
  }

  private shadowed(id: TSESTree.Identifier): boolean {
    return !!this.variableOf(id)?.defs.length;
  }

  private identifier(id: TSESTree.Identifier, env: Env): Val {
    const variable = this.variableOf(id);
    if (!variable || variable.defs.length === 0) {
      if (id.name === 'undefined') return undefined;
      if (id.name === 'Infinity') return Infinity;
      if (id.name === 'NaN') return NaN;
      return this.unknown(env);
    }
    const sub = env.subst?.get(variable);
    if (sub) return sub.expr ? this.eval(sub.expr, { ...sub.env, flags: env.flags, depth: env.depth }) : undefined;
    const region = env.region;
    if (region.errVar === variable && env.errTruthy !== undefined) return env.errTruthy ? ROOT : null;
    if (region.roots.has(variable)) return env.status !== undefined || env.errTruthy !== undefined ? ROOT : this.unknown(env);
    const vm = region.vars.get(variable);
    if (vm) return this.valueAt(vm, env, this.effPos(id, region));
    return this.binding(variable, env);
  }

  /** A variable that does not change between attempts: a const, a default, or a destructured member. */
  private binding(variable: Variable, env: Env): Val {
    const def = variable.defs[0];
    if (!def || variable.defs.length !== 1) return this.orProbe(env);
    if (def.type === 'FunctionName') return { ref: { kind: 'function', node: def.node as TSESTree.FunctionDeclaration } };
    if (this.isBoundParameter(variable)) return this.boundParameter(def.name as Node, env);
    const init = constInitializer(variable);
    if (init) {
      const known = this.ctx.evaluator.evaluate(init);
      // `const max = opts.retries` reads a bound parameter: the static evaluator only sees a name.
      if (known !== UNKNOWN && !(this.bound && isSymbolic(known))) return fromStatic(known);
      // An unknown initialiser (a call we cannot see) stays unknown even when probing.
      return this.eval(init, env);
    }
    // `const { status } = err.response` / `{ retries = 3 } = opts` / `(retries = 3) =>`
    if (variable.references.some((r) => r.isWrite() && !r.init)) return this.orProbe(env);
    const name = def.name as Node;
    const parent = name.parent;
    if (parent?.type === T.AssignmentPattern && parent.left === name) {
      const source = this.patternSource(parent, env);
      // The default applies when the member is absent, or when we cannot see what the caller passes.
      if (source.known) return source.value === undefined ? this.eval(parent.right, env) : source.value;
      return this.eval(parent.right, env);
    }
    const source = this.patternSource(name, env);
    return source.known ? source.value : this.orProbe(env);
  }

  /** The member a destructuring pattern takes from its initialiser: `{ status } = res` -> `res.status`. */
  private patternSource(target: Node, env: Env): { known: boolean; value: Val } {
    const prop = target.parent;
    const none = { known: false, value: UNKNOWN as Val };
    if (prop?.type !== T.Property || prop.value !== target || prop.computed) return none;
    const key = prop.key.type === T.Identifier ? prop.key.name : prop.key.type === T.Literal ? String(prop.key.value) : undefined;
    const pattern = prop.parent;
    const declarator = pattern?.parent;
    if (!key || pattern?.type !== T.ObjectPattern || declarator?.type !== T.VariableDeclarator || declarator.id !== pattern || !declarator.init) return none;
    const object = this.eval(declarator.init, env);
    if (object === UNKNOWN) return none;
    return { known: true, value: this.memberOf(object, key, env) };
  }

  private orProbe(env: Env): Val {
    return env.probe !== undefined ? env.probe : this.unknown(env);
  }

  private unary(node: TSESTree.UnaryExpression, env: Env): Val {
    if (node.operator === 'void') return undefined;
    const v = this.eval(node.argument, env);
    switch (node.operator) {
      case '!': {
        const t = truth(v);
        return t === UNKNOWN ? UNKNOWN : !t;
      }
      case '-': {
        const i = toIv(v);
        return i ? num(-i.hi, -i.lo) : UNKNOWN;
      }
      case '+': {
        const i = toIv(v);
        return i ? num(i.lo, i.hi) : typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : UNKNOWN;
      }
      default:
        return UNKNOWN;
    }
  }

  private binary(node: TSESTree.BinaryExpression, env: Env): Val {
    if (node.left.type === T.PrivateIdentifier) return UNKNOWN;
    const a = this.eval(node.left, env);
    const b = this.eval(node.right, env);
    const op = node.operator;
    if (op === '===' || op === '==' || op === '!==' || op === '!=') {
      const eq = equals(a, b, op.length === 2);
      if (eq === UNKNOWN) return UNKNOWN;
      return op.startsWith('!') ? !eq : eq;
    }
    if (op === '+' && (typeof a === 'string' || typeof b === 'string')) {
      return a === UNKNOWN || b === UNKNOWN || typeof a === 'object' || typeof b === 'object' ? UNKNOWN : String(a) + String(b);
    }
    const x = toIv(a);
    const y = toIv(b);
    if (!x || !y) return UNKNOWN;
    switch (op) {
      case '+': return num(x.lo + y.lo, x.hi + y.hi);
      case '-': return num(x.lo - y.hi, x.hi - y.lo);
      case '*': return corners(x, y, (p, q) => p * q);
      case '/':
        if (y.lo <= 0 && y.hi >= 0) return y.lo === 0 && y.hi === 0 && x.lo === x.hi ? x.lo / 0 : UNKNOWN;
        return corners(x, y, (p, q) => p / q);
      case '**':
        if (x.lo === x.hi && y.lo === y.hi) return x.lo ** y.lo;
        return x.lo >= 0 ? corners(x, y, (p, q) => p ** q) : UNKNOWN;
      case '%': return x.lo === x.hi && y.lo === y.hi ? x.lo % y.lo : UNKNOWN;
      case '<': return x.hi < y.lo ? true : x.lo >= y.hi ? false : UNKNOWN;
      case '<=': return x.hi <= y.lo ? true : x.lo > y.hi ? false : UNKNOWN;
      case '>': return x.lo > y.hi ? true : x.hi <= y.lo ? false : UNKNOWN;
      case '>=': return x.lo >= y.hi ? true : x.hi < y.lo ? false : UNKNOWN;
      case '<<': case '>>': case '|': case '&': case '^': case '>>>': {
        if (x.lo !== x.hi || y.lo !== y.hi) return UNKNOWN;
        const [p, q] = [x.lo, y.lo];
        return op === '<<' ? p << q : op === '>>' ? p >> q : op === '|' ? p | q : op === '&' ? p & q : op === '^' ? p ^ q : p >>> q;
      }
      default:
        return UNKNOWN;
    }
  }

  private logical(node: TSESTree.LogicalExpression, env: Env): Val {
    const left = this.eval(node.left, env);
    if (node.operator === '??') {
      if (left === null || left === undefined) return this.eval(node.right, env);
      if (left !== UNKNOWN) return left;
      // `opts.retries ?? 3`: the code's own default, read like a library default.
      return this.eval(node.right, env);
    }
    const t = truth(left);
    if (node.operator === '&&') {
      if (t === false) return left;
      if (t === true) return this.eval(node.right, env);
      const r = this.eval(node.right, env);
      return truth(r) === false ? r : UNKNOWN;
    }
    if (t === true) return left;
    if (t === false) return this.eval(node.right, env);
    const r = this.eval(node.right, env);
    if (left === UNKNOWN && typeof r === 'number' && unwrap(node.left).type !== T.CallExpression) return r; // `opts.delay || 1000`
    return truth(r) === true ? r : UNKNOWN;
  }

  private member(node: TSESTree.MemberExpression, env: Env): Val {
    let key: string | undefined;
    if (!node.computed) key = node.property.type === T.Identifier ? node.property.name : undefined;
    const object = this.eval(node.object, env);
    if (node.computed) {
      const k = this.eval(node.property, env);
      if (typeof k === 'number' || typeof k === 'string') key = String(k);
      else if (isIv(k) && Array.isArray(object)) {
        // A random index into a delay table: the hull of the entries it can pick.
        const picks = (object as Val[]).slice(Math.max(0, Math.floor(k.lo)), Math.min(object.length, Math.floor(k.hi) + 1)).map(toIv);
        if (picks.length === 0 || picks.some((p) => !p)) return UNKNOWN;
        return num(Math.min(...picks.map((p) => p!.lo)), Math.max(...picks.map((p) => p!.hi)));
      }
    }
    if (key === undefined) return this.unknown(env);
    if (object !== null && typeof object === 'object' && 'ref' in object) {
      return fromStatic(this.ctx.evaluator.evaluate(node));
    }
    if (object === UNKNOWN && !node.computed && unwrap(node.object).type === T.Identifier) {
      const id = unwrap(node.object) as TSESTree.Identifier;
      const root = id.name === 'Math' || id.name === 'Number' ? fromStatic(this.ctx.evaluator.evaluate(node)) : UNKNOWN;
      if (root !== UNKNOWN) return root;
    }
    return this.memberOf(object, key, env);
  }

  memberOf(object: Val, key: string, env: Env): Val {
    if (object === UNKNOWN && env.probe !== undefined) return env.probe; // `opts.baseDelay`
    if (object !== null && typeof object === 'object' && 'props' in object) {
      return object.props.has(key) ? object.props.get(key) as Val : object.open ? this.unknown(env) : undefined;
    }
    if (object !== null && typeof object === 'object' && 'obj' in object) {
      const found = lookupProperty(object.obj, key, (n) => this.ctx.evaluator.scopeOf(n));
      if (found.state === 'absent') return undefined;
      if (found.state === 'unknown') return this.unknown(env);
      return this.eval(found.value, { ...object.env, flags: env.flags, depth: env.depth + 1 });
    }
    if (object === ROOT) {
      if (STATUS_KEYS.has(key)) return env.status !== undefined ? env.status : this.unknown(env);
      if (key === 'ok') return env.status !== undefined ? env.status >= 200 && env.status <= 299 : this.unknown(env);
      if (PASS_THROUGH_KEYS.has(key)) return ROOT;
      return this.unknown(env);
    }
    if (Array.isArray(object)) {
      if (key === 'length') return object.length;
      const i = Number(key);
      return Number.isInteger(i) && i >= 0 && i < object.length ? object[i] : i >= object.length ? undefined : UNKNOWN;
    }
    if (typeof object === 'string' && key === 'length') return object.length;
    return this.unknown(env);
  }

  private call(node: TSESTree.CallExpression, env: Env): Val {
    const callee = unwrap(node.callee);
    const args = node.arguments;
    if (args.some((a) => a.type === T.SpreadElement)) return this.unknown(env);
    if (callee.type === T.MemberExpression && !callee.computed && callee.property.type === T.Identifier) {
      const name = callee.property.name;
      const obj = unwrap(callee.object);
      if (obj.type === T.Identifier && obj.name === 'Math' && !this.shadowed(obj)) return this.math(name, args as Node[], env);
      if (name === 'includes' || name === 'has') {
        const coll = this.eval(callee.object, env);
        const items = Array.isArray(coll) ? coll : coll && typeof coll === 'object' && 'set' in coll ? coll.set : undefined;
        if (!items) return this.unknown(env);
        const x = this.eval(args[0] as Node | undefined, env);
        if (x === UNKNOWN || isIv(x)) return UNKNOWN;
        return items.some((i) => sameVal(i, x));
      }
      if (name === 'randomInt' && this.fromModule(callee, 'crypto')) return this.randomInt(args as Node[], env);
      if (/random|jitter/i.test(name)) {
        env.flags.random = true;
        return this.unknown(env);
      }
      return this.unknown(env);
    }
    if (callee.type === T.Identifier) {
      const v = this.variableOf(callee);
      if ((callee.name === 'Number' || callee.name === 'parseInt' || callee.name === 'parseFloat') && !v?.defs.length) {
        const x = this.eval(args[0] as Node | undefined, env);
        return toIv(x) ? x : typeof x === 'string' && x.trim() !== '' && !Number.isNaN(Number(x)) ? Number(x) : UNKNOWN;
      }
      const ref = this.ctx.imports.resolve(callee);
      if (ref?.module === 'crypto' && ref.path === 'randomInt') return this.randomInt(args as Node[], env);
      const fn = v && !ref ? this.localFunction(v) : undefined;
      if (fn) return this.inline(fn, args as Node[], env);
      if (/random|jitter/i.test(callee.name)) {
        env.flags.random = true;
        return this.unknown(env);
      }
    }
    return this.unknown(env);
  }

  private fromModule(member: TSESTree.MemberExpression, module: string): boolean {
    const ref = this.ctx.imports.resolve(member.object);
    return ref?.module === module;
  }

  private randomInt(args: Node[], env: Env): Val {
    env.flags.random = true;
    const a = toIv(this.eval(args[0], env));
    const b = args.length > 1 && args[1]?.type !== T.ArrowFunctionExpression && args[1]?.type !== T.FunctionExpression ? toIv(this.eval(args[1], env)) : undefined;
    if (!a) return UNKNOWN;
    return b ? num(a.lo, b.hi) : num(0, a.hi);
  }

  private math(name: string, args: Node[], env: Env): Val {
    if (name === 'random') {
      env.flags.random = true;
      return { lo: 0, hi: 1 };
    }
    if (name === 'min' && env.uncapped && args.length >= 2) {
      // Under the cap: keep the argument that changes per attempt, remember the constant one as the cap.
      const varying = args.filter((a) => this.dependsOnAttempt(a, env));
      if (varying.length === 1) {
        const caps = args.filter((a) => a !== varying[0]).map((a) => toIv(this.eval(a, env)));
        if (caps.every((c) => c && c.lo === c.hi)) {
          const cap = Math.min(...caps.map((c) => c!.lo));
          env.flags.cap = env.flags.cap === undefined ? cap : Math.min(env.flags.cap, cap);
        }
        return this.eval(varying[0], env);
      }
    }
    const vals = args.map((a) => toIv(this.eval(a, env)));
    if (vals.some((v) => !v)) return UNKNOWN;
    const iv = vals as Iv[];
    const mono = (f: (x: number) => number) => (iv[0] ? num(f(iv[0].lo), f(iv[0].hi)) : UNKNOWN);
    switch (name) {
      case 'min': return iv.length ? num(Math.min(...iv.map((v) => v.lo)), Math.min(...iv.map((v) => v.hi))) : Infinity;
      case 'max': return iv.length ? num(Math.max(...iv.map((v) => v.lo)), Math.max(...iv.map((v) => v.hi))) : -Infinity;
      case 'floor': return mono(Math.floor);
      case 'ceil': return mono(Math.ceil);
      case 'round': return mono(Math.round);
      case 'trunc': return mono(Math.trunc);
      case 'sqrt': return iv[0] && iv[0].lo >= 0 ? mono(Math.sqrt) : UNKNOWN;
      case 'abs': {
        const v = iv[0];
        if (!v) return UNKNOWN;
        if (v.lo >= 0) return num(v.lo, v.hi);
        if (v.hi <= 0) return num(-v.hi, -v.lo);
        return num(0, Math.max(-v.lo, v.hi));
      }
      case 'pow': return iv[0] && iv[1] ? this.binaryPow(iv[0], iv[1]) : UNKNOWN;
      default: return UNKNOWN;
    }
  }

  private binaryPow(x: Iv, y: Iv): Val {
    if (x.lo === x.hi && y.lo === y.hi) return x.lo ** y.lo;
    return x.lo >= 0 ? corners(x, y, (p, q) => p ** q) : UNKNOWN;
  }

  /** A function declared in this file whose body we can read. */
  localFunction(variable: Variable): Fn | undefined {
    const def = variable.defs[0];
    if (!def || variable.defs.length !== 1) return undefined;
    if (def.type === 'FunctionName') return def.node as TSESTree.FunctionDeclaration;
    const init = constInitializer(variable);
    const fn = init && unwrap(init);
    return fn && (fn.type === T.ArrowFunctionExpression || fn.type === T.FunctionExpression) ? fn : undefined;
  }

  /** Evaluates a small helper (`const backoff = (n) => Math.min(100 * 2 ** n, 5000)`) at its call. */
  private inline(fn: Fn, args: Node[], env: Env): Val {
    if (env.depth > MAX_DEPTH - 8) return this.unknown(env);
    const ret = returnOf(fn);
    if (!ret) return this.unknown(env);
    const inner = this.frame(fn, args, env);
    return this.evalReturn(ret, inner);
  }

  frame(fn: Fn, args: readonly Node[], env: Env): Env {
    const subst = new Map(env.subst ?? []);
    fn.params.forEach((p, i) => {
      const target = p.type === T.AssignmentPattern ? p.left : p;
      if (target.type !== T.Identifier) return;
      const variable = this.paramVariable(fn, target);
      if (!variable) return;
      const arg = args[i];
      if (arg) subst.set(variable, { expr: arg, env });
      else if (p.type === T.AssignmentPattern) subst.set(variable, { expr: p.right, env });
      else subst.set(variable, { expr: undefined, env });
    });
    return { ...env, subst, depth: env.depth + 1 };
  }

  /** A parameter of the bound helper (or a name destructured from one). */
  isBoundParameter(variable: Variable): boolean {
    const def = variable.defs[0];
    return !!this.bound && variable.defs.length === 1 && def?.type === 'Parameter' && def.node === this.bound.fn;
  }

  /**
   * The value a bound helper's parameter takes at the call: the argument, down the destructuring
   * path (`{ retries = 3 } = {}`), with the helper's defaults where the call passes nothing.
   */
  boundParameter(name: Node, env: Env): Val {
    const fn = this.bound!.fn;
    type Step = { key: string } | { index: number } | { fallback: Node };
    const steps: Step[] = [];
    let n: Node = name;
    for (let guard = 0; guard < 32 && !(fn.params as Node[]).includes(n); guard++) {
      const p: Node | undefined = n.parent;
      if (!p) return this.unknown(env);
      if (p.type === T.AssignmentPattern && p.left === n) steps.push({ fallback: p.right });
      else if (p.type === T.Property && p.value === n && p.parent?.type === T.ObjectPattern) {
        const key = p.computed ? undefined : p.key.type === T.Identifier ? p.key.name : p.key.type === T.Literal ? String(p.key.value) : undefined;
        if (key === undefined) return this.unknown(env);
        steps.push({ key });
      } else if (p.type === T.ArrayPattern) steps.push({ index: p.elements.indexOf(n as never) });
      else if (p.type !== T.ObjectPattern) return this.unknown(env);
      n = p;
    }
    const index = (fn.params as Node[]).indexOf(n);
    if (index < 0) return this.unknown(env);
    let v: Val = index < this.bound!.args.length ? fromArgument(this.bound!.args[index]) : undefined;
    for (const step of steps.reverse()) {
      if ('fallback' in step) {
        if (v === undefined) v = this.eval(step.fallback, env);
      } else if (v === undefined || v === null || v === UNKNOWN) {
        v = this.unknown(env);
      } else if ('key' in step) {
        v = this.memberOf(v, step.key, env);
      } else {
        v = Array.isArray(v) ? (step.index < v.length ? v[step.index] as Val : undefined) : this.unknown(env);
      }
    }
    return v;
  }

  paramVariable(fn: Fn, id: TSESTree.Identifier): Variable | undefined {
    try {
      return this.sourceCode.scopeManager?.getDeclaredVariables(fn).find((v) => v.defs.some((d) => d.name === id));
    } catch {
      return undefined;
    }
  }

  private evalReturn(ret: Ret, env: Env): Val {
    if ('expr' in ret) return this.eval(ret.expr, env);
    const t = truth(this.eval(ret.test, env));
    if (t !== UNKNOWN) return this.evalReturn(t ? ret.then : ret.else, env);
    const a = toIv(this.evalReturn(ret.then, env));
    const b = toIv(this.evalReturn(ret.else, env));
    return a && b ? num(Math.min(a.lo, b.lo), Math.max(a.hi, b.hi)) : UNKNOWN;
  }

  /** Whether an expression changes between attempts (reads a counter, a state variable or a helper parameter bound to one). */
  dependsOnAttempt(expr: Node, env: Env, depth = 0): boolean {
    if (depth > 6) return true;
    let found = false;
    walkExpression(expr, (n) => {
      if (found || n.type !== T.Identifier) return;
      const v = this.variableOf(n);
      if (!v) return;
      if (env.region.vars.has(v) || env.region.roots.has(v)) { found = true; return; }
      const sub = env.subst?.get(v);
      if (sub) { if (sub.expr && this.dependsOnAttempt(sub.expr, sub.env, depth + 1)) found = true; return; }
      const init = constInitializer(v);
      if (init && contains(env.region.root, init) && this.dependsOnAttempt(init, env, depth + 1)) found = true;
      const fn = this.localFunction(v);
      if (fn && n.parent?.type === T.CallExpression && n.parent.callee === n) {
        if (n.parent.arguments.some((a) => this.dependsOnAttempt(a, env, depth + 1))) found = true;
      }
    });
    return found;
  }

  // -------------------------------------------------------------------------------------------
  // Per-attempt values of region variables

  valueAt(vm: VarModel, env: Env, point: number): Val {
    if (vm.write === 'multi') return this.unknown(env);
    const start = this.startOf(vm, env.k, env);
    const w = vm.write;
    if (w && this.effPos(w, env.region, true) <= point) return this.applyWrite(vm, w, start, env);
    return start;
  }

  /** Value at the start of attempt k (before any write of that attempt). */
  private startOf(vm: VarModel, k: number, env: Env): Val {
    if (k < 1) return UNKNOWN;
    const key = modeKey(env);
    let memo = vm.memo.get(key);
    if (!memo) vm.memo.set(key, (memo = { vals: [], random: [] }));
    const hit = memo.vals[k];
    const seen = (m: { random: boolean[]; cap?: number | undefined }) => {
      if (m.random[k]) env.flags.random = true;
      if (m.cap !== undefined) env.flags.cap = env.flags.cap === undefined ? m.cap : Math.min(env.flags.cap, m.cap);
    };
    if (hit !== undefined || k in memo.vals) {
      seen(memo);
      return hit as Val;
    }
    if (k > 1 && vm.step !== undefined) {
      const first = this.startOf(vm, 1, env);
      const i = toIv(first);
      const v: Val = i ? num(i.lo + vm.step * (k - 1), i.hi + vm.step * (k - 1)) : UNKNOWN;
      memo.vals[k] = v;
      memo.random[k] = !!memo.random[1];
      return v;
    }
    if (k > MAX_SIM) return UNKNOWN;
    // Fill in order so deep attempts do not recurse deeply.
    for (let j = memo.vals.length > 1 ? memo.vals.length : 1; j <= k; j++) {
      if (j in memo.vals) continue;
      const flags: Flags = { random: false, unknown: false };
      const local: Env = { ...env, k: j - 1, flags, depth: 0 };
      let v: Val;
      if (j === 1) {
        const init = vm.init;
        if ('value' in init) v = init.value === UNKNOWN && env.probe !== undefined ? env.probe : (init.value as Val);
        else if (init.expr) v = this.eval(init.expr, { ...env, k: 0, flags, depth: 0 });
        else v = env.probe !== undefined ? env.probe : UNKNOWN;
      } else if (vm.next) {
        v = this.eval(vm.next, local);
      } else if (vm.write && vm.write !== 'multi') {
        v = this.applyWrite(vm, vm.write, memo.vals[j - 1] as Val, local);
      } else {
        v = memo.vals[j - 1] as Val;
      }
      memo.vals[j] = v;
      memo.random[j] = flags.random || (j > 1 && !!memo.random[j - 1]);
      if (flags.cap !== undefined) memo.cap = memo.cap === undefined ? flags.cap : Math.min(memo.cap, flags.cap);
    }
    seen(memo);
    return memo.vals[k] as Val;
  }

  private applyWrite(vm: VarModel, w: TSESTree.UpdateExpression | TSESTree.AssignmentExpression, current: Val, env: Env): Val {
    const cur = toIv(current);
    if (w.type === T.UpdateExpression) {
      if (!cur) return UNKNOWN;
      const d = w.operator === '++' ? 1 : -1;
      return num(cur.lo + d, cur.hi + d);
    }
    // The right-hand side reads the variable as it was before this write.
    const rhs = this.eval(w.right, env);
    if (w.operator === '=') return rhs;
    const r = toIv(rhs);
    if (!cur || !r) return UNKNOWN;
    switch (w.operator) {
      case '+=': return num(cur.lo + r.lo, cur.hi + r.hi);
      case '-=': return num(cur.lo - r.hi, cur.hi - r.lo);
      case '*=': return corners(cur, r, (a, b) => a * b);
      case '/=': return r.lo > 0 || r.hi < 0 ? corners(cur, r, (a, b) => a / b) : UNKNOWN;
      case '**=': return cur.lo >= 0 ? corners(cur, r, (a, b) => a ** b) : UNKNOWN;
      default: void vm; return UNKNOWN;
    }
  }
}

const STATUS_KEYS = new Set(['status', 'statusCode', 'httpStatusCode', 'httpStatus']);
const PASS_THROUGH_KEYS = new Set(['response', '$metadata', 'cause', 'res']);

function equals(a: Val, b: Val, loose: boolean): boolean | typeof UNKNOWN {
  if (a === UNKNOWN || b === UNKNOWN) return UNKNOWN;
  const x = toIv(a);
  const y = toIv(b);
  if (x && y) {
    if (x.lo === x.hi && y.lo === y.hi) return x.lo === y.lo;
    return x.hi < y.lo || y.hi < x.lo ? false : UNKNOWN;
  }
  if (a === ROOT || b === ROOT) return a === b ? true : b === null || b === undefined || a === null || a === undefined ? false : UNKNOWN;
  if (typeof a === 'object' && a !== null) return UNKNOWN;
  if (typeof b === 'object' && b !== null) return UNKNOWN;
  if (loose && (a === null || a === undefined) && (b === null || b === undefined)) return true;
  if (x || y) {
    // A number compared with a string or nullish: JS semantics are decidable for literals only.
    if (loose) return UNKNOWN;
    return false;
  }
  return a === b;
}

type Ret = { expr: Node } | { test: Node; then: Ret; else: Ret };

/** The value a small function returns: an expression body, or `if (c) return a; ... return b;`. */
function returnOf(fn: Fn): Ret | undefined {
  if (!fn.body) return undefined;
  if (fn.body.type !== T.BlockStatement) return { expr: fn.body };
  return returnOfStatements(fn.body.body, 0);
}

function returnOfStatements(body: readonly TSESTree.Statement[], i: number): Ret | undefined {
  for (let j = i; j < body.length; j++) {
    const s = body[j]!;
    if (s.type === T.VariableDeclaration) continue;
    if (s.type === T.ReturnStatement) return s.argument ? { expr: s.argument } : undefined;
    if (s.type === T.IfStatement) {
      const then = returnOfStatement(s.consequent);
      if (!then) return undefined;
      const rest = s.alternate ? returnOfStatement(s.alternate) : returnOfStatements(body, j + 1);
      return rest ? { test: s.test, then, else: rest } : undefined;
    }
    return undefined;
  }
  return undefined;
}

function returnOfStatement(s: TSESTree.Statement): Ret | undefined {
  if (s.type === T.BlockStatement) return returnOfStatements(s.body, 0);
  return returnOfStatements([s], 0);
}

// ---------------------------------------------------------------------------------------------
// Small AST helpers (bounded to the retry construct, never the whole file)

function contains(outer: Node, inner: Node): boolean {
  return inner.range[0] >= outer.range[0] && inner.range[1] <= outer.range[1];
}

function isFunction(n: Node): n is Fn {
  return n.type === T.ArrowFunctionExpression || n.type === T.FunctionExpression || n.type === T.FunctionDeclaration;
}

function isLoop(n: Node): boolean {
  return n.type === T.ForStatement || n.type === T.WhileStatement || n.type === T.DoWhileStatement ||
    n.type === T.ForOfStatement || n.type === T.ForInStatement;
}

const SKIP_KEYS = new Set(['parent', 'typeAnnotation', 'returnType', 'typeParameters', 'typeArguments', 'decorators']);

/** Visits the nodes of an expression, not entering nested functions. */
function walkExpression(node: Node, visit: (n: Node) => void): void {
  const stack: Node[] = [node];
  while (stack.length) {
    const n = stack.pop()!;
    visit(n);
    if (isFunction(n) && n !== node) continue;
    pushChildren(n, stack);
  }
}

function pushChildren(n: Node, stack: Node[]): void {
  for (const key of Object.keys(n)) {
    if (SKIP_KEYS.has(key)) continue;
    const child = (n as unknown as Record<string, unknown>)[key];
    if (Array.isArray(child)) {
      for (let j = child.length - 1; j >= 0; j--) {
        const c = child[j] as Node | null;
        if (c && typeof c === 'object' && typeof c.type === 'string') stack.push(c);
      }
    } else if (child && typeof child === 'object' && typeof (child as Node).type === 'string' && key !== 'loc' && key !== 'range') {
      stack.push(child as Node);
    }
  }
}

/** The statements of a loop body that belong to it: nested functions and nested loops are skipped. */
interface LoopScan {
  tries: TSESTree.TryStatement[];
  ifs: TSESTree.IfStatement[];
  awaits: TSESTree.AwaitExpression[];
  continues: TSESTree.ContinueStatement[];
  returns: TSESTree.ReturnStatement[];
  breaks: TSESTree.BreakStatement[];
  writes: TSESTree.Identifier[];
  computed: TSESTree.MemberExpression[];
  statusMembers: TSESTree.MemberExpression[];
}

function scanLoop(loop: Loop): LoopScan {
  const out: LoopScan = { tries: [], ifs: [], awaits: [], continues: [], returns: [], breaks: [], writes: [], computed: [], statusMembers: [] };
  const stack: Node[] = [];
  if (loop.type === T.ForStatement) {
    if (loop.test) stack.push(loop.test);
    if (loop.update) stack.push(loop.update);
  } else stack.push(loop.test);
  stack.push(loop.body);
  let switches = 0;
  const switchEnds: number[] = [];
  while (stack.length) {
    const n = stack.pop()!;
    while (switchEnds.length && n.range[0] >= switchEnds[switchEnds.length - 1]!) { switchEnds.pop(); switches--; }
    if (isFunction(n) || isLoop(n)) continue;
    switch (n.type) {
      case T.TryStatement: out.tries.push(n); break;
      case T.IfStatement: out.ifs.push(n); break;
      case T.AwaitExpression: out.awaits.push(n); break;
      case T.ContinueStatement: out.continues.push(n); break;
      case T.ReturnStatement: out.returns.push(n); break;
      case T.BreakStatement: if (n.label || switches === 0) out.breaks.push(n); break;
      case T.SwitchStatement: switches++; switchEnds.push(n.range[1]); break;
      case T.UpdateExpression: if (n.argument.type === T.Identifier) out.writes.push(n.argument); break;
      case T.AssignmentExpression: if (n.left.type === T.Identifier) out.writes.push(n.left); break;
      case T.MemberExpression:
        if (n.computed) out.computed.push(n);
        else if (n.property.type === T.Identifier && (n.property.name === 'ok' || STATUS_KEYS.has(n.property.name))) out.statusMembers.push(n);
        break;
      default: break;
    }
    pushChildren(n, stack);
  }
  const order = (a: Node, b: Node) => a.range[0] - b.range[0];
  for (const list of Object.values(out) as Node[][]) list.sort(order);
  return out;
}

/** How a statement ends: leaves the construct (`return`/`throw`/`break` out), or may go on. */
type Exit = 'throw' | 'leave' | undefined;

function exitOf(s: TSESTree.Statement | null | undefined, loop: Loop | undefined): Exit {
  if (!s) return undefined;
  switch (s.type) {
    case T.ThrowStatement: return 'throw';
    case T.ReturnStatement: return 'leave';
    case T.BreakStatement: return loop ? 'leave' : undefined;
    case T.ContinueStatement: return loop && s.label && !labels(loop).includes(s.label.name) ? 'leave' : undefined;
    case T.BlockStatement: {
      for (const st of s.body) {
        const e = exitOf(st, loop);
        if (e) return e;
        if (continues(st, loop)) return undefined;
      }
      return undefined;
    }
    case T.IfStatement: {
      const a = exitOf(s.consequent, loop);
      const b = exitOf(s.alternate, loop);
      return a && b ? (a === 'throw' && b === 'throw' ? 'throw' : 'leave') : undefined;
    }
    case T.ExpressionStatement: {
      // `process.exit(1)` ends everything; treat it like a throw.
      const e = unwrap(s.expression);
      if (e.type !== T.CallExpression) return undefined;
      if (e.callee.type === T.MemberExpression && !e.callee.computed &&
        e.callee.object.type === T.Identifier && e.callee.object.name === 'process' && e.callee.property.type === T.Identifier && e.callee.property.name === 'exit') return 'throw';
      // `throwWithCause(err)`, `rethrow(e)`: helpers that exist to throw.
      const name = calleeName(e);
      return name && /^(?:throw|rethrow|raise)[A-Z_]?/.test(name) ? 'throw' : undefined;
    }
    default: return undefined;
  }
}

function continues(s: TSESTree.Statement | null | undefined, loop: Loop | undefined): boolean {
  if (!s || !loop) return false;
  switch (s.type) {
    case T.ContinueStatement: return !s.label || labels(loop).includes(s.label.name);
    case T.BlockStatement:
      for (const st of s.body) {
        if (exitOf(st, loop)) return false;
        if (continues(st, loop)) return true;
      }
      return false;
    case T.IfStatement: return continues(s.consequent, loop) && (continues(s.alternate, loop) || !!exitOf(s.alternate, loop));
    default: return false;
  }
}

function labels(loop: Node): string[] {
  const out: string[] = [];
  for (let p = loop.parent; p?.type === T.LabeledStatement; p = p.parent) out.push(p.label.name);
  return out;
}

/** The statements after `s` in its block, and in each enclosing block up to `stop`. */
function following(s: Node, stop: Node): TSESTree.Statement[][] {
  const out: TSESTree.Statement[][] = [];
  let child: Node = s;
  for (let p = s.parent; p; child = p, p = p.parent) {
    if (p.type === T.BlockStatement || p.type === T.Program || p.type === T.SwitchCase) {
      const body = (p.type === T.SwitchCase ? p.consequent : p.body) as TSESTree.Statement[];
      const i = body.indexOf(child as TSESTree.Statement);
      out.push(i >= 0 ? body.slice(i + 1) : []);
    }
    if (p === stop) break;
  }
  return out;
}

function sequenceExits(statements: readonly TSESTree.Statement[], loop: Loop | undefined): Exit {
  for (const st of statements) {
    const e = exitOf(st, loop);
    if (e) return e;
    if (continues(st, loop)) return undefined;
  }
  return undefined;
}

/** `a.then(...).catch(...)` -> `a(...)`: the call a promise chain starts from. */
function chainRoot(expr: Node): Node {
  let n = unwrap(expr);
  for (;;) {
    if (n.type === T.AwaitExpression) { n = unwrap(n.argument); continue; }
    if (n.type === T.CallExpression) {
      const c = unwrap(n.callee);
      if (c.type === T.MemberExpression && !c.computed && c.property.type === T.Identifier && PROMISE_METHODS.has(c.property.name)) {
        n = unwrap(c.object);
        continue;
      }
    }
    return n;
  }
}

const PROMISE_METHODS = new Set(['then', 'catch', 'finally']);

function methodName(call: Node): string | undefined {
  if (call.type !== T.CallExpression) return undefined;
  const c = unwrap(call.callee);
  return c.type === T.MemberExpression && !c.computed && c.property.type === T.Identifier ? c.property.name : undefined;
}

/** `(0, exports.sleep)` -> `exports.sleep`: how compilers call an imported function. */
function calleeOf(call: TSESTree.CallExpression): Node {
  const c = unwrap(call.callee);
  return c.type === T.SequenceExpression && c.expressions.length > 0 ? unwrap(c.expressions[c.expressions.length - 1]!) : c;
}

function calleeName(call: TSESTree.CallExpression): string | undefined {
  const c = calleeOf(call);
  if (c.type === T.Identifier) return c.name;
  if (c.type === T.MemberExpression && !c.computed && c.property.type === T.Identifier) return c.property.name;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Sleeps

/** A wait on the failure path, and how to read its duration. */
interface Sleep {
  /** Where the duration is written at the call site: the squiggle for backoff findings. */
  readonly node: Node;
  /** The duration expression, in the innermost helper frame; undefined when not readable. */
  readonly expr: Node | undefined;
  /** Helpers between the call site and the timer (`backoff(n)` -> `sleep(2 ** n * 100)` -> `setTimeout`). */
  readonly frames: readonly { fn: Fn; args: readonly Node[] }[];
  readonly pos: number;
}

const SLEEP_NAME = /^(?:sleep|delay|wait|pause|snooze|backoff)(?:ms|millis|milliseconds)?$/i;

/** Constraint on getting from a failure to the next attempt: `test` must evaluate to `want`. */
interface Constraint {
  readonly test: Node;
  readonly want: boolean;
  /** Evaluated at the start of the next attempt (a loop test, a guard before the operation). */
  readonly next: boolean;
  readonly loopTest?: boolean;
}

interface Shape {
  readonly region: Region;
  readonly operation: Node;
  readonly constraints: Constraint[];
  /** Conditions under which the attempt throws into a catch that retries everything. */
  readonly throwGuards: Node[];
  readonly sleeps: Sleep[];
  readonly opPos: number;
}

const STATUSES = [200, ...Array.from({ length: 200 }, (_, i) => 400 + i)];

class Detector {
  constructor(private readonly a: Analyzer) {}

  private get ctx() {
    return this.a.ctx;
  }

  run(): RetrySite[] {
    const sites: RetrySite[] = [];
    const loops = new Set<Loop>();
    // Every `catch` has a scope: the scope analysis lists them without a look at the text.
    for (const handler of catchClauses(this.a.sourceCode)) {
      const loop = nearestLoop(handler.parent);
      if (loop) loops.add(loop);
    }
    // `res.ok` / `err.status` in a loop: found from the words, not from every member expression.
    for (const id of nodesAtWord(this.a.sourceCode, STATUS_WORD, isStatusProperty, { atEnd: true })) {
      const loop = nearestLoop(id.parent!);
      if (loop) loops.add(loop);
    }
    const within = this.a.bound?.fn;
    for (const loop of loops) {
      if (within && !contains(within, loop)) continue;
      const s = this.guard(() => this.loopSite(loop));
      if (s) sites.push(s);
    }
    sites.push(...this.recursionSites());
    return sites.sort((x, y) => x.node.range[0] - y.node.range[0]);
  }

  /** One construct's analysis must not cost the others theirs. */
  private guard<R>(f: () => R | undefined): R | undefined {
    try {
      return f();
    } catch (error) {
      if (process.env['SAFE_RETRY_STRICT_ANALYSIS']) throw error;
      return undefined;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Sleeps

  sleepOf(raw: Node, depth = 0): Sleep | undefined {
    const expr = unwrap(raw);
    if (depth > 4) return undefined;
    if (expr.type === T.NewExpression) {
      const callee = unwrap(expr.callee);
      if (callee.type !== T.Identifier || callee.name !== 'Promise') return undefined;
      const executor = expr.arguments[0];
      if (!executor || (executor.type !== T.ArrowFunctionExpression && executor.type !== T.FunctionExpression)) return undefined;
      const timer = this.timerInExecutor(executor);
      if (timer === 'unreadable') return { node: expr, expr: undefined, frames: [], pos: expr.range[0] };
      return timer ? { node: timer.arguments[1] ?? timer, expr: timer.arguments[1], frames: [], pos: expr.range[0] } : undefined;
    }
    if (expr.type !== T.CallExpression) return undefined;
    const callee = calleeOf(expr);
    const args = expr.arguments as Node[];
    const first = args[0];
    const plain = (e: Node | undefined): Sleep => ({ node: first ?? expr, expr: e, frames: [], pos: expr.range[0] });
    const ref = this.ctx.imports.resolve(callee);
    if (ref) {
      if (ref.module === 'timers/promises' && (ref.path === 'setTimeout' || ref.path === 'scheduler.wait')) return plain(first);
      if (ref.module === 'bluebird' && ref.path === 'delay') return plain(first);
      if (ref.module === 'delay' && (ref.path === 'default' || ref.path === 'module')) return plain(first);
    }
    if (callee.type === T.MemberExpression && !callee.computed && callee.property.type === T.Identifier) {
      const obj = unwrap(callee.object);
      // Native promises have no `delay`: `Promise.delay(ms)` is Bluebird's.
      if (callee.property.name === 'delay' && obj.type === T.Identifier && obj.name === 'Promise') return plain(first);
      if (ref) return SLEEP_NAME.test(callee.property.name) ? this.named(callee.property.name, expr, first) : undefined;
      return SLEEP_NAME.test(callee.property.name) ? this.named(callee.property.name, expr, first) : undefined;
    }
    if (callee.type !== T.Identifier) return undefined;
    const variable = this.a.variableOf(callee);
    if (variable && variable.defs.length > 0 && !ref) {
      const fn = this.a.localFunction(variable);
      if (fn) {
        const inner = this.sleepInBody(fn, depth);
        if (!inner) return undefined;
        return { node: first ?? expr, expr: inner.expr, frames: [{ fn, args }, ...inner.frames], pos: expr.range[0] };
      }
      const init = constInitializer(variable);
      if (init && isPromisifiedTimeout(unwrap(init))) return plain(first);
      if (init) return undefined;
    }
    if (ref && ref.path !== 'default' && ref.path !== 'module' && !SLEEP_NAME.test(ref.path.split('.').pop() ?? '') && !SLEEP_NAME.test(callee.name)) return undefined;
    return SLEEP_NAME.test(callee.name) ? this.named(callee.name, expr, first) : undefined;
  }

  /** A helper we cannot see: `sleep/delay/wait/pause(ms)` take milliseconds; `backoff(n)` takes who knows what. */
  private named(name: string, call: Node, first: Node | undefined): Sleep {
    const readable = !/backoff/i.test(name) && !!first;
    return { node: first ?? call, expr: readable ? first : undefined, frames: [], pos: call.range[0] };
  }

  private sleepInBody(fn: Fn, depth: number): Sleep | undefined {
    const body = fn.body;
    if (!body) return undefined;
    if (body.type !== T.BlockStatement) return this.sleepOf(body, depth + 1);
    const statements = body.body.filter((s) => s.type !== T.VariableDeclaration);
    if (statements.length !== 1) return undefined;
    const only = statements[0]!;
    let e: Node | null | undefined;
    if (only.type === T.ReturnStatement) e = only.argument;
    else if (only.type === T.ExpressionStatement) e = only.expression;
    if (!e) return undefined;
    const inner = unwrap(e);
    return this.sleepOf(inner.type === T.AwaitExpression ? inner.argument : inner, depth + 1);
  }

  /** `resolve => setTimeout(resolve, ms)` / `(r) => { setTimeout(() => r(), ms); }` */
  private timerInExecutor(executor: TSESTree.ArrowFunctionExpression | TSESTree.FunctionExpression): TSESTree.CallExpression | 'unreadable' | undefined {
    const resolve = executor.params[0];
    if (resolve?.type !== T.Identifier) return undefined;
    const candidates: Node[] = [];
    walkAll(executor.body, (n) => { if (n.type === T.CallExpression) candidates.push(n); }, true);
    let timers = 0;
    for (const c of candidates) {
      const call = unwrap(c);
      if (call.type !== T.CallExpression || !this.isGlobalTimeout(call)) continue;
      timers++;
      const cb = call.arguments[0] && unwrap(call.arguments[0]);
      if (!cb) continue;
      if (cb.type === T.Identifier && cb.name === resolve.name) return call;
      if ((cb.type === T.ArrowFunctionExpression || cb.type === T.FunctionExpression)) {
        const b = cb.body.type === T.BlockStatement ? (cb.body.body.length === 1 && cb.body.body[0]!.type === T.ExpressionStatement ? cb.body.body[0]!.expression : undefined) : cb.body;
        const inner = b && unwrap(b);
        if (inner?.type === T.CallExpression && unwrap(inner.callee).type === T.Identifier && (unwrap(inner.callee) as TSESTree.Identifier).name === resolve.name) return call;
      }
    }
    // A timer that settles the promise some other way is still a wait, of a length we cannot read.
    return timers > 0 ? 'unreadable' : undefined;
  }

  isGlobalTimeout(call: TSESTree.CallExpression): boolean {
    const callee = unwrap(call.callee);
    if (callee.type === T.Identifier) return callee.name === 'setTimeout' && !this.a.variableOf(callee)?.defs.length;
    return callee.type === T.MemberExpression && !callee.computed && callee.property.type === T.Identifier && callee.property.name === 'setTimeout' &&
      unwrap(callee.object).type === T.Identifier && ['window', 'globalThis', 'global', 'self'].includes((unwrap(callee.object) as TSESTree.Identifier).name);
  }

  private isSleepCall(n: Node): boolean {
    return !!this.sleepOf(n);
  }

  // -------------------------------------------------------------------------------------------
  // Loops

  private loopSite(loop: Loop): RetrySite | undefined {
    const scan = scanLoop(loop);
    const region = this.loopRegion(loop, scan);
    let shape: Shape | undefined;
    for (const t of scan.tries) {
      shape = this.tryShape(loop, scan, t, region);
      if (shape) break;
    }
    shape ??= this.responseShape(loop, scan, region);
    if (!shape) return undefined;
    const label = loop.type === T.ForStatement ? 'for loop' : loop.type === T.WhileStatement ? 'while loop' : 'do...while loop';
    return this.buildSite(shape, { node: loop, reportNode: loop.test ?? loop, label });
  }

  private loopRegion(loop: Loop, scan: LoopScan): Region {
    const vars = new Map<Variable, VarModel>();
    const candidates: Variable[] = [];
    if (loop.type === T.ForStatement && loop.init?.type === T.VariableDeclaration) {
      for (const d of loop.init.declarations) {
        try {
          candidates.push(...(this.a.sourceCode.scopeManager?.getDeclaredVariables(d) ?? []));
        } catch { /* no scope information: no counters */ }
      }
    }
    for (const id of scan.writes) {
      const v = this.a.variableOf(id);
      if (v) candidates.push(v);
    }
    for (const v of new Set(candidates)) {
      const def = v.defs[0];
      if (!def || v.defs.length !== 1) continue;
      const declaredInInit = loop.type === T.ForStatement && !!loop.init && contains(loop.init, def.name as Node);
      // Per-iteration locals are not carried from one attempt to the next.
      if (!declaredInInit && contains(loop.body, def.name as Node)) continue;
      const writes = v.references.filter((r) => r.isWrite() && contains(loop, r.identifier as Node) && !(declaredInInit && r.init));
      if (writes.length === 0) continue;
      const write = writes.length === 1 ? writeExpression(writes[0]!.identifier as Node) : 'multi';
      const outsideWrites = v.references.some((r) => r.isWrite() && !r.init && !contains(loop, r.identifier as Node));
      const init = declaredInInit ? { expr: (def.node as TSESTree.VariableDeclarator).init ?? undefined } : outsideWrites ? { expr: undefined, value: UNKNOWN as Val } : this.initOf(v);
      vars.set(v, { variable: v, init, write, step: write === 'multi' ? undefined : this.stepOf(write, v), memo: new Map() });
    }
    return { kind: 'loop', root: loop, loop, vars, roots: new Set() };
  }

  /** The value a variable holds before the construct starts: its initialiser or a parameter default. */
  private initOf(v: Variable): VarModel['init'] {
    const def = v.defs[0]!;
    if (this.a.isBoundParameter(v)) return { expr: undefined, value: this.a.boundParameter(def.name as Node, this.rootEnv()) };
    if (def.type === 'Variable') {
      const d = def.node as TSESTree.VariableDeclarator;
      if (d.id === def.name) return d.init ? { expr: d.init } : { expr: undefined, value: undefined };
    }
    const name = def.name as Node;
    if (name.parent?.type === T.AssignmentPattern && name.parent.left === name) return { expr: name.parent.right };
    return { expr: undefined };
  }

  private stepOf(write: TSESTree.UpdateExpression | TSESTree.AssignmentExpression | undefined, v: Variable): number | undefined {
    if (!write) return undefined;
    if (write.type === T.UpdateExpression) return write.operator === '++' ? 1 : -1;
    if (write.operator === '+=' || write.operator === '-=') {
      const c = this.ctx.evaluator.number(write.right);
      return isKnown(c) ? (write.operator === '+=' ? c : -c) : undefined;
    }
    if (write.operator === '=') return this.linearStep(write.right, v);
    return undefined;
  }

  /** `x + 1`, `1 + x`, `x - 1`, `--x`: the constant change per attempt; 0 for `x` itself. */
  linearStep(expr: Node, v: Variable): number | undefined {
    const e = unwrap(expr);
    const isSelf = (n: Node) => { const u = unwrap(n); return u.type === T.Identifier && this.a.variableOf(u) === v; };
    if (isSelf(e)) return 0;
    if (e.type === T.UpdateExpression && isSelf(e.argument)) return e.prefix ? (e.operator === '++' ? 1 : -1) : 0;
    if (e.type === T.BinaryExpression && (e.operator === '+' || e.operator === '-')) {
      if (isSelf(e.left)) {
        const c = this.ctx.evaluator.number(e.right);
        return isKnown(c) ? (e.operator === '+' ? c : -c) : undefined;
      }
      if (e.operator === '+' && isSelf(e.right)) {
        const c = this.ctx.evaluator.number(e.left);
        return isKnown(c) ? c : undefined;
      }
    }
    return undefined;
  }

  private tryShape(loop: Loop, scan: LoopScan, t: TSESTree.TryStatement, region: Region): Shape | undefined {
    const handler = t.handler;
    if (!handler) return undefined;
    const inTry = (n: Node) => contains(t.block, n);
    const inCatch = (n: Node) => contains(handler.body, n);
    const operation = this.operationOf(scan.awaits.filter((w) => inTry(w)), t.block);
    if (!operation) return undefined;
    // The failure path must go on to another attempt.
    if (exitOf(handler.body, loop)) return undefined;
    const successInTry = scan.returns.some(inTry) || scan.breaks.some(inTry) || this.successFlag(loop, scan, inTry);
    let successAfter = false;
    if (successInTry && !exitOf(t.block, loop) && !this.successFlag(loop, scan, inTry)) {
      // The attempt can end without an exception and without leaving: only a retry if that
      // happens on a failed response (`if (res.ok) return res;`), otherwise it is polling.
      const responses = new Set([...region.roots, ...this.responseVars(scan.awaits.filter(inTry), loop)]);
      const r: Region = { ...region, roots: responses };
      const leaves = scan.ifs.filter((i) => inTry(i) && (exitOf(i.consequent, loop) === 'leave' || exitOf(i.alternate, loop) === 'leave'))
        .map((i) => this.guardOf(i, loop, -Infinity, r)).filter((c): c is Constraint => !!c);
      if (leaves.length === 0 || this.retriedAt(r, leaves, 200) !== false) return undefined;
    }
    if (!successInTry) {
      const rest = following(t, loop.body)[0] ?? [];
      const direct = t.parent === loop.body || t.parent?.parent === loop;
      successAfter = direct && !!sequenceExits(rest, loop) && scan.continues.some(inCatch);
      if (!successAfter) return undefined;
    }
    if (this.iteratesCollection(region, scan, operation)) return undefined;
    // A write that only happens once the operation succeeded (`done = true`, `result = await op()`)
    // does not happen on the attempts that lead to a retry.
    for (const [v, vm] of region.vars) {
      const w = vm.write;
      if (w && w !== 'multi' && inTry(w) && w.range[1] > operation.range[0]) {
        region.vars.set(v, { ...vm, write: undefined, step: undefined, memo: new Map() });
      }
    }
    const roots = region.roots;
    if (handler.param?.type === T.Identifier) {
      const v = this.a.variableOf(handler.param);
      if (v) roots.add(v);
    }
    for (const v of this.responseVars(scan.awaits.filter(inTry), loop)) roots.add(v);
    const opPos = this.a.effPos(operation, region);
    const constraints = this.loopTestConstraint(loop);
    const throwGuards: Node[] = [];
    for (const i of scan.ifs) {
      if (inTry(i)) {
        const c = this.guardOf(i, loop, opPos, region);
        if (!c) continue;
        if (exitOf(i.consequent, loop) === 'throw' && !i.alternate) throwGuards.push(i.test);
        else if (exitOf(i.consequent, loop) === 'leave' || exitOf(i.alternate, loop) === 'leave') constraints.push(c);
        continue;
      }
      const c = this.guardOf(i, loop, opPos, region);
      if (c) constraints.push(c);
    }
    const sleeps = this.loopSleeps(scan, inTry, operation);
    return { region, operation, constraints, throwGuards, sleeps, opPos };
  }

  /** `while (!done && ...)` with `done = true` in the try block. */
  private successFlag(loop: Loop, scan: LoopScan, inTry: (n: Node) => boolean): boolean {
    if (!loop.test) return false;
    const inTest = new Set<Variable>();
    walkExpression(loop.test, (n) => {
      if (n.type === T.Identifier) { const v = this.a.variableOf(n); if (v) inTest.add(v); }
    });
    return scan.writes.some((w) => {
      const v = this.a.variableOf(w);
      if (!v || !inTry(w) || !inTest.has(v)) return false;
      // Set to a constant (`done = true`): an accumulator (`bytes += n`) is progress, not success.
      const assign = w.parent;
      if (assign?.type !== T.AssignmentExpression || assign.operator !== '=' || assign.left !== w) return false;
      const set = this.ctx.evaluator.evaluate(assign.right);
      if (set === UNKNOWN || (typeof set === 'object' && set !== null)) return false;
      // A flag, not state the loop steps through: nothing else in the loop writes it.
      return v.references.filter((r) => r.isWrite() && contains(loop, r.identifier as Node)).length === 1;
    });
  }

  /**
   * A loop that feeds each iteration a different input is a walk, not a retry: a counter used
   * as an index before the operation (`items[i]`, `servers[i]`), or an input variable the loop
   * moves on (`dir = path.dirname(dir)`) read by the operation.
   */
  private iteratesCollection(region: Region, scan: LoopScan, operation: Node): boolean {
    const counters = [...region.vars.values()].filter((vm) => vm.step !== undefined && vm.step !== 0).map((vm) => vm.variable);
    for (const m of counters.length ? scan.computed : []) {
      if (m.range[0] > operation.range[1]) continue;
      let hit = false;
      walkExpression(m.property, (n) => {
        if (n.type === T.Identifier && counters.includes(this.a.variableOf(n)!)) hit = true;
      });
      if (hit) return true;
    }
    let moves = false;
    const visit = (expr: Node, depth: number) => walkExpression(expr, (n) => {
      if (moves || n.type !== T.Identifier) return;
      const v = this.a.variableOf(n);
      if (!v) return;
      const vm = region.vars.get(v);
      if (vm) {
        if (!this.isCounter(vm) && vm.write !== undefined && !region.roots.has(v)) moves = true;
        return;
      }
      const init = depth < 3 ? constInitializer(v) : undefined;
      if (init && contains(region.root, init) && init.range[1] <= operation.range[0]) visit(init, depth + 1);
    });
    if (operation.type === T.CallExpression || operation.type === T.NewExpression) {
      for (const a of operation.arguments) visit(a, 0);
      visit(calleeOf(operation as TSESTree.CallExpression), 0);
    }
    return moves;
  }

  /** Variables holding the awaited result of a call: the responses whose status a guard reads. */
  private responseVars(awaits: readonly TSESTree.AwaitExpression[], scope: Node): Variable[] {
    const out: Variable[] = [];
    for (const w of awaits) {
      if (this.isSleepCall(w.argument)) continue;
      const p = w.parent;
      let id: Node | undefined;
      if (p?.type === T.VariableDeclarator && p.init === w) id = p.id;
      else if (p?.type === T.AssignmentExpression && p.right === w) id = p.left;
      if (id?.type !== T.Identifier) continue;
      const v = this.a.variableOf(id);
      if (v && contains(scope, w)) out.push(v);
    }
    return out;
  }

  private loopTestConstraint(loop: Loop): Constraint[] {
    if (!loop.test) return [];
    return [{ test: loop.test, want: true, next: loop.type !== T.DoWhileStatement, loopTest: true }];
  }

  /** An `if` on the failure path that leaves the loop on one side: a bound or a filter. */
  private guardOf(i: TSESTree.IfStatement, loop: Loop | undefined, opPos: number, region: Region): Constraint | undefined {
    const next = this.a.effPos(i, region) < opPos;
    const a = exitOf(i.consequent, loop);
    const b = exitOf(i.alternate, loop);
    if (a && !b) return { test: i.test, want: false, next };
    if (b && !a) return { test: i.test, want: true, next };
    if (!a && !b && loop && continues(i.consequent, loop) && !i.alternate) {
      const rest = following(i, loop.body)[0] ?? [];
      if (sequenceExits(rest, loop)) return { test: i.test, want: true, next };
    }
    return undefined;
  }

  /**
   * The waits on the failure path. An awaited call we cannot see into (`await onFailure(e)`) may
   * wait too: without a recognised sleep, the schedule is then unknown rather than "no delay".
   */
  private loopSleeps(scan: LoopScan, exclude: (n: Node) => boolean, operation: Node, roots: ReadonlySet<Variable> = new Set()): Sleep[] {
    const out: Sleep[] = [];
    let opaque: TSESTree.AwaitExpression | undefined;
    for (const w of scan.awaits) {
      if (exclude(w) || contains(w, operation)) continue;
      const s = this.sleepOf(w.argument);
      if (s) {
        out.push(s);
        continue;
      }
      if (w.range[0] < operation.range[0]) continue;
      if (this.onRoot(w.argument, roots)) continue;
      opaque ??= w;
    }
    if (out.length === 0 && opaque) out.push({ node: opaque.argument, expr: undefined, frames: [], pos: opaque.range[0] });
    return out;
  }

  /** `await res.text()`: reading the failed response, not waiting. */
  private onRoot(expr: Node, roots: ReadonlySet<Variable>): boolean {
    let n = unwrap(expr);
    while (n.type === T.CallExpression || n.type === T.MemberExpression) n = unwrap(n.type === T.CallExpression ? n.callee : n.object);
    if (n.type !== T.Identifier) return false;
    const v = this.a.variableOf(n);
    return !!v && roots.has(v);
  }

  /** The call being repeated: the first awaited call that is not a sleep, else the first call statement. */
  private operationOf(awaits: readonly TSESTree.AwaitExpression[], block: TSESTree.BlockStatement, self?: Node): Node | undefined {
    for (const w of awaits) {
      const root = chainRoot(w.argument);
      if ((root.type === T.CallExpression || root.type === T.NewExpression) && !this.isSleepCall(root) && !this.isSleepCall(w.argument) && root !== self) return root;
    }
    for (const s of block.body) {
      let e: Node | null | undefined;
      if (s.type === T.ExpressionStatement) e = s.expression;
      else if (s.type === T.ReturnStatement) e = s.argument;
      else if (s.type === T.VariableDeclaration) e = s.declarations[0]?.init;
      if (!e) continue;
      const root = chainRoot(e);
      if (root.type !== T.CallExpression || this.isSleepCall(root) || root === self) continue;
      const name = calleeName(root);
      const callee = unwrap(root.callee);
      const object = callee.type === T.MemberExpression ? unwrap(callee.object) : undefined;
      if (object?.type === T.Identifier && /^(?:console|logger|log)$/.test(object.name)) continue;
      if (name && /^(?:log|debug|info|warn|error|trace)$/.test(name)) continue;
      return root;
    }
    return undefined;
  }

  private responseShape(loop: Loop, scan: LoopScan, region: Region): Shape | undefined {
    const candidates = new Map<Variable, Node>();
    for (const m of scan.statusMembers) {
      const obj = unwrap(m.object);
      if (obj.type !== T.Identifier) continue;
      const v = this.a.variableOf(obj);
      if (!v || candidates.has(v)) continue;
      const op = this.assignedCall(v, loop);
      if (op) candidates.set(v, op);
    }
    for (const [v, operation] of candidates) {
      const roots = new Set<Variable>([v]);
      const r: Region = { ...region, roots };
      if (this.iteratesCollection(r, scan, operation)) continue;
      const opPos = this.a.effPos(operation, r);
      const constraints = this.loopTestConstraint(loop);
      for (const i of scan.ifs) {
        const c = this.guardOf(i, loop, opPos, r);
        if (c) constraints.push(c);
      }
      // A retry: the loop leaves on success (2xx) and goes on for some failure status.
      const filters = constraints.filter((c) => this.isFilterCond(c.test, r));
      if (filters.length === 0) continue;
      if (this.retriedAt(r, filters, 200) !== false) continue;
      if (!STATUSES.some((s) => s >= 400 && this.retriedAt(r, filters, s) !== false)) continue;
      const sleeps = this.loopSleeps(scan, () => false, operation, roots);
      return { region: r, operation, constraints, throwGuards: [], sleeps, opPos };
    }
    return undefined;
  }

  /** `const res = await fetch(u)` / `res = await fetch(u)` inside the loop: the repeated call. */
  private assignedCall(v: Variable, loop: Loop): Node | undefined {
    for (const r of v.references) {
      if (!r.isWrite() || !contains(loop, r.identifier as Node)) continue;
      const id = r.identifier as Node;
      const p = id.parent;
      let value: Node | null | undefined;
      if (p?.type === T.VariableDeclarator && p.id === id) value = p.init;
      else if (p?.type === T.AssignmentExpression && p.left === id && p.operator === '=') value = p.right;
      if (!value) continue;
      const u = unwrap(value);
      if (u.type !== T.AwaitExpression) continue;
      const root = chainRoot(u.argument);
      if (root.type === T.CallExpression && !this.isSleepCall(root)) return root;
    }
    return undefined;
  }

  // -------------------------------------------------------------------------------------------
  // Recursion

  private recursionSites(): RetrySite[] {
    const out: RetrySite[] = [];
    const fns: Fn[] = [
      ...this.ctx.nodesOfType(T.FunctionDeclaration),
      ...this.ctx.nodesOfType(T.FunctionExpression),
      ...this.ctx.nodesOfType(T.ArrowFunctionExpression),
    ];
    const within = this.a.bound?.fn;
    for (const fn of fns) {
      if (within && !contains(within, fn)) continue;
      const self = this.selfReferences(fn);
      if (!self) continue;
      // Every self-call must follow a failure: a function that also calls itself on success
      // (a periodic job, a tree walk, pagination) is not a retry.
      let first: RetrySite | undefined;
      for (const ref of self.refs) {
        const s = this.guard(() => this.recursionSite(fn, self.name, ref, self.variable));
        if (!s) { first = undefined; break; }
        first ??= s;
      }
      if (first) out.push(first);
    }
    return out;
  }

  /** The references to a function from inside itself: `f(...)`, `this.f(...)`, `setTimeout(f, ms)`. */
  private selfReferences(fn: Fn): { name: string; refs: Node[]; variable?: Variable | undefined } | undefined {
    const body = fn.body;
    if (!body) return undefined;
    const p = fn.parent;
    // A function whose body never spells a name it goes by cannot call itself: most functions end
    // here, on a substring search, before any scope lookup or walk over references.
    const names = [fn.id?.name, p?.type === T.VariableDeclarator && p.id.type === T.Identifier ? p.id.name : undefined,
      (p?.type === T.MethodDefinition || p?.type === T.PropertyDefinition) && p.key.type === T.Identifier ? p.key.name : undefined];
    const text = this.a.sourceCode.text.slice(body.range[0], body.range[1]);
    if (!names.some((n) => n !== undefined && text.includes(n))) return undefined;
    let variable: Variable | undefined;
    let name: string | undefined;
    const sm = this.a.sourceCode.scopeManager;
    if ((fn.type === T.FunctionDeclaration || fn.type === T.FunctionExpression) && fn.id) {
      name = fn.id.name;
      try { variable = sm?.getDeclaredVariables(fn).find((v) => v.name === name && v.defs.some((d) => d.type === 'FunctionName')); } catch { variable = undefined; }
    }
    if (!variable && p?.type === T.VariableDeclarator && p.init === fn && p.id.type === T.Identifier) {
      name = p.id.name;
      try { variable = sm?.getDeclaredVariables(p)[0]; } catch { variable = undefined; }
    }
    if (variable) {
      const refs = variable.references.filter((r) => !r.isWrite() && contains(body, r.identifier as Node)).map((r) => r.identifier as Node);
      if (refs.length) return { name: name!, refs, variable };
      return undefined;
    }
    if ((p?.type === T.MethodDefinition || p?.type === T.PropertyDefinition) && p.value === fn && !p.computed && p.key.type === T.Identifier) {
      const method = p.key.name;
      const refs = thisCallsIn(this.a.sourceCode, body, method).map((c) => c.callee as Node);
      return refs.length ? { name: method, refs } : undefined;
    }
    return undefined;
  }

  private recursionSite(fn: Fn, name: string, ref: Node, variable: Variable | undefined): RetrySite | undefined {
    // The recursive call and what it passes on.
    let call: TSESTree.CallExpression | undefined;
    let args: readonly Node[] = [];
    const sleeps: Sleep[] = [];
    const refParent = ref.parent;
    if (refParent?.type === T.CallExpression && refParent.callee === ref) {
      call = refParent;
      args = refParent.arguments as Node[];
    } else if (refParent?.type === T.CallExpression && refParent.arguments[0] === ref && this.isGlobalTimeout(refParent)) {
      call = refParent;
      args = refParent.arguments.slice(2) as Node[];
      const ms = refParent.arguments[1];
      sleeps.push({ node: ms ?? refParent, expr: ms, frames: [], pos: refParent.range[0] });
    } else if (refParent?.type === T.CallExpression && refParent.arguments[0] === ref && methodName(refParent) === 'then') {
      call = refParent;
      args = [];
      const callee = unwrap(refParent.callee) as TSESTree.MemberExpression;
      const s = this.sleepOf(callee.object);
      if (s) sleeps.push(s);
    } else return undefined;
    if (args.some((a) => a.type === T.SpreadElement)) return undefined;
    if (!this.passesInputsOn(fn, args)) return undefined;

    const constraints: Constraint[] = [];
    const roots = new Set<Variable>();
    let errVar: Variable | undefined;
    let operation: Node | undefined;
    let failure: 'catch' | 'promise' | 'callback' | 'response' | undefined;
    const paramVar = (p: Node | undefined, f: Fn) => (p?.type === T.Identifier ? this.a.paramVariable(f, p) : undefined);

    let child: Node = call;
    for (let p: Node | undefined = call.parent; p && child !== fn; child = p, p = p.parent) {
      if (p === fn) break;
      if (p.type === T.IfStatement) {
        if (child === p.consequent) constraints.push({ test: p.test, want: true, next: false });
        else if (child === p.alternate) constraints.push({ test: p.test, want: false, next: false });
      } else if (p.type === T.ConditionalExpression) {
        if (child === p.consequent) constraints.push({ test: p.test, want: true, next: false });
        else if (child === p.alternate) constraints.push({ test: p.test, want: false, next: false });
      } else if (p.type === T.LogicalExpression && child === p.right && p.operator !== '??') {
        constraints.push({ test: p.left, want: p.operator === '&&', next: false });
      } else if (p.type === T.BlockStatement || p.type === T.SwitchCase) {
        const body = (p.type === T.SwitchCase ? p.consequent : p.body) as TSESTree.Statement[];
        const i = body.indexOf(child as TSESTree.Statement);
        for (const st of body.slice(0, Math.max(0, i))) {
          if (st.type === T.IfStatement) {
            const c = this.guardOf(st, undefined, Infinity, { kind: 'recursion', root: fn, vars: new Map(), roots });
            if (c) constraints.push({ ...c, next: false });
          } else if (st.type === T.ExpressionStatement) {
            const e = unwrap(st.expression);
            const s = e.type === T.AwaitExpression ? this.sleepOf(e.argument) : undefined;
            if (s) sleeps.push(s);
          }
        }
      } else if (p.type === T.CatchClause && child === p.body) {
        if (!failure) {
          failure = 'catch';
          const v = paramVar(p.param ?? undefined, fn) ?? (p.param?.type === T.Identifier ? this.a.variableOf(p.param) : undefined);
          if (v) roots.add(v);
          const tryBlock = (p.parent as TSESTree.TryStatement).block;
          operation = this.operationOf(collectAwaits(tryBlock), tryBlock, call);
        }
      } else if (p.type === T.ArrowFunctionExpression || p.type === T.FunctionExpression) {
        const x = p;
        const c = x.parent;
        if (c?.type === T.NewExpression && unwrap(c.callee).type === T.Identifier && (unwrap(c.callee) as TSESTree.Identifier).name === 'Promise') continue;
        if (c?.type !== T.CallExpression) { if (failure) break; return undefined; }
        const m = methodName(c);
        const callee = unwrap(c.callee);
        const object = callee.type === T.MemberExpression ? callee.object : undefined;
        if (((m === 'catch' && c.arguments[0] === x) || (m === 'then' && c.arguments[1] === x)) && object) {
          if (!failure) {
            failure = 'promise';
            const v = paramVar(x.params[0], x);
            if (v) roots.add(v);
            operation = chainRoot(object);
          }
        } else if (m === 'then' && c.arguments[0] === x && object) {
          const s = this.sleepOf(object);
          if (s) sleeps.push(s);
          else if (!failure) {
            failure = 'response';
            const v = paramVar(x.params[0], x);
            if (v) roots.add(v);
            operation = chainRoot(object);
          }
        } else if (this.isGlobalTimeout(c) && c.arguments[0] === x) {
          const ms = c.arguments[1];
          sleeps.push({ node: ms ?? c, expr: ms, frames: [], pos: c.range[0] });
        } else if (c.arguments[c.arguments.length - 1] === x && x.params[0]?.type === T.Identifier && /^(?:err|error|e|ex|er|exc)$/i.test(x.params[0].name)) {
          if (!failure) {
            failure = 'callback';
            errVar = paramVar(x.params[0], x);
            if (errVar) roots.add(errVar);
            operation = c;
          }
        } else {
          if (failure) break;
          return undefined;
        }
      }
    }
    if (!failure) {
      // `const res = await fetch(u); if (!res.ok && n > 0) return f(n - 1)`
      for (const c of constraints) {
        walkExpression(c.test, (n) => {
          if (n.type !== T.MemberExpression || n.computed || n.property.type !== T.Identifier) return;
          if (n.property.name !== 'ok' && !STATUS_KEYS.has(n.property.name)) return;
          const obj = unwrap(n.object);
          if (obj.type !== T.Identifier) return;
          const v = this.a.variableOf(obj);
          const d = v?.defs[0]?.node;
          if (!v || d?.type !== T.VariableDeclarator || !d.init || !contains(fn, d)) return;
          const init = unwrap(d.init);
          if (init.type !== T.AwaitExpression) return;
          const root = chainRoot(init.argument);
          if (root.type !== T.CallExpression || this.isSleepCall(root)) return;
          roots.add(v);
          operation ??= root;
          failure = 'response';
        });
      }
    }
    if (!failure || !operation) return undefined;
    if (unwrap(operation) === call) return undefined;

    const region = this.recursionRegion(fn, args, variable, roots, errVar);
    // `parsers[index]` with `index` moving on: failing over to the next input, not retrying.
    if (this.readsCounterIndex(operation, region)) return undefined;
    // The retry must follow a failure: not on a 2xx response, not on a null error.
    const filters = constraints.filter((c) => this.isFilterCond(c.test, region));
    if (failure === 'response') {
      if (this.retriedAt(region, filters, 200) !== false) return undefined;
      if (!STATUSES.some((s) => s >= 400 && this.retriedAt(region, filters, s) !== false)) return undefined;
    } else if (failure === 'callback') {
      if (this.reachable(region, constraints, false) !== false) return undefined;
      if (this.reachable(region, constraints, true) === false) return undefined;
    }
    const shape: Shape = { region, operation, constraints, throwGuards: [], sleeps, opPos: -Infinity };
    const reportNode = ref.type === T.MemberExpression ? ref.property : ref;
    return this.buildSite(shape, { node: fn, reportNode, label: `recursive ${name}()` });
  }

  private readsCounterIndex(operation: Node, region: Region): boolean {
    let hit = false;
    walkExpression(operation, (n) => {
      if (hit || n.type !== T.MemberExpression || !n.computed) return;
      walkExpression(n.property, (x) => {
        if (x.type !== T.Identifier) return;
        const vm = region.vars.get(this.a.variableOf(x)!);
        if (vm && this.isCounter(vm)) hit = true;
      });
    });
    return hit;
  }

  /**
   * A retry calls itself with the same inputs, changing only counters (`retries - 1`,
   * `delay * 2`); `find(path.dirname(dir))` or `f(b, a)` recurse over something else.
   */
  private passesInputsOn(fn: Fn, args: readonly Node[]): boolean {
    const params = fn.params.map((p) => {
      const t = p.type === T.AssignmentPattern ? p.left : p;
      return t.type === T.Identifier ? this.a.paramVariable(fn, t) : undefined;
    });
    return args.every((arg, i) => {
      let ok = true;
      walkExpression(arg, (n) => {
        if (!ok) return;
        if (n.type === T.CallExpression) {
          const q = this.ctx.evaluator.qualifiedName(calleeOf(n));
          if (!q || !q.startsWith('Math.')) ok = false;
        } else if (n.type === T.Identifier) {
          const v = this.a.variableOf(n);
          const at = v ? params.indexOf(v) : -1;
          if (at >= 0 && at !== i) ok = false;
        }
      });
      return ok;
    });
  }

  private recursionRegion(fn: Fn, args: readonly Node[], variable: Variable | undefined, roots: Set<Variable>, errVar: Variable | undefined): Region {
    const vars = new Map<Variable, VarModel>();
    const external = variable
      ? variable.references.filter((r) => !r.isWrite() && !contains(fn, r.identifier as Node) && r.identifier.parent?.type === T.CallExpression && (r.identifier.parent as TSESTree.CallExpression).callee === r.identifier).map((r) => r.identifier.parent as TSESTree.CallExpression)
      : [];
    fn.params.forEach((p, i) => {
      const target = p.type === T.AssignmentPattern ? p.left : p;
      if (target.type !== T.Identifier) return;
      const v = this.a.paramVariable(fn, target);
      if (!v) return;
      const next: Node | undefined = args[i] ?? (p.type === T.AssignmentPattern ? p.right : undefined);
      const inner = v.references.filter((r) => r.isWrite() && !r.init && contains(fn, r.identifier as Node));
      const write = inner.length === 0 ? undefined : inner.length === 1 ? writeExpression(inner[0]!.identifier as Node) : 'multi';
      const init = this.startOf(p, i, external);
      const step = write ? undefined : next ? this.linearStep(next, v) : undefined;
      vars.set(v, { variable: v, init, write, next, step, memo: new Map() });
    });
    // Counters kept outside the function: `let attempt = 0; const run = () => op().catch(() => { attempt++; ... run() })`.
    const writes: TSESTree.Identifier[] = [];
    if (fn.body) walkAll(fn.body, (n) => {
      if (n.type === T.UpdateExpression && n.argument.type === T.Identifier) writes.push(n.argument);
      else if (n.type === T.AssignmentExpression && n.left.type === T.Identifier) writes.push(n.left);
    });
    for (const id of writes) {
      const v = this.a.variableOf(id);
      if (!v || vars.has(v) || v.defs.length !== 1 || contains(fn, v.defs[0]!.name as Node)) continue;
      const inner = v.references.filter((r) => r.isWrite() && !r.init && contains(fn, r.identifier as Node));
      const outsideWrites = v.references.some((r) => r.isWrite() && !r.init && !contains(fn, r.identifier as Node));
      const write = inner.length === 1 ? writeExpression(inner[0]!.identifier as Node) : 'multi';
      vars.set(v, {
        variable: v,
        init: outsideWrites ? { expr: undefined, value: UNKNOWN } : this.initOf(v),
        write,
        step: write === 'multi' ? undefined : this.stepOf(write, v),
        memo: new Map(),
      });
    }
    return { kind: 'recursion', root: fn, vars, roots, errVar };
  }

  /** A parameter's value on the first call: what every call from outside passes, else its default. */
  private startOf(p: TSESTree.Parameter, i: number, external: readonly TSESTree.CallExpression[]): VarModel['init'] {
    const fallback = p.type === T.AssignmentPattern ? p.right : undefined;
    const target = p.type === T.AssignmentPattern ? p.left : p;
    if (this.a.bound && p.parent === this.a.bound.fn && target.type === T.Identifier) {
      return { expr: undefined, value: this.a.boundParameter(target, this.rootEnv()) };
    }
    if (external.length > 0) {
      let node: Node | undefined;
      let value: Maybe<StaticValue> | undefined;
      for (const c of external) {
        if (c.arguments.slice(0, i + 1).some((a) => a.type === T.SpreadElement)) return { expr: undefined, value: UNKNOWN };
        const arg = c.arguments[i] as Node | undefined;
        const v = arg ? this.ctx.evaluator.evaluate(arg) : fallback ? this.ctx.evaluator.evaluate(fallback) : undefined;
        if (v === UNKNOWN || (value !== undefined && v !== value)) return { expr: undefined, value: UNKNOWN };
        value = v;
        node ??= arg ?? fallback;
      }
      return { expr: node, value: fromStatic(value) };
    }
    return fallback ? { expr: fallback } : { expr: undefined };
  }

  // -------------------------------------------------------------------------------------------
  // Reading a shape into a site

  private buildSite(shape: Shape, where: { node: Node; reportNode: Node; label: string }): RetrySite {
    const attempts = this.attempts(shape);
    const { delay, jitter } = this.schedule(shape, attempts.value);
    return site({
      library: 'hand-written',
      label: where.label,
      node: where.node,
      reportNode: where.reportNode,
      attempts,
      delay,
      jitter,
      errorFilter: this.filter(shape),
      operation: shape.operation,
    });
  }

  /** An environment for values read before any attempt (a bound helper's arguments). */
  private rootEnv(): Env {
    return this.env({ kind: 'loop', root: this.ctx.sourceCode.ast, vars: new Map(), roots: new Set() }, 0);
  }

  private env(region: Region, k: number, extra: Partial<Env> = {}): Env {
    return { region, k, flags: { random: false, unknown: false }, depth: 0, ...extra };
  }

  private holds(c: Constraint, region: Region, k: number, extra: Partial<Env> = {}): boolean | typeof UNKNOWN {
    const v = truth(this.a.eval(c.test, this.env(region, k + (c.next ? 1 : 0), extra)));
    return v === UNKNOWN ? UNKNOWN : v === c.want;
  }

  /** Total attempts: the first attempt after which a constraint certainly fails. */
  private attempts(shape: Shape): Setting<number> {
    const { region, constraints } = shape;
    const bounded = constraints.filter((c) => this.refsCounter(c.test, region));
    const sawUnknown = new Set<Constraint>();
    const exitAt = (k: number): Constraint | undefined => {
      for (const c of constraints) {
        const h = this.holds(c, region, k);
        if (h === UNKNOWN) sawUnknown.add(c);
        else if (!h) return c;
      }
      return undefined;
    };
    const found = (k: number, c: Constraint): Setting<number> => ({ value: Math.max(1, k), node: this.boundNode(c, region) });
    const scanTo = bounded.length ? 64 : 2;
    for (let k = 1; k <= scanTo; k++) {
      const c = exitAt(k);
      if (c) return found(k, c);
    }
    if (bounded.length && bounded.every((c) => this.linearOnly(c.test, region))) {
      let lo = scanTo;
      for (let e = 7; e <= 30; e++) {
        const k = 2 ** e;
        if (exitAt(k)) {
          let hi = k;
          while (hi - lo > 1) {
            const mid = Math.floor((lo + hi) / 2);
            if (exitAt(mid)) hi = mid; else lo = mid;
          }
          const c = exitAt(hi)!;
          return found(hi, c);
        }
        lo = k;
      }
    }
    for (const c of sawUnknown) {
      if (bounded.includes(c)) return { value: UNKNOWN, node: this.boundNode(c, region) };
      if (c.loopTest && !this.neutralTest(c.test, region)) return { value: UNKNOWN, node: c.test };
      // An exit we cannot read that is not about the error (a deadline, an abort signal, a flag
      // a timer sets) may well bound the loop.
      if (!c.loopTest && this.unreadableBound(c.test, region)) return { value: UNKNOWN, node: c.test };
    }
    for (const c of bounded) if (this.hasEquality(c.test)) return { value: UNKNOWN, node: c.test };
    return { value: Infinity };
  }

  /** A part of an exit condition that is neither a counter check nor about the error, and cannot be read. */
  private unreadableBound(test: Node, region: Region): boolean {
    const n = unwrap(test);
    if (n.type === T.UnaryExpression && n.operator === '!') return this.unreadableBound(n.argument, region);
    if (n.type === T.LogicalExpression) return this.unreadableBound(n.left, region) || this.unreadableBound(n.right, region);
    if (this.refsCounter(n, region) || this.isFilterCond(n, region)) return false;
    return this.a.eval(n, this.env(region, 1)) === UNKNOWN;
  }

  /** Whether every counter in a condition moves by a constant step (so the exponential search is sound). */
  private linearOnly(test: Node, region: Region): boolean {
    let ok = true;
    walkExpression(test, (n) => {
      if (n.type !== T.Identifier) return;
      const vm = region.vars.get(this.a.variableOf(n)!);
      if (vm && vm.step === undefined) ok = false;
    });
    return ok && !this.hasEquality(test);
  }

  private hasEquality(test: Node): boolean {
    let eq = false;
    walkExpression(test, (n) => {
      if (n.type === T.BinaryExpression && ['===', '==', '!==', '!='].includes(n.operator)) eq = true;
    });
    return eq;
  }

  /** A variable that counts attempts or accumulates (`attempt++`, `delay *= 2`, `retries - 1` passed on). */
  private isCounter(vm: VarModel): boolean {
    if (vm.step !== undefined) return vm.step !== 0;
    if (vm.next) return true;
    const w = vm.write;
    if (!w) return false;
    if (w === 'multi' || w.type === T.UpdateExpression || w.operator !== '=') return true;
    let self = false;
    walkExpression(w.right, (n) => { if (n.type === T.Identifier && this.a.variableOf(n) === vm.variable) self = true; });
    return self;
  }

  private refsCounter(test: Node, region: Region, depth = 0): boolean {
    let hit = false;
    walkExpression(test, (n) => {
      if (hit || n.type !== T.Identifier) return;
      const v = this.a.variableOf(n);
      if (!v) return;
      const vm = region.vars.get(v);
      if (vm) { if (this.isCounter(vm)) hit = true; return; }
      const init = depth < 4 ? constInitializer(v) : undefined;
      if (init && contains(region.root, init) && this.refsCounter(init, region, depth + 1)) hit = true;
    });
    return hit;
  }

  /** Loop tests that are about success, not a bound: `!done`, `!res.ok`, `true`. */
  private neutralTest(test: Node, region: Region): boolean {
    let neutral = true;
    walkExpression(test, (n) => {
      if (!neutral) return;
      if (n.type === T.CallExpression || n.type === T.ThisExpression || n.type === T.AwaitExpression) neutral = false;
      if (n.type === T.Identifier) {
        const parent = n.parent;
        if (parent?.type === T.MemberExpression && parent.property === n && !parent.computed) return;
        const v = this.a.variableOf(n);
        if (!v) { neutral = ['undefined', 'Infinity', 'NaN'].includes(n.name); return; }
        if (region.vars.has(v) || region.roots.has(v)) return;
        if (this.ctx.evaluator.evaluate(n) !== UNKNOWN) return;
        neutral = false;
      }
    });
    return neutral;
  }

  /** The node a person edits to change the bound: the limit of an increasing counter, the start of a decreasing one. */
  private boundNode(c: Constraint, region: Region): Node {
    let n = unwrap(c.test);
    for (let guard = 0; guard < 20; guard++) {
      if (n.type === T.UnaryExpression && n.operator === '!') { n = unwrap(n.argument); continue; }
      if (n.type === T.LogicalExpression) {
        const left = this.refsCounter(n.left, region);
        n = unwrap(left ? n.left : n.right);
        continue;
      }
      break;
    }
    const counter = this.counterIn(n, region);
    const decreasing = counter?.step !== undefined && counter.step < 0;
    if (decreasing) return counter.init.expr ?? n;
    if (n.type === T.BinaryExpression && n.left.type !== T.PrivateIdentifier) {
      const l = this.refsCounter(n.left, region);
      const r = this.refsCounter(n.right, region);
      if (l && !r) return n.right;
      if (r && !l) return n.left;
    }
    return n;
  }

  private counterIn(n: Node, region: Region): VarModel | undefined {
    let found: VarModel | undefined;
    walkExpression(n, (x) => {
      if (found || x.type !== T.Identifier) return;
      const vm = region.vars.get(this.a.variableOf(x)!);
      if (vm && this.isCounter(vm)) found = vm;
    });
    return found;
  }

  /** Whether a guard is about the failure rather than the count: it reads the error or the response, or asks a predicate. */
  private isFilterCond(test: Node, region: Region, depth = 0): boolean {
    let hit = false;
    walkExpression(test, (n) => {
      if (hit) return;
      if (n.type === T.CallExpression) {
        const callee = unwrap(n.callee);
        const q = this.ctx.evaluator.qualifiedName(callee);
        if (q && /^(?:Math|Date|performance|Number)\./.test(q)) return;
        if (q && /\.(?:includes|has)$/.test(q)) return;
        hit = true;
        return;
      }
      if (n.type !== T.Identifier) return;
      const v = this.a.variableOf(n);
      if (!v) return;
      // `if (err)` only says that the attempt failed; `err.code`, `isRetryable(err)` choose what is retried.
      if (region.roots.has(v)) { if (!bareTruthiness(n)) hit = true; return; }
      const init = depth < 4 ? constInitializer(v) : undefined;
      if (init && contains(region.root, init) && this.isFilterCond(init, region, depth + 1)) hit = true;
    });
    return hit;
  }

  /**
   * Reading what is retried, the count does not matter: the parts of a condition that only look
   * at counters take the value that lets the retry happen (`err && retries > 0` -> `err`).
   */
  private counterMask(c: Constraint, region: Region): Map<Node, boolean> | undefined {
    const mask = new Map<Node, boolean>();
    const visit = (raw: Node, positive: boolean) => {
      const n = unwrap(raw);
      if (n.type === T.UnaryExpression && n.operator === '!') return visit(n.argument, !positive);
      if (n.type === T.LogicalExpression && n.operator !== '??') {
        visit(n.left, positive);
        visit(n.right, positive);
        return;
      }
      if (this.refsCounter(n, region) && !this.isFilterCond(n, region)) mask.set(raw, positive ? c.want : !c.want);
    };
    visit(c.test, true);
    return mask.size ? mask : undefined;
  }

  /** Whether a failure with this status gets another attempt (first attempt, counters at their start). */
  private retriedAt(region: Region, filters: readonly Constraint[], status: number): boolean | typeof UNKNOWN {
    let result: boolean | typeof UNKNOWN = true;
    for (const c of filters) {
      const h = this.holds(c, region, 1, { status, errTruthy: region.errVar ? true : undefined, mask: this.counterMask(c, region) });
      if (h === false) return false;
      if (h === UNKNOWN) result = UNKNOWN;
    }
    return result;
  }

  private reachable(region: Region, constraints: readonly Constraint[], failed: boolean): boolean | typeof UNKNOWN {
    let result: boolean | typeof UNKNOWN = true;
    for (const c of constraints) {
      const h = this.holds(c, region, 1, { errTruthy: failed, mask: this.counterMask(c, region) });
      if (h === false) return false;
      if (h === UNKNOWN) result = UNKNOWN;
    }
    return result;
  }

  private filter(shape: Shape): ErrorFilter {
    const { region } = shape;
    const filters = shape.constraints.filter((c) => this.isFilterCond(c.test, region));
    if (filters.length === 0) {
      if (shape.throwGuards.length === 0) return NO_FILTER;
      // The attempt throws on these statuses and the catch retries whatever it catches.
      const throwsAt = (s: number): boolean | typeof UNKNOWN => {
        let any: boolean | typeof UNKNOWN = false;
        for (const g of shape.throwGuards) {
          const t = truth(this.a.eval(g, this.env(region, 1, { status: s })));
          if (t === true) return true;
          if (t === UNKNOWN) any = UNKNOWN;
        }
        return any;
      };
      return this.statusFilter(throwsAt, shape.throwGuards);
    }
    return this.statusFilter((s) => this.retriedAt(region, filters, s), filters.map((c) => c.test));
  }

  private statusFilter(retried: (s: number) => boolean | typeof UNKNOWN, tests: readonly Node[]): ErrorFilter {
    const node = tests[0];
    const results = new Map<number, boolean>();
    for (const s of STATUSES) {
      const r = retried(s);
      if (r === UNKNOWN) return { kind: 'custom', clientErrors: [], node };
      results.set(s, r);
    }
    const failures = STATUSES.filter((s) => s >= 400);
    const statusNode = tests.find((t) => /\.(?:status|statusCode|httpStatusCode|httpStatus)\b/.test(this.a.sourceCode.getText(t))) ?? node;
    if (failures.every((s) => results.get(s))) {
      const okNode = tests.find((t) => /\.ok\b/.test(this.a.sourceCode.getText(t))) ?? node;
      return { kind: 'none', clientErrors: [], retriesEverything: okNode, node };
    }
    const clientErrors = clientErrorInclusions(failures.filter((s) => s < 500 && results.get(s)), statusNode!);
    return { kind: 'statuses', clientErrors, node: statusNode };
  }

  // -------------------------------------------------------------------------------------------
  // Schedule

  private schedule(shape: Shape, attempts: Maybe<number>): { delay: DelaySchedule; jitter: Setting<boolean> } {
    let sleeps = shape.sleeps;
    if (sleeps.length > 1) {
      // A wait taken from Retry-After is the server's; the backoff is the other one.
      const own = sleeps.filter((s) => !/retry.?after/i.test(this.a.sourceCode.getText(s.node)));
      if (own.length > 0) sleeps = own;
    }
    if (sleeps.length === 0) {
      return {
        delay: customSchedule('none', () => 0, { initialMs: 0, multiplier: 1, maxMs: 0 }),
        jitter: { value: false },
      };
    }
    const parts = sleeps.map((s) => this.sleepSchedule(shape, s, attempts));
    if (parts.length === 1) return parts[0]!;
    const rank: Growth[] = ['none', 'constant', 'linear', 'polynomial', 'exponential', 'custom'];
    const growths = parts.map((p) => p.delay.growth);
    const growth = growths.some((g) => !isKnown(g)) ? UNKNOWN : growths.reduce((a, b) => (rank.indexOf(b as Growth) < rank.indexOf(a as Growth) ? b : a));
    const jitters = parts.map((p) => p.jitter.value);
    const jitter = jitters.includes(false) ? false : jitters.every((j) => j === true) ? true : UNKNOWN;
    const delay = customSchedule(growth, (n) => {
      let max = 0;
      for (const p of parts) {
        const b = p.delay.upperBound(n);
        if (!isKnown(b)) return UNKNOWN;
        max = Math.max(max, b);
      }
      return max;
    }, { node: parts[0]!.delay.node });
    return { delay, jitter: { value: jitter, node: parts[0]!.jitter.node } };
  }

  private sleepSchedule(shape: Shape, sleep: Sleep, attempts: Maybe<number>): { delay: DelaySchedule; jitter: Setting<boolean> } {
    const { region } = shape;
    const offset = sleep.pos < shape.opPos ? 1 : 0;
    const waitAt = (n: number, extra: Partial<Env>): { v: Val; flags: Flags } => {
      const flags: Flags = { random: false, unknown: false };
      if (!sleep.expr) return { v: UNKNOWN, flags };
      let env = this.env(region, n + offset, { ...extra, flags });
      for (const f of sleep.frames) env = this.a.frame(f.fn, f.args, env);
      return { v: this.a.eval(sleep.expr, env), flags };
    };
    const bounds = new Map<number, Maybe<number>>();
    let random = false;
    const upperBound = (n: number): Maybe<number> => {
      let b = bounds.get(n);
      if (b === undefined) {
        const { v, flags } = waitAt(n, {});
        if (flags.random) random = true;
        const i = toIv(v);
        b = i ? Math.max(0, i.hi) : UNKNOWN;
        bounds.set(n, b);
      }
      return b;
    };
    const samples = isKnown(attempts) && attempts !== Infinity ? Math.max(Math.min(attempts - 1, 10), 4) : 10;
    const read = (extra: Partial<Env>) => {
      const seq: Iv[] = [];
      let rnd = false;
      let cap: number | undefined;
      for (let n = 1; n <= samples; n++) {
        const { v, flags } = waitAt(n, { ...extra, uncapped: true });
        rnd ||= flags.random;
        if (flags.cap !== undefined) cap = cap === undefined ? flags.cap : Math.min(cap, flags.cap);
        const i = toIv(v);
        if (!i) {
          if (v === undefined && seq.length >= 1) break; // ran past the end of a delay table
          return { seq: undefined, random: rnd, cap };
        }
        seq.push(i);
      }
      return { seq, random: rnd, cap };
    };
    const real = read({});
    let growth: Maybe<Growth> = UNKNOWN;
    let multiplier: Maybe<number> = UNKNOWN;
    let initialMs: Maybe<number> = UNKNOWN;
    let maxMs: Maybe<number> = UNKNOWN;
    let jitter: Maybe<boolean> = real.random ? true : UNKNOWN;
    if (real.seq) {
      const c = classify(real.seq);
      growth = c.growth;
      multiplier = c.multiplier;
      const first = toIv(waitAt(1, {}).v);
      initialMs = first ? (first.lo > 0 ? first.lo : first.hi) : UNKNOWN;
      maxMs = real.cap ?? (growth === 'constant' || growth === 'none' ? initialMs : Infinity);
      if (!real.random) jitter = false;
    } else {
      // The scale is unknown (a parameter without default): the shape may still be readable.
      const p1 = read({ probe: 977 });
      const p2 = read({ probe: 1733 });
      if (p1.seq && p2.seq) {
        const c1 = classify(p1.seq);
        const c2 = classify(p2.seq);
        if (c1.growth === c2.growth && c1.multiplier === c2.multiplier) {
          growth = c1.growth;
          multiplier = c1.multiplier;
        }
        if (!p1.random && !p2.random && !real.random) jitter = false;
        else jitter = true;
      }
    }
    const delay: DelaySchedule = {
      growth,
      initialMs,
      multiplier,
      maxMs,
      node: sleep.node,
      upperBound: (n) => (growth === 'none' ? 0 : upperBound(n)),
    };
    void random;
    return { delay, jitter: { value: jitter, node: sleep.node } };
  }
}

/** Growth of a wait sequence: constant, linear, exponential (including `(2^n - 1) * base`), polynomial. */
function classify(seq: readonly Iv[]): { growth: Growth; multiplier: Maybe<number> } {
  const useLo = seq.every((i) => i.lo > 0);
  const xs = seq.map((i) => (useLo ? i.lo : i.hi));
  const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b), 1);
  const first = xs[0] ?? 0;
  if (xs.every((x) => same(x, first))) return first <= 0 ? { growth: 'none', multiplier: 1 } : { growth: 'constant', multiplier: 1 };
  if (xs.length < 3) return { growth: 'custom', multiplier: UNKNOWN };
  if (xs.every((x) => x > 0)) {
    const r = xs[1]! / xs[0]!;
    if (r > 1 && xs.every((x, i) => i === 0 || same(x / xs[i - 1]!, r))) return { growth: 'exponential', multiplier: r };
  }
  const d = xs.slice(1).map((x, i) => x - xs[i]!);
  if (d[0]! > 0 && d.every((x) => same(x, d[0]!))) return { growth: 'linear', multiplier: UNKNOWN };
  if (d.every((x) => x > 0)) {
    const r = d[1]! / d[0]!;
    if (r > 1 && d.every((x, i) => i === 0 || same(x / d[i - 1]!, r))) return { growth: 'exponential', multiplier: r };
    const dd = d.slice(1).map((x, i) => x - d[i]!);
    if (dd.length > 0 && dd[0]! > 0 && dd.every((x) => same(x, dd[0]!))) return { growth: 'polynomial', multiplier: UNKNOWN };
  }
  return { growth: 'custom', multiplier: UNKNOWN };
}

/** 4xx statuses a filter retries, other than 408 and 429 (which may succeed later). */
function clientErrorInclusions(retried: readonly number[], node: Node): ClientErrorInclusion[] {
  const codes = retried.filter((s) => s !== 408 && s !== 429);
  if (codes.length === 0) return [];
  const all = Array.from({ length: 100 }, (_, i) => 400 + i).filter((s) => s !== 408 && s !== 429);
  if (codes.length === all.length) return [{ status: '400-499', node }];
  if (codes.length > 10) {
    const excluded = all.filter((s) => !codes.includes(s));
    return [{ status: `4xx other than ${excluded.slice(0, 5).join(', ')}${excluded.length > 5 ? ', ...' : ''}`, node }];
  }
  const out: ClientErrorInclusion[] = [];
  for (let i = 0; i < codes.length; ) {
    let j = i;
    while (j + 1 < codes.length && codes[j + 1] === codes[j]! + 1) j++;
    out.push({ status: j > i ? `${codes[i]}-${codes[j]}` : String(codes[i]), node });
    i = j + 1;
  }
  return out;
}

function bareTruthiness(id: Node): boolean {
  const p = id.parent;
  if (!p) return true;
  if (p.type === T.MemberExpression || p.type === T.CallExpression || p.type === T.BinaryExpression || p.type === T.NewExpression) return false;
  if (p.type === T.ChainExpression || p.type === T.TSNonNullExpression || p.type === T.TSAsExpression) return bareTruthiness(p);
  return true;
}

// A dot first: a literal first character lets the scan skip ahead, twice as fast as `\b` here.
const STATUS_WORD = /\.\s*(?:ok|status|statusCode|httpStatusCode|httpStatus)\b/g;

/** The `ok` of `res.ok`, the `status` of `err.status` (not a variable or key of that name). */
function isStatusProperty(n: Node): boolean {
  const m = n.parent;
  return n.type === T.Identifier && m?.type === T.MemberExpression && m.property === n && !m.computed;
}

/** `this.name(...)` calls inside `scope`, found from the name's occurrences in its text. */
function thisCallsIn(sourceCode: Readonly<TSESLint.SourceCode>, scope: Node, name: string): TSESTree.CallExpression[] {
  // Most methods never write `this.<own name>`: substring searches settle those before any node lookup.
  // The search runs on the body's own text: on the whole file, a name the body lacks would be
  // looked for up to the end of the file, once per method.
  const text = sourceCode.text;
  const [start, end] = scope.range;
  const body = text.slice(start, end);
  const out: TSESTree.CallExpression[] = [];
  for (let i = body.indexOf(name); i >= 0; i = body.indexOf(name, i + name.length)) {
    const at = start + i;
    if (!afterThisDot(text, at)) continue;
    const id = nodeAt(sourceCode, at);
    if (id?.type !== T.Identifier || id.range[0] !== at || id.name !== name) continue;
    const member = id.parent;
    if (member?.type !== T.MemberExpression || member.property !== id || member.computed || unwrap(member.object).type !== T.ThisExpression) continue;
    let callee: Node = member;
    // `this.f!()`, `(this.f as Retry)()`: the call's callee unwraps to the member.
    // A parent is such a wrapper exactly when `unwrap` (the shared definition) looks through it.
    while (callee.parent && (callee.parent as { expression?: Node }).expression === callee && unwrap(callee.parent) !== callee.parent) callee = callee.parent;
    const call = callee.parent;
    if (call?.type === T.CallExpression && call.callee === callee) out.push(call);
  }
  return out;
}

/** Whether `this.`, `this?.` or `).` (as in `(this as Client).`) ends just before `at`, spaces allowed. */
function afterThisDot(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  if (text[i] !== '.') return false;
  i--;
  if (text[i] === '?') i--;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  if (text[i] === ')') return true;
  return text.startsWith('this', i - 3) && !/[\w$]/.test(text[i - 4] ?? '');
}

function nearestLoop(n: Node): Loop | undefined {
  for (let p = n.parent; p; p = p.parent) {
    if (isFunction(p)) return undefined;
    if (p.type === T.ForStatement || p.type === T.WhileStatement || p.type === T.DoWhileStatement) return p;
    if (p.type === T.ForOfStatement || p.type === T.ForInStatement) return undefined;
  }
  return undefined;
}

function writeExpression(id: Node): TSESTree.UpdateExpression | TSESTree.AssignmentExpression | 'multi' {
  const p = id.parent;
  if (p?.type === T.UpdateExpression && p.argument === id) return p;
  if (p?.type === T.AssignmentExpression && p.left === id) return p;
  return 'multi';
}

function isPromisifiedTimeout(init: Node): boolean {
  if (init.type !== T.CallExpression) return false;
  const name = calleeName(init);
  const arg = init.arguments[0];
  return name === 'promisify' && arg?.type === T.Identifier && arg.name === 'setTimeout';
}

/** The awaits of a block in document order, not entering nested functions. */
function collectAwaits(block: Node): TSESTree.AwaitExpression[] {
  const out: TSESTree.AwaitExpression[] = [];
  walkAll(block, (n) => { if (n.type === T.AwaitExpression) out.push(n); }, true);
  return out.sort((a, b) => a.range[0] - b.range[0]);
}

/** Visits a subtree (bounded to one function or block); optionally skips nested functions. */
function walkAll(root: Node, visit: (n: Node) => void, skipFunctions = false): void {
  const stack: Node[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    visit(n);
    if (skipFunctions && n !== root && isFunction(n)) continue;
    pushChildren(n, stack);
  }
}

/**
 * The hand-written retry sites of a file; with `bound`, only those inside that helper, read as
 * if the helper were called with those arguments.
 */
export function findHandWrittenSites(ctx: AnalysisContext, bound?: BoundCall): RetrySite[] {
  return new Detector(new Analyzer(ctx, bound)).run();
}
