/**
 * Where a suggestion may rewrite a hand-written retry's wait: the one sleep's duration, written at
 * the call site, and the counter it can be computed from (`attempt` counting retries from 0, or a
 * countdown). Recorded per site when the site is built, read only by fix-hand-written.ts.
 */
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { contains, findVariable, isFunctionNode } from '../ast.js';
import { nameInUse } from '../fix-imports.js';
import type { Node, RetrySite } from '../model.js';
import { attemptEnv, executionPosition, valueAt, type HandWritten } from './attempts.js';
import type { Shape } from './site.js';
import type { Sleep } from './sleeps.js';

export interface WaitEdit {
  /** The duration expression at the sleep's call site, which the edit replaces. */
  readonly node?: Node | undefined;
  /**
   * A loop that does not wait at all: where a guarded wait goes (the start of the loop body), the
   * guard that skips it before the first attempt, and the indentation of the line.
   */
  readonly insert?: { readonly at: number; readonly guard: string; readonly indent: string } | undefined;
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
  if (shape.sleeps.length === 0) return insertedWait(hw, shape);
  const own = shape.sleeps.filter((s) => !/retry.?after/i.test(hw.ctx.sourceCode.getText(s.node)));
  if (own.length !== 1 || own.length !== shape.sleeps.length) return undefined;
  const sleep = own[0]!;
  if (!writtenAtCall(sleep) || !contains(site.node, sleep.node)) return undefined;
  const offset = sleep.pos < shape.opPos ? 1 : 0;
  const counter = counterAt(hw, shape, executionPosition(sleep.node, shape.region), offset, sleep.node);
  return counter && { node: sleep.node, exponent: counter.exponent };
}

/**
 * A loop that retries at once gets `if (attempt > 0) await new Promise(...)` as the first statement
 * of its body: a wait before every attempt but the first, so none is added after the last one.
 */
function insertedWait(hw: HandWritten, shape: Shape): WaitEdit | undefined {
  const loop = shape.region.loop;
  const body = loop?.body;
  if (!loop || shape.region.kind !== 'loop' || body?.type !== T.BlockStatement || body.body.length === 0) return undefined;
  const first = body.body[0]!;
  if (first.range[0] > shape.operation.range[0] || !enclosingAsync(loop) || nameInUse(hw.ctx, 'setTimeout', loop)) return undefined;
  const counter = counterAt(hw, shape, executionPosition(first, shape.region), 1, first);
  if (counter?.beforeFirst === undefined) return undefined;
  const line = hw.ctx.sourceCode.lines[first.loc.start.line - 1] ?? '';
  return {
    exponent: counter.exponent,
    insert: { at: first.range[0], guard: `${counter.name} ${counter.step === 1 ? '>' : '<'} ${counter.beforeFirst}`, indent: /^\s*/.exec(line)![0] },
  };
}

function enclosingAsync(node: Node): boolean {
  for (let n = node.parent; n; n = n.parent) if (isFunctionNode(n)) return n.async;
  return false;
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

interface Counter {
  readonly name: string;
  readonly step: 1 | -1;
  /** Source of the exponent from the counter. */
  readonly exponent: string;
  /** The counter's value at this point of the first attempt (a wait there must be skipped), when read. */
  readonly beforeFirst: number | undefined;
}

/**
 * A state variable that steps by one per attempt, read at `point` before the first three retries
 * (`offset` 1 for a point before the operation, which waits for the next attempt): `attempt` at
 * 0, 1, 2 is the exponent itself; at 1, 2, 3 it gives `attempt - 1`; a countdown at 2, 1, 0 gives
 * `2 - retries`. The name must reach that variable at `at`.
 */
function counterAt(hw: HandWritten, shape: Shape, point: number, offset: number, at: Node): Counter | undefined {
  const { region } = shape;
  const scope = hw.ctx.sourceCode.getScope(at);
  for (const state of region.vars.values()) {
    const step = state.step;
    if (step !== 1 && step !== -1) continue;
    const name = state.variable.name;
    if (findVariable(scope, name) !== state.variable) continue;
    // Retries 1..3, and (for a point before the operation) the first attempt itself.
    const values = [1 - offset, 1, 2, 3].map((n) => (n + offset >= 1 ? valueAt(hw, state, attemptEnv(hw, region, n + offset), point) : undefined));
    const [before, first, second, third] = values;
    if (![first, second, third].every((v) => typeof v === 'number' && Number.isInteger(v))) continue;
    const [a, b, c] = [first, second, third] as [number, number, number];
    if (b - a !== step || c - b !== step) continue;
    const exponent = step === 1 ? (a === 0 ? name : `${name} - ${a}`) : `${a} - ${name}`;
    const beforeFirst = typeof before === 'number' && a - before === step ? before : undefined;
    return { name, step, exponent, beforeFirst };
  }
  return undefined;
}
