import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor, LibraryUse } from '../library.js';
import { alwaysTrue, argument, callOf, functionOf } from '../library.js';
import { isDefaultPath } from '../imports.js';
import type { DelaySchedule, ErrorFilter, Node, RetrySite, Setting, SiteFixes } from '../model.js';
import { NO_DELAY, UNKNOWN_SCHEDULE, geometricSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN, isStaticFunction } from '../eval/values.js';
import { unwrap } from '../ast.js';
import { readDelayFunction, scheduleOfReading } from './delay-function.js';
import { Layers, declaredName, withoutInherited, predicateClientErrors, referencesOf, statusListFilter, optionsArgument } from './http-shared.js';
import { LIBRARY_FILTER, optionsTarget, site } from './shared.js';
import { functionSchedule, type LibraryFixes } from '../fix-plan.js';
import { dropClientErrorEntries } from '../fix-filters.js';

const MODULE = 'fetch-retry';
const KEYS = ['retries', 'retryDelay', 'retryOn'];

/** Suggestions in this library's words (fixes.ts reads this facet). */
const FETCH_RETRY_FIXES: LibraryFixes = {
  // 4xx entries taken out of the written status list (fix-filters.ts).
  clientErrors: dropClientErrorEntries,
  schedule: functionSchedule({
    attempts: { path: ['retries'], counts: 'retries' },
    delay: (body) => ({ path: ['retryDelay'], text: `(attempt) => ${body('attempt')}` }),
  }),
};

/**
 * fetch-retry: `const f = fetchRetry(fetch, defaults)` builds a retrying fetch; each call
 * `f(url, {retries, retryDelay, retryOn})` may override the defaults. 3 retries, a constant
 * 1000 ms, no jitter; only rejections are retried unless `retryOn` lists statuses. A `retryOn`
 * function replaces the `retries` bound altogether.
 */
export const fetchRetry: LibraryDescriptor = {
  id: MODULE,
  callableClient: true,
  modules: [MODULE],
  fixes: FETCH_RETRY_FIXES,
  find: (uses, ctx) => findBuilt(uses, ctx, FETCH_RETRY),
};

/**
 * fetch-retry-ts (read at sjinks/node-fetch-retry-ts 1.3.1, src/index.ts): the same builder and
 * options as fetch-retry, exported as `fetchBuilder` and as the default, with other defaults:
 * 3 retries, a constant 500 ms, and `retryOn` [419, 503, 504] (network errors always retried).
 */
export const fetchRetryTs: LibraryDescriptor = {
  id: 'fetch-retry-ts',
  callableClient: true,
  modules: ['fetch-retry-ts'],
  fixes: FETCH_RETRY_FIXES,
  find: (uses, ctx) => findBuilt(uses, ctx, FETCH_RETRY_TS),
};

interface Flavour {
  readonly library: string;
  readonly isBuilder: (path: string) => boolean;
  /** The wait when `retryDelay` is not written. */
  readonly defaultDelayMs: number;
}

const FETCH_RETRY: Flavour = { library: MODULE, isBuilder: isDefaultPath, defaultDelayMs: 1000 };
const FETCH_RETRY_TS: Flavour = { library: 'fetch-retry-ts', isBuilder: (p) => isDefaultPath(p) || p === 'fetchBuilder', defaultDelayMs: 500 };

function findBuilt(uses: readonly LibraryUse[], ctx: AnalysisContext, flavour: Flavour): RetrySite[] {
  const sites: RetrySite[] = [];
  for (const use of uses) {
    const call = callOf(use);
    if (!call || !flavour.isBuilder(use.path)) continue;
    const defaults = ctx.options(optionsArgument(call, 1));
    sites.push(readSite(ctx, new Layers([defaults]), flavour, {
      label: 'fetchRetry()',
      node: call,
      reportNode: use.expression,
      clientLevel: true,
      operation: argument(call, 0),
      options: optionsTarget(defaults, call, 1),
    }));
    // Calls of the built function that override the retry settings are sites of their own.
    const id = declaredName(call);
    if (!id) continue;
    for (const ref of referencesOf(id, ctx)) {
      const c = ref.parent;
      if (c?.type !== T.CallExpression || c.callee !== ref) continue;
      const init = ctx.options(optionsArgument(c, 1));
      if (!KEYS.some((k) => init.has(k) === true)) continue;
      sites.push(withoutInherited(readSite(ctx, new Layers([defaults, init]), flavour, {
        label: `${ref.name}()`,
        node: c,
        reportNode: ref,
        clientLevel: false,
        operation: c,
        options: optionsTarget(init, c, 1),
      }), [defaults]));
    }
  }
  return sites;
}

interface Spec {
  label: string;
  node: Node;
  reportNode: Node;
  clientLevel: boolean;
  operation: Node | undefined;
  options: ReturnType<typeof optionsTarget>;
}

function readSite(ctx: AnalysisContext, layers: Layers, flavour: Flavour, spec: Spec): RetrySite {
  const retryOn = layers.get('retryOn');
  const written = !!retryOn.property || retryOn.value !== undefined;
  const isFunction = isStaticFunction(retryOn.value);
  let attempts = totalAttempts(layers.number('retries', 3), 'retries');
  let errorFilter: ErrorFilter = LIBRARY_FILTER;
  if (isFunction) {
    const fn = functionOf(retryOn.valueNode, ctx);
    if (fn && alwaysTrue(fn, ctx)) {
      attempts = { value: Infinity, node: retryOn.property };
      errorFilter = { kind: 'none', clientErrors: [], retriesEverything: retryOn.property, node: retryOn.property };
    } else {
      // `retries` is ignored: only a bound the function itself checks counts.
      attempts = (fn && attemptBound(fn, ctx)) ?? { value: UNKNOWN, node: retryOn.property };
      errorFilter = { kind: 'custom', clientErrors: fn ? predicateClientErrors(fn, ctx, {}) : [], node: retryOn.property };
    }
  } else if (written) {
    if (Array.isArray(retryOn.value) || retryOn.valueNode) errorFilter = statusListFilter(retryOn, ctx, {});
    if (retryOn.value === UNKNOWN) {
      // Could be a function, which would make the count meaningless.
      attempts = { value: UNKNOWN, node: retryOn.property };
      errorFilter = { kind: 'custom', clientErrors: [], node: retryOn.property };
    }
  }
  const delay = readDelay(layers, ctx, flavour.defaultDelayMs);
  return site({
    // This library re-sends every method, POST and PATCH included.
    retriesWrites: { value: true },
    library: flavour.library,
    ...spec,
    attempts,
    delay: delay.schedule,
    jitter: delay.jitter,
    errorFilter,
    fixes: fetchRetryFixes(isFunction || retryOn.value === UNKNOWN),
  });
}

/** A growing, randomised delay in fetch-retry's own terms (`attempt` is 0 for the first retry). */
const EXPONENTIAL_DELAY = '(attempt) => 500 * 2 ** attempt * (0.5 + Math.random())';

function fetchRetryFixes(countIgnored: boolean): SiteFixes {
  return {
    ...(countIgnored ? {} : { attempts: (total: number) => [{ path: ['retries'], text: String(Math.max(0, total - 1)) }] }),
    exponential: () => [{ path: ['retryDelay'], text: EXPONENTIAL_DELAY }],
    jitter: () => [{ path: ['retryDelay'], text: EXPONENTIAL_DELAY }],
  };
}

function readDelay(layers: Layers, ctx: AnalysisContext, defaultMs: number): { schedule: DelaySchedule; jitter: Setting<boolean> } {
  const option = layers.get('retryDelay');
  const node = option.property;
  if (!node && option.value === undefined) {
    return { schedule: geometricSchedule({ growth: 'constant', initialMs: defaultMs, multiplier: 1 }), jitter: { value: false } };
  }
  if (typeof option.value === 'number') {
    if (option.value <= 0) return { schedule: { ...NO_DELAY, node }, jitter: { value: false, node } };
    return { schedule: geometricSchedule({ growth: 'constant', initialMs: option.value, multiplier: 1, node }), jitter: { value: false, node } };
  }
  const reading = readDelayFunction(option.valueNode, ctx, ['n'], { argumentFor: (n) => n - 1 });
  if (!reading) return { schedule: { ...UNKNOWN_SCHEDULE, node }, jitter: { value: UNKNOWN, node } };
  return { schedule: scheduleOfReading(reading, node), jitter: { value: reading.jitter, node } };
}

/**
 * The bound a `retryOn` function puts on its own first parameter (the 0-based attempt):
 * `(attempt, error, res) => attempt < 3 && ...` or a leading `if (attempt >= 3) return false`.
 */
function attemptBound(fn: TSESTree.FunctionLike, ctx: AnalysisContext): Setting<number> | undefined {
  const param = fn.params[0];
  if (param?.type !== T.Identifier || !fn.body) return undefined;
  const name = param.name;
  // Retried while `attempt <= last`: last + 1 retries, last + 2 calls.
  const lastRetried = (test: Node, negated: boolean): number | undefined => {
    const e = unwrap(test);
    if (e.type !== T.BinaryExpression || e.left.type === T.PrivateIdentifier) return undefined;
    let op: string = e.operator;
    let other: Node;
    if (e.left.type === T.Identifier && e.left.name === name) other = e.right;
    else if (e.right.type === T.Identifier && e.right.name === name) {
      other = e.left;
      op = ({ '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as Record<string, string>)[op] ?? op;
    } else return undefined;
    const v = ctx.evaluator.number(other);
    if (v === UNKNOWN) return undefined;
    if (negated) op = ({ '<': '>=', '<=': '>', '>': '<=', '>=': '<' } as Record<string, string>)[op] ?? '';
    if (op === '<') return v - 1;
    if (op === '<=') return v;
    return undefined;
  };
  const fromLast = (last: number | undefined, node: Node): Setting<number> | undefined =>
    last === undefined ? undefined : { value: Math.max(1, last + 2), node };
  if (fn.body.type !== T.BlockStatement) {
    const terms: Node[] = [];
    const collect = (n: Node) => {
      const u = unwrap(n);
      if (u.type === T.LogicalExpression && u.operator === '&&') { collect(u.left); collect(u.right); } else terms.push(u);
    };
    collect(fn.body);
    for (const t of terms) {
      const found = fromLast(lastRetried(t, false), t);
      if (found) return found;
    }
    return undefined;
  }
  const first = fn.body.body[0];
  if (first?.type !== T.IfStatement) return undefined;
  const consequent = first.consequent.type === T.BlockStatement ? first.consequent.body[0] : first.consequent;
  if (consequent?.type !== T.ReturnStatement || !consequent.argument || ctx.evaluator.evaluate(consequent.argument) !== false) return undefined;
  return fromLast(lastRetried(first.test, true), first.test);
}
