/**
 * Spring Boot's conversions of a configuration value to the Java type of a Resilience4j property,
 * following Spring's own code rather than a guess:
 * - Duration: StringToDurationConverter and DurationStyle. `SIMPLE` is `^([+-]?\d+)([a-zA-Z]{0,2})$`
 *   with the units ns, us, ms, s, m, h, d (case-insensitive; no unit means milliseconds), `ISO8601`
 *   is anything starting with an optional sign and `P`, parsed by java.time.Duration.parse. Nothing
 *   is trimmed, so `0.5s` and `1.5m` are refused. A YAML number goes through its Java toString
 *   (NumberToDurationConverter): `1500` is 1500 ms, `1.5` and `2.0` are refused. An empty value binds
 *   nothing.
 * - Boolean: StringToBooleanConverter (trimmed, case-insensitive true/on/yes/1, false/off/no/0). Spring
 *   has no converter from a number, so a YAML `1` is refused.
 * - Integer and Double: NumberUtils.parseNumber after removing all whitespace (hex for integers); a
 *   YAML float bound to an Integer is truncated.
 * - Enums: LenientObjectToEnumConverterFactory (case, dashes and underscores do not matter).
 * - Class lists: a YAML list, or one string split at commas.
 * A `${placeholder}` is resolved by Spring from the environment: the caller decides what it means.
 */
import type { MessageCode } from './messages.js';
import { describe, type ListItem, type PropertyValue, type Scalar } from './source.js';

type Data = Readonly<Record<string, string | number>>;

export type BindResult<T> =
  | { readonly kind: 'value'; readonly value: T }
  | { readonly kind: 'unset' }
  | { readonly kind: 'placeholder'; readonly text: string }
  | { readonly kind: 'problem'; readonly code: MessageCode; readonly data: Data };

const value = <T>(v: T): BindResult<T> => ({ kind: 'value', value: v });
const unset: BindResult<never> = { kind: 'unset' };
const fail = (code: MessageCode, data: Data = {}): BindResult<never> => ({ kind: 'problem', code, data });

const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const SIMPLE = /^([+-]?\d+)([a-zA-Z]{0,2})$/;
const ISO_START = /^[+-]?[pP]/;
// java.time.Duration.parse's pattern (case-insensitive); a `T` with no time part is refused separately.
const ISO = /^([-+]?)P(?:([-+]?[0-9]+)D)?(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?$/i;
const FLOAT_LITERAL = /[.eE]|inf|nan/i;

function isPlaceholder(text: string): boolean {
  return text.includes('${');
}

/** Milliseconds of a Spring Duration written as text. */
export function durationText(text: string): BindResult<number> {
  if (text === '') return unset;
  if (isPlaceholder(text)) return { kind: 'placeholder', text };
  const quoted = JSON.stringify(text);
  const simple = SIMPLE.exec(text);
  if (simple) {
    const factor = UNIT_MS[(simple[2] || 'ms').toLowerCase()];
    if (factor === undefined) return fail('unitDuration', { value: quoted });
    // Long.parseLong: more than 18 digits may not fit.
    if (simple[1]!.replace(/^[+-]/, '').length > 18) return fail('notDuration', { value: quoted });
    return value(Number(simple[1]) * factor);
  }
  if (ISO_START.test(text)) {
    const iso = ISO.exec(text);
    if (!iso || iso[3]?.toUpperCase() === 'T' || (iso[2] ?? iso[4] ?? iso[5] ?? iso[6]) === undefined) return fail('notDuration', { value: quoted });
    const [, sign, d, , h, m, s, fraction] = iso;
    const secondsNegative = s?.startsWith('-') ?? false;
    const seconds = Number(s ?? 0) + (fraction ? (secondsNegative ? -1 : 1) * Number(`0.${fraction}`) : 0);
    const ms = Number(d ?? 0) * 86_400_000 + Number(h ?? 0) * 3_600_000 + Number(m ?? 0) * 60_000 + seconds * 1000;
    return value(sign === '-' ? -ms : ms);
  }
  const fractional = /^([+-]?\d*\.\d+)([a-zA-Z]{1,2})$/.exec(text);
  if (fractional) return fail('fractionDuration', { value: quoted, hint: fractionHint(Number(fractional[1]), fractional[2]!) });
  return fail('notDuration', { value: quoted });
}

function fractionHint(amount: number, unit: string): string {
  const factor = UNIT_MS[unit.toLowerCase()];
  if (factor === undefined) return 'milliseconds or an ISO-8601 duration';
  const ms = amount * factor;
  return `${Number.isInteger(ms) ? ms : Number(ms.toFixed(6))}ms or PT${Number((ms / 1000).toFixed(9))}S`;
}

/** A YAML number, as its Java toString: whole numbers are milliseconds, a Double is refused. */
function durationNumber(n: number, text: string | undefined): BindResult<number> {
  const isFloat = text === undefined ? !Number.isInteger(n) : FLOAT_LITERAL.test(text) || !Number.isInteger(n);
  if (isFloat || !Number.isSafeInteger(n)) return fail('numberDuration', { value: text ?? String(n) });
  return value(n);
}

export function bindDuration(v: PropertyValue<unknown>): BindResult<number> {
  if (v.kind === 'empty') return unset;
  if (v.kind !== 'scalar') return fail('durationType', { got: gotOf(v) });
  if (typeof v.value === 'number') return durationNumber(v.value, v.text);
  if (typeof v.value === 'boolean') return fail('durationType', { got: describe(v.value) });
  return durationText(v.value);
}

export function bindBoolean(v: PropertyValue<unknown>): BindResult<boolean> {
  if (v.kind === 'empty') return unset;
  if (v.kind !== 'scalar') return fail('notBoolean', { got: gotOf(v) });
  if (typeof v.value === 'boolean') return value(v.value);
  if (typeof v.value === 'number') return fail('notBoolean', { got: v.text ?? String(v.value), number: 1 });
  const text = v.value.trim().toLowerCase();
  if (text === '') return unset;
  if (isPlaceholder(v.value)) return { kind: 'placeholder', text: v.value };
  if (text === 'true' || text === 'on' || text === 'yes' || text === '1') return value(true);
  if (text === 'false' || text === 'off' || text === 'no' || text === '0') return value(false);
  return fail('notBoolean', { got: describe(v.value) });
}

export function bindInteger(v: PropertyValue<unknown>): BindResult<number> {
  if (v.kind === 'empty') return unset;
  if (v.kind !== 'scalar' || typeof v.value === 'boolean') return fail('notNumber', { got: v.kind === 'scalar' ? describe(v.value) : gotOf(v) });
  if (typeof v.value === 'number') {
    if (!Number.isFinite(v.value)) return fail('notNumber', { got: v.text ?? String(v.value) });
    // A YAML float bound to an Integer: NumberUtils truncates it without a word.
    if (!Number.isInteger(v.value)) return fail('notWhole', { value: v.text ?? String(v.value), cut: Math.trunc(v.value) });
    return value(v.value);
  }
  const text = v.value.replace(/\s+/g, '');
  if (text === '') return unset;
  if (isPlaceholder(v.value)) return { kind: 'placeholder', text: v.value };
  if (/^[+-]?\d+$/.test(text)) return value(Number(text));
  const hex = /^([+-]?)(?:0[xX]|#)([0-9a-fA-F]+)$/.exec(text);
  if (hex) return value((hex[1] === '-' ? -1 : 1) * parseInt(hex[2]!, 16));
  if (DOUBLE.test(text)) return fail('notWhole', { value: v.value });
  return fail('notNumber', { got: describe(v.value) });
}

// Double.valueOf's decimal form (NaN and Infinity left out: no Resilience4j setting means them).
const DOUBLE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?$/;

export function bindDouble(v: PropertyValue<unknown>): BindResult<number> {
  if (v.kind === 'empty') return unset;
  if (v.kind !== 'scalar' || typeof v.value === 'boolean') return fail('notNumber', { got: v.kind === 'scalar' ? describe(v.value) : gotOf(v) });
  if (typeof v.value === 'number') return Number.isFinite(v.value) ? value(v.value) : fail('notNumber', { got: v.text ?? String(v.value) });
  const text = v.value.replace(/\s+/g, '');
  if (text === '') return unset;
  if (isPlaceholder(v.value)) return { kind: 'placeholder', text: v.value };
  if (DOUBLE.test(text)) return value(Number(text.replace(/[fFdD]$/, '')));
  return fail('notNumber', { got: describe(v.value) });
}

export function bindText(v: PropertyValue<unknown>): BindResult<string> {
  if (v.kind === 'empty') return unset;
  if (v.kind !== 'scalar') return fail('notText', { got: gotOf(v) });
  const text = String(v.value);
  if (text === '') return unset;
  if (isPlaceholder(text)) return { kind: 'placeholder', text };
  return value(text);
}

/** An enum constant, matched the lenient way: `count-based`, `countBased` and `COUNT_BASED` are one. */
export function bindEnum(v: PropertyValue<unknown>, allowed: readonly string[]): BindResult<string> {
  const text = bindText(v);
  if (text.kind !== 'value') return text.kind === 'problem' ? fail('notEnum', { allowed: allowed.join(' or '), got: text.data['got'] ?? '' }) : text;
  const canonical = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  const match = allowed.find((a) => canonical(a) === canonical(text.value.trim()));
  return match === undefined ? fail('notEnum', { allowed: allowed.join(' or '), got: describe(text.value) }) : value(match);
}

/** Java class names: a YAML list, or one string Spring splits at commas. */
export function bindClassList<P>(v: PropertyValue<P>): BindResult<readonly ListItem<P>[]> {
  if (v.kind === 'empty') return value([]);
  if (v.kind === 'other') return fail('notText', { got: v.description });
  const items: readonly ListItem<P>[] = v.kind === 'list' ? v.items.filter((i) => i.value !== null && i.value !== '') : splitAtCommas(v.value, v.at);
  const placeholder = items.find((i) => typeof i.value === 'string' && isPlaceholder(i.value));
  if (placeholder) return { kind: 'placeholder', text: String(placeholder.value) };
  return value(items);
}

function splitAtCommas<P>(scalar: Scalar, at: P): ListItem<P>[] {
  const items: ListItem<P>[] = [];
  let offset = 0;
  for (const part of String(scalar).split(',')) {
    const trimmed = part.trim();
    if (trimmed !== '') items.push({ value: trimmed, at, offset: offset + part.indexOf(trimmed) });
    offset += part.length + 1;
  }
  return items;
}

function gotOf(v: Exclude<PropertyValue<unknown>, { kind: 'scalar' } | { kind: 'empty' }>): string {
  return v.kind === 'list' ? 'a list' : v.description;
}
