/**
 * Spring Boot's conversions of configuration values, as Resilience4j's properties receive them:
 * durations (`500ms`, `2s`, `PT0.5S`, a bare number of milliseconds), booleans and numbers
 * written as YAML scalars or as strings. Anything else, including `${placeholders}`, is unknown.
 */

const SIMPLE_DURATION = /^([+-]?\d+)([a-z]{0,2})$/i;
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const ISO_DURATION = /^([+-])?P(?:([+-]?\d+)D)?(?:T(?:([+-]?\d+)H)?(?:([+-]?\d+)M)?(?:([+-]?\d+)(?:[.,](\d{0,9}))?S)?)?$/i;

/** Milliseconds of a Spring `Duration` value; undefined when Spring would reject it or it is not static. */
export function durationMs(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined; // bare numbers are ms
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  const simple = SIMPLE_DURATION.exec(text);
  if (simple) {
    const unit = (simple[2] || 'ms').toLowerCase();
    const factor = UNIT_MS[unit];
    return factor === undefined ? undefined : Number(simple[1]) * factor;
  }
  const iso = ISO_DURATION.exec(text);
  if (!iso || text.toUpperCase() === 'P' || /T$/i.test(text)) return undefined;
  const [, sign, d, h, m, s, fraction] = iso;
  const seconds = Number(s ?? 0) + (fraction ? Number(`0.${fraction}`) * Math.sign(Number(s ?? 0) || 1) : 0);
  const ms = Number(d ?? 0) * 86_400_000 + Number(h ?? 0) * 3_600_000 + Number(m ?? 0) * 60_000 + seconds * 1000;
  return sign === '-' ? -ms : ms;
}

/** Spring's string-to-boolean conversion (case-insensitive true/false, on/off, yes/no, 1/0). */
export function booleanOf(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase();
  if (['true', 'on', 'yes', '1'].includes(text)) return true;
  if (['false', 'off', 'no', '0'].includes(text)) return false;
  return undefined;
}

export function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || !/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(value)) return undefined;
  return Number(value);
}

export function integerOf(value: unknown): number | undefined {
  const n = numberOf(value);
  return n !== undefined && Number.isInteger(n) ? n : undefined;
}
