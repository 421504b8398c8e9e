/**
 * Resilience4j configuration in Spring Boot YAML (`application*.yml`), read by the same reader the
 * runtime's registry uses (src/shared/resilience4j): its problems (what Spring cannot bind, what the
 * runtime cannot apply) for `valid-resilience4j-config`, and each retry block as a RetrySite, so the
 * other rules judge it with the same messages as code.
 *
 * `resilience4j.retry.instances.<name>` (or the legacy `backends`) and `configs.<name>`, nested or
 * dotted, are sites; an instance that only names its base config (and has no TimeLimiter of its
 * name) behaves exactly like that config, which is judged instead. Documents guarded by
 * `spring.config.activate.on-profile` are overlays on the unconditional ones, and a profile file
 * (`application-prod.yml`) overrides a file the linter does not see: what it leaves out is unknown.
 */
import type { TSESLint } from '@typescript-eslint/utils';
import type { ClientErrorInclusion, ErrorFilter, Node, OptionEdit, RetrySite } from '../model.js';
import { customSchedule } from '../schedule.js';
import { UNKNOWN, type Maybe as AnalysisMaybe } from '../eval/values.js';
import { site } from '../libraries/shared.js';
import {
  isKnown,
  readResilience4j,
  type ConfigProperty,
  type GuideRule,
  type Item,
  type ListItem,
  type Maybe,
  type PropertyValue,
  type RetrySettings,
} from '../../shared/resilience4j/index.js';
import { readDocuments, spanNode, type Leaf, type PropertyDocument, type YNode } from './tree.js';

const PROFILE_FILE = /(^|[\\/])(application|bootstrap)-[^\\/]+\.ya?ml$/i;

/** Where a key or value is written: its node, and the document it is in. */
interface Pos {
  readonly node: Node;
  readonly document: number;
  /** A plain scalar maps characters 1:1 onto the source, so a comma-separated item gets its own span. */
  readonly plain?: boolean;
}

export interface YamlProblem {
  readonly node: Node;
  readonly path: string;
  readonly message: string;
  readonly rule?: GuideRule | undefined;
}

export interface Resilience4jYaml {
  readonly sites: RetrySite[];
  readonly problems: YamlProblem[];
}

/** Retry properties an instance may set; one that sets none of them is judged through its config. */
const RETRY_PROPERTIES = new Set([
  'maxattempts', 'waitduration', 'enableexponentialbackoff', 'exponentialbackoffmultiplier', 'exponentialmaxwaitduration',
  'enablerandomizedwait', 'randomizedwaitfactor', 'retryexceptions', 'ignoreexceptions', 'retryexceptionpredicate',
  'intervalbifunction', 'resultpredicate', 'failaftermaxattempts',
]);

/** The Resilience4j retry sites and configuration problems of a YAML file; never throws on a valid document. */
export function readResilience4jYaml(sourceCode: Readonly<TSESLint.SourceCode>, filename = 'application.yml'): Resilience4jYaml {
  const partial = PROFILE_FILE.test(filename);
  const documents = readDocuments(sourceCode.ast as unknown as YNode);
  const base = documents.filter((d) => d.profile === undefined);
  const out: Resilience4jYaml = { sites: [], problems: [] };
  const seen = new Set<string>();
  const view = (docs: readonly PropertyDocument[], overlay: number | undefined) => {
    const read = readResilience4j(propertiesOf(sourceCode, docs), { mode: 'lint', partial });
    for (const p of read.problems) {
      // An overlay view repeats the base documents: only what the overlay writes is new.
      if (p.at === undefined || (overlay !== undefined && p.at.document !== overlay)) continue;
      const key = `${p.at.node.range.join(':')}\u0000${p.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.problems.push({ node: p.at.node, path: p.path, message: p.message, rule: p.rule });
    }
    const breakers = new Map(read.breakers.filter((b) => b.block.group === 'instances').map((b) => [b.block.name, b.block.at.node]));
    for (const settings of read.retry) {
      if (overlay !== undefined && !settings.block.layers.has(overlay)) continue;
      if (!judgedAsSite(settings)) continue;
      try {
        out.sites.push(siteOf(sourceCode, settings, breakers));
      } catch {
        // A shape this reader does not expect must not take the linter down: skip the block.
      }
    }
  };
  view(base, undefined);
  // A profile document is an overlay: judge what it touches with the base beneath.
  for (const doc of documents.filter((d) => d.profile !== undefined)) view([...base, doc], doc.index);
  return out;
}

function judgedAsSite(settings: RetrySettings<Pos>): boolean {
  const { block } = settings;
  if (block.group === 'configs') return true;
  if ([...block.props.keys()].some((p) => RETRY_PROPERTIES.has(p))) return true;
  // A TimeLimiter of its name gives the instance attempt timeouts its config does not have.
  return settings.timeout !== undefined;
}

// ---- the YAML as the reader's properties ----

function* propertiesOf(sourceCode: Readonly<TSESLint.SourceCode>, documents: readonly PropertyDocument[]): Generator<ConfigProperty<Pos>> {
  for (const doc of documents) {
    for (const leaf of doc.leaves) {
      const [root, ...rest] = leaf.path;
      if (!root || root.name !== 'resilience4j' || root.index !== undefined) continue;
      const pos = (start: number, end: number): Pos => ({ node: spanNode(sourceCode, start, end, leaf.pair), document: doc.index });
      const path = rest.map((s) => ({ raw: s.raw, index: s.index, at: pos(s.start, s.end) }));
      const last = leaf.path[leaf.path.length - 1]!;
      yield { path, value: valueOf(leaf, doc.index), at: propertyPos(sourceCode, leaf, last.start, last.end, doc.index), layer: doc.index, merged: leaf.merged };
    }
  }
}

/** `max-attempts: 10`: the property name through its value, the squiggle for a finding. */
function propertyPos(sourceCode: Readonly<TSESLint.SourceCode>, leaf: Leaf, start: number, end: number, document: number): Pos {
  const v = leaf.value;
  const sameLine = v && sourceCode.getLocFromIndex(start).line === v.loc.end.line;
  return { node: spanNode(sourceCode, start, v && sameLine && v.type === 'YAMLScalar' ? v.range[1] : end, leaf.pair), document };
}

function valueOf(leaf: Leaf, document: number): PropertyValue<Pos> {
  const v = leaf.value;
  if (!v) return { kind: 'empty' };
  const at: Pos = { node: v as unknown as Node, document, plain: v.style === 'plain' };
  if (v.type === 'YAMLMapping') return { kind: 'empty' };
  if (v.type === 'YAMLSequence') {
    const entries = v.entries ?? [];
    if (entries.length === 0) return { kind: 'empty' };
    if (!entries.every((e) => e?.type === 'YAMLScalar')) return { kind: 'other', description: 'a list of blocks', at };
    const items: ListItem<Pos>[] = entries.map((e) => ({ value: scalar(e!.value), at: { node: e as unknown as Node, document } }));
    return { kind: 'list', items, at };
  }
  if (v.type !== 'YAMLScalar') return { kind: 'other', description: 'a value this reader cannot follow', at };
  const value = scalar(v.value);
  if (value === null) return { kind: 'empty' };
  // Spring reads a YAML number through its Java type: `2.0` is a Double, whatever its value.
  const text = typeof value === 'number' ? (v as unknown as { raw?: string }).raw : undefined;

  return { kind: 'scalar', value, text, at };
}

function scalar(value: unknown): string | number | boolean | null {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return Number(value);
  return null;
}

// ---- a retry block as a RetrySite ----

const known = <T>(v: Maybe<T>): AnalysisMaybe<T> => (isKnown(v) ? v : UNKNOWN);

function siteOf(sourceCode: Readonly<TSESLint.SourceCode>, s: RetrySettings<Pos>, breakers: ReadonlyMap<string, Node>): RetrySite {
  const { block, schedule } = s;
  const label = `Resilience4j retry ${block.group === 'configs' ? 'config' : 'instance'} '${block.name}'`;
  const nameNode = block.at.node;
  const delayNode = s.growth === 'exponential' ? schedule.exponential?.at.node : (s.growthCause?.at?.node ?? schedule.wait?.at.node ?? schedule.exponential?.at.node);
  return site({
    library: 'resilience4j',
    label,
    node: nameNode,
    reportNode: nameNode,
    attempts: { value: known(s.attempts), node: s.attemptsProp?.at.node },
    delay: customSchedule(known(s.growth), (n) => known(s.upperBound(n)), {
      initialMs: known(schedule.waitMs),
      multiplier: known(schedule.multiplier),
      maxMs: known(schedule.capMs),
      node: delayNode,
    }),
    jitter: { value: known(s.jitter), node: s.jitter === false ? (s.jitterCause?.at?.node ?? schedule.randomized?.at.node) : (schedule.randomized?.at.node ?? schedule.factorProp?.at.node) },
    errorFilter: errorFilterOf(sourceCode, s, nameNode),
    attemptTimeoutMs: s.timeout ? { value: known(s.timeout.ms), node: s.timeout.prop?.at.node } : { value: undefined },
    // A config is a template: instances and the runtime registry use it, it calls nothing itself.
    implicit: block.group === 'configs',
    breaker: block.group === 'instances' ? breakers.get(block.name) : undefined,
    fixes: { clientErrors: () => ignoreClientErrors(sourceCode, s) },
  });
}

/**
 * RestTemplate's and RestClient's 4xx exception, the first family the message names: ignored
 * exceptions are never retried, whatever retry-exceptions says (Resilience4j checks them first).
 */
const IGNORED_4XX = 'org.springframework.web.client.HttpClientErrorException';

/**
 * `ignore-exceptions` gains RestTemplate/RestClient's 4xx exception: appended to the list the block
 * writes (block or flow sequence, or a comma-separated scalar), or added under the block's nested
 * mapping. Dotted keys, an ignore list written in another document (a profile overlay) or in a
 * base config, and anything else this edit cannot place in the block's own words get no edit.
 */
function ignoreClientErrors(sourceCode: Readonly<TSESLint.SourceCode>, s: RetrySettings<Pos>): OptionEdit[] | undefined {
  const label = `ignore-exceptions: ${IGNORED_4XX} (RestTemplate, RestClient)`;
  const ignore = s.block.props.get('ignoreexceptions');
  // A list inherited from a base config would be replaced, not extended, by one written here.
  if (!ignore && s.chain.blocks.some((b) => b !== s.block && b.props.has('ignoreexceptions'))) return undefined;
  if (ignore) {
    const items = Array.isArray(ignore.value) ? (ignore.value as readonly Item<Pos>[]) : undefined;
    const last = items?.[items.length - 1];
    if (!last) return undefined;
    const entry = last.at.node as unknown as YNode;
    const list = entry.parent;
    if (last.offset !== undefined) {
      // `ignore-exceptions: a, b` on one plain line.
      return last.at.plain && entry.loc.start.line === entry.loc.end.line ? [{ path: [], range: [entry.range[1], entry.range[1]], text: `, ${IGNORED_4XX}`, label }] : undefined;
    }
    if (list?.type !== 'YAMLSequence') return undefined;
    if ((list as unknown as { style?: string }).style === 'flow') return [{ path: [], range: [entry.range[1], entry.range[1]], text: `, ${IGNORED_4XX}`, label }];
    const indent = ' '.repeat(list.loc.start.column);
    return [{ path: [], range: [entry.range[1], entry.range[1]], text: `\n${indent}- ${IGNORED_4XX}`, label }];
  }
  // The block's own nested mapping, found through one of its properties written as a plain key.
  for (const prop of s.block.props.values()) {
    const pair = (prop.at.node as unknown as YNode).parent;
    const mapping = pair?.parent;
    const key = pair?.type === 'YAMLPair' ? (pair as unknown as { key?: YNode | null }).key : undefined;
    if (!pair || !key || mapping?.type !== 'YAMLMapping' || (mapping as unknown as { style?: string }).style !== 'block') continue;
    if (sourceCode.text.slice(key.range[0], key.range[1]).includes('.')) continue;
    // The mapping is the block's own (`sber:` or `resilience4j.retry.instances.sber:`), not an anchor merged in.
    const owner = (mapping.parent as unknown as { key?: YNode | null } | null | undefined)?.key;
    const ownerText = owner ? sourceCode.text.slice(owner.range[0], owner.range[1]) : '';
    if (ownerText !== s.block.name && !ownerText.endsWith(`.${s.block.name}`)) continue;
    const pairs = (mapping as unknown as { pairs: YNode[] }).pairs;
    const end = pairs[pairs.length - 1]!.range[1];
    const indent = ' '.repeat(pair.loc.start.column);
    return [{ path: [], range: [end, end], text: `\n${indent}ignore-exceptions:\n${indent}  - ${IGNORED_4XX}`, label }];
  }
  return undefined;
}

/** An item of a comma-separated plain scalar on one line gets its own squiggle; otherwise the scalar's. */
function itemNode(sourceCode: Readonly<TSESLint.SourceCode>, item: Item<Pos>): Node {
  const { at, offset } = item;
  if (offset === undefined || !at.plain || at.node.loc.start.line !== at.node.loc.end.line) return at.node;
  const start = at.node.range[0] + offset;
  return spanNode(sourceCode, start, start + String(item.value).length, at.node as unknown as YNode);
}

function errorFilterOf(sourceCode: Readonly<TSESLint.SourceCode>, s: RetrySettings<Pos>, fallback: Node): ErrorFilter {
  const { errors } = s;
  const node = errors.decidedBy?.at.node;
  if (errors.kind === 'custom') return { kind: 'custom', clientErrors: [], node };
  const clientErrors: ClientErrorInclusion[] = errors.clientErrors.map(({ status, item }) => ({ status, node: itemNode(sourceCode, item) }));
  const everything = errors.retriesEverything;
  return {
    kind: 'statuses',
    clientErrors,
    node,
    ...(everything ? { retriesEverything: everything.ignore?.at.node ?? fallback } : {}),
  };
}
