import * as tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import plugin from '../../src/index.js';

/**
 * `line rule` of every finding of the recommended preset, linting `code` as the file `filename`
 * (an absolute path, so that its imports are followed into the files a test project wrote).
 */
export function lintAt(code: string, filename: string, sourceType: 'module' | 'commonjs' = 'module'): string[] {
  const linter = new Linter({ configType: 'flat', cwd: '/' });
  const messages = linter.verify(code, [{
    files: ['**/*.{ts,tsx,js}'],
    plugins: { 'safe-retry': plugin as never },
    languageOptions: { parser: tsParser as never, sourceType, parserOptions: { ecmaFeatures: { jsx: true } } },
    rules: plugin.configs.recommended.rules as never,
  }], filename);
  return messages.map((m) => `${m.line} ${(m.ruleId ?? m.message).replace('safe-retry/', '')}`).sort();
}
