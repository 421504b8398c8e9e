/**
 * SWR (`swr` 2.x): a failed fetch is retried by the `onErrorRetry` callback, called as
 * `onErrorRetry(error, key, config, revalidate, { retryCount, dedupe })` with `retryCount` 1 after
 * the first failure (`src/index/use-swr.ts`: `retryCount: (opts.retryCount || 0) + 1`).
 *
 * The default (`src/_internal/utils/config.ts`, read at vercel/swr 34b13d4, the same in 2.2):
 * stop once `retryCount > errorRetryCount` (unset: never), otherwise wait
 * `~~((Math.random() + 0.5) * (1 << min(retryCount, 8))) * errorRetryInterval` with
 * `errorRetryInterval` 5000 ms (10000 on a slow connection): exponential with ±50% jitter, capped at
 * 2^8 intervals; every error is retried. `shouldRetryOnError: false` turns retrying off.
 *
 * A custom `onErrorRetry` is a hand-written schedule: its early returns are read as the stop
 * (`if (retryCount >= 3) return`) and the filter (`if (error.status === 404) return`), and the
 * `setTimeout(() => revalidate(...), ms)` it ends with as the wait. `errorRetryCount` and
 * `errorRetryInterval` mean nothing to it unless it reads them.
 *
 * Options are read where code writes them: `useSWR(key, fetcher, options)` (and the other hooks),
 * and an object typed `SWRConfiguration` (`const config: SWRConfiguration = {...}`, passed to
 * `<SWRConfig value>`). A site exists only where a retry setting is written; the defaults of a
 * bare `useSWR` are left alone.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor, LibraryUse } from '../library.js';
import { callOf, functionOf, labelOf } from '../library.js';
import type { ClientErrorInclusion, DelaySchedule, ErrorFilter, Node, RetrySite, Setting } from '../model.js';
import type { OptionsView } from '../options.js';
import { UNKNOWN_SCHEDULE, classifyWaits, customSchedule } from '../schedule.js';
import { RESPONSE, UNKNOWN, isInterval, truth, type DataValue, type Maybe, type Value } from '../eval/values.js';
import { FREE, RUNNING_ENV, type Env } from '../eval/environment.js';
import { parameterVariable } from '../eval/functions.js';
import { contains, isFunctionNode, unwrap, type Variable } from '../ast.js';
import { isNonRetryableClientError } from '../../shared/guide-limits.js';
import { NO_FILTER, optionsTarget, site } from './shared.js';

const HOOKS = new Set(['default', 'useSWR', 'useSWRInfinite', 'useSWRImmutable', 'useSWRSubscription']);
const CONFIG_TYPES = new Set(['SWRConfiguration']);
const DEFAULT_INTERVAL = 5000;
/** The largest retry number asked of a custom callback before its stop is called unknown. */
const PROBE_LIMIT = 100;
/** A failure that is not a client error: what the count and the waits are asked about. */
const SERVER_ERROR = 503;

export const swr: LibraryDescriptor = {
  id: 'swr',
  modules: ['swr', 'swr/infinite', 'swr/immutable'],
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const found = optionsOf(use, ctx);
      if (!found) continue;
      const s = configSite(found.view, found.call, found.index, use, ctx);
      if (s) sites.push(s);
    }
    return sites;
  },
};

/** The options a use configures: a hook's last object argument, or an object typed with SWR's config type. */
function optionsOf(use: LibraryUse, ctx: AnalysisContext): { view: OptionsView; call?: TSESTree.CallExpression; index?: number } | undefined {
  if (HOOKS.has(use.path)) {
    const call = callOf(use);
    if (!call) return undefined;
    for (let i = Math.min(call.arguments.length, 3) - 1; i >= 1; i--) {
      const arg = call.arguments[i]!;
      if (arg.type === T.SpreadElement) return undefined;
      if (ctx.evaluator.resolve(arg).type === T.ObjectExpression) return { view: ctx.options(arg), call, index: i };
    }
    return undefined;
  }
  if (!CONFIG_TYPES.has(use.path)) return undefined;
  const ref = use.expression.parent;
  if (ref?.type !== T.TSTypeReference) return undefined;
  const holder = ref.parent;
  // `x as SWRConfiguration`, `x satisfies SWRConfiguration`
  if ((holder?.type === T.TSAsExpression || holder?.type === T.TSSatisfiesExpression) && unwrap(holder.expression).type === T.ObjectExpression) {
    return { view: ctx.options(holder.expression) };
  }
  // `const config: SWRConfiguration = {...}`
  const declarator = holder?.type === T.TSTypeAnnotation ? holder.parent?.parent : undefined;
  if (declarator?.type === T.VariableDeclarator && declarator.init && unwrap(declarator.init).type === T.ObjectExpression) {
    return { view: ctx.options(declarator.init) };
  }
  return undefined;
}

function configSite(view: OptionsView, call: TSESTree.CallExpression | undefined, index: number | undefined, use: LibraryUse, ctx: AnalysisContext): RetrySite | undefined {
  if (view.state !== 'object') return undefined;
  const should = view.get('shouldRetryOnError');
  if (should.value === false) return undefined;
  const custom = view.get('onErrorRetry');
  const count = view.get('errorRetryCount');
  const interval = view.get('errorRetryInterval');
  if (!custom.property && !count.property && !interval.property) return undefined;
  const reading = custom.property ? readCallback(...callbackOf(custom.valueNode, ctx), custom.valueNode) : readDefaults(view);
  const label = custom.property ? 'SWR onErrorRetry' : call ? `${labelOf(use.expression, ctx.sourceCode)}()` : 'SWR configuration';
  const node = custom.property ?? count.property ?? interval.property!;
  return site({
    library: 'swr',
    label,
    node: call ?? view.object ?? node,
    reportNode: node,
    attempts: { value: reading.attempts, node: custom.property ?? count.property },
    delay: { ...reading.delay, node: custom.property ?? interval.property },
    jitter: { value: reading.jitter, node: custom.property ?? interval.property },
    errorFilter: { ...reading.filter, node: custom.property },
    clientLevel: !call,
    options: call ? optionsTarget(view, call, index ?? 1) : view.object ? { object: view.object } : undefined,
  });
}

interface Reading {
  attempts: Maybe<number>;
  delay: DelaySchedule;
  jitter: Maybe<boolean>;
  filter: ErrorFilter;
}

/** SWR's own callback with `errorRetryCount` and `errorRetryInterval` as written (or their defaults). */
function readDefaults(view: OptionsView): Reading {
  const count = view.number('errorRetryCount', undefined).value;
  const interval = view.number('errorRetryInterval', DEFAULT_INTERVAL).value;
  // It retries while retryCount <= errorRetryCount: that many retries, one more call.
  const attempts = count === undefined ? Infinity : count === UNKNOWN ? UNKNOWN : Math.max(0, Math.floor(count)) + 1;
  const delay = interval === undefined || interval === UNKNOWN ? UNKNOWN_SCHEDULE
    // `~~` truncates a product below 1.5 x 2^n: the most it gives is the whole number under it.
    : customSchedule('exponential', (n) => (Math.ceil(1.5 * 2 ** Math.min(n, 8)) - 1) * interval, { initialMs: 2 * interval, multiplier: 2, maxMs: (1.5 * 2 ** 8 - 1) * interval });
  return { attempts, delay, jitter: true, filter: NO_FILTER };
}

/** What one call of the callback does for a failure: stop, or retry after a wait. */
type Outcome = { stop: true } | { stop: false; wait: Value } | typeof UNKNOWN;

/**
 * A custom `onErrorRetry`: a run of guards `if (...) return` ending in `setTimeout(() =>
 * revalidate(...), ms)` (or `revalidate(...)` at once). Anything else leaves it unknown.
 */
function readCallback(fnNode: Node | undefined, ctx: AnalysisContext, reportAt: Node | undefined): Reading {
  const unknown: Reading = { attempts: UNKNOWN, delay: UNKNOWN_SCHEDULE, jitter: UNKNOWN, filter: { kind: 'custom', clientErrors: [] } };
  const fn = functionOf(fnNode, ctx);
  if (!fn?.body || fn.body.type !== T.BlockStatement) return unknown;
  const [errorParam, , , revalidateParam, optsParam] = fn.params;
  const errorVar = errorParam?.type === T.Identifier ? parameterVariable(ctx.sourceCode, fn, errorParam) : undefined;
  const revalidate = revalidateParam?.type === T.Identifier ? parameterVariable(ctx.sourceCode, fn, revalidateParam) : undefined;
  if (!revalidate) return unknown;
  const counter = counterOf(optsParam, fn, ctx);
  const statements = fn.body.body;
  const guards: TSESTree.Expression[] = [];
  let retryAt: { wait: Node | undefined } | undefined;
  for (const s of statements) {
    if (s.type === T.IfStatement && !s.alternate && returnsOnly(s.consequent)) guards.push(s.test);
    else if (s.type === T.ExpressionStatement && s.expression.type === T.CallExpression) {
      const r = retryCall(s.expression, revalidate);
      if (r) { retryAt = r; break; }
    } else if (s.type === T.VariableDeclaration) return unknown;
  }
  if (!retryAt) return unknown;
  // Guards about neither the error nor the count concern other keys (`if (key === '/api/user') return`).
  const reads = (g: Node, v: Variable | undefined) => !!v && v.references.some((r) => contains(g, r.identifier as Node));
  const relevant = guards.filter((g) => reads(g, errorVar) || reads(g, counter.variable) || (counter.object && reads(g, counter.object)));
  const outcome = (status: number, n: number): Outcome => {
    const env: Env = {
      ...RUNNING_ENV,
      status,
      lookup: (v) => (v === errorVar ? RESPONSE : v === counter.variable ? n : v === counter.object ? retryData(n) : FREE),
    };
    for (const g of relevant) {
      const t = truth(ctx.evaluator.evaluateIn(g, env));
      if (t === UNKNOWN) return UNKNOWN;
      if (t) return { stop: true };
    }
    return { stop: false, wait: retryAt!.wait ? ctx.evaluator.evaluateIn(retryAt!.wait, env) : 0 };
  };

  let attempts: Maybe<number> = UNKNOWN;
  for (let n = 1; n <= PROBE_LIMIT; n++) {
    const o = outcome(SERVER_ERROR, n);
    if (o === UNKNOWN) break;
    if (o.stop) { attempts = n; break; }
    if (n === PROBE_LIMIT) attempts = relevant.some((g) => reads(g, counter.variable) || (counter.object && reads(g, counter.object))) ? UNKNOWN : Infinity;
  }
  const waitAt = (n: number): Value => {
    const o = outcome(SERVER_ERROR, n);
    return o === UNKNOWN || o.stop ? UNKNOWN : o.wait;
  };
  const upper = (v: Value): Maybe<number> => (typeof v === 'number' ? v : isInterval(v) ? v.hi : UNKNOWN);
  // The waits before retries 1..4, or fewer when it stops earlier.
  const retries = typeof attempts === 'number' ? Math.min(4, attempts - 1) : 4;
  const samples = Array.from({ length: Math.max(retries, 0) }, (_, i) => upper(waitAt(i + 1)));
  const known = samples.length > 0 && samples.every((w): w is number => typeof w === 'number');
  const jitterValues = samples.length > 0 ? [1, Math.min(2, samples.length)].map(waitAt) : [];
  const jitter: Maybe<boolean> = jitterValues.some(isInterval) ? true : jitterValues.length > 0 && jitterValues.every((v) => typeof v === 'number') ? false : UNKNOWN;
  const shape = known ? classifyWaits(samples as number[]) : undefined;
  const delay = customSchedule(shape?.growth ?? UNKNOWN, (n) => upper(waitAt(n)), {
    initialMs: upper(waitAt(1)),
    multiplier: shape?.multiplier ?? UNKNOWN,
  });
  return { attempts, delay, jitter, filter: statusFilter(outcome, !!errorVar && relevant.some((g) => reads(g, errorVar)), reportAt) };
}

/**
 * The callback an `onErrorRetry` value names and the context to read it in: this file's, or, for a
 * function imported from another file of the project (`onErrorRetry: SWRRetry`), that file's. What
 * it finds is reported here, at the option.
 */
function callbackOf(value: Node | undefined, ctx: AnalysisContext): [Node | undefined, AnalysisContext] {
  const v = value && unwrap(value);
  if (v?.type !== T.Identifier || functionOf(v, ctx) || !ctx.importedValue) return [value, ctx];
  const imported = ctx.importedValue(v);
  if (!imported) return [value, ctx];
  const node = unwrap(imported.node);
  const fn = isFunctionNode(node) ? node : functionOf(node, imported.ctx);
  return fn ? [fn, imported.ctx] : [value, ctx];
}

/** The 4xx the callback retries, asked of each status after the first failure. */
function statusFilter(outcome: (status: number, n: number) => Outcome, readsError: boolean, node: Node | undefined): ErrorFilter {
  // A callback that never looks at the error retries whatever the fetcher throws, which is not known here.
  if (!readsError || !node) return NO_FILTER;
  const retried: number[] = [];
  const excluded: number[] = [];
  for (let s = 400; s <= 499; s++) {
    if (!isNonRetryableClientError(s)) continue;
    const o = outcome(s, 1);
    if (o === UNKNOWN) return { kind: 'custom', clientErrors: [] };
    (o.stop ? excluded : retried).push(s);
  }
  const clientErrors: ClientErrorInclusion[] = retried.length === 0 ? []
    : [{ status: excluded.length === 0 ? '400-499' : excluded.length <= 4 ? `4xx other than ${excluded.join(', ')}` : String(retried[0]), node }];
  return { kind: 'statuses', clientErrors };
}

/** The retry count: `{ retryCount }` destructured from the fifth parameter, or `opts.retryCount`. */
function counterOf(param: TSESTree.Parameter | undefined, fn: TSESTree.FunctionLike, ctx: AnalysisContext): { variable?: Variable; object?: Variable } {
  if (param?.type === T.Identifier) return { object: parameterVariable(ctx.sourceCode, fn, param) };
  if (param?.type !== T.ObjectPattern) return {};
  for (const p of param.properties) {
    if (p.type !== T.Property || p.computed || p.key.type !== T.Identifier || p.key.name !== 'retryCount') continue;
    const target = p.value.type === T.AssignmentPattern ? p.value.left : p.value;
    if (target.type === T.Identifier) return { variable: parameterVariable(ctx.sourceCode, fn, target) };
  }
  return {};
}

function retryData(n: number): DataValue {
  return { properties: new Map<string, DataValue>([['retryCount', n]]), open: true };
}

function returnsOnly(s: TSESTree.Statement): boolean {
  if (s.type === T.ReturnStatement) return true;
  return s.type === T.BlockStatement && s.body.length >= 1 && s.body[s.body.length - 1]!.type === T.ReturnStatement &&
    s.body.slice(0, -1).every((x) => x.type === T.ExpressionStatement);
}

/** `setTimeout(() => revalidate(opts), ms)`, `setTimeout(revalidate, ms, opts)` or `revalidate(opts)`. */
function retryCall(call: TSESTree.CallExpression, revalidate: Variable): { wait: Node | undefined } | undefined {
  const callsRevalidate = (n: Node | undefined): boolean => !!n && revalidate.references.some((r) => contains(n, r.identifier as Node));
  const callee = unwrap(call.callee);
  if (callee.type === T.Identifier && revalidate.references.some((r) => r.identifier === callee)) return { wait: undefined };
  const name = callee.type === T.Identifier ? callee.name : callee.type === T.MemberExpression && !callee.computed && callee.property.type === T.Identifier ? callee.property.name : undefined;
  if (name !== 'setTimeout' || !callsRevalidate(call.arguments[0])) return undefined;
  return { wait: call.arguments[1] };
}
