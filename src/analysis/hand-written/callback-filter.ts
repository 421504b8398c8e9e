/**
 * A library retry whose retried function decides per failure by calling the library's callback
 * (promise-retry's `retry(err)`): the conditions on the way to each call are its error filter,
 * read as a hand-written retry's guards are, status by status.
 *
 * Two facts of the request, not of the failure, are set aside when the statuses are read: a
 * comparison of the request's method (`req.method !== 'POST'`) and any other condition that does
 * not read the failure (`!isStream`, `options.retryable`), where it only narrows the retry (a
 * conjunct of the way to the call): the statuses read are those retried for some request. The
 * method comparisons are then read on their own: the methods they let through to another attempt
 * (`req.method !== 'POST'` still retries a PATCH, `req.method === 'GET'` only reads).
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, contains, memberName, unwrap, type Variable } from '../ast.js';
import { NO_RESPONSE } from '../eval/environment.js';
import { UNKNOWN, type Unknown } from '../eval/values.js';
import type { AnalysisContext } from '../library.js';
import type { ErrorFilter, Node, RetriedMethods } from '../model.js';
import type { HandWritten, Region } from './attempts.js';
import { endsCase, walkExpression } from './control-flow.js';
import { readFilter, sameForFailures } from './filter.js';
import { holds, type Constraint } from './site.js';

type Fn = TSESTree.FunctionLike;

/** The non-idempotent methods asked about: a retry that lets one through re-sends a write. */
const WRITE_METHODS = ['POST', 'PATCH'] as const;
/** Failures a write may have taken effect before: no response, or a 5xx. */
const WRITE_FAILURES = [NO_RESPONSE, 500, 502, 503, 504];

/** One way to the callback: the constraints on it, and the parts of them that are facts of the request. */
interface WayBack {
  readonly constraints: readonly Constraint[];
  /** Per constraint: the leaves about the request (method comparisons, other non-failure conjuncts) and the value that lets the retry go on. */
  readonly leaves: readonly Leaf[][];
}

interface Leaf {
  readonly node: Node;
  /** The value that lets the retry go on. */
  readonly goOn: boolean;
  /** A comparison of the request's method: what it is for a method. */
  readonly method?: ((m: string) => boolean | Unknown) | undefined;
  /** The request whose method it compares (`req` of `req.method`), when a variable. */
  readonly request?: Variable | undefined;
  /** Whether the leaf narrows the retry (a conjunct): only then is it set aside for the status question. */
  readonly narrows: boolean;
}

export interface CallbackFilter {
  readonly filter: ErrorFilter;
  readonly methods?: RetriedMethods | undefined;
}

/**
 * The filter of a retried function `fn` that calls `callback` (a parameter) on the failures it
 * retries; undefined when a reference to the callback is not a call on a way that can be read
 * (`.catch(retry)`, a callback handed on, a call in a nested function).
 */
export function callbackFilter(ctx: AnalysisContext, fn: Fn, callback: Variable): CallbackFilter | undefined {
  const hw: HandWritten = { ctx, evaluator: ctx.evaluator };
  const calls: TSESTree.CallExpression[] = [];
  for (const r of callback.references) {
    const id = r.identifier as Node;
    const call = id.parent;
    if (call?.type !== T.CallExpression || call.callee !== id || !contains(fn, call)) return undefined;
    calls.push(call);
  }
  if (calls.length === 0) return undefined;
  const region: Region = { kind: 'loop', root: fn, vars: new Map(), roots: failureVariables(hw, fn) };
  const ways: WayBack[] = [];
  for (const call of calls) {
    const constraints = wayTo(fn, call);
    if (!constraints) return undefined;
    ways.push({ constraints, leaves: constraints.map((c) => leavesOf(hw, c, region)) });
  }
  const retriedAt = (status: number, method?: string): boolean | Unknown => {
    let any: boolean | Unknown = false;
    for (const way of ways) {
      const r = wayRetries(hw, region, way, status, method);
      if (r === true) return true;
      if (r === UNKNOWN) any = UNKNOWN;
    }
    return any;
  };
  const node = statusNode(hw, ways, region) ?? calls[0]!;
  return { filter: readFilter(sameForFailures((s) => retriedAt(s)), node), methods: retriedMethods(hw, ways, retriedAt) };
}

/**
 * The conditions between the function's start and a call of the callback: the `if`, `?:`, `&&`
 * and `switch` it sits in, and the guards before it that leave (`if (fatal) throw err;`). A call in
 * a nested function, a loop or a `finally` is not read.
 */
function wayTo(fn: Fn, call: Node): Constraint[] | undefined {
  const constraints: Constraint[] = [];
  let child: Node = call;
  let n: Node | undefined = call.parent;
  for (; n && n !== fn; child = n, n = n.parent) {
    switch (n.type) {
      case T.IfStatement:
      case T.ConditionalExpression:
        if (child !== n.test) constraints.push({ test: n.test, want: child === n.consequent, next: false });
        break;
      case T.LogicalExpression:
        if (n.operator === '??') return undefined;
        if (child === n.right) constraints.push({ test: n.left, want: n.operator === '&&', next: false });
        break;
      case T.SwitchCase: {
        const sw = n.parent as TSESTree.SwitchStatement;
        const cases = switchCases(sw, sw.cases.indexOf(n));
        if (!cases) return undefined;
        constraints.push({ test: sw.discriminant, want: true, next: false, cases });
        constraints.push(...leavingGuards(n.consequent, child));
        break;
      }
      case T.BlockStatement:
        constraints.push(...leavingGuards(n.body, child));
        break;
      case T.TryStatement:
        if (child === n.finalizer) return undefined;
        break;
      case T.SwitchStatement:
      case T.CatchClause:
      case T.ReturnStatement:
      case T.ExpressionStatement:
      case T.AwaitExpression:
      case T.VariableDeclarator:
      case T.VariableDeclaration:
      case T.ChainExpression:
      case T.TSAsExpression:
      case T.TSNonNullExpression:
        break;
      default:
        return undefined;
    }
  }
  return n === fn ? constraints : undefined;
}

/** `if (fatal) throw err;` before `child` in a list of statements: the way goes on only where it is false. */
function leavingGuards(statements: readonly Node[], child: Node): Constraint[] {
  const out: Constraint[] = [];
  for (const st of statements) {
    if (st === child) break;
    if (st.type === T.IfStatement && !st.alternate && leaves(st.consequent)) out.push({ test: st.test, want: false, next: false });
  }
  return out;
}

function leaves(st: Node): boolean {
  if (st.type === T.ReturnStatement || st.type === T.ThrowStatement || st.type === T.BreakStatement) return true;
  if (st.type !== T.BlockStatement) return false;
  const last = st.body[st.body.length - 1];
  return !!last && leaves(last);
}

/**
 * The cases of a `switch` that reach case `j` (it and the cases falling through into it), as a
 * constraint on the discriminant: those retry, any other case does not, `default` as it falls.
 */
function switchCases(sw: TSESTree.SwitchStatement, j: number): Constraint['cases'] | undefined {
  if (j < 0) return undefined;
  let start = j;
  while (start > 0 && !endsCase(sw.cases[start - 1]!.consequent)) start--;
  const reaching = new Set(sw.cases.slice(start, j + 1));
  const list = sw.cases.filter((c) => c.test).map((c) => ({ test: c.test!, retries: reaching.has(c) }));
  return { list, otherwise: sw.cases.some((c) => !c.test && reaching.has(c)) };
}

/** The catch parameters and the awaited results in `fn`: what the environment reads as the failure. */
export function failureVariables(hw: HandWritten, fn: Fn): Set<Variable> {
  const out = new Set<Variable>();
  const sm = hw.ctx.sourceCode.scopeManager;
  for (const c of hw.ctx.nodesOfType(T.CatchClause)) {
    if (!contains(fn, c) || !c.param) continue;
    for (const v of sm?.getDeclaredVariables(c) ?? []) out.add(v);
  }
  for (const d of hw.ctx.nodesOfType(T.VariableDeclarator)) {
    if (!contains(fn, d) || !d.init || unwrap(d.init).type !== T.AwaitExpression || d.id.type !== T.Identifier) continue;
    for (const v of sm?.getDeclaredVariables(d) ?? []) out.add(v);
  }
  return out;
}

/** Whether an expression reads the failure: a failure variable, directly or through a const of `fn`. */
function readsFailure(hw: HandWritten, expr: Node, region: Region, depth = 0): boolean {
  let hit = false;
  walkExpression(expr, (n) => {
    if (hit || n.type !== T.Identifier) return;
    const v = hw.evaluator.variableOf(n);
    if (!v) return;
    if (region.roots.has(v)) hit = true;
    const init = depth < 4 ? constInitializer(v) : undefined;
    if (init && contains(region.root, init) && readsFailure(hw, init, region, depth + 1)) hit = true;
  });
  return hit;
}

/**
 * The leaves of a constraint's test (through `!`, `&&`, `||` and the consts of `fn` they name) that
 * are facts of the request: each with the value that lets the retry go on, and whether it is a
 * conjunct (every leaf beside it must go on as well).
 */
function leavesOf(hw: HandWritten, c: Constraint, region: Region): Leaf[] {
  if (c.cases) return [];
  const out: Leaf[] = [];
  const visit = (raw: Node, goOn: boolean, narrows: boolean, depth: number) => {
    const n = unwrap(raw);
    if (n.type === T.UnaryExpression && n.operator === '!') return visit(n.argument, !goOn, narrows, depth);
    if (n.type === T.LogicalExpression && n.operator !== '??') {
      // `a && b` must be true on both sides, `a || b` false on both: conjuncts; otherwise either side may do.
      const both = (n.operator === '&&') === goOn;
      visit(n.left, goOn, narrows && both, depth);
      visit(n.right, goOn, narrows && both, depth);
      return;
    }
    if (n.type === T.Identifier && depth < 4) {
      const init = constInitializer(hw.evaluator.variableOf(n));
      if (init && contains(region.root, init) && isCondition(init)) return visit(init, goOn, narrows, depth + 1);
    }
    const method = methodComparison(hw, n);
    if (method) out.push({ node: n, goOn, method, narrows, request: requestOf(hw, n) });
    else if (!readsFailure(hw, n, region)) out.push({ node: n, goOn, narrows });
  };
  visit(c.test, c.want, true, 0);
  return out;
}

function isCondition(n: Node): boolean {
  const u = unwrap(n);
  return u.type === T.LogicalExpression || u.type === T.BinaryExpression || (u.type === T.UnaryExpression && u.operator === '!');
}

/** `req` of a comparison of `req.method`, when it is a variable. */
function requestOf(hw: HandWritten, comparison: Node): Variable | undefined {
  let found: Variable | undefined;
  walkExpression(comparison, (n) => {
    if (found || n.type !== T.MemberExpression || memberName(n) !== 'method') return;
    const o = unwrap(n.object);
    if (o.type === T.Identifier) found = hw.evaluator.variableOf(o);
  });
  return found;
}

/** `X.method === 'POST'`, `method !== 'GET'`, `SAFE.includes(req.method)`: the comparison's value for a method. */
function methodComparison(hw: HandWritten, n: Node): ((m: string) => boolean | Unknown) | undefined {
  const isMethod = (x: Node) => {
    let e = unwrap(x);
    if (e.type === T.CallExpression && e.arguments.length === 0 && /^to(?:Upper|Lower)Case$/.test(memberName(e.callee) ?? '')) e = unwrap((unwrap(e.callee) as TSESTree.MemberExpression).object);
    return (e.type === T.MemberExpression && memberName(e) === 'method') || (e.type === T.Identifier && /^(?:http)?method$/i.test(e.name));
  };
  const text = (v: unknown) => (typeof v === 'string' && /^[A-Za-z]+$/.test(v) ? v.toUpperCase() : undefined);
  if (n.type === T.BinaryExpression && ['===', '!==', '==', '!='].includes(n.operator)) {
    const [m, other] = isMethod(n.left) ? [n.left, n.right] : isMethod(n.right) ? [n.right, n.left] : [];
    const lit = other && text(hw.evaluator.evaluate(other));
    if (!m || !lit) return undefined;
    const equal = n.operator === '===' || n.operator === '==';
    return (x) => (x === lit) === equal;
  }
  if (n.type === T.CallExpression && n.arguments.length === 1 && isMethod(n.arguments[0] as Node) && (memberName(n.callee) === 'includes' || memberName(n.callee) === 'has')) {
    const list = hw.evaluator.evaluate((unwrap(n.callee) as TSESTree.MemberExpression).object);
    const items = Array.isArray(list) ? list : typeof list === 'object' && list !== null && 'set' in list ? (list as { set: unknown[] }).set : undefined;
    const names = items?.map(text);
    if (!names || names.some((s) => s === undefined)) return undefined;
    return (x) => names.includes(x);
  }
  return undefined;
}

/**
 * Whether one way back retries a failure with this status: the request's facts that narrow the
 * retry set aside (`method` unset), or the method comparisons read for that method.
 */
function wayRetries(hw: HandWritten, region: Region, way: WayBack, status: number, method: string | undefined): boolean | Unknown {
  let result: boolean | Unknown = true;
  way.constraints.forEach((c, i) => {
    if (result === false) return;
    const mask = new Map<Node, boolean>();
    for (const leaf of way.leaves[i]!) {
      if (method !== undefined && leaf.method) {
        const v = leaf.method(method);
        if (v !== UNKNOWN) mask.set(leaf.node, v);
      } else if (leaf.narrows) mask.set(leaf.node, leaf.goOn);
    }
    const h = holds(hw, c, region, 1, { status, mask: mask.size ? mask : undefined });
    if (h === false) result = false;
    else if (h === UNKNOWN) result = UNKNOWN;
  });
  return result;
}

/** Where the statuses are chosen: the first leaf of a way back that reads a status, else undefined. */
function statusNode(hw: HandWritten, ways: readonly WayBack[], region: Region): Node | undefined {
  for (const way of ways) {
    for (const c of way.constraints) {
      let found: Node | undefined;
      const visit = (raw: Node, depth: number): void => {
        const n = unwrap(raw);
        if (found) return;
        if (n.type === T.LogicalExpression) {
          visit(n.left, depth);
          visit(n.right, depth);
          return;
        }
        if (n.type === T.UnaryExpression && n.operator === '!') return visit(n.argument, depth);
        if (n.type === T.Identifier && depth < 4) {
          const init = constInitializer(hw.evaluator.variableOf(n));
          if (init && contains(region.root, init)) return visit(init, depth + 1);
        }
        if (/\.(?:status|statusCode)\b/.test(hw.ctx.sourceCode.getText(n))) found = n;
      };
      visit(c.test, 0);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The methods the ways back let through to another attempt, when one of them compares the request's
 * method: a write (POST or PATCH) retried after a failure it may have taken effect before, or none.
 */
function retriedMethods(hw: HandWritten, ways: readonly WayBack[], retriedAt: (status: number, method?: string) => boolean | Unknown): RetriedMethods | undefined {
  const comparisons = ways.flatMap((w) => w.leaves.flat()).filter((l) => l.method);
  const first = comparisons[0];
  if (!first) return undefined;
  const mentioned = new Set<string>();
  for (const l of comparisons) {
    walkExpression(l.node, (n) => {
      if (n.type === T.Literal && typeof n.value === 'string' && /^[A-Za-z]+$/.test(n.value)) mentioned.add(n.value.toUpperCase());
    });
  }
  const retriedFor = (m: string): boolean | Unknown => {
    let any: boolean | Unknown = false;
    for (const s of WRITE_FAILURES) {
      const r = retriedAt(s, m);
      if (r === true) return true;
      if (r === UNKNOWN) any = UNKNOWN;
    }
    return any;
  };
  const writes = WRITE_METHODS.map((m) => [m, retriedFor(m)] as const);
  const kept = [...mentioned].filter((m) => retriedFor(m) === false);
  const through = writes.filter(([, r]) => r === true).map(([m]) => m);
  const value = through.length > 0 ? true : writes.every(([, r]) => r === false) ? false : UNKNOWN;
  const requests = [...new Set(comparisons.map((l) => l.request).filter((v): v is Variable => !!v))];
  return { writes: value, node: first.node, requests, label: kept.length ? `any method but ${kept.join(', ')}: ${through.join(', ') || 'no write'} retried` : `${through.join(', ')} retried` };
}
