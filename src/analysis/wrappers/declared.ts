/**
 * Declared retry helpers: `settings["safe-retry"].wrappers` describes a team's own helper
 * (`withRetry(fn, { retries })` from `@acme/http`) the way a descriptor describes a library, and
 * each declaration becomes a LibraryDescriptor fed through the same catalogue path, so every rule
 * judges its calls like calls to p-retry. Recognition is by import binding, never by name.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { isDefaultPath } from '../imports.js';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { argument, callOf, hasSpreadUpTo, labelOf } from '../library.js';
import type { ErrorFilter, Node, OptionEdit, RetrySite, Setting, SiteFixes } from '../model.js';
import type { OptionsView } from '../options.js';
import { geometricSchedule, growthOfFactor, totalAttempts, UNKNOWN_SCHEDULE } from '../schedule.js';
import type { WrapperDeclaration, WrapperSetting } from '../settings.js';
import { UNKNOWN, isKnown, type Maybe } from '../eval/values.js';
import { LIBRARY_FILTER, NO_FILTER, customFilter, optionsTarget, site } from '../libraries/shared.js';

const descriptorCache = new WeakMap<readonly WrapperDeclaration[], readonly LibraryDescriptor[]>();

/** One descriptor per declaration; the same settings array gives the same descriptors. */
export function declaredDescriptors(declarations: readonly WrapperDeclaration[]): readonly LibraryDescriptor[] {
  let out = descriptorCache.get(declarations);
  if (!out) {
    out = declarations.map(descriptorOf);
    descriptorCache.set(declarations, out);
  }
  return out;
}

export function declaredId(d: Pick<WrapperDeclaration, 'module' | 'export'>): string {
  return `wrapper:${d.module}#${d.export}`;
}

function descriptorOf(d: WrapperDeclaration): LibraryDescriptor {
  return {
    id: declaredId(d),
    modules: [d.module],
    find(uses, ctx) {
      const sites: RetrySite[] = [];
      for (const use of uses) {
        const call = callOf(use);
        if (!call) continue;
        if (d.export === 'default' ? !isDefaultPath(use.path) : use.path !== d.export) continue;
        sites.push(readCall(d, call, use.expression, ctx));
      }
      return sites;
    },
  };
}

interface Read<V> {
  readonly value: Maybe<V | undefined>;
  readonly node?: Node | undefined;
}

function readCall(d: WrapperDeclaration, call: TSESTree.CallExpression, callee: Node, ctx: AnalysisContext): RetrySite {
  const view = d.options === undefined ? undefined : ctx.options(argument(call, d.options));
  const spreadBefore = (i: number) => hasSpreadUpTo(call, i);

  function read<V>(s: WrapperSetting<V> | undefined, accept: (v: unknown) => v is V): Read<V> {
    if (!s) return { value: UNKNOWN };
    if (s.option !== undefined && view) return readOption(view, s.option, s.default, accept);
    if (s.argument !== undefined) {
      if (spreadBefore(s.argument)) return { value: UNKNOWN };
      const arg = call.arguments[s.argument];
      if (!arg) return { value: s.default };
      const v = ctx.evaluator.evaluate(arg);
      if (v === undefined) return { value: s.default, node: arg };
      return { value: accept(v) ? v : UNKNOWN, node: arg };
    }
    return { value: s.default };
  }
  const isNumber = (v: unknown): v is number => typeof v === 'number';
  const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';

  const count = read(d.attempts, isNumber);
  const attempts: Setting<number> = d.attempts
    ? totalAttempts({ value: count.value, node: count.node }, d.attempts.counts)
    : { value: UNKNOWN };

  const initial = read(d.delay, isNumber);
  const factor = read(d.factor, isNumber);
  // A cap can only shorten the waits: without one declared, the schedule is read uncapped.
  const cap = d.maxDelay ? read(d.maxDelay, isNumber) : { value: Infinity };
  const jitter = read(d.jitter, isBoolean);
  const known = <V>(v: Maybe<V | undefined>): Maybe<V> => (v === undefined ? UNKNOWN : v);
  const initialMs = known(initial.value);
  const delay = d.delay
    ? geometricSchedule({
      growth: growthOfFactor(d.factor ? known(factor.value) : UNKNOWN, initialMs),
      initialMs,
      multiplier: d.factor ? known(factor.value) : UNKNOWN,
      maxMs: known(cap.value),
      // The randomisation is taken to stay within the computed wait (full or equal jitter).
      jitterFactor: 1,
      node: (isKnown(initialMs) && initialMs <= 0 ? initial.node : factor.node ?? initial.node) ?? view?.object,
    })
    : UNKNOWN_SCHEDULE;

  let errorFilter: ErrorFilter = customFilter();
  if (d.errorFilter) {
    const filter = read(d.errorFilter, (v): v is 'none' | 'helper' => v === 'none' || v === 'helper');
    const passed = filter.node !== undefined || (d.errorFilter.option !== undefined && view?.state === 'unknown');
    if (passed) errorFilter = customFilter(filter.node);
    else if (filter.value === 'none') errorFilter = NO_FILTER;
    else if (filter.value === 'helper') errorFilter = LIBRARY_FILTER;
  }

  const deadline = read(d.deadline, isNumber);
  const deadlineMs: Setting<number | undefined> = d.deadline ? { value: deadline.value, node: deadline.node } : { value: undefined };

  return site({
    library: declaredId(d),
    label: `${labelOf(callee, ctx.sourceCode)}()`,
    node: call,
    reportNode: callee,
    attempts,
    delay,
    jitter: { value: jitter.value === undefined ? UNKNOWN : jitter.value, node: jitter.node },
    errorFilter,
    deadlineMs,
    operation: argument(call, d.operation),
    options: view && d.options !== undefined ? optionsTarget(view, call, d.options) : undefined,
    fixes: view ? fixesOf(d, initialMs) : undefined,
  });
}

/** Reads `a.b.c` from the options object; the default applies when the option is absent. */
function readOption<V>(view: OptionsView, option: string, fallback: V | undefined, accept: (v: unknown) => v is V): Read<V> {
  const path = option.split('.');
  let v = view;
  for (const key of path.slice(0, -1)) v = v.sub(key);
  const got = v.get(path[path.length - 1]!);
  if (!got.property && got.value === undefined) return { value: fallback };
  if (got.value === undefined) return { value: fallback, node: got.property };
  return { value: accept(got.value) ? got.value : UNKNOWN, node: got.property ?? got.valueNode };
}

/** Suggestions in the helper's own option names; only for settings read from the options object. */
function fixesOf(d: WrapperDeclaration, initialMs: Maybe<number>): SiteFixes {
  const path = (s: WrapperSetting<unknown> | undefined) => (s?.option !== undefined ? s.option.split('.') : undefined);
  const attempts = path(d.attempts);
  const factor = path(d.factor);
  const delay = path(d.delay);
  const jitter = path(d.jitter);
  const fixes: SiteFixes = {};
  if (attempts && d.attempts) {
    const counts = d.attempts.counts;
    fixes.attempts = (total) => [{ path: attempts, text: String(counts === 'retries' ? total - 1 : total) }];
  }
  if (factor) {
    fixes.exponential = () => {
      const edits: OptionEdit[] = [];
      if (isKnown(initialMs) && initialMs <= 0) {
        if (!delay) return undefined;
        edits.push({ path: delay, text: '500' });
      }
      edits.push({ path: factor, text: '2' });
      return edits;
    };
  }
  if (jitter) fixes.jitter = () => [{ path: jitter, text: 'true' }];
  return fixes;
}
