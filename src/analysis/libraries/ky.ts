import type { TSESTree } from '@typescript-eslint/utils';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { alwaysTrue, callOf, functionOf } from '../library.js';
import { isDefaultPath } from '../imports.js';
import type { DelaySchedule, ErrorFilter, Node, OptionEdit, RetrySite, Setting, SiteFixes } from '../model.js';
import { UNKNOWN_SCHEDULE, customSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown, isStaticFunction, isStaticObject, type Maybe } from '../eval/values.js';
import { readDelayFunction } from './delay-function.js';
import { Layers, METHOD_SHORTCUTS, withoutInherited, declaredName, memberCall, methodOption, methodRetried, predicateClientErrors, referencesOf, statusListFilter, optionsArgument , writesRetried, type ClientCallSpec } from './http-shared.js';
import { LIBRARY_FILTER, NO_TIMEOUT, optionsTarget, orUnknown, site } from './shared.js';
import { keyedSchedule, type LibraryFixes } from '../fix-plan.js';
import { dropClientErrorEntries } from '../fix-filters.js';

const MODULE = 'ky';
const RETRIED_METHODS = ['GET', 'PUT', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'QUERY'];
const DEFAULT_TIMEOUT_MS = 10_000;

/** Suggestions in this library's words (fixes.ts reads this facet). */
const KY_FIXES: LibraryFixes = {
  // 4xx entries taken out of the written status list (fix-filters.ts).
  clientErrors: dropClientErrorEntries,
  schedule: keyedSchedule({
    attempts: { path: ['retry', 'limit'], counts: 'retries' },
    maxMs: ['retry', 'backoffLimit'],
    jitter: { path: ['retry', 'jitter'], text: 'true' },
    deadlineMs: ['totalTimeout'],
    jitterBound: { factor: 1 },
    shorthand: { key: 'retry', count: 'limit' },
  }),
};

/**
 * ky: `ky(url, {retry: n | {...}})`, `ky.get/post/...`, `ky.create/extend({retry})` and calls
 * through a created instance. A number is shorthand for `limit` (default 2 retries); the default
 * delay is 0.3 × 2^(n−1) s with no jitter unless `jitter` is set; `timeout` (10 s) bounds each
 * attempt and `totalTimeout` all of them.
 *
 * Only calls that write a `retry` option are sites: ky retries every GET at its defaults, and
 * reporting every plain `ky.get()` for that would drown the findings that matter.
 */
export const ky: LibraryDescriptor = {
  id: MODULE,
  callableClient: true,
  modules: [MODULE],
  http: { method: 'members', senders: ['default', 'request'], throwsOnClientError: true, nonThrowingOptions: ['throwHttpErrors'], types: ['KyInstance'] },
  // Its default instance retries GET, PUT, HEAD, DELETE, OPTIONS, TRACE (and QUERY in 2.x) twice
  // (3 calls), POST and PATCH never (source/utils/normalize.ts, 2.0.2 and 1.14.3): a layer under an
  // outer retry.
  builtInRetry: { attempts: 3, retriesWrites: false, label: 'ky', moduleCallsOnly: true },
  fixes: KY_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      if (!call) continue;
      if (use.path === 'create' || use.path === 'extend') {
        sites.push(...client(call, use.expression, `ky.${use.path}()`, new Layers([]), ctx));
        continue;
      }
      const method = isDefaultPath(use.path) ? 'GET' : METHOD_SHORTCUTS.has(use.path) ? use.path.toUpperCase() : undefined;
      if (!method) continue;
      const s = request(call, use.expression, method, isDefaultPath(use.path), new Layers([]), ctx);
      if (s) sites.push(s);
    }
    return sites;
  },
};

function client(call: TSESTree.CallExpression, callee: Node, label: string, parent: Layers, ctx: AnalysisContext): RetrySite[] {
  const view = ctx.options(optionsArgument(call, 0));
  const layers = new Layers([...parent.views, view]);
  const sites: RetrySite[] = [];
  if (view.has('retry') === true) {
    sites.push(withoutInherited(readSite(ctx, {
      label, node: call, reportNode: callee, layers, method: undefined, clientLevel: true, operation: call,
      options: optionsTarget(view, call, 0),
    }), parent.views));
  }
  const id = declaredName(call);
  if (!id) return sites;
  for (const ref of referencesOf(id, ctx)) {
    const use = memberCall(ref);
    if (!use) continue;
    if (use.member === 'create' || use.member === 'extend') {
      sites.push(...client(use.call, use.call.callee, `${ctx.sourceCode.getText(use.call.callee)}()`, layers, ctx));
      continue;
    }
    if (use.member !== undefined && !METHOD_SHORTCUTS.has(use.member)) continue;
    const s = request(use.call, use.call.callee, use.member ? use.member.toUpperCase() : 'GET', use.member === undefined, layers, ctx);
    if (s) sites.push(s);
  }
  return sites;
}

function request(call: TSESTree.CallExpression, callee: Node, method: string, methodFromOptions: boolean, parent: Layers, ctx: AnalysisContext): RetrySite | undefined {
  const view = ctx.options(optionsArgument(call, 1));
  if (view.has('retry') !== true) return undefined;
  const layers = new Layers([...parent.views, view]);
  const written = methodFromOptions ? methodOption(layers) : undefined;
  const text = ctx.sourceCode.getText(callee);
  return withoutInherited(readSite(ctx, {
    label: `${text.length > 30 ? 'ky' : text}()`,
    node: call,
    reportNode: callee,
    layers,
    method: written === undefined ? method : written,
    clientLevel: false,
    operation: call,
    options: optionsTarget(view, call, 1),
  }), parent.views);
}

type Spec = ClientCallSpec;

function readSite(ctx: AnalysisContext, spec: Spec): RetrySite {
  const retryOption = spec.layers.get('retry');
  const shorthand = typeof retryOption.value === 'number';
  const unknownRetry = !shorthand && !isStaticObject(retryOption.value) && (retryOption.value !== undefined || !!retryOption.property);
  const retry = shorthand || unknownRetry ? new Layers([]) : spec.layers.sub('retry');
  const limit: Setting<number | undefined> = shorthand
    ? { value: retryOption.value as number, node: retryOption.property }
    : unknownRetry ? { value: UNKNOWN, node: retryOption.property } : retry.number('limit', 2);
  let attempts = totalAttempts(limit, 'retries');
  const methods = retry.get('methods');
  if (spec.method !== undefined && methodRetried(spec.method, methods, RETRIED_METHODS) === false) {
    attempts = { value: 1, node: methods.property };
  }

  const retriesWrites: Setting<boolean> = unknownRetry ? { value: UNKNOWN, node: retryOption.property } : writesRetried(methods, RETRIED_METHODS);
  const delay = unknownRetry ? { schedule: UNKNOWN_SCHEDULE, jitter: { value: UNKNOWN } as Setting<boolean> } : readDelay(retry, ctx);
  return site({
    retriesWrites,
    library: MODULE,
    label: spec.label,
    node: spec.node,
    reportNode: spec.reportNode,
    attempts,
    delay: delay.schedule,
    jitter: delay.jitter,
    errorFilter: unknownRetry ? { kind: 'custom', clientErrors: [], node: retryOption.property } : readFilter(retry, ctx),
    deadlineMs: readTimeout(spec.layers, 'totalTimeout', undefined),
    attemptTimeoutMs: readTimeout(spec.layers, 'timeout', DEFAULT_TIMEOUT_MS),
    clientLevel: spec.clientLevel,
    operation: spec.operation,
    options: spec.options,
    fixes: kyFixes(shorthand, limit.value, retry),
  });
}

function kyFixes(shorthand: boolean, limit: Maybe<number | undefined>, retry: Layers): SiteFixes {
  const attempts = (total: number): OptionEdit[] => [{ path: shorthand ? ['retry'] : ['retry', 'limit'], text: String(Math.max(0, total - 1)) }];
  // A number has to become an object to carry `jitter`.
  const jitter = shorthand
    ? (typeof limit === 'number' ? () => [{ path: ['retry'], text: `{ limit: ${limit}, jitter: true }` }] : undefined)
    : () => [{ path: ['retry', 'jitter'], text: 'true' }];
  const delayWritten = !!retry.get('delay').property;
  const exponential = delayWritten ? () => [{ path: ['retry', 'delay'], text: '(attemptCount) => 300 * 2 ** (attemptCount - 1)' }] : undefined;
  return { attempts, ...(jitter ? { jitter } : {}), ...(exponential ? { exponential } : {}) };
}

function readDelay(retry: Layers, ctx: AnalysisContext): { schedule: DelaySchedule; jitter: Setting<boolean> } {
  const delay = retry.get('delay');
  const cap = retry.number('backoffLimit', Infinity);
  const capMs = orUnknown(cap.value);
  const jitterOption = retry.get('jitter');
  const jitterNode = jitterOption.property;
  let jitter: Maybe<boolean> = !jitterNode && jitterOption.value === undefined ? false
    : jitterOption.value === true || isStaticFunction(jitterOption.value) ? true
    : jitterOption.value === false || jitterOption.value === undefined ? false : UNKNOWN;
  // A jitter function may return anything; full jitter (`true`) stays below the computed delay.
  const customJitter = isStaticFunction(jitterOption.value);
  let base: (n: number) => Maybe<number> = (n) => 300 * 2 ** (n - 1);
  let growth: Maybe<DelaySchedule['growth']> = 'exponential';
  let initialMs: Maybe<number> = 300;
  let multiplier: Maybe<number> = 2;
  let node: Node | undefined = cap.node;
  if (delay.property || delay.value !== undefined) {
    node = delay.property;
    const reading = readDelayFunction(delay.valueNode, ctx, ['n']);
    if (!reading) return { schedule: { ...UNKNOWN_SCHEDULE, node }, jitter: { value: jitter, node: jitterNode } };
    base = (n) => reading.bound(n);
    growth = reading.growth;
    initialMs = reading.initialMs;
    multiplier = reading.multiplier;
    if (reading.jitter === true) jitter = true;
  }
  return {
    schedule: customSchedule(growth, (n) => {
      if (customJitter) return UNKNOWN;
      const b = base(n);
      return isKnown(b) && isKnown(capMs) ? Math.min(b, capMs) : UNKNOWN;
    }, { initialMs, multiplier, maxMs: capMs, node }),
    jitter: { value: jitter, node: jitterNode ?? (jitter === true ? node : undefined) },
  };
}

function readFilter(retry: Layers, ctx: AnalysisContext): ErrorFilter {
  const should = retry.get('shouldRetry');
  if (should.property || should.value !== undefined) {
    const fn = functionOf(should.valueNode, ctx);
    if (fn && alwaysTrue(fn, ctx)) return { kind: 'none', clientErrors: [], retriesEverything: should.property, node: should.property };
    return { kind: 'custom', clientErrors: fn ? predicateClientErrors(fn, ctx, { honours413: true }) : [], node: should.property };
  }
  const codes = retry.get('statusCodes');
  if (codes.property || codes.value !== undefined) return statusListFilter(codes, ctx, { honours413: true });
  return LIBRARY_FILTER;
}

/** `timeout: 5000` / `totalTimeout: 20000`; `false` turns it off. */
function readTimeout(layers: Layers, key: string, fallback: number | undefined): Setting<number | undefined> {
  const t = layers.get(key);
  if (!t.property && t.value === undefined) return { value: fallback };
  if (typeof t.value === 'number') return { value: t.value, node: t.property };
  if (t.value === false) return { ...NO_TIMEOUT, node: t.property };
  return { value: UNKNOWN, node: t.property };
}
