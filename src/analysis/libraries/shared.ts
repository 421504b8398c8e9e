/** Option readers shared by libraries that use the same option vocabulary. */
import type { TSESTree } from '@typescript-eslint/utils';
import type { AnalysisContext } from '../library.js';
import type { ScheduleVocabulary } from '../fix-plan.js';
import type { ErrorFilter, Node, OptionEdit, OptionsTarget, RetrySite, Setting, SiteFixes } from '../model.js';
import type { OptionsView } from '../options.js';
import { geometricSchedule, growthOfFactor, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown, type Maybe } from '../eval/values.js';
import { constInitializer, contains, staticPropertyName, unwrap } from '../ast.js';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { fieldSource, thisMember } from '../eval/fields.js';
import { parameterDefault } from '../eval/functions.js';

export interface NodeRetryDefaults {
  retries: number;
  factor: number;
  minTimeout: number;
  maxTimeout: number;
  randomize: boolean;
  /** p-retry removed `forever` in v7 (it throws); node-retry and async-retry still honour it. */
  forever: boolean;
}

export const NODE_RETRY_DEFAULTS: NodeRetryDefaults = {
  retries: 10,
  factor: 2,
  minTimeout: 1000,
  maxTimeout: Infinity,
  randomize: false,
  forever: true,
};

/** Suggestions in node-retry's vocabulary; a written `forever: true` must be turned off too. */
export function nodeRetryFixes(view: OptionsView): SiteFixes {
  const forever = view.get('forever').property;
  return {
    attempts: (total) => [
      ...(forever ? [{ path: ['forever'], text: 'false' }] : []),
      { path: ['retries'], text: String(total - 1) },
    ],
    exponential: () => {
      const min = view.get('minTimeout').value;
      return [
        ...(typeof min === 'number' && min <= 0 ? [{ path: ['minTimeout'], text: '500' }] : []),
        { path: ['factor'], text: '2' },
      ];
    },
    jitter: () => [{ path: ['randomize'], text: 'true' }],
  };
}

/**
 * The schedule in node-retry's words, shared by p-retry, async-retry, promise-retry and `retry`:
 * `randomize` multiplies each wait by up to 2 before `maxTimeout` caps it.
 */
export const NODE_RETRY_SCHEDULE: ScheduleVocabulary = {
  writes: ['attempts', 'initialMs', 'multiplier', 'maxMs', 'jitter', 'deadlineMs'],
  jitterBound: { factor: 2, capAfterJitter: true },
  write(plan, changed, site, ctx) {
    const view = ctx.options(site.options?.object);
    const edits: OptionEdit[] = [];
    if (changed.has('attempts') && typeof plan.attempts === 'number') {
      if (view.get('forever').property) edits.push({ path: ['forever'], text: 'false' });
      edits.push({ path: ['retries'], text: String(plan.attempts - 1) });
    }
    if (changed.has('initialMs')) edits.push({ path: ['minTimeout'], text: String(plan.initialMs) });
    if (changed.has('multiplier')) edits.push({ path: ['factor'], text: String(plan.multiplier) });
    if (changed.has('maxMs')) edits.push({ path: ['maxTimeout'], text: String(plan.maxMs) });
    if (changed.has('jitter')) edits.push({ path: ['randomize'], text: 'true' });
    if (changed.has('deadlineMs')) edits.push({ path: ['maxRetryTime'], text: String(plan.deadlineMs) });
    return edits;
  },
};

/** The `retries`/`factor`/`minTimeout`/`maxTimeout`/`randomize` vocabulary of node-retry and its heirs. */
export function readNodeRetryOptions(view: OptionsView, d: NodeRetryDefaults) {
  let attempts = totalAttempts(view.number('retries', d.retries), 'retries');
  if (d.forever) {
    const forever = view.boolean('forever', false);
    // An unknown `forever` leaves the retries count as a lower bound, which is still safe to judge.
    if (forever.value === true) attempts = { value: Infinity, node: forever.node };
  }
  const factor = view.number('factor', d.factor);
  const minTimeout = view.number('minTimeout', d.minTimeout);
  const maxTimeout = view.number('maxTimeout', d.maxTimeout);
  const randomize = view.boolean('randomize', d.randomize);
  const initial = orUnknown(minTimeout.value);
  const delay = geometricSchedule({
    growth: growthOfFactor(orUnknown(factor.value), initial),
    initialMs: isKnown(initial) ? Math.max(initial, 1) : UNKNOWN,
    multiplier: orUnknown(factor.value),
    maxMs: orUnknown(maxTimeout.value),
    jitterFactor: randomize.value === UNKNOWN ? UNKNOWN : randomize.value ? 2 : 1,
    capAfterJitter: true,
    node: (isKnown(initial) && initial <= 0 ? minTimeout.node : factor.node ?? minTimeout.node) ?? view.object,
  });
  const maxRetryTime = view.number('maxRetryTime', undefined);
  const deadlineMs: Setting<number | undefined> = {
    value: maxRetryTime.value === Infinity ? undefined : maxRetryTime.value,
    node: maxRetryTime.node,
  };
  return { attempts, delay, jitter: randomize, deadlineMs, fixes: nodeRetryFixes(view) };
}

export function orUnknown<V>(v: Maybe<V | undefined>): Maybe<V> {
  return v === undefined ? UNKNOWN : v;
}

export const NO_FILTER: ErrorFilter = { kind: 'none', clientErrors: [] };
export const LIBRARY_FILTER: ErrorFilter = { kind: 'library-default', clientErrors: [] };
export function customFilter(node?: Node): ErrorFilter {
  return { kind: 'custom', clientErrors: [], node };
}

export const NO_TIMEOUT: Setting<number | undefined> = { value: undefined };

export function optionsTarget(
  view: OptionsView,
  call: TSESTree.CallExpression | TSESTree.NewExpression,
  argumentIndex: number,
): OptionsTarget {
  return { object: view.object, call, argumentIndex };
}

/** Defaults for the fields a descriptor does not set. */
export function site(partial: Omit<RetrySite, 'kind' | 'clientLevel' | 'deadlineMs' | 'attemptTimeoutMs'> & Partial<RetrySite>): RetrySite {
  return {
    kind: 'in-memory',
    clientLevel: false,
    deadlineMs: NO_TIMEOUT,
    attemptTimeoutMs: NO_TIMEOUT,
    ...partial,
  };
}

/** True when `inner` lies inside `outer` in the source. */
export { contains } from '../ast.js';

/** Whether an identifier bound to `name` from `module` is referenced inside `scope`. */
export function usesImportInside(ctx: AnalysisContext, module: string, name: string, scope: Node | undefined): boolean {
  if (!scope) return false;
  for (const binding of ctx.imports.bindings) {
    if (binding.module !== module || binding.path !== name) continue;
    if (binding.variable.references.some((r) => contains(scope, r.identifier as Node))) return true;
  }
  return false;
}

/**
 * The keys an options object is written with, followed to where the code writes it when the
 * options view cannot read it: a const, a class field set in the constructor from a parameter with
 * a default (`{ retryConfig = DEFAULT_POLICY }`: the class's own default, as the defaults policy
 * reads a field), an import of a project file (`export const DEFAULT_POLICY = { retries: 10 }`).
 * Undefined when not known (a spread, a computed key, a value it cannot follow).
 */
export function writtenOptionKeys(ctx: AnalysisContext, node: Node | undefined, depth = 0): Set<string> | undefined {
  if (!node || depth > 6) return undefined;
  const n = unwrap(node);
  if (n.type === T.ObjectExpression) {
    const keys = new Set<string>();
    for (const p of n.properties) {
      const key = p.type === T.Property ? staticPropertyName(p) : undefined;
      if (key === undefined) return undefined;
      keys.add(key);
    }
    return keys;
  }
  if (n.type === T.MemberExpression) {
    const field = thisMember(n, ctx.sourceCode);
    const source = field && fieldSource(ctx.sourceCode, field.cls, field.name);
    return source?.expr ? writtenOptionKeys(ctx, source.expr, depth + 1) : undefined;
  }
  if (n.type !== T.Identifier) return undefined;
  const variable = ctx.evaluator.variableOf(n);
  const init = constInitializer(variable) ?? parameterDefault(variable)?.right;
  if (init) return writtenOptionKeys(ctx, init, depth + 1);
  const imported = variable?.defs[0]?.type === 'ImportBinding' ? ctx.importedValue?.(n) : undefined;
  return imported ? writtenOptionKeys(imported.ctx, imported.node, depth + 1) : undefined;
}
