/**
 * How many attempts a hand-written retry makes: the first attempt after which a constraint
 * certainly fails, found by stepping through attempts (then by doubling and bisection when every
 * counter moves by a constant step), and the node a person edits to change it.
 */
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, contains, isPlainReference, unwrap } from '../ast.js';
import { UNKNOWN } from '../eval/values.js';
import type { Node, Setting } from '../model.js';
import { attemptEnv, evaluateAt, type HandWritten, type Region, type StateVariable } from './attempts.js';
import { walkExpression } from './control-flow.js';
import { stateOf } from './field-counters.js';
import { isFilterCondition } from './filter.js';
import { isOutcomeFlag } from './outcome-flags.js';
import { holds, type Constraint, type Shape } from './site.js';

/** Attempts stepped through one by one when a counter bounds the retry. */
const STEPPED = 64;
/** Doubling search up to 2^this many attempts. */
const MAX_DOUBLING_EXPONENT = 30;

/** Total attempts: the first attempt after which a constraint certainly fails. */
export function totalAttempts(hw: HandWritten, shape: Shape): Setting<number> {
  const found = guardedAttempts(hw, shape);
  // A `for…of` over a list of waits ends after its last entry, whatever its guards say.
  const passes = shape.passes;
  if (passes === undefined) return found;
  const n = found.value;
  return typeof n === 'number' && n <= passes ? found : { value: passes };
}

function guardedAttempts(hw: HandWritten, shape: Shape): Setting<number> {
  const { region } = shape;
  // A guard only a returned operation meets (`if (res.ok || !shouldRetry(res)) return res;` in the
  // try) leaves on that path; a thrown failure goes on past it, so it bounds only through a counter.
  // An abort signal's flag (`if (signal.aborted) return`) is the caller cancelling, not a bound
  // of the retry's own: whoever aborts (a user, a deadline) may never do so, and a deadline caps
  // the time, never the number of attempts R-RES-RE-3 counts. The count is read without it. A flag
  // the operation sets from its own outcome (outcome-flags.ts) stops it only on a success: no bound.
  const constraints = shape.constraints.filter(
    (c) => (!c.returnedOnly || refsCounter(hw, c.test, region)) && !isCancellation(c.test) && !isOutcomeFlag(hw, c.test, shape.operation),
  );
  const bounded = constraints.filter((c) => refsCounter(hw, c.test, region));
  const sawUnknown = new Set<Constraint>();
  const exitAt = (k: number): Constraint | undefined => {
    for (const c of constraints) {
      const h = holds(hw, c, region, k);
      if (h === UNKNOWN) sawUnknown.add(c);
      else if (!h) return c;
    }
    return undefined;
  };
  const found = (k: number, c: Constraint): Setting<number> => ({ value: Math.max(1, k), node: boundNode(hw, c, region) });
  const scanTo = bounded.length ? STEPPED : 2;
  for (let k = 1; k <= scanTo; k++) {
    const c = exitAt(k);
    if (c) return found(k, c);
  }
  if (bounded.length && bounded.every((c) => linearOnly(hw, c.test, region))) {
    let lo = scanTo;
    for (let e = 7; e <= MAX_DOUBLING_EXPONENT; e++) {
      const k = 2 ** e;
      if (exitAt(k)) {
        let hi = k;
        while (hi - lo > 1) {
          const mid = Math.floor((lo + hi) / 2);
          if (exitAt(mid)) hi = mid;
          else lo = mid;
        }
        return found(hi, exitAt(hi)!);
      }
      lo = k;
    }
  }
  for (const c of sawUnknown) {
    if (bounded.includes(c)) return { value: UNKNOWN, node: boundNode(hw, c, region) };
    if (c.loopTest && !neutralTest(hw, c.test, region)) return { value: UNKNOWN, node: c.test };
    // An exit we cannot read that is not about the error (a deadline, an abort signal, a flag
    // a timer sets) may well bound the loop.
    if (!c.loopTest && unreadableBound(hw, c.test, region)) return { value: UNKNOWN, node: c.test };
  }
  for (const c of bounded) if (hasEquality(c.test)) return { value: UNKNOWN, node: c.test };
  return { value: Infinity };
}

/**
 * Whether a condition only asks whether the caller cancelled: an abort signal's `aborted` flag
 * (`signal.aborted`, `!this.controller.signal.aborted`, `signal && signal.aborted`), nothing else.
 */
export function isCancellation(test: Node): boolean {
  const n = unwrap(test);
  if (n.type === T.UnaryExpression && n.operator === '!') return isCancellation(n.argument);
  if (n.type === T.LogicalExpression) {
    const l = isCancellation(n.left);
    const r = isCancellation(n.right);
    // `signal && signal.aborted`: a presence check beside the flag.
    return (l && r) || (l && isPlainReference(n.right)) || (r && isPlainReference(n.left));
  }
  return n.type === T.MemberExpression && !n.computed && n.property.type === T.Identifier && n.property.name === 'aborted' && isPlainReference(n.object);
}

/** A part of an exit condition that is neither a counter check nor about the error, and cannot be read. */
function unreadableBound(hw: HandWritten, test: Node, region: Region): boolean {
  const n = unwrap(test);
  if (n.type === T.UnaryExpression && n.operator === '!') return unreadableBound(hw, n.argument, region);
  if (n.type === T.LogicalExpression) return unreadableBound(hw, n.left, region) || unreadableBound(hw, n.right, region);
  if (refsCounter(hw, n, region) || isFilterCondition(hw, n, region)) return false;
  return evaluateAt(hw, n, attemptEnv(hw, region, 1)) === UNKNOWN;
}

/** Whether every counter in a condition moves by a constant step (so the doubling search is sound). */
function linearOnly(hw: HandWritten, test: Node, region: Region): boolean {
  let ok = true;
  walkExpression(test, (n) => {
    const state = stateOf(hw, n, region);
    if (state && state.step === undefined) ok = false;
  });
  return ok && !hasEquality(test);
}

function hasEquality(test: Node): boolean {
  let eq = false;
  walkExpression(test, (n) => {
    if (n.type === T.BinaryExpression && ['===', '==', '!==', '!='].includes(n.operator)) eq = true;
  });
  return eq;
}

/** A variable that counts attempts or accumulates (`attempt++`, `delay *= 2`, `retries - 1` passed on). */
export function isCounter(hw: HandWritten, state: StateVariable): boolean {
  if (state.step !== undefined) return state.step !== 0;
  if (state.carrier) return true;
  if (state.next) return true;
  const w = state.write;
  if (!w) return false;
  if (w === 'multi' || w.type === T.UpdateExpression || w.operator !== '=') return true;
  let self = false;
  walkExpression(w.right, (n) => { if (n.type === T.Identifier && hw.evaluator.variableOf(n) === state.variable) self = true; });
  return self;
}

/** Whether a condition reads a counter, directly or through consts of the region. */
export function refsCounter(hw: HandWritten, test: Node, region: Region, depth = 0, counts: (s: StateVariable) => boolean = (s) => isCounter(hw, s)): boolean {
  let hit = false;
  walkExpression(test, (n) => {
    if (hit) return;
    const field = n.type === T.MemberExpression ? stateOf(hw, n, region) : undefined;
    if (field && counts(field)) hit = true;
    if (n.type !== T.Identifier) return;
    const v = hw.evaluator.variableOf(n);
    if (!v) return;
    const state = region.vars.get(v);
    if (state) {
      if (counts(state)) hit = true;
      return;
    }
    const init = depth < 4 ? constInitializer(v) : undefined;
    if (init && contains(region.root, init) && refsCounter(hw, init, region, depth + 1, counts)) hit = true;
  });
  return hit;
}

/**
 * Whether a condition reads a count that moves by a step (`retries - 1`, `attempt++`, `n += 1`),
 * not a flag set once (`refreshed = true`): what bounds a retry to a number of attempts.
 */
export function refsSteppingCounter(hw: HandWritten, test: Node, region: Region): boolean {
  return refsCounter(hw, test, region, 0, (s) => {
    if (s.step !== undefined || s.write || !s.next) return isCounter(hw, s);
    // Passed on to the next call: a count when the next value is made from the current one.
    let self = false;
    walkExpression(s.next, (n) => { if (n.type === T.Identifier && hw.evaluator.variableOf(n) === s.variable) self = true; });
    return self;
  });
}

/**
 * Stricter than refsSteppingCounter: a count with a known step on each call (`attempt++`,
 * `n -= 1`) or passed on to the next call made from itself (`triesLeft - 1`); not a variable
 * several writes set to unrelated values (`s = 0`, `s |= 2`), which is state, not a count.
 */
export function refsMovingCount(hw: HandWritten, test: Node, region: Region): boolean {
  return refsCounter(hw, test, region, 0, (s) => {
    if (s.step !== undefined) return s.step !== 0;
    if (s.write || !s.next) return false;
    let self = false;
    walkExpression(s.next, (n) => { if (n.type === T.Identifier && hw.evaluator.variableOf(n) === s.variable) self = true; });
    return self;
  });
}

/** Loop tests that are about success, not a bound: `!done`, `!res.ok`, `true`. */
function neutralTest(hw: HandWritten, test: Node, region: Region): boolean {
  let neutral = true;
  walkExpression(test, (n) => {
    if (!neutral) return;
    if (n.type === T.CallExpression || n.type === T.ThisExpression || n.type === T.AwaitExpression) neutral = false;
    // `s.n < 3` with `s.n` written somewhere: not a fixed value, so no neutral test.
    if (n.type === T.MemberExpression && unwrap(n.object).type === T.Identifier && !stateOf(hw, n, region) && hw.evaluator.evaluate(n) === UNKNOWN && hw.evaluator.evaluate(n.object) !== UNKNOWN) neutral = false;
    if (n.type === T.Identifier) {
      const parent = n.parent;
      if (parent?.type === T.MemberExpression && parent.property === n && !parent.computed) return;
      const v = hw.evaluator.variableOf(n);
      if (!v) {
        neutral = ['undefined', 'Infinity', 'NaN'].includes(n.name);
        return;
      }
      if (region.vars.has(v) || region.roots.has(v)) return;
      if (hw.evaluator.evaluate(n) !== UNKNOWN) return;
      neutral = false;
    }
  });
  return neutral;
}

/** The node a person edits to change the bound: the limit of an increasing counter, the start of a decreasing one. */
function boundNode(hw: HandWritten, c: Constraint, region: Region): Node {
  let n = unwrap(c.test);
  for (let guard = 0; guard < 20; guard++) {
    if (n.type === T.UnaryExpression && n.operator === '!') {
      n = unwrap(n.argument);
      continue;
    }
    if (n.type === T.LogicalExpression) {
      n = unwrap(refsCounter(hw, n.left, region) ? n.left : n.right);
      continue;
    }
    break;
  }
  const counter = counterIn(hw, n, region);
  if (counter?.step !== undefined && counter.step < 0) return counter.init.expr ?? n;
  if (n.type === T.BinaryExpression && n.left.type !== T.PrivateIdentifier) {
    const l = refsCounter(hw, n.left, region);
    const r = refsCounter(hw, n.right, region);
    if (l && !r) return n.right;
    if (r && !l) return n.left;
  }
  return n;
}

function counterIn(hw: HandWritten, n: Node, region: Region): StateVariable | undefined {
  let found: StateVariable | undefined;
  walkExpression(n, (x) => {
    if (found) return;
    const state = stateOf(hw, x, region);
    if (state && isCounter(hw, state)) found = state;
  });
  return found;
}
