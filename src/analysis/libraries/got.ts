import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { argument, callOf, functionOf, hasSpreadUpTo } from '../library.js';
import { isDefaultPath } from '../imports.js';
import type { DelaySchedule, ErrorFilter, Node, OptionEdit, RetrySite, Setting, SiteFixes } from '../model.js';
import { UNKNOWN_SCHEDULE, geometricSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown, isStaticObject } from '../eval/values.js';
import { unwrap } from '../ast.js';
import { readDelayFunction, scheduleOfReading } from './delay-function.js';
import { writesRetried, Layers, METHOD_SHORTCUTS, withoutInherited, declaredName, memberCall, methodOption, methodRetried, referencesOf, statusListFilter, optionsArgument, type ClientCallSpec } from './http-shared.js';
import { LIBRARY_FILTER, NO_TIMEOUT, optionsTarget, orUnknown, site } from './shared.js';
import { keyedSchedule, type LibraryFixes } from '../fix-plan.js';
import { dropClientErrorEntries } from '../fix-filters.js';

const MODULE = 'got';
const RETRIED_METHODS = ['GET', 'PUT', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'QUERY'];

/** Suggestions in this library's words (fixes.ts reads this facet). */
const GOT_FIXES: LibraryFixes = {
  // 4xx entries taken out of the written status list (fix-filters.ts).
  clientErrors: dropClientErrorEntries,
  schedule: gotSchedule(),
};

/**
 * got's waits are its own (1 s x 2^(n-1), capped by `backoffLimit`, plus `noise`): a plan that
 * changes them writes those settings, and a `calculateDelay` of the code's own, which ignores them,
 * becomes the documented identity `({ computedValue }) => computedValue` (got's schedule, and got's
 * own decision to stop).
 */
function gotSchedule(): NonNullable<LibraryFixes['schedule']> {
  const keys = keyedSchedule({
    attempts: { path: ['retry', 'limit'], counts: 'retries' },
    maxMs: ['retry', 'backoffLimit'],
    jitter: { path: ['retry', 'noise'], text: '100' },
    shorthand: { key: 'retry', count: 'limit' },
  });
  return {
    writes: ['attempts', 'initialMs', 'multiplier', 'maxMs', 'jitter'],
    jitterBound: { factor: 1, addMs: 100 },
    // A cap the model could not read (a delay function's) is taken as none: the plan then bounds it.
    normalize: (plan) => {
      const maxMs = isKnown(plan.maxMs) ? plan.maxMs : Infinity;
      return { ...plan, initialMs: Math.max(0, Math.min(1000, maxMs)), multiplier: 2, maxMs };
    },
    write(plan, changed, site, ctx) {
      const calculate = ctx.options(site.options?.object).sub('retry').get('calculateDelay');
      const waits = changed.has('initialMs') || changed.has('multiplier') || changed.has('maxMs') || changed.has('jitter');
      const custom = !!calculate.property || calculate.value !== undefined;
      if (waits && custom && !calculate.property) return undefined;
      if ((changed.has('initialMs') || changed.has('multiplier')) && !custom) return undefined;
      const edits = keys.write(plan, new Set([...changed].filter((k) => k !== 'initialMs' && k !== 'multiplier')), site, ctx) ?? [];
      if (waits && custom) edits.push({ path: ['retry', 'calculateDelay'], text: '({ computedValue }) => computedValue', label: "calculateDelay: got's own" });
      return edits;
    },
  };
}

/**
 * got: `got(url, {retry: {...}})`, `got.get/post/...(url, opts)`, `got.extend({retry})` and calls
 * through an extended instance. Every request call is a site, at the library defaults when it
 * writes no retry option (limit 2, 1 s × 2^(n−1) + 0–100 ms noise, GET-like methods only, the
 * library's own status list), so rules that look for clients that already retry can see it.
 */
export const got: LibraryDescriptor = {
  id: MODULE,
  callableClient: true,
  modules: [MODULE],
  http: { method: 'members', senders: ['default', 'request'], throwsOnClientError: true, nonThrowingOptions: ['throwHttpErrors'], types: ['Got'] },
  fixes: GOT_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      if (!call) continue;
      if (use.path === 'extend') {
        sites.push(...client(call, use.expression, new Layers([]), ctx));
        continue;
      }
      const method = isDefaultPath(use.path) ? 'GET' : METHOD_SHORTCUTS.has(use.path) ? use.path.toUpperCase() : use.path === 'stream' ? 'GET' : undefined;
      if (!method) continue;
      sites.push(request(call, use.expression, method, isDefaultPath(use.path) || use.path === 'stream', new Layers([]), ctx));
    }
    return sites;
  },
};

/** `got.extend(...options)`: a client whose retry applies to every call through it. */
function client(call: TSESTree.CallExpression, callee: Node, parent: Layers, ctx: AnalysisContext): RetrySite[] {
  // A spread argument resolves to nothing readable, so its layer is unknown.
  const views = call.arguments.map((a) => ctx.options(a));
  const layers = new Layers([...parent.views, ...views]);
  const last = views[views.length - 1];
  const sites: RetrySite[] = [withoutInherited(readSite(ctx, {
    label: 'got.extend()',
    node: call,
    reportNode: callee,
    layers,
    method: undefined,
    clientLevel: true,
    operation: call,
    options: last && !hasSpreadUpTo(call, call.arguments.length - 1) ? optionsTarget(last, call, call.arguments.length - 1) : optionsTarget(ctx.options(undefined), call, 0),
  }), parent.views)];
  // Calls through the instance that set their own retry options.
  const id = declaredName(call);
  if (!id) return sites;
  for (const ref of referencesOf(id, ctx)) {
    const use = memberCall(ref);
    if (!use) continue;
    if (use.member === 'extend') {
      sites.push(...client(use.call, use.call.callee, layers, ctx));
      continue;
    }
    const shortcut = use.member === undefined || use.member === 'stream' ? undefined : use.member;
    if (shortcut !== undefined && !METHOD_SHORTCUTS.has(shortcut)) continue;
    const index = optionsIndex(use.call, ctx);
    if (ctx.options(optionsArgument(use.call, index)).has('retry') !== true) continue;
    sites.push(request(use.call, use.call.callee, shortcut ? shortcut.toUpperCase() : 'GET', shortcut === undefined, layers, ctx));
  }
  return sites;
}

/** `got(url, opts)` or `got(opts)`: the options are the last object argument. */
function optionsIndex(call: TSESTree.CallExpression, ctx: AnalysisContext): number {
  const first = argument(call, 0);
  if (call.arguments.length === 1 && first && ctx.evaluator.resolve(first).type === T.ObjectExpression) return 0;
  return 1;
}

function request(call: TSESTree.CallExpression, callee: Node, method: string, methodFromOptions: boolean, parent: Layers, ctx: AnalysisContext): RetrySite {
  const index = optionsIndex(call, ctx);
  const view = ctx.options(optionsArgument(call, index));
  const layers = new Layers([...parent.views, view]);
  const written = methodFromOptions ? methodOption(layers) : undefined;
  return withoutInherited(readSite(ctx, {
    label: `${labelText(callee, ctx)}()`,
    node: call,
    reportNode: callee,
    layers,
    method: written === undefined ? method : written,
    clientLevel: false,
    operation: call,
    options: optionsTarget(view, call, index),
  }), parent.views);
}

function labelText(callee: Node, ctx: AnalysisContext): string {
  const text = ctx.sourceCode.getText(callee);
  return text.length > 30 ? 'got' : text;
}

type Spec = ClientCallSpec;

function readSite(ctx: AnalysisContext, spec: Spec): RetrySite {
  const retryOption = spec.layers.get('retry');
  // got 11 accepted `retry: 2` as the limit.
  const shorthand = typeof retryOption.value === 'number';
  const retry = shorthand ? new Layers([]) : spec.layers.sub('retry');
  const unknownRetry = retryOption.value === UNKNOWN || (retryOption.value !== undefined && !shorthand && !isStaticObject(retryOption.value));
  const limit: Setting<number | undefined> = shorthand
    ? { value: retryOption.value as number, node: retryOption.property }
    : unknownRetry ? { value: UNKNOWN, node: retryOption.property } : retry.number('limit', 2);
  let attempts = totalAttempts(limit, 'retries');

  const calculate = retry.get('calculateDelay');
  const custom = !!calculate.property || calculate.value !== undefined;
  const enforce = retry.get('enforceRetryRules');
  // With enforceRetryRules off, calculateDelay alone decides whether to retry at all.
  const overridden = custom && enforce.value !== true && (enforce.property !== undefined || enforce.value !== undefined);
  if (overridden) attempts = { value: UNKNOWN, node: calculate.property };

  const methods = retry.get('methods');
  if (spec.method !== undefined && !overridden && methodRetried(spec.method, methods, RETRIED_METHODS) === false) {
    // got never retries this method (POST, PATCH by default): one call.
    attempts = { value: 1, node: methods.property };
  }

  const { schedule, jitter } = readDelay(retry, calculate, ctx);
  const statusCodes = retry.get('statusCodes');
  let errorFilter: ErrorFilter = LIBRARY_FILTER;
  if (overridden) errorFilter = { kind: 'custom', clientErrors: [], node: calculate.property };
  else if (unknownRetry) errorFilter = { kind: 'custom', clientErrors: [], node: retryOption.property };
  else if (statusCodes.property || statusCodes.value !== undefined) errorFilter = statusListFilter(statusCodes, ctx, { honours413: true });

  return site({
    library: MODULE,
    label: spec.label,
    node: spec.node,
    reportNode: spec.reportNode,
    attempts,
    delay: schedule,
    jitter,
    errorFilter,
    attemptTimeoutMs: readTimeout(spec.layers),
    clientLevel: spec.clientLevel,
    retriesWrites: overridden ? { value: UNKNOWN, node: calculate.property } : writesRetried(methods, RETRIED_METHODS),
    operation: spec.operation,
    options: spec.options,
    fixes: gotFixes(shorthand, custom),
  });
}

function gotFixes(shorthand: boolean, customDelay: boolean): SiteFixes {
  const limit = (total: number): OptionEdit[] => [{ path: shorthand ? ['retry'] : ['retry', 'limit'], text: String(Math.max(0, total - 1)) }];
  return {
    attempts: limit,
    ...(shorthand || customDelay ? {} : { jitter: () => [{ path: ['retry', 'noise'], text: '100' }] }),
  };
}

function readDelay(retry: Layers, calculate: ReturnType<Layers['get']>, ctx: AnalysisContext): { schedule: DelaySchedule; jitter: Setting<boolean> } {
  if (calculate.property || calculate.value !== undefined) {
    const node = calculate.property;
    const fn = functionOf(calculate.valueNode, ctx);
    if (fn && returnsComputedValue(fn)) return defaultDelay(retry);
    const reading = fn ? readDelayFunction(fn, ctx, [{ attemptCount: 'n' }]) : undefined;
    if (!reading) return { schedule: { ...UNKNOWN_SCHEDULE, node }, jitter: { value: UNKNOWN, node } };
    return { schedule: scheduleOfReading(reading, node), jitter: { value: reading.jitter, node } };
  }
  return defaultDelay(retry);
}

/** min(1000 × 2^(n−1), backoffLimit) + random × noise. */
function defaultDelay(retry: Layers): { schedule: DelaySchedule; jitter: Setting<boolean> } {
  const limit = retry.number('backoffLimit', Infinity);
  const noise = retry.number('noise', 100);
  const cap = orUnknown(limit.value);
  const noiseMs = orUnknown(noise.value);
  const growth = !isKnown(cap) ? UNKNOWN : cap <= 0 ? 'none' : cap <= 1000 ? 'constant' : 'exponential';
  return {
    schedule: geometricSchedule({
      growth,
      initialMs: isKnown(cap) ? Math.min(1000, Math.max(cap, 0)) : UNKNOWN,
      multiplier: growth === 'exponential' ? 2 : 1,
      maxMs: cap,
      jitterAddMs: isKnown(noiseMs) ? Math.max(0, noiseMs) : UNKNOWN,
      node: limit.node,
    }),
    jitter: { value: isKnown(noiseMs) ? noiseMs > 0 : UNKNOWN, node: noise.node },
  };
}

/** `({ computedValue }) => computedValue`: the documented identity, i.e. the default schedule. */
function returnsComputedValue(fn: TSESTree.FunctionLike): boolean {
  const param = fn.params[0];
  let body: Node | undefined | null = fn.body;
  if (body?.type === T.BlockStatement) {
    const only = body.body.length === 1 ? body.body[0] : undefined;
    body = only?.type === T.ReturnStatement ? only.argument : undefined;
  }
  if (!body || param?.type !== T.ObjectPattern) return false;
  const b = unwrap(body);
  if (b.type !== T.Identifier) return false;
  return param.properties.some((p) => p.type === T.Property && !p.computed && p.key.type === T.Identifier && p.key.name === 'computedValue' &&
    p.value.type === T.Identifier && p.value.name === b.name);
}

/** `timeout: { request }` bounds one attempt (got 11 also took a plain number). */
function readTimeout(layers: Layers): Setting<number | undefined> {
  const t = layers.get('timeout');
  if (typeof t.value === 'number') return { value: t.value, node: t.property };
  if (!t.property && t.value === undefined) return NO_TIMEOUT;
  const request = layers.sub('timeout').number('request', undefined);
  return request.value === undefined ? NO_TIMEOUT : request;
}
