import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor, LibraryUse } from '../library.js';
import { callOf, functionOf } from '../library.js';
import { isDefaultPath } from '../imports.js';
import type { DelaySchedule, Node, OptionEdit, RetrySite, Setting, SiteFixes } from '../model.js';
import type { OptionsView } from '../options.js';
import { NO_DELAY, UNKNOWN_SCHEDULE, geometricSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN, isStaticFunction, isStaticObject, type Maybe, type StaticValue } from '../eval/values.js';
import { unwrap } from '../ast.js';
import { readDelayFunction, scheduleOfReading, type DelayReading } from './delay-function.js';
import { replaceInside } from './generic-helpers.js';
import { NO_FILTER, customFilter, optionsTarget, site } from './shared.js';
import { functionSchedule, type LibraryFixes } from '../fix-plan.js';

const LIBRARY_MODULES = ['async', 'async-es'];
const MODULES = [...LIBRARY_MODULES, ...LIBRARY_MODULES.flatMap((m) => [`${m}/retry`, `${m}/retryable`])];
const DEFAULT_TIMES = 5;
const EXPONENTIAL_INTERVAL = '(retryCount) => 250 * 2 ** retryCount * (0.5 + Math.random())';

/** Suggestions in async's words: `times` counts attempts, `interval` may be a function of the retry count (1 first). */
const ASYNC_FIXES: LibraryFixes = {
  schedule: functionSchedule({
    attempts: { path: ['times'], counts: 'attempts' },
    delay: (body) => ({ path: ['interval'], text: `(retryCount) => ${body('retryCount - 1')}` }),
  }),
};

/**
 * async (caolan): `async.retry(opts?, task, cb?)`, `async.retryable(opts?, task)`, or
 * `import retry from 'async/retry'`. `opts` is a number (`times`) or `{ times, interval,
 * errorFilter }`. `times` counts ATTEMPTS, default 5 (and `+times || 5`, so 0 also means 5);
 * `interval` is 0 by default, a number, or a function of the retry count (1 for the first retry).
 */
export const asyncLib: LibraryDescriptor = {
  id: 'async',
  modules: MODULES,
  // `async.retry` and `async.retryable` are standalone helpers (R-RES-RE-X4); the rest of async is not.
  legacy: { modules: ['async/retry', 'async/retryable'], exports: { async: ['retry', 'retryable'] } },
  fixes: ASYNC_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      const kind = kindOf(use);
      if (!call || !kind) continue;
      sites.push(siteOf(call, kind, use, ctx));
    }
    return sites;
  },
};

function kindOf(use: LibraryUse): 'retry' | 'retryable' | undefined {
  if (LIBRARY_MODULES.includes(use.module)) return use.path === 'retry' || use.path === 'retryable' ? use.path : undefined;
  if (!isDefaultPath(use.path)) return undefined;
  return use.module.endsWith('/retryable') ? 'retryable' : 'retry';
}

interface Shape {
  /** UNKNOWN when we cannot tell whether the first argument is the options. */
  readonly options: Node | undefined | typeof UNKNOWN;
  readonly task: Node | undefined;
}

function shapeOf(call: TSESTree.CallExpression, kind: 'retry' | 'retryable', ctx: AnalysisContext): Shape {
  if (call.arguments.some((a) => a.type === T.SpreadElement)) return { options: UNKNOWN, task: undefined };
  const [first, second] = call.arguments as Node[];
  const n = call.arguments.length;
  if (!first) return { options: undefined, task: undefined };
  if (kind === 'retryable') return n >= 2 ? { options: first, task: second } : { options: undefined, task: first };
  if (n >= 3) return { options: first, task: second };
  if (n === 1) return { options: undefined, task: first };
  // Two arguments: (opts, task) or (task, callback); the first argument's type decides.
  const v = ctx.evaluator.evaluate(first);
  if (functionOf(first, ctx) || isStaticFunction(v)) return { options: undefined, task: first };
  if (typeof v === 'number' || typeof v === 'string' || isStaticObject(v)) return { options: first, task: second };
  // `retry(apiMethod, (err, result) => ...)`: a second function taking `(err, ...)` is the final callback.
  const secondFn = functionOf(second, ctx);
  const firstParam = secondFn?.params[0];
  if (secondFn && (secondFn.params.length >= 2 || (firstParam?.type === T.Identifier && /^(e|err|error)$/i.test(firstParam.name)))) {
    return { options: undefined, task: first };
  }
  return { options: UNKNOWN, task: undefined };
}

function siteOf(call: TSESTree.CallExpression, kind: 'retry' | 'retryable', use: LibraryUse, ctx: AnalysisContext): RetrySite {
  const shape = shapeOf(call, kind, ctx);
  let attempts: Setting<number> = { value: DEFAULT_TIMES };
  let delay: DelaySchedule = NO_DELAY;
  let jitter: Setting<boolean> = { value: false };
  let filter = NO_FILTER;
  let view: OptionsView | undefined;
  let reading: DelayReading | undefined;
  let intervalProperty: TSESTree.Property | undefined;
  let value: Maybe<StaticValue> = undefined;
  if (shape.options === UNKNOWN) {
    attempts = { value: UNKNOWN };
    delay = UNKNOWN_SCHEDULE;
    jitter = { value: UNKNOWN };
    filter = customFilter();
  } else if (shape.options) {
    value = ctx.evaluator.evaluate(shape.options);
    if (typeof value === 'number' || typeof value === 'string') {
      attempts = totalAttempts({ value: Number(value) || DEFAULT_TIMES, node: shape.options }, 'attempts');
    } else if (isStaticObject(value)) {
      view = ctx.options(shape.options);
      const times = view.get('times');
      if (times.value === UNKNOWN) attempts = { value: UNKNOWN, node: times.property };
      else if (times.value === undefined || typeof times.value === 'number' || typeof times.value === 'string') {
        attempts = totalAttempts({ value: Number(times.value) || DEFAULT_TIMES, node: times.property }, 'attempts');
      } else attempts = { value: UNKNOWN, node: times.property };
      const interval = view.get('interval');
      intervalProperty = interval.property;
      if (interval.valueNode && functionOf(interval.valueNode, ctx)) {
        reading = readDelayFunction(interval.valueNode, ctx, ['n']);
        delay = reading ? scheduleOfReading(reading, interval.property) : { ...UNKNOWN_SCHEDULE, node: interval.property };
        jitter = { value: reading ? reading.jitter : UNKNOWN, node: interval.property };
      } else if (interval.value === UNKNOWN) {
        delay = { ...UNKNOWN_SCHEDULE, node: interval.property };
        jitter = { value: UNKNOWN, node: interval.property };
      } else {
        const ms = Number(interval.value) || 0;
        delay = geometricSchedule({ growth: ms > 0 ? 'constant' : 'none', initialMs: ms, multiplier: 1, maxMs: ms, node: interval.property });
      }
      const errorFilter = view.get('errorFilter');
      if (errorFilter.property || errorFilter.value !== undefined) filter = customFilter(errorFilter.property);
    } else {
      attempts = { value: UNKNOWN, node: shape.options };
      delay = UNKNOWN_SCHEDULE;
      jitter = { value: UNKNOWN };
      filter = customFilter();
    }
  }
  const options = shape.options === UNKNOWN ? undefined : shape.options;
  return site({
    library: 'async',
    label: `${kind}()`,
    node: call,
    reportNode: use.expression,
    attempts,
    delay,
    jitter,
    errorFilter: filter,
    operation: shape.task,
    options: view ? optionsTarget(view, call, 0) : options ? { call, argumentIndex: 0 } : undefined,
    fixes: fixesOf(options, value, view, intervalProperty, reading, ctx),
  });
}

function fixesOf(
  options: Node | undefined,
  value: Maybe<StaticValue>,
  view: OptionsView | undefined,
  intervalProperty: TSESTree.Property | undefined,
  reading: DelayReading | undefined,
  ctx: AnalysisContext,
): SiteFixes | undefined {
  // Without an options argument, a new one would have to go before the task: not an edit we place.
  if (!options) return undefined;
  const scalar = typeof value === 'number' || typeof value === 'string';
  const intervalEditable = !intervalProperty?.shorthand;
  return {
    attempts: (total): OptionEdit[] | undefined =>
      view?.object ? [{ path: ['times'], text: String(total) }] : scalar ? [{ path: [], text: String(total) }] : undefined,
    exponential: (): OptionEdit[] | undefined => {
      if (view?.object) return intervalEditable ? [{ path: ['interval'], text: EXPONENTIAL_INTERVAL }] : undefined;
      return scalar ? [{ path: [], text: `{ times: ${Number(value) || DEFAULT_TIMES}, interval: ${EXPONENTIAL_INTERVAL} }` }] : undefined;
    },
    jitter: (): OptionEdit[] | undefined => {
      const fn = reading?.fn;
      const wait = reading?.waits?.length === 1 ? reading.waits[0] : undefined;
      if (!view?.object || !intervalEditable || !fn || !wait || !intervalProperty || unwrap(intervalProperty.value as Node) !== fn) return undefined;
      return [{ path: ['interval'], text: replaceInside(ctx, fn, wait, `(${ctx.sourceCode.getText(wait)}) * (0.5 + Math.random())`) }];
    },
  };
}
