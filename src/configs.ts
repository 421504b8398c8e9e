/** Presets derived from rule meta, never from hand-kept lists. */
import type { TSESLint } from '@typescript-eslint/utils';
import type { SafeRetryDocs } from './util/create-rule.js';

type RuleEntry = { meta: { docs?: Partial<SafeRetryDocs> } };
type RulesRecord = Record<string, RuleEntry>;
export type RuleLevels = Record<string, TSESLint.SharedConfig.RuleEntry>;

export const PRESETS = ['recommended', 'strict', 'all', 'recommended-type-checked'] as const;
export type Preset = (typeof PRESETS)[number];

/** The rule settings a preset turns on: `strict` adds its rules and stricter options to `recommended`. */
export function presetRules(rules: RulesRecord, namespace: string, preset: Preset): RuleLevels {
  const out: RuleLevels = {};
  for (const [name, rule] of Object.entries(rules)) {
    const docs = rule.meta.docs ?? {};
    const level = docs.recommended;
    // recommended-type-checked: the recommended rules, with the type-aware layer switched on (settings).
    const on = preset === 'all' || level === 'recommended' || (preset === 'strict' && level === 'strict');
    if (!on) continue;
    const strictOptions = preset === 'strict' || preset === 'all' ? docs.strictOptions : undefined;
    out[`${namespace}/${name}`] = strictOptions ? ['error', ...strictOptions] : 'error';
  }
  return out;
}

/** Spring Boot's configuration files, where Resilience4j retry instances are configured. */
export const RESILIENCE4J_FILES = ['**/application*.yml', '**/application*.yaml'];

/**
 * The `resilience4j` preset judges Spring YAML with the `recommended` rule settings: the same rule
 * ids and messages, fed by the YAML source of the retry model (rules about code find nothing there).
 */
export function resilience4jRules(rules: RulesRecord, namespace: string): RuleLevels {
  return presetRules(rules, namespace, 'recommended');
}

/** Shared settings a preset carries: only the type-checked preset turns the type-aware layer on. */
export function presetSettings(preset: Preset): Record<string, unknown> | undefined {
  return preset === 'recommended-type-checked' ? { 'safe-retry': { typeAware: true } } : undefined;
}
