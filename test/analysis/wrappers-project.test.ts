/**
 * The "done when": a project whose only retries go through an in-house `withRetry`
 * helper in another file gets the same findings as the same project calling p-retry directly.
 * Real ESLint class, real files, the recommended preset.
 */
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../../src/index.js';

const root = new URL('../fixtures/wrappers/', import.meta.url).pathname;

interface Found { file: string; rule: string; line: number; text: string; message: string }

async function lintProject(dir: string): Promise<Found[]> {
  const cwd = `${root}${dir}/`;
  const eslint = new ESLint({
    cwd,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as never } },
      plugin.configs.recommended as never,
    ],
  });
  const results = await eslint.lintFiles(['src']);
  return results.flatMap((r) => {
    const lines = (r.source ?? '').split('\n');
    return r.messages.map((m) => {
      const line = lines[m.line - 1] ?? '';
      return {
        file: r.filePath.slice(cwd.length),
        rule: (m.ruleId ?? '').replace('safe-retry/', ''),
        line: m.line,
        text: m.endLine === m.line ? line.slice(m.column - 1, (m.endColumn ?? m.column) - 1) : line.slice(m.column - 1),
        message: m.message,
      };
    });
  });
}

const byRule = (found: readonly Found[]) => {
  const out: Record<string, string[]> = {};
  for (const f of found) (out[f.rule] ??= []).push(`${f.file}:${f.line} ${f.text}`);
  for (const list of Object.values(out)) list.sort();
  return out;
};

describe('a project that retries through its own helper in another file', () => {
  it('gets the same findings, rule by rule, as calling p-retry directly, at the call sites', async () => {
    // The direct project imports p-retry, a legacy helper (R-RES-RE-X4); the team's helper is
    // written by hand and imports nothing. The rest is compared call by call.
    const [directAll, helperAll] = [await lintProject('direct'), await lintProject('helper')];
    expect(directAll.filter((f) => f.rule === 'no-legacy-retry').map((f) => `${f.file} ${f.text}`)).toEqual(["src/orders.ts 'p-retry'"]);
    expect(helperAll.filter((f) => f.rule === 'no-legacy-retry')).toEqual([]);
    const direct = directAll.filter((f) => f.rule !== 'no-legacy-retry');
    const helper = helperAll.filter((f) => f.rule !== 'no-legacy-retry');
    // Same rules, same number of findings each, on the same lines and the same option or call.
    const expected = byRule(direct.map((f) => ({ ...f, text: f.text.replace(/^pRetry$/, 'withRetry') })));
    expect(byRule(helper)).toEqual(expected);
    expect(Object.keys(expected).sort()).toEqual([
      'max-retry-attempts', 'max-retry-duration', 'no-nested-retry', 'no-retry-on-client-error', 'no-unsafe-write-retry', 'require-exponential-backoff', 'require-jitter',
    ]);
    // The helper itself has sound defaults: nothing is reported inside it, everything at the calls.
    expect(helper.filter((f) => f.file !== 'src/orders.ts')).toEqual([]);
    // Messages name the helper, as they name p-retry.
    expect(helper.find((f) => f.rule === 'max-retry-attempts')?.message).toMatch(/^withRetry\(\) makes up to 11 calls/);
    expect(direct.find((f) => f.rule === 'max-retry-attempts')?.message).toMatch(/^pRetry\(\) makes up to 11 calls/);
  });
});
