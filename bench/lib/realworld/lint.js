// Linting a file of an extracted repository the way a user of the plugin would: the recommended
// preset (plus resilience4j on Spring YAML), the repository's own config and directives left out,
// each file parsed as its package's module system says (shared by realworld.js and realworld-trees.js).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ESLint } from 'eslint';
import tsParser from '@typescript-eslint/parser';
import safeRetry from '../../../dist/index.js';

export const PREFIX = 'safe-retry/';
const JS = ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts', '**/*.js', '**/*.jsx', '**/*.mjs', '**/*.cjs'];

/** The preset as a user of the plugin turns it on, the repository's own config and directives left out. */
function lintConfig(sourceType) {
  return [
    { files: JS, languageOptions: { parser: tsParser, ecmaVersion: 'latest', sourceType, parserOptions: { ecmaFeatures: { jsx: false } } } },
    { files: ['**/*.jsx', '**/*.tsx'], languageOptions: { parserOptions: { ecmaFeatures: { jsx: true } } } },
    { ...safeRetry.configs.recommended, files: JS },
    safeRetry.configs.resilience4j,
    { linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' } },
  ];
}

/** Node's rule: .mjs/.mts are modules, .cjs/.cts CommonJS, the rest follow the nearest package.json in the repository. */
function sourceTypeOf(repoDir, path) {
  if (/\.m[jt]s$/.test(path)) return 'module';
  if (/\.c[jt]s$/.test(path)) return 'commonjs';
  for (let dir = dirname(join(repoDir, path)); dir.startsWith(repoDir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    try {
      return JSON.parse(readFileSync(manifest, 'utf8')).type === 'module' ? 'module' : 'commonjs';
    } catch {
      return 'commonjs';
    }
  }
  return 'commonjs';
}

/**
 * A linter for one extracted repository: `lint(path)` gives ESLint's result for a file of it
 * (a path relative to `dir`). Bundled application code (Next.js, Create React App, Vite) writes ES
 * modules in .js files of a package without "type": "module"; a user's ESLint parses .js as a
 * module by default. A file that does not parse as its package's module system is linted as the
 * other one.
 */
export function repositoryLinter(dir) {
  const linters = {};
  const linterFor = (sourceType) => (linters[sourceType] ??= new ESLint({ cwd: dir, overrideConfigFile: true, overrideConfig: lintConfig(sourceType) }));
  return async (path) => {
    const sourceType = sourceTypeOf(dir, path);
    let [result] = await linterFor(sourceType).lintFiles([join(dir, path)]);
    if (result.messages.some((m) => m.fatal && /sourceType|import' and 'export|'return' outside/.test(m.message))) {
      [result] = await linterFor(sourceType === 'module' ? 'commonjs' : 'module').lintFiles([join(dir, path)]);
    }
    return result;
  };
}
