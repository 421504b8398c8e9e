/**
 * Readers shared by the HTTP-client descriptors: status lists and the 4xx they let through,
 * options merged from several layers (client defaults under per-call options), status
 * comparisons inside retry predicates, and the request method of a call.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext } from '../library.js';
import { functionOf } from '../library.js';
import type { ClientErrorInclusion, ErrorFilter, Node, OptionsTarget, RetrySite, Setting } from '../model.js';
import type { OptionValue, OptionsView } from '../options.js';
import { UNKNOWN, isKnown, type Maybe, type StaticValue } from '../eval/values.js';
import { unwrap } from '../ast.js';
import { RETRYABLE_CLIENT_ERRORS } from '../../shared/guide-limits.js';
import { contains } from './shared.js';
import { deploymentCondition, type DeploymentCondition } from '../deployment-config.js';

/** 4xx that may succeed on a later attempt: a request timeout and rate limiting. */
const RETRYABLE_4XX = RETRYABLE_CLIENT_ERRORS;

export interface StatusPolicy {
  /** Libraries that wait for Retry-After on 413 (got, ky) make 413 a legitimate retry. */
  readonly honours413?: boolean;
}

function isClientError(status: number, policy: StatusPolicy): boolean {
  if (!Number.isInteger(status) || status < 400 || status > 499) return false;
  if (RETRYABLE_4XX.has(status)) return false;
  return !(policy.honours413 && status === 413);
}

/**
 * An explicit status list (`statusCodes: [404, 500]`): kind `statuses` with every entry that is a
 * 4xx which cannot succeed on retry. Entries are read one by one so a spread of something unknown
 * (`...got.defaults.options.retry.statusCodes`) does not hide a literal `404` beside it.
 */
export function statusListFilter(option: OptionValue, ctx: AnalysisContext, policy: StatusPolicy): ErrorFilter {
  const node = option.property ?? option.valueNode;
  const clientErrors: ClientErrorInclusion[] = [];
  const array = option.valueNode ? ctx.evaluator.resolve(option.valueNode) : undefined;
  if (array?.type === T.ArrayExpression) {
    for (const element of array.elements) {
      if (!element) continue;
      if (element.type === T.SpreadElement) {
        const spread = ctx.evaluator.evaluate(element.argument);
        if (Array.isArray(spread)) {
          for (const v of spread as StaticValue[]) {
            if (typeof v === 'number' && isClientError(v, policy)) clientErrors.push({ status: String(v), node: element });
          }
        }
        continue;
      }
      const v = ctx.evaluator.evaluate(element);
      if (typeof v === 'number' && isClientError(v, policy)) clientErrors.push({ status: String(v), node: element });
    }
    return { kind: 'statuses', clientErrors, node };
  }
  const value = option.value;
  if (Array.isArray(value) && node) {
    for (const v of value as StaticValue[]) {
      if (typeof v === 'number' && isClientError(v, policy)) clientErrors.push({ status: String(v), node });
    }
    return { kind: 'statuses', clientErrors, node };
  }
  return { kind: 'custom', clientErrors: [], node };
}

/**
 * The 4xx part of an inclusive range `[lo, hi]`, as text (`404`, `400-499`), or undefined when
 * the range holds no client error that can never succeed (`[429, 429]`, `[500, 599]`).
 */
export function clientErrorRange(lo: number, hi: number, policy: StatusPolicy): string | undefined {
  const from = Math.max(lo, 400);
  const to = Math.min(hi, 499);
  if (from > to) return undefined;
  for (let s = from; s <= to; s++) {
    if (isClientError(s, policy)) return from === to ? String(from) : `${from}-${to}`;
  }
  return undefined;
}

/** True for the "retry anything" HTTP status fields people compare against. */
function isStatusAccess(node: Node): boolean {
  const n = unwrap(node);
  if (n.type !== T.MemberExpression || n.computed || n.property.type !== T.Identifier) return false;
  return n.property.name === 'status' || n.property.name === 'statusCode';
}

/**
 * 4xx that a retry predicate explicitly accepts: terms of its returned `||` chain such as
 * `error.response?.status === 404`, `[400, 409].includes(res.status)` or
 * `status >= 400 && status < 500`. Negations and anything else are left alone, so a predicate we
 * cannot read adds nothing. A term that also asks the deployment's configuration
 * (`RETRY_404_ENABLED && status === 404`, or a `FLAG ? ... : ...` on it) accepts its 4xx
 * wherever that setting is on: an inclusion with its condition, when the return it is in is
 * reached for every failure (nothing before it can leave the function).
 */
export function predicateClientErrors(fnNode: Node | undefined, ctx: AnalysisContext, policy: StatusPolicy): ClientErrorInclusion[] {
  const fn = functionOf(fnNode, ctx);
  if (!fn?.body) return [];
  const returned: { node: Node; reached: boolean }[] = [];
  if (fn.body.type !== T.BlockStatement) returned.push({ node: fn.body, reached: true });
  else {
    let reached = true;
    for (const s of fn.body.body) {
      if (s.type === T.ReturnStatement && s.argument) returned.push({ node: s.argument, reached });
      if (s.type !== T.VariableDeclaration) reached = false;
    }
  }
  const out: ClientErrorInclusion[] = [];
  const visit = (raw: Node, reached: boolean, conditions: readonly DeploymentCondition[]) => {
    const e = unwrap(raw);
    if (e.type === T.LogicalExpression && e.operator === '||') {
      visit(e.left, reached, conditions);
      visit(e.right, reached, conditions);
      return;
    }
    if (e.type === T.ConditionalExpression && reached) {
      const test = deploymentCondition(e.test, ctx);
      if (!test) return;
      visit(e.consequent, reached, [...conditions, test]);
      visit(e.alternate, reached, [...conditions, negated(test)]);
      return;
    }
    const terms = statusTerms(e, ctx, policy);
    if (terms) {
      const condition = conditions.length ? joined(conditions) : undefined;
      if (conditions.length === 0 || condition) for (const t of terms) out.push(condition ? { ...t, condition } : t);
      return;
    }
    if (!reached || e.type !== T.LogicalExpression || e.operator !== '&&') return;
    // `FLAG && status === 404`: configuration conjuncts beside one status test.
    const conjuncts = andChain(e).map((node) => ({ node, terms: statusTerms(node, ctx, policy) }));
    const tests = conjuncts.filter((c) => c.terms !== undefined);
    const rest = conjuncts.filter((c) => c.terms === undefined).map((c) => deploymentCondition(c.node, ctx));
    if (tests.length === 0 || rest.length === 0 || rest.some((c) => !c)) return;
    const condition = joined([...conditions, ...(rest as DeploymentCondition[])]);
    if (!condition) return;
    if (tests.length === 1) {
      for (const t of tests[0]!.terms!) out.push({ ...t, condition });
      return;
    }
    // Several range tests (`FLAG && s >= 400 && s < 500`): what they accept together.
    const ranges = tests.map((t) => statusRange(t.node, ctx));
    if (ranges.some((r) => !r)) return;
    const lo = Math.max(...ranges.map((r) => r![0]));
    const hi = Math.min(...ranges.map((r) => r![1]));
    const text = lo <= hi ? clientErrorRange(lo, hi, policy) : undefined;
    if (text) out.push({ status: text, node: tests[0]!.node, condition });
  };
  for (const r of returned) visit(r.node, r.reached, []);
  return out;
}

/** The 4xx one status test accepts (`s === 404`, `s >= 400 && s < 500`, `[400, 409].includes(x.status)`); undefined when `e` is no status test. */
function statusTerms(e: Node, ctx: AnalysisContext, policy: StatusPolicy): ClientErrorInclusion[] | undefined {
  const range = statusRange(e, ctx);
  if (range) {
    const text = clientErrorRange(range[0], range[1], policy);
    return text ? [{ status: text, node: e }] : [];
  }
  if (e.type !== T.CallExpression || e.arguments.length !== 1 || !isStatusAccess(e.arguments[0]!)) return undefined;
  const callee = unwrap(e.callee);
  if (callee.type !== T.MemberExpression || callee.computed || callee.property.type !== T.Identifier || callee.property.name !== 'includes') return undefined;
  const list = ctx.evaluator.resolve(callee.object);
  if (list.type !== T.ArrayExpression) return undefined;
  const out: ClientErrorInclusion[] = [];
  for (const el of list.elements) {
    if (!el || el.type === T.SpreadElement) continue;
    const v = ctx.evaluator.evaluate(el);
    if (typeof v === 'number' && isClientError(v, policy)) out.push({ status: String(v), node: el });
  }
  return out;
}

function andChain(raw: Node): Node[] {
  const e = unwrap(raw);
  return e.type === T.LogicalExpression && e.operator === '&&' ? [...andChain(e.left), ...andChain(e.right)] : [e];
}

function negated(c: DeploymentCondition): DeploymentCondition {
  return { text: /^[\w$.]+$/.test(c.text) ? `!${c.text}` : `!(${c.text})`, reads: c.reads };
}

/** Conditions that must all hold: undefined when two ask the same setting (together they may never hold). */
function joined(conditions: readonly DeploymentCondition[]): DeploymentCondition | undefined {
  const reads = conditions.flatMap((c) => c.reads);
  if (new Set(reads).size !== reads.length) return undefined;
  return { text: conditions.map((c) => c.text).join(' && '), reads };
}

/** `s === 404` → [404, 404]; `s >= 400` → [400, ∞]; `s >= 400 && s < 500` → [400, 499]. */
function statusRange(e: Node, ctx: AnalysisContext): [number, number] | undefined {
  if (e.type === T.LogicalExpression && e.operator === '&&') {
    const a = statusRange(unwrap(e.left), ctx);
    const b = statusRange(unwrap(e.right), ctx);
    if (!a || !b) return undefined;
    const lo = Math.max(a[0], b[0]);
    const hi = Math.min(a[1], b[1]);
    return lo <= hi ? [lo, hi] : undefined;
  }
  if (e.type !== T.BinaryExpression || e.left.type === T.PrivateIdentifier) return undefined;
  let op = e.operator;
  let value: Maybe<StaticValue>;
  if (isStatusAccess(e.left)) value = ctx.evaluator.evaluate(e.right);
  else if (isStatusAccess(e.right)) {
    value = ctx.evaluator.evaluate(e.left);
    const flipped: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };
    op = (flipped[op] ?? op) as typeof op;
  } else return undefined;
  if (typeof value !== 'number') return undefined;
  switch (op) {
    case '===': case '==': return [value, value];
    case '>=': return [value, Infinity];
    case '>': return [value + 1, Infinity];
    case '<=': return [-Infinity, value];
    case '<': return [-Infinity, value - 1];
    default: return undefined;
  }
}

/**
 * Options merged from layers, later layers winning key by key (got and ky merge a client's
 * options under each call's, fetch-retry its builder defaults under each call's `init`).
 */
export class Layers {
  constructor(readonly views: readonly OptionsView[]) {}

  get(key: string): OptionValue {
    for (let i = this.views.length - 1; i >= 0; i--) {
      const v = this.views[i]!.get(key);
      if (v.property || v.value !== undefined) return v;
    }
    return { value: undefined };
  }

  /** Nested options; a layer that sets `key` to a non-object (ky's `retry: 3`) hides the layers below. */
  sub(key: string): Layers {
    const out: OptionsView[] = [];
    for (let i = this.views.length - 1; i >= 0; i--) {
      const view = this.views[i]!;
      const v = view.get(key);
      if (!v.property && v.value === undefined) continue;
      out.unshift(view.sub(key));
      if (v.value === UNKNOWN || !(typeof v.value === 'object' && v.value !== null && 'kind' in v.value && v.value.kind === 'object')) break;
    }
    return new Layers(out);
  }

  number(key: string, fallback: number | undefined): Setting<number | undefined> {
    const v = this.get(key);
    if (!v.property && v.value === undefined) return { value: fallback };
    if (typeof v.value === 'number') return { value: v.value, node: v.property };
    if (v.value === undefined && v.property) return { value: fallback, node: v.property };
    return { value: UNKNOWN, node: v.property };
  }

  /** The innermost layer whose object literal suggestions can edit. */
  get top(): OptionsView | undefined {
    return this.views[this.views.length - 1];
  }
}

/** `got.post` / `ky.patch`: the method a shortcut sends. */
export const METHOD_SHORTCUTS = new Set(['get', 'post', 'put', 'patch', 'head', 'delete']);

/**
 * Whether a request with this method is retried under a method list: true/false when both are
 * known, UNKNOWN otherwise. `methods` is the option as written (absent = the library default).
 */
export function methodRetried(method: Maybe<string | undefined>, methods: OptionValue, defaults: readonly string[]): Maybe<boolean> {
  if (!isKnown(method) || method === undefined) return UNKNOWN;
  const m = method.toUpperCase();
  if (!methods.property && methods.value === undefined) return defaults.includes(m);
  if (!Array.isArray(methods.value)) return UNKNOWN;
  const list = methods.value as StaticValue[];
  if (!list.every((x) => typeof x === 'string')) return UNKNOWN;
  return (list as string[]).some((x) => x.toUpperCase() === m);
}

/** The `method` option as written, e.g. `{ method: 'POST' }`; undefined when absent. */
export function methodOption(view: Layers | OptionsView): Maybe<string | undefined> {
  const v = view.get('method');
  if (!v.property && v.value === undefined) return undefined;
  return typeof v.value === 'string' ? v.value : UNKNOWN;
}

/** The identifier a call result is stored in: `const api = got.extend(...)`. */
export function declaredName(node: Node): TSESTree.Identifier | undefined {
  const p = node.parent;
  if (p?.type === T.VariableDeclarator && p.init === node && p.id.type === T.Identifier) return p.id;
  if (p?.type === T.AwaitExpression) return declaredName(p);
  return undefined;
}

/**
 * Read references to the variable a call result is stored in, for following instances
 * (`const api = got.extend(); api.get(...)`). Only never-reassigned bindings are followed.
 */
export function referencesOf(id: TSESTree.Identifier, ctx: AnalysisContext): TSESTree.Identifier[] {
  const variable = ctx.sourceCode.scopeManager?.getDeclaredVariables(id.parent as TSESTree.VariableDeclarator)[0];
  if (!variable) return [];
  if (variable.references.filter((r) => r.isWrite()).length > 1) return [];
  return variable.references.filter((r) => !r.isWrite() && !r.init).map((r) => r.identifier as TSESTree.Identifier);
}

/** The call that uses `expr` as its callee, directly or through one `.member`. */
export function memberCall(expr: Node): { call: TSESTree.CallExpression; member: string | undefined } | undefined {
  const p = expr.parent;
  if (p?.type === T.CallExpression && p.callee === expr) return { call: p, member: undefined };
  if (p?.type === T.MemberExpression && p.object === expr && !p.computed && p.property.type === T.Identifier) {
    const c = p.parent;
    if (c?.type === T.CallExpression && c.callee === p) return { call: c, member: p.property.name };
  }
  return undefined;
}

/**
 * A call through a client inherits the client's settings, which the client's own site already
 * reports where they are written. The call's site keeps the values (they are what the call does)
 * but not those nodes, and marks them inherited, so one written setting never draws the same
 * finding twice (the selection policy leaves them to the client's site).
 */
export function withoutInherited(site: RetrySite, parents: readonly OptionsView[]): RetrySite {
  const objects = parents.map((v) => v.object).filter((o): o is TSESTree.ObjectExpression => !!o);
  if (objects.length === 0) return site;
  const inherited = (n: Node | undefined) => !!n && objects.some((o) => contains(o, n));
  const own = <S extends { node?: Node | undefined }>(s: S): S => (inherited(s.node) ? { ...s, node: undefined, inherited: true } : s);
  const filter = site.errorFilter;
  return {
    ...site,
    attempts: own(site.attempts),
    delay: own(site.delay),
    jitter: own(site.jitter),
    deadlineMs: own(site.deadlineMs),
    attemptTimeoutMs: own(site.attemptTimeoutMs),
    errorFilter: {
      ...filter,
      clientErrors: filter.clientErrors.filter((c) => !inherited(c.node)),
      retriesEverything: inherited(filter.retriesEverything) ? undefined : filter.retriesEverything,
      node: inherited(filter.node) ? undefined : filter.node,
    },
  };
}

/**
 * The options argument at `i`, or the spread that hides it (`f(...args)`), which reads as
 * unknown options rather than as absent ones (absent would mean the library defaults).
 */
export function optionsArgument(call: TSESTree.CallExpression | TSESTree.NewExpression, i: number): Node | undefined {
  for (let k = 0; k <= i && k < call.arguments.length; k++) {
    const a = call.arguments[k]!;
    if (a.type === T.SpreadElement) return a;
  }
  return call.arguments[i];
}

const WRITE_METHODS = new Set(['POST', 'PATCH']);

/**
 * Whether a client's method list lets it re-send writes (POST, PATCH), pointing at the list entry
 * that does: the place a person edits. Absent means the library's default list.
 */
export function writesRetried(methods: OptionValue, defaults: readonly string[]): Setting<boolean> {
  if (!methods.property && methods.value === undefined) return { value: defaults.some((m) => WRITE_METHODS.has(m)) };
  if (!Array.isArray(methods.value)) return { value: UNKNOWN, node: methods.property };
  const list = methods.value as StaticValue[];
  const index = list.findIndex((m) => typeof m === 'string' && WRITE_METHODS.has(m.toUpperCase()));
  if (index < 0) return { value: list.every((m) => typeof m === 'string') ? false : UNKNOWN, node: methods.property };
  const array = methods.valueNode && unwrap(methods.valueNode);
  const element = array?.type === T.ArrayExpression ? array.elements[index] : undefined;
  return { value: true, node: element ?? methods.property };
}

/** One request or client configuration of a got/ky-style client, before its retry options are read. */
export interface ClientCallSpec {
  label: string;
  node: Node;
  reportNode: Node;
  layers: Layers;
  /** The request method when known; undefined for a client (any method). */
  method: Maybe<string | undefined>;
  clientLevel: boolean;
  operation: Node;
  options: OptionsTarget;
}
