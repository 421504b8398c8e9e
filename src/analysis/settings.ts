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
  /** The team's own retry helpers, judged like the retry libraries (see WrapperDeclaration). */
  readonly wrappers?: readonly WrapperDeclaration[];
  /**
   * Resolve calls across files through the type checker (set by the `recommended-type-checked`
   * preset; needs typed linting). Off by default so results never depend on type information.
   */
  readonly typeAware?: boolean;
}

/**
 * Where a declared helper reads one setting: an option of its options object (`option`, dotted
 * for nesting: `backoff.factor`) or a positional argument (`argument`); `default` applies when the
 * call does not pass it. With neither `option` nor `argument`, the setting is fixed at `default`.
 */
export interface WrapperSetting<V> {
  readonly option?: string;
  readonly argument?: number;
  readonly default?: V;
}

/**
 * `settings["safe-retry"].wrappers[i]`: calls to `export` of `module` (as written in the import,
 * relative paths included) are retry sites. Settings not declared are unknown, never guessed.
 */
export interface WrapperDeclaration {
  readonly module: string;
  /** The export name; `default` for the default export (or the whole CommonJS module). */
  readonly export: string;
  /** Index of the argument that is the retried function. */
  readonly operation: number;
  /** Index of the options object argument, when the helper takes one. */
  readonly options?: number;
  /** `counts: 'retries'` when the number excludes the first call, `'attempts'` when it includes it. */
  readonly attempts?: WrapperSetting<number> & { readonly counts: 'retries' | 'attempts' };
  /** First wait in milliseconds. */
  readonly delay?: WrapperSetting<number>;
  /** Growth factor of the waits (1: constant, above 1: exponential). */
  readonly factor?: WrapperSetting<number>;
  /** Cap on one wait in milliseconds. */
  readonly maxDelay?: WrapperSetting<number>;
  /** Whether the waits are randomised. */
  readonly jitter?: WrapperSetting<boolean>;
  /**
   * The option or argument that decides which errors are retried (any value passed is a filter);
   * `default` says what happens without it: `none` retries every error, `helper` means the helper
   * classifies errors itself.
   */
  readonly errorFilter?: WrapperSetting<'none' | 'helper'>;
  /** Overall deadline in milliseconds. */
  readonly deadline?: WrapperSetting<number>;
}

/** Throws a TypeError naming the key when a setting has the wrong shape. */
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
  const withTypes: SafeRetrySettings = typeAware === undefined ? out : { ...out, typeAware };
  const wrappers = (s as Record<string, unknown>)['wrappers'];
  if (wrappers !== undefined) return { ...withTypes, wrappers: readWrappers(wrappers) };
  return withTypes;
}

const WRAPPER_KEYS = new Set(['module', 'export', 'operation', 'options', 'attempts', 'delay', 'factor', 'maxDelay', 'jitter', 'errorFilter', 'deadline']);
const SETTING_KEYS = new Set(['option', 'argument', 'default', 'counts']);

/** Parsed once per settings object: every file of a lint run shares the same array. */
const parsedWrappers = new WeakMap<object, readonly WrapperDeclaration[]>();

function readWrappers(raw: unknown): readonly WrapperDeclaration[] {
  const where = 'settings["safe-retry"].wrappers';
  if (!Array.isArray(raw)) throw new TypeError(`${where} must be an array of helper declarations, got ${JSON.stringify(raw)}`);
  const hit = parsedWrappers.get(raw);
  if (hit) return hit;
  const out = raw.map((w, i) => readWrapper(w, `${where}[${i}]`));
  parsedWrappers.set(raw, out);
  return out;
}

function readWrapper(raw: unknown, where: string): WrapperDeclaration {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new TypeError(`${where} must be an object, got ${JSON.stringify(raw)}`);
  const w = raw as Record<string, unknown>;
  for (const key of Object.keys(w)) {
    if (!WRAPPER_KEYS.has(key)) throw new TypeError(`${where}.${key} is not a known key (expected one of ${[...WRAPPER_KEYS].join(', ')})`);
  }
  const text = (key: string): string => {
    const v = w[key];
    if (typeof v !== 'string' || v.trim() === '') throw new TypeError(`${where}.${key} must be a non-empty string, got ${JSON.stringify(v)}`);
    return v;
  };
  const index = (key: string, v: unknown, required: boolean): number | undefined => {
    if (v === undefined && !required) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new TypeError(`${where}.${key} must be an argument index (an integer from 0), got ${JSON.stringify(v)}`);
    return v;
  };
  const options = index('options', w['options'], false);
  const operation = index('operation', w['operation'], true)!;
  if (options !== undefined && options === operation) throw new TypeError(`${where}.options must differ from ${where}.operation (both are argument ${options})`);
  const setting = <V>(key: string, isValue: (v: unknown) => v is V, expected: string): WrapperSetting<V> | undefined => {
    const v = w[key];
    if (v === undefined) return undefined;
    const at = `${where}.${key}`;
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new TypeError(`${at} must be an object like { option, default }, got ${JSON.stringify(v)}`);
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (!SETTING_KEYS.has(k) || (k === 'counts' && key !== 'attempts')) throw new TypeError(`${at}.${k} is not a known key (expected option, argument, default${key === 'attempts' ? ', counts' : ''})`);
    }
    const option = o['option'];
    if (option !== undefined && (typeof option !== 'string' || !/^[^.]+(\.[^.]+)*$/.test(option))) {
      throw new TypeError(`${at}.option must be an option name (dotted for nested options), got ${JSON.stringify(option)}`);
    }
    if (option !== undefined && options === undefined) throw new TypeError(`${at}.option needs ${where}.options (the index of the options argument)`);
    const argument = index(`${key}.argument`, o['argument'], false);
    if (option !== undefined && argument !== undefined) throw new TypeError(`${at} must name an option or an argument, not both`);
    if (argument !== undefined && (argument === operation || argument === options)) throw new TypeError(`${at}.argument must differ from the operation and options arguments`);
    const dflt = o['default'];
    if (dflt !== undefined && !isValue(dflt)) throw new TypeError(`${at}.default must be ${expected}, got ${JSON.stringify(dflt)}`);
    if (option === undefined && argument === undefined && dflt === undefined) throw new TypeError(`${at} must have an option, an argument or a default`);
    return { ...(option !== undefined ? { option } : {}), ...(argument !== undefined ? { argument } : {}), ...(dflt !== undefined ? { default: dflt as V } : {}) };
  };
  const isCount = (v: unknown): v is number => typeof v === 'number' && v >= 0 && !Number.isNaN(v);
  const isMs = (v: unknown): v is number => typeof v === 'number' && v >= 0 && Number.isFinite(v);
  const isFactor = (v: unknown): v is number => typeof v === 'number' && v > 0 && Number.isFinite(v);
  const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
  const isFilter = (v: unknown): v is 'none' | 'helper' => v === 'none' || v === 'helper';
  const attempts = setting('attempts', isCount, 'a number of at least 0');
  if (attempts) {
    const counts = (w['attempts'] as Record<string, unknown>)['counts'];
    if (counts !== 'retries' && counts !== 'attempts') {
      throw new TypeError(`${where}.attempts.counts must be 'retries' (the number excludes the first call) or 'attempts' (it includes it), got ${JSON.stringify(counts)}`);
    }
  }
  const optional = <K extends string, V>(key: K, v: V | undefined): { [P in K]?: V } => (v === undefined ? {} : { [key]: v } as { [P in K]: V });
  return {
    module: text('module'),
    export: text('export'),
    operation,
    ...optional('options', options),
    ...optional('attempts', attempts ? { ...attempts, counts: (w['attempts'] as { counts: 'retries' | 'attempts' }).counts } : undefined),
    ...optional('delay', setting('delay', isMs, 'a number of milliseconds')),
    ...optional('factor', setting('factor', isFactor, 'a positive number')),
    ...optional('maxDelay', setting('maxDelay', isMs, 'a number of milliseconds')),
    ...optional('jitter', setting('jitter', isBool, 'true or false')),
    ...optional('errorFilter', setting('errorFilter', isFilter, "'none' or 'helper'")),
    ...optional('deadline', setting('deadline', isMs, 'a number of milliseconds')),
  };
}
