/**
 * Reads a user-written delay function (`interval: (n) => 50 * 2 ** n`, rxjs
 * `delay: (e, n) => timer(2 ** n * 1000)`, cockatiel `new DelegateBackoff(ctx => ...)`) by
 * evaluating its arithmetic for concrete retry numbers. Anything it cannot follow makes the
 * whole reading unknown rather than a guess.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { contains, patternKey, unwrap, type Variable } from '../ast.js';
import { FREE, NO_RESPONSE, RUNNING_ENV, type Env, type Flags } from '../eval/environment.js';
import { RESPONSE, UNKNOWN, isKnown, toInterval, truth, type DataValue, type Maybe, type Value } from '../eval/values.js';
import type { AnalysisContext } from '../library.js';
import { functionOf } from '../library.js';
import type { ClientErrorInclusion, DelaySchedule, Growth, Node } from '../model.js';
import { classifyWaits, customSchedule } from '../schedule.js';

/**
 * What each parameter of the delay function receives: the retry number (`'n'`), a known
 * number, an object whose named properties are the retry number (`{ attempt: 'n' }` for a
 * context argument), or nothing we know about (`undefined`).
 */
export type ParamMeaning = 'n' | number | ParamObject | undefined;
/** A context object a delay function receives, with the retry number (or a known number) at some path. */
export interface ParamObject {
  readonly [key: string]: 'n' | number | ParamObject;
}

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
  /** A bare `return;` ends retrying (a listener whose undefined means "give up"): no wait to read. */
  readonly voidStops?: boolean;
}

const UNREADABLE: unique symbol = Symbol('unreadable');
/** Retries sampled to read the growth. */
const SAMPLES = 4;

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
  const bound = (n: number): Maybe<number> => {
    const flags: Flags = { random: false };
    const env = delayEnv(fn, params, argFor(n), ctx, flags);
    let result: number | undefined;
    for (const expr of returned) {
      const v = toInterval(ctx.evaluator.evaluateIn(expr, env));
      if (!v || Number.isNaN(v.hi) || v.hi === -Infinity) return UNKNOWN;
      // Several returns (branches): the worst case is the largest.
      result = result === undefined ? v.hi : Math.max(result, v.hi);
    }
    sawRandom ||= flags.random;
    return result === undefined ? UNKNOWN : Math.max(0, result);
  };
  // Probe first so randomness is known before classifying.
  const samples: number[] = [];
  for (let n = 1; n <= SAMPLES; n++) {
    const v = bound(n);
    if (!isKnown(v)) return unknownReading();
    samples.push(v);
  }
  const { growth, multiplier } = classifyWaits(samples);
  return { growth, jitter: sawRandom, initialMs: samples[0]!, multiplier, bound, fn, waits: returned };
}

/**
 * The environment a delay function runs in for one retry: its parameters bound as `params`
 * says (the retry number, a known number, a context object carrying the retry number), the
 * code's own defaults applied, `Math.random()` a range.
 */
function delayEnv(fn: TSESTree.FunctionLike, params: readonly ParamMeaning[], n: number, ctx: AnalysisContext, flags: Flags): Env {
  const valueOf = (meaning: ParamMeaning): DataValue => {
    if (meaning === 'n') return n;
    if (typeof meaning === 'number') return meaning;
    if (meaning && typeof meaning === 'object') {
      // Open: the object has other properties the model does not know.
      const properties = new Map<string, DataValue>(Object.entries(meaning).map(([k, m]) => [k, valueOf(m)]));
      return { properties, open: true };
    }
    return UNKNOWN;
  };
  const env: Env = {
    ...RUNNING_ENV,
    flags,
    lookup(variable: Variable, _id, current) {
      const def = variable.defs[0];
      if (!def || def.type !== 'Parameter' || def.node !== fn) return FREE;
      const at = parameterOf(fn, def.name as Node);
      if (!at) return UNKNOWN;
      const value = valueOf(params[at.index]);
      return at.key === undefined ? value : ctx.evaluator.memberOf(value, at.key, current, 0);
    },
    importOf: (node) => ctx.imports.resolve(node),
  };
  return env;
}

/** Which parameter holds `name`: `(n)`, `(n = 1)`, or a property of a destructured one (`({ attempt })`). */
function parameterOf(fn: TSESTree.FunctionLike, name: Node): { index: number; key?: string | undefined } | undefined {
  const plain = (p: Node) => (p.type === T.AssignmentPattern ? p.left : p);
  for (let i = 0; i < fn.params.length; i++) {
    const p = plain(fn.params[i]!);
    if (p === name) return { index: i };
    if (p.type !== T.ObjectPattern) continue;
    for (const prop of p.properties) {
      if (prop.type === T.Property && plain(prop.value) === name) {
        const key = patternKey(prop);
        return key === undefined ? undefined : { index: i, key };
      }
    }
  }
  return undefined;
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
  const reading: { growth: Growth; multiplier: Maybe<number> } = samples ? classifyWaits(samples) : { growth: shortListGrowth(list), multiplier: UNKNOWN };
  const growth = reading.growth;
  const first = at(1);
  const second = at(2);
  return customSchedule(growth, (n) => Math.max(0, at(n)), {
    initialMs: first,
    multiplier: growth === 'exponential' ? (samples ? reading.multiplier : second / first) : growth === 'constant' || growth === 'none' ? 1 : UNKNOWN,
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

/** Every expression the function can return, after `unwrapReturn`; UNREADABLE when not followable. */
function returnedExpressions(fn: TSESTree.FunctionLike, options: DelayFunctionOptions): Node[] | typeof UNREADABLE {
  if (!fn.body) return UNREADABLE;
  const raw: Node[] = [];
  if (fn.body.type !== T.BlockStatement) raw.push(fn.body);
  else if (!collectReturns(fn.body, raw, options.voidStops === true)) return UNREADABLE;
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

/** Every expression the function can return (both sides of a conditional), or undefined when its returns cannot be followed. */
export function returnedValues(fn: TSESTree.FunctionLike, voidStops = false): Node[] | undefined {
  const out = returnedExpressions(fn, { voidStops });
  return out === UNREADABLE ? undefined : out;
}

/** `c ? a : b` returns either side; the worst case looks at both. */
function branches(expr: Node): Node[] {
  const e = unwrap(expr);
  if (e.type === T.ConditionalExpression) return [...branches(e.consequent), ...branches(e.alternate)];
  return [e];
}

/** Return statements of straight-line code with ifs and local consts; loops and the like are not followed. */
function collectReturns(block: TSESTree.BlockStatement | TSESTree.Statement, out: Node[], voidStops: boolean): boolean {
  const statements = block.type === T.BlockStatement ? block.body : [block];
  for (const s of statements) {
    switch (s.type) {
      case T.ReturnStatement:
        if (!s.argument) {
          if (!voidStops) return false;
          break;
        }
        out.push(s.argument);
        break;
      case T.IfStatement:
        if (!collectReturns(s.consequent, out, voidStops)) return false;
        if (s.alternate && !collectReturns(s.alternate, out, voidStops)) return false;
        break;
      case T.BlockStatement:
        if (!collectReturns(s, out, voidStops)) return false;
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

/** Whether a function's body throws or calls one of `enders` (e.g. rxjs `throwError`): it can end retrying. */
export function mayEndRetrying(fn: TSESTree.FunctionLike | undefined, isEnder: (call: TSESTree.CallExpression) => boolean, ctx: AnalysisContext): boolean {
  if (!fn?.body) return false;
  const body = fn.body;
  for (const t of ctx.nodesOfType(T.ThrowStatement)) if (contains(body, t)) return true;
  for (const c of ctx.nodesOfType(T.CallExpression)) if (contains(body, c) && isEnder(c)) return true;
  return false;
}

/** The 4xx a per-failure decision is asked about: the common ones, none of them worth a retry. */
const PROBED_CLIENT_ERRORS = [400, 401, 403, 404, 409, 410, 422];

export interface FailureDecision {
  /** The parameter that receives the error (or the response), and the one that receives the retry number. */
  readonly errorIndex: number;
  readonly countIndex?: number | undefined;
  /** The retry number the library passes on the first retry (rxjs: 1). */
  readonly firstCount: number;
  /** Whether a returned expression ends retrying (rxjs `throwError(...)`); a `throw` always does. */
  readonly isStop: (expr: Node) => boolean;
  /** The retry number is a property of the count parameter (Bottleneck's `jobInfo.retryCount`), not the parameter itself. */
  readonly countProperty?: string | undefined;
  /** A `return;` or the end of the body reached ends retrying (a handler whose undefined means "give up"). */
  readonly voidStops?: boolean | undefined;
}

/**
 * The 4xx that a function deciding each failure lets through to another attempt (rxjs
 * `delay: (error, n) => [401, 403].includes(error.status) ? throwError(() => error) : timer(2000)`),
 * found by running its conditions for each probed status on the first retry. Undefined when some
 * status cannot be decided: the filter then stays unknown. The statuses retried make one
 * inclusion, at the function.
 */
export function clientErrorsLetThrough(node: Node | undefined, ctx: AnalysisContext, how: FailureDecision): ClientErrorInclusion[] | undefined {
  const fn = functionOf(node, ctx);
  if (!fn?.body) return undefined;
  const retried: number[] = [];
  for (const status of PROBED_CLIENT_ERRORS) {
    const decided = decideAt(fn, ctx, how, status, how.firstCount);
    if (decided === UNKNOWN) return undefined;
    if (decided === 'retry') retried.push(status);
  }
  // One finding for the function, naming every probed status it retries.
  if (retried.length === 0) return [];
  const last = retried.pop()!;
  return [{ status: retried.length ? `${retried.join(', ')} and ${last}` : String(last), node: node! }];
}

/** Failures any retry is meant for: no response at all (a network error, a timeout) and the 5xx. */
const TRANSIENT_FAILURES = [NO_RESPONSE, 500, 502, 503, 504];

/**
 * The calls made in all when the function stops every failure at some retry number up to
 * `retries` (`n >= 2 ? throwError(...) : timer(...)` ends at the second retry: 2 calls);
 * `retries + 1` when it never does by then, undefined when a retry number cannot be decided.
 */
export function callsUntilStopped(node: Node | undefined, ctx: AnalysisContext, how: FailureDecision, retries: number): number | undefined {
  const fn = functionOf(node, ctx);
  if (!fn?.body || !Number.isFinite(retries)) return undefined;
  for (let i = 0; i < Math.min(retries, 20); i++) {
    const n = how.firstCount + i;
    let stopsAll = true;
    for (const status of TRANSIENT_FAILURES) {
      const decided = decideAt(fn, ctx, how, status, n);
      if (decided === UNKNOWN) return undefined;
      if (decided === 'retry') stopsAll = false;
    }
    // Retry number n is refused: the n-th call was the last.
    if (stopsAll) return i + 1;
  }
  return retries > 20 ? undefined : retries + 1;
}

/**
 * The calls made in all when nothing but the function bounds the retrying (ioredis's
 * `retryStrategy`, a Bottleneck 'failed' handler): the first retry number at which it stops every
 * failure, searched up to a million on the assumption that once stopped it stays stopped;
 * Infinity when it still retries there, undefined when some retry number cannot be decided.
 */
export function callsUntilStoppedAtAll(node: Node | undefined, ctx: AnalysisContext, how: FailureDecision): number | undefined {
  const fn = functionOf(node, ctx);
  if (!fn?.body) return undefined;
  const stopsAll = (i: number): boolean | undefined => {
    for (const status of TRANSIENT_FAILURES) {
      const decided = decideAt(fn, ctx, how, status, how.firstCount + i);
      if (decided === UNKNOWN) return undefined;
      if (decided === 'retry') return false;
    }
    return true;
  };
  const SCAN = 20;
  const FAR = 1_000_000;
  for (let i = 0; i < SCAN; i++) {
    const stops = stopsAll(i);
    if (stops === undefined) return undefined;
    if (stops) return i + 1;
  }
  const far = stopsAll(FAR);
  if (far === undefined) return undefined;
  if (!far) return Infinity;
  // Still retrying at SCAN, stopped at FAR: the first stop between them.
  let lo = SCAN;
  let hi = FAR;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const stops = stopsAll(mid);
    if (stops === undefined) return undefined;
    if (stops) hi = mid;
    else lo = mid;
  }
  return hi + 1;
}

/** What the function does with a failure of this status (NO_RESPONSE: none) at retry number `n`. */
function decideAt(fn: TSESTree.FunctionLike, ctx: AnalysisContext, how: FailureDecision, status: number, n: number): Decision {
  const env: Env = {
    ...RUNNING_ENV,
    status,
    lookup(variable: Variable, _id, current) {
      const def = variable.defs[0];
      if (!def || def.type !== 'Parameter' || def.node !== fn) return FREE;
      const at = parameterOf(fn, def.name as Node);
      if (at && at.index === how.countIndex && how.countProperty !== undefined) {
        const count: DataValue = { properties: new Map<string, DataValue>([[how.countProperty, n]]), open: true };
        return at.key === undefined ? count : ctx.evaluator.memberOf(count, at.key, current, 0);
      }
      if (at?.key !== undefined) return UNKNOWN;
      if (at?.index === how.errorIndex) return RESPONSE;
      return at?.index === how.countIndex ? n : UNKNOWN;
    },
    importOf: (id) => ctx.imports.resolve(id),
  };
  const body = fn.body!;
  if (body.type !== T.BlockStatement) return decideExpression(body, env, ctx, how);
  return decideBlock(body.body, env, ctx, how) ?? (how.voidStops ? 'stop' : UNKNOWN);
}

type Decision = 'stop' | 'retry' | typeof UNKNOWN;

function decideExpression(raw: Node, env: Env, ctx: AnalysisContext, how: FailureDecision): Decision {
  const e = unwrap(raw);
  if (e.type === T.ConditionalExpression) {
    const t = truth(ctx.evaluator.evaluateIn(e.test, env));
    return t === UNKNOWN ? UNKNOWN : decideExpression(t ? e.consequent : e.alternate, env, ctx, how);
  }
  return how.isStop(e) ? 'stop' : 'retry';
}

/** Straight-line statements: ifs decided per status, the first `return` or `throw` reached decides; undefined when none is. */
function decideBlock(statements: readonly TSESTree.Statement[], env: Env, ctx: AnalysisContext, how: FailureDecision): Decision | undefined {
  for (const s of statements) {
    switch (s.type) {
      case T.ReturnStatement:
        return s.argument ? decideExpression(s.argument, env, ctx, how) : how.voidStops ? 'stop' : UNKNOWN;
      case T.ThrowStatement:
        return 'stop';
      case T.IfStatement: {
        const t = truth(ctx.evaluator.evaluateIn(s.test, env));
        if (t === UNKNOWN) return UNKNOWN;
        const branch = t ? s.consequent : s.alternate;
        const inner = branch ? decideBlock(branch.type === T.BlockStatement ? branch.body : [branch], env, ctx, how) : undefined;
        if (inner !== undefined) return inner;
        break;
      }
      case T.BlockStatement: {
        const inner = decideBlock(s.body, env, ctx, how);
        if (inner !== undefined) return inner;
        break;
      }
      case T.ExpressionStatement:
      case T.EmptyStatement:
        break;
      case T.VariableDeclaration:
        // A const is read where it is used, from its initialiser, in this environment.
        if (s.kind !== 'const') return UNKNOWN;
        break;
      default:
        // Loops and the like: left unknown.
        return UNKNOWN;
    }
  }
  return undefined;
}

const ARITHMETIC = new Set(['-', '*', '/', '%', '**', '|', '&', '^', '<<', '>>', '>>>']);

/**
 * An expression whose value is a number whatever its operands (`after * base`, `Math.min(...)`,
 * `-x`, a constant known to be a number): what a handler returning "the next wait" returns.
 */
export function numericExpression(expr: Node, ctx: AnalysisContext): boolean {
  const e = unwrap(expr);
  if (e.type === T.Literal) return typeof e.value === 'number';
  if (e.type === T.BinaryExpression) {
    if (ARITHMETIC.has(e.operator)) return true;
    return e.operator === '+' && numericExpression(e.left as Node, ctx) && numericExpression(e.right, ctx);
  }
  if (e.type === T.UnaryExpression) return e.operator === '-' || e.operator === '+' || e.operator === '~';
  if (e.type === T.CallExpression && e.callee.type === T.MemberExpression && e.callee.object.type === T.Identifier &&
    e.callee.object.name === 'Math' && !e.callee.computed) return true;
  if (e.type === T.Identifier || e.type === T.MemberExpression) {
    if (typeof ctx.evaluator.evaluate(e) === 'number') return true;
    // A local const computed from the parameters: its initialiser says.
    const resolved = ctx.evaluator.resolve(e);
    return resolved !== e && numericExpression(resolved, ctx);
  }
  return false;
}
