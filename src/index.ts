import { createRequire } from 'node:module';
import type { TSESLint } from '@typescript-eslint/utils';
import { PRESETS, presetRules, type Preset } from './configs.js';
import { rules } from './rules/index.js';

const require = createRequire(import.meta.url);
const { name, version } = require('../package.json') as { name: string; version: string };

const namespace = 'safe-retry';

interface FlatConfig {
  name: string;
  plugins: Record<string, unknown>;
  rules: Record<string, TSESLint.SharedConfig.RuleEntry>;
}

const plugin = {
  meta: { name, version, namespace },
  rules,
  configs: {} as Record<Preset, FlatConfig>,
};

for (const preset of PRESETS) {
  plugin.configs[preset] = {
    name: `${namespace}/${preset}`,
    plugins: { [namespace]: plugin },
    rules: presetRules(rules, namespace, preset),
  };
}

export { rules };
export const configs = plugin.configs;
export const meta = plugin.meta;
export default plugin;
