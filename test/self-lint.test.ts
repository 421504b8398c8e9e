/** The plugin passes eslint-plugin-eslint-plugin and its own recommended preset (eslint.config.js). */
import { ESLint } from 'eslint';
import { expect, it } from 'vitest';

it('lints its own sources clean', async () => {
  const cwd = new URL('..', import.meta.url).pathname;
  const eslint = new ESLint({ cwd });
  const results = await eslint.lintFiles(['src']);
  const problems = results.flatMap((r) => r.messages.map((m) => `${r.filePath.slice(cwd.length)}:${m.line}:${m.column} ${m.ruleId}: ${m.message}`));
  expect(results.length).toBeGreaterThan(20);
  expect(problems).toEqual([]);
}, 120_000);
