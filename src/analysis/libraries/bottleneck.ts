/**
 * Bottleneck: a rate limiter whose 'failed' event is a retry policy. A listener of
 * `limiter.on('failed', (error, jobInfo) => wait)` that returns a value runs the failed job again
 * after that many milliseconds; returning nothing (undefined, null) lets the job fail.
 * `jobInfo.retryCount` is 0 on the first failure and counts the retries made since.
 *
 * Read from SGrondin/bottleneck at 2.19.5 (src/Job.coffee `_onFailure`: `retry = await
 * @Events.trigger "failed", error, eventInfo; if retry? then run(~~retry)`, with `eventInfo =
 * { args, options, retryCount }`; src/Events.coffee: the first listener result that is not null or
 * undefined wins, a listener that throws counts as null). Nothing else bounds the retries: no count,
 * no randomness, every error of the job goes to the listener. The jobs a limiter runs are its
 * `schedule(fn, ...args)`, `schedule(options, fn, ...args)`, `submit(fn, ...args, cb)` and
 * `wrap(fn)` calls: the operations a 'failed' listener repeats.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { argument, functionOf, labelOf, newOf } from '../library.js';
import { isDefaultPath } from '../imports.js';
import { unwrap } from '../ast.js';
import type { Execution, Node, RetrySite, Setting } from '../model.js';
import { UNKNOWN } from '../eval/values.js';
import { customSchedule } from '../schedule.js';
import { NO_FILTER, customFilter, site } from './shared.js';
import { instanceReferences, methodCalls } from './sdk-shared.js';
import { callsUntilStoppedAtAll, clientErrorsLetThrough, numericExpression, readDelayFunction, returnedValues, scheduleOfReading, type FailureDecision } from './delay-function.js';

const JOB_METHODS = new Set(['schedule', 'submit', 'wrap']);

export const bottleneck: LibraryDescriptor = {
  id: 'bottleneck',
  modules: ['bottleneck', 'bottleneck/light', 'bottleneck/light.js', 'bottleneck/es5', 'bottleneck/es5.js'],
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      if (!isDefaultPath(use.path) && use.path !== 'Bottleneck') continue;
      const creation = newOf(use);
      if (!creation) continue;
      const handlers: TSESTree.CallExpression[] = [];
      const executions: Execution[] = [];
      for (const ref of instanceReferences(creation, ctx)) {
        const method = methodCalls(ref);
        if (!method || method.path.length !== 1) continue;
        const name = method.path[0]!;
        if ((name === 'on' || name === 'once') && isFailedEvent(method.call)) handlers.push(method.call);
        else if (JOB_METHODS.has(name)) executions.push({ call: method.call, operation: jobOf(method.call), method: 'execute' });
      }
      for (const handler of handlers) {
        const s = failedHandlerSite(handler, executions, ctx);
        if (s) sites.push(s);
      }
    }
    return sites;
  },
};

function isFailedEvent(call: TSESTree.CallExpression): boolean {
  const event = argument(call, 0);
  return event?.type === T.Literal && event.value === 'failed';
}

/** The job function of `schedule(fn, ...)`, `schedule(options, fn, ...)`, `submit(...)`, `wrap(fn)`. */
function jobOf(call: TSESTree.CallExpression): Node | undefined {
  const first = argument(call, 0);
  return first && unwrap(first).type === T.ObjectExpression ? argument(call, 1) : first;
}

/** `undefined`, `null`, `void x`, a bare `return`: the job is not run again. */
function letsFail(expr: Node, ctx: AnalysisContext): boolean {
  const e = unwrap(expr);
  if (e.type === T.Literal) return e.value === null;
  if (e.type === T.UnaryExpression) return e.operator === 'void';
  if (e.type === T.Identifier) {
    if (e.name === 'undefined') return true;
    const v = ctx.evaluator.evaluate(e);
    return v === null;
  }
  return false;
}

/**
 * The retry a 'failed' listener makes, when every value it can return is either nothing or a
 * number (a listener that only logs, or returns what a call gives, makes no known site).
 */
function failedHandlerSite(handler: TSESTree.CallExpression, executions: readonly Execution[], ctx: AnalysisContext): RetrySite | undefined {
  const listener = argument(handler, 1);
  const fn = functionOf(listener, ctx);
  if (!fn?.body) return undefined;
  const returned = returnedValues(fn, true);
  if (!returned) return undefined;
  if (!returned.some((e) => numericExpression(e, ctx))) return undefined;
  if (!returned.every((e) => letsFail(e, ctx) || numericExpression(e, ctx))) return undefined;
  const node = listener!;
  const how: FailureDecision = { errorIndex: 0, countIndex: 1, countProperty: 'retryCount', firstCount: 0, isStop: (e) => letsFail(e, ctx), voidStops: true };
  let calls = callsUntilStoppedAtAll(fn, ctx, how);
  // A `once` listener answers the first failure only.
  if (isOnce(handler)) calls = calls === undefined ? 2 : Math.min(calls, 2);
  const attempts: Setting<number> = { value: calls ?? UNKNOWN, node };
  const reading = readDelayFunction(fn, ctx, [undefined, { retryCount: 'n' }], {
    argumentFor: (n) => n - 1,
    unwrapReturn: (e) => (letsFail(e, ctx) ? 'ignore' : e),
    voidStops: true,
  });
  // A listener that never looks at the error retries every failure alike: no filter at all.
  const filter = readsError(fn, ctx) ? { ...customFilter(node), clientErrors: clientErrorsLetThrough(fn, ctx, how) ?? [] } : { ...NO_FILTER, node };
  const callee = handler.callee;
  return site({
    library: 'bottleneck',
    label: `${labelOf(callee, ctx.sourceCode)}('failed')`,
    node: handler,
    reportNode: callee,
    attempts,
    delay: reading ? scheduleOfReading(reading, node) : { ...customSchedule(UNKNOWN, () => UNKNOWN), node },
    jitter: { value: reading ? reading.jitter : UNKNOWN, node },
    errorFilter: filter,
    clientLevel: true,
    executions,
  });
}

function isOnce(handler: TSESTree.CallExpression): boolean {
  const callee = handler.callee;
  return callee.type === T.MemberExpression && callee.property.type === T.Identifier && callee.property.name === 'once';
}

/** Whether the listener reads its first parameter, the job's error. */
function readsError(fn: TSESTree.FunctionLike, ctx: AnalysisContext): boolean {
  const param = fn.params[0];
  if (!param) return false;
  if (param.type !== T.Identifier) return true;
  const variable = ctx.sourceCode.getDeclaredVariables(fn).find((v) => v.name === param.name);
  return !variable || variable.references.length > 0;
}
