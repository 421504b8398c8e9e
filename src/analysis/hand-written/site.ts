/**
 * The shape of a hand-written retry (what is repeated, what must hold to get from a failure to
 * the next attempt, the waits on the way) and how a shape is read into a retry site.
 */
import { truth, UNKNOWN, type Unknown } from '../eval/values.js';
import { site } from '../libraries/shared.js';
import type { Node, RetrySite } from '../model.js';
import { attemptEnv, evaluateAt, type AttemptQuestion, type HandWritten, type Region } from './attempts.js';
import { totalAttempts } from './bound.js';
import { errorFilter } from './filter.js';
import { waitSchedule } from './schedule.js';
import { attemptTimeout } from './timeouts.js';
import type { Sleep } from './sleeps.js';
import { rememberShape } from './wait-edit.js';

/** Constraint on getting from a failure to the next attempt: `test` must evaluate to `want`. */
export interface Constraint {
  readonly test: Node;
  readonly want: boolean;
  /** Evaluated at the start of the next attempt (a loop test, a guard before the operation). */
  readonly next: boolean;
  readonly loopTest?: boolean;
  /** A `switch` on `test`: whether each case (first match wins) and any other value go on to another attempt. */
  readonly cases?: { readonly list: readonly { readonly test: Node; readonly retries: boolean }[]; readonly otherwise: boolean };
}

export interface Shape {
  readonly region: Region;
  readonly operation: Node;
  readonly constraints: Constraint[];
  /** Conditions under which the attempt throws into a catch that retries everything. */
  readonly throwGuards: Node[];
  readonly sleeps: Sleep[];
  /** Execution position of the operation (sleeps before it wait for the next attempt). */
  readonly opPos: number;
}

/** Whether a constraint holds after attempt `attempt` failed (UNKNOWN when it cannot be read). */
export function holds(hw: HandWritten, c: Constraint, region: Region, attempt: number, question: AttemptQuestion = {}): boolean | Unknown {
  const env = attemptEnv(hw, region, attempt + (c.next ? 1 : 0), question);
  if (c.cases) return switchHolds(hw, c.test, c.cases, env);
  const v = truth(evaluateAt(hw, c.test, env));
  return v === UNKNOWN ? UNKNOWN : v === c.want;
}

function switchHolds(hw: HandWritten, discriminant: Node, cases: NonNullable<Constraint['cases']>, env: ReturnType<typeof attemptEnv>): boolean | Unknown {
  const d = evaluateAt(hw, discriminant, env);
  if (d === UNKNOWN || (typeof d === 'object' && d !== null)) return UNKNOWN;
  for (const c of cases.list) {
    const v = evaluateAt(hw, c.test, env);
    if (v === UNKNOWN || (typeof v === 'object' && v !== null)) return UNKNOWN;
    if (v === d) return c.retries;
  }
  return cases.otherwise;
}

export function buildSite(hw: HandWritten, shape: Shape, where: { node: Node; reportNode: Node; label: string }): RetrySite {
  const attempts = totalAttempts(hw, shape);
  const { delay, jitter } = waitSchedule(hw, shape, attempts.value);
  const built = site({
    library: 'hand-written',
    label: where.label,
    node: where.node,
    reportNode: where.reportNode,
    attempts,
    delay,
    jitter,
    errorFilter: errorFilter(hw, shape),
    attemptTimeoutMs: attemptTimeout(hw, shape),
    operation: shape.operation,
  });
  rememberShape(built, hw, shape);
  return built;
}
