/**
 * RTK Query's `retry(baseQuery, { maxRetries, backoff, retryCondition })` base-query enhancer.
 *
 * Read from reduxjs/redux-toolkit at @reduxjs/toolkit 2.12.0 (packages/toolkit/src/query/retry.ts):
 * `maxRetries` defaults to 5 (6 calls); the counter `attempt` is 1 after the first failure and the
 * default condition is `attempt <= maxRetries`; a written `retryCondition` replaces that bound
 * (its own test of `attempt` is the bound). The default backoff waits
 * `~~((Math.random() + 0.4) * (300 << min(attempt, maxRetries)))` ms: exponential with jitter,
 * at most 840 ms, 1.7 s, 3.4 s, 6.7 s, 13.4 s. Every error result is retried, and
 * `fetchBaseQuery` returns 4xx responses as errors.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { alwaysTrue, argument, callOf, functionOf, labelOf } from '../library.js';
import type { DelaySchedule, ErrorFilter, Node, RetrySite, Setting } from '../model.js';
import type { OptionValue } from '../options.js';
import { NO_DELAY, UNKNOWN_SCHEDULE, customSchedule, geometricSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown } from '../eval/values.js';
import { findVariable, staticPropertyName, unwrap } from '../ast.js';
import { NO_FILTER, customFilter, optionsTarget, site } from './shared.js';
import { optionsArgument } from './sdk-shared.js';

const MODULES = ['@reduxjs/toolkit/query', '@reduxjs/toolkit/query/react'];
const DEFAULT_MAX_RETRIES = 5;

export const rtkQuery: LibraryDescriptor = {
  id: 'rtk-query',
  modules: MODULES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      if (use.path !== 'retry') continue;
      const call = callOf(use);
      if (!call) continue;
      const view = optionsArgument(call, 1, ctx);
      if (view.state === 'unknown') continue;
      const maxRetries = view.number('maxRetries', DEFAULT_MAX_RETRIES);
      const condition = view.get('retryCondition');
      let attempts = totalAttempts(maxRetries, 'retries');
      let filter: ErrorFilter = NO_FILTER;
      if (condition.property || condition.value !== undefined) {
        ({ attempts, filter } = readCondition(condition, ctx));
      } else if (isFetchBaseQuery(argument(call, 0), ctx)) {
        // fetchBaseQuery returns a 4xx as an error result, which the default condition retries.
        filter = { kind: 'none', clientErrors: [], retriesEverything: maxRetries.node ?? use.expression };
      }
      const max = typeof maxRetries.value === 'number' ? maxRetries.value : UNKNOWN;
      const { delay, jitter } = readBackoff(view.get('backoff'), max, ctx);
      sites.push(site({
        library: 'rtk-query',
        label: `${labelOf(use.expression, ctx.sourceCode)}()`,
        node: call,
        reportNode: use.expression,
        attempts,
        delay,
        jitter,
        errorFilter: filter,
        // Every endpoint goes through it; the wrapped base query called directly does not.
        clientLevel: true,
        options: optionsTarget(view, call, 1),
        fixes: condition.property ? undefined : { attempts: (total) => [{ path: ['maxRetries'], text: String(total - 1) }] },
      }));
    }
    return sites;
  },
};

/** `fetchBaseQuery(...)` from RTK itself, written in place or in a const. */
function isFetchBaseQuery(node: Node | undefined, ctx: AnalysisContext): boolean {
  if (!node) return false;
  const resolved = ctx.evaluator.resolve(node);
  if (resolved.type !== T.CallExpression) return false;
  const ref = ctx.imports.resolve(resolved.callee);
  return !!ref && ref.path === 'fetchBaseQuery' && (MODULES.includes(ref.module) || ref.module === '@reduxjs/toolkit');
}

/**
 * `retryCondition(error, args, { attempt })`: its test of `attempt` bounds the retries
 * (`attempt <= 5`: 5 retries, 6 calls); what it tests of the error is a filter we do not read.
 */
function readCondition(option: OptionValue, ctx: AnalysisContext): { attempts: Setting<number>; filter: ErrorFilter } {
  const node = option.property;
  const fn = functionOf(option.valueNode, ctx);
  if (!fn) return { attempts: { value: UNKNOWN, node }, filter: customFilter(node) };
  if (alwaysTrue(fn, ctx)) return { attempts: { value: Infinity, node }, filter: { kind: 'none', clientErrors: [], retriesEverything: node, node } };
  const calls = attemptBound(fn, ctx);
  return { attempts: { value: calls ?? UNKNOWN, node }, filter: customFilter(node) };
}

function attemptBound(fn: TSESTree.FunctionLike, ctx: AnalysisContext): number | undefined {
  const extra = fn.params[2];
  let name: string | undefined;
  if (extra?.type === T.ObjectPattern) {
    for (const p of extra.properties) {
      if (p.type === T.Property && staticPropertyName(p) === 'attempt' && p.value.type === T.Identifier) name = p.value.name;
    }
  }
  let expr: Node | undefined = fn.body ?? undefined;
  if (expr?.type === T.BlockStatement) {
    const only = expr.body.length === 1 ? expr.body[0] : undefined;
    expr = only?.type === T.ReturnStatement ? only.argument ?? undefined : undefined;
  }
  if (!expr) return undefined;
  const isAttempt = (n: Node): boolean => {
    const u = unwrap(n);
    if (u.type === T.Identifier) return !!name && u.name === name;
    return u.type === T.MemberExpression && !u.computed && u.property.type === T.Identifier && u.property.name === 'attempt' &&
      u.object.type === T.Identifier && extra?.type === T.Identifier && u.object.name === extra.name;
  };
  let calls: number | undefined;
  const visit = (n: Node) => {
    const u = unwrap(n);
    if (u.type === T.LogicalExpression && u.operator === '&&') { visit(u.left); visit(u.right); return; }
    if (u.type !== T.BinaryExpression || u.left.type === T.PrivateIdentifier) return;
    let op: string = u.operator;
    let other: Node;
    if (isAttempt(u.left)) other = u.right;
    else if (isAttempt(u.right)) { other = u.left; op = ({ '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as Record<string, string>)[op] ?? op; } else return;
    const v = ctx.evaluator.number(other);
    if (!isKnown(v)) return;
    // attempt is 1 after the first failure: `<= N` allows N retries, `< N` N - 1.
    const retries = op === '<=' ? Math.floor(v) : op === '<' ? Math.ceil(v) - 1 : undefined;
    if (retries !== undefined) calls = Math.min(calls ?? Infinity, Math.max(0, retries) + 1);
  };
  visit(expr);
  return calls;
}

/**
 * `backoff(attempt, maxRetries, signal)`: the default, or a function whose only timer is
 * `setTimeout(resolve, ms)` with a constant `ms` (anything else is unknown).
 */
function readBackoff(option: OptionValue, maxRetries: number | typeof UNKNOWN, ctx: AnalysisContext): { delay: DelaySchedule; jitter: Setting<boolean> } {
  const node = option.property;
  if (!node && option.value === undefined) {
    const delay = customSchedule('exponential', (n) => (isKnown(maxRetries) ? Math.floor(1.4 * (300 * 2 ** Math.min(n, maxRetries))) : UNKNOWN), {
      initialMs: 600, multiplier: 2, maxMs: UNKNOWN,
    });
    return { delay, jitter: { value: true } };
  }
  const fn = functionOf(option.valueNode, ctx);
  const timers = fn ? ctx.nodesOfType(T.CallExpression).filter((c) => c.range[0] >= fn.range[0] && c.range[1] <= fn.range[1] &&
    c.callee.type === T.Identifier && c.callee.name === 'setTimeout' && !findVariable(ctx.evaluator.scopeOf(c.callee), 'setTimeout')?.defs.length) : [];
  if (timers.length === 1) {
    const ms = timers[0]!.arguments[1];
    const v = ms && ms.type !== T.SpreadElement ? ctx.evaluator.number(ms) : 0;
    if (isKnown(v)) {
      if (v <= 0) return { delay: { ...NO_DELAY, node }, jitter: { value: false, node } };
      return { delay: geometricSchedule({ growth: 'constant', initialMs: v, multiplier: 1, node }), jitter: { value: false, node } };
    }
  }
  return { delay: { ...UNKNOWN_SCHEDULE, node }, jitter: { value: UNKNOWN, node } };
}
