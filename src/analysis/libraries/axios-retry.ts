import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { alwaysTrue, argument, callOf, functionOf, isFunctionNode } from '../library.js';
import { isDefaultPath } from '../imports.js';
import type { DelaySchedule, ErrorFilter, Node, OptionEdit, RetrySite, Setting, SiteFixes } from '../model.js';
import { dropClientErrorEntries } from '../fix-filters.js';
import { importedName } from '../fix-imports.js';
import type { OptionValue, OptionsView } from '../options.js';
import { NO_DELAY, UNKNOWN_SCHEDULE, customSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN } from '../eval/values.js';
import { unwrap, walk } from '../ast.js';
import { readDelayFunction, scheduleOfReading } from './delay-function.js';
import { predicateClientErrors, optionsArgument } from './http-shared.js';
import { LIBRARY_FILTER, NO_TIMEOUT, optionsTarget, site } from './shared.js';
import { functionSchedule } from '../fix-plan.js';

const MODULE = 'axios-retry';

/** The library's own predicates: all of them know HTTP (no 4xx other than 429 is ever retried). */
const BUILT_IN_CONDITIONS = new Set([
  'isNetworkOrIdempotentRequestError',
  'isNetworkError',
  'isRetryableError',
  'isSafeRequestError',
  'isIdempotentRequestError',
]);

/**
 * axios-retry: `axiosRetry(axiosOrInstance, {retries, retryDelay, retryCondition, shouldResetTimeout})`
 * (default export; CJS `require('axios-retry').default`). Retries 3 by default with no delay at all;
 * `exponentialDelay` is 2^n × delayFactor plus 0–20%, `linearDelay(f)` is n × f.
 */
export const axiosRetry: LibraryDescriptor = {
  id: MODULE,
  fixes: {
    clientErrors: axiosRetryClientErrors,
    // `retryCount` is 1 on the first retry; a changed wait is written as full jitter.
    schedule: functionSchedule({
      attempts: { path: ['retries'], counts: 'retries' },
      delay: (body) => ({ path: ['retryDelay'], text: `(retryCount) => ${body('retryCount - 1')}` }),
    }),
  },
  callableClient: true,
  modules: [MODULE],
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      if (!call || !isDefaultPath(use.path)) continue;
      const view = ctx.options(optionsArgument(call, 1));
      const instance = argument(call, 0);
      const delay = readRetryDelay(view.get('retryDelay'), ctx);
      const timeouts = instanceTimeout(instance, view, ctx);
      const name = use.expression.type === T.Identifier ? use.expression.name : undefined;
      sites.push(site({
        library: MODULE,
        label: 'axiosRetry()',
        node: call,
        reportNode: use.expression,
        attempts: totalAttempts(view.number('retries', 3), 'retries'),
        delay: delay.schedule,
        jitter: delay.jitter,
        errorFilter: readCondition(view.get('retryCondition'), ctx),
        retriesWrites: writesRetriedBy(view.get('retryCondition'), ctx),
        ...timeouts,
        clientLevel: true,
        operation: instance,
        options: optionsTarget(view, call, 1),
        fixes: fixes(name),
      }));
    }
    return sites;
  },
};

/**
 * A condition that retries everything goes back to the library's own default
 * (`isNetworkOrIdempotentRequestError`: network errors, 429 and 5xx); a predicate that names 4xx
 * loses those terms.
 */
function axiosRetryClientErrors(site: RetrySite, ctx: AnalysisContext): OptionEdit[] | undefined {
  if (!site.errorFilter.retriesEverything) return dropClientErrorEntries(site, ctx);
  const callee = unwrap(site.reportNode);
  const name = callee.type === T.Identifier ? { name: `${callee.name}.isNetworkOrIdempotentRequestError`, edits: [] } : importedName(ctx, MODULE, 'isNetworkOrIdempotentRequestError');
  if (!name) return undefined;
  return [...name.edits, { path: ['retryCondition'], text: name.name }];
}

function fixes(name: string | undefined): SiteFixes {
  // The helpers hang off the default export, so the local name of the call reaches them.
  const exponential = name ? () => [{ path: ['retryDelay'], text: `${name}.exponentialDelay` }] : undefined;
  return {
    ...(name ? { idempotentOnly: () => [{ path: ['retryCondition'], text: `${name}.isIdempotentRequestError` }] } : {}),
    attempts: (total) => [{ path: ['retries'], text: String(Math.max(0, total - 1)) }],
    ...(exponential ? { exponential, jitter: exponential } : {}),
  };
}

/** Whether `node` is the axios-retry export `name` (`exponentialDelay`, `axiosRetry.exponentialDelay`). */
function isExport(node: Node | undefined, ctx: AnalysisContext, names: ReadonlySet<string> | string): string | undefined {
  if (!node) return undefined;
  const ref = ctx.imports.resolve(node);
  if (!ref || ref.module !== MODULE) return undefined;
  const ok = typeof names === 'string' ? ref.path === names : names.has(ref.path);
  return ok ? ref.path : undefined;
}

/** 2^n × factor, inflated by up to 20%: axios-retry's exponentialDelay (n = 1 for the first retry). */
function exponentialSchedule(factor: number | typeof UNKNOWN, node: Node | undefined): DelaySchedule {
  if (factor === UNKNOWN) return customSchedule('exponential', () => UNKNOWN, { multiplier: 2, maxMs: Infinity, node });
  if (factor <= 0) return { ...NO_DELAY, node };
  return customSchedule('exponential', (n) => 2 ** n * factor * 1.2, { initialMs: 2 * factor, multiplier: 2, maxMs: Infinity, node });
}

function readRetryDelay(option: OptionValue, ctx: AnalysisContext): { schedule: DelaySchedule; jitter: Setting<boolean> } {
  const node = option.property;
  if (!node && option.value === undefined) return { schedule: NO_DELAY, jitter: { value: false } };
  const value = option.valueNode;
  if (!value) return { schedule: UNKNOWN_SCHEDULE, jitter: { value: UNKNOWN, node } };
  if (isExport(value, ctx, 'exponentialDelay')) return { schedule: exponentialSchedule(100, node), jitter: { value: true, node } };
  if (isExport(value, ctx, 'noDelay')) return { schedule: { ...NO_DELAY, node }, jitter: { value: false, node } };
  const resolved = ctx.evaluator.resolve(value);
  // linearDelay(factor = 100) returns the delay function.
  if (resolved.type === T.CallExpression && isExport(resolved.callee, ctx, 'linearDelay')) {
    const factor = resolved.arguments.length === 0 ? 100 : ctx.evaluator.number(resolved.arguments[0]);
    if (factor !== UNKNOWN && factor <= 0) return { schedule: { ...NO_DELAY, node }, jitter: { value: false, node } };
    return {
      schedule: customSchedule('linear', (n) => (factor === UNKNOWN ? UNKNOWN : n * factor), { initialMs: factor, maxMs: Infinity, node }),
      jitter: { value: false, node },
    };
  }
  const fn = functionOf(value, ctx);
  if (!fn) return { schedule: { ...UNKNOWN_SCHEDULE, node }, jitter: { value: UNKNOWN, node } };
  // `(count, err) => axiosRetry.exponentialDelay(count, err, 500)`: the usual way to set the factor.
  const wrapped = wrappedExponential(fn, ctx);
  if (wrapped) return { schedule: exponentialSchedule(wrapped.factor, node), jitter: { value: true, node } };
  const reading = readDelayFunction(fn, ctx, ['n']);
  if (!reading) return { schedule: { ...UNKNOWN_SCHEDULE, node }, jitter: { value: UNKNOWN, node } };
  return { schedule: scheduleOfReading(reading, node), jitter: { value: reading.jitter, node } };
}

function wrappedExponential(fn: TSESTree.FunctionLike, ctx: AnalysisContext): { factor: number | typeof UNKNOWN } | undefined {
  let body: Node | undefined;
  if (fn.body?.type === T.BlockStatement) {
    const only = fn.body.body.length === 1 ? fn.body.body[0] : undefined;
    body = only?.type === T.ReturnStatement ? only.argument ?? undefined : undefined;
  } else body = fn.body ?? undefined;
  if (!body) return undefined;
  const call = unwrap(body);
  if (call.type !== T.CallExpression || !isExport(call.callee, ctx, 'exponentialDelay')) return undefined;
  // The retry count must be the one axios-retry passes in, or the schedule is not the library's.
  const first = call.arguments[0];
  const param = fn.params[0];
  if (!first || first.type !== T.Identifier || param?.type !== T.Identifier || param.name !== first.name) return undefined;
  const factorArg = call.arguments[2];
  return { factor: factorArg ? ctx.evaluator.number(factorArg) : 100 };
}

function readCondition(option: OptionValue, ctx: AnalysisContext): ErrorFilter {
  const node = option.property;
  if (!node && option.value === undefined) return LIBRARY_FILTER;
  if (isExport(option.valueNode, ctx, BUILT_IN_CONDITIONS)) return { kind: 'library-default', clientErrors: [], node };
  const fn = functionOf(option.valueNode, ctx);
  if (fn && alwaysTrue(fn, ctx)) return { kind: 'none', clientErrors: [], retriesEverything: node, node };
  return { kind: 'custom', clientErrors: fn ? predicateClientErrors(fn, ctx, {}) : [], node };
}

/** Conditions that only ever retry idempotent methods (GET, HEAD, OPTIONS, PUT, DELETE). */
const IDEMPOTENT_ONLY = new Set(['isIdempotentRequestError', 'isSafeRequestError']);

/**
 * Whether writes are re-sent. The default `isNetworkOrIdempotentRequestError` retries network errors
 * (ECONNRESET after the server committed) on ANY method, POST included.
 */
function writesRetriedBy(option: OptionValue, ctx: AnalysisContext): Setting<boolean> {
  if (!option.property && option.value === undefined) return { value: true };
  if (isExport(option.valueNode, ctx, IDEMPOTENT_ONLY)) return { value: false, node: option.property };
  if (isExport(option.valueNode, ctx, BUILT_IN_CONDITIONS)) return { value: true, node: option.property };
  const fn = functionOf(option.valueNode, ctx);
  if (fn && (alwaysTrue(fn, ctx) || blindToMethod(fn, ctx))) return { value: true, node: option.property };
  return { value: UNKNOWN, node: option.property };
}

/** Calls a condition may make without learning anything about the request's method. */
const PURE_MEMBERS = new Set(['includes', 'has', 'test', 'startsWith', 'endsWith', 'indexOf', 'some', 'every']);

/**
 * A condition that never looks at the request's method cannot keep a POST out: whatever it
 * accepts (`error.response?.status === 500`, a network error), it accepts for every method.
 * True when the predicate names no `method` and calls nothing but the library's write-retrying
 * conditions and value tests (`[500, 502].includes(status)`); any other call (a helper that
 * may read the method) leaves the answer unknown.
 */
function blindToMethod(fn: TSESTree.FunctionLike, ctx: AnalysisContext): boolean {
  if (!fn.body) return false;
  let blind = true;
  walk(fn.body, (n) => {
    if (!blind) return;
    if (n.type === T.Identifier && /method/i.test(n.name)) blind = false;
    else if (n.type === T.Literal && n.value === 'method') blind = false;
    else if (n.type === T.CallExpression) {
      const callee = unwrap(n.callee);
      const exported = isExport(callee, ctx, BUILT_IN_CONDITIONS);
      if (exported) blind = !IDEMPOTENT_ONLY.has(exported);
      else if (callee.type !== T.MemberExpression || callee.computed || callee.property.type !== T.Identifier || !PURE_MEMBERS.has(callee.property.name)) blind = false;
    }
  });
  return blind && !neverRetries(fn);
}

/** `() => false`: a condition that retries nothing re-sends no write either. */
function neverRetries(fn: TSESTree.FunctionLike): boolean {
  const body = fn.body && fn.body.type !== T.BlockStatement ? unwrap(fn.body) : undefined;
  return body?.type === T.Literal && body.value === false;
}

/**
 * The axios `timeout` of an instance made in this file (`axios.create({ timeout })`). Unless
 * `shouldResetTimeout` is set it is a budget for all attempts together, so it acts as a deadline.
 */
function instanceTimeout(instance: Node | undefined, view: OptionsView, ctx: AnalysisContext): { deadlineMs: Setting<number | undefined>; attemptTimeoutMs: Setting<number | undefined> } {
  const none = { deadlineMs: NO_TIMEOUT, attemptTimeoutMs: NO_TIMEOUT };
  if (!instance || isFunctionNode(instance)) return none;
  const created = ctx.evaluator.resolve(instance);
  if (created.type !== T.CallExpression) return none;
  const ref = ctx.imports.resolve(created.callee);
  if (!ref || ref.module !== 'axios' || ref.path !== 'create') return none;
  const timeout = ctx.options(argument(created, 0)).number('timeout', undefined);
  if (timeout.value === undefined || timeout.value === 0) return none;
  const reset = view.boolean('shouldResetTimeout', false);
  if (reset.value === UNKNOWN) return none;
  return reset.value ? { deadlineMs: NO_TIMEOUT, attemptTimeoutMs: timeout } : { deadlineMs: timeout, attemptTimeoutMs: NO_TIMEOUT };
}
