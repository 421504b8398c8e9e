// The plugin lints itself: eslint-plugin-eslint-plugin on the rules, and its own recommended
// preset on everything it ships (the runtime included).
import eslintPlugin from 'eslint-plugin-eslint-plugin';
import tseslint from 'typescript-eslint';
import safeRetry from './dist/index.js';

export default [
  { ignores: ['dist/', 'node_modules/', 'test/fixtures/', 'examples/', 'bench/', '**/*.d.ts'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
  },
  {
    files: ['src/rules/**/*.ts'],
    ...eslintPlugin.configs.recommended,
    rules: {
      ...eslintPlugin.configs.recommended.rules,
      'eslint-plugin/require-meta-docs-description': ['error', { pattern: '^(Enforce|Require|Disallow) ' }],
      'eslint-plugin/require-meta-schema-description': 'error',
      'eslint-plugin/require-meta-docs-url': 'off', // filled by the RuleCreator factory
      // RuleCreator merges the top-level defaultOptions; meta.defaultOptions would duplicate them.
      'eslint-plugin/require-meta-default-options': 'off',
      'eslint-plugin/no-property-in-node': 'off', // needs type information
    },
  },
  // files after the spread: the preset brings its own (every JavaScript and TypeScript file).
  { ...safeRetry.configs.recommended, files: ['src/**/*.ts'] },
];
