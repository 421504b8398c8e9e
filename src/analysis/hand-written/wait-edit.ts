/**
 * Where a suggestion may rewrite a hand-written retry's wait: the one sleep's duration, written at
 * the call site, and the counter it can be computed from (`attempt` counting retries from 0, or a
 * countdown). Recorded per site when the site is built, read only by fix-hand-written.ts.
 */
import { contains, findVariable } from '../ast.js';
import type { Node, RetrySite } from '../model.js';
import { attemptEnv, executionPosition, valueAt, type HandWritten } from './attempts.js';
import type { Shape } from './site.js';
import type { Sleep } from './sleeps.js';

export interface WaitEdit {
  /** The duration expression at the sleep's call site, which the edit replaces. */
  readonly node: Node;
  /** Source of the retry's exponent: 0 before the first retry, 1 before the second... */
  readonly exponent: string;
}

const shapes = new WeakMap<RetrySite, { hw: HandWritten; shape: Shape }>();

/** Called by buildSite: the shape a suggestion may read later (a helper read at a call is not edited there). */
export function rememberShape(site: RetrySite, hw: HandWritten, shape: Shape): void {
  if (!hw.bound) shapes.set(site, { hw, shape });
}

/** The wait of `site` and its exponent, when both can be written at the site; undefined otherwise. */
export function waitEditOf(site: RetrySite): WaitEdit | undefined {
  const found = shapes.get(site);
  if (!found) return undefined;
  const { hw, shape } = found;
  const own = shape.sleeps.filter((s) => !/retry.?after/i.test(hw.ctx.sourceCode.getText(s.node)));
  if (own.length !== 1 || own.length !== shape.sleeps.length) return undefined;
  const sleep = own[0]!;
  if (!writtenAtCall(sleep) || !contains(site.node, sleep.node)) return undefined;
  const exponent = exponentAt(hw, shape, sleep);
  return exponent === undefined ? undefined : { node: sleep.node, exponent };
}

/** The duration is the call site's own argument, passed straight to the timer (at most one helper deep). */
function writtenAtCall(sleep: Sleep): boolean {
  if (!sleep.expr) return false;
  if (sleep.frames.length === 0) return sleep.expr === sleep.node;
  if (sleep.frames.length !== 1) return false;
  const { fn, args } = sleep.frames[0]!;
  const param = fn.params[0];
  const expr = sleep.expr;
  return args[0] === sleep.node && param?.type === 'Identifier' && expr.type === 'Identifier' && expr.name === param.name &&
    contains(fn, expr);
}

/**
 * A state variable that steps by one per attempt, read where the sleep is on the first three
 * retries: `attempt` (0, 1, 2) is the exponent itself; `attempt` at 1, 2, 3 gives `attempt - 1`; a
 * countdown at 2, 1, 0 gives `2 - retries`. The name must reach that variable at the sleep.
 */
function exponentAt(hw: HandWritten, shape: Shape, sleep: Sleep): string | undefined {
  const { region } = shape;
  const offset = sleep.pos < shape.opPos ? 1 : 0;
  const point = executionPosition(sleep.node, region);
  const scope = hw.ctx.sourceCode.getScope(sleep.node);
  for (const state of region.vars.values()) {
    if (state.step !== 1 && state.step !== -1) continue;
    const name = state.variable.name;
    if (findVariable(scope, name) !== state.variable) continue;
    const values = [1, 2, 3].map((n) => valueAt(hw, state, attemptEnv(hw, region, n + offset), point));
    if (!values.every((v): v is number => typeof v === 'number' && Number.isInteger(v))) continue;
    const [first, second, third] = values as [number, number, number];
    if (second - first !== state.step || third - second !== state.step) continue;
    if (state.step === 1) return first === 0 ? name : `${name} - ${first}`;
    return `${first} - ${name}`;
  }
  return undefined;
}
