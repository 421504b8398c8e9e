/**
 * Retry loops: a `for`/`while`/`do` loop that repeats an operation after a failure, either in a
 * try/catch whose catch goes on to the next iteration, or on a failed response (`if (res.ok)
 * return res;`). A loop that feeds each iteration a different input is a walk, not a retry.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, contains, isFunctionNode, isLoopNode, loopTest, memberName, unwrap, walk, type Loop, type Variable } from '../ast.js';
import { UNKNOWN, type Value } from '../eval/values.js';
import type { Node, RetrySite } from '../model.js';
import { executionPosition, initialValue, regionWrite, stepOf, type HandWritten, type Region, type StateVariable } from './attempts.js';
import { isCounter } from './bound.js';
import {
  RESULT_ERROR_KEYS, calleeName, calleeOf, chainRoot, continues, endsCase, exitOf, following, scanLoop, sequenceExits, walkExpression, writeExpression, type LoopScan,
} from './control-flow.js';
import { isFilterCondition, leavesOnSuccess, retriesFailuresOnly } from './filter.js';
import { buildSite, type Constraint, type Shape } from './site.js';
import { isSleepCall, loopSleeps } from './sleeps.js';
import { loopFieldCounters } from './field-counters.js';
import { immediateWayBack } from './immediate.js';
import { LOGGER_NAME } from '../operations/vocabulary.js';
import { responseArguments } from './status-predicates.js';
import { delayList, type DelayList } from './delay-lists.js';

export function loopSite(hw: HandWritten, loop: Loop): RetrySite | undefined {
  // A `for…of` retries only through a list of waits: one pass per entry.
  const waits = loop.type === T.ForOfStatement ? delayList(hw, loop) : undefined;
  if (loop.type === T.ForOfStatement && !waits) return undefined;
  const scan = scanLoop(loop);
  // The loop's state is read only for a loop that gets past the cheap tests (most loops with a
  // try/catch rethrow or leave from the catch, and are no retry).
  let region: Region | undefined;
  const regionOf = () => (region ??= loopRegion(hw, loop, scan, waits));
  let shape: Shape | undefined;
  for (const t of scan.tries) {
    shape = tryShape(hw, loop, scan, t, regionOf);
    if (shape) break;
  }
  shape ??= responseShape(hw, loop, scan, regionOf);
  shape ??= resultShape(hw, loop, scan, regionOf);
  if (!shape) return undefined;
  if (!shape.firstCallBefore && calledAfter(hw, loop, shape.operation)) shape = { ...shape, lastCallAfter: true };
  if (waits) shape = { ...shape, passes: waits.values.length };
  const label = loop.type === T.ForStatement ? 'for loop' : loop.type === T.WhileStatement ? 'while loop' : loop.type === T.ForOfStatement ? 'for...of loop' : 'do...while loop';
  return buildSite(hw, shape, { node: loop, reportNode: loop.type === T.ForOfStatement ? loop.right : loop.test ?? loop, label });
}

/** The loop's state variables: declared in its init, or written in it and declared outside its body. */
function loopRegion(hw: HandWritten, loop: Loop, scan: LoopScan, waits?: DelayList): Region {
  const vars = new Map<Variable, StateVariable>();
  if (waits) vars.set(waits.variable, { variable: waits.variable, init: { expr: undefined, value: waits.values[0] }, sequence: waits.values, memo: new Map() });
  const candidates: Variable[] = [];
  if (loop.type === T.ForStatement && loop.init?.type === T.VariableDeclaration) {
    for (const d of loop.init.declarations) {
      try {
        candidates.push(...(hw.ctx.sourceCode.scopeManager?.getDeclaredVariables(d) ?? []));
      } catch { /* no scope information: no counters */ }
    }
  }
  for (const id of scan.writes) {
    const v = hw.evaluator.variableOf(id);
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
    const { write, copies } = regionWrite(writes.map((r) => r.identifier as Node), (n) => hw.ctx.sourceCode.getText(n));
    const outsideWrites = v.references.some((r) => r.isWrite() && !r.init && !contains(loop, r.identifier as Node));
    const init = declaredInInit
      ? { expr: (def.node as TSESTree.VariableDeclarator).init ?? undefined }
      : outsideWrites ? { expr: undefined, value: UNKNOWN as Value } : initialValue(hw, v);
    vars.set(v, { variable: v, init, write, copies, step: write === 'multi' ? undefined : stepOf(hw, write, v), memo: new Map() });
  }
  return { kind: 'loop', root: loop, loop, vars, roots: new Set(), fields: loopFieldCounters(hw, loop) };
}

/** A try/catch in the loop whose catch goes on to another attempt. */
function tryShape(hw: HandWritten, loop: Loop, scan: LoopScan, t: TSESTree.TryStatement, regionOf: () => Region): Shape | undefined {
  const handler = t.handler;
  if (!handler) return undefined;
  // The failure path must go on to another attempt.
  if (exitOf(handler.body, loop)) return undefined;
  const inTry = (n: Node) => contains(t.block, n);
  const inCatch = (n: Node) => contains(handler.body, n);
  const operation = operationOf(hw, scan.awaits.filter(inTry), t.block);
  if (!operation) return undefined;
  const region = regionOf();
  if (!succeedsOnce(hw, loop, scan, t, region, inTry, inCatch)) return undefined;
  if (iteratesCollection(hw, region, scan, operation)) return undefined;
  // A write that only happens once the operation succeeded (`done = true`, `result = await op()`)
  // does not happen on the attempts that lead to a retry.
  for (const [v, state] of region.vars) {
    const w = state.write;
    // (A write repeated on several paths is the failure paths' own: `delay *= 2` before each `continue`.)
    if (w && w !== 'multi' && !state.copies && inTry(w) && w.range[1] > operation.range[0]) {
      region.vars.set(v, { ...state, write: undefined, step: undefined, memo: new Map() });
    }
  }
  const roots = region.roots;
  if (handler.param?.type === T.Identifier) {
    const v = hw.evaluator.variableOf(handler.param);
    if (v) roots.add(v);
  }
  for (const v of responseVariables(hw, scan.awaits.filter(inTry), loop)) roots.add(v);
  const opPos = executionPosition(operation, region);
  const constraints = loopTestConstraint(loop);
  const throwGuards: Node[] = [];
  for (const i of scan.ifs) {
    if (!inTry(i)) {
      // In a `case` that falls through to the next, the guard is on one way into the cases after it only.
      if (inFallingCase(i, loop)) continue;
      const c = guardOf(i, loop, opPos, region);
      if (c) constraints.push(c);
    } else if (exitOf(i.consequent, loop) === 'throw' && !i.alternate) {
      throwGuards.push(i.test);
    } else if (exitOf(i.consequent, loop) === 'leave' || exitOf(i.alternate, loop) === 'leave') {
      // `if (ok) return res; else if (status < 500) return fail(); else throw err;`: in the try,
      // a throw goes to the catch, so only the branches that leave end the retry.
      const c = guardOf(i, loop, opPos, region, true);
      if (c) constraints.push(operation.range[1] <= i.range[0] ? { ...c, returnedOnly: true } : c);
    }
  }
  for (const sw of scan.switches) {
    const c = inCatch(sw) ? switchGuard(sw, loop, handler.body) : undefined;
    if (c) constraints.push(c);
  }
  const sleeps = loopSleeps(hw, scan, inTry, operation);
  return { region, operation, constraints, throwGuards, sleeps, opPos, immediate: immediateWayBack(hw, loop, scan.continues, region, sleeps, opPos) };
}

/** Whether `n` is in a `case` of a switch in the loop that runs on into the next case (no break, return, throw or continue at its end). */
function inFallingCase(n: Node, loop: Loop): boolean {
  for (let p = n.parent; p && p !== loop; p = p.parent) {
    if (p.type !== T.SwitchCase) continue;
    const cases = (p.parent as TSESTree.SwitchStatement).cases;
    if (cases.indexOf(p) === cases.length - 1) return false;
    return !endsCase(p.consequent);
  }
  return false;
}

/**
 * Whether success ends the loop: a return, break or success flag in the try block (and, when the
 * try can also end normally, only on a failed response), or statements after the try that leave
 * while the catch continues.
 */
function succeedsOnce(hw: HandWritten, loop: Loop, scan: LoopScan, t: TSESTree.TryStatement, region: Region, inTry: (n: Node) => boolean, inCatch: (n: Node) => boolean): boolean {
  const flag = successFlag(hw, loop, scan, inTry);
  const successInTry = scan.returns.some(inTry) || scan.breaks.some(inTry) || flag;
  if (successInTry && !exitOf(t.block, loop) && !flag) {
    // The attempt can end without an exception and without leaving: only a retry if that
    // happens on a failed response (`if (res.ok) return res;`), otherwise it is polling.
    const responses = new Set([...region.roots, ...responseVariables(hw, scan.awaits.filter(inTry), loop)]);
    const r: Region = { ...region, roots: responses };
    const leaves = scan.ifs.filter((i) => inTry(i) && (exitOf(i.consequent, loop) === 'leave' || exitOf(i.alternate, loop) === 'leave'))
      .map((i) => guardOf(i, loop, -Infinity, r, true)).filter((c): c is Constraint => !!c);
    if (leaves.length === 0 || !leavesOnSuccess(hw, r, leaves)) return false;
  }
  if (successInTry) return true;
  const rest = following(t, loop.body)[0] ?? [];
  const direct = t.parent === loop.body || t.parent?.parent === loop;
  return direct && !!sequenceExits(rest, loop) && scan.continues.some(inCatch);
}

/** `while (!done && ...)` with `done = true` in the try block. */
function successFlag(hw: HandWritten, loop: Loop, scan: LoopScan, inTry: (n: Node) => boolean): boolean {
  const test = loopTest(loop);
  if (!test) return false;
  const inTest = new Set<Variable>();
  walkExpression(test, (n) => {
    if (n.type !== T.Identifier) return;
    const v = hw.evaluator.variableOf(n);
    if (v) inTest.add(v);
  });
  return scan.writes.some((w) => {
    const v = hw.evaluator.variableOf(w);
    if (!v || !inTry(w) || !inTest.has(v)) return false;
    // Set to a constant (`done = true`): an accumulator (`bytes += n`) is progress, not success.
    const assign = w.parent;
    if (assign?.type !== T.AssignmentExpression || assign.operator !== '=' || assign.left !== w) return false;
    const set = hw.evaluator.evaluate(assign.right);
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
function iteratesCollection(hw: HandWritten, region: Region, scan: LoopScan, operation: Node): boolean {
  const counters = [...region.vars.values()].filter((s) => s.step !== undefined && s.step !== 0).map((s) => s.variable);
  for (const m of counters.length ? scan.computed : []) {
    if (m.range[0] > operation.range[1]) continue;
    let hit = false;
    walkExpression(m.property, (n) => {
      if (n.type === T.Identifier && counters.includes(hw.evaluator.variableOf(n)!)) hit = true;
    });
    if (hit) return true;
  }
  let moves = false;
  const visit = (expr: Node, depth: number) => walkExpression(expr, (n) => {
    if (moves || n.type !== T.Identifier) return;
    const v = hw.evaluator.variableOf(n);
    if (!v) return;
    const state = region.vars.get(v);
    if (state) {
      if (!isCounter(hw, state) && state.write !== undefined && !region.roots.has(v)) moves = true;
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

const TYPE_WRAPPERS: ReadonlySet<string> = new Set([T.TSAsExpression, T.TSNonNullExpression, T.TSSatisfiesExpression, T.TSTypeAssertion]);

/** Variables holding the awaited result of a call: the responses whose status a guard reads. */
function responseVariables(hw: HandWritten, awaits: readonly TSESTree.AwaitExpression[], scope: Node): Variable[] {
  const out: Variable[] = [];
  for (const w of awaits) {
    if (isSleepCall(hw, w.argument)) continue;
    // `(await client.channels.fetch(id)) as TextChannel`: a type assertion leaves the value as it is.
    let value: Node = w;
    while (value.parent && TYPE_WRAPPERS.has(value.parent.type)) value = value.parent;
    const p = value.parent;
    let id: Node | undefined;
    if (p?.type === T.VariableDeclarator && p.init === value) id = p.id;
    else if (p?.type === T.AssignmentExpression && p.right === value) id = p.left;
    if (id?.type !== T.Identifier) continue;
    const v = hw.evaluator.variableOf(id);
    if (v && contains(scope, w)) out.push(v);
  }
  return out;
}

function loopTestConstraint(loop: Loop): Constraint[] {
  const test = loopTest(loop);
  if (!test) return [];
  return [{ test, want: true, next: loop.type !== T.DoWhileStatement, loopTest: true }];
}

/** An `if` on the failure path that leaves the loop on one side: a bound or a filter. */
export function guardOf(i: TSESTree.IfStatement, loop: Loop | undefined, opPos: number, region: Region, caught = false): Constraint | undefined {
  const next = executionPosition(i, region) < opPos;
  const a = exitOf(i.consequent, loop, caught);
  const b = exitOf(i.alternate, loop, caught);
  if (a && !b) return { test: i.test, want: false, next };
  if (b && !a) return { test: i.test, want: true, next };
  if (!a && !b && loop && continues(i.consequent, loop) && !i.alternate) {
    const rest = following(i, loop.body)[0] ?? [];
    if (sequenceExits(rest, loop, caught)) return { test: i.test, want: true, next };
  }
  return undefined;
}

/**
 * `switch (error.name) { case 'ResponseError': throw error; case 'ConnectionError': ... continue; }`
 * in the catch (or on a response, in the loop's body): the cases that may reach another attempt,
 * read as a guard on the discriminant. `block` holds the switch; what follows it there decides
 * where a `break` out of the switch leads.
 */
function switchGuard(sw: TSESTree.SwitchStatement, loop: Loop, block: TSESTree.BlockStatement): Constraint | undefined {
  const afterLeaves = !!sequenceExits(following(sw, block)[0] ?? [], loop);
  const retries = sw.cases.map((_, j) => caseRetries(sw, j, loop, afterLeaves));
  if (!retries.includes(true) || !retries.includes(false)) return undefined;
  const byDefault = sw.cases.findIndex((c) => c.test === null);
  const cases = sw.cases.map((c, j) => ({ test: c.test ?? undefined, retries: retries[j]! })).filter((c) => c.test);
  return { test: sw.discriminant, want: true, next: false, cases: { list: cases as { test: Node; retries: boolean }[], otherwise: byDefault >= 0 ? retries[byDefault]! : !afterLeaves } };
}

/** Whether the statements from case `j` on (falling through) may reach another attempt. */
function caseRetries(sw: TSESTree.SwitchStatement, j: number, loop: Loop, afterLeaves: boolean): boolean {
  for (let k = j; k < sw.cases.length; k++) {
    for (const st of sw.cases[k]!.consequent) {
      if (mayGoOn(st, loop)) return true;
      if (st.type === T.BreakStatement && !st.label) return !afterLeaves;
      if (exitOf(st, loop)) return false;
    }
  }
  return !afterLeaves;
}

/** A statement holding a `continue` of the loop or a `break` out of the switch, not its last word. */
function mayGoOn(st: TSESTree.Statement, loop: Loop): boolean {
  if (st.type === T.BreakStatement || st.type === T.ContinueStatement) return st.type === T.ContinueStatement && continues(st, loop);
  let found = false;
  // Inside a nested loop or switch, a bare `continue` or `break` is theirs.
  const skip = (n: Node) => isFunctionNode(n) || isLoopNode(n) || n.type === T.SwitchStatement;
  walk(st, (n) => {
    if (n.type === T.ContinueStatement && continues(n, loop)) found = true;
    else if (n.type === T.BreakStatement && !n.label) found = true;
  }, { skip });
  return found;
}

const LOG_METHOD = /^(?:log|debug|info|warn|error|trace)$/;

/** The call being repeated: the first awaited call that is not a sleep, else the first call statement. */
export function operationOf(hw: HandWritten, awaits: readonly TSESTree.AwaitExpression[], block: TSESTree.BlockStatement, self?: Node): Node | undefined {
  for (const w of awaits) {
    const root = chainRoot(w.argument);
    if ((root.type === T.CallExpression || root.type === T.NewExpression) && !isSleepCall(hw, root) && !isSleepCall(hw, w.argument) && root !== self) return root;
  }
  for (const s of block.body) {
    let e: Node | null | undefined;
    if (s.type === T.ExpressionStatement) e = s.expression;
    else if (s.type === T.ReturnStatement) e = s.argument;
    else if (s.type === T.VariableDeclaration) e = s.declarations[0]?.init;
    if (!e) continue;
    const root = chainRoot(e);
    if (root.type !== T.CallExpression || isSleepCall(hw, root) || root === self) continue;
    const name = calleeName(root);
    const callee = unwrap(root.callee);
    const object = callee.type === T.MemberExpression ? unwrap(callee.object) : undefined;
    if (object?.type === T.Identifier && LOGGER_NAME.test(object.name)) continue;
    if (name && LOG_METHOD.test(name)) continue;
    return root;
  }
  return undefined;
}

/** A loop without try/catch that goes on while the response it gets is a failure. */
function responseShape(hw: HandWritten, loop: Loop, scan: LoopScan, regionOf: () => Region): Shape | undefined {
  const candidates = new Map<Variable, Node>();
  for (const m of scan.statusMembers) {
    // `res.status`, or node's `response.message.statusCode` (an IncomingMessage under `message`).
    const held = unwrap(m.object);
    const obj = held.type === T.MemberExpression && !held.computed && memberName(held) === 'message' ? unwrap(held.object) : held;
    if (obj.type !== T.Identifier) continue;
    const v = hw.evaluator.variableOf(obj);
    if (!v || candidates.has(v)) continue;
    const op = assignedCall(hw, v, loop);
    if (op) candidates.set(v, op);
  }
  // `if (!shouldRetry(res)) return res`: the response read in a function of the file it is handed to.
  for (const call of scan.namedCalls) {
    for (const arg of responseArguments(hw.evaluator, hw.ctx.sourceCode, call)) {
      const v = hw.evaluator.variableOf(arg);
      if (!v || candidates.has(v)) continue;
      const op = assignedCall(hw, v, loop);
      if (op) candidates.set(v, op);
    }
  }
  for (const [v, operation] of candidates) {
    const roots = new Set<Variable>([v]);
    const r: Region = { ...regionOf(), roots };
    if (iteratesCollection(hw, r, scan, operation)) continue;
    const { opPos, constraints } = loopConstraints(loop, scan, operation, r);
    // A retry: the loop leaves on success (2xx) and goes on for some failure status.
    const filters = constraints.filter((c) => isFilterCondition(hw, c.test, r));
    if (filters.length === 0) continue;
    if (!retriesFailuresOnly(hw, r, filters)) continue;
    const sleeps = loopSleeps(hw, scan, () => false, operation, roots);
    return { region: r, operation, constraints, throwGuards: [], sleeps, opPos, firstCallBefore: calledBefore(hw, v, loop, operation) };
  }
  return undefined;
}

/** Whether the response variable starts as the result of the same call, made before the loop (`let res = await op()`). */
function calledBefore(hw: HandWritten, v: Variable, loop: Loop, operation: Node): boolean {
  const def = v.defs.length === 1 ? v.defs[0] : undefined;
  const d = def?.node;
  if (def?.type !== 'Variable' || d?.type !== T.VariableDeclarator || !d.init || d.range[1] > loop.range[0]) return false;
  const init = unwrap(d.init);
  if (init.type !== T.AwaitExpression || operation.type !== T.CallExpression) return false;
  const first = chainRoot(init.argument);
  const text = (n: Node) => hw.ctx.sourceCode.getText(n).replace(/\s+/g, '');
  return first.type === T.CallExpression && text(first) === text(operation);
}

/**
 * Whether the statement right after the loop makes the same call once more (`do { ... } while (n <
 * max); return request();`): the loop's bound leaves into one more attempt.
 */
function calledAfter(hw: HandWritten, loop: Loop, operation: Node): boolean {
  const block = loop.parent;
  if (block?.type !== T.BlockStatement || operation.type !== T.CallExpression) return false;
  const next = block.body[block.body.indexOf(loop as TSESTree.Statement) + 1];
  const e = next?.type === T.ReturnStatement ? next.argument : next?.type === T.ExpressionStatement ? next.expression : undefined;
  if (!e) return false;
  const u = unwrap(e);
  const call = chainRoot(u.type === T.AwaitExpression ? u.argument : u);
  const text = (n: Node) => hw.ctx.sourceCode.getText(n).replace(/\s+/g, '');
  return call.type === T.CallExpression && text(call) === text(operation);
}

/** The loop's own test and the guards of its ifs, read around one candidate operation. */
function loopConstraints(loop: Loop, scan: LoopScan, operation: Node, r: Region): { opPos: number; constraints: Constraint[] } {
  const opPos = executionPosition(operation, r);
  const constraints = loopTestConstraint(loop);
  for (const i of scan.ifs) {
    const c = guardOf(i, loop, opPos, r);
    if (c) constraints.push(c);
  }
  // `switch (res.status) { case 502: case 503: break; default: throw ... }` in the loop's body after
  // the request: the cases that go on to another attempt, read as a guard on the status.
  for (const sw of scan.switches) {
    const block = sw.parent;
    if (block !== loop.body || block.type !== T.BlockStatement || executionPosition(sw, r) < opPos) continue;
    const c = switchGuard(sw, loop, block);
    if (c) constraints.push(c);
  }
  return { opPos, constraints };
}

/**
 * A loop without try/catch on a returned result (`{ data } | { error }`): it leaves once the
 * result carries no error and goes round again on one (`if (!result.error) return result;`,
 * `const { data, error } = await op(); if (!error) return data;`). A loop that goes on after a
 * success (the next page, polling until a state) is no retry.
 */
function resultShape(hw: HandWritten, loop: Loop, scan: LoopScan, regionOf: () => Region): Shape | undefined {
  const candidates: { results: Map<Variable, 'result' | 'error'>; operation: Node }[] = [];
  const seen = new Set<Variable>();
  for (const m of scan.errorMembers) {
    const obj = unwrap(m.object);
    const v = obj.type === T.Identifier ? hw.evaluator.variableOf(obj) : undefined;
    if (!v || seen.has(v)) continue;
    seen.add(v);
    const op = assignedCall(hw, v, loop);
    if (op) candidates.push({ results: new Map([[v, 'result']]), operation: op });
  }
  for (const w of scan.awaits) {
    const parts = errorParts(hw, w);
    const root = parts && chainRoot(w.argument);
    if (!parts || root?.type !== T.CallExpression || isSleepCall(hw, root)) continue;
    candidates.push({ results: new Map(parts.map((v) => [v, 'error' as const])), operation: root });
  }
  for (const { results, operation } of candidates) {
    const r: Region = { ...regionOf(), roots: new Set(results.keys()), results };
    if (iteratesCollection(hw, r, scan, operation)) continue;
    const { opPos, constraints } = loopConstraints(loop, scan, operation, r);
    const filters = constraints.filter((c) => readsAny(hw, c.test, results));
    if (filters.length === 0 || !retriesFailuresOnly(hw, r, filters)) continue;
    const sleeps = loopSleeps(hw, scan, () => false, operation, r.roots);
    return { region: r, operation, constraints, throwGuards: [], sleeps, opPos };
  }
  return undefined;
}

/** `const { data, error } = await op()`: the variables bound to the result's error member. */
function errorParts(hw: HandWritten, w: TSESTree.AwaitExpression): Variable[] | undefined {
  let value: Node = w;
  while (value.parent && TYPE_WRAPPERS.has(value.parent.type)) value = value.parent;
  const p = value.parent;
  const pattern = p?.type === T.VariableDeclarator && p.init === value ? p.id : p?.type === T.AssignmentExpression && p.right === value ? p.left : undefined;
  if (pattern?.type !== T.ObjectPattern) return undefined;
  const out: Variable[] = [];
  for (const prop of pattern.properties) {
    if (prop.type !== T.Property || prop.computed || prop.key.type !== T.Identifier || !RESULT_ERROR_KEYS.has(prop.key.name)) continue;
    const target = prop.value.type === T.AssignmentPattern ? prop.value.left : prop.value;
    const v = target.type === T.Identifier ? hw.evaluator.variableOf(target) : undefined;
    if (v) out.push(v);
  }
  return out.length ? out : undefined;
}

function readsAny(hw: HandWritten, test: Node, vars: ReadonlyMap<Variable, unknown>): boolean {
  let hit = false;
  walkExpression(test, (n) => {
    if (!hit && n.type === T.Identifier && vars.has(hw.evaluator.variableOf(n)!)) hit = true;
  });
  return hit;
}

/** `const res = await fetch(u)` / `res = await fetch(u)` inside the loop: the repeated call. */
function assignedCall(hw: HandWritten, v: Variable, loop: Loop): Node | undefined {
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
    if (root.type === T.CallExpression && !isSleepCall(hw, root)) return root;
  }
  return undefined;
}
