/** `settings["safe-retry"]` in the ESLint config: shared by every rule, read once per file. */
export interface SafeRetrySettings {
  /** Leading verbs of function names that only read (added to get, fetch, find, list, ...). */
  readonly readVerbs?: readonly string[];
  /** Leading verbs of function names that write (added to create, send, charge, pay, ...). */
  readonly writeVerbs?: readonly string[];
  /** Callees (as written: `createOrder`, `orders.create`) that are reads whatever their verb. */
  readonly readFunctions?: readonly string[];
  /** Callees that are writes whatever their verb. */
  readonly writeFunctions?: readonly string[];
  /** More header or field names that carry an idempotency key (case-insensitive). */
  readonly idempotencyHeaders?: readonly string[];
  /**
   * Resolve calls across files through the type checker (set by the `recommended-type-checked`
   * preset; needs typed linting). Off by default so results never depend on type information.
   */
  readonly typeAware?: boolean;
}

export function readSettings(raw: unknown): SafeRetrySettings {
  if (!raw || typeof raw !== 'object') return {};
  const s = (raw as Record<string, unknown>)['safe-retry'];
  if (!s || typeof s !== 'object') return {};
  const out: Record<string, readonly string[]> = {};
  for (const key of ['readVerbs', 'writeVerbs', 'readFunctions', 'writeFunctions', 'idempotencyHeaders'] as const) {
    const v = (s as Record<string, unknown>)[key];
    if (v === undefined) continue;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
      throw new TypeError(`settings["safe-retry"].${key} must be an array of strings, got ${JSON.stringify(v)}`);
    }
    out[key] = v;
  }
  const typeAware = (s as Record<string, unknown>)['typeAware'];
  if (typeAware !== undefined && typeof typeAware !== 'boolean') {
    throw new TypeError(`settings["safe-retry"].typeAware must be a boolean, got ${JSON.stringify(typeAware)}`);
  }
  return typeAware === undefined ? out : { ...out, typeAware };
}
