/** Presets derived from rule meta, never from hand-kept lists. */
import type { TSESLint } from '@typescript-eslint/utils';
import type { SafeRetryDocs } from './util/create-rule.js';

type RuleEntry = { meta: { docs?: Partial<SafeRetryDocs> } };
type RulesRecord = Record<string, RuleEntry>;
export type RuleLevels = Record<string, TSESLint.SharedConfig.RuleEntry>;

export const PRESETS = ['recommended', 'strict', 'all'] as const;
export type Preset = (typeof PRESETS)[number];

/** The rule settings a preset turns on: `strict` adds its rules and stricter options to `recommended`. */
export function presetRules(rules: RulesRecord, namespace: string, preset: Preset): RuleLevels {
  const out: RuleLevels = {};
  for (const [name, rule] of Object.entries(rules)) {
    const docs = rule.meta.docs ?? {};
    const level = docs.recommended;
    const on = preset === 'all' || level === 'recommended' || (preset === 'strict' && level === 'strict');
    if (!on) continue;
    const strictOptions = preset !== 'recommended' ? docs.strictOptions : undefined;
    out[`${namespace}/${name}`] = strictOptions ? ['error', ...strictOptions] : 'error';
  }
  return out;
}
