/**
 * The compliant schedule a suggestion writes: attempts, first wait, factor, cap and jitter chosen
 * together from the site's model, so that the edit fixes the finding without tripping another rule
 * (a jitter edit that pushes the worst case over 5 s, a factor edit that leaves no jitter).
 * Libraries say how to write the plan in their own vocabulary (LibraryFixes.schedule).
 */
import type { AnalysisContext } from './library.js';
import type { DelaySchedule, OptionEdit, RetrySite } from './model.js';
import type { HttpCall } from './operations/types.js';
import type { Migration } from './fix-migrate.js';
import type { ImportBinding } from './imports.js';
import { geometricSchedule, worstCaseDurationMs } from './schedule.js';
import { UNKNOWN, isKnown, type Maybe } from './eval/values.js';
import {
  IN_MEMORY_MS,
  MAX_ATTEMPTS,
  TYPICAL_ATTEMPTS,
  TYPICAL_FIRST_WAIT_MS,
  TYPICAL_MULTIPLIER,
  growsExponentially,
} from '../shared/guide-limits.js';

/** A cap on a single wait that keeps three attempts well inside the guide's 5 s. */
export const TYPICAL_CAP_MS = 2000;

export type PlanKey = 'attempts' | 'initialMs' | 'multiplier' | 'maxMs' | 'jitter' | 'deadlineMs';

/** Effective values after the edit; UNKNOWN where the code's own unresolved value stays. */
export interface SchedulePlan {
  readonly attempts: Maybe<number>;
  readonly initialMs: Maybe<number>;
  readonly multiplier: Maybe<number>;
  /** Infinity when uncapped. */
  readonly maxMs: Maybe<number>;
  readonly jitter: Maybe<boolean>;
  readonly deadlineMs: Maybe<number | undefined>;
}

/** How one library writes a schedule, and how it bounds the waits it then makes. */
export interface ScheduleVocabulary {
  /** The settings the library lets code write (an SDK may only take a count). */
  readonly writes: readonly PlanKey[];
  /**
   * Upper bound of a jittered wait relative to its base: node-retry's `randomize` multiplies by up
   * to 2 before its cap (`capAfterJitter`); full jitter draws in [0, base] (factor 1).
   */
  readonly jitterBound?: { readonly factor: number; readonly capAfterJitter?: boolean; readonly addMs?: number } | undefined;
  /**
   * The edits writing `changed` (every changed key, with the whole effective plan for libraries that
   * write the schedule as one expression), or undefined when the library cannot express them here.
   */
  write(plan: SchedulePlan, changed: ReadonlySet<PlanKey>, site: RetrySite, ctx: AnalysisContext): OptionEdit[] | undefined;
  /** What the library's written waits become once any of them changes (a rewritten delay function). */
  normalize?(plan: SchedulePlan): SchedulePlan;
}

/** Per-library fix vocabulary, one facet per descriptor; read by fixes.ts, never by rules directly. */
export interface LibraryFixes {
  readonly schedule?: ScheduleVocabulary | undefined;
  /** Add or narrow the error filter so that 4xx (but 408 and 429) are not retried. */
  clientErrors?(site: RetrySite, ctx: AnalysisContext, httpCalls: readonly HttpCall[]): OptionEdit[] | undefined;
  /**
   * The call rewritten on this package's runtime (`createRetryPolicy(...).read(fn)`), or why it
   * cannot be: read by no-legacy-retry's migration (fix-migrate.ts).
   */
  migrate?(site: RetrySite, ctx: AnalysisContext): Migration;
  /**
   * A legacy export of an otherwise fine module (rxjs `retryWhen`) rewritten with the library's own
   * replacement at every use of `binding`, the import included, or why it cannot be.
   */
  migrateExport?(binding: ImportBinding, sites: readonly RetrySite[], ctx: AnalysisContext, httpCalls: (site: RetrySite) => readonly HttpCall[]): OptionEdit[] | string;
  /** Turn the site's own retries off (an inner layer under another retry). */
  disable?(site: RetrySite, ctx: AnalysisContext): OptionEdit[] | undefined;
}

export interface PlannedSchedule {
  readonly plan: SchedulePlan;
  readonly changed: ReadonlySet<PlanKey>;
  readonly edits: OptionEdit[];
  /** The waits of the planned schedule, for messages ("waits 500 ms, 1 s"). */
  readonly waits: readonly number[];
  readonly worstMs: Maybe<number>;
}

export interface PlanGoal {
  /** The finding that asked for the plan: its setting is changed even when others would do. */
  readonly need: 'attempts' | 'duration' | 'backoff' | 'jitter';
  readonly maxAttempts?: number;
  readonly maxMs?: number;
}

/** The site's model as a plan: what it does today. */
export function currentPlan(site: RetrySite): SchedulePlan {
  const d = site.delay;
  const growth = d.growth;
  return {
    attempts: site.attempts.value,
    initialMs: growth === 'none' ? 0 : d.initialMs,
    multiplier: growth === 'constant' ? 1 : growth === 'none' ? 1 : d.multiplier,
    maxMs: d.maxMs,
    jitter: site.jitter.value,
    deadlineMs: site.deadlineMs.value,
  };
}

/**
 * The smallest change to the site's schedule that satisfies every schedule rule at once (attempts
 * within the bound, exponential growth, jitter, worst case within the budget), written in the
 * library's vocabulary; undefined when no such edit exists or the library cannot write it.
 */
/** A compliant plan exists but the library cannot write it where the options are (a bare count). */
export const UNWRITABLE = 'unwritable';

export function planSchedule(
  site: RetrySite,
  vocabulary: ScheduleVocabulary,
  goal: PlanGoal,
  ctx: AnalysisContext,
): PlannedSchedule | typeof UNWRITABLE | undefined {
  const maxAttempts = goal.maxAttempts ?? MAX_ATTEMPTS;
  const budget = goal.maxMs ?? IN_MEMORY_MS;
  const can = new Set(vocabulary.writes);
  const now = currentPlan(site);
  const plan: { -readonly [K in keyof SchedulePlan]: SchedulePlan[K] } = { ...now };
  const changed = new Set<PlanKey>();
  const set = <K extends PlanKey>(key: K, value: SchedulePlan[K]): boolean => {
    if (!can.has(key)) return false;
    plan[key] = value;
    changed.add(key);
    return true;
  };
  const known = isKnown(plan.attempts);
  if (goal.need === 'attempts' || (known && (plan.attempts as number) > maxAttempts)) {
    if (!set('attempts', Math.min(TYPICAL_ATTEMPTS, maxAttempts))) return undefined;
  }
  const retries = isKnown(plan.attempts) ? plan.attempts : Infinity;
  // No wait at all, or a wait that does not grow, over three attempts or more: make it exponential.
  const waitsNothing = isKnown(plan.initialMs) && plan.initialMs <= 0;
  const flat = isKnown(plan.multiplier) && !growsExponentially(plan.multiplier);
  if (goal.need === 'backoff' || waitsNothing || (flat && retries > 2)) {
    if (waitsNothing || goal.need === 'backoff' && !isKnown(plan.initialMs)) {
      if (!set('initialMs', TYPICAL_FIRST_WAIT_MS)) return undefined;
    }
    if (!isKnown(plan.multiplier) || !growsExponentially(plan.multiplier)) {
      if (!set('multiplier', TYPICAL_MULTIPLIER) && retries > 2) return undefined;
    }
    // A cap at the first wait would keep the waits flat.
    const first = isKnown(plan.initialMs) ? plan.initialMs : TYPICAL_FIRST_WAIT_MS;
    if (isKnown(plan.maxMs) && plan.maxMs < first * TYPICAL_MULTIPLIER ** 2) set('maxMs', Math.max(TYPICAL_CAP_MS, first * TYPICAL_MULTIPLIER ** 2));
  }
  // Jitter where the finding asks for it, or where this edit is what makes the waits grow.
  const madeGrow = changed.has('multiplier') && retries > 1;
  if ((goal.need === 'jitter' || (madeGrow && plan.jitter === false)) && plan.jitter !== true) {
    if (!set('jitter', true)) return undefined;
  }
  // Within the budget: shorter first wait, factor 2, a cap, fewer attempts, then a deadline.
  const steps: Array<() => boolean> = [
    () => isKnown(plan.initialMs) && plan.initialMs > TYPICAL_FIRST_WAIT_MS && set('initialMs', TYPICAL_FIRST_WAIT_MS),
    () => isKnown(plan.multiplier) && plan.multiplier > TYPICAL_MULTIPLIER && set('multiplier', TYPICAL_MULTIPLIER),
    () => isKnown(plan.maxMs) && plan.maxMs > TYPICAL_CAP_MS && isKnown(plan.initialMs) && plan.initialMs <= TYPICAL_CAP_MS && set('maxMs', TYPICAL_CAP_MS),
    () => isKnown(plan.attempts) && plan.attempts > TYPICAL_ATTEMPTS && set('attempts', TYPICAL_ATTEMPTS),
    () => isKnown(plan.attempts) && plan.attempts > 2 && set('attempts', 2),
    () => set('deadlineMs', budget),
  ];
  let worst = worstOf(plan, site, vocabulary, changed);
  for (const step of steps) {
    if (!isKnown(worst) || worst <= budget) break;
    if (step()) worst = worstOf(plan, site, vocabulary, changed);
  }
  if (isKnown(worst) && worst > budget) return undefined;
  if (changed.size === 0) return undefined;
  const written = vocabulary.normalize && delayChanged(changed) ? vocabulary.normalize(plan) : plan;
  const edits = vocabulary.write(written, changed, site, ctx);
  if (!edits || edits.length === 0) return UNWRITABLE;
  return { plan: written, changed, edits, waits: waitsOf(plan, site, vocabulary, changed), worstMs: worst };
}

function delayChanged(changed: ReadonlySet<PlanKey>): boolean {
  return changed.has('initialMs') || changed.has('multiplier') || changed.has('maxMs') || changed.has('jitter');
}

function delayOf(given: SchedulePlan, site: RetrySite, vocabulary: ScheduleVocabulary, changed: ReadonlySet<PlanKey>): DelaySchedule {
  if (!delayChanged(changed)) return site.delay;
  const plan = vocabulary.normalize ? vocabulary.normalize(given) : given;
  const jittered = plan.jitter === true;
  const bound = jittered ? vocabulary.jitterBound : undefined;
  const initial = plan.initialMs;
  const multiplier = plan.multiplier;
  return geometricSchedule({
    growth: !isKnown(initial) ? UNKNOWN : initial <= 0 ? 'none' : !isKnown(multiplier) ? UNKNOWN : growsExponentially(multiplier) ? 'exponential' : 'constant',
    initialMs: initial,
    multiplier,
    maxMs: plan.maxMs,
    jitterFactor: jittered ? bound?.factor ?? 1 : 1,
    jitterAddMs: jittered ? bound?.addMs ?? 0 : 0,
    capAfterJitter: bound?.capAfterJitter,
  });
}

function worstOf(plan: SchedulePlan, site: RetrySite, vocabulary: ScheduleVocabulary, changed: ReadonlySet<PlanKey>): Maybe<number> {
  return worstCaseDurationMs(plan.attempts, delayOf(plan, site, vocabulary, changed), site.attemptTimeoutMs.value, plan.deadlineMs);
}

function waitsOf(plan: SchedulePlan, site: RetrySite, vocabulary: ScheduleVocabulary, changed: ReadonlySet<PlanKey>): number[] {
  return scheduleWaits(plan.attempts, delayOf(plan, site, vocabulary, changed));
}

/** The upper bound of each wait, for messages; empty when any is unknown or there are too many. */
export function scheduleWaits(attempts: Maybe<number>, delay: DelaySchedule): number[] {
  if (!isKnown(attempts) || attempts > 12) return [];
  const out: number[] = [];
  for (let n = 1; n < attempts; n++) {
    const w = delay.upperBound(n);
    if (!isKnown(w)) return [];
    out.push(w);
  }
  return out;
}

/** `500 ms, 1 s, 2 s`; long lists keep their head and tail. */
export function formatWaits(waits: readonly number[], format: (ms: number) => string): string {
  const shown = waits.length > 6 ? [...waits.slice(0, 4).map(format), '...', format(waits[waits.length - 1]!)] : waits.map(format);
  return shown.join(', ');
}

/** Where a library keeps each schedule setting, for `keyedSchedule`. */
export interface KeyedScheduleSpec {
  readonly attempts?: { readonly path: readonly string[]; readonly counts: 'retries' | 'attempts' };
  readonly initialMs?: readonly string[];
  readonly multiplier?: readonly string[];
  /** A library whose growth is a switch rather than a number (urql's `randomDelay: true`). */
  readonly exponential?: { readonly path: readonly string[]; readonly text: string };
  readonly maxMs?: readonly string[];
  readonly jitter?: { readonly path: readonly string[]; readonly text: string };
  readonly deadlineMs?: readonly string[];
  readonly jitterBound?: ScheduleVocabulary['jitterBound'];
  /** Edits that must come with a changed setting (retry-axios' `backoffType: 'exponential'`). */
  readonly with?: (changed: ReadonlySet<PlanKey>, plan: SchedulePlan) => OptionEdit[];
  /**
   * A settings object that may be written as a bare count (`retry: 2` in got and ky): the count's
   * key inside the object form, so the shorthand becomes `retry: { limit: 2, ... }`.
   */
  readonly shorthand?: { readonly key: string; readonly count: string };
}

/** A schedule vocabulary from where each setting lives: most libraries need nothing more. */
export function keyedSchedule(spec: KeyedScheduleSpec): ScheduleVocabulary {
  const writes: PlanKey[] = [];
  if (spec.attempts) writes.push('attempts');
  if (spec.initialMs) writes.push('initialMs');
  if (spec.multiplier || spec.exponential) writes.push('multiplier');
  if (spec.maxMs) writes.push('maxMs');
  if (spec.jitter) writes.push('jitter');
  if (spec.deadlineMs) writes.push('deadlineMs');
  return {
    writes,
    jitterBound: spec.jitterBound,
    write(plan, changed, site, ctx) {
      const edits: OptionEdit[] = [];
      const put = (path: readonly string[] | undefined, text: string) => { if (path) edits.push({ path, text }); };
      if (changed.has('attempts') && typeof plan.attempts === 'number' && spec.attempts) {
        put(spec.attempts.path, String(spec.attempts.counts === 'retries' ? plan.attempts - 1 : plan.attempts));
      }
      if (changed.has('initialMs')) put(spec.initialMs, String(plan.initialMs));
      if (changed.has('multiplier')) {
        if (spec.exponential) put(spec.exponential.path, spec.exponential.text);
        else put(spec.multiplier, String(plan.multiplier));
      }
      if (changed.has('maxMs')) put(spec.maxMs, String(plan.maxMs));
      const sameSwitch = spec.exponential && spec.jitter && spec.exponential.path.join('.') === spec.jitter.path.join('.');
      if (changed.has('jitter') && spec.jitter && !(sameSwitch && changed.has('multiplier'))) put(spec.jitter.path, spec.jitter.text);
      if (changed.has('deadlineMs')) put(spec.deadlineMs, String(plan.deadlineMs));
      edits.push(...(spec.with?.(changed, plan) ?? []));
      return spec.shorthand ? expandShorthand(edits, spec.shorthand, site, ctx) : edits;
    },
  };
}

/** `retry: 2` written as a count: edits under `retry` become one object replacing it. */
function expandShorthand(edits: OptionEdit[], shorthand: { key: string; count: string }, site: RetrySite, ctx: AnalysisContext): OptionEdit[] | undefined {
  const object = site.options?.object;
  if (!object) return edits;
  const written = ctx.options(object).get(shorthand.key);
  if (!written.property || written.valueNode?.type === 'ObjectExpression') return edits;
  if (typeof written.value !== 'number') return undefined; // an unresolved count keeps its meaning
  const inside = new Map<string, string>([[shorthand.count, String(written.value)]]);
  const rest: OptionEdit[] = [];
  for (const e of edits) {
    if (e.path[0] === shorthand.key && e.path.length === 2) inside.set(e.path[1]!, e.text);
    else rest.push(e);
  }
  return [...rest, { path: [shorthand.key], text: `{ ${[...inside].map(([k, v]) => `${k}: ${v}`).join(', ')} }` }];
}

/** An SDK that only takes a count (`maxRetries`, `maxAttempts`): fewer attempts is the only edit. */
export function countSchedule(path: readonly string[], counts: 'retries' | 'attempts'): ScheduleVocabulary {
  return keyedSchedule({ attempts: { path, counts } });
}

/** The site's own count edit (`site.fixes.attempts`), for SDKs whose count lives in varied places. */
export const SITE_COUNT_SCHEDULE: ScheduleVocabulary = {
  writes: ['attempts'],
  write(plan, changed, site) {
    if (!changed.has('attempts') || typeof plan.attempts !== 'number') return undefined;
    return site.fixes?.attempts?.(plan.attempts);
  },
};

/**
 * `Math.random() * Math.min(cap, first * factor ** n)`: full jitter on an exponential schedule, for
 * libraries that take the wait as a function; `exponent` is the source of n (0 before the first retry).
 */
export function fullJitterText(plan: SchedulePlan, exponent: string): string | undefined {
  const { initialMs, multiplier, maxMs } = plan;
  if (!isKnown(initialMs) || !isKnown(multiplier) || !isKnown(maxMs)) return undefined;
  const grow = `${initialMs} * ${multiplier} ** ${/^\w+$/.test(exponent) ? exponent : `(${exponent})`}`;
  return `Math.random() * ${Number.isFinite(maxMs) ? `Math.min(${maxMs}, ${grow})` : grow}`;
}

/** The plan with a first wait, factor and cap filled in from the guide where the code has none. */
export function withTypicalWaits(plan: SchedulePlan): SchedulePlan {
  return {
    ...plan,
    initialMs: isKnown(plan.initialMs) && plan.initialMs > 0 ? plan.initialMs : TYPICAL_FIRST_WAIT_MS,
    multiplier: isKnown(plan.multiplier) && growsExponentially(plan.multiplier) ? plan.multiplier : TYPICAL_MULTIPLIER,
    maxMs: isKnown(plan.maxMs) ? plan.maxMs : TYPICAL_CAP_MS,
  };
}

/**
 * A library that takes its wait as a function (`retryDelay: (attempt) => ...`): any change to the
 * waits rewrites the whole function as full jitter.
 */
export function functionSchedule(spec: {
  readonly attempts?: KeyedScheduleSpec['attempts'];
  readonly deadlineMs?: readonly string[];
  /** The function's source from the exponent's name, e.g. `(attempt) => ${body}`. */
  readonly delay: (body: (exponent: string) => string | undefined) => { path: readonly string[]; text: string } | undefined;
}): ScheduleVocabulary {
  const keyed = keyedSchedule({ attempts: spec.attempts, deadlineMs: spec.deadlineMs });
  return {
    writes: [...keyed.writes, 'initialMs', 'multiplier', 'maxMs', 'jitter'],
    jitterBound: { factor: 1 },
    normalize: (plan) => ({ ...withTypicalWaits(plan), jitter: true }),
    write(plan, changed, site, ctx) {
      const edits = keyed.write(plan, changed, site, ctx) ?? [];
      if (['initialMs', 'multiplier', 'maxMs', 'jitter'].some((k) => changed.has(k as PlanKey))) {
        const full = withTypicalWaits(plan);
        let failed = false;
        const delay = spec.delay((exponent) => {
          const text = fullJitterText(full, exponent);
          if (!text) failed = true;
          return text;
        });
        if (!delay || failed) return undefined;
        edits.push(delay);
      }
      return edits;
    },
  };
}

/** A duration for a message: `800 ms`, `4.5 s`, `17.1 min`, `2 h`; `forever` for Infinity. */
export function formatDuration(ms: number): string {
  if (ms === Infinity) return 'forever';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 120) return `${Number(s.toFixed(1))} s`;
  const min = s / 60;
  if (min < 120) return `${Number(min.toFixed(1))} min`;
  return `${Number((min / 60).toFixed(1))} h`;
}
