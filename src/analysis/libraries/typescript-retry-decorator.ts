import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { argument, decoratorOf } from '../library.js';
import type { DelaySchedule, Node, OptionEdit, RetrySite, Setting } from '../model.js';
import type { OptionsView } from '../options.js';
import { UNKNOWN_SCHEDULE, customSchedule, geometricSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown, isSymbolic, type Maybe, type StaticValue } from '../eval/values.js';
import { localReference } from './generic-helpers.js';
import { NO_FILTER, customFilter, optionsTarget, orUnknown, site } from './shared.js';
import { importedName } from '../fix-imports.js';
import { keyedSchedule, withTypicalWaits, type LibraryFixes } from '../fix-plan.js';

const MODULES = ['typescript-retry-decorator'];

/**
 * Suggestions in the decorator's words: `maxAttempts` counts retries, `backOff` is the first wait;
 * growth, cap and jitter are the exponential policy with a FullJitter `exponentialOption`.
 */
const DECORATOR_KEYS = keyedSchedule({ attempts: { path: ['maxAttempts'], counts: 'retries' }, initialMs: ['backOff'] });
const DECORATOR_FIXES: LibraryFixes = {
  schedule: {
    writes: ['attempts', 'initialMs', 'multiplier', 'maxMs', 'jitter'],
    jitterBound: { factor: 1 },
    normalize: (plan) => ({ ...withTypicalWaits(plan), jitter: true }),
    write(plan, changed, site, ctx) {
      const edits = DECORATOR_KEYS.write(plan, changed, site, ctx) ?? [];
      if (!['multiplier', 'maxMs', 'jitter'].some((k) => changed.has(k as never))) return edits;
      const policy = importedName(ctx, MODULES[0]!, 'BackOffPolicy');
      const strategy = importedName(ctx, MODULES[0]!, 'ExponentialBackoffStrategy');
      if (!policy || !strategy || ctx.options(site.options?.object).get('exponentialOption').property?.shorthand) return undefined;
      if (!changed.has('initialMs')) edits.push({ path: ['backOff'], text: String(plan.initialMs) });
      edits.push(
        ...policy.edits,
        ...strategy.edits,
        { path: ['backOffPolicy'], text: `${policy.name}.ExponentialBackOffPolicy` },
        { path: ['exponentialOption'], text: `{ maxInterval: ${String(plan.maxMs)}, multiplier: ${String(plan.multiplier)}, backoffStrategy: ${strategy.name}.FullJitter }` },
      );
      return edits;
    },
  },
};

/**
 * typescript-retry-decorator: `@Retryable({ maxAttempts, backOff, backOffPolicy,
 * exponentialOption, doRetry, value })` on a method. `maxAttempts` is required and counts
 * RETRIES (n + 1 calls). Without `backOff` there is no wait, except that the exponential policy
 * defaults it to 1000; the exponential policy multiplies by `multiplier` (2) up to `maxInterval`
 * (2000), the first wait itself uncapped. Jitter only with `exponentialOption.backoffStrategy`.
 */
export const typescriptRetryDecorator: LibraryDescriptor = {
  id: 'typescript-retry-decorator',
  modules: MODULES,
  // A retry decorator: no circuit breaker, metrics wired by hand, config in code (R-RES-RE-X4).
  legacy: { modules: ['typescript-retry-decorator'] },
  fixes: DECORATOR_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      if (use.path !== 'Retryable') continue;
      const found = decoratorOf(use);
      if (!found) continue;
      const { decorator, call } = found;
      const view = ctx.options(argument(call, 0));
      const maxAttempts = view.number('maxAttempts', undefined);
      const attempts = totalAttempts(maxAttempts, 'retries');
      const { delay, jitter, exponentialPolicy } = readBackoff(view, ctx);
      const doRetry = view.get('doRetry');
      const allowList = view.get('value');
      const filtered = doRetry.property || doRetry.value !== undefined || allowList.property || allowList.value !== undefined;
      const method = decorator.parent;
      sites.push(site({
        library: 'typescript-retry-decorator',
        label: '@Retryable()',
        node: decorator,
        reportNode: decorator,
        attempts,
        delay,
        jitter,
        errorFilter: filtered ? customFilter(doRetry.property ?? allowList.property) : NO_FILTER,
        operation: method?.type === T.MethodDefinition || method?.type === T.PropertyDefinition ? method.value ?? undefined : undefined,
        options: optionsTarget(view, call, 0),
        fixes: fixesOf(view, exponentialPolicy, ctx),
      }));
    }
    return sites;
  },
};

function policyIs(value: Maybe<StaticValue>, member: string, node: Node | undefined, ctx: AnalysisContext): Maybe<boolean> {
  if (value === UNKNOWN) return UNKNOWN;
  if (typeof value === 'string') return value === member;
  if (isSymbolic(value) && node) {
    const ref = ctx.imports.resolve(node);
    if (ref && MODULES.includes(ref.module)) return ref.path === `BackOffPolicy.${member}`;
    // `BackOffPolicy.X` whatever the import is called: the member name decides.
    return value.symbolic.endsWith(`.${member}`) ? true : UNKNOWN;
  }
  return UNKNOWN;
}

function readBackoff(view: OptionsView, ctx: AnalysisContext): { delay: DelaySchedule; jitter: Setting<boolean>; exponentialPolicy: Maybe<boolean> } {
  const policy = view.get('backOffPolicy');
  const exponentialPolicy: Maybe<boolean> = !policy.property && policy.value === undefined ? false
    : policy.value === undefined ? false
    : policyIs(policy.value, 'ExponentialBackOffPolicy', policy.valueNode, ctx);
  const backOff = view.number('backOff', undefined);
  const expo = view.sub('exponentialOption');
  const strategy = expo.get('backoffStrategy');
  const jitterValue: Maybe<boolean> = !strategy.property && strategy.value === undefined ? (expo.state === 'unknown' ? UNKNOWN : false)
    : strategy.value === undefined ? false
    : strategy.value === UNKNOWN ? UNKNOWN
    : typeof strategy.value === 'string' ? strategy.value === 'FullJitter' || strategy.value === 'EqualJitter'
    : isSymbolic(strategy.value) ? /\.(FullJitter|EqualJitter)$/.test(strategy.value.symbolic) || UNKNOWN
    : UNKNOWN;
  const jitter: Setting<boolean> = { value: jitterValue, node: strategy.property };
  const node = policy.property ?? backOff.node;
  if (!isKnown(exponentialPolicy)) return { delay: { ...UNKNOWN_SCHEDULE, node }, jitter, exponentialPolicy };
  if (!exponentialPolicy) {
    const ms = backOff.value;
    if (ms === undefined || ms === 0) return { delay: geometricSchedule({ growth: 'none', initialMs: 0, multiplier: 1, maxMs: 0, node }), jitter, exponentialPolicy };
    return { delay: geometricSchedule({ growth: isKnown(ms) ? (ms < 0 ? 'none' : 'constant') : UNKNOWN, initialMs: ms, multiplier: 1, maxMs: ms, node }), jitter, exponentialPolicy };
  }
  const initial = backOff.value === undefined || backOff.value === 0 ? 1000 : orUnknown(backOff.value);
  const multiplier = orUnknown(expo.number('multiplier', 2).value);
  const maxInterval = orUnknown(expo.number('maxInterval', 2000).value);
  // The multiplied wait is capped; the configured first wait is used as written.
  const growth = !isKnown(multiplier) ? UNKNOWN : multiplier > 1 ? 'exponential' : 'constant';
  const delay = customSchedule(growth, (n) => {
    if (!isKnown(initial) || !isKnown(multiplier) || !isKnown(maxInterval)) return UNKNOWN;
    return n <= 1 ? initial : Math.min(initial * multiplier ** (n - 1), maxInterval);
  }, { initialMs: initial, multiplier, maxMs: maxInterval, node: policy.property ?? expo.object ?? backOff.node });
  return { delay, jitter, exponentialPolicy };
}

function fixesOf(view: OptionsView, exponentialPolicy: Maybe<boolean>, ctx: AnalysisContext) {
  const policyRef = localReference(ctx, MODULES, 'BackOffPolicy');
  const strategyRef = localReference(ctx, MODULES, 'ExponentialBackoffStrategy');
  const expo = view.get('exponentialOption');
  return {
    attempts: (total: number): OptionEdit[] => [{ path: ['maxAttempts'], text: String(Math.max(0, total - 1)) }],
    exponential: (): OptionEdit[] | undefined => {
      if (!policyRef) return undefined;
      const backOff = view.get('backOff');
      return [
        { path: ['backOffPolicy'], text: `${policyRef}.ExponentialBackOffPolicy` },
        ...(backOff.property && backOff.value === 0 ? [{ path: ['backOff'], text: '500' }] : []),
      ];
    },
    jitter: (): OptionEdit[] | undefined => {
      if (!strategyRef || exponentialPolicy !== true) return undefined;
      const strategy = `${strategyRef}.FullJitter`;
      // The option type requires maxInterval and multiplier whenever the object is written.
      if (!expo.property && expo.value === undefined) return [{ path: ['exponentialOption'], text: `{ maxInterval: 2000, multiplier: 2, backoffStrategy: ${strategy} }` }];
      if (expo.property?.shorthand) return undefined;
      return [{ path: ['exponentialOption', 'backoffStrategy'], text: strategy }];
    },
  };
}
