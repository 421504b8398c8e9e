/**
 * Reads named retry policies, circuit breakers and budgets from a plain object (parsed JSON, YAML,
 * or a flat map of dotted keys from `.properties` or the environment) into option sets the
 * constructors accept, with every problem named by its key path.
 *
 * Two shapes, in one object if need be:
 * - Resilience4j, as Spring Boot binds it (`resilience4j.retry.instances.<name>`, `configs` and
 *   `base-config`, `resilience4j.circuitbreaker...`, `resilience4j.timelimiter...`), so one
 *   `application.yml` can configure a Spring service, a Node service and the linter;
 * - native: `{ retry: { <name>: RetryPolicyOptions }, circuitBreaker: {...}, budget: {...} }`.
 *
 * Nothing here constructs a live object; the registry does that once the whole config is valid.
 */
import { IN_MEMORY_MS, MAX_ATTEMPTS, QUEUE_MS, TYPICAL_FIRST_WAIT_MS, TYPICAL_MULTIPLIER } from '../shared/guide-limits.js';
import {
  RETRY_DEFAULTS,
  describe,
  durationText,
  formatMs,
  hintFor,
  isKnown,
  isNear,
  joinPath,
  judgeRetry,
  problem,
  readResilience4j,
  type BreakerSettings,
  type ConfigProblem,
  type ConfigProperty,
  type KeySegment,
  type MessageCode,
  type PropertyValue,
  type RetrySettings,
} from '../shared/resilience4j/index.js';
import { createCircuitBreaker, type CircuitBreakerOptions } from './breaker.js';
import { createRetryBudget, type RetryBudgetOptions } from './budget.js';
import type { Jitter } from './backoff.js';
import { createRetryPolicy, type RetryPolicyOptions } from './policy.js';

export interface PolicyConfigIssue {
  /** Where the offending value is (or the missing key should be), e.g. `resilience4j.retry.instances.sber.max-attempts`. */
  readonly path: string;
  readonly message: string;
  /** The guide rule the value breaks, e.g. `R-RES-RE-3`; absent for malformed or unknown keys. */
  readonly rule?: string;
}

export type RetryData = Omit<RetryPolicyOptions, 'retryOn' | 'budget' | 'breaker' | 'onRetry' | 'onGiveUp' | 'random' | 'name' | 'metrics'>;
export type BreakerData = Omit<CircuitBreakerOptions, 'isFailure' | 'onStateChange' | 'now' | 'name' | 'metrics'>;
export type BudgetData = Omit<RetryBudgetOptions, 'now' | 'name' | 'metrics'>;

export interface RetrySpec {
  readonly name: string;
  readonly path: string;
  readonly options: RetryData;
  readonly breaker: string | undefined;
  readonly budget: string | undefined;
  /** Resilience4j instances have no key for either: they take the breaker and budget of their own name. */
  readonly pairByName: boolean;
}

export interface Spec<O> {
  readonly name: string;
  readonly path: string;
  readonly options: O;
}

export interface ReadConfig {
  readonly retry: Map<string, RetrySpec>;
  readonly breakers: Map<string, Spec<BreakerData>>;
  readonly budgets: Map<string, Spec<BudgetData>>;
  readonly issues: PolicyConfigIssue[];
  /** Keys that are valid for Resilience4j but do nothing here; the registry reports them. */
  readonly warnings: PolicyConfigIssue[];
  /** Every name the config defines, valid or not, so a rejected entry is not mistaken for a removed one. */
  readonly defined: { readonly retry: Set<string>; readonly breakers: Set<string>; readonly budgets: Set<string> };
}

/** Resilience4j has no total deadline; the guide's in-memory bound stands in for it (R-RES-RE-2, R-RES-RE-4). */
export const RESILIENCE4J_DEADLINE_MS = IN_MEMORY_MS;

// ---- values --------------------------------------------------------------------------------------

/**
 * Milliseconds, or a reason the value is not a duration. Text is read the way Spring Boot reads a
 * Duration (the Resilience4j reader uses the same rules); a number is milliseconds, as in code.
 */
export function parseDuration(value: unknown): number | string {
  if (typeof value === 'number') return Number.isFinite(value) ? value : 'is not a finite number of milliseconds';
  if (typeof value !== 'string') return `must be a duration such as 500ms, 2s or PT0.5S, got ${describe(value)}`;
  const bound = durationText(value);
  if (bound.kind === 'value') return bound.value;
  if (bound.kind === 'placeholder') return problem('placeholder', '', undefined, { value }).message;
  if (bound.kind === 'unset') return problem('notDuration', '', undefined, { value: '""' }).message;
  return problem(bound.code, '', undefined, bound.data).message;
}

function parseNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(value)) return Number(value);
  return undefined;
}

/** Collects problems; a key path is reported once even when several instances inherit it. */
class Issues {
  readonly #seen = new Set<string>();
  constructor(readonly list: PolicyConfigIssue[]) {}

  push(issue: PolicyConfigIssue): void {
    const key = `${issue.path}\u0000${issue.message}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.list.push(issue);
  }

  /** A problem from the shared message table: the words the linter reports too. */
  add(code: MessageCode, path: string, data?: Readonly<Record<string, string | number>>): void {
    this.problem(problem(code, path, undefined, data));
  }

  problem(p: ConfigProblem<unknown>): void {
    this.push({ path: p.path, message: p.message, ...(p.rule ? { rule: p.rule } : {}) });
  }

  get size(): number {
    return this.list.length;
  }
}

// ---- the key tree --------------------------------------------------------------------------------

interface Leaf {
  readonly kind: 'leaf';
  readonly path: string;
  readonly value: unknown;
}

interface Branch {
  readonly kind: 'map';
  readonly path: string;
  /** Keyed by the segment as written; relaxed matching happens where the keys are known. */
  readonly entries: Map<string, Leaf | Branch>;
}

/** `a.b.[c.d].e[0]` -> `a`, `b`, `c.d`, `e[0]`: brackets keep a map key with dots in it whole. */
function splitKey(key: string): string[] | undefined {
  const out: string[] = [];
  let i = 0;
  while (i <= key.length) {
    if (key[i] === '[') {
      const close = key.indexOf(']', i);
      if (close === -1) return undefined;
      out.push(key.slice(i + 1, close));
      i = close + 1;
      if (i < key.length && key[i] !== '.') return undefined;
      i++;
      continue;
    }
    let end = key.indexOf('.', i);
    if (end === -1) end = key.length;
    // `retry-exceptions[0]`: an index belongs to its key, dots inside it do not split.
    const bracket = key.indexOf('[', i);
    if (bracket !== -1 && bracket < end) {
      const close = key.indexOf(']', bracket);
      if (close === -1) return undefined;
      end = key.indexOf('.', close);
      if (end === -1) end = key.length;
    }
    const segment = key.slice(i, end);
    if (segment === '') return undefined;
    out.push(segment);
    i = end + 1;
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Builds one tree from nested and dotted keys; a key given twice (in either form) is an issue. */
function buildTree(value: Record<string, unknown>, issues: Issues): Branch {
  const root: Branch = { kind: 'map', path: '', entries: new Map() };
  merge(root, value, issues);
  return root;
}

function merge(into: Branch, value: Record<string, unknown>, issues: Issues): void {
  for (const [key, child] of Object.entries(value)) {
    const segments = splitKey(key);
    if (segments === undefined) {
      issues.add('invalidKey', joinPath(into.path, key));
      continue;
    }
    let node = into;
    let ok = true;
    for (const segment of segments.slice(0, -1)) {
      const existing = node.entries.get(segment);
      if (existing === undefined) {
        const branch: Branch = { kind: 'map', path: joinPath(node.path, segment), entries: new Map() };
        node.entries.set(segment, branch);
        node = branch;
      } else if (existing.kind === 'map') {
        node = existing;
      } else if (existing.value === null) {
        // `payments:` with nothing under it, then `payments.max-attempts`: an empty block.
        const branch: Branch = { kind: 'map', path: existing.path, entries: new Map() };
        node.entries.set(segment, branch);
        node = branch;
      } else {
        issues.add('valueAndKeys', existing.path, { below: joinPath(existing.path, '...') });
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    const last = segments[segments.length - 1]!;
    const path = joinPath(node.path, last);
    const existing = node.entries.get(last);
    if (isPlainObject(child)) {
      if (existing === undefined || (existing.kind === 'leaf' && existing.value === null)) {
        const branch: Branch = { kind: 'map', path, entries: new Map() };
        node.entries.set(last, branch);
        merge(branch, child, issues);
      } else if (existing.kind === 'map') {
        merge(existing, child, issues);
      } else {
        issues.add('setTwice', path);
      }
    } else if (existing === undefined || (child === null && existing.kind === 'map')) {
      if (existing === undefined) node.entries.set(last, { kind: 'leaf', path, value: child });
    } else {
      issues.add('setTwice', path);
    }
  }
}

/** Spring compares property names ignoring case, dashes and underscores (relaxed binding). */

function entriesOf(node: Leaf | Branch | undefined, issues: Issues): Map<string, Leaf | Branch> {
  if (node === undefined) return new Map();
  if (node.kind === 'map') return node.entries;
  if (node.value !== null) issues.add('notBlock', node.path, { got: describe(node.value) });
  return new Map();
}

function unknownKey(path: string, written: string, known: readonly string[], issues: Issues): void {
  if (written === '<<') issues.add('mergeKey', path);
  else issues.add('unknownKey', path, { hint: hintFor(written, known) });
}


// ---- Resilience4j, through the reader the linter uses --------------------------------------------

/** The tree below `resilience4j` as the flat properties the shared reader takes, in written order. */
function* propertiesOf(node: Leaf | Branch, segments: KeySegment<undefined>[]): Generator<ConfigProperty<undefined>> {
  if (node.kind === 'map' && node.entries.size > 0) {
    for (const [written, child] of node.entries) {
      // `retry-exceptions[0]`: the tree keeps an index with its key.
      const indexed = /^(.*)\[(\d+)\]$/.exec(written);
      const segment = indexed ? { raw: indexed[1]!, index: Number(indexed[2]), at: undefined } : { raw: written, at: undefined };
      yield* propertiesOf(child, [...segments, segment]);
    }
    return;
  }
  yield { path: segments, value: node.kind === 'map' ? { kind: 'empty' } : valueOf(node.value), at: undefined };
}

function valueOf(value: unknown): PropertyValue<undefined> {
  if (value === null || value === undefined) return { kind: 'empty' };
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return { kind: 'scalar', value, at: undefined };
  if (Array.isArray(value)) {
    if (value.length === 0) return { kind: 'empty' };
    const scalar = value.every((v) => v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean');
    return scalar ? { kind: 'list', items: value.map((v: string | number | boolean | null) => ({ value: v, at: undefined })), at: undefined } : { kind: 'other', description: 'a list of blocks', at: undefined };
  }
  return { kind: 'other', description: describe(value), at: undefined };
}

/**
 * Resilience4j's waits as a runtime policy. Where a value does not matter (one attempt has no wait,
 * two attempts have one that cannot grow) the guide's typical value fills the option the policy
 * requires; the runtime always randomises its waits.
 */
function retryOptionsOf(s: RetrySettings<undefined>): RetryData | undefined {
  const { attempts, schedule } = s;
  const { waitMs, capMs, multiplier, factor } = schedule;
  if (!isKnown(attempts) || !isKnown(waitMs) || !isKnown(capMs) || !isKnown(multiplier) || !isKnown(factor) || schedule.kind === 'custom') return undefined;
  if (s.timeout !== undefined && !(isKnown(s.timeout.ms) && s.timeout.ms > 0)) return undefined;
  const first = Math.min(waitMs, capMs);
  const initialDelayMs = first > 0 ? first : TYPICAL_FIRST_WAIT_MS;
  const growth = s.growth === 'exponential' ? multiplier : TYPICAL_MULTIPLIER;
  const randomizationFactor = s.jitter === true ? factor : RETRY_DEFAULTS.randomizationFactor;
  // Without a cap, the longest wait the schedule reaches: the runtime needs a finite one.
  const longest = initialDelayMs * growth ** Math.max(0, attempts - 2) * (1 + randomizationFactor);
  return {
    maxAttempts: attempts,
    initialDelayMs,
    multiplier: growth,
    maxDelayMs: Number.isFinite(capMs) ? Math.max(capMs, initialDelayMs) : Math.max(initialDelayMs, longest),
    jitter: 'randomized',
    randomizationFactor,
    deadlineMs: RESILIENCE4J_DEADLINE_MS,
    ...(s.timeout ? { attemptTimeoutMs: s.timeout.ms as number } : {}),
  };
}

function breakerOptionsOf(s: BreakerSettings<undefined>): BreakerData | undefined {
  const { failureRate, minimumCalls, windowSize, countBased, openMs, halfOpenCalls } = s;
  if (!isKnown(failureRate) || !isKnown(minimumCalls) || !isKnown(windowSize) || !isKnown(countBased) || !isKnown(openMs) || !isKnown(halfOpenCalls)) return undefined;
  return {
    failureRatio: failureRate / 100,
    // Resilience4j lowers the minimum to the window size for a count-based window.
    minimumThroughput: countBased ? Math.min(minimumCalls, windowSize) : minimumCalls,
    ...(countBased ? { windowCalls: windowSize } : { samplingMs: windowSize * 1000 }),
    breakMs: openMs,
    halfOpenProbes: halfOpenCalls,
  };
}

function readResilience4jSection(node: Leaf | Branch, out: ReadConfig, issues: Issues, warnings: Issues): void {
  const read = readResilience4j(propertiesOf(node, []), { mode: 'runtime' });
  for (const p of read.problems) issues.problem(p);
  for (const w of read.warnings) warnings.problem(w);
  for (const s of read.breakers) {
    if (s.block.group !== 'instances') continue;
    out.defined.breakers.add(s.block.name);
    const options = breakerOptionsOf(s);
    if (options !== undefined) out.breakers.set(s.block.name, { name: s.block.name, path: s.block.path, options });
  }
  // Configs are judged too: they are what instances (and the linter) read, and a bad template
  // should not wait for the first instance that uses it.
  for (const s of read.retry) {
    if (s.block.group === 'instances') out.defined.retry.add(s.block.name);
    const judged = judgeRetry(s);
    for (const p of judged) issues.problem(p);
    const options = judged.length === 0 ? retryOptionsOf(s) : undefined;
    if (options === undefined || s.block.group !== 'instances') continue;
    out.retry.set(s.block.name, { name: s.block.name, path: s.block.path, options, breaker: undefined, budget: undefined, pairByName: true });
  }
}

// ---- native shape --------------------------------------------------------------------------------

type Check = (value: number) => string | undefined;
interface NativeKey {
  readonly type: 'count' | 'number' | 'duration' | 'jitter' | 'name';
  readonly check?: Check;
  readonly rule?: string;
}

const RETRY_NATIVE: Record<string, NativeKey> = {
  maxAttempts: { type: 'count', check: (n) => (n >= 1 && n <= MAX_ATTEMPTS ? undefined : problem('tooManyAttempts', '', undefined, { n }).message), rule: 'R-RES-RE-3' },
  initialDelayMs: { type: 'duration', check: (n) => (n > 0 ? undefined : 'must be above 0: retrying at once is no backoff'), rule: 'R-RES-RE-X3' },
  multiplier: { type: 'number', check: (n) => (n > 1 ? undefined : `is ${n}; it must be above 1, or the waits do not grow (constant or shrinking backoff)`), rule: 'R-RES-RE-X3' },
  maxDelayMs: { type: 'duration' },
  jitter: { type: 'jitter', rule: 'R-RES-RE-X3' },
  randomizationFactor: { type: 'number', check: (n) => (n > 0 && n < 1 ? undefined : `is ${n}; it must be within (0, 1)`) },
  deadlineMs: { type: 'duration', check: (n) => (n > 0 && n <= QUEUE_MS ? undefined : `is ${formatMs(n)}; it must be in (0, ${formatMs(QUEUE_MS)}]: longer retry windows belong in a task queue`), rule: 'R-RES-RE-4' },
  attemptTimeoutMs: { type: 'duration', check: (n) => (n > 0 ? undefined : 'must be above 0') },
  maxRetryAfterMs: { type: 'duration' },
  breaker: { type: 'name' },
  budget: { type: 'name' },
};

const BREAKER_NATIVE: Record<string, NativeKey> = {
  failureRatio: { type: 'number', check: (n) => (n > 0 && n <= 1 ? undefined : `is ${n}; it must be within (0, 1]`) },
  minimumThroughput: { type: 'count', check: (n) => (n >= 1 ? undefined : 'must be at least 1') },
  samplingMs: { type: 'duration', check: (n) => (n >= 100 ? undefined : 'must be at least 100 ms') },
  windowCalls: { type: 'count', check: (n) => (n >= 1 ? undefined : 'must be at least 1') },
  breakMs: { type: 'duration', check: (n) => (n > 0 ? undefined : 'must be above 0') },
  halfOpenProbes: { type: 'count', check: (n) => (n >= 1 ? undefined : 'must be at least 1') },
};

const BUDGET_NATIVE: Record<string, NativeKey> = {
  ratio: { type: 'number', check: (n) => (n >= 0 && n <= 1 ? undefined : `is ${n}; it must be within [0, 1]`) },
  minPerSecond: { type: 'number', check: (n) => (n >= 0 ? undefined : 'must not be negative') },
  windowMs: { type: 'duration', check: (n) => (n >= 100 ? undefined : 'must be at least 100 ms') },
};

const JITTERS: readonly Jitter[] = ['full', 'equal', 'decorrelated', 'randomized'];

function readNativeEntry(node: Leaf | Branch, keys: Record<string, NativeKey>, issues: Issues): Record<string, unknown> | undefined {
  const before = issues.size;
  const out: Record<string, unknown> = {};
  for (const [key, child] of entriesOf(node, issues)) {
    const spec = Object.hasOwn(keys, key) ? keys[key] : undefined;
    if (spec === undefined) {
      unknownKey(child.path, key, Object.keys(keys), issues);
      continue;
    }
    if (child.kind === 'map') {
      issues.add('notSingle', child.path, { got: 'a block of keys' });
      continue;
    }
    if (spec.type === 'name' || spec.type === 'jitter') {
      const text = child.value;
      if (typeof text !== 'string' || text === '') {
        issues.add('notText', child.path, { got: describe(text) });
      } else if (spec.type === 'jitter' && !JITTERS.includes(text as Jitter)) {
        issues.push({
          path: child.path,
          message: `is '${text}'; jitter cannot be turned off, choose one of ${JITTERS.join(', ')}`,
          ...(spec.rule ? { rule: spec.rule } : {}),
        });
      } else {
        out[key] = text;
      }
      continue;
    }
    const value = nativeValue(spec.type, child.path, child.value, issues);
    if (value === undefined) continue;
    const problem = spec.check?.(value);
    if (problem !== undefined) {
      issues.push({ path: child.path, message: problem, ...(spec.rule ? { rule: spec.rule } : {}) });
      continue;
    }
    out[key] = value;
  }
  return issues.size > before ? undefined : out;
}

function readNative(root: Branch, out: ReadConfig, issues: Issues): void {
  const sections: [string, Record<string, NativeKey>][] = [['retry', RETRY_NATIVE], ['circuitBreaker', BREAKER_NATIVE], ['budget', BUDGET_NATIVE]];
  for (const [section, keys] of sections) {
    const node = root.entries.get(section);
    if (node === undefined) continue;
    for (const [name, entry] of entriesOf(node, issues)) {
      const defined = section === 'retry' ? out.defined.retry : section === 'circuitBreaker' ? out.defined.breakers : out.defined.budgets;
      defined.add(name);
      const options = readNativeEntry(entry, keys, issues);
      if (options === undefined) continue;
      if (section === 'retry') {
        const { breaker, budget, ...data } = options as RetryData & { breaker?: string; budget?: string };
        if (out.retry.has(name)) {
          issues.push({ path: entry.path, message: `names a retry policy already defined at ${out.retry.get(name)!.path}` });
          continue;
        }
        out.retry.set(name, { name, path: entry.path, options: data, breaker, budget, pairByName: false });
      } else if (section === 'circuitBreaker') {
        if (out.breakers.has(name)) {
          issues.push({ path: entry.path, message: `names a circuit breaker already defined at ${out.breakers.get(name)!.path}` });
          continue;
        }
        out.breakers.set(name, { name, path: entry.path, options: options as BreakerData });
      } else {
        out.budgets.set(name, { name, path: entry.path, options: options as BudgetData });
      }
    }
  }
}

// ---- entry point ---------------------------------------------------------------------------------

function nativeValue(type: 'count' | 'number' | 'duration', path: string, value: unknown, issues: Issues): number | undefined {
  if (type === 'duration') {
    const ms = parseDuration(value);
    if (typeof ms === 'string') issues.push({ path, message: ms });
    else if (ms < 0) issues.push({ path, message: `must not be negative, got ${String(value)}` });
    else return ms;
    return undefined;
  }
  const n = parseNumber(value);
  if (n === undefined) issues.add('notNumber', path, { got: describe(value) });
  else if (type === 'count' && !Number.isInteger(n)) issues.add('notWhole', path, { value: String(value) });
  else return n;
  return undefined;
}


// ---- entry point ---------------------------------------------------------------------------------

const ROOT_KEYS = ['resilience4j', 'retry', 'circuitBreaker', 'budget'];

/**
 * Reads a whole configuration. The caller builds nothing unless `issues` is empty: a config is
 * accepted or rejected as a whole.
 */
export function readPolicyConfig(config: unknown): ReadConfig {
  const out: ReadConfig = {
    retry: new Map(),
    breakers: new Map(),
    budgets: new Map(),
    issues: [],
    warnings: [],
    defined: { retry: new Set(), breakers: new Set(), budgets: new Set() },
  };
  const issues = new Issues(out.issues);
  const warnings = new Issues(out.warnings);
  if (!isPlainObject(config)) {
    issues.push({ path: '(root)', message: `must be a plain object (parsed JSON or YAML), got ${describe(config)}` });
    return out;
  }
  const root = buildTree(config, issues);
  for (const [key, node] of root.entries) {
    if (key.replace(/[-_]/g, '').toLowerCase() === 'resilience4j') readResilience4jSection(node, out, issues, warnings);
    else if (!ROOT_KEYS.includes(key)) {
      if (isNear(key, ROOT_KEYS)) unknownKey(node.path, key, ROOT_KEYS, issues);
      else {
        issues.push({
          path: node.path,
          message: `is not a section the registry reads (${ROOT_KEYS.join(', ')}); pass only those, e.g. createPolicyRegistry({ resilience4j: doc.resilience4j })`,
        });
      }
    }
  }
  readNative(root, out, issues);

  // Spring pairs @Retry and @CircuitBreaker by name; so does the registry, and it extends the
  // pairing to a native `budget.<name>`, which Resilience4j has no key for.
  for (const [name, spec] of out.retry) {
    if (!spec.pairByName) continue;
    out.retry.set(name, {
      ...spec,
      breaker: out.breakers.has(name) ? name : undefined,
      budget: out.budgets.has(name) ? name : undefined,
    });
  }
  for (const spec of out.retry.values()) {
    if (spec.breaker !== undefined && !out.breakers.has(spec.breaker)) {
      issues.push({ path: joinPath(spec.path, 'breaker'), message: `names '${spec.breaker}', which is not a circuit breaker in this configuration` });
    }
    if (spec.budget !== undefined && !out.budgets.has(spec.budget)) {
      issues.push({ path: joinPath(spec.path, 'budget'), message: `names '${spec.budget}', which is not a budget in this configuration` });
    }
    guard(spec.path, () => createRetryPolicy(spec.options), issues);
  }
  for (const spec of out.breakers.values()) guard(spec.path, () => createCircuitBreaker(spec.options), issues);
  for (const spec of out.budgets.values()) guard(spec.path, () => createRetryBudget(spec.options), issues);
  return out;
}

/** The constructors are the final word on what is valid; a combination the reader let through is still caught here. */
function guard(path: string, build: () => unknown, issues: Issues): void {
  try {
    build();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const rule = /\((R-RES-[A-Z0-9-]+)/.exec(message)?.[1];
    issues.push({ path, message: `is rejected by the runtime: ${message}`, ...(rule ? { rule } : {}) });
  }
}
