/**
 * Spring configuration properties read from a YAML AST (yaml-eslint-parser), the way Spring Boot
 * binds them: nested keys and dotted keys are the same property (`a: {b.c: 1}` is `a.b.c`),
 * `[name]` brackets keep dots inside a map key, `list[0]` indexes, anchors, aliases and `<<`
 * merge keys resolve, and documents guarded by `spring.config.activate.on-profile` are overlays
 * on the unconditional ones.
 *
 * Only the small part of the AST this needs is typed here, so the published declarations do not
 * depend on the optional yaml-eslint-parser package.
 */
import type { TSESLint } from '@typescript-eslint/utils';
import type { Node } from '../model.js';

export interface YNode {
  readonly type: string;
  readonly range: [number, number];
  readonly loc: { start: { line: number; column: number }; end: { line: number; column: number } };
  readonly parent?: YNode | null;
  // YAMLScalar
  readonly value?: unknown;
  readonly style?: string;
  // YAMLMapping
  readonly pairs?: readonly YNode[];
  // YAMLPair
  readonly key?: YNode | null;
  // YAMLSequence
  readonly entries?: readonly (YNode | null)[];
  // YAMLDocument
  readonly content?: YNode | null;
  readonly anchors?: Record<string, readonly YNode[]>;
  // YAMLAlias
  readonly name?: string;
}

/** One segment of a property path, with the source span it was written at. */
export interface Segment {
  /** As written, brackets removed: instance names keep their case. */
  readonly raw: string;
  /** Relaxed-binding form for property names: lower case without `-` and `_`. */
  readonly name: string;
  /** `retry-exceptions[0]`: the index. */
  readonly index?: number | undefined;
  readonly start: number;
  readonly end: number;
}

/** A leaf: a property path and the YAML value written for it. */
export interface Leaf {
  readonly path: readonly Segment[];
  /** Scalar, sequence, an empty mapping (`{}`), or null for `key:` with nothing after it. */
  readonly value: YNode | null;
  readonly pair: YNode;
  /** Came in through a `<<` merge key: explicit keys win over it. */
  readonly merged: boolean;
  /** Index of the YAML document it was written in. */
  readonly document: number;
}

export interface PropertyDocument {
  readonly index: number;
  readonly leaves: readonly Leaf[];
  /** Written under `spring.config.activate.on-profile` (or legacy `spring.profiles`). */
  readonly profile: string | undefined;
}

export function normaliseName(raw: string): string {
  return raw.toLowerCase().replace(/[-_]/g, '');
}

/** Every document of the file as property leaves. */
export function readDocuments(program: YNode): PropertyDocument[] {
  const docs: PropertyDocument[] = [];
  const body = (program as unknown as { body?: readonly YNode[] }).body ?? [];
  body.forEach((doc, index) => {
    if (doc.type !== 'YAMLDocument') return;
    const leaves: Leaf[] = [];
    const anchors = doc.anchors ?? {};
    walk(doc.content ?? null, [], false, { anchors, leaves, document: index, depth: 0, seen: new Set() });
    const profileLeaf = leaves.find((l) => {
      const names = l.path.map((s) => s.name).join('.');
      return names === 'spring.config.activate.onprofile' || names === 'spring.profiles';
    });
    const profile = profileLeaf?.value && profileLeaf.value.type === 'YAMLScalar' ? String(profileLeaf.value.value) : profileLeaf ? '?' : undefined;
    docs.push({ index, leaves, profile });
  });
  return docs;
}

interface WalkState {
  anchors: Record<string, readonly YNode[]>;
  leaves: Leaf[];
  document: number;
  depth: number;
  seen: Set<YNode>;
}

function walk(node: YNode | null, path: readonly Segment[], merged: boolean, state: WalkState, pair?: YNode): void {
  const resolved = resolve(node, state);
  if (resolved?.type === 'YAMLMapping') {
    if (state.depth > 64 || state.seen.has(resolved)) return; // alias cycles
    state.seen.add(resolved);
    state.depth++;
    const mergeSources: YNode[] = [];
    for (const p of resolved.pairs ?? []) {
      const key = resolve(p.key ?? null, state);
      if (!key || key.type !== 'YAMLScalar' || key.value === null || key.value === undefined) continue;
      const text = String(key.value);
      if (text === '<<' && key.style === 'plain') {
        mergeSources.push(p);
        continue;
      }
      walk(p.value as YNode | null, [...path, ...segmentsOf(text, key)], merged, state, p);
    }
    // `<<: *base` (or a list of aliases): the merged keys count as if written, below explicit ones.
    for (const p of mergeSources) {
      const target = resolve(p.value as YNode | null, state);
      const sources = target?.type === 'YAMLSequence' ? (target.entries ?? []) : [p.value as YNode | null];
      for (const source of sources) walk(source, path, true, state, p);
    }
    state.depth--;
    state.seen.delete(resolved);
    // `legacy: {}`: a block with nothing in it still exists (an instance on every default).
    if (pair && (resolved.pairs ?? []).length === 0) state.leaves.push({ path, value: resolved, pair, merged, document: state.document });
    return;
  }
  if (pair) state.leaves.push({ path, value: resolved, pair, merged, document: state.document });
}

/** Follows `*alias` to its anchored node and unwraps `!tag`/`&anchor` wrappers. */
function resolve(node: YNode | null, state: WalkState): YNode | null {
  let n = node;
  for (let hops = 0; n && hops < 16; hops++) {
    if (n.type === 'YAMLWithMeta') {
      n = (n as unknown as { value: YNode | null }).value;
      continue;
    }
    if (n.type === 'YAMLAlias') {
      const candidates = state.anchors[n.name ?? ''] ?? [];
      // The anchor defined last before the alias is the one it refers to.
      const anchor = [...candidates].reverse().find((a) => a.range[0] < n!.range[0]) ?? candidates[0];
      n = (anchor?.parent as unknown as { value?: YNode | null } | undefined)?.value ?? null;
      continue;
    }
    return n;
  }
  return null;
}

/** Splits `resilience4j.retry.instances[my.svc].max-attempts` into segments with their spans. */
function segmentsOf(text: string, key: YNode): Segment[] {
  const out: Segment[] = [];
  const plain = key.style === 'plain';
  // Plain keys map characters 1:1 onto the source; quoted keys get the span of the whole key.
  const at = (i: number) => (plain ? key.range[0] + i : undefined);
  let i = 0;
  while (i < text.length) {
    if (text[i] === '.') {
      i++;
      continue;
    }
    const start = i;
    let raw: string;
    let bracketed = false;
    if (text[i] === '[') {
      // `instances[my.svc]`: a map key that keeps its dots.
      const close = text.indexOf(']', i);
      raw = text.slice(i + 1, close === -1 ? text.length : close);
      i = close === -1 ? text.length : close + 1;
      bracketed = true;
    } else {
      while (i < text.length && text[i] !== '.' && text[i] !== '[') i++;
      raw = text.slice(start, i);
    }
    // `retry-exceptions[0]`: an index on this segment, not a segment of its own.
    const indexed = bracketed ? null : /^\[(\d+)\]/.exec(text.slice(i));
    if (indexed) i += indexed[0].length;
    out.push(segment(raw, indexed ? Number(indexed[1]) : undefined, at(start), at(i), key));
  }
  return out;
}

function segment(raw: string, index: number | undefined, start: number | undefined, end: number | undefined, key: YNode): Segment {
  return { raw, name: normaliseName(raw), index, start: start ?? key.range[0], end: end ?? key.range[1] };
}

/** A node-shaped object for a span of the source, so a report can squiggle part of a key. */
export function spanNode(sourceCode: Readonly<TSESLint.SourceCode>, start: number, end: number, parent: YNode | null): Node {
  return {
    type: 'YAMLScalar',
    range: [start, end],
    loc: { start: sourceCode.getLocFromIndex(start), end: sourceCode.getLocFromIndex(end) },
    parent,
  } as unknown as Node;
}
