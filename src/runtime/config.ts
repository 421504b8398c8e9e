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
export const RESILIENCE4J_DEADLINE_MS = 5000;

// ---- values, converted the way Spring Boot converts them ------------------------------------------

const SIMPLE_DURATION = /^([+-]?\d+)(ns|us|ms|s|m|h|d)?$/i;
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const ISO_DURATION = /^([+-])?P(?:([+-]?\d+)D)?(?:T(?:([+-]?\d+)H)?(?:([+-]?\d+)M)?(?:([+-]?)(\d+)(?:[.,](\d{0,9}))?S)?)?$/i;

/** Milliseconds, or a reason the value is not a duration. */
export function parseDuration(value: unknown): number | string {
  if (typeof value === 'number') return Number.isFinite(value) ? value : 'is not a finite number of milliseconds';
  if (typeof value !== 'string') return `must be a duration such as 500ms, 2s or PT0.5S, got ${describe(value)}`;
  const text = value.trim();
  const simple = SIMPLE_DURATION.exec(text);
  if (simple) return Number(simple[1]) * UNIT_MS[(simple[2] ?? 'ms').toLowerCase()]!;
  const iso = ISO_DURATION.exec(text);
  // `P` and `PT` alone match the pattern but say nothing; Java's Duration.parse rejects them.
  if (iso && !/^[+-]?PT?$/i.test(text)) {
    const [, sign, d, h, m, secondsSign, s, fraction] = iso;
    const seconds = Number(s ?? 0) + (fraction ? Number(`0.${fraction}`) : 0);
    const ms = Number(d ?? 0) * 86_400_000 + Number(h ?? 0) * 3_600_000 + Number(m ?? 0) * 60_000 + (secondsSign === '-' ? -seconds : seconds) * 1000;
    return sign === '-' ? -ms : ms;
  }
  if (/^\d*\.\d+\s*[a-z]+$/i.test(text)) return `${JSON.stringify(value)} is not a duration Spring accepts (no fractions with units); write it as ${fractionHint(text)}`;
  return `${JSON.stringify(value)} is not a duration; write 500ms, 2s, 1m or an ISO-8601 duration such as PT0.5S`;
}

function fractionHint(text: string): string {
  const match = /^(\d*\.\d+)\s*([a-z]+)$/i.exec(text);
  const factor = match ? UNIT_MS[match[2]!.toLowerCase()] : undefined;
  if (!match || factor === undefined) return 'milliseconds or an ISO-8601 duration';
  return `${Math.round(Number(match[1]) * factor)}ms or PT${Number(match[1]) * (factor / 1000)}S`;
}

/** Spring's string-to-boolean conversion. */
function parseBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase();
  if (text === 'true' || text === 'on' || text === 'yes' || text === '1') return true;
  if (text === 'false' || text === 'off' || text === 'no' || text === '0') return false;
  return undefined;
}

function parseNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(value)) return Number(value);
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null (no value)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return JSON.stringify(value) ?? String(value);
}

function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${Number((ms / 1000).toFixed(2))} s`;
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

function joinPath(prefix: string, segment: string): string {
  const written = segment.includes('.') ? `[${segment}]` : segment;
  return prefix === '' ? written : `${prefix}.${written}`;
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
      issues.push({ path: joinPath(into.path, key), message: 'is not a valid key (empty segment or unbalanced brackets)' });
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
        issues.push({ path: existing.path, message: `holds a value and also keys below it (${joinPath(existing.path, '...')})` });
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
        issues.push({ path, message: 'is set twice, once as a value and once as a block' });
      }
    } else if (existing === undefined || (child === null && existing.kind === 'map')) {
      if (existing === undefined) node.entries.set(last, { kind: 'leaf', path, value: child });
    } else {
      issues.push({ path, message: 'is set twice (nested and as a dotted key, or in two spellings)' });
    }
  }
}

/** Spring compares property names ignoring case, dashes and underscores (relaxed binding). */
function uniform(key: string): string {
  return key.replace(/[-_]/g, '').toLowerCase();
}

function entriesOf(node: Leaf | Branch | undefined, issues: Issues): Map<string, Leaf | Branch> {
  if (node === undefined) return new Map();
  if (node.kind === 'map') return node.entries;
  if (node.value !== null) issues.push({ path: node.path, message: `must be a block of keys, got ${describe(node.value)}` });
  return new Map();
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

function unknownKey(path: string, written: string, known: readonly string[]): PolicyConfigIssue {
  if (written === '<<') {
    return { path, message: 'is a YAML merge key the parser left unresolved; parse with merge keys on (yaml: parse(text, { merge: true }))' };
  }
  const target = uniform(written);
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const d = distance(target, uniform(candidate));
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const hint = best === undefined ? `known keys: ${known.join(', ')}` : `did you mean ${best}?`;
  return { path, message: `is not a known key (${hint}); a misspelt limit must not be silently ignored` };
}

// ---- Resilience4j --------------------------------------------------------------------------------

type Role = 'applied' | 'ignored' | 'rejected';
interface KeyInfo {
  readonly name: string;
  readonly role: Role;
  /** For ignored and rejected keys: why. */
  readonly note?: string;
}

function keyTable(entries: readonly KeyInfo[]): Map<string, KeyInfo> {
  return new Map(entries.map((e) => [uniform(e.name), e]));
}

const JAVA_CLASSES = 'names Java classes; the runtime classifies errors itself (network errors, timeouts, 408, 429, 5xx; never other 4xx) and code can narrow that with retryOn';
const RETRY_KEYS = keyTable([
  { name: 'base-config', role: 'applied' },
  { name: 'max-attempts', role: 'applied' },
  { name: 'max-retry-attempts', role: 'applied' },
  { name: 'wait-duration', role: 'applied' },
  { name: 'enable-exponential-backoff', role: 'applied' },
  { name: 'exponential-backoff-multiplier', role: 'applied' },
  { name: 'exponential-max-wait-duration', role: 'applied' },
  { name: 'enable-randomized-wait', role: 'applied' },
  { name: 'randomized-wait-factor', role: 'applied' },
  { name: 'retry-exceptions', role: 'ignored', note: JAVA_CLASSES },
  { name: 'ignore-exceptions', role: 'ignored', note: JAVA_CLASSES },
  { name: 'retry-exception-predicate', role: 'ignored', note: JAVA_CLASSES },
  { name: 'result-predicate', role: 'ignored', note: JAVA_CLASSES },
  { name: 'fail-after-max-attempts', role: 'ignored', note: 'the runtime always rejects with the last error once it gives up' },
  { name: 'consume-result-before-retry-attempt', role: 'ignored', note: 'the runtime releases an unread response body before every retry' },
  { name: 'event-consumer-buffer-size', role: 'ignored', note: 'use onRetry / onGiveUp or metrics' },
  { name: 'writable-stack-trace-enabled', role: 'ignored', note: 'JavaScript errors keep their stack' },
  { name: 'interval-bi-function', role: 'rejected', note: 'a Java interval function cannot set a Node policy\'s waits; use enable-exponential-backoff with enable-randomized-wait' },
]);

const BREAKER_KEYS = keyTable([
  { name: 'base-config', role: 'applied' },
  { name: 'failure-rate-threshold', role: 'applied' },
  { name: 'minimum-number-of-calls', role: 'applied' },
  { name: 'sliding-window-type', role: 'applied' },
  { name: 'sliding-window-size', role: 'applied' },
  { name: 'wait-duration-in-open-state', role: 'applied' },
  { name: 'permitted-number-of-calls-in-half-open-state', role: 'applied' },
  { name: 'automatic-transition-from-open-to-half-open-enabled', role: 'ignored', note: 'the breaker lets probes through as soon as the open wait is over' },
  { name: 'record-exceptions', role: 'ignored', note: JAVA_CLASSES },
  { name: 'ignore-exceptions', role: 'ignored', note: JAVA_CLASSES },
  { name: 'record-failure-predicate', role: 'ignored', note: JAVA_CLASSES },
  { name: 'record-result-predicate', role: 'ignored', note: JAVA_CLASSES },
  { name: 'ignore-exception-predicate', role: 'ignored', note: JAVA_CLASSES },
  { name: 'slow-call-rate-threshold', role: 'ignored', note: 'the breaker does not count slow calls; give attempts a timeout (resilience4j.timelimiter) instead' },
  { name: 'slow-call-duration-threshold', role: 'ignored', note: 'the breaker does not count slow calls; give attempts a timeout (resilience4j.timelimiter) instead' },
  { name: 'max-wait-duration-in-half-open-state', role: 'ignored', note: 'half-open lasts until the probes report' },
  { name: 'enable-exponential-backoff', role: 'ignored', note: 'the open state lasts wait-duration-in-open-state every time' },
  { name: 'exponential-backoff-multiplier', role: 'ignored', note: 'the open state lasts wait-duration-in-open-state every time' },
  { name: 'exponential-max-wait-duration-in-open-state', role: 'ignored', note: 'the open state lasts wait-duration-in-open-state every time' },
  { name: 'enable-randomized-wait', role: 'ignored', note: 'the open state lasts wait-duration-in-open-state every time' },
  { name: 'randomized-wait-factor', role: 'ignored', note: 'the open state lasts wait-duration-in-open-state every time' },
  { name: 'register-health-indicator', role: 'ignored', note: 'Spring Actuator only' },
  { name: 'allow-health-indicator-to-fail', role: 'ignored', note: 'Spring Actuator only' },
  { name: 'event-consumer-buffer-size', role: 'ignored', note: 'use onStateChange or metrics' },
  { name: 'writable-stack-trace-enabled', role: 'ignored', note: 'JavaScript errors keep their stack' },
]);

const TIME_LIMITER_KEYS = keyTable([
  { name: 'base-config', role: 'applied' },
  { name: 'timeout-duration', role: 'applied' },
  { name: 'cancel-running-future', role: 'ignored', note: 'an attempt that times out always has its ctx.signal aborted' },
  { name: 'event-consumer-buffer-size', role: 'ignored', note: 'use metrics' },
]);

interface ModuleInfo {
  readonly name: string;
  readonly keys: Map<string, KeyInfo>;
  readonly aspectOrder: string;
}
const MODULES: Record<string, ModuleInfo> = {
  retry: { name: 'retry', keys: RETRY_KEYS, aspectOrder: 'retry-aspect-order' },
  circuitbreaker: { name: 'circuitbreaker', keys: BREAKER_KEYS, aspectOrder: 'circuit-breaker-aspect-order' },
  timelimiter: { name: 'timelimiter', keys: TIME_LIMITER_KEYS, aspectOrder: 'time-limiter-aspect-order' },
};
const OTHER_MODULES = ['bulkhead', 'thread-pool-bulkhead', 'ratelimiter'];
const RESILIENCE4J_KEYS = ['retry', 'circuitbreaker', 'timelimiter', ...OTHER_MODULES];

interface Prop {
  readonly path: string;
  readonly value: unknown;
}

interface Block {
  readonly module: ModuleInfo;
  readonly group: 'instances' | 'configs';
  readonly name: string;
  readonly path: string;
  /** By uniform property name. */
  readonly props: Map<string, Prop>;
}

interface ModuleBlocks {
  readonly instances: Map<string, Block>;
  readonly configs: Map<string, Block>;
}

function readModule(node: Leaf | Branch, module: ModuleInfo, issues: Issues, warnings: Issues): ModuleBlocks {
  const out: ModuleBlocks = { instances: new Map(), configs: new Map() };
  const known = ['instances', 'configs', 'backends', module.aspectOrder, 'metrics', 'tags'];
  for (const [written, child] of entriesOf(node, issues)) {
    const key = uniform(written);
    if (key === 'instances' || key === 'backends' || key === 'configs') {
      const group = key === 'configs' ? 'configs' : 'instances';
      for (const [name, blockNode] of entriesOf(child, issues)) {
        if (out[group].has(name)) {
          issues.push({ path: joinPath(child.path, name), message: `is defined twice (under instances and under the legacy backends)` });
          continue;
        }
        out[group].set(name, readBlock(blockNode, module, group, name, issues, warnings));
      }
    } else if (key === uniform(module.aspectOrder) || key === 'metrics' || key === 'tags') {
      warnings.push({ path: child.path, message: 'has no effect in the Node runtime (Spring only; for metrics see enableMetrics())' });
    } else {
      issues.push(unknownKey(child.path, written, known));
    }
  }
  return out;
}

function readBlock(node: Leaf | Branch, module: ModuleInfo, group: Block['group'], name: string, issues: Issues, warnings: Issues): Block {
  const props = new Map<string, Prop>();
  const known = [...module.keys.values()].map((k) => k.name);
  for (const [written, child] of entriesOf(node, issues)) {
    // `retry-exceptions[0]: ...` is one item of a list written key by key.
    const indexed = /^(.*)\[\d+\]$/.exec(written);
    const base = indexed ? indexed[1]! : written;
    const info = module.keys.get(uniform(base));
    if (info === undefined) {
      issues.push(unknownKey(child.path, base, known));
      continue;
    }
    if (info.role === 'rejected') {
      issues.push({ path: child.path, message: `is not supported: ${info.note!}` });
      continue;
    }
    if (info.role === 'ignored') {
      warnings.push({ path: joinPath(node.path, base), message: `has no effect in the Node runtime: ${info.note!}` });
      continue;
    }
    if (indexed || child.kind === 'map') {
      issues.push({ path: child.path, message: `must be a single value, got ${indexed ? 'a list item' : 'a block of keys'}` });
      continue;
    }
    const key = uniform(info.name === 'max-retry-attempts' ? 'max-attempts' : info.name);
    if (props.has(key)) {
      issues.push({ path: child.path, message: `is set twice (also as ${props.get(key)!.path})` });
      continue;
    }
    props.set(key, { path: child.path, value: child.value });
  }
  return { module, group, name, path: node.path, props };
}

/** The block and the blocks it inherits from, nearest first: its base-config chain, or configs.default. */
function chainOf(block: Block, blocks: ModuleBlocks, issues: Issues): Block[] {
  const chain = [block];
  let current = block;
  for (;;) {
    const base = current.props.get('baseconfig');
    let next: Block | undefined;
    if (base !== undefined) {
      if (typeof base.value !== 'string' || base.value === '') {
        issues.push({ path: base.path, message: `must name a config under resilience4j.${block.module.name}.configs, got ${describe(base.value)}` });
        return chain;
      }
      next = blocks.configs.get(base.value);
      if (next === undefined) {
        issues.push({ path: base.path, message: `names '${base.value}', which is not a config under resilience4j.${block.module.name}.configs (Spring fails to start on this too)` });
        return chain;
      }
    } else if (!(current.group === 'configs' && current.name === 'default')) {
      next = blocks.configs.get('default');
    }
    if (next === undefined) return chain;
    if (chain.includes(next)) {
      issues.push({ path: base?.path ?? current.path, message: `base-config chain loops back to '${next.name}'` });
      return chain;
    }
    chain.push(next);
    current = next;
  }
}

function lookup(chain: readonly Block[], key: string): Prop | undefined {
  for (const block of chain) {
    const prop = block.props.get(key);
    if (prop !== undefined) return prop;
  }
  return undefined;
}

function durationProp(prop: Prop, issues: Issues): number | undefined {
  const ms = parseDuration(prop.value);
  if (typeof ms === 'string') {
    issues.push({ path: prop.path, message: placeholder(prop.value) ?? ms });
    return undefined;
  }
  if (ms < 0) {
    issues.push({ path: prop.path, message: `must not be negative, got ${String(prop.value)}` });
    return undefined;
  }
  return ms;
}

function numberProp(prop: Prop, issues: Issues): number | undefined {
  const n = parseNumber(prop.value);
  if (n === undefined) issues.push({ path: prop.path, message: placeholder(prop.value) ?? `must be a number, got ${describe(prop.value)}` });
  return n;
}

function integerProp(prop: Prop, issues: Issues): number | undefined {
  const n = numberProp(prop, issues);
  if (n !== undefined && !Number.isInteger(n)) {
    issues.push({ path: prop.path, message: `must be a whole number, got ${String(prop.value)}` });
    return undefined;
  }
  return n;
}

function booleanProp(prop: Prop, issues: Issues): boolean | undefined {
  const b = parseBoolean(prop.value);
  if (b === undefined) issues.push({ path: prop.path, message: placeholder(prop.value) ?? `must be true or false, got ${describe(prop.value)}` });
  return b;
}

function placeholder(value: unknown): string | undefined {
  if (typeof value === 'string' && value.includes('${')) {
    return `is a Spring placeholder (${value}); resolve placeholders before passing the config, e.g. from process.env`;
  }
  return undefined;
}

/**
 * One Resilience4j retry block, inherited values resolved, as RetryPolicyOptions. The reading follows
 * CommonRetryConfigurationProperties: exponential (and randomised) waits only when a wait-duration
 * is set somewhere in the chain; without one Spring installs no interval function and every wait is
 * a fixed 500 ms. The runtime refuses fixed waits and waits without jitter (R-RES-RE-X3), so those
 * are errors here, as they are findings for the linter.
 */
function retryOptionsOf(block: Block, chain: readonly Block[], timeLimiter: { timeoutMs: number; path: string } | undefined, issues: Issues): RetryData | undefined {
  const before = issues.size;
  const at = (key: string) => joinPath(block.path, key);
  const get = (key: string) => lookup(chain, uniform(key));

  const attemptsProp = get('max-attempts');
  let maxAttempts = 3;
  if (attemptsProp !== undefined) {
    const n = integerProp(attemptsProp, issues);
    if (n === 0) {
      issues.push({ path: attemptsProp.path, message: 'is 0, which Resilience4j reads as "not set" (3 attempts); write the number of attempts you mean, 1 for no retry' });
    } else if (n !== undefined && (n < 1 || n > 5)) {
      issues.push({
        path: attemptsProp.path,
        message: `is ${n}; attempts (the first call included) must be 1..5, and more than 5 belongs in a task queue`,
        rule: 'R-RES-RE-3',
      });
    } else if (n !== undefined) {
      maxAttempts = n;
    }
  }

  const waitProp = get('wait-duration');
  let wait = 500;
  if (waitProp !== undefined) {
    const ms = durationProp(waitProp, issues);
    if (ms === 0) {
      issues.push({ path: waitProp.path, message: 'is 0: Resilience4j then retries at once, with no backoff at all', rule: 'R-RES-RE-X3' });
    } else if (ms !== undefined) {
      wait = ms;
    }
  }

  const expProp = get('enable-exponential-backoff');
  const exponential = expProp === undefined ? false : booleanProp(expProp, issues);
  if (exponential === false) {
    issues.push({
      path: expProp?.path ?? at('enable-exponential-backoff'),
      message: expProp === undefined
        ? 'is not set, so Resilience4j waits the same time before every retry; set enable-exponential-backoff: true'
        : 'turns exponential backoff off; constant waits hit a recovering dependency in step',
      rule: 'R-RES-RE-X3',
    });
  }
  const randomProp = get('enable-randomized-wait');
  const randomized = randomProp === undefined ? false : booleanProp(randomProp, issues);
  if (randomized === false) {
    issues.push({
      path: randomProp?.path ?? at('enable-randomized-wait'),
      message: randomProp === undefined
        ? 'is not set, so every client waits exactly the same time and they come back together; set enable-randomized-wait: true'
        : 'turns jitter off; without randomness all clients come back in step',
      rule: 'R-RES-RE-X3',
    });
  }
  if ((exponential === true || randomized === true) && waitProp === undefined) {
    issues.push({
      path: at('wait-duration'),
      message: 'is not set anywhere in the chain, so Resilience4j installs no interval function: enable-exponential-backoff and enable-randomized-wait do nothing and every wait is a fixed 500 ms; set wait-duration',
      rule: 'R-RES-RE-X3',
    });
  }

  const multiplierProp = get('exponential-backoff-multiplier');
  let multiplier = 1.5;
  if (multiplierProp !== undefined) {
    const m = numberProp(multiplierProp, issues);
    if (m !== undefined && !(m > 1)) {
      issues.push({ path: multiplierProp.path, message: `is ${m}; it must be above 1, or the waits do not grow (constant or shrinking backoff)`, rule: 'R-RES-RE-X3' });
    } else if (m !== undefined) {
      multiplier = m;
    }
  }

  const factorProp = get('randomized-wait-factor');
  let factor = 0.5;
  if (factorProp !== undefined) {
    const f = numberProp(factorProp, issues);
    if (f !== undefined && !(f > 0 && f < 1)) {
      issues.push({
        path: factorProp.path,
        message: f === 0 ? 'is 0, which leaves no randomness in the waits' : `is ${f}; it must be within (0, 1)`,
        ...(f === 0 ? { rule: 'R-RES-RE-X3' } : {}),
      });
    } else if (f !== undefined) {
      factor = f;
    }
  }

  const maxWaitProp = get('exponential-max-wait-duration');
  let maxWait: number | undefined;
  if (maxWaitProp !== undefined) {
    const ms = durationProp(maxWaitProp, issues);
    if (ms !== undefined && ms < wait) {
      issues.push({ path: maxWaitProp.path, message: `(${formatMs(ms)}) is below wait-duration (${formatMs(wait)}), so the waits could not grow`, rule: 'R-RES-RE-X3' });
    } else if (ms !== undefined) {
      maxWait = ms;
    }
  }

  if (issues.size > before) return undefined;

  // Without a cap, the longest wait the schedule reaches: the runtime needs a finite one.
  const longest = wait * multiplier ** Math.max(0, maxAttempts - 2) * (1 + factor);
  const maxDelayMs = maxWait ?? Math.max(wait, longest);
  let worst = 0;
  for (let retry = 1; retry < maxAttempts; retry++) {
    const ceiling = Math.min(maxDelayMs, wait * multiplier ** (retry - 1));
    worst += Math.min(maxDelayMs, ceiling * (1 + factor));
  }
  const attemptTime = timeLimiter === undefined ? 0 : maxAttempts * timeLimiter.timeoutMs;
  if (worst + attemptTime > RESILIENCE4J_DEADLINE_MS) {
    const parts = `waits up to ${formatMs(worst)}${timeLimiter ? ` plus ${maxAttempts} attempts x ${formatMs(timeLimiter.timeoutMs)} (${timeLimiter.path})` : ''}`;
    issues.push({
      path: block.path,
      message: `can spend up to ${formatMs(worst + attemptTime)} retrying in memory (${parts}), above ${formatMs(RESILIENCE4J_DEADLINE_MS)}; lower max-attempts, wait-duration or exponential-max-wait-duration, or move the work to a task queue`,
      rule: 'R-RES-RE-4',
    });
    return undefined;
  }

  return {
    maxAttempts,
    initialDelayMs: wait,
    multiplier,
    maxDelayMs,
    jitter: 'randomized',
    randomizationFactor: factor,
    deadlineMs: RESILIENCE4J_DEADLINE_MS,
    ...(timeLimiter ? { attemptTimeoutMs: timeLimiter.timeoutMs } : {}),
  };
}

function breakerOptionsOf(chain: readonly Block[], issues: Issues): BreakerData | undefined {
  const before = issues.size;
  const get = (key: string) => lookup(chain, uniform(key));
  // Resilience4j's CircuitBreakerConfig defaults.
  let failureRate = 50;
  let minimumCalls = 100;
  let windowSize = 100;
  let countBased = true;
  let openMs = 60_000;
  let halfOpenCalls = 10;

  const rate = get('failure-rate-threshold');
  if (rate !== undefined) {
    const n = numberProp(rate, issues);
    if (n !== undefined && !(n > 0 && n <= 100)) issues.push({ path: rate.path, message: `is ${n}; a percentage in (0, 100] is expected` });
    else if (n !== undefined) failureRate = n;
  }
  const positive = (key: string, fallback: number): number => {
    const prop = get(key);
    if (prop === undefined) return fallback;
    const n = integerProp(prop, issues);
    if (n !== undefined && n < 1) issues.push({ path: prop.path, message: `is ${n}; a positive whole number is expected` });
    return n !== undefined && n >= 1 ? n : fallback;
  };
  minimumCalls = positive('minimum-number-of-calls', minimumCalls);
  windowSize = positive('sliding-window-size', windowSize);
  halfOpenCalls = positive('permitted-number-of-calls-in-half-open-state', halfOpenCalls);
  const type = get('sliding-window-type');
  if (type !== undefined) {
    const text = typeof type.value === 'string' ? type.value.trim().toUpperCase().replace(/-/g, '_') : '';
    if (text === 'TIME_BASED') countBased = false;
    else if (text !== 'COUNT_BASED') issues.push({ path: type.path, message: `must be COUNT_BASED or TIME_BASED, got ${describe(type.value)}` });
  }
  const open = get('wait-duration-in-open-state');
  if (open !== undefined) {
    const ms = durationProp(open, issues);
    if (ms === 0) issues.push({ path: open.path, message: 'is 0: an open breaker would let traffic through at once' });
    else if (ms !== undefined) openMs = ms;
  }
  if (issues.size > before) return undefined;
  return {
    failureRatio: failureRate / 100,
    // Resilience4j lowers the minimum to the window size for a count-based window.
    minimumThroughput: countBased ? Math.min(minimumCalls, windowSize) : minimumCalls,
    ...(countBased ? { windowCalls: windowSize } : { samplingMs: windowSize * 1000 }),
    breakMs: openMs,
    halfOpenProbes: halfOpenCalls,
  };
}

function timeLimiterOf(name: string, blocks: ModuleBlocks | undefined, issues: Issues): { timeoutMs: number; path: string } | undefined {
  const block = blocks?.instances.get(name);
  if (block === undefined || blocks === undefined) return undefined;
  const prop = lookup(chainOf(block, blocks, issues), 'timeoutduration');
  // TimeLimiterConfig's default when an instance exists without a timeout.
  if (prop === undefined) return { timeoutMs: 1000, path: joinPath(block.path, 'timeout-duration') };
  const ms = durationProp(prop, issues);
  if (ms === undefined) return undefined;
  if (ms === 0) {
    issues.push({ path: prop.path, message: 'is 0: every attempt would time out at once' });
    return undefined;
  }
  return { timeoutMs: ms, path: prop.path };
}

function readResilience4j(node: Leaf | Branch, out: ReadConfig, issues: Issues, warnings: Issues): void {
  const blocks: Partial<Record<string, ModuleBlocks>> = {};
  for (const [written, child] of entriesOf(node, issues)) {
    const key = uniform(written);
    const module = MODULES[key];
    if (module !== undefined) {
      blocks[module.name] = readModule(child, module, issues, warnings);
    } else if (OTHER_MODULES.some((m) => uniform(m) === key)) {
      warnings.push({ path: child.path, message: 'is not applied by the Node runtime (it builds retries, circuit breakers and attempt timeouts)' });
    } else {
      issues.push(unknownKey(child.path, written, RESILIENCE4J_KEYS));
    }
  }

  const retry = blocks['retry'];
  const breakers = blocks['circuitbreaker'];
  const limiters = blocks['timelimiter'];
  if (limiters !== undefined) {
    for (const block of [...limiters.configs.values(), ...limiters.instances.values()]) {
      chainOf(block, limiters, issues);
      const timeout = block.props.get('timeoutduration');
      if (timeout !== undefined) durationProp(timeout, issues);
    }
  }
  if (breakers !== undefined) {
    for (const block of [...breakers.configs.values(), ...breakers.instances.values()]) {
      if (block.group === 'instances') out.defined.breakers.add(block.name);
      const options = breakerOptionsOf(chainOf(block, breakers, issues), issues);
      if (options !== undefined && block.group === 'instances') {
        out.breakers.set(block.name, { name: block.name, path: block.path, options });
      }
    }
  }
  if (retry !== undefined) {
    // Configs are judged too: they are what instances (and the linter) read, and a bad template
    // should not wait for the first instance that uses it.
    for (const block of retry.configs.values()) retryOptionsOf(block, chainOf(block, retry, issues), undefined, issues);
    for (const block of retry.instances.values()) {
      out.defined.retry.add(block.name);
      const limiter = timeLimiterOf(block.name, limiters, issues);
      const options = retryOptionsOf(block, chainOf(block, retry, issues), limiter, issues);
      if (options === undefined) continue;
      out.retry.set(block.name, { name: block.name, path: block.path, options, breaker: undefined, budget: undefined, pairByName: true });
    }
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
  maxAttempts: { type: 'count', check: (n) => (n >= 1 && n <= 5 ? undefined : `is ${n}; attempts (the first call included) must be 1..5, and more than 5 belongs in a task queue`), rule: 'R-RES-RE-3' },
  initialDelayMs: { type: 'duration', check: (n) => (n > 0 ? undefined : 'must be above 0: retrying at once is no backoff'), rule: 'R-RES-RE-X3' },
  multiplier: { type: 'number', check: (n) => (n > 1 ? undefined : `is ${n}; it must be above 1, or the waits do not grow (constant or shrinking backoff)`), rule: 'R-RES-RE-X3' },
  maxDelayMs: { type: 'duration' },
  jitter: { type: 'jitter', rule: 'R-RES-RE-X3' },
  randomizationFactor: { type: 'number', check: (n) => (n > 0 && n < 1 ? undefined : `is ${n}; it must be within (0, 1)`) },
  deadlineMs: { type: 'duration', check: (n) => (n > 0 && n <= 30_000 ? undefined : `is ${formatMs(n)}; it must be in (0, 30 s]: longer retry windows belong in a task queue`), rule: 'R-RES-RE-4' },
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
      issues.push(unknownKey(child.path, key, Object.keys(keys)));
      continue;
    }
    if (child.kind === 'map') {
      issues.push({ path: child.path, message: 'must be a single value, got a block of keys' });
      continue;
    }
    const prop = { path: child.path, value: child.value };
    if (spec.type === 'name' || spec.type === 'jitter') {
      const text = child.value;
      if (typeof text !== 'string' || text === '') {
        issues.push({ path: child.path, message: `must be a name, got ${describe(text)}` });
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
    const value = spec.type === 'duration' ? durationProp(prop, issues) : spec.type === 'count' ? integerProp(prop, issues) : numberProp(prop, issues);
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
    if (uniform(key) === 'resilience4j') readResilience4j(node, out, issues, warnings);
    else if (!ROOT_KEYS.includes(key)) {
      const near = ROOT_KEYS.some((k) => distance(uniform(key), uniform(k)) <= 2);
      issues.push(near ? unknownKey(node.path, key, ROOT_KEYS) : {
        path: node.path,
        message: `is not a section the registry reads (${ROOT_KEYS.join(', ')}); pass only those, e.g. createPolicyRegistry({ resilience4j: doc.resilience4j })`,
      });
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
