import { createRequire } from 'node:module';
import type { TSESLint } from '@typescript-eslint/utils';
import type { ESLint } from 'eslint';
import { PRESETS, presetRules, presetSettings, RESILIENCE4J_FILES, resilience4jRules, type Preset } from './configs.js';
import { yamlParser } from './analysis/yaml/parser.js';
import { rules } from './rules/index.js';

const require = createRequire(import.meta.url);
const { name, version } = require('../package.json') as { name: string; version: string };

const namespace = 'safe-retry';

interface FlatConfig {
  name: string;
  // ESLint's own plugin type, so the presets fit defineConfig() and tseslint.config() in a typed eslint.config.ts.
  plugins: Record<string, ESLint.Plugin>;
  rules: Record<string, TSESLint.SharedConfig.RuleEntry>;
  settings?: Record<string, unknown>;
}

interface FileConfig extends FlatConfig {
  files: string[];
  languageOptions: { parser: typeof yamlParser };
}

/** typescript-eslint's rule types and ESLint's Plugin type do not line up; the runtime shapes do. */
const asEslintPlugin = (p: object) => p as ESLint.Plugin;

const plugin = {
  meta: { name, version, namespace },
  rules,
  configs: {} as Record<Preset, FlatConfig> & { resilience4j: FileConfig },
};

for (const preset of PRESETS) {
  plugin.configs[preset] = {
    name: `${namespace}/${preset}`,
    plugins: { [namespace]: asEslintPlugin(plugin) },
    rules: presetRules(rules, namespace, preset),
    ...(presetSettings(preset) ? { settings: presetSettings(preset) } : {}),
  };
}
// Spring Boot YAML: put it after other configs so no JavaScript parser set for all files overrides it.
plugin.configs.resilience4j = {
  name: `${namespace}/resilience4j`,
  files: RESILIENCE4J_FILES,
  plugins: { [namespace]: asEslintPlugin(plugin) },
  languageOptions: { parser: yamlParser },
  rules: resilience4jRules(rules, namespace),
};

export { rules };
export const configs = plugin.configs;
export const meta = plugin.meta;
export default plugin;
