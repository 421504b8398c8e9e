import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor, LibraryUse } from '../library.js';
import { argument, callOf, functionOf } from '../library.js';
import type { DelaySchedule, ErrorFilter, Node, OptionEdit, RetrySite, Setting } from '../model.js';
import type { OptionsView } from '../options.js';
import { UNKNOWN_SCHEDULE, customSchedule, geometricSchedule, growthOfFactor, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown, type Maybe } from '../eval/values.js';
import { unwrap } from '../ast.js';
import { readDelayFunction, type DelayReading } from './delay-function.js';
import { replaceInside } from './generic-helpers.js';
import { NO_FILTER, customFilter, optionsTarget, orUnknown, site } from './shared.js';
import { functionSchedule, type LibraryFixes } from '../fix-plan.js';
import { tableMigration } from '../fix-migrate.js';

const MODULE = 'ts-retry-promise';
const DEFAULT_TIMEOUT_MS = 60_000;

/** Suggestions in this library's words (fixes.ts reads this facet). */
const TS_RETRY_PROMISE_FIXES: LibraryFixes = {
  schedule: functionSchedule({
    attempts: { path: ['retries'], counts: 'retries' },
    deadlineMs: ['timeout'],
    delay: (body) => ({ path: ['backoff'], text: `(attempt) => ${body('attempt - 1')}` }),
  }),
  // `retry(fn, cfg)` on the runtime: a named backoff gives way to its growing, jittered waits;
  // `timeout` is an overall deadline like the runtime's.
  migrate: tableMigration('retry()', MODULE, {
    retries: { to: 'maxAttempts', counts: 'retries' },
    delay: { to: 'initialDelayMs' },
    backoff: { to: 'dropped', accepts: ['FIXED', 'LINEAR', 'EXPONENTIAL'] },
    maxBackOff: { to: 'maxDelayMs' },
    timeout: { to: 'deadlineMs' },
    retryIf: { to: 'filter' },
  }),
};

/**
 * ts-retry-promise: `retry(fn, cfg)`, `retryDecorator(fn, cfg)` (a wrapper, not a TS decorator),
 * `customizeRetry(cfg)` / `customizeDecorator(cfg)`. `retries` counts retries (the loop runs
 * `i = 0..retries`), default 10, `"INFINITELY"` allowed. `backoff`: "FIXED" (default), "LINEAR"
 * (attempt × delay), "EXPONENTIAL" (delay ** attempt: 100 ms, 10 s, 1000 s ...), or
 * `(attempt, delay) => ms`; `maxBackOff` 300000 caps a wait. `timeout` is an OVERALL deadline,
 * 60 s by default, `"INFINITELY"` turns it off. `retryIf` and `NotRetryableError` filter errors.
 * (It also waits once more after the last failure; the worst case here leaves that wait out.)
 */
export const tsRetryPromise: LibraryDescriptor = {
  id: 'ts-retry-promise',
  modules: [MODULE],
  // A standalone helper and decorator: no circuit breaker, metrics wired by hand (R-RES-RE-X4).
  legacy: { modules: [MODULE] },
  fixes: TS_RETRY_PROMISE_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      if (!call) continue;
      const customize = use.path === 'customizeRetry' || use.path === 'customizeDecorator';
      if (!customize && use.path !== 'retry' && use.path !== 'retryDecorator') continue;
      const optionsIndex = customize ? 0 : 1;
      const view = ctx.options(argument(call, optionsIndex));
      const operation = customize ? customizedOperation(call, ctx) : argument(call, 0);
      const read = readConfig(view, ctx);
      sites.push(site({
        library: MODULE,
        label: `${use.path}()`,
        node: call,
        reportNode: use.expression,
        ...read,
        errorFilter: filterOf(view, operation, uses, ctx),
        operation,
        options: optionsTarget(view, call, optionsIndex),
      }));
    }
    return sites;
  },
};

function readConfig(view: OptionsView, ctx: AnalysisContext) {
  const retries = view.get('retries');
  let attempts: Setting<number>;
  if (!retries.property && retries.value === undefined) attempts = { value: 11 };
  else if (retries.value === 'INFINITELY') attempts = { value: Infinity, node: retries.property };
  else if (typeof retries.value === 'number') attempts = totalAttempts({ value: retries.value, node: retries.property }, 'retries');
  else if (retries.property && retries.value === undefined) attempts = { value: 11, node: retries.property };
  else attempts = { value: UNKNOWN, node: retries.property };

  const delayMs = orUnknown(view.number('delay', 100).value);
  const maxBackOff = orUnknown(view.number('maxBackOff', 300_000).value);
  const backoff = view.get('backoff');
  const delayNode = backoff.property ?? view.get('delay').property;
  let delay: DelaySchedule;
  let jitter: Setting<boolean> = { value: false };
  let reading: DelayReading | undefined;
  const kind = !backoff.property && backoff.value === undefined ? 'FIXED' : backoff.value;
  if (kind === 'FIXED') {
    delay = geometricSchedule({ growth: growthOfFactor(1, delayMs), initialMs: delayMs, multiplier: 1, maxMs: maxBackOff, node: delayNode });
  } else if (kind === 'LINEAR') {
    delay = geometricSchedule({ growth: isKnown(delayMs) && delayMs <= 0 ? 'none' : 'linear', initialMs: delayMs, maxMs: maxBackOff, node: delayNode });
  } else if (kind === 'EXPONENTIAL') {
    // delay ** attempt is delay × delay^(attempt−1): a geometric series whose ratio is `delay` itself.
    delay = geometricSchedule({ growth: growthOfFactor(delayMs, delayMs), initialMs: delayMs, multiplier: delayMs, maxMs: maxBackOff, node: delayNode });
  } else if (backoff.valueNode && functionOf(backoff.valueNode, ctx)) {
    reading = readDelayFunction(backoff.valueNode, ctx, ['n', isKnown(delayMs) ? delayMs : undefined]);
    if (reading) {
      const r = reading;
      delay = customSchedule(r.growth, (n) => {
        const b = r.bound(n);
        return isKnown(b) && isKnown(maxBackOff) ? Math.min(b, maxBackOff) : UNKNOWN;
      }, { initialMs: r.initialMs, multiplier: r.multiplier, maxMs: maxBackOff, node: delayNode });
      jitter = { value: r.jitter, node: backoff.property };
    } else {
      delay = { ...UNKNOWN_SCHEDULE, node: delayNode };
      jitter = { value: UNKNOWN, node: backoff.property };
    }
  } else {
    delay = { ...UNKNOWN_SCHEDULE, node: delayNode };
    jitter = { value: UNKNOWN, node: backoff.property };
  }

  const timeout = view.get('timeout');
  let deadlineMs: Setting<number | undefined>;
  if (!timeout.property && timeout.value === undefined) deadlineMs = { value: DEFAULT_TIMEOUT_MS };
  else if (timeout.value === 'INFINITELY') deadlineMs = { value: undefined, node: timeout.property };
  else if (typeof timeout.value === 'number') deadlineMs = { value: timeout.value, node: timeout.property };
  else if (timeout.property && timeout.value === undefined) deadlineMs = { value: DEFAULT_TIMEOUT_MS, node: timeout.property };
  else deadlineMs = { value: UNKNOWN as Maybe<number | undefined>, node: timeout.property };

  const backoffEditable = !backoff.property?.shorthand;
  const fn = reading?.fn;
  const wait = reading?.waits?.length === 1 ? reading.waits[0] : undefined;
  return {
    attempts,
    delay,
    jitter,
    deadlineMs,
    fixes: {
      attempts: (total: number): OptionEdit[] => [{ path: ['retries'], text: String(total - 1) }],
      exponential: (): OptionEdit[] | undefined =>
        backoffEditable ? [{ path: ['backoff'], text: '(attempt, delay) => delay * 2 ** (attempt - 1) * (0.5 + Math.random())' }] : undefined,
      jitter: (): OptionEdit[] | undefined => {
        if (!backoffEditable) return undefined;
        if (kind === 'EXPONENTIAL') return [{ path: ['backoff'], text: '(attempt, delay) => delay ** attempt * (0.5 + Math.random())' }];
        if (fn && wait && backoff.valueNode && unwrap(backoff.valueNode) === fn) {
          return [{ path: ['backoff'], text: replaceInside(ctx, fn, wait, `(${ctx.sourceCode.getText(wait)}) * (0.5 + Math.random())`) }];
        }
        return undefined;
      },
    },
  };
}

function filterOf(view: OptionsView, operation: Node | undefined, uses: readonly LibraryUse[], ctx: AnalysisContext): ErrorFilter {
  const retryIf = view.get('retryIf');
  if (retryIf.property || retryIf.value !== undefined) return customFilter(retryIf.property);
  const fn = functionOf(operation, ctx);
  // Throwing NotRetryableError stops the retries; an operation we cannot see might do so.
  if (!fn) return customFilter();
  const stops = uses.some((u) => (u.path === 'NotRetryableError') && u.expression.range[0] >= fn.range[0] && u.expression.range[1] <= fn.range[1]);
  return stops ? customFilter() : NO_FILTER;
}

/** `const r = customizeRetry(cfg); r(fn)`: the first function the customised retry is applied to. */
function customizedOperation(call: TSESTree.CallExpression, ctx: AnalysisContext): Node | undefined {
  const parent = call.parent;
  if (parent?.type !== T.VariableDeclarator || parent.init !== call || parent.id.type !== T.Identifier) return undefined;
  const variable = ctx.sourceCode.getDeclaredVariables(parent)[0];
  for (const ref of variable?.references ?? []) {
    const p = ref.identifier.parent;
    if (p?.type === T.CallExpression && p.callee === ref.identifier) return argument(p, 0);
  }
  return undefined;
}
