/**
 * What varies from one attempt to the next, and the environment an attempt is read in.
 *
 * A region is the retry construct (a loop, or a function that calls itself). Its state variables
 * are modelled per attempt: a variable written once per iteration (`attempt++`, `delay *= 2`), or
 * a parameter the recursive call passes on (`retries - 1`, `delay * 2`). The attempt environment
 * binds them at attempt k, binds the error or response object to the HTTP status being asked
 * about, and otherwise leaves the code to the one evaluator (with the code's own defaults).
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, contains, unwrap, type Loop, type Variable } from '../ast.js';
import { FREE, RUNNING_ENV, beginReads, endReads, replayReads, type Env, type Flags, type StatusReadDelta } from '../eval/environment.js';
import type { Evaluator } from '../eval/evaluator.js';
import { frameFor, localFunction } from '../eval/functions.js';
import { numericWrite } from '../eval/builtins.js';
import { RESPONSE, UNKNOWN, range, toInterval, type DataValue, type Value } from '../eval/values.js';
import type { AnalysisContext } from '../library.js';
import type { Node } from '../model.js';
import { boundParameter, isBoundParameter, type BoundCall } from './helper-call.js';
import { RESULT_ERROR_KEYS, walkExpression, writeExpression } from './control-flow.js';

export type Write = TSESTree.UpdateExpression | TSESTree.AssignmentExpression;

/** A variable whose value is carried from one attempt to the next. */
export interface StateVariable {
  readonly variable: Variable;
  /** Value at the first attempt (loop entry, or the first call of a recursive function). */
  readonly init: { readonly expr: Node | undefined; readonly value?: Value };
  /**
   * The single write inside the region (`attempt++`, `delay *= 2`); `multi` when written in several
   * places that differ. The same write repeated on each failure path (`delay = Math.min(delay * 2,
   * 4000)` after the 5xx sleep and again in the catch) is one write, applied once per attempt, with
   * every copy kept in `copies`.
   */
  readonly write?: Write | 'multi' | undefined;
  /** The copies of `write` when it is repeated on several paths; a read sees the copy before it in its own block. */
  readonly copies?: readonly Write[] | undefined;
  /** For a recursive parameter: the argument the recursive call passes on. */
  readonly next?: Node | undefined;
  /** Through a cycle of two functions: the other one, whose parameters `next` reads, and the arguments it is called with. */
  readonly nextFrame?: { readonly fn: TSESTree.FunctionLike; readonly args: readonly Node[] } | undefined;
  /** Constant change per attempt when it is one (`i++` = 1, `retries - 1` = -1). */
  readonly step?: number | undefined;
  /** Values per attempt, per kind of question (status, probe, ...). */
  readonly memo: Map<string, AttemptValues>;
  /**
   * A count kept on an object that outlives the attempt (an axios interceptor's `config.attempts`):
   * the variable is `init.expr` read with `carrier.variable`'s `key` set to what `write` stored
   * in the attempt before (undefined at the first).
   */
  readonly carrier?: { readonly variable: Variable; readonly key: string; readonly write: Node } | undefined;
  /** A `for…of` variable over a list of waits: its value on each pass (delay-lists.ts). */
  readonly sequence?: readonly Value[] | undefined;
}

interface AttemptValues {
  readonly values: Value[];
  readonly random: boolean[];
  cap?: number | undefined;
  /** The reads of the asked status computing the values made (`statusOf`, status-classes.ts): replayed on a reuse. */
  reads?: StatusReadDelta | undefined;
}

export interface Region {
  readonly kind: 'loop' | 'recursion';
  readonly root: Node;
  readonly loop?: Loop | undefined;
  readonly vars: Map<Variable, StateVariable>;
  /** Fields of an object passed on from call to call and moved once per attempt (`state.backoff`), by object and key. */
  readonly fields?: ReadonlyMap<Variable, ReadonlyMap<string, StateVariable>> | undefined;
  /** Error and response variables whose `.status`/`.ok` the environment substitutes. */
  readonly roots: Set<Variable>;
  /** The error-first callback parameter (`(err, res) => ...`) of a callback-style retry. */
  readonly errVar?: Variable | undefined;
  /**
   * A loop on a returned result (`{ data } | { error }`): variables holding the result (`result`,
   * whose `error` is set on a failure) or its error part (`const { error } = await op()`).
   */
  readonly results?: ReadonlyMap<Variable, 'result' | 'error'> | undefined;
}

/** The hand-written detector's view of one file (and, for a helper read at a call, that call). */
export interface HandWritten {
  readonly ctx: AnalysisContext;
  readonly evaluator: Evaluator;
  readonly bound?: BoundCall | undefined;
}

export interface AttemptEnv extends Env {
  readonly region: Region;
  /** The attempt being read, from 1. */
  readonly attempt: number;
  /** Callback-style retries: the error parameter is set (failure) or null (success). */
  readonly errTruthy?: boolean | undefined;
}

export type AttemptQuestion = Partial<Pick<AttemptEnv, 'status' | 'errorFields' | 'thrown' | 'errTruthy' | 'probe' | 'uncapped' | 'mask' | 'flags'>>;

/** Attempts simulated one by one at most; beyond, only constant steps are followed. */
const MAX_SIMULATED = 2000;

/** The environment of attempt `attempt` of a region. */
export function attemptEnv(hw: HandWritten, region: Region, attempt: number, question: AttemptQuestion = {}): AttemptEnv {
  return {
    ...RUNNING_ENV,
    region,
    attempt,
    flags: { random: false },
    ...question,
    lookup: (variable, id, env) => lookup(hw, variable, id, env as AttemptEnv),
    boundFunctions: boundFunctions(hw.bound),
    lookupField: (object, key, node, env) => {
      const state = (env as AttemptEnv).region.fields?.get(object)?.get(key);
      return state ? valueAt(hw, state, env as AttemptEnv, executionPosition(node, (env as AttemptEnv).region)) : FREE;
    },
    varies: (expr, env) => dependsOnAttempt(hw, expr, env as AttemptEnv),
    importOf: (node) => hw.ctx.imports.resolve(node),
  };
}

const boundSets = new WeakMap<BoundCall, ReadonlySet<Node>>();

/** The functions a bound call (and the calls around it) binds the parameters of. */
function boundFunctions(bound: BoundCall | undefined): ReadonlySet<Node> | undefined {
  if (!bound) return undefined;
  let set = boundSets.get(bound);
  if (!set) {
    const fns = new Set<Node>();
    for (let b: BoundCall | undefined = bound; b; b = b.outer) fns.add(b.fn);
    boundSets.set(bound, (set = fns));
  }
  return set;
}

/** An environment for values read before any attempt (a bound helper's arguments). */
export function rootEnv(hw: HandWritten): AttemptEnv {
  return attemptEnv(hw, { kind: 'loop', root: hw.ctx.sourceCode.ast, vars: new Map(), roots: new Set() }, 0);
}

export function evaluateAt(hw: HandWritten, expr: Node | null | undefined, env: AttemptEnv): Value {
  return hw.evaluator.evaluateIn(expr, env);
}

function lookup(hw: HandWritten, variable: Variable, id: TSESTree.Identifier, env: AttemptEnv): Value | typeof FREE {
  const region = env.region;
  if (region.errVar === variable && env.errTruthy !== undefined) return env.errTruthy ? RESPONSE : null;
  const result = region.results?.get(variable);
  if (result) return resultValue(result, env);
  if (region.roots.has(variable)) return env.status !== undefined || env.errTruthy !== undefined ? RESPONSE : UNKNOWN;
  const state = region.vars.get(variable);
  if (state) return valueAt(hw, state, env, executionPosition(id, region));
  if (isBoundParameter(hw.bound, variable)) return boundParameter(hw, variable.defs[0]!.name as Node, env, variable);
  return FREE;
}

/**
 * A returned result at a question: its error is the failure (carrying the status asked about) and
 * is absent on a success. Without a status question the attempt is one that failed (a bound is read
 * after a failure).
 */
function resultValue(kind: 'result' | 'error', env: AttemptEnv): Value {
  const failed = env.status !== undefined ? !(env.status >= 200 && env.status <= 299) : env.errTruthy ?? true;
  const error = failed ? RESPONSE : undefined;
  if (kind === 'error') return error;
  // The other members (`data`, `value`) are whatever the operation returned: not known.
  const properties = new Map([...RESULT_ERROR_KEYS].map((k) => [k, error as unknown as DataValue]));
  return { properties, open: true };
}

/** Position of a node in execution order: a for-loop's update clause runs after the body. */
export function executionPosition(node: Node, region: Region, end = false): number {
  const p = end ? node.range[1] : node.range[0];
  const loop = region.loop;
  if (loop?.type === T.ForStatement && loop.update && contains(loop.update, node)) {
    return loop.body.range[1] + (p - loop.update.range[0]) + 1;
  }
  return p;
}

/** A state variable's value at `point` of attempt `env.attempt`: before or after its write. */
export function valueAt(hw: HandWritten, state: StateVariable, env: AttemptEnv, point: number): Value {
  if (state.write === 'multi') return UNKNOWN;
  const start = valueAtStart(hw, state, env.attempt, env);
  const w = state.write;
  if (!w) return start;
  if (state.copies) {
    const before = state.copies.find((c) => executionPosition(c, env.region, true) <= point && sameBlockBefore(c, point));
    return before ? applyWrite(hw, before, start, env) : start;
  }
  if (executionPosition(w, env.region, true) <= point) return applyWrite(hw, w, start, env);
  return start;
}

/** Whether a point comes after a write in the block that holds the write (so on the same path). */
function sameBlockBefore(w: Write, point: number): boolean {
  let statement: Node = w;
  while (statement.parent && statement.parent.type !== T.BlockStatement && statement.parent.type !== T.SwitchCase) statement = statement.parent;
  const block = statement.parent;
  return !!block && point >= w.range[1] && point <= block.range[1];
}

/**
 * The writes of a state variable inside a region: one, or the same write repeated on each failure
 * path (identical text), which moves the variable once per attempt; `multi` otherwise.
 */
export function regionWrite(writes: readonly Node[], sourceText: (n: Node) => string): Pick<StateVariable, 'write' | 'copies'> {
  const exprs = writes.map(writeExpression);
  if (exprs.length === 1) return { write: exprs[0] };
  if (exprs.some((e) => e === 'multi')) return { write: 'multi' };
  const texts = new Set(exprs.map((e) => sourceText(e as Write).replace(/\s+/g, '')));
  return texts.size === 1 ? { write: exprs[0], copies: exprs as Write[] } : { write: 'multi' };
}

const questionKey = (env: AttemptEnv) => `${env.status ?? ''}|${env.errorFields ? JSON.stringify(env.errorFields) : ''}|${env.probe ?? ''}|${env.uncapped ? 1 : 0}|${env.errTruthy ?? ''}`;

/** Value at the start of attempt k (before any write of that attempt), filled in order and cached per question. */
function valueAtStart(hw: HandWritten, state: StateVariable, k: number, env: AttemptEnv): Value {
  if (k < 1) return UNKNOWN;
  // Past the last entry the loop has ended: no value (as a delay table read past its end).
  if (state.sequence) return k <= state.sequence.length ? state.sequence[k - 1]! : undefined;
  const key = questionKey(env);
  let memo = state.memo.get(key);
  if (!memo) state.memo.set(key, (memo = { values: [], random: [] }));
  // The memo is kept per status; a value that read the status replays those reads (statusOf, and
  // the numbers they met), so a question answered from the memo counts the same reads as one that computed it.
  const seen = (m: AttemptValues) => {
    replayReads(m.reads);
    if (!env.flags) return;
    if (m.random[k]) env.flags.random = true;
    if (m.cap !== undefined) env.flags.cap = env.flags.cap === undefined ? m.cap : Math.min(env.flags.cap, m.cap);
  };
  if (k in memo.values) {
    seen(memo);
    return memo.values[k];
  }
  const stepped = k > 1 && state.step !== undefined;
  if (!stepped && k > MAX_SIMULATED) return UNKNOWN;
  // What computing the values reads of the status is kept with them, whatever ends the computation.
  const mark = beginReads();
  try {
    if (stepped) {
      const first = toInterval(valueAtStart(hw, state, 1, env));
      const v: Value = first ? range(first.lo + state.step! * (k - 1), first.hi + state.step! * (k - 1)) : UNKNOWN;
      memo.values[k] = v;
      memo.random[k] = !!memo.random[1];
      return v;
    }
    for (let j = memo.values.length > 1 ? memo.values.length : 1; j <= k; j++) {
      if (j in memo.values) continue;
      const flags: Flags = { random: false };
      let v: Value;
      if (state.carrier && state.init.expr) {
        const previous: AttemptEnv = { ...env, attempt: j - 1, flags };
        const stored = j === 1 ? undefined : hw.evaluator.evaluateFresh(state.carrier.write, previous);
        v = hw.evaluator.evaluateFresh(state.init.expr, carried({ ...env, attempt: j, flags }, state.carrier, stored));
      } else if (j === 1) {
        const init = state.init;
        if ('value' in init) v = init.value === UNKNOWN && env.probe !== undefined ? env.probe : (init.value as Value);
        else if (init.expr) v = hw.evaluator.evaluateFresh(init.expr, { ...env, attempt: 0, flags } as AttemptEnv);
        else v = env.probe !== undefined ? env.probe : UNKNOWN;
      } else {
        const previous: AttemptEnv = { ...env, attempt: j - 1, flags };
        const f = state.nextFrame;
        if (state.next) v = hw.evaluator.evaluateFresh(state.next, f ? { ...previous, frame: frameFor(hw.ctx.sourceCode, f.fn, f.args, previous) } : previous);
        else if (state.write && state.write !== 'multi') v = applyWrite(hw, state.write, memo.values[j - 1] as Value, previous);
        else v = memo.values[j - 1] as Value;
      }
      memo.values[j] = v;
      memo.random[j] = flags.random || (j > 1 && !!memo.random[j - 1]);
      if (flags.cap !== undefined) memo.cap = memo.cap === undefined ? flags.cap : Math.min(memo.cap, flags.cap);
    }
  } finally {
    memo.reads = joinReads(memo.reads, endReads(mark));
  }
  seen(memo);
  return memo.values[k] as Value;
}

/** The reads of a memo's answers, joined with those one more computation made. */
function joinReads(a: StatusReadDelta | undefined, b: StatusReadDelta): StatusReadDelta | undefined {
  if (b.count === 0) return a;
  if (!a) return b;
  return { count: a.count + b.count, classified: a.classified + b.classified, constants: [...new Set([...a.constants, ...b.constants])] };
}

/** An environment in which the carrier object holds `stored` under its key (and nothing else known). */
function carried(env: AttemptEnv, carrier: NonNullable<StateVariable['carrier']>, stored: Value): AttemptEnv {
  const outer = env.lookup;
  const object: Value = { properties: new Map([[carrier.key, stored as DataValue]]), open: true };
  return { ...env, lookup: (variable, id, e, depth) => (variable === carrier.variable ? object : outer ? outer(variable, id, e, depth) : FREE) };
}

/** The value after a write (`x++`, `x *= 2`, `x = f(x)`); its right-hand side reads the value before it. */
function applyWrite(hw: HandWritten, w: Write, current: Value, env: AttemptEnv): Value {
  if (w.type === T.UpdateExpression) return numericWrite(w.operator === '++' ? '+' : '-', current, 1);
  const rhs = hw.evaluator.evaluateFresh(w.right, env);
  if (w.operator === '=') return rhs;
  return numericWrite(w.operator.slice(0, -1), current, rhs);
}

/** Whether an expression changes between attempts (reads a state variable, a root, or a helper parameter bound to one). */
export function dependsOnAttempt(hw: HandWritten, expr: Node, env: AttemptEnv, depth = 0): boolean {
  if (depth > 6) return true;
  let found = false;
  walkExpression(expr, (n) => {
    if (found || n.type !== T.Identifier) return;
    const v = hw.evaluator.variableOf(n);
    if (!v) return;
    if (env.region.vars.has(v) || env.region.roots.has(v)) {
      found = true;
      return;
    }
    for (let frame = env.frame; frame; frame = frame.outer) {
      const bound = frame.bindings.get(v);
      if (bound) {
        if (bound.expr && dependsOnAttempt(hw, bound.expr, bound.env as AttemptEnv, depth + 1)) found = true;
        return;
      }
    }
    const init = constInitializer(v);
    if (init && contains(env.region.root, init) && dependsOnAttempt(hw, init, env, depth + 1)) found = true;
    const fn = localFunction(v);
    if (fn && n.parent?.type === T.CallExpression && n.parent.callee === n) {
      if (n.parent.arguments.some((a) => dependsOnAttempt(hw, a, env, depth + 1))) found = true;
    }
  });
  return found;
}

// ---------------------------------------------------------------------------------------------
// Building state variables

/** The value a variable holds before the construct starts: its initialiser or a parameter default. */
export function initialValue(hw: HandWritten, v: Variable): StateVariable['init'] {
  const def = v.defs[0]!;
  if (isBoundParameter(hw.bound, v)) return { expr: undefined, value: boundParameter(hw, def.name as Node, rootEnv(hw), v) };
  if (def.type === 'Variable') {
    const d = def.node as TSESTree.VariableDeclarator;
    if (d.id === def.name) return d.init ? { expr: d.init } : { expr: undefined, value: undefined };
  }
  const name = def.name as Node;
  if (name.parent?.type === T.AssignmentPattern && name.parent.left === name) return { expr: name.parent.right };
  return { expr: undefined };
}

/** The constant change one write makes per attempt (`i++`, `i += 2`, `i = i + 1`), when it is one. */
export function stepOf(hw: HandWritten, write: Write | undefined, v: Variable): number | undefined {
  if (!write) return undefined;
  if (write.type === T.UpdateExpression) return write.operator === '++' ? 1 : -1;
  if (write.operator === '+=' || write.operator === '-=') {
    const c = hw.evaluator.number(write.right);
    return c === UNKNOWN ? undefined : write.operator === '+=' ? c : -c;
  }
  if (write.operator === '=') return linearStep(hw, write.right, v);
  return undefined;
}

/** `x + 1`, `1 + x`, `x - 1`, `--x`: the constant change per attempt; 0 for `x` itself. */
export function linearStep(hw: HandWritten, expr: Node, v: Variable): number | undefined {
  const e = unwrap(expr);
  const isSelf = (n: Node) => {
    const u = unwrap(n);
    return u.type === T.Identifier && hw.evaluator.variableOf(u) === v;
  };
  if (isSelf(e)) return 0;
  if (e.type === T.UpdateExpression && isSelf(e.argument)) return e.prefix ? (e.operator === '++' ? 1 : -1) : 0;
  if (e.type === T.BinaryExpression && (e.operator === '+' || e.operator === '-')) {
    if (isSelf(e.left)) {
      const c = hw.evaluator.number(e.right);
      return c === UNKNOWN ? undefined : e.operator === '+' ? c : -c;
    }
    if (e.operator === '+' && isSelf(e.right)) {
      const c = hw.evaluator.number(e.left);
      return c === UNKNOWN ? undefined : c;
    }
  }
  return undefined;
}
