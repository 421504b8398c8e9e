import type { TSESTree } from '@typescript-eslint/utils';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { callOf } from '../library.js';
import type { DelaySchedule, ErrorFilter, RetrySite, Setting } from '../model.js';
import { NO_DELAY, UNKNOWN_SCHEDULE, geometricSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN, type Maybe } from '../eval/values.js';
import { readDelayFunction, scheduleOfReading } from './delay-function.js';
import { Layers, declaredName, memberCall, methodOption, optionsArgument, referencesOf, statusListFilter, withoutInherited, type ClientCallSpec } from './http-shared.js';
import { LIBRARY_FILTER, optionsTarget, site } from './shared.js';
import { dropClientErrorEntries } from '../fix-filters.js';
import { functionSchedule, type ScheduleVocabulary } from '../fix-plan.js';

const MODULE = 'ofetch';
/** The keys that make a call or a client a retry site of its own. */
const RETRY_KEYS = ['retry', 'retryDelay', 'retryStatusCodes'];
/** Methods ofetch sends without a retry unless `retry` is written (`isPayloadMethod`). */
const PAYLOAD_METHODS = new Set(['PATCH', 'POST', 'PUT', 'DELETE']);
/** The exports that send a request: `ofetch`, its alias `$fetch` (Nuxt's auto-imported global). */
const SENDERS = new Set(['ofetch', '$fetch', 'default', 'module']);

/**
 * ofetch (read at unjs/ofetch 1.5.1, src/fetch.ts and src/index.ts): `ofetch(url, opts)`,
 * `$fetch(url, opts)` (an alias, and Nuxt's auto-imported global), `.raw`, and
 * `ofetch.create(defaults)` whose instance merges its defaults under each call's options. It
 * rejects on 4xx and 5xx unless `ignoreResponseError: true`. Retry options: `retry` counts
 * retries (default 1, but 0 for POST/PUT/PATCH/DELETE unless written, and then every method is
 * retried; `false` turns it off); `retryStatusCodes` (default 408, 409, 425, 429, 500, 502, 503,
 * 504; a network error counts as 500); `retryDelay`, a number or `(context) => ms` (default 0, no
 * randomness, Retry-After ignored).
 *
 * Only calls and clients that write one of these options are sites: a plain `$fetch(url)` retries
 * a GET once at its defaults, and reporting every one of them would drown the findings that matter.
 * The default status list, whose 409 and 425 are 4xx, is left as the library's own choice.
 */
export const ofetch: LibraryDescriptor = {
  id: MODULE,
  callableClient: true,
  modules: [MODULE],
  globals: { $fetch: '$fetch' },
  http: { method: 'members', senders: ['default', 'ofetch', '$fetch', 'raw'], throwsOnClientError: true, nonThrowingOptions: ['ignoreResponseError'] },
  fixes: { clientErrors: dropClientErrorEntries, schedule: ofetchSchedule() },
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      if (!call) continue;
      const dot = use.path.lastIndexOf('.');
      const [base, member] = dot < 0 ? [use.path, undefined] : [use.path.slice(0, dot), use.path.slice(dot + 1)];
      if (!SENDERS.has(base)) continue;
      if (member === 'create') sites.push(...client(call, `${ctx.sourceCode.getText(call.callee)}()`, new Layers([]), ctx));
      else if (member === undefined || member === 'raw') {
        const s = request(call, new Layers([]), ctx);
        if (s) sites.push(s);
      }
    }
    return sites;
  },
};

function writesRetry(view: { has(key: string): Maybe<boolean> }): boolean {
  return RETRY_KEYS.some((k) => view.has(k) === true);
}

function client(call: TSESTree.CallExpression, label: string, parent: Layers, ctx: AnalysisContext): RetrySite[] {
  const view = ctx.options(optionsArgument(call, 0));
  const layers = new Layers([...parent.views, view]);
  const sites: RetrySite[] = [];
  if (writesRetry(view)) {
    sites.push(withoutInherited(readSite(ctx, {
      label, node: call, reportNode: call.callee, layers, method: undefined, clientLevel: true, operation: call,
      options: optionsTarget(view, call, 0),
    }), parent.views));
  }
  const id = declaredName(call);
  if (!id) return sites;
  for (const ref of referencesOf(id, ctx)) {
    const use = memberCall(ref);
    if (!use) continue;
    if (use.member === 'create') sites.push(...client(use.call, `${ctx.sourceCode.getText(use.call.callee)}()`, layers, ctx));
    else if (use.member === undefined || use.member === 'raw') {
      const s = request(use.call, layers, ctx);
      if (s) sites.push(s);
    }
  }
  return sites;
}

function request(call: TSESTree.CallExpression, parent: Layers, ctx: AnalysisContext): RetrySite | undefined {
  const view = ctx.options(optionsArgument(call, 1));
  if (!writesRetry(view)) return undefined;
  const layers = new Layers([...parent.views, view]);
  const method = methodOption(layers);
  return withoutInherited(readSite(ctx, {
    label: `${ctx.sourceCode.getText(call.callee).slice(0, 30)}()`,
    node: call,
    reportNode: call.callee,
    layers,
    method: method === undefined ? 'GET' : method,
    clientLevel: false,
    operation: call,
    options: optionsTarget(view, call, 1),
  }), parent.views);
}

function readSite(ctx: AnalysisContext, spec: ClientCallSpec): RetrySite {
  const retry = spec.layers.get('retry');
  const written = !!retry.property || retry.value !== undefined;
  let retries: Setting<number | undefined>;
  let retriesWrites: Setting<boolean>;
  if (!written) {
    // One retry, for the methods without a payload only.
    const payload: Maybe<boolean> | undefined = spec.method === undefined ? undefined : typeof spec.method === 'string' ? PAYLOAD_METHODS.has(spec.method.toUpperCase()) : UNKNOWN;
    retries = { value: payload === true ? 0 : payload === UNKNOWN ? UNKNOWN : 1 };
    retriesWrites = { value: false };
  } else if (retry.value === false) {
    retries = { value: 0, node: retry.property };
    retriesWrites = { value: false, node: retry.property };
  } else if (typeof retry.value === 'number') {
    retries = { value: retry.value, node: retry.property };
    retriesWrites = { value: retry.value > 0, node: retry.property };
  } else {
    retries = { value: UNKNOWN, node: retry.property };
    retriesWrites = { value: UNKNOWN, node: retry.property };
  }
  const delay = readDelay(spec.layers, ctx, typeof retries.value === 'number' ? retries.value : undefined);
  return site({
    retriesWrites,
    library: MODULE,
    label: spec.label,
    node: spec.node,
    reportNode: spec.reportNode,
    attempts: totalAttempts(retries, 'retries'),
    delay: delay.schedule,
    jitter: delay.jitter,
    errorFilter: readFilter(spec.layers, ctx),
    clientLevel: spec.clientLevel,
    operation: spec.operation,
    options: spec.options,
    fixes: { attempts: (total) => [{ path: ['retry'], text: String(Math.max(0, total - 1)) }] },
  });
}

/**
 * ofetch passes its context to `retryDelay`, and `context.options.retry` counts down the retries
 * left: R before the first retry of a request configured with `retry: R`, then R - 1, ... So a
 * planned schedule is written from the planned count, `R - retry` being 0 before the first retry;
 * with a count the plan cannot know, no wait is written.
 */
function ofetchSchedule(): ScheduleVocabulary {
  const forRetries = (retries: number): ScheduleVocabulary =>
    functionSchedule({
      attempts: { path: ['retry'], counts: 'retries' },
      delay: (body) => {
        const text = body(`${retries} - Number(ctx.options.retry ?? 0)`);
        return text === undefined ? undefined : { path: ['retryDelay'], text: `(ctx) => ${text}` };
      },
    });
  const shape = forRetries(0);
  return {
    writes: shape.writes,
    jitterBound: shape.jitterBound,
    normalize: shape.normalize,
    write(plan, changed, site, ctx) {
      const waits = ['initialMs', 'multiplier', 'maxMs', 'jitter'].some((k) => changed.has(k as never));
      const attempts = plan.attempts;
      if (waits && (typeof attempts !== 'number' || !Number.isFinite(attempts))) return undefined;
      return forRetries(typeof attempts === 'number' ? Math.max(0, attempts - 1) : 0).write(plan, changed, site, ctx);
    },
  };
}

function readDelay(layers: Layers, ctx: AnalysisContext, retries: number | undefined): { schedule: DelaySchedule; jitter: Setting<boolean> } {
  const option = layers.get('retryDelay');
  const node = option.property;
  if (!node && option.value === undefined) return { schedule: NO_DELAY, jitter: { value: false } };
  if (typeof option.value === 'number') {
    if (option.value <= 0) return { schedule: { ...NO_DELAY, node }, jitter: { value: false, node } };
    return { schedule: geometricSchedule({ growth: 'constant', initialMs: option.value, multiplier: 1, node }), jitter: { value: false, node } };
  }
  // `(context) => ms`: with a known count R, retry n sees `context.options.retry` = R - n + 1;
  // otherwise only a wait that ignores it is read.
  const reading = retries === undefined
    ? readDelayFunction(option.valueNode, ctx, [undefined])
    : readDelayFunction(option.valueNode, ctx, [{ options: { retry: 'n' } }], { argumentFor: (n) => retries - n + 1 });
  if (!reading) return { schedule: { ...UNKNOWN_SCHEDULE, node }, jitter: { value: UNKNOWN, node } };
  return { schedule: scheduleOfReading(reading, node), jitter: { value: reading.jitter, node } };
}

function readFilter(layers: Layers, ctx: AnalysisContext): ErrorFilter {
  const codes = layers.get('retryStatusCodes');
  if (!codes.property && codes.value === undefined) return LIBRARY_FILTER;
  const filter = statusListFilter(codes, ctx, {});
  // A network error counts as a 500: a list of 4xx alone retries only requests the server refused.
  const list = codes.value;
  const refusedOnly = Array.isArray(list) && list.length > 0 && list.every((v) => typeof v === 'number' && v >= 400 && v < 500);
  return refusedOnly ? { ...filter, refusedOnly } : filter;
}
