import { RuleCreator, applyDefault } from '@typescript-eslint/utils/eslint-utils';

/** Which preset first turns a rule on. `strict` includes everything in `recommended`. */
export type PresetName = 'recommended' | 'strict';

export interface SafeRetryDocs {
  description: string;
  /** The first preset that enables the rule; rules without it are only in `all`. */
  recommended?: PresetName;
  /** Options the `strict` preset uses instead of the defaults (e.g. stricter method handling). */
  strictOptions?: readonly unknown[];
  /** Guide rule ids this rule enforces, e.g. `R-RES-RE-3`; shown in docs and used to group findings. */
  guideRules: readonly string[];
  requiresTypeChecking?: boolean;
}

export const REPO_URL = 'https://github.com/safe-retry/eslint-plugin-safe-retry';

const createNamedRule = RuleCreator<SafeRetryDocs>(
  (name) => `${REPO_URL}/blob/main/rules-docs/${name}.md`,
);

/**
 * typescript-eslint's rule creator, with the options merged once per distinct options value rather
 * than once per file. Its own `create` deep-clones the defaults with `structuredClone` on every
 * file, which on the benchmark corpus cost a third as much as this plugin's whole analysis.
 * ESLint hands each file a fresh options array, so the key is the options' JSON (schema-checked
 * plain data, usually empty); the merged options are frozen, since files now share them.
 */
export const createRule: typeof createNamedRule = (spec) => {
  const rule = createNamedRule(spec);
  const defaults = (spec.meta.defaultOptions ?? spec.defaultOptions ?? []) as never;
  type Options = Parameters<typeof spec.create>[1];
  const merged = new Map<string, Options>();
  return {
    ...rule,
    create(context) {
      const given = context.options as readonly unknown[] | undefined;
      let key: string | undefined;
      try {
        key = !given || given.length === 0 ? '' : JSON.stringify(given);
      } catch {
        key = undefined; // not plain data: merge for this file only
      }
      let options = key === undefined ? undefined : merged.get(key);
      if (!options) {
        options = deepFreeze(applyDefault(defaults, given as never)) as Options;
        if (key !== undefined) {
          if (merged.size >= 64) merged.clear();
          merged.set(key, options);
        }
      }
      return spec.create(context, options);
    },
  };
};

function deepFreeze<V>(value: V): V {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
