/**
 * Resilience4j retry configuration in Spring Boot YAML (`application*.yml`) as RetrySite values,
 * so the same rules judge it with the same messages.
 *
 * `resilience4j.retry.instances.<name>` (or the legacy `backends`) and
 * `resilience4j.retry.configs.<name>`, nested or dotted, are sites. Inheritance follows
 * CommonRetryConfigurationProperties: an instance or config takes every property it does not set
 * from its `base-config`, or else from `configs.default`; RetryConfig's defaults fill the rest
 * (3 attempts counting the first, 500 ms fixed wait, every exception retried). Backoff follows
 * configureRetryIntervalFunction: exponential only when `enable-exponential-backoff` is true AND
 * a `wait-duration` is set somewhere in the chain (without one, Spring installs no interval
 * function and the wait stays a fixed 500 ms); multiplier 1.5 and randomisation factor 0.5 by
 * default (IntervalFunction's defaults).
 */
import type { TSESLint } from '@typescript-eslint/utils';
import type { ClientErrorInclusion, ErrorFilter, Node, RetrySite, Setting } from '../model.js';
import { geometricSchedule, growthOfFactor, customSchedule } from '../schedule.js';
import { UNKNOWN, type Maybe } from '../static-value.js';
import { site } from '../libraries/shared.js';
import { readDocuments, spanNode, type Leaf, type PropertyDocument, type YNode } from './tree.js';
import { booleanOf, durationMs, integerOf, numberOf } from './values.js';

const DEFAULTS = { maxAttempts: 3, waitMs: 500, multiplier: 1.5, randomizationFactor: 0.5 };
const GROUPS: Record<string, 'instances' | 'configs'> = { instances: 'instances', backends: 'instances', configs: 'configs' };
const MODULES = new Set(['retry', 'timelimiter', 'circuitbreaker']);
const PROFILE_FILE = /(^|[\\/])(application|bootstrap)-[^\\/]+\.ya?ml$/i;

interface Item {
  readonly text: string;
  readonly node: Node;
}

interface Prop {
  readonly leaf: Leaf;
  /** The value as Spring would see a scalar (string, number, boolean); undefined for lists. */
  readonly value: unknown;
  /** List items (sequence entries, comma-separated parts or indexed keys). */
  readonly items: readonly Item[];
  /** `max-attempts: 10`: the property name through its value, the squiggle for a finding. */
  readonly node: Node;
}

interface Block {
  readonly module: string;
  readonly group: 'instances' | 'configs';
  readonly name: string;
  /** Where the name is written, first occurrence in the view (preferring the overlay document). */
  nameNode: Node;
  readonly props: Map<string, Prop>;
  readonly documents: Set<number>;
}

type Blocks = Map<string, Block>;
const blockKey = (module: string, group: string, name: string) => `${module}\u0000${group}\u0000${name}`;

/** The Resilience4j retry sites of a YAML file; never throws on a valid document. */
export function findResilience4jSites(sourceCode: Readonly<TSESLint.SourceCode>, filename = 'application.yml'): RetrySite[] {
  // application-prod.yml overrides application.yml: what it leaves out is set elsewhere, not defaulted.
  const partialFile = PROFILE_FILE.test(filename);
  const program = sourceCode.ast as unknown as YNode;
  const documents = readDocuments(program);
  const base = documents.filter((d) => d.profile === undefined);
  const sites: RetrySite[] = [];
  const baseView = buildView(sourceCode, base, undefined);
  sites.push(...sitesOf(baseView, () => true, partialFile));
  // A profile document is an overlay: judge the instances it touches with the base beneath.
  for (const doc of documents.filter((d) => d.profile !== undefined)) {
    const view = buildView(sourceCode, [...base, doc], doc.index);
    sites.push(...sitesOf(view, (block) => block.documents.has(doc.index), partialFile));
  }
  return sites;
}

function buildView(sourceCode: Readonly<TSESLint.SourceCode>, documents: readonly PropertyDocument[], overlay: number | undefined): Blocks {
  const blocks: Blocks = new Map();
  const lists = new Map<string, Map<Prop['leaf']['document'], Item[]>>();
  for (const doc of documents) {
    for (const leaf of doc.leaves) {
      const [root, module, groupSeg, nameSeg, ...rest] = leaf.path;
      if (!root || root.name !== 'resilience4j' || !module || !MODULES.has(module.name) || !groupSeg || !nameSeg || rest.length === 0) continue;
      const group = GROUPS[groupSeg.name];
      if (!group) continue;
      const key = blockKey(module.name, group, nameSeg.raw);
      let block = blocks.get(key);
      const nameNode = spanNode(sourceCode, nameSeg.start, nameSeg.end, leaf.pair);
      if (!block) {
        block = { module: module.name, group, name: nameSeg.raw, nameNode, props: new Map(), documents: new Set() };
        blocks.set(key, block);
      } else if (overlay !== undefined && doc.index === overlay && !block.documents.has(overlay)) {
        block.nameNode = nameNode; // squiggle the profile's own mention of the instance
      }
      block.documents.add(doc.index);
      const propName = rest.map((s) => s.name).join('.');
      const last = rest[rest.length - 1]!;
      const existing = block.props.get(propName);
      if (existing && leaf.merged && !existing.leaf.merged) continue;
      if (last.index !== undefined) {
        // `retry-exceptions[0]: ...`: one item of a list written key by key.
        const listKey = `${key}\u0000${propName}`;
        let byDoc = lists.get(listKey);
        if (!byDoc) lists.set(listKey, (byDoc = new Map()));
        let items = byDoc.get(doc.index);
        if (!items) byDoc.set(doc.index, (items = []));
        const item = leaf.value && leaf.value.type === 'YAMLScalar' ? { text: String(leaf.value.value), node: leaf.value as unknown as Node } : undefined;
        if (item) items[last.index] = item;
        block.props.set(propName, { leaf, value: undefined, items: items.filter(Boolean), node: spanNode(sourceCode, last.start, last.end, leaf.pair) });
        continue;
      }
      block.props.set(propName, propOf(sourceCode, leaf, last.start, last.end));
    }
  }
  return blocks;
}

function propOf(sourceCode: Readonly<TSESLint.SourceCode>, leaf: Leaf, nameStart: number, nameEnd: number): Prop {
  const v = leaf.value;
  const sameLine = v && sourceCode.getLocFromIndex(nameStart).line === v.loc.end.line;
  const node = spanNode(sourceCode, nameStart, v && sameLine && v.type === 'YAMLScalar' ? v.range[1] : nameEnd, leaf.pair);
  if (!v) return { leaf, value: undefined, items: [], node };
  if (v.type === 'YAMLSequence') {
    const items = (v.entries ?? [])
      .filter((e): e is YNode => !!e && e.type === 'YAMLScalar' && e.value !== null)
      .map((e) => ({ text: String(e.value), node: e as unknown as Node }));
    return { leaf, value: undefined, items, node };
  }
  if (v.type !== 'YAMLScalar') return { leaf, value: UNKNOWN, items: [], node };
  const value = v.value;
  // Spring splits a comma-separated string into a list.
  const items: Item[] = [];
  if (typeof value === 'string') {
    const plain = v.style === 'plain';
    let offset = 0;
    for (const part of value.split(',')) {
      const trimmed = part.trim();
      const at = part.indexOf(trimmed);
      if (trimmed) {
        const start = v.range[0] + offset + at;
        items.push({ text: trimmed, node: plain ? spanNode(sourceCode, start, start + trimmed.length, v) : (v as unknown as Node) });
      }
      offset += part.length + 1;
    }
  }
  return { leaf, value: typeof value === 'string' && value.includes('${') ? UNKNOWN : value, items, node };
}

/**
 * The blocks a block inherits from, nearest first: its base-config chain, or configs.default.
 * `complete` is false when a named base-config is not in this file (it lives in another one).
 */
function chainOf(block: Block, view: Blocks): { chain: Block[]; complete: boolean } {
  const chain: Block[] = [block];
  const seen = new Set<Block>([block]);
  let current = block;
  for (;;) {
    const baseName = current.props.get('baseconfig')?.value;
    let next: Block | undefined;
    if (typeof baseName === 'string' && baseName) {
      next = view.get(blockKey(current.module, 'configs', baseName));
      if (!next) return { chain, complete: false };
    } else if (current.name !== 'default') next = view.get(blockKey(current.module, 'configs', 'default'));
    if (!next || seen.has(next)) return { chain, complete: true };
    chain.push(next);
    seen.add(next);
    current = next;
  }
}

function lookup(chain: readonly Block[], name: string): Prop | undefined {
  for (const block of chain) {
    const prop = block.props.get(name);
    if (prop) return prop;
  }
  return undefined;
}

const RETRY_PROPERTIES = new Set([
  'maxattempts', 'waitduration', 'enableexponentialbackoff', 'exponentialbackoffmultiplier', 'exponentialmaxwaitduration',
  'enablerandomizedwait', 'randomizedwaitfactor', 'retryexceptions', 'ignoreexceptions', 'retryexceptionpredicate',
  'intervalbifunction', 'resultpredicate', 'failaftermaxattempts',
]);

function sitesOf(view: Blocks, include: (block: Block) => boolean, partialFile: boolean): RetrySite[] {
  const out: RetrySite[] = [];
  for (const block of view.values()) {
    if (block.module !== 'retry' || !include(block)) continue;
    // An instance that only names its base config behaves exactly like it: the config is judged.
    if (block.group === 'instances' && ![...block.props.keys()].some((p) => RETRY_PROPERTIES.has(p))) continue;
    try {
      out.push(siteOf(block, view, partialFile));
    } catch {
      // A shape this reader does not expect must not take the linter down: skip the block.
    }
  }
  return out;
}

/**
 * How a property resolves: written somewhere in the chain, left to Resilience4j's default, or
 * unknown because the file is an overlay (or names a base-config from another file).
 */
type Lookup = { prop: Prop } | 'default' | 'unknown';

function siteOf(block: Block, view: Blocks, partialFile: boolean): RetrySite {
  const { chain, complete } = chainOf(block, view);
  const unset: Lookup = partialFile || !complete ? 'unknown' : 'default';
  const find = (name: string): Lookup => {
    const prop = lookup(chain, name);
    return prop ? { prop } : unset;
  };
  const label = `Resilience4j retry ${block.group === 'configs' ? 'config' : 'instance'} '${block.name}'`;

  // max-attempts counts attempts, the first call included; 0 means "not set" to Spring.
  const maxAttempts = find('maxattempts');
  let attempts: Setting<number>;
  if (maxAttempts === 'default') attempts = { value: DEFAULTS.maxAttempts };
  else if (maxAttempts === 'unknown') attempts = { value: UNKNOWN };
  else {
    const n = integerOf(maxAttempts.prop.value);
    attempts = { value: n === undefined ? UNKNOWN : n === 0 ? DEFAULTS.maxAttempts : n, node: maxAttempts.prop.node };
  }

  const breakerBlock = view.get(blockKey('circuitbreaker', 'instances', block.name));
  return site({
    library: 'resilience4j',
    label,
    node: block.nameNode,
    reportNode: block.nameNode,
    attempts,
    delay: delayOf(find),
    jitter: jitterOf(find),
    errorFilter: errorFilterOf(find, block.nameNode),
    attemptTimeoutMs: block.group === 'instances' ? timeLimiterOf(block.name, view) : { value: undefined },
    // A config is a template: instances and the runtime registry use it, it calls nothing itself.
    implicit: block.group === 'configs',
    breaker: breakerBlock?.nameNode,
  });
}

const written = (l: Lookup): Prop | undefined => (typeof l === 'object' ? l.prop : undefined);

/** A boolean switch: false by default, UNKNOWN when unreadable or left to another file. */
function switchOf(l: Lookup): Maybe<boolean> {
  if (l === 'default') return false;
  if (l === 'unknown') return UNKNOWN;
  return booleanOf(l.prop.value) ?? UNKNOWN;
}

function numberSetting(l: Lookup, fallback: number, read: (v: unknown) => number | undefined): Maybe<number> {
  if (l === 'default') return fallback;
  if (l === 'unknown') return UNKNOWN;
  return read(l.prop.value) ?? UNKNOWN;
}

function jitterOf(find: (name: string) => Lookup): Setting<boolean> {
  const randomized = find('enablerandomizedwait');
  const wait = find('waitduration');
  const factor = numberSetting(find('randomizedwaitfactor'), DEFAULTS.randomizationFactor, numberOf);
  const on = switchOf(randomized);
  const node = written(randomized)?.node;
  if (on === false) return { value: false, node };
  // Without a wait-duration Spring installs no interval function, so the switch does nothing.
  if (wait === 'default') return { value: false, node };
  if (on === UNKNOWN || wait === 'unknown' || factor === UNKNOWN) return { value: UNKNOWN, node };
  return factor > 0 ? { value: true, node } : { value: false, node: written(find('randomizedwaitfactor'))?.node };
}

function delayOf(find: (name: string) => Lookup) {
  const custom = written(find('intervalbifunction'));
  if (custom) return customSchedule(UNKNOWN, () => UNKNOWN, { node: custom.node });
  const wait = find('waitduration');
  const exponential = find('enableexponentialbackoff');
  const expOn = switchOf(exponential);
  const randomOn = switchOf(find('enablerandomizedwait'));
  const waitMs = numberSetting(wait, DEFAULTS.waitMs, durationMs);
  const factor = numberSetting(find('randomizedwaitfactor'), DEFAULTS.randomizationFactor, numberOf);
  const waitNode = written(wait)?.node;
  const expNode = written(exponential)?.node;
  // Spring installs an interval function only when a wait-duration is set (see the file comment).
  const intervalFunction = wait === 'default' ? false : wait === 'unknown' ? UNKNOWN : true;
  const jitterFactor: Maybe<number> = randomOn === false || intervalFunction === false ? 1
    : randomOn === UNKNOWN || intervalFunction === UNKNOWN || factor === UNKNOWN ? UNKNOWN : 1 + factor;

  if (expOn === UNKNOWN || (expOn && intervalFunction === UNKNOWN)) {
    return customSchedule(UNKNOWN, () => UNKNOWN, { node: expNode ?? waitNode });
  }
  if (expOn && intervalFunction) {
    const multiplierLookup = find('exponentialbackoffmultiplier');
    const m = numberSetting(multiplierLookup, DEFAULTS.multiplier, numberOf);
    const maxWait = find('exponentialmaxwaitduration');
    const growth = growthOfFactor(m, waitMs);
    return geometricSchedule({
      growth,
      initialMs: waitMs,
      multiplier: m,
      maxMs: maxWait === 'default' ? Infinity : numberSetting(maxWait, Infinity, durationMs),
      jitterFactor,
      node: growth === 'none' ? waitNode : growth === 'constant' ? written(multiplierLookup)?.node ?? expNode : expNode,
    });
  }
  const growth = growthOfFactor(1, waitMs);
  return geometricSchedule({
    growth,
    initialMs: waitMs,
    multiplier: 1,
    jitterFactor,
    // The setting a person would change: the disabled (or ineffective) switch, else the wait.
    node: growth === 'none' ? waitNode : expNode ?? waitNode,
  });
}

function orUnknown(v: number | undefined): Maybe<number> {
  return v === undefined ? UNKNOWN : v;
}

/** Per-attempt timeout from a TimeLimiter of the same name (Spring's aspect order puts it inside Retry). */
function timeLimiterOf(name: string, view: Blocks): Setting<number | undefined> {
  const block = view.get(blockKey('timelimiter', 'instances', name));
  if (!block) return { value: undefined };
  const prop = lookup(chainOf(block, view).chain, 'timeoutduration');
  if (!prop) return { value: undefined };
  return { value: orUnknown(durationMs(prop.value)), node: prop.node };
}

// ---- 4xx: which exception classes a retry list covers -------------------------------------------

/** Exception families whose 4xx responses are exceptions, with the classes above the 4xx class. */
const FAMILIES = [
  { id: 'RestTemplate/RestClient', clientError: 'HttpClientErrorException', ancestors: ['HttpStatusCodeException', 'RestClientResponseException', 'RestClientException', 'NestedRuntimeException'] },
  // WebClient has no 4xx base class: WebClientResponseException is the narrowest that covers them.
  { id: 'WebClient', clientError: 'WebClientResponseException', ancestors: ['WebClientException', 'NestedRuntimeException'] },
  { id: 'OpenFeign', clientError: 'FeignException$FeignClientException', ancestors: ['FeignException'] },
] as const;
const GENERIC = new Set(['Throwable', 'Exception', 'RuntimeException']);
/** Nested 4xx classes (HttpClientErrorException$NotFound ...); 408 and 429 may be retried. */
const STATUS_BY_NESTED: Record<string, string> = {
  BadRequest: '400', Unauthorized: '401', PaymentRequired: '402', Forbidden: '403', NotFound: '404',
  MethodNotAllowed: '405', NotAcceptable: '406', Conflict: '409', Gone: '410', PreconditionFailed: '412',
  UnsupportedMediaType: '415', UnprocessableEntity: '422', UnprocessableContent: '422',
};

/** `org.springframework.web.client.HttpClientErrorException$NotFound` (or `.NotFound`) -> `HttpClientErrorException$NotFound`. */
function simpleName(className: string): string {
  const parts = className.trim().split('.');
  const last = parts[parts.length - 1] ?? '';
  const previous = parts[parts.length - 2];
  if (previous && /^[A-Z]/.test(previous) && /^[A-Z]/.test(last) && !last.includes('$')) return `${previous}$${last}`;
  return last;
}

interface Coverage {
  /** Indices into FAMILIES whose 4xx the class covers; all for Throwable/Exception/RuntimeException. */
  families: number[];
  status: string;
}

function coverageOf(className: string): Coverage | undefined {
  const name = simpleName(className);
  if (GENERIC.has(name)) return { families: FAMILIES.map((_, i) => i), status: `4xx (${name})` };
  const families: number[] = [];
  FAMILIES.forEach((f, i) => {
    if (name === f.clientError || (f.ancestors as readonly string[]).includes(name)) families.push(i);
  });
  if (families.length) return { families, status: `4xx (${name})` };
  const nested = /^(\w+)\$(\w+)$/.exec(name);
  if (nested) {
    const [, outer, inner] = nested;
    const status = STATUS_BY_NESTED[inner!];
    const index = FAMILIES.findIndex((f) => f.clientError === outer || f.clientError.startsWith(`${outer}$`));
    if (status && index !== -1) return { families: [index], status: `${status} (${name})` };
  }
  return undefined;
}

function errorFilterOf(find: (name: string) => Lookup, fallback: Node): ErrorFilter {
  const retryLookup = find('retryexceptions');
  const ignoreLookup = find('ignoreexceptions');
  const retry = written(retryLookup);
  const ignore = written(ignoreLookup);
  const predicate = written(find('retryexceptionpredicate'));
  const ignoredFamilies = new Set<number>();
  const ignoredNames = new Set<string>();
  for (const item of ignore?.items ?? []) {
    const name = simpleName(item.text);
    ignoredNames.add(name);
    const coverage = coverageOf(item.text);
    // Ignoring one nested status (NotFound) leaves the family's other 4xx retried.
    if (coverage && coverage.status.startsWith('4xx')) coverage.families.forEach((f) => ignoredFamilies.add(f));
  }
  const node = retry?.node ?? ignore?.node ?? predicate?.node;
  const retryItems = retry?.items ?? [];
  if (retryItems.length === 0) {
    // No retry-exceptions: every exception is retried (or whatever the predicate says).
    if (ignoredFamilies.size > 0) return { kind: 'statuses', clientErrors: [], node };
    // The lists may be written in the file this one overlays: unknown, so a filter of unknown meaning.
    if (retryLookup === 'unknown' || ignoreLookup === 'unknown') return { kind: 'custom', clientErrors: [], node };
    if (predicate) return { kind: 'custom', clientErrors: [], node };
    return { kind: 'statuses', clientErrors: [], retriesEverything: ignore?.node ?? fallback, node };
  }
  const clientErrors: ClientErrorInclusion[] = [];
  for (const item of retryItems) {
    const coverage = coverageOf(item.text);
    if (!coverage) continue;
    const generic = coverage.families.length === FAMILIES.length;
    // Retrying Exception while ignoring some family's 4xx: the client in use is probably that one.
    const neutralised = generic ? ignoredFamilies.size > 0 : coverage.families.every((f) => ignoredFamilies.has(f)) || ignoredNames.has(simpleName(item.text));
    if (!neutralised) clientErrors.push({ status: coverage.status, node: item.node });
  }
  return { kind: 'statuses', clientErrors, node };
}
