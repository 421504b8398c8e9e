import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { argument, callOf, functionOf } from '../library.js';
import type { DelaySchedule, Node, OptionEdit, RetrySite, Setting, SiteFixes } from '../model.js';
import type { OptionValue, OptionsView } from '../options.js';
import { NO_DELAY, UNKNOWN_SCHEDULE, geometricSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN } from '../eval/values.js';
import { isFunctionNode, memberName, unwrap } from '../ast.js';
import { callsUntilStopped, clientErrorsLetThrough, mayEndRetrying, readDelayFunction, scheduleOfReading, type DelayReading } from './delay-function.js';
import { localReference, replaceInside } from './generic-helpers.js';
import { NO_FILTER, customFilter, optionsTarget, site } from './shared.js';
import { clientErrorTest, statusOfText } from '../fix-filters.js';
import { importedName, importsLeftUnused, nameInUse } from '../fix-imports.js';
import type { ImportBinding } from '../imports.js';
import { TYPICAL_ATTEMPTS, TYPICAL_MULTIPLIER } from '../../shared/guide-limits.js';
import type { HttpCall } from '../operations/types.js';
import { fullJitterText, withTypicalWaits, type LibraryFixes, type PlanKey, type SchedulePlan } from '../fix-plan.js';

const MODULES = ['rxjs', 'rxjs/operators'];

/**
 * RxJS: `source.pipe(retry(n))`, `retry({ count, delay, resetOnSuccess })`, and the deprecated
 * `retryWhen(notifier)`. `count` counts resubscriptions (retries) and defaults to Infinity, so a
 * bare `retry()` never stops; `count <= 0` means no retry. `delay` unset resubscribes at once;
 * a number is a constant wait; a function `(error, retryCount) => timer(ms)` is read when its
 * arithmetic is visible. Errors are filtered only by throwing inside `delay` (or `retryWhen`).
 */
export const rxjs: LibraryDescriptor = {
  id: 'rxjs',
  modules: MODULES,
  fixes: { clientErrors: rethrowClientErrors, schedule: rxjsSchedule(), migrateExport: retryWhenMigration },
  // The deprecated `retryWhen` hand-rolls what `retry({ delay })` now does (R-RES-RE-X4).
  legacy: { exports: { rxjs: ['retryWhen'], 'rxjs/operators': ['retryWhen'] }, hint: " (in rxjs, retry's delay option)" },
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      if (!call) continue;
      if (use.path === 'retry') sites.push(retrySite(call, use.expression, ctx));
      else if (use.path === 'retryWhen') sites.push(retryWhenSite(call, use.expression, ctx));
    }
    return sites;
  },
};

function retrySite(call: TSESTree.CallExpression, callee: Node, ctx: AnalysisContext): RetrySite {
  const arg = argument(call, 0);
  const spread = call.arguments.some((a) => a.type === T.SpreadElement);
  const value = arg ? ctx.evaluator.evaluate(arg) : undefined;
  const resolved = arg ? ctx.evaluator.resolve(arg) : undefined;
  const isConfig = resolved?.type === T.ObjectExpression;
  let attempts: Setting<number>;
  let delay: DelaySchedule = NO_DELAY;
  let jitter: Setting<boolean> = { value: false };
  let filter = NO_FILTER;
  let view: OptionsView | undefined;
  let reading: DelayReading | undefined;
  let delayOption: OptionValue | undefined;
  if (spread) {
    attempts = { value: UNKNOWN };
    delay = UNKNOWN_SCHEDULE;
    jitter = { value: UNKNOWN };
  } else if (!arg || value === undefined || value === null) {
    attempts = { value: Infinity };
  } else if (typeof value === 'number') {
    attempts = totalAttempts({ value, node: arg }, 'retries');
  } else if (isConfig) {
    view = ctx.options(arg);
    delayOption = view.get('delay');
    const delayValue = delayOption.value;
    const endsItself = delayOption.valueNode ? mayEndRetrying(functionOf(delayOption.valueNode, ctx), (c) => rxjsPath(c.callee, ctx) === 'throwError', ctx) : false;
    const count = view.get('count');
    if (count.property && typeof count.value === 'number') attempts = totalAttempts({ value: count.value, node: count.property }, 'retries');
    else if (!count.property && count.value === undefined) {
      // No count: unbounded, unless the delay function can end the retries by throwing.
      attempts = endsItself ? { value: UNKNOWN } : { value: Infinity };
    } else if (count.property && count.value === undefined) attempts = { value: Infinity, node: count.property };
    else attempts = { value: UNKNOWN, node: count.property };
    if (!delayOption.property && delayValue === undefined) {
      delay = NO_DELAY;
    } else if (typeof delayValue === 'number') {
      delay = geometricSchedule({ growth: delayValue <= 0 ? 'none' : 'constant', initialMs: delayValue, multiplier: 1, maxMs: delayValue, node: delayOption.property });
    } else if (delayOption.valueNode && functionOf(delayOption.valueNode, ctx)) {
      reading = readDelayFunction(delayOption.valueNode, ctx, [undefined, 'n'], { unwrapReturn: (e) => timerArgument(e, ctx) });
      delay = reading ? scheduleOfReading(reading, delayOption.property) : { ...UNKNOWN_SCHEDULE, node: delayOption.property };
      jitter = { value: reading ? reading.jitter : UNKNOWN, node: delayOption.property };
      if (endsItself) {
        // A delay that ends retrying for some errors is the filter: the 4xx it lets through are read per status.
        const stop = (e: Node) => e.type === T.CallExpression && rxjsPath(e.callee, ctx) === 'throwError';
        const how = { errorIndex: 0, countIndex: 1, firstCount: 1, isStop: stop };
        const letThrough = clientErrorsLetThrough(delayOption.valueNode, ctx, how);
        filter = { ...customFilter(delayOption.property), clientErrors: letThrough ?? [] };
        // `n >= 2 ? throwError(...) : timer(...)`: the delay ends retrying before the count does.
        const calls = typeof attempts.value === 'number' ? callsUntilStopped(delayOption.valueNode, ctx, how, attempts.value - 1) : undefined;
        if (calls !== undefined && typeof attempts.value === 'number' && calls < attempts.value) attempts = { value: calls, node: delayOption.property };
      }
    } else {
      delay = { ...UNKNOWN_SCHEDULE, node: delayOption.property };
      jitter = { value: UNKNOWN, node: delayOption.property };
      filter = customFilter(delayOption.property);
    }
  } else {
    attempts = { value: UNKNOWN, node: arg };
    delay = UNKNOWN_SCHEDULE;
    jitter = { value: UNKNOWN };
  }
  return site({
    library: 'rxjs',
    label: 'retry()',
    node: call,
    reportNode: callee,
    attempts,
    delay,
    jitter,
    errorFilter: filter,
    operation: pipedSource(call),
    alsoRepeats: upstreamProjections(call, ctx),
    options: view ? optionsTarget(view, call, 0) : { call, argumentIndex: 0 },
    fixes: spread ? undefined : fixesOf(arg, value, view, delayOption, reading, ctx),
  });
}

function retryWhenSite(call: TSESTree.CallExpression, callee: Node, ctx: AnalysisContext): RetrySite {
  const notifier = argument(call, 0);
  // The notifier decides everything: read in its common shapes (notifierReading), else unknown.
  const read = notifierReading(notifier, ctx);
  return site({
    library: 'rxjs',
    label: 'retryWhen()',
    node: call,
    reportNode: callee,
    attempts: read ? { value: read.attempts, node: read.attemptsNode ?? notifier } : { value: UNKNOWN },
    delay: read ? geometricSchedule({ growth: 'constant', initialMs: read.waitMs, multiplier: 1, maxMs: read.waitMs, node: read.waitNode }) : { ...UNKNOWN_SCHEDULE, node: notifier },
    jitter: read ? { value: false, node: read.waitNode } : { value: UNKNOWN },
    errorFilter: read ? { ...NO_FILTER, node: notifier } : customFilter(notifier),
    operation: pipedSource(call),
    options: { call, argumentIndex: 0 },
  });
}

interface NotifierReading {
  /** Calls in all, the first included (Infinity when nothing ends the retrying). */
  readonly attempts: number;
  readonly attemptsNode?: Node | undefined;
  /** The same wait before every retry. */
  readonly waitMs: number;
  readonly waitNode: Node;
}

/**
 * The deprecated operator's usual notifiers, `(errors) => errors.pipe(...)` with:
 * - `delay(ms)`: every error retried after `ms`, without end;
 * - `delay(ms), take(n)` (either order): `n` retries, then the source completes;
 * - `mergeMap((error, i) => i < n ? timer(ms) : throwError(...))` (or `concatMap`, `switchMap`,
 *   the test written `i >= n` with the branches swapped): `n` retries, then the error.
 * None of them looks at the error: every error is retried. A wait that is no constant, any other
 * operator, or a test of anything but the index is not read.
 */
function notifierReading(notifier: Node | undefined, ctx: AnalysisContext): NotifierReading | undefined {
  const fn = notifier && unwrap(notifier);
  if ((fn?.type !== T.ArrowFunctionExpression && fn?.type !== T.FunctionExpression) || fn.params.length !== 1 || fn.params[0]!.type !== T.Identifier) return undefined;
  const errors = fn.params[0]!.name;
  const body = fn.body.type === T.BlockStatement
    ? (fn.body.body.length === 1 && fn.body.body[0]!.type === T.ReturnStatement ? fn.body.body[0]!.argument : undefined)
    : fn.body;
  const pipe = body && unwrap(body);
  if (pipe?.type !== T.CallExpression || pipe.callee.type !== T.MemberExpression || memberName(pipe.callee) !== 'pipe') return undefined;
  const target = unwrap(pipe.callee.object);
  if (target.type !== T.Identifier || target.name !== errors) return undefined;
  let attempts = Infinity;
  let attemptsNode: Node | undefined;
  let wait: { ms: number; node: Node } | undefined;
  const constantMs = (n: Node | undefined) => {
    const v = n && ctx.evaluator.evaluate(n);
    return typeof v === 'number' && v >= 0 && Number.isFinite(v) ? v : undefined;
  };
  for (const raw of pipe.arguments) {
    const op = unwrap(raw);
    if (op.type !== T.CallExpression) return undefined;
    const path = rxjsPath(op.callee, ctx);
    if (path === 'delay') {
      const ms = constantMs(argument(op, 0));
      if (ms === undefined || wait) return undefined;
      wait = { ms, node: op };
    } else if (path === 'take') {
      const n = constantMs(argument(op, 0));
      if (n === undefined || !Number.isInteger(n)) return undefined;
      attempts = n + 1;
      attemptsNode = op;
    } else if (path === 'mergeMap' || path === 'concatMap' || path === 'switchMap') {
      const read = indexedProjection(argument(op, 0), ctx, constantMs);
      if (!read || wait) return undefined;
      wait = read.wait;
      attempts = read.retries + 1;
      attemptsNode = read.test;
    } else return undefined;
  }
  return wait ? { attempts, attemptsNode, waitMs: wait.ms, waitNode: wait.node } : undefined;
}

/** `(error, i) => i < n ? timer(ms) : throwError(() => error)`: `n` retries after `ms` each. */
function indexedProjection(projection: Node | undefined, ctx: AnalysisContext, constantMs: (n: Node | undefined) => number | undefined):
  { retries: number; wait: { ms: number; node: Node }; test: Node } | undefined {
  const fn = projection && unwrap(projection);
  if ((fn?.type !== T.ArrowFunctionExpression && fn?.type !== T.FunctionExpression) || fn.params.length !== 2 || fn.params[1]!.type !== T.Identifier) return undefined;
  const index = fn.params[1]!.name;
  const body = fn.body.type === T.BlockStatement ? undefined : unwrap(fn.body);
  if (body?.type !== T.ConditionalExpression) return undefined;
  const test = unwrap(body.test);
  if (test.type !== T.BinaryExpression || unwrap(test.left).type !== T.Identifier || (unwrap(test.left) as TSESTree.Identifier).name !== index) return undefined;
  const bound = constantMs(test.right);
  if (bound === undefined || !Number.isInteger(bound)) return undefined;
  // Which branch retries: `i < n` / `i <= n` take the consequent, `i >= n` / `i > n` the alternate.
  const retriesOn = test.operator === '<' || test.operator === '<=' ? 'consequent' : test.operator === '>=' || test.operator === '>' ? 'alternate' : undefined;
  if (!retriesOn) return undefined;
  const retries = test.operator === '<' || test.operator === '>=' ? bound : bound + 1;
  const again = unwrap(body[retriesOn]);
  const stop = unwrap(body[retriesOn === 'consequent' ? 'alternate' : 'consequent']);
  if (again.type !== T.CallExpression || rxjsPath(again.callee, ctx) !== 'timer' || stop.type !== T.CallExpression || rxjsPath(stop.callee, ctx) !== 'throwError') return undefined;
  const ms = constantMs(argument(again, 0));
  if (ms === undefined) return undefined;
  return { retries, wait: { ms, node: again }, test };
}

/** `timer(ms)` from rxjs holds the wait; `throwError(...)` ends retrying and is not a wait. */
function timerArgument(expr: Node, ctx: AnalysisContext): Node | 'ignore' | undefined {
  const e = unwrap(expr);
  if (e.type !== T.CallExpression) return undefined;
  const path = rxjsPath(e.callee, ctx);
  if (path === 'throwError') return 'ignore';
  if (path === 'timer') return argument(e, 0);
  return undefined;
}

function rxjsPath(node: Node, ctx: AnalysisContext): string | undefined {
  const ref = ctx.imports.resolve(node);
  return ref && MODULES.includes(ref.module) ? ref.path : undefined;
}

/** `source.pipe(map(...), retry(3))`: the `.pipe(...)` call the operator is an argument of. */
function pipeOf(call: TSESTree.CallExpression): TSESTree.CallExpression | undefined {
  const parent = call.parent;
  if (parent?.type !== T.CallExpression || !parent.arguments.includes(call)) return undefined;
  const callee = parent.callee;
  return callee.type === T.MemberExpression && !callee.computed && callee.property.type === T.Identifier && callee.property.name === 'pipe' ? parent : undefined;
}

/** `source.pipe(map(...), retry(3))`: the observable being resubscribed. */
function pipedSource(call: TSESTree.CallExpression): Node | undefined {
  return (pipeOf(call)?.callee as TSESTree.MemberExpression | undefined)?.object;
}

/** Operators that subscribe to the observable their projection returns. */
const FLATTENING: ReadonlySet<string> = new Set(['switchMap', 'mergeMap', 'concatMap', 'exhaustMap', 'flatMap']);

/**
 * `source$.pipe(switchMap(() => this.load(id)), retry(3))`: a resubscription runs the projections
 * piped before the retry again, and subscribes to what they return (`map` only transforms, and
 * operators after the retry run once).
 */
function upstreamProjections(call: TSESTree.CallExpression, ctx: AnalysisContext): TSESTree.FunctionLike[] | undefined {
  const pipe = pipeOf(call);
  if (!pipe) return undefined;
  const out: TSESTree.FunctionLike[] = [];
  for (const arg of pipe.arguments.slice(0, pipe.arguments.indexOf(call))) {
    if (arg.type !== T.CallExpression || !FLATTENING.has(rxjsPath(arg.callee, ctx) ?? '')) continue;
    const fn = arg.arguments[0] && unwrap(arg.arguments[0]);
    if (fn && isFunctionNode(fn)) out.push(fn);
  }
  return out.length ? out : undefined;
}

function fixesOf(
  arg: Node | undefined,
  value: unknown,
  view: OptionsView | undefined,
  delayOption: OptionValue | undefined,
  reading: DelayReading | undefined,
  ctx: AnalysisContext,
): SiteFixes {
  const timer = localReference(ctx, MODULES, 'timer');
  const exponentialDelay = timer ? `(_error, retryCount) => ${timer}(2 ** retryCount * 250 * (0.5 + Math.random()))` : undefined;
  const delayEditable = !delayOption?.property || !delayOption.property.shorthand;
  return {
    attempts: (total): OptionEdit[] | undefined => {
      if (view) return view.object ? [{ path: ['count'], text: String(total - 1) }] : undefined;
      if (!arg || typeof value === 'number') return [{ path: [], text: String(total - 1) }];
      return undefined;
    },
    exponential: (): OptionEdit[] | undefined => {
      if (!exponentialDelay) return undefined;
      if (view) return view.object && delayEditable ? [{ path: ['delay'], text: exponentialDelay }] : undefined;
      // `retry(3)` becomes the config form, keeping its count.
      const count = typeof value === 'number' ? String(value) : arg ? undefined : '2';
      return count === undefined ? undefined : [{ path: [], text: `{ count: ${count}, delay: ${exponentialDelay} }` }];
    },
    jitter: (): OptionEdit[] | undefined => {
      const fn = reading?.fn;
      const wait = reading?.waits?.length === 1 ? reading.waits[0] : undefined;
      if (!view?.object || !delayEditable || !fn || !wait || !delayOption?.valueNode || unwrap(delayOption.valueNode) !== fn) return undefined;
      return [{ path: ['delay'], text: replaceInside(ctx, fn, wait, `(${ctx.sourceCode.getText(wait)}) * (0.5 + Math.random())`) }];
    },
  };
}

/**
 * `retry({ count, delay: 1000 })` stops on a 4xx by throwing it from `delay` (the error reaches the
 * subscriber), keeping the same wait through `timer`: `timer(0)` where it resubscribed at once (no
 * `delay`, or a bare count `retry(3)`, which becomes the config form). Other shapes (a delay
 * function of the code's own, a count that cannot be read) are left alone.
 */
function rethrowClientErrors(site: RetrySite, ctx: AnalysisContext, httpCalls: readonly HttpCall[]): OptionEdit[] | undefined {
  if (site.errorFilter.kind !== 'none' || site.node.type !== T.CallExpression) return undefined;
  const status = statusOfText('error', httpCalls);
  const timer = status ? importedName(ctx, 'rxjs', 'timer') : undefined;
  if (!timer) return undefined;
  const delayText = (wait: string) => `(error) => { const status = ${status}; if (${clientErrorTest('status')}) throw error; return ${timer.name}(${wait}); }`;
  const label = 'delay: rethrow 4xx';
  if (!site.options?.object) {
    // `retry(3)`: the count kept in the config form.
    const args = site.node.arguments;
    const count = args.length === 1 ? ctx.evaluator.evaluate(args[0]!) : undefined;
    if (args.length !== 1 || typeof count !== 'number' || !Number.isInteger(count)) return undefined;
    return [...timer.edits, { path: [], text: `{ count: ${ctx.sourceCode.getText(args[0]!)}, delay: ${delayText('0')} }`, label }];
  }
  const delay = ctx.options(site.options.object).get('delay');
  if (!delay.property && delay.value === undefined) return [...timer.edits, { path: ['delay'], text: delayText('0'), label }];
  if (!delay.property || delay.property.shorthand || typeof delay.value !== 'number' || delay.value < 0) return undefined;
  return [...timer.edits, { path: ['delay'], text: delayText(ctx.sourceCode.getText(delay.valueNode!)), label }];
}

/**
 * rxjs' schedule in its own words: `count` counts retries; any change to the waits writes `delay`
 * as full jitter through `timer` (imported when missing), `retryCount` being 1 on the first retry.
 * A bare `retry(3)` becomes the config form. A delay function that may end the retries (a filter
 * written inside it) is never rewritten.
 */
function rxjsSchedule(): NonNullable<LibraryFixes['schedule']> {
  const waitKeys: readonly PlanKey[] = ['initialMs', 'multiplier', 'maxMs', 'jitter'];
  return {
    writes: ['attempts', ...waitKeys],
    jitterBound: { factor: 1 },
    normalize: (plan) => ({ ...withTypicalWaits(plan), jitter: true }),
    write(plan, changed, site, ctx) {
      if (site.node.type !== T.CallExpression || site.node.arguments.some((a) => a.type === T.SpreadElement)) return undefined;
      // A `retryWhen` whose notifier was read (a constant wait, every error): rewritten as the
      // operator that replaces it, `retry({ count, delay })`, its count and waits the plan's.
      if (site.label === 'retryWhen()') return retryWhenRewrite(plan, changed, site, ctx, waitKeys);
      const edits: OptionEdit[] = [];
      let delay: string | undefined;
      if (waitKeys.some((k) => changed.has(k))) {
        if (site.errorFilter.kind !== 'none') return undefined;
        const jittered = jitteredDelay(plan, ctx, false);
        if (!jittered) return undefined;
        edits.push(...jittered.edits);
        delay = jittered.text;
      }
      const count = changed.has('attempts') && typeof plan.attempts === 'number' ? String(plan.attempts - 1) : undefined;
      const object = site.options?.object;
      if (object) {
        if (count !== undefined) edits.push({ path: ['count'], text: count });
        if (delay) edits.push({ path: ['delay'], text: delay });
        return edits;
      }
      // `retry()` or `retry(3)`: the config form, keeping a count that stays.
      const arg = site.node.arguments[0];
      const value = arg ? ctx.evaluator.evaluate(arg) : undefined;
      const kept = count ?? (typeof value === 'number' ? ctx.sourceCode.getText(arg!) : undefined);
      if (kept === undefined || (arg && typeof value !== 'number')) return undefined;
      const parts = [`count: ${kept}`, ...(delay ? [`delay: ${delay}`] : [])];
      edits.push({ path: [], text: `{ ${parts.join(', ')} }`, label: parts.join(', ') });
      return edits;
    },
  };
}

/** `retry`'s `delay` for the plan's waits with full jitter through rxjs `timer`, and the edits importing it. */
function jitteredDelay(plan: SchedulePlan, ctx: AnalysisContext, declare: boolean): { text: string; edits: readonly OptionEdit[] } | undefined {
  const timer = importedName(ctx, 'rxjs', 'timer', declare);
  const wait = fullJitterText(withTypicalWaits(plan), 'retryCount - 1');
  return timer && wait ? { text: `(_error, retryCount) => ${timer.name}(${wait})`, edits: timer.edits } : undefined;
}

/** `retryWhen(notifier)` replaced by `retry({ count, delay })`, `retry` (and `timer`) imported from rxjs. */
function retryWhenRewrite(plan: SchedulePlan, changed: ReadonlySet<PlanKey>, site: RetrySite, ctx: AnalysisContext, waitKeys: readonly PlanKey[]): OptionEdit[] | undefined {
  if (site.errorFilter.kind !== 'none' || typeof plan.attempts !== 'number' || !Number.isFinite(plan.attempts)) return undefined;
  const retry = importedName(ctx, 'rxjs', 'retry', true);
  if (!retry) return undefined;
  const edits: OptionEdit[] = [...retry.edits];
  let wait: string | undefined;
  if (waitKeys.some((k) => changed.has(k))) {
    const jittered = jitteredDelay(plan, ctx, true);
    if (!jittered) return undefined;
    edits.push(...jittered.edits);
    wait = jittered.text;
  } else {
    // The plan keeps the waits: the notifier's constant one.
    const ms = site.delay.initialMs;
    if (typeof ms !== 'number') return undefined;
    wait = String(ms);
  }
  const text = `${retry.name}({ count: ${plan.attempts - 1}, delay: ${wait} })`;
  edits.push({ path: [], range: site.node.range as [number, number], text, label: text });
  // retryWhen and the notifier's operators, when nothing else uses them.
  edits.push(...importsLeftUnused(ctx, [site.node.range], text).edits);
  return edits;
}

/**
 * `retryWhen((errors) => errors.pipe(delay(ms)))`, the deprecated operator's usual shape, becomes
 * `retry({ count, delay })` within the guide: the retries it never bounded are bounded (2), and the
 * fixed wait becomes the first of growing waits with full jitter through `timer`, and a 4xx (but
 * 408, 429) is rethrown. The import specifier becomes `retry`. Any other notifier is the code's own logic: no edit.
 */
function retryWhenMigration(binding: ImportBinding, sites: readonly RetrySite[], ctx: AnalysisContext, httpCallsOf: (site: RetrySite) => readonly HttpCall[]): OptionEdit[] | string {
  const spec = binding.variable.defs[0]?.node;
  if (spec?.type !== T.ImportSpecifier || nameInUse(ctx, 'retry')) return 'only an import specifier is replaced, and the file must not use the name retry';
  const timer = importedName(ctx, 'rxjs', 'timer', true);
  if (!timer) return 'the file uses the name timer for something else';
  const edits: OptionEdit[] = [...timer.edits];
  for (const ref of binding.variable.references) {
    if (ref.init) continue;
    const site = sites.find((s) => s.label === 'retryWhen()' && s.reportNode === ref.identifier);
    const wait = site && fixedDelayNotifier(argument(site.node as TSESTree.CallExpression, 0), ctx);
    if (!site || wait === undefined) return `retryWhen on line ${ref.identifier.loc.start.line} is not retryWhen((errors) => errors.pipe(delay(ms)))`;
    const jitter = fullJitterText(withTypicalWaits({ attempts: TYPICAL_ATTEMPTS, initialMs: wait, multiplier: TYPICAL_MULTIPLIER, maxMs: UNKNOWN, jitter: true, deadlineMs: undefined }), 'retryCount - 1');
    if (!jitter) return 'no schedule can be written';
    // The operator's own filter: a 4xx (but 408, 429) is rethrown, not retried.
    const status = statusOfText('error', httpCallsOf(site));
    if (!status) return `the errors retried on line ${ref.identifier.loc.start.line} keep their status where no filter can read it`;
    const text = `retry({ count: ${TYPICAL_ATTEMPTS - 1}, delay: (error, retryCount) => { const status = ${status}; if (${clientErrorTest('status')}) throw error; return ${timer.name}(${jitter}); } })`;
    edits.push({ path: [], range: site.node.range, text, label: `retryWhen() -> ${text}` });
  }
  if (edits.length === timer.edits.length) return 'nothing calls it';
  const imported = spec.imported.type === T.Identifier ? spec.imported.name : undefined;
  if (imported !== 'retryWhen') return 'the import is renamed';
  // The notifier's operators nothing else uses go (`delay`); retryWhen becomes retry in the same edit.
  const rewritten = edits.slice(timer.edits.length);
  const unused = importsLeftUnused(ctx, rewritten.map((e) => e.range!), rewritten.map((e) => e.text).join('\n'), new Map([[spec, 'retry']]));
  edits.push(...unused.edits);
  if (!unused.renamed.has(spec)) edits.push({ path: [], range: spec.range, text: 'retry', label: 'import retry' });
  return edits;
}

/** The wait of `(errors) => errors.pipe(delay(ms))` with `delay` from rxjs, in ms; undefined for any other notifier. */
function fixedDelayNotifier(notifier: Node | undefined, ctx: AnalysisContext): number | undefined {
  // `errors.pipe(delay(ms))` alone is the only reading that retries without end.
  const read = notifierReading(notifier, ctx);
  return read && read.attempts === Infinity && read.waitMs > 0 ? read.waitMs : undefined;
}
