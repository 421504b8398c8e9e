/**
 * The wait schedule of a hand-written retry: each sleep's duration evaluated per attempt (random
 * terms as ranges), its growth read by the shared classifier under any `Math.min` cap, the cap
 * remembered as the maximum; several sleeps combine into their worst case.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { unwrap } from '../ast.js';
import type { Node } from '../model.js';
import { UNKNOWN, isKnown, toInterval, type Interval, type Maybe, type Value } from '../eval/values.js';
import type { Flags } from '../eval/environment.js';
import { frameFor } from '../eval/functions.js';
import type { DelaySchedule, Growth, Setting } from '../model.js';
import { classifyWaits, customSchedule } from '../schedule.js';
import { attemptEnv, evaluateAt, type AttemptEnv, type AttemptQuestion, type HandWritten } from './attempts.js';
import type { Shape } from './site.js';
import type { Sleep } from './sleeps.js';

export interface WaitSchedule {
  readonly delay: DelaySchedule;
  readonly jitter: Setting<boolean>;
}

/** Growth kinds from the gentlest: several sleeps take the gentlest (the one a reader would fix last). */
const GROWTH_RANK: readonly Growth[] = ['none', 'constant', 'linear', 'polynomial', 'exponential', 'custom'];
/** Stand-ins for a scale that is not known (a parameter without default), to read the shape alone. */
const PROBES = [977, 1733] as const;

export function waitSchedule(hw: HandWritten, shape: Shape, attempts: Maybe<number>): WaitSchedule {
  let sleeps = shape.sleeps;
  if (sleeps.length > 1) {
    // A wait taken from Retry-After is the server's; the backoff is the other one.
    const own = sleeps.filter((s) => !/retry.?after/i.test(hw.ctx.sourceCode.getText(s.node)));
    if (own.length > 0) sleeps = own;
  }
  if (sleeps.length === 0) {
    return { delay: customSchedule('none', () => 0, { initialMs: 0, multiplier: 1, maxMs: 0 }), jitter: { value: false } };
  }
  const parts = sleeps.map((s) => sleepSchedule(hw, shape, s, attempts));
  // A way back with no wait at all: its part of the schedule, shown where it goes back.
  if (shape.immediate) parts.unshift({ delay: customSchedule('none', () => 0, { initialMs: 0, multiplier: 1, maxMs: 0, node: shape.immediate }), jitter: { value: false, node: shape.immediate } });
  return combineSchedules(parts);
}

/** Several waits (or several ways back, each with its waits) as one schedule: the gentlest growth, the longest wait. */
export function combineSchedules(parts: readonly WaitSchedule[]): WaitSchedule {
  if (parts.length === 1) return parts[0]!;
  const growths = parts.map((p) => p.delay.growth);
  const growth = growths.some((g) => !isKnown(g)) ? UNKNOWN : growths.reduce((a, b) => (GROWTH_RANK.indexOf(b as Growth) < GROWTH_RANK.indexOf(a as Growth) ? b : a));
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

interface WaitsRead {
  readonly waits: Interval[] | undefined;
  readonly random: boolean;
  readonly cap: number | undefined;
}

/** The wait one sleep makes before retry `n`, read for a question (a status, a probe). */
export function waitReader(hw: HandWritten, shape: Shape, sleep: Sleep): (n: number, question: AttemptQuestion) => { value: Value; flags: Flags } {
  // A sleep before the operation waits for the next attempt.
  const offset = sleep.pos < shape.opPos ? 1 : 0;
  return (n, question) => {
    const flags: Flags = { random: false };
    if (!sleep.expr) return { value: UNKNOWN, flags };
    let env: AttemptEnv = attemptEnv(hw, shape.region, n + offset, { ...question, flags });
    for (const f of sleep.frames) env = { ...env, frame: frameFor(hw.ctx.sourceCode, f.fn, f.args, env) };
    const value = evaluateAt(hw, sleep.expr, env);
    // A timer given NaN fires at once (Node and browsers read it as 0 or 1 ms): no wait.
    return { value: typeof value === 'number' && Number.isNaN(value) && timerDelay(sleep.expr) ? 0 : value, flags };
  };
}

function sleepSchedule(hw: HandWritten, shape: Shape, sleep: Sleep, attempts: Maybe<number>): WaitSchedule {
  const waitAt = waitReader(hw, shape, sleep);
  const bounds = new Map<number, Maybe<number>>();
  const upperBound = (n: number): Maybe<number> => {
    let b = bounds.get(n);
    if (b === undefined) {
      const i = toInterval(waitAt(n, {}).value);
      b = i ? Math.max(0, i.hi) : UNKNOWN;
      bounds.set(n, b);
    }
    return b;
  };
  const samples = isKnown(attempts) && attempts !== Infinity ? Math.max(Math.min(attempts - 1, 10), 4) : 10;
  const read = (question: AttemptQuestion): WaitsRead => {
    const waits: Interval[] = [];
    let random = false;
    let cap: number | undefined;
    for (let n = 1; n <= samples; n++) {
      const { value, flags } = waitAt(n, { ...question, uncapped: true });
      random ||= flags.random;
      if (flags.cap !== undefined) cap = cap === undefined ? flags.cap : Math.min(cap, flags.cap);
      const i = toInterval(value);
      if (!i) {
        if (value === undefined && waits.length >= 1) break; // ran past the end of a delay table
        return { waits: undefined, random, cap };
      }
      waits.push(i);
    }
    return { waits, random, cap };
  };
  const real = read({});
  let growth: Maybe<Growth> = UNKNOWN;
  let multiplier: Maybe<number> = UNKNOWN;
  let initialMs: Maybe<number> = UNKNOWN;
  let maxMs: Maybe<number> = UNKNOWN;
  let jitter: Maybe<boolean> = real.random ? true : UNKNOWN;
  if (real.waits) {
    const c = classifyWaits(pointsOf(real.waits));
    growth = c.growth;
    multiplier = c.multiplier;
    const first = toInterval(waitAt(1, {}).value);
    initialMs = first ? (first.lo > 0 ? first.lo : first.hi) : UNKNOWN;
    maxMs = real.cap ?? c.capMs ?? (growth === 'constant' || growth === 'none' ? initialMs : Infinity);
    if (!real.random) jitter = false;
  } else {
    // The scale is unknown (a parameter without default): the shape may still be readable.
    const [p1, p2] = PROBES.map((probe) => read({ probe }));
    if (p1!.waits && p2!.waits) {
      const c1 = classifyWaits(pointsOf(p1!.waits));
      const c2 = classifyWaits(pointsOf(p2!.waits));
      if (c1.growth === c2.growth && c1.multiplier === c2.multiplier) {
        growth = c1.growth;
        multiplier = c1.multiplier;
      }
      jitter = p1!.random || p2!.random || real.random;
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
  return { delay, jitter: { value: jitter, node: sleep.node } };
}

/** The delay argument of a `setTimeout(fn, ms)` call (global, `timers/promises` or a member `x.setTimeout`). */
function timerDelay(expr: Node): boolean {
  const call = expr.parent;
  if (call?.type !== T.CallExpression || !call.arguments.includes(expr as TSESTree.CallExpressionArgument)) return false;
  const callee = unwrap(call.callee);
  const name = callee.type === T.Identifier ? callee.name : callee.type === T.MemberExpression && !callee.computed && callee.property.type === T.Identifier ? callee.property.name : undefined;
  return name === 'setTimeout';
}

/** One number per wait: the lower ends when all are positive (the base under the jitter), else the upper. */
function pointsOf(waits: readonly Interval[]): number[] {
  const useLo = waits.every((i) => i.lo > 0);
  return waits.map((i) => (useLo ? i.lo : i.hi));
}
