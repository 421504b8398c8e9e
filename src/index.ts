import { createRequire } from 'node:module';
import type { TSESLint } from '@typescript-eslint/utils';
import type { ESLint, Linter } from 'eslint';
import { CODE_FILES, codeParser, PRESETS, presetRules, presetSettings, RESILIENCE4J_FILES, resilience4jRules, type Preset } from './configs.js';
import { yamlParser } from './analysis/yaml/parser.js';
import { rules } from './rules/index.js';

const require = createRequire(import.meta.url);
const { name, version } = require('../package.json') as { name: string; version: string };

const namespace = 'safe-retry';

/**
 * One config object per preset, complete on its own: the files it lints, the parser they need, the
 * plugin and the rules. An object rather than an array, so `configs.recommended.rules` and
 * `{ ...configs.recommended, files }` keep working.
 */
interface FlatConfig {
  name: string;
  files: string[];
  // ESLint's own plugin type, so the presets fit defineConfig() and tseslint.config() in a typed eslint.config.ts.
  plugins: Record<string, ESLint.Plugin>;
  languageOptions: { parser: Linter.Parser; parserOptions?: Linter.ParserOptions };
  rules: Record<string, TSESLint.SharedConfig.RuleEntry>;
  settings?: Record<string, unknown>;
}

/** typescript-eslint's rule types and ESLint's Plugin type do not line up; the runtime shapes do. */
const asEslintPlugin = (p: object) => p as ESLint.Plugin;

const plugin = {
  meta: { name, version, namespace },
  rules,
  configs: {} as Record<Preset | 'resilience4j', FlatConfig>,
};

const parser = codeParser(version, false);
const typedParser = codeParser(version, true);

for (const preset of PRESETS) {
  const typed = preset === 'recommended-type-checked';
  plugin.configs[preset] = {
    name: `${namespace}/${preset}`,
    files: CODE_FILES,
    plugins: { [namespace]: asEslintPlugin(plugin) },
    languageOptions: typed ? { parser: typedParser, parserOptions: { projectService: true } } : { parser },
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
