import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor, LibraryUse } from '../library.js';
import { isDefaultPath } from '../imports.js';
import { argument, callOf, labelOf, newOf } from '../library.js';
import type { DelaySchedule, Growth, Node, OptionEdit, OptionsTarget, RetrySite, Setting } from '../model.js';
import type { OptionValue, OptionsView } from '../options.js';
import { NO_DELAY, customSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown, isStaticObject, type Maybe, type StaticValue } from '../eval/values.js';
import { NO_FILTER, site } from './shared.js';
import { instanceReferences, methodCalls, optionsArgument, typedReferences } from './sdk-shared.js';

/**
 * Job options as BullMQ merges them: the job's own options over the queue's
 * `defaultJobOptions` (a shallow spread, so a job's `backoff` replaces the default whole).
 * `defaults` is undefined when the queue was configured out of sight (injected).
 */
interface JobOptions {
  job?: OptionsView | undefined;
  defaults?: OptionsView | undefined;
  defaultsKnown: boolean;
}

/**
 * BullMQ: `queue.add(name, data, { attempts, backoff })`, `queue.addBulk([{ name, data, opts }])`
 * and `new Queue(name, { defaultJobOptions })`. A durable engine: the job waits in Redis.
 * `attempts` counts attempts and defaults to 1 (no retry). `backoff` is a number (a fixed
 * delay) or `{ type: 'fixed' | 'exponential' | 'linear' | 'polynomial' | 'decorrelatedJitter' |
 * custom, delay, jitter, maxDelay, exponent }`; without it a failed job is retried at once.
 * `jitter` (0..1) only ever shortens a wait. Every error is retried except UnrecoverableError.
 */
export const bullmq: LibraryDescriptor = {
  id: 'bullmq',
  modules: ['bullmq', '@nestjs/bullmq'],
  kind: 'durable',
  // `backoff: { type, delay, jitter }`.
  engine: { jitterSetting: true },
  find: (uses, ctx) => findJobSites(uses, ctx, BULLMQ),
};

/**
 * Bull, BullMQ's predecessor (read at OptimalBits/bull 4.15.0, lib/queue.js, lib/job.js,
 * lib/backoffs.js): `new Queue(name, [redisUrl,] { defaultJobOptions })` and
 * `queue.add([name,] data, { attempts, backoff })`, merged the same shallow way. `attempts`
 * counts attempts (default 1); `backoff` is a number (a fixed delay) or `{ type: 'fixed' |
 * 'exponential', delay }`, exponential waiting `(2 ** attemptsMade - 1) * delay` (delay, 3x, 7x...)
 * with no cap; other types are the queue's own strategies. Bull has no jitter setting.
 */
export const bull: LibraryDescriptor = {
  id: 'bull',
  modules: ['bull'],
  kind: 'durable',
  engine: { jitterSetting: false },
  find: (uses, ctx) => findJobSites(uses, ctx, BULL),
};

/** What differs between BullMQ and Bull. */
interface Flavour {
  readonly library: string;
  /** The queue class's import path(s). */
  isQueue(use: LibraryUse): boolean;
  /** Where the queue options sit in `new Queue(...)`: Bull takes an optional Redis URL first. */
  queueOptionsIndex(created: TSESTree.NewExpression | TSESTree.CallExpression, ctx: AnalysisContext): number;
  /** Where the job options sit in `queue.add(...)`: Bull's job name is optional. */
  addOptionsIndex(call: TSESTree.CallExpression, ctx: AnalysisContext): number;
  readonly types: Readonly<Record<string, Growth>>;
  /** Bull's exponential wait is `(2^n - 1) * delay`, BullMQ's `2^(n-1) * delay`. */
  readonly exponential: (delayMs: number, n: number) => number;
  readonly jitterSetting: boolean;
}

const GROWTH_OF_TYPE: Record<string, Growth> = {
  fixed: 'constant', exponential: 'exponential', linear: 'linear', polynomial: 'polynomial', decorrelatedJitter: 'exponential',
};

const BULLMQ: Flavour = {
  library: 'bullmq',
  isQueue: (use) => use.path === 'Queue',
  queueOptionsIndex: () => 1,
  addOptionsIndex: () => 2,
  types: GROWTH_OF_TYPE,
  exponential: (d, n) => d * 2 ** (n - 1),
  jitterSetting: true,
};

const isString = (node: Node | undefined, ctx: AnalysisContext) => !!node && typeof ctx.evaluator.evaluate(node) === 'string';

const BULL: Flavour = {
  library: 'bull',
  isQueue: (use) => isDefaultPath(use.path),
  queueOptionsIndex: (created, ctx) => (isString(argument(created, 1), ctx) ? 2 : 1),
  addOptionsIndex: (call, ctx) => (isString(argument(call, 0), ctx) ? 2 : 1),
  types: { fixed: 'constant', exponential: 'exponential' },
  exponential: (d, n) => (2 ** n - 1) * d,
  jitterSetting: false,
};

function findJobSites(uses: readonly LibraryUse[], ctx: AnalysisContext, flavour: Flavour): RetrySite[] {
  const sites: RetrySite[] = [];
  for (const use of uses) {
    if (use.module === '@nestjs/bullmq') {
      // BullModule.registerQueue({ name, defaultJobOptions }, ...) and forRoot([configKey,] options).
      const call = callOf(use);
      if (!call || !['BullModule.registerQueue', 'BullModule.forRoot'].includes(use.path)) continue;
      call.arguments.forEach((arg, i) => {
        if (arg.type === T.SpreadElement) return;
        const defaults = optionsArgument(call, i, ctx).sub('defaultJobOptions');
        if (!defaults.object) return;
        const s = jobSite({ job: defaults, defaultsKnown: true }, call, use.expression, `${labelOf(use.expression, ctx.sourceCode)}()`, { object: defaults.object }, ctx, flavour);
        if (s) sites.push({ ...s, clientLevel: true });
      });
      continue;
    }
    if (!flavour.isQueue(use)) continue;
    const created = newOf(use);
    if (created) {
      const defaults = optionsArgument(created, flavour.queueOptionsIndex(created, ctx), ctx).sub('defaultJobOptions');
      const queueSite = jobSite({ job: defaults, defaultsKnown: true }, created, use.expression, 'new Queue()', { object: defaults.object }, ctx, flavour);
      if (queueSite && defaults.object) sites.push(queueSite);
      for (const ref of instanceReferences(created, ctx)) addCalls(ref, defaults, true);
      continue;
    }
    // `constructor(@InjectQueue('mail') private queue: Queue)`: the defaults are configured elsewhere.
    for (const ref of typedReferences(use.expression, ctx)) addCalls(ref, undefined, false);
  }
  return sites;

  function addCalls(ref: Node, defaults: OptionsView | undefined, defaultsKnown: boolean) {
    const method = methodCalls(ref);
    if (!method || method.path.length !== 1) return;
    const { call } = method;
    const label = `${labelOf(call.callee, ctx.sourceCode)}()`;
    if (method.path[0] === 'add') {
      const index = flavour.addOptionsIndex(call, ctx);
      const job = optionsArgument(call, index, ctx);
      if (!writesRetry(job)) return;
      const s = jobSite({ job, defaults, defaultsKnown }, call, call.callee, label, target(job, call, index), ctx, flavour);
      if (s) sites.push(s);
    } else if (method.path[0] === 'addBulk') {
      const list = argument(call, 0);
      const array = list && ctx.evaluator.resolve(list);
      if (array?.type !== T.ArrayExpression) return;
      for (const element of array.elements) {
        if (!element || element.type === T.SpreadElement) continue;
        const entry = ctx.options(element);
        const job = entry.sub('opts');
        if (!writesRetry(job)) continue;
        const s = jobSite({ job, defaults, defaultsKnown }, call, call.callee, label, { object: job.object }, ctx, flavour);
        if (s) sites.push(s);
      }
    }
  }
}

function writesRetry(job: OptionsView): boolean {
  if (job.state === 'absent') return false;
  if (job.state === 'unknown') return false;
  return !!job.get('attempts').property || !!job.get('backoff').property ||
    job.get('attempts').value === UNKNOWN || job.get('backoff').value === UNKNOWN;
}

function target(job: OptionsView, call: TSESTree.CallExpression, index: number): OptionsTarget {
  return { object: job.object, call, argumentIndex: index };
}

/** The merged value of a job option: the job's own, then the queue default, else `fallback`. */
function option(opts: JobOptions, key: string): OptionValue {
  const own = opts.job?.get(key);
  if (own && (own.property || own.value !== undefined)) return own;
  if (!opts.defaultsKnown) return { value: UNKNOWN };
  return opts.defaults?.get(key) ?? { value: undefined };
}

function jobSite(
  opts: JobOptions, node: TSESTree.CallExpression | TSESTree.NewExpression, reportNode: Node, label: string,
  options: OptionsTarget, ctx: AnalysisContext, flavour: Flavour,
): RetrySite | undefined {
  const attemptsOption = option(opts, 'attempts');
  const count: Setting<number | undefined> = {
    value: attemptsOption.value === undefined ? 1 : typeof attemptsOption.value === 'number' ? attemptsOption.value : UNKNOWN,
    node: attemptsOption.property,
  };
  const attempts = totalAttempts(count, 'attempts');
  // No retry at all: nothing to judge, and every plain `queue.add()` would otherwise be a site.
  if (attempts.value === 1) return undefined;

  const backoffOption = option(opts, 'backoff');
  const backoff = readBackoff(backoffOption, ctx, flavour);
  return site({
    library: flavour.library,
    label,
    kind: 'durable',
    node,
    reportNode,
    attempts,
    delay: backoff.delay,
    jitter: backoff.jitter,
    errorFilter: NO_FILTER,
    clientLevel: node.type === T.NewExpression,
    operation: node,
    options,
    fixes: {
      attempts: (total) => [{ path: ['attempts'], text: String(total) }],
      exponential: () => backoff.rewrite('exponential', backoff.jitterValue),
      ...(flavour.jitterSetting ? { jitter: () => backoff.rewrite(backoff.type, 0.5) } : {}),
    },
  });
}

interface Backoff {
  delay: DelaySchedule;
  jitter: Setting<boolean>;
  type: Maybe<string | undefined>;
  jitterValue: Maybe<number>;
  /** The whole `backoff` option rewritten with a new type or jitter, when every part is known. */
  rewrite(type: Maybe<string | undefined>, jitter: Maybe<number>): OptionEdit[] | undefined;
}

function readBackoff(option: OptionValue, ctx: AnalysisContext, flavour: Flavour): Backoff {
  const node = option.property;
  const value = option.value;
  let type: Maybe<string | undefined>;
  let base: Maybe<number | undefined>;
  let jitterValue: Maybe<number> = 0;
  let maxDelay: Maybe<number | undefined>;
  let exponent: Maybe<number> = 2;
  if (value === undefined) {
    // Retried as soon as the job fails.
    return { delay: NO_DELAY, jitter: { value: false, node }, type: undefined, jitterValue: 0, rewrite: (t, j) => edits(t, 1000, j, undefined, 2) };
  }
  if (typeof value === 'number') {
    type = 'fixed';
    base = value;
  } else if (isStaticObject(value) && value.node) {
    const view = ctx.options(value.node);
    const t = view.get('type').value;
    type = typeof t === 'string' ? t : UNKNOWN;
    base = numberOf(view.get('delay').value);
    jitterValue = orZero(numberOf(view.get('jitter').value));
    maxDelay = numberOf(view.get('maxDelay').value);
    const e = numberOf(view.get('exponent').value);
    exponent = e === undefined ? 2 : e;
  } else {
    type = UNKNOWN;
    base = UNKNOWN;
    jitterValue = UNKNOWN;
  }

  // A missing delay computes NaN (or 0), which BullMQ treats as "retry now".
  const delayMs: Maybe<number> = base === undefined ? (type === 'decorrelatedJitter' ? 1000 : 0) : base;
  const builtIn = isKnown(type) && type in flavour.types;
  const growth: Maybe<Growth> = !isKnown(type) ? UNKNOWN
    : !builtIn ? 'custom'
    : isKnown(delayMs) && delayMs <= 0 ? 'none'
    : flavour.types[type]!;
  const cap: Maybe<number> = maxDelay === undefined || maxDelay === 0 ? Infinity : maxDelay;
  const decorrelated = type === 'decorrelatedJitter';
  const delay = customSchedule(growth, (n) => {
    if (growth === 'none') return 0;
    if (!builtIn || !isKnown(delayMs) || !isKnown(cap) || !isKnown(exponent)) return UNKNOWN;
    let wait: number;
    if (type === 'fixed') wait = delayMs;
    else if (type === 'linear') wait = delayMs * n;
    else if (type === 'polynomial') wait = delayMs * n ** exponent;
    // Each decorrelated wait is at most three times the previous one, starting from `delay`.
    else if (decorrelated) wait = delayMs * 3 ** n;
    else wait = flavour.exponential(delayMs, n);
    return Math.min(wait, cap);
  }, { initialMs: delayMs, multiplier: type === 'exponential' ? 2 : decorrelated ? 3 : type === 'fixed' ? 1 : UNKNOWN, maxMs: cap, node });

  const jitter: Setting<boolean> = decorrelated ? { value: true, node }
    : !flavour.jitterSetting ? { value: false, node }
    : !builtIn ? { value: UNKNOWN, node }
    : { value: isKnown(jitterValue) ? jitterValue > 0 : UNKNOWN, node };
  return {
    delay,
    jitter,
    type,
    jitterValue,
    rewrite: (t, j) => ((builtIn || t === 'exponential') && (flavour.jitterSetting || j === 0) ? edits(t, base === undefined ? 1000 : base, j, maxDelay, exponent) : undefined),
  };
}

function edits(type: Maybe<string | undefined>, delay: Maybe<number | undefined>, jitter: Maybe<number>, maxDelay: Maybe<number | undefined>, exponent: Maybe<number>): OptionEdit[] | undefined {
  if (!isKnown(type) || !isKnown(delay) || !isKnown(jitter) || !isKnown(maxDelay) || !isKnown(exponent)) return undefined;
  const t = type ?? 'exponential';
  const parts = [`type: '${t}'`, `delay: ${delay && delay > 0 ? delay : 1000}`];
  if (jitter > 0) parts.push(`jitter: ${jitter}`);
  if (maxDelay) parts.push(`maxDelay: ${maxDelay}`);
  if (t === 'polynomial' && exponent !== 2) parts.push(`exponent: ${exponent}`);
  return [{ path: ['backoff'], text: `{ ${parts.join(', ')} }` }];
}

function numberOf(v: Maybe<StaticValue>): Maybe<number | undefined> {
  if (v === undefined || v === UNKNOWN || typeof v === 'number') return v;
  return UNKNOWN;
}

function orZero(v: Maybe<number | undefined>): Maybe<number> {
  return v === undefined ? 0 : v;
}
