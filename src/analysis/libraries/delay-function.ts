/**
 * Reads a user-written delay function (`interval: (n) => 50 * 2 ** n`, rxjs
 * `delay: (e, n) => timer(2 ** n * 1000)`, cockatiel `new DelegateBackoff(ctx => ...)`) by
 * evaluating its arithmetic for concrete retry numbers. Anything it cannot follow makes the
 * whole reading unknown rather than a guess.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import type { AnalysisContext } from '../library.js';
import { functionOf } from '../library.js';
import type { DelaySchedule, Growth, Node } from '../model.js';
import { customSchedule } from '../schedule.js';
import { UNKNOWN, constInitializer, findVariable, isKnown, unwrap, type Maybe } from '../static-value.js';

/**
 * What each parameter of the delay function receives: the retry number (`'n'`), a known
 * number, an object whose named properties are the retry number (`{ attempt: 'n' }` for a
 * context argument), or nothing we know about (`undefined`).
 */
export type ParamMeaning = 'n' | number | { readonly [key: string]: 'n' | number } | undefined;

export interface DelayReading {
  readonly growth: Maybe<Growth>;
  readonly jitter: Maybe<boolean>;
  readonly initialMs: Maybe<number>;
  readonly multiplier: Maybe<number>;
  /** Upper bound of the wait before retry `n`, random terms at their worst. */
  bound(n: number): Maybe<number>;
  /** The function read, and the expressions that compute its waits (for suggestions that rewrite them). */
  readonly fn?: TSESTree.FunctionLike | undefined;
  readonly waits?: readonly Node[] | undefined;
}

export interface DelayFunctionOptions {
  /** Maps the retry number the library passes for retry `n` (e.g. `n - 1` for 0-based counters). */
  readonly argumentFor?: (n: number) => number;
  /**
   * Turns a returned expression into the expression holding the milliseconds (rxjs: the
   * argument of `timer(...)`), or undefined when the return is not a delay at all (a
   * `throwError(...)` that ends retrying) and should be ignored.
   */
  readonly unwrapReturn?: (expr: Node) => Node | 'ignore' | undefined;
}

interface Env {
  readonly fn: TSESTree.FunctionLike;
  readonly n: number;
  readonly random: number;
  sawRandom: boolean;
}

const UNREADABLE: unique symbol = Symbol('unreadable');

/** The reading of the function `node` refers to, or undefined when it is not a function we can see. */
export function readDelayFunction(
  node: Node | undefined,
  ctx: AnalysisContext,
  params: readonly ParamMeaning[],
  options: DelayFunctionOptions = {},
): DelayReading | undefined {
  const fn = functionOf(node, ctx);
  if (!fn) return undefined;
  const returned = returnedExpressions(fn, options);
  if (returned === UNREADABLE || returned.length === 0) return unknownReading();
  const argFor = options.argumentFor ?? ((n: number) => n);
  let sawRandom = false;
  const evalAt = (n: number, random: number): Maybe<number> => {
    let result: number | undefined;
    for (const expr of returned) {
      const env: Env = { fn, n: argFor(n), random, sawRandom: false };
      const v = calc(expr, env, params, ctx, 0);
      sawRandom ||= env.sawRandom;
      if (!isKnown(v) || !Number.isFinite(v) && v !== Infinity) return UNKNOWN;
      // Several returns (branches): the worst case is the largest.
      result = result === undefined ? v : Math.max(result, v);
    }
    return result ?? UNKNOWN;
  };
  const bound = (n: number): Maybe<number> => {
    const low = evalAt(n, 0);
    const high = evalAt(n, 1);
    if (!isKnown(low) || !isKnown(high)) return UNKNOWN;
    return Math.max(0, low, high);
  };
  // Probe once so `sawRandom` is known before classifying.
  const samples: number[] = [];
  for (let n = 1; n <= 4; n++) {
    const v = bound(n);
    if (!isKnown(v)) return unknownReading();
    samples.push(v);
  }
  const growth = classify(samples);
  const [a, b] = samples as [number, number, number, number];
  return {
    growth,
    jitter: sawRandom,
    initialMs: a,
    multiplier: growth === 'exponential' ? b / a : growth === 'constant' || growth === 'none' ? 1 : UNKNOWN,
    bound,
    fn,
    waits: returned,
  };
}

/** A schedule from a reading, with the node where the delay is configured. */
export function scheduleOfReading(reading: DelayReading, node: Node | undefined): DelaySchedule {
  return customSchedule(reading.growth, (n) => reading.bound(n), {
    initialMs: reading.initialMs,
    multiplier: reading.multiplier,
    maxMs: UNKNOWN,
    node,
  });
}

/**
 * A list of waits, the last one repeating once the list is exhausted (cockatiel's
 * IterableBackoff), classified by its shape.
 */
export function arraySchedule(list: readonly number[], node: Node | undefined): DelaySchedule {
  const at = (n: number) => list[Math.min(Math.max(n, 1), list.length) - 1]!;
  const samples = list.length >= 4 ? list.slice(0, 4) : list.length === 1 ? [at(1), at(1), at(1), at(1)] : undefined;
  const growth: Growth = samples ? classify(samples) : shortListGrowth(list);
  const first = at(1);
  const second = at(2);
  return customSchedule(growth, (n) => Math.max(0, at(n)), {
    initialMs: first,
    multiplier: growth === 'exponential' ? second / first : growth === 'constant' || growth === 'none' ? 1 : UNKNOWN,
    maxMs: Math.max(...list),
    node,
  });
}

function shortListGrowth(list: readonly number[]): Growth {
  if (list.every((x) => x === 0)) return 'none';
  if (list.every((x) => x === list[0])) return 'constant';
  const [a, b, c] = list as [number, number, number | undefined];
  // Two or three steps cannot tell growth kinds apart reliably; doubling is read as exponential.
  if (a > 0 && b >= 2 * a && (c === undefined || c >= 2 * b)) return 'exponential';
  if (b > a && (c === undefined || c > b)) return 'custom';
  return 'custom';
}

function unknownReading(): DelayReading {
  return { growth: UNKNOWN, jitter: UNKNOWN, initialMs: UNKNOWN, multiplier: UNKNOWN, bound: () => UNKNOWN };
}

function classify(v: readonly number[]): Growth {
  if (v.every((x) => x === 0)) return 'none';
  if (v.every((x) => x === v[0])) return 'constant';
  const [a, b, c] = v as [number, number, number];
  const close = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
  if (a > 0 && b > a && close(b / a, c / b)) return 'exponential';
  if (b > a && close(b - a, c - b)) return 'linear';
  const d = v[3]!;
  if (b > a && c > b && close(c - 2 * b + a, d - 2 * c + b)) return 'polynomial';
  return 'custom';
}

/** Every expression the function can return, after `unwrapReturn`; UNREADABLE when not followable. */
function returnedExpressions(fn: TSESTree.FunctionLike, options: DelayFunctionOptions): Node[] | typeof UNREADABLE {
  if (!fn.body) return UNREADABLE;
  const raw: Node[] = [];
  if (fn.body.type !== T.BlockStatement) raw.push(fn.body);
  else if (!collectReturns(fn.body, raw)) return UNREADABLE;
  const out: Node[] = [];
  for (const r of raw) {
    for (const branch of branches(r)) {
      const u = options.unwrapReturn ? options.unwrapReturn(branch) : branch;
      if (u === 'ignore') continue;
      if (!u) return UNREADABLE;
      out.push(u);
    }
  }
  return out;
}

/** `c ? a : b` returns either side; the worst case looks at both. */
function branches(expr: Node): Node[] {
  const e = unwrap(expr);
  if (e.type === T.ConditionalExpression) return [...branches(e.consequent), ...branches(e.alternate)];
  return [e];
}

/** Return statements of straight-line code with ifs and local consts; loops and the like are not followed. */
function collectReturns(block: TSESTree.BlockStatement | TSESTree.Statement, out: Node[]): boolean {
  const statements = block.type === T.BlockStatement ? block.body : [block];
  for (const s of statements) {
    switch (s.type) {
      case T.ReturnStatement:
        if (!s.argument) return false;
        out.push(s.argument);
        break;
      case T.IfStatement:
        if (!collectReturns(s.consequent, out)) return false;
        if (s.alternate && !collectReturns(s.alternate, out)) return false;
        break;
      case T.BlockStatement:
        if (!collectReturns(s, out)) return false;
        break;
      case T.VariableDeclaration:
      case T.ExpressionStatement:
      case T.ThrowStatement:
      case T.EmptyStatement:
        break;
      default:
        return false;
    }
  }
  return true;
}

const MATH: Record<string, (...a: number[]) => number> = {
  pow: Math.pow,
  min: Math.min,
  max: Math.max,
  floor: Math.floor,
  ceil: Math.ceil,
  round: Math.round,
  trunc: Math.trunc,
  abs: Math.abs,
  sqrt: Math.sqrt,
  exp: Math.exp,
};

function calc(raw: Node, env: Env, params: readonly ParamMeaning[], ctx: AnalysisContext, depth: number): Maybe<number> {
  if (depth > 32) return UNKNOWN;
  const node = unwrap(raw);
  switch (node.type) {
    case T.Literal:
      return typeof node.value === 'number' ? node.value : UNKNOWN;
    case T.Identifier:
      return identifier(node, env, params, ctx, depth);
    case T.UnaryExpression: {
      const v = calc(node.argument, env, params, ctx, depth + 1);
      if (!isKnown(v)) return UNKNOWN;
      return node.operator === '-' ? -v : node.operator === '+' ? v : UNKNOWN;
    }
    case T.BinaryExpression: {
      if (node.left.type === T.PrivateIdentifier) return UNKNOWN;
      const a = calc(node.left, env, params, ctx, depth + 1);
      const b = calc(node.right, env, params, ctx, depth + 1);
      if (!isKnown(a) || !isKnown(b)) return UNKNOWN;
      switch (node.operator) {
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        case '/': return a / b;
        case '%': return a % b;
        case '**': return a ** b;
        case '<<': return a << b;
        default: return UNKNOWN;
      }
    }
    case T.LogicalExpression: {
      // `delay ?? 1000`: the left side decides when known.
      const a = calc(node.left, env, params, ctx, depth + 1);
      return isKnown(a) ? a : UNKNOWN;
    }
    case T.MemberExpression: {
      const object = unwrap(node.object);
      if (object.type === T.Identifier && !node.computed && node.property.type === T.Identifier) {
        const index = paramIndex(env.fn, object.name);
        if (index !== undefined) {
          const meaning = params[index];
          if (meaning && typeof meaning === 'object') {
            const m = meaning[node.property.name];
            return m === 'n' ? env.n : typeof m === 'number' ? m : UNKNOWN;
          }
          return UNKNOWN;
        }
      }
      return ctx.evaluator.number(node);
    }
    case T.CallExpression: {
      const callee = unwrap(node.callee);
      if (callee.type !== T.MemberExpression || callee.computed || callee.property.type !== T.Identifier) return UNKNOWN;
      const object = unwrap(callee.object);
      if (object.type !== T.Identifier || object.name !== 'Math') return UNKNOWN;
      if (findVariable(ctx.evaluator.scopeOf(object), 'Math')?.defs.length) return UNKNOWN;
      if (callee.property.name === 'random') {
        env.sawRandom = true;
        // The supremum of Math.random(): a bound, never an underestimate.
        return env.random;
      }
      const f = MATH[callee.property.name];
      if (!f) return UNKNOWN;
      const args: number[] = [];
      for (const a of node.arguments) {
        if (a.type === T.SpreadElement) return UNKNOWN;
        const v = calc(a, env, params, ctx, depth + 1);
        if (!isKnown(v)) return UNKNOWN;
        args.push(v);
      }
      return f(...args);
    }
    case T.ConditionalExpression: {
      const a = calc(node.consequent, env, params, ctx, depth + 1);
      const b = calc(node.alternate, env, params, ctx, depth + 1);
      if (!isKnown(a) || !isKnown(b)) return UNKNOWN;
      const test = testValue(node.test, env, params, ctx, depth + 1);
      if (test === true) return a;
      if (test === false) return b;
      return Math.max(a, b);
    }
    default:
      return UNKNOWN;
  }
}

function testValue(raw: Node, env: Env, params: readonly ParamMeaning[], ctx: AnalysisContext, depth: number): boolean | undefined {
  const node = unwrap(raw);
  if (node.type !== T.BinaryExpression || node.left.type === T.PrivateIdentifier) return undefined;
  const a = calc(node.left, env, params, ctx, depth + 1);
  const b = calc(node.right, env, params, ctx, depth + 1);
  if (!isKnown(a) || !isKnown(b)) return undefined;
  switch (node.operator) {
    case '<': return a < b;
    case '<=': return a <= b;
    case '>': return a > b;
    case '>=': return a >= b;
    case '===': case '==': return a === b;
    case '!==': case '!=': return a !== b;
    default: return undefined;
  }
}

function identifier(node: TSESTree.Identifier, env: Env, params: readonly ParamMeaning[], ctx: AnalysisContext, depth: number): Maybe<number> {
  const index = paramIndex(env.fn, node.name);
  if (index !== undefined && declaredBy(env.fn, node, ctx)) {
    const meaning = params[index];
    return meaning === 'n' ? env.n : typeof meaning === 'number' ? meaning : UNKNOWN;
  }
  // `({ attempt }) => ...`: a destructured context property.
  const destructured = destructuredParam(env.fn, node.name);
  if (destructured) {
    const meaning = params[destructured.index];
    if (meaning && typeof meaning === 'object') {
      const m = meaning[destructured.key];
      return m === 'n' ? env.n : typeof m === 'number' ? m : UNKNOWN;
    }
    return UNKNOWN;
  }
  const variable = findVariable(ctx.evaluator.scopeOf(node), node.name);
  // A const declared inside the function may depend on the parameters: follow it here.
  if (variable && env.fn.range[0] <= (variable.defs[0]?.node.range[0] ?? -1) && (variable.defs[0]?.node.range[1] ?? Infinity) <= env.fn.range[1]) {
    const init = constInitializer(variable);
    return init ? calc(init, env, params, ctx, depth + 1) : UNKNOWN;
  }
  return ctx.evaluator.number(node);
}

function paramIndex(fn: TSESTree.FunctionLike, name: string): number | undefined {
  for (let i = 0; i < fn.params.length; i++) {
    let p: Node = fn.params[i]!;
    if (p.type === T.AssignmentPattern) p = p.left;
    if (p.type === T.Identifier && p.name === name) return i;
  }
  return undefined;
}

function destructuredParam(fn: TSESTree.FunctionLike, name: string): { index: number; key: string } | undefined {
  for (let i = 0; i < fn.params.length; i++) {
    let p: Node = fn.params[i]!;
    if (p.type === T.AssignmentPattern) p = p.left;
    if (p.type !== T.ObjectPattern) continue;
    for (const prop of p.properties) {
      if (prop.type !== T.Property || prop.computed || prop.key.type !== T.Identifier) continue;
      const value = prop.value.type === T.AssignmentPattern ? prop.value.left : prop.value;
      if (value.type === T.Identifier && value.name === name) return { index: i, key: prop.key.name };
    }
  }
  return undefined;
}

/** True when `id` refers to the function's own parameter, not a shadowing inner binding. */
function declaredBy(fn: TSESTree.FunctionLike, id: TSESTree.Identifier, ctx: AnalysisContext): boolean {
  const variable = findVariable(ctx.evaluator.scopeOf(id), id.name);
  const def = variable?.defs[0];
  return !!def && def.type === 'Parameter' && def.node === fn;
}

/** Whether a function's body throws or calls one of `enders` (e.g. rxjs `throwError`): it can end retrying. */
export function mayEndRetrying(fn: TSESTree.FunctionLike | undefined, isEnder: (call: TSESTree.CallExpression) => boolean, ctx: AnalysisContext): boolean {
  if (!fn?.body) return false;
  const [start, end] = fn.body.range;
  for (const t of ctx.nodesOfType(T.ThrowStatement)) if (t.range[0] >= start && t.range[1] <= end) return true;
  for (const c of ctx.nodesOfType(T.CallExpression)) if (c.range[0] >= start && c.range[1] <= end && isEnder(c)) return true;
  return false;
}
