import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { argument, callOf } from '../library.js';
import type { DelaySchedule, ErrorFilter, Node, OptionEdit, RetrySite, Setting } from '../model.js';
import type { OptionsView } from '../options.js';
import { NO_DELAY, UNKNOWN_SCHEDULE, customSchedule, geometricSchedule, growthOfFactor, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown } from '../eval/values.js';
import { unwrap } from '../ast.js';
import { arraySchedule, readDelayFunction, scheduleOfReading } from './delay-function.js';
import { localReference } from './generic-helpers.js';
import { NO_FILTER, customFilter, optionsTarget, orUnknown, site } from './shared.js';
import { keyedSchedule, withTypicalWaits, type LibraryFixes } from '../fix-plan.js';
import { retryableErrorArrow } from '../fix-filters.js';
import { importedName } from '../fix-imports.js';

const MODULES = ['cockatiel'];

/**
 * Suggestions in cockatiel's words: `maxAttempts` counts retries; any change to the waits writes an
 * `ExponentialBackoff` (decorrelated jitter by default) with the planned first wait and cap.
 */
const COCKATIEL_KEYS = keyedSchedule({ attempts: { path: ['maxAttempts'], counts: 'retries' } });
const COCKATIEL_FIXES: LibraryFixes = {
  // `handleAll` written at the call becomes `handleWhen(...)` that stops on 4xx (not 408, 429).
  clientErrors(site, ctx, httpCalls) {
    if (site.errorFilter.kind !== 'none' || site.node.type !== T.CallExpression) return undefined;
    const policy = site.node.arguments[0];
    if (!policy || policy.type !== T.Identifier || cockatielPath(policy, ctx) !== 'handleAll') return undefined;
    const predicate = retryableErrorArrow('error', 'error', httpCalls);
    const handleWhen = predicate ? importedName(ctx, MODULES[0]!, 'handleWhen') : undefined;
    if (!handleWhen) return undefined;
    return [...handleWhen.edits, { path: [], range: policy.range, text: `${handleWhen.name}(${predicate})`, label: 'handleWhen(not a 4xx)' }];
  },
  schedule: {
    writes: ['attempts', 'initialMs', 'multiplier', 'maxMs', 'jitter'],
    jitterBound: { factor: 1 },
    normalize: (plan) => ({ ...withTypicalWaits(plan), jitter: true }),
    write(plan, changed, site, ctx) {
      // Jitter alone: dropping a `noJitterGenerator` restores the default jitter and keeps the rest.
      const dropGenerator = changed.size === 1 && changed.has('jitter') ? site.fixes?.jitter?.() : undefined;
      if (dropGenerator) return dropGenerator;
      const edits = COCKATIEL_KEYS.write(plan, changed, site, ctx) ?? [];
      if (changed.size > (changed.has('attempts') ? 1 : 0)) {
        const name = importedName(ctx, MODULES[0]!, 'ExponentialBackoff');
        const backoff = ctx.options(site.options?.object).get('backoff').property;
        if (!name || backoff?.shorthand) return undefined;
        const exponent = plan.multiplier === 2 ? '' : `, exponent: ${String(plan.multiplier)}`;
        edits.push(...name.edits, { path: ['backoff'], text: `new ${name.name}({ initialDelay: ${String(plan.initialMs)}, maxDelay: ${String(plan.maxMs)}${exponent} })` });
      }
      return edits;
    },
  },
};

/**
 * cockatiel: `retry(handleAll | handleType(..) | handleWhen(..) | ..., { maxAttempts, backoff })`.
 * `maxAttempts` counts RETRIES (the loop retries while `retries < maxAttempts`) and defaults to
 * Infinity; without a `backoff` it is `ConstantBackoff(0)`: unbounded immediate retries. The
 * filter is the handle* policy. A `wrap(retryPolicy, breakerPolicy)` composition is recorded.
 */
export const cockatiel: LibraryDescriptor = {
  id: 'cockatiel',
  modules: MODULES,
  fixes: COCKATIEL_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    const wraps = uses.filter((u) => u.path === 'wrap').map(callOf).filter((c): c is TSESTree.CallExpression => !!c);
    for (const use of uses) {
      const call = callOf(use);
      if (!call || use.path !== 'retry') continue;
      const view = ctx.options(argument(call, 1));
      const maxAttempts = view.number('maxAttempts', Infinity);
      const attempts = totalAttempts(maxAttempts, 'retries');
      const backoffOption = view.get('backoff');
      const backoff = readBackoff(backoffOption.property, backoffOption.valueNode, backoffOption.value === UNKNOWN && !backoffOption.valueNode, ctx);
      const composition = wraps.find((w) => policyLeaves(w, ctx).includes(call));
      const breaker = composition ? policyLeafArguments(composition, ctx).find((a) => isBreaker(a, ctx)) : undefined;
      sites.push(site({
        library: 'cockatiel',
        label: 'retry()',
        node: call,
        reportNode: use.expression,
        attempts,
        delay: backoff.delay,
        jitter: backoff.jitter,
        errorFilter: filterOf(argument(call, 0), ctx),
        operation: executedFunction(composition ?? call, ctx) ?? (composition ? executedFunction(call, ctx) : undefined),
        options: optionsTarget(view, call, 1),
        fixes: fixesOf(view, backoff, ctx),
        breaker,
      }));
    }
    return sites;
  },
};

interface BackoffReading {
  delay: DelaySchedule;
  jitter: Setting<boolean>;
  /** The inline `new ExponentialBackoff({...})` of the `backoff` property, for jitter suggestions. */
  exponential?: TSESTree.NewExpression | undefined;
  generator?: TSESTree.Property | undefined;
}

function readBackoff(property: TSESTree.Property | undefined, valueNode: Node | undefined, unknownOptions: boolean, ctx: AnalysisContext): BackoffReading {
  if (unknownOptions) return { delay: UNKNOWN_SCHEDULE, jitter: { value: UNKNOWN } };
  if (!valueNode) return { delay: NO_DELAY, jitter: { value: false } };
  const resolved = ctx.evaluator.resolve(valueNode);
  if (resolved.type !== T.NewExpression) return { delay: { ...UNKNOWN_SCHEDULE, node: property }, jitter: { value: UNKNOWN, node: property } };
  const kind = cockatielPath(resolved.callee, ctx);
  const arg = argument(resolved, 0);
  const node = property;
  switch (kind) {
    case 'ConstantBackoff': {
      const ms = ctx.evaluator.number(arg);
      return {
        delay: geometricSchedule({ growth: isKnown(ms) ? (ms <= 0 ? 'none' : 'constant') : UNKNOWN, initialMs: ms, multiplier: 1, maxMs: ms, node }),
        jitter: { value: false },
      };
    }
    case 'IterableBackoff': {
      const list = ctx.evaluator.evaluate(arg);
      if (!Array.isArray(list) || list.length === 0 || !list.every((x) => typeof x === 'number')) return { delay: { ...UNKNOWN_SCHEDULE, node }, jitter: { value: false } };
      return { delay: arraySchedule(list as number[], node), jitter: { value: false } };
    }
    case 'DelegateBackoff': {
      const reading = readDelayFunction(arg, ctx, [{ attempt: 'n' }, undefined], {
        // `(ctx, state) => ({ delay, state })`: the delay property is the wait.
        unwrapReturn: (expr) => {
          const e = unwrap(expr);
          if (e.type !== T.ObjectExpression) return e;
          const p = e.properties.find((x) => x.type === T.Property && !x.computed && x.key.type === T.Identifier && x.key.name === 'delay');
          return p?.type === T.Property ? (p.value as Node) : undefined;
        },
      });
      if (!reading) return { delay: { ...UNKNOWN_SCHEDULE, node }, jitter: { value: UNKNOWN, node } };
      return { delay: scheduleOfReading(reading, node), jitter: { value: reading.jitter, node } };
    }
    case 'ExponentialBackoff':
      return exponential(resolved, property, ctx);
    default:
      return { delay: { ...UNKNOWN_SCHEDULE, node }, jitter: { value: UNKNOWN, node } };
  }
}

/** A factor used by cockatiel's decorrelated jitter to put median waits near whole steps. */
const RP_SCALING = 1 / 1.4;

function exponential(expr: TSESTree.NewExpression, property: TSESTree.Property | undefined, ctx: AnalysisContext): BackoffReading {
  const view = ctx.options(argument(expr, 0));
  const initial = orUnknown(view.number('initialDelay', 128).value);
  const maxDelay = orUnknown(view.number('maxDelay', 30000).value);
  const exponentSetting = view.number('exponent', 2);
  const exponentValue = orUnknown(exponentSetting.value);
  const generator = view.get('generator');
  const generatorName = !generator.property && generator.value === undefined
    ? 'decorrelatedJitterGenerator'
    : generator.valueNode ? cockatielPath(generator.valueNode, ctx) : undefined;
  const node = property ?? expr;
  const inline = property && unwrap(property.value as Node) === expr ? expr : undefined;
  const base = { exponential: inline, generator: generator.property };
  if (generatorName === 'noJitterGenerator' || generatorName === 'fullJitterGenerator' || generatorName === 'halfJitterGenerator') {
    // These generators use `2 ** attempt` whatever `exponent` says; full/half jitter only shrink the wait.
    return {
      ...base,
      delay: geometricSchedule({ growth: growthOfFactor(2, initial), initialMs: initial, multiplier: 2, maxMs: maxDelay, node }),
      jitter: { value: generatorName !== 'noJitterGenerator', node: generator.property },
    };
  }
  if (generatorName === 'decorrelatedJitterGenerator') {
    // Decorrelated jitter: (f(t) − f(t_prev)) × initialDelay / 1.4 with f(t) = exponent^t × tanh(√(4t)),
    // t in [n−1, n) for retry n and t_prev one step earlier, so f(n) − f(n−2) bounds it.
    const f = (t: number, e: number) => (t <= 0 ? 0 : e ** t * Math.tanh(Math.sqrt(4 * t)));
    const delay = customSchedule(growthOfFactor(exponentValue, initial), (n) => {
      if (!isKnown(initial) || !isKnown(maxDelay) || !isKnown(exponentValue)) return UNKNOWN;
      const raw = Math.max(0, f(n, exponentValue) - f(n - 2, exponentValue)) * RP_SCALING * initial;
      return Math.min(Number.isFinite(raw) ? raw : Infinity, maxDelay);
    }, { initialMs: initial, multiplier: exponentValue, maxMs: maxDelay, node });
    return { ...base, delay, jitter: { value: true, node: generator.property } };
  }
  // A generator of the user's own: its shape is not known.
  return { ...base, delay: { ...UNKNOWN_SCHEDULE, node }, jitter: { value: UNKNOWN, node: generator.property } };
}

/** `handleAll` (and anything `.or*`-chained onto it) lets every error through; the others filter. */
function filterOf(policy: Node | undefined, ctx: AnalysisContext): ErrorFilter {
  if (!policy) return customFilter();
  let node = ctx.evaluator.resolve(policy);
  for (let depth = 0; depth < 16; depth++) {
    if (node.type === T.CallExpression) {
      const callee = unwrap(node.callee);
      if (callee.type === T.MemberExpression && !callee.computed && callee.property.type === T.Identifier &&
          /^or[A-Z]/.test(callee.property.name)) {
        node = ctx.evaluator.resolve(callee.object);
        continue;
      }
      const path = cockatielPath(callee, ctx);
      if (path && /^handle/.test(path)) return customFilter(node);
      return customFilter(policy);
    }
    const path = cockatielPath(node, ctx);
    if (path === 'handleAll') return { ...NO_FILTER, node: policy };
    return customFilter(policy);
  }
  return customFilter(policy);
}

function cockatielPath(node: Node, ctx: AnalysisContext): string | undefined {
  const ref = ctx.imports.resolve(node);
  return ref && MODULES.includes(ref.module) ? ref.path : undefined;
}

function isBreaker(arg: Node, ctx: AnalysisContext): boolean {
  const resolved = ctx.evaluator.resolve(arg);
  if (resolved.type === T.CallExpression) return cockatielPath(resolved.callee, ctx) === 'circuitBreaker';
  if (resolved.type === T.NewExpression) return cockatielPath(resolved.callee, ctx) === 'CircuitBreakerPolicy';
  return false;
}

/** The policy arguments of a `wrap(...)`, with nested wraps flattened. */
function policyLeafArguments(wrapCall: TSESTree.CallExpression, ctx: AnalysisContext, depth = 0): Node[] {
  const out: Node[] = [];
  for (const a of wrapCall.arguments) {
    if (a.type === T.SpreadElement) continue;
    const r = ctx.evaluator.resolve(a);
    if (depth < 8 && r.type === T.CallExpression && cockatielPath(r.callee, ctx) === 'wrap') out.push(...policyLeafArguments(r, ctx, depth + 1));
    else out.push(a);
  }
  return out;
}

function policyLeaves(wrapCall: TSESTree.CallExpression, ctx: AnalysisContext): Node[] {
  return policyLeafArguments(wrapCall, ctx).map((a) => ctx.evaluator.resolve(a));
}

/**
 * The function given to `policy.execute(fn)`: on the expression itself, on the const it is
 * stored in, or on the class field it initialises (`this.policy.execute(fn)`).
 */
function executedFunction(policy: Node, ctx: AnalysisContext): Node | undefined {
  const direct = executeArgument(policy);
  if (direct) return direct;
  let holder: Node = policy;
  while (holder.parent && (holder.parent.type === T.TSAsExpression || holder.parent.type === T.TSSatisfiesExpression)) holder = holder.parent;
  const parent = holder.parent;
  if (parent?.type === T.VariableDeclarator && parent.init === holder && parent.id.type === T.Identifier) {
    const variable = ctx.sourceCode.getDeclaredVariables(parent)[0];
    for (const ref of variable?.references ?? []) {
      const found = executeArgument(ref.identifier as Node);
      if (found) return found;
    }
  }
  if (parent?.type === T.PropertyDefinition && parent.value === holder && !parent.computed && parent.key.type === T.Identifier) {
    const name = parent.key.name;
    const classBody = parent.parent;
    for (const m of ctx.nodesOfType(T.MemberExpression)) {
      if (m.range[0] < classBody.range[0] || m.range[1] > classBody.range[1]) continue;
      if (m.object.type !== T.ThisExpression || m.computed || m.property.type !== T.Identifier || m.property.name !== name) continue;
      const found = executeArgument(m);
      if (found) return found;
    }
  }
  return undefined;
}

function executeArgument(policy: Node): Node | undefined {
  const member = policy.parent;
  if (member?.type !== T.MemberExpression || member.object !== policy || member.computed) return undefined;
  if (member.property.type !== T.Identifier || member.property.name !== 'execute') return undefined;
  const call = member.parent;
  return call?.type === T.CallExpression && call.callee === member ? argument(call, 0) : undefined;
}

function fixesOf(view: OptionsView, backoff: BackoffReading, ctx: AnalysisContext) {
  const backoffProperty = view.get('backoff').property;
  const replaceable = !backoffProperty || !backoffProperty.shorthand;
  const exponentialName = localReference(ctx, MODULES, 'ExponentialBackoff');
  return {
    attempts: (total: number): OptionEdit[] => [{ path: ['maxAttempts'], text: String(Math.max(0, total - 1)) }],
    exponential: (): OptionEdit[] | undefined =>
      exponentialName && replaceable ? [{ path: ['backoff'], text: `new ${exponentialName}({ initialDelay: 500 })` }] : undefined,
    jitter: (): OptionEdit[] | undefined => {
      // Dropping `generator` restores the default decorrelated jitter.
      const expr = backoff.exponential;
      const generator = backoff.generator;
      const options = expr && argument(expr, 0);
      if (!expr || !generator || !replaceable || options?.type !== T.ObjectExpression || !options.properties.some((p) => p === generator)) return undefined;
      const kept = options.properties.filter((p) => p !== generator).map((p) => ctx.sourceCode.getText(p));
      const callee = ctx.sourceCode.getText(expr.callee);
      return [{ path: ['backoff'], text: kept.length ? `new ${callee}({ ${kept.join(', ')} })` : `new ${callee}()` }];
    },
  };
}
