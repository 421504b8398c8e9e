import { ESLintUtils } from '@typescript-eslint/utils';

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

export const createRule = ESLintUtils.RuleCreator<SafeRetryDocs>(
  (name) => `${REPO_URL}/blob/main/rules-docs/${name}.md`,
);
