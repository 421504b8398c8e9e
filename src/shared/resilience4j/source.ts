/**
 * What the Resilience4j reader reads: the properties under `resilience4j`, flattened the way Spring
 * Boot flattens a property source (`retry.instances.sber.max-attempts` = `3`), each with an opaque
 * position `P`. The linter passes YAML nodes (so a problem is squiggled where it is written), the
 * runtime passes nothing and names problems by key path; the reader never looks inside `P`.
 */

/** A value the reader cannot know statically: a placeholder, or a setting left to another file. */
export const UNKNOWN: unique symbol = Symbol('unknown');
export type Unknown = typeof UNKNOWN;
export type Maybe<T> = T | Unknown;

export function isKnown<T>(value: Maybe<T>): value is T {
  return value !== UNKNOWN;
}

export interface KeySegment<P> {
  /** As written, brackets removed: instance names keep their spelling. */
  readonly raw: string;
  /** `retry-exceptions[0]`: one item of a list written key by key. */
  readonly index?: number | undefined;
  readonly at: P;
}

export type Scalar = string | number | boolean;

export interface ListItem<P> {
  readonly value: Scalar | null;
  readonly at: P;
  /** For an item split out of one comma-separated string (`at` is that string): where the item starts in it. */
  readonly offset?: number | undefined;
}

export type PropertyValue<P> =
  /** `text`: the source spelling of a number, which Spring reads as written (`2.0` is a Double). */
  | { readonly kind: 'scalar'; readonly value: Scalar; readonly text?: string | undefined; readonly at: P }
  | { readonly kind: 'list'; readonly items: readonly ListItem<P>[]; readonly at: P }
  /** `key:` with nothing after it, `{}` or `[]`: Spring binds nothing. */
  | { readonly kind: 'empty' }
  /** Anything else the caller could not turn into a value (a nested list, a date, a function). */
  | { readonly kind: 'other'; readonly description: string; readonly at: P };

export interface ConfigProperty<P> {
  /** Key segments below `resilience4j`. */
  readonly path: readonly KeySegment<P>[];
  readonly value: PropertyValue<P>;
  /** The whole property, key through value: where a problem about its value is shown. */
  readonly at: P;
  /** Later layers (Spring profile documents) override earlier ones; a key twice in one layer is a problem. */
  readonly layer?: number | undefined;
  /** Came in through a YAML `<<` merge key: an explicit key of the same layer overrides it. */
  readonly merged?: boolean | undefined;
}

export const ROOT = 'resilience4j';

/** Spring compares property names ignoring case, dashes and underscores (relaxed binding). */
export function uniform(key: string): string {
  return key.replace(/[-_]/g, '').toLowerCase();
}

function segmentText(segment: Pick<KeySegment<unknown>, 'raw' | 'index'>): string {
  const written = segment.raw.includes('.') ? `[${segment.raw}]` : segment.raw;
  return segment.index === undefined ? written : `${written}[${segment.index}]`;
}

/** A key path the way a person writes it: `resilience4j.retry.instances.[pay.v2].max-attempts`. */
export function joinPath(prefix: string, segment: string | Pick<KeySegment<unknown>, 'raw' | 'index'>): string {
  const written = typeof segment === 'string' ? segmentText({ raw: segment }) : segmentText(segment);
  return prefix === '' ? written : `${prefix}.${written}`;
}

export function pathOf(segments: readonly Pick<KeySegment<unknown>, 'raw' | 'index'>[], prefix = ROOT): string {
  return segments.reduce<string>((path, segment) => joinPath(path, segment), prefix);
}

/** A value in a message: what was written, or what kind of thing it is. */
export function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null (no value)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return JSON.stringify(value) ?? String(value);
}

export function formatMs(ms: number): string {
  if (ms === Infinity) return 'forever';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 120) return `${Number(s.toFixed(2))} s`;
  if (s < 7200) return `${Number((s / 60).toFixed(1))} min`;
  return `${Number((s / 3600).toFixed(1))} h`;
}
