/**
 * What a hand-written retry retries: its guards that read the error or the response, evaluated
 * for each HTTP status (200 and 400-599) with the counter checks fixed to "go on".
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, contains, unwrap, walk } from '../ast.js';
import type { ThrownClass } from '../eval/environment.js';
import { UNKNOWN, isStaticFunction, truth, type Unknown } from '../eval/values.js';
import { contextOf } from '../library.js';
import { thrownClasses, type ThrownAt } from './abort-filter.js';
import { NO_FILTER } from '../libraries/shared.js';
import type { ErrorShape } from '../library.js';
import type { ClientErrorInclusion, ErrorFilter, Node } from '../model.js';
import { attemptEnv, evaluateAt, type HandWritten, type Region } from './attempts.js';
import { refsCounter } from './bound.js';
import { walkExpression } from './control-flow.js';
import { stateOf } from './field-counters.js';
import { NO_RESPONSE, beginReads, endReads, statusReads, type StatusReadDelta } from '../eval/environment.js';
import { statusSignature } from '../eval/status-classes.js';
import { holds, type Constraint, type Shape } from './site.js';

/** The statuses a filter is asked about: success, and every 4xx and 5xx. */
export const STATUSES = [200, ...Array.from({ length: 200 }, (_, i) => 400 + i)];

/** The failures a filter of failures only is asked about: no response, and every 4xx and 5xx. */
export const FAILURES = [NO_RESPONSE, ...STATUSES.filter((s) => s >= 400)];

/** Statuses that say the server refused the request without processing it. */
const REFUSED: ReadonlySet<number> = new Set([429]);

/** Success statuses asked about: code that waits for a 202 or a 204 retries on a 200. */
const SUCCESSES = [200, 201, 202, 204];

/**
 * Whether the guards make a retry of failures: some success status ends the retry, and some
 * failure status (4xx or 5xx) may get another attempt.
 */
export function retriesFailuresOnly(hw: HandWritten, region: Region, filters: readonly Constraint[]): boolean {
  if (!leavesOnSuccess(hw, region, filters)) return false;
  const ask = sameForFailures((s) => retriedAt(hw, region, filters, s));
  return STATUSES.some((s) => s >= 400 && ask(s) !== false);
}

/**
 * `retried` asked once for all the failure statuses (400-599) when an answer for one of them read
 * no status value (`statusOf`, eval/environment.ts): nothing else tells those statuses apart (the
 * classes code may test without reading the value, no response and 2xx, hold none of them), so
 * each would get the same answer. Any other status is asked on its own. `retried` must read the
 * status only through the environments it evaluates in, or count its own reads.
 */
export function sameForFailures<R>(retried: (status: number) => R): (status: number) => R {
  // Answers kept per class of failure statuses: the numbers the answer's status reads met, and the
  // side of each the status it was computed for is on (status-classes.ts). An answer that read no
  // status value holds for every failure status (no numbers: one class).
  const classes: { readonly constants: readonly number[]; readonly signature: string; readonly value: R }[] = [];
  return (status) => {
    const failure = status >= 400 && status <= 599;
    if (failure) for (const c of classes) if (statusSignature(status, c.constants) === c.signature) return c.value;
    const mark = beginReads();
    let value: R;
    let read: StatusReadDelta;
    try {
      value = retried(status);
    } finally {
      read = endReads(mark);
    }
    if (failure && read.count === read.classified) {
      const constants = [...new Set(read.constants)];
      classes.push({ constants, signature: statusSignature(status, constants), value });
    }
    return value;
  };
}

/** Whether some success status certainly gets no other attempt. */
export function leavesOnSuccess(hw: HandWritten, region: Region, filters: readonly Constraint[]): boolean {
  return SUCCESSES.some((s) => retriedAt(hw, region, filters, s) === false);
}

/** Whether a guard is about the failure rather than the count: it reads the error or the response, or asks a predicate. */
export function isFilterCondition(hw: HandWritten, test: Node, region: Region, depth = 0): boolean {
  let hit = false;
  walkExpression(test, (n) => {
    if (hit) return;
    if (n.type === T.CallExpression) {
      const q = hw.evaluator.qualifiedName(unwrap(n.callee));
      if (q && /^(?:Math|Date|performance|Number)\./.test(q)) return;
      if (q && /\.(?:includes|has)$/.test(q)) return;
      hit = true;
      return;
    }
    if (n.type !== T.Identifier) return;
    // `config.__retryCount >= 3`: a count kept on an object (a field of the region), not the failure.
    const p = n.parent;
    if (region.fields && p?.type === T.MemberExpression && p.object === n && stateOf(hw, p, region)) return;
    const v = hw.evaluator.variableOf(n);
    if (!v) return;
    // `if (err)` only says that the attempt failed; `err.code`, `isRetryable(err)` choose what is retried.
    if (region.roots.has(v)) {
      // A returned result's error (`if (!error)`, `if (result.error)`) is the failure itself.
      if (!bareTruthiness(n) || region.results?.has(v)) hit = true;
      return;
    }
    // A count kept on the request's config (`config.retryCount`) reads the config, not the failure.
    const state = region.vars.get(v);
    if (state?.carrier) return;
    // `ok = res.ok` written on each attempt, then `while (!ok && tries < 6)`: the flag is the response's.
    const w = state?.write;
    if (w && w !== 'multi' && w.type === T.AssignmentExpression && w.operator === '=' && depth < 4 && isFilterCondition(hw, w.right, region, depth + 1)) {
      hit = true;
      return;
    }
    const init = depth < 4 ? constInitializer(v) : undefined;
    if (init && contains(region.root, init) && isFilterCondition(hw, init, region, depth + 1)) hit = true;
  });
  return hit;
}

/** `if (err)`, `!res`: the variable's own truthiness, not a property or a call on it. */
function bareTruthiness(id: Node): boolean {
  const p = id.parent;
  if (!p) return true;
  // `res instanceof Error`: a rejection caught into a value, as `if (err)` says only that it failed.
  if (p.type === T.BinaryExpression && p.operator === 'instanceof' && p.left === id) return isBuiltinError(p.right);
  if (p.type === T.MemberExpression || p.type === T.CallExpression || p.type === T.BinaryExpression || p.type === T.NewExpression) return false;
  if (p.type === T.ChainExpression || p.type === T.TSNonNullExpression || p.type === T.TSAsExpression) return bareTruthiness(p);
  return true;
}

/** `Error`, `globalThis.Error`. */
function isBuiltinError(n: Node): boolean {
  const e = unwrap(n);
  if (e.type === T.Identifier) return e.name === 'Error';
  return e.type === T.MemberExpression && !e.computed && e.property.type === T.Identifier && e.property.name === 'Error' && unwrap(e.object).type === T.Identifier && (unwrap(e.object) as { name: string }).name === 'globalThis';
}

/**
 * Reading what is retried, the count does not matter: the parts of a condition that only look
 * at counters take the value that lets the retry happen (`err && retries > 0` -> `err`).
 */
function counterMask(hw: HandWritten, c: Constraint, region: Region): Map<Node, boolean> | undefined {
  // The same for every status and class a filter is asked about: read once per constraint and region.
  // (A helper read again with a call's arguments is another reading: its own memo.)
  let byConstraint = masks.get(hw);
  if (!byConstraint) masks.set(hw, (byConstraint = new WeakMap()));
  let byRegion = byConstraint.get(c);
  if (!byRegion) byConstraint.set(c, (byRegion = new WeakMap()));
  if (byRegion.has(region)) return byRegion.get(region) ?? undefined;
  const mask = readCounterMask(hw, c, region);
  byRegion.set(region, mask ?? null);
  return mask;
}

const masks = new WeakMap<HandWritten, WeakMap<Constraint, WeakMap<Region, Map<Node, boolean> | null>>>();

function readCounterMask(hw: HandWritten, c: Constraint, region: Region): Map<Node, boolean> | undefined {
  const mask = new Map<Node, boolean>();
  const visit = (raw: Node, positive: boolean) => {
    const n = unwrap(raw);
    if (n.type === T.UnaryExpression && n.operator === '!') return visit(n.argument, !positive);
    if (n.type === T.LogicalExpression && n.operator !== '??') {
      visit(n.left, positive);
      visit(n.right, positive);
      return;
    }
    if (refsCounter(hw, n, region) && !isFilterCondition(hw, n, region)) mask.set(raw, positive ? c.want : !c.want);
  };
  visit(c.test, true);
  return mask.size ? mask : undefined;
}

/**
 * Whether a failure with this status gets another attempt (first attempt, counters at their start).
 * A status the guards leave undecided (they test the error's `code` or `type`) is retried when an
 * error the file's libraries document for it (`resource_missing` is one of Stripe's 400s and 404s)
 * certainly is: evidence for "retried", never for "not retried".
 */
export function retriedAt(hw: HandWritten, region: Region, filters: readonly Constraint[], status: number): boolean | Unknown {
  const result = retriedWith(hw, region, filters, status, undefined);
  if (result !== UNKNOWN || status < 400) return result;
  const shapes = hw.ctx.errorShapes?.() ?? [];
  // Which shapes are asked depends on the status itself: a read of it (sameForFailures).
  if (shapes.length) statusReads.count++;
  for (const shape of shapes) {
    if (shape.statuses.includes(status) && retriedWith(hw, region, filters, status, shape.fields) === true) return true;
  }
  return result;
}

/**
 * Asked about a failure, the error is one the retried operation constructs (`thrown`, when the
 * operation is a function the analysis can run, operationClasses): the guards are asked once per
 * class it may throw at that status, and the answer holds when every class gives it.
 */
function retriedWith(hw: HandWritten, region: Region, filters: readonly Constraint[], status: number, errorFields: ErrorShape['fields'] | undefined): boolean | Unknown {
  const at = status >= 400 || status === NO_RESPONSE ? operationClasses(hw, region) : undefined;
  // Which classes the operation throws depends on the status itself (answers cached per status
  // count no read of their own): a read of it (sameForFailures).
  if (at) statusReads.count++;
  const classes = at?.(status);
  if (!classes || classes === UNKNOWN || classes.length === 0 || classes.every((c) => !c)) return retriedAs(hw, region, filters, status, errorFields, undefined);
  let result: boolean | Unknown | undefined;
  for (const c of classes) {
    const r = retriedAs(hw, region, filters, status, errorFields, c);
    if (r === UNKNOWN || (result !== undefined && r !== result)) return UNKNOWN;
    result = r;
  }
  return result ?? UNKNOWN;
}

function retriedAs(hw: HandWritten, region: Region, filters: readonly Constraint[], status: number, errorFields: ErrorShape['fields'] | undefined, thrown: ThrownClass | undefined): boolean | Unknown {
  let result: boolean | Unknown = true;
  for (const c of filters) {
    // A failure without a response is the attempt's rejection: the guards on what it returned never run.
    if (status === NO_RESPONSE && c.returnedOnly) continue;
    const h = holds(hw, c, region, 1, { status, errorFields, thrown, errTruthy: region.errVar ? true : undefined, mask: counterMask(hw, c, region) });
    if (h === false) return false;
    if (h === UNKNOWN) result = UNKNOWN;
  }
  return result;
}

const operations = new WeakMap<Region, ThrownAt | null>();

/**
 * What the failures caught in the region are, by status, when they come from one function the
 * analysis can run: the region's one `try` whose catch takes a failure variable calls exactly one
 * function in its block (outside nested functions), and that call's callee is a function value
 * (this file's, or one carried in from another file with its home, read with that file's context).
 */
function operationClasses(hw: HandWritten, region: Region): ThrownAt | undefined {
  if (operations.has(region)) return operations.get(region) ?? undefined;
  let found: ThrownAt | undefined;
  const tries: TSESTree.TryStatement[] = [];
  walk(region.root, (n) => {
    if (n.type === T.TryStatement && n.handler?.param?.type === T.Identifier) tries.push(n);
  }, { skipFunctions: true });
  const caught = tries.filter((t) => hw.ctx.sourceCode.getDeclaredVariables(t.handler!).some((v) => region.roots.has(v)));
  if (caught.length === 1) {
    const calls: TSESTree.CallExpression[] = [];
    walk(caught[0]!.block, (n) => {
      if (n.type === T.CallExpression) calls.push(n);
    }, { skipFunctions: true });
    const value = calls.length === 1 ? evaluateAt(hw, calls[0]!.callee, attemptEnv(hw, region, 1)) : undefined;
    const home = isStaticFunction(value) ? contextOf(value.home ?? hw.evaluator) : undefined;
    if (home && isStaticFunction(value) && home.sourceCode.ast === rootOf(value.node)) found = thrownClasses(home, value.node);
  }
  operations.set(region, found ?? null);
  return found;
}

function rootOf(node: Node): Node {
  let root: Node = node;
  for (let guard = 0; root.parent && guard < 400; guard++) root = root.parent;
  return root;
}

/** Whether a callback-style retry goes on after a failed (or a successful) call. */
export function reachable(hw: HandWritten, region: Region, constraints: readonly Constraint[], failed: boolean): boolean | Unknown {
  let result: boolean | Unknown = true;
  for (const c of constraints) {
    const h = holds(hw, c, region, 1, { errTruthy: failed, mask: counterMask(hw, c, region) });
    if (h === false) return false;
    if (h === UNKNOWN) result = UNKNOWN;
  }
  return result;
}

export function errorFilter(hw: HandWritten, shape: Shape): ErrorFilter {
  const { region } = shape;
  const filters = shape.constraints.filter((c) => isFilterCondition(hw, c.test, region));
  if (filters.length > 0) {
    const filter = statusFilter(hw, (s) => retriedAt(hw, region, filters, s), filters.map((c) => c.test), filters.filter((c) => c.want).map((c) => c.test), filters.every((c) => testsCaughtError(hw, c.test, region)));
    // A returned error says the attempt failed, not that it was an HTTP response: retrying every
    // one is no evidence of retried 4xx (the operation's own calls may still show it).
    if (region.results && filter.retriesEverything) return { kind: 'none', clientErrors: [], node: filter.node };
    return filter;
  }
  if (shape.throwGuards.length === 0) return NO_FILTER;
  // The attempt throws on these statuses and the catch retries whatever it catches.
  const throwsAt = (status: number): boolean | Unknown => {
    let any: boolean | Unknown = false;
    for (const g of shape.throwGuards) {
      const t = truth(evaluateAt(hw, g, attemptEnv(hw, region, 1, { status })));
      if (t === true) return true;
      if (t === UNKNOWN) any = UNKNOWN;
    }
    return any;
  };
  return statusFilter(hw, throwsAt, shape.throwGuards);
}

/**
 * Whether a guard only reads an error caught in the retried code: it is written in a catch clause
 * and the only attempt results it reads (itself or through constants) are catch parameters. No
 * success reaches such a guard, so what it says of a 200 is no question.
 */
function testsCaughtError(hw: HandWritten, test: Node, region: Region): boolean {
  let clause: Node | undefined = test;
  while (clause && clause !== region.root && clause.type !== T.CatchClause) clause = clause.parent;
  if (clause?.type !== T.CatchClause || !clause.param) return false;
  const caughtIn = clause;
  let other = false;
  const visit = (n: Node, depth: number) => walkExpression(n, (x) => {
    if (other || x.type !== T.Identifier) return;
    const v = hw.evaluator.variableOf(x);
    if (!v) return;
    if (region.roots.has(v)) {
      if (!(v.defs[0]?.type === 'CatchClause' && contains(caughtIn, v.defs[0].name as Node))) other = true;
      return;
    }
    const init = depth < 4 ? constInitializer(v) : undefined;
    if (init && contains(region.root, init)) visit(init, depth + 1);
  });
  visit(test, 0);
  return !other;
}

/**
 * `leading`: the tests that must hold to retry (not the guards that leave first), where a status
 * choice is looked for first. `caught`: the tests read only a caught error, so no success status
 * is asked about.
 */
function statusFilter(hw: HandWritten, retried: (s: number) => boolean | Unknown, tests: readonly Node[], leading: readonly Node[] = tests, caught = false): ErrorFilter {
  const node = tests[0];
  const text = (t: Node) => hw.ctx.sourceCode.getText(t);
  // Where the statuses are chosen: a test of the status, else one that does more than say the response failed (`!res.ok`).
  const choosing = (list: readonly Node[]) => list.find((t) => /\.(?:status|statusCode|httpStatusCode|httpStatus)\b/.test(text(t))) ?? list.find((t) => !/^!?\s*[\w$.?]+\.ok$/.test(text(t).trim()));
  const statusNode = choosing(leading) ?? choosing(tests) ?? node;
  const results = new Map<number, boolean>();
  let unread = false;
  const ask = sameForFailures(retried);
  for (const s of STATUSES) {
    if (caught && s < 400) continue;
    const r = ask(s);
    if (r === UNKNOWN) {
      // Past a success, the 4xx still decide what can be said for certain.
      if (s < 400) return { kind: 'custom', clientErrors: [], node };
      unread = true;
    } else results.set(s, r);
  }
  const failures = STATUSES.filter((s) => s >= 400);
  if (unread) return partlyRead(failures.filter((s) => s < 500 && results.get(s) === true && s !== 408 && s !== 429), statusNode ?? node!);
  if (failures.every((s) => results.get(s))) {
    const okNode = tests.find((t) => /\.ok\b/.test(text(t))) ?? node;
    return { kind: 'none', clientErrors: [], retriesEverything: okNode, node };
  }
  const clientErrorStatuses = failures.filter((s) => s < 500 && results.get(s) && s !== 408 && s !== 429);
  const clientErrors = clientErrorInclusions(clientErrorStatuses, statusNode!);
  const retriedFailures = failures.filter((s) => results.get(s));
  const noResponse = retried(NO_RESPONSE);
  const refusedOnly = retriedFailures.length > 0 && retriedFailures.every((s) => REFUSED.has(s)) && noResponse === false;
  const retriesNoResponse = noResponse === true;
  return { kind: 'statuses', clientErrors, clientErrorStatuses, node: statusNode, ...(refusedOnly ? { refusedOnly } : {}), ...(retriesNoResponse ? { retriesNoResponse } : {}) };
}

/**
 * A filter read for some statuses only (a method that also asks about a token cache, a header, or
 * an operation that may throw two classes at one status): the 4xx it certainly retries are
 * reported in one finding, by name or as a range ("4xx other than 413"); nothing is said of the rest.
 */
function partlyRead(certain: readonly number[], node: Node): ErrorFilter {
  const some = certain.length > 0;
  return { kind: 'custom', clientErrors: some ? oneFinding(clientErrorInclusions(certain, node), node) : [], clientErrorStatuses: some ? certain : undefined, node };
}

/** One finding for a filter read in part, naming every status it certainly retries (`404, 409 and 422`). */
function oneFinding(named: readonly ClientErrorInclusion[], node: Node): ClientErrorInclusion[] {
  const names = named.map((c) => c.status);
  return names.length > 1 ? [{ status: `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`, node }] : [...named];
}

/**
 * statusFilter's reading for code no success reaches (a library's `retry(err)` callback, a
 * function that throws its abort error), asked about the failures only; unlike partlyRead it names
 * the 4xx it certainly retries however many they are. Status by status: a filter read whole is a status list; one read for some statuses only says
 * the 4xx it certainly retries. Retrying every failure status is no filter at all: whether 4xx
 * arrive is the request's (a client that rejects on them), unless `rejects` (the reader saw the
 * retried code fail at each status), when it retries every failure, 4xx included.
 */
export function readFilter(retriedAt: (status: number) => boolean | Unknown, node: Node, rejects = false): ErrorFilter {
  const results = new Map(FAILURES.map((s) => [s, retriedAt(s)] as const));
  const certain = FAILURES.filter((s) => s >= 400 && s < 500 && s !== 408 && s !== 429 && results.get(s) === true);
  if ([...results.values()].some((r) => r === UNKNOWN)) {
    // One finding for the filter, naming every 4xx it certainly retries (a range past ten).
    return { kind: 'custom', clientErrors: oneFinding(clientErrorInclusions(certain, node), node), clientErrorStatuses: certain.length > 0 ? certain : undefined, node };
  }
  if (FAILURES.every((s) => results.get(s) === true)) return { kind: 'none', clientErrors: [], node, ...(rejects ? { retriesEverything: node } : {}) };
  const retried = FAILURES.filter((s) => results.get(s) === true);
  const refusedOnly = retried.length > 0 && retried.every((s) => s === 429);
  return { kind: 'statuses', clientErrors: clientErrorInclusions(certain, node), clientErrorStatuses: certain, node, ...(refusedOnly ? { refusedOnly } : {}) };
}

/** 4xx statuses a filter retries, other than 408 and 429 (which may succeed later). */
export function clientErrorInclusions(retried: readonly number[], node: Node): ClientErrorInclusion[] {
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
