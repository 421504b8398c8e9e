/**
 * The JavaScript built-ins the evaluator knows, on intervals (a plain number is the interval
 * [n, n]): one `Math` table, `Number.*` constants, the arithmetic, comparison and bit operators,
 * `Number()`/`parseInt()`/`parseFloat()`, and the names that mean randomness.
 */
import { UNKNOWN, continuousRange, range, toInterval, type Interval, type Value } from './values.js';

/** Globals nobody shadows. */
export const GLOBAL_CONSTANTS: ReadonlyMap<string, number | undefined> = new Map([
  ['undefined', undefined],
  ['Infinity', Infinity],
  ['NaN', NaN],
]);

export const BUILTIN_CONSTANTS: Readonly<Record<string, number>> = {
  'Number.POSITIVE_INFINITY': Infinity,
  'Number.NEGATIVE_INFINITY': -Infinity,
  'Number.MAX_SAFE_INTEGER': Number.MAX_SAFE_INTEGER,
  'Number.MAX_VALUE': Number.MAX_VALUE,
  'Number.MIN_SAFE_INTEGER': Number.MIN_SAFE_INTEGER,
  // Math's constants (a backoff of `Math.pow(Math.SQRT2, attempt)` seconds).
  'Math.SQRT2': Math.SQRT2,
  'Math.SQRT1_2': Math.SQRT1_2,
  'Math.E': Math.E,
  'Math.PI': Math.PI,
  'Math.LN2': Math.LN2,
  'Math.LN10': Math.LN10,
  'Math.LOG2E': Math.LOG2E,
  'Math.LOG10E': Math.LOG10E,
};

/** `Math.random()`, `randomJitter()`, `this.jitter(...)`: a call whose name says it is random. */
export const RANDOM_NAME = /random|jitter/i;

/** Functions that turn a string into a number. */
export const NUMBER_PARSERS = new Set(['Number', 'parseInt', 'parseFloat']);

type Result = number | Interval | typeof UNKNOWN;

/** All four corner combinations of a binary operation, NaN read as 0 (`0 * Infinity`). */
function corners(a: Interval, b: Interval, f: (x: number, y: number) => number): number | Interval {
  const c = [f(a.lo, b.lo), f(a.lo, b.hi), f(a.hi, b.lo), f(a.hi, b.hi)].map((x) => (Number.isNaN(x) ? 0 : x));
  return range(Math.min(...c), Math.max(...c));
}

const point = (v: Interval): boolean => v.lo === v.hi;
const monotone = (f: (x: number) => number) => (v: Interval | undefined): Result => (v ? range(f(v.lo), f(v.hi)) : UNKNOWN);

export function power(x: Interval, y: Interval): Result {
  if (point(x) && point(y)) return x.lo ** y.lo;
  return x.lo >= 0 ? corners(x, y, (p, q) => p ** q) : UNKNOWN;
}

/**
 * The one `Math` table: each function on intervals. A continuous random range never takes a whole
 * number (values.ts), so its whole-number end is never reached: `Math.floor(Math.random() * 11)`
 * is 0 to 10, not 11 (as is `Math.trunc`), and `Math.ceil` of a range starting at a whole number starts one above it.
 */
export const MATH: Readonly<Record<string, (args: readonly Interval[]) => Result>> = {
  min: (iv) => (iv.length ? range(Math.min(...iv.map((v) => v.lo)), Math.min(...iv.map((v) => v.hi))) : Infinity),
  max: (iv) => (iv.length ? range(Math.max(...iv.map((v) => v.lo)), Math.max(...iv.map((v) => v.hi))) : -Infinity),
  floor: ([v]) => (v?.continuous && Number.isInteger(v.hi) ? range(Math.floor(v.lo), v.hi - 1) : monotone(Math.floor)(v)),
  ceil: ([v]) => (v?.continuous && Number.isInteger(v.lo) ? range(v.lo + 1, Math.ceil(v.hi)) : monotone(Math.ceil)(v)),
  round: (iv) => monotone(Math.round)(iv[0]),
  // Toward zero: as floor above zero and as ceil below it (`+ 0`: no -0 from a range ending at zero).
  trunc: ([v]) => (v?.continuous
    ? range((Number.isInteger(v.lo) && v.lo < 0 ? v.lo + 1 : Math.trunc(v.lo)) + 0, (Number.isInteger(v.hi) && v.hi > 0 ? v.hi - 1 : Math.trunc(v.hi)) + 0)
    : monotone(Math.trunc)(v)),
  exp: (iv) => monotone(Math.exp)(iv[0]),
  sqrt: (iv) => (iv[0] && iv[0].lo >= 0 ? monotone(Math.sqrt)(iv[0]) : UNKNOWN),
  abs: ([v]) => {
    if (!v) return UNKNOWN;
    if (v.lo >= 0) return range(v.lo, v.hi);
    if (v.hi <= 0) return range(-v.hi, -v.lo);
    return range(0, Math.max(-v.lo, v.hi));
  },
  pow: ([x, y]) => (x && y ? power(x, y) : UNKNOWN),
};

/**
 * A continuous random range shifted or scaled by a known finite number (`a + r`, `r * k`, `r / k`,
 * `a - r`, k not 0) stays continuous; any other operation gives a plain range.
 */
function keepsContinuity(op: string, x: Interval, y: Interval): boolean {
  const finitePoint = (v: Interval) => point(v) && Number.isFinite(v.lo);
  const nonZero = (v: Interval) => finitePoint(v) && v.lo !== 0;
  if (x.continuous && finitePoint(y)) return op === '+' || op === '-' || ((op === '*' || op === '/') && nonZero(y));
  if (y.continuous && finitePoint(x)) return op === '+' || op === '-' || (op === '*' && nonZero(x));
  return false;
}

/** A numeric binary operator on intervals; comparisons give booleans, UNKNOWN where the ranges overlap. */
export function numericBinary(op: string, x: Interval, y: Interval): Value {
  // NaN (an absent option in arithmetic) stays NaN, and compares false with anything.
  if (Number.isNaN(x.lo) || Number.isNaN(y.lo)) {
    if (['+', '-', '*', '/', '%', '**'].includes(op)) return op === '**' && y.lo === 0 ? 1 : NaN;
    if (['<', '<=', '>', '>='].includes(op)) return false;
  }
  if ((x.continuous || y.continuous) && keepsContinuity(op, x, y)) {
    const v = numericBinary(op, { lo: x.lo, hi: x.hi }, { lo: y.lo, hi: y.hi });
    return typeof v === 'object' && v !== null && 'lo' in v ? continuousRange(v.lo, v.hi) : v;
  }
  switch (op) {
    case '+': return range(x.lo + y.lo, x.hi + y.hi);
    case '-': return range(x.lo - y.hi, x.hi - y.lo);
    case '*': return corners(x, y, (p, q) => p * q);
    case '/':
      if (y.lo <= 0 && y.hi >= 0) return y.lo === 0 && y.hi === 0 && point(x) ? x.lo / 0 : UNKNOWN;
      return corners(x, y, (p, q) => p / q);
    case '**': return power(x, y);
    case '%': return point(x) && point(y) ? x.lo % y.lo : UNKNOWN;
    case '<': return x.hi < y.lo ? true : x.lo >= y.hi ? false : UNKNOWN;
    case '<=': return x.hi <= y.lo ? true : x.lo > y.hi ? false : UNKNOWN;
    case '>': return x.lo > y.hi ? true : x.hi <= y.lo ? false : UNKNOWN;
    case '>=': return x.lo >= y.hi ? true : x.hi < y.lo ? false : UNKNOWN;
    case '<<': case '>>': case '>>>': case '|': case '&': case '^':
      return point(x) && point(y) ? bitwise(op, x.lo, y.lo) : UNKNOWN;
    default: return UNKNOWN;
  }
}

function bitwise(op: string, p: number, q: number): number {
  switch (op) {
    case '<<': return p << q;
    case '>>': return p >> q;
    case '>>>': return p >>> q;
    case '|': return p | q;
    case '&': return p & q;
    default: return p ^ q;
  }
}

/** `x += y`, `x++` (as `+`, 1): a compound write on numbers; anything else is UNKNOWN. */
export function numericWrite(op: string, current: Value, operand: Value): Value {
  const x = toInterval(current);
  const y = toInterval(operand);
  return x && y ? numericBinary(op, x, y) : UNKNOWN;
}

/**
 * `Number.isInteger(v)`, `Number.isSafeInteger(v)`, `Number.isFinite(v)`, `Number.isNaN(v)`: exact on
 * a known number, false on any other known kind (they do not convert), and on a range only what
 * holds for every number in it; a continuous random range is never an integer (values.ts).
 */
export function numberPredicate(name: string, v: Value): Value {
  if (v === UNKNOWN) return UNKNOWN;
  const i = typeof v === 'object' && v !== null && 'lo' in v ? (v as Interval) : undefined;
  if (typeof v !== 'number' && !i) {
    if (v === null || v === undefined || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'bigint') return false;
    return Array.isArray(v) || (typeof v === 'object' && ('kind' in v || 'properties' in v || 'set' in v)) ? false : UNKNOWN;
  }
  if (typeof v === 'number') {
    switch (name) {
      case 'isInteger': return Number.isInteger(v);
      case 'isSafeInteger': return Number.isSafeInteger(v);
      case 'isFinite': return Number.isFinite(v);
      case 'isNaN': return Number.isNaN(v);
      default: return UNKNOWN;
    }
  }
  switch (name) {
    case 'isNaN': return false;
    case 'isFinite': return Number.isFinite(i!.lo) && Number.isFinite(i!.hi) ? true : UNKNOWN;
    case 'isInteger': case 'isSafeInteger': return i!.continuous ? false : UNKNOWN;
    default: return UNKNOWN;
  }
}

/** The `Number.is*` predicates numberPredicate decides. */
export const NUMBER_PREDICATES: ReadonlySet<string> = new Set(['isInteger', 'isSafeInteger', 'isFinite', 'isNaN']);

/** `Number(x)`, `parseInt(x)`, `parseFloat(x)`, `+x` on a string; a number or range passes through. */
export function parseNumber(name: string, v: Value): Value {
  if (typeof v === 'number' || (typeof v === 'object' && v !== null && 'lo' in v)) return v;
  if (typeof v !== 'string' || v.trim() === '') return UNKNOWN;
  const n = name === 'parseInt' ? Number.parseInt(v, 10) : name === 'parseFloat' ? Number.parseFloat(v) : Number(v);
  return Number.isNaN(n) ? UNKNOWN : n;
}
