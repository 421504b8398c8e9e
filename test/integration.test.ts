/** The real ESLint class (what the CLI and the VS Code extension use) with the published presets. */
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const cwd = new URL('./fixtures/project/', import.meta.url).pathname;

async function lintProject(preset: 'recommended' | 'strict' | 'all') {
  // The built package, as a user's config would import it.
  const { default: safeRetry } = await import('../dist/index.js');
  const eslint = new ESLint({
    cwd,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as never } },
      { files: ['**/*.js'], languageOptions: { sourceType: 'commonjs' } },
      safeRetry.configs[preset] as never,
    ],
  });
  const results = await eslint.lintFiles(['src']);
  return results
    .flatMap((r) => r.messages.map((m) => `${r.filePath.slice(cwd.length)}:${m.line}:${m.column} ${m.ruleId}`))
    .sort();
}

describe('ESLint integration', () => {
  it('reports the fixture project with the recommended preset', async () => {
    expect(await lintProject('recommended')).toEqual([
      'src/orders.ts:9:48 safe-retry/max-retry-attempts',
      'src/orders.ts:9:60 safe-retry/require-exponential-backoff',
      'src/orders.ts:2:19 safe-retry/no-legacy-retry',
      'src/orders.ts:9:10 safe-retry/max-retry-duration',
      'src/report.js:4:55 safe-retry/require-jitter',
    ].sort());
  });

  it('works the same under every preset for these rules', async () => {
    const all = await lintProject('all');
    expect(all).toEqual(expect.arrayContaining(await lintProject('recommended')));
  });
});
