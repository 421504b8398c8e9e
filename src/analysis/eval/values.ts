/**
 * The one value domain of the analysis. Static option reading, hand-written retries and
 * user-written delay functions all evaluate to these values:
 * - numbers, and numeric intervals (`Math.random()` is [0, 1], a jittered wait a range);
 * - strings, booleans, null, undefined, bigints;
 * - symbolic names (`BackOffPolicy.Exponential`) that could not be reduced to a value;
 * - object literals and functions as written (the node), arrays, `new Set([...])`;
 * - data objects: values read from a caller's arguments, without nodes, so they cross files;
 * - the error or response object whose HTTP status an environment substitutes;
 * - UNKNOWN, which never produces a report.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import type { Env } from './environment.js';
import type { Evaluator } from './evaluator.js';

export const UNKNOWN: unique symbol = Symbol('unknown');
export type Unknown = typeof UNKNOWN;
export type Maybe<V> = V | Unknown;

export function isKnown<V>(value: Maybe<V>): value is V {
  return value !== UNKNOWN;
}

/**
 * A closed range of numbers, `lo < hi` (a single number is a plain number). `continuous` marks a
 * range drawn from a continuous distribution (`Math.random()`, scaled or shifted by a known number):
 * such a value is never a whole number (see `continuousRange`).
 */
export interface Interval {
  readonly lo: number;
  readonly hi: number;
  readonly continuous?: true | undefined;
}

/** A qualified reference that could not be reduced to a value, e.g. `BackOffPolicy.Exponential`. */
export interface SymbolicValue {
  readonly symbolic: string;
}

/** An object literal as written; `env` is the environment its property values are read in (static when absent). */
export interface StaticObject {
  readonly kind: 'object';
  readonly node: TSESTree.ObjectExpression | undefined;
  readonly env?: Env | undefined;
}

export interface StaticFunction {
  readonly kind: 'function';
  readonly node: TSESTree.FunctionLike;
  /**
   * The evaluator of the file the function is written in, when it was read in one file and is
   * carried into another (a filter a caller passes to a helper of another file): a closure keeps
   * its defining file's environment, so its body is evaluated there, with its parameters bound
   * to the values the call passes. Absent, the function belongs to the file reading it.
   */
  readonly home?: Evaluator | undefined;
}

/** `new Set([...])`. */
export interface SetValue {
  readonly set: readonly Value[];
}

/**
 * Plain data read from a call's arguments: numbers, strings, arrays, objects with known keys;
 * UNKNOWN where unreadable. An `open` object may hold more keys (a spread). A function (a filter
 * passed in) crosses files with its home (StaticFunction.home), whose evaluator reads its body.
 */
export type DataValue = number | string | boolean | null | undefined | Unknown | readonly DataValue[] | DataObject | StaticFunction;
export interface DataObject {
  readonly properties: ReadonlyMap<string, DataValue>;
  readonly open: boolean;
}

/** An error or response object whose `status`/`ok` the environment substitutes. */
export const RESPONSE = Object.freeze({ response: true as const });
export type ResponseValue = typeof RESPONSE;

/**
 * The headers of a response asked about by its status alone: none beyond the status (`headers[x]`
 * is undefined, `headers.get(x)` null), so a filter that lets the server override it is read by
 * what it does when the server says nothing.
 */
export const NO_HEADERS: DataObject = Object.freeze({ properties: new Map<string, DataValue>(), open: false });

/** What static option reading sees. */
export type StaticValue =
  | number
  | string
  | boolean
  | null
  | undefined
  | bigint
  | SymbolicValue
  | readonly StaticValue[]
  | StaticObject
  | StaticFunction;

export type Value =
  | number
  | Interval
  | string
  | boolean
  | null
  | undefined
  | bigint
  | SymbolicValue
  | readonly Value[]
  | StaticObject
  | StaticFunction
  | SetValue
  | DataObject
  | ResponseValue
  | Unknown;

export function isSymbolic(value: unknown): value is SymbolicValue {
  return typeof value === 'object' && value !== null && 'symbolic' in value;
}

export function isStaticObject(v: unknown): v is StaticObject {
  return typeof v === 'object' && v !== null && (v as StaticObject).kind === 'object';
}

export function isStaticFunction(v: unknown): v is StaticFunction {
  return typeof v === 'object' && v !== null && (v as StaticFunction).kind === 'function';
}

export function isInterval(v: unknown): v is Interval {
  return typeof v === 'object' && v !== null && 'lo' in v;
}

export function isDataObject(v: unknown): v is DataObject {
  return typeof v === 'object' && v !== null && 'properties' in v && 'open' in v;
}

export function isSetValue(v: unknown): v is SetValue {
  return typeof v === 'object' && v !== null && 'set' in v;
}

export type Primitive = number | string | boolean | null | undefined | bigint;

export function isPrimitive(v: unknown): v is Primitive {
  return v === null || v === undefined || (typeof v !== 'object' && typeof v !== 'symbol' && typeof v !== 'function');
}

/** The number or the range [lo, hi]; NaN stays NaN. */
export function range(lo: number, hi: number): number | Interval {
  if (Number.isNaN(lo)) return NaN;
  return lo === hi || Number.isNaN(hi) ? lo : { lo, hi };
}

/**
 * `[lo, hi]` drawn from a continuous random term (`Math.random()`, `a + Math.random() * k`). Such a
 * value is read as never a whole number: `Math.random()` returns one of 2^52 or more evenly spaced
 * doubles, and the few that scale to an integer (0, 0.5 times 2, ...) are chance far below anything a
 * retry could rely on; code that tests `Number.isInteger` of it takes the other branch in practice.
 */
export function continuousRange(lo: number, hi: number): number | Interval {
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || lo >= hi) return range(lo, hi);
  return { lo, hi, continuous: true };
}

/** A number as a (degenerate) interval; undefined for anything else. */
export function toInterval(v: Value): Interval | undefined {
  if (typeof v === 'number') return { lo: v, hi: v };
  return isInterval(v) ? v : undefined;
}

/** The smallest range holding both. */
export function hull(a: Interval, b: Interval): number | Interval {
  return range(Math.min(a.lo, b.lo), Math.max(a.hi, b.hi));
}

/** Whether a value is truthy: UNKNOWN when it depends on what is not known. */
export function truth(v: Value): boolean | Unknown {
  if (v === UNKNOWN || isSymbolic(v)) return UNKNOWN;
  if (isInterval(v)) return v.lo > 0 || v.hi < 0 ? true : UNKNOWN;
  if (typeof v === 'object') return v !== null;
  return !!v;
}

/** The same value on both sides of a branch (numbers that differ give their hull). */
export function join(a: Value, b: Value): Value {
  const x = toInterval(a);
  const y = toInterval(b);
  if (x && y) return hull(x, y);
  return !isInterval(a) && a === b ? a : UNKNOWN;
}

/** `==`/`===` on two values: UNKNOWN when it depends on what is not known. */
export function equals(a: Value, b: Value, loose: boolean): boolean | Unknown {
  if (a === UNKNOWN || b === UNKNOWN) return UNKNOWN;
  const x = toInterval(a);
  const y = toInterval(b);
  if (x && y) {
    if (x.lo === x.hi && y.lo === y.hi) return x.lo === y.lo;
    return x.hi < y.lo || y.hi < x.lo ? false : UNKNOWN;
  }
  if (a === RESPONSE || b === RESPONSE) return a === b ? true : b === null || b === undefined || a === null || a === undefined ? false : UNKNOWN;
  if (typeof a === 'object' && a !== null) return UNKNOWN;
  if (typeof b === 'object' && b !== null) return UNKNOWN;
  if (loose && (a === null || a === undefined) && (b === null || b === undefined)) return true;
  if (x || y) {
    // A number compared with a string or nullish: JS semantics are decidable for literals only.
    if (loose) return UNKNOWN;
    return false;
  }
  return a === b;
}

/**
 * The value as static option reading sees it: UNKNOWN for ranges, sets, data and response objects,
 * and for arrays holding any of those.
 */
export function toStatic(v: Value): Maybe<StaticValue> {
  if (v === UNKNOWN || isInterval(v) || isSetValue(v) || isDataObject(v) || v === RESPONSE) return UNKNOWN;
  if (Array.isArray(v)) {
    const out: StaticValue[] = [];
    for (const x of v as Value[]) {
      const s = toStatic(x);
      if (s === UNKNOWN) return UNKNOWN;
      out.push(s);
    }
    return out;
  }
  return v as StaticValue;
}
