/** `safe-retry-check --apply-suggestions RULE`: the built bin on a fixture project, and the edit picker. */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { suggestionEdits } from '../../src/cli/apply-suggestions.js';

const bin = new URL('../../dist/cli/check.js', import.meta.url).pathname;

function run(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 99) : 0, stdout, stderr });
    });
  });
}

function project(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'safe-retry-apply-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

const LOAD_TS = [
  "import retry from 'async-retry';",
  "import axios from 'axios';",
  '',
  'export const user = (id: string) => retry(() => axios.get(`/users/${id}`), { retries: 2, minTimeout: 500, factor: 2, maxTimeout: 2000 });',
  'export const team = (id: string) => retry(async () => (await axios.get(`/teams/${id}`)).data, { retries: 1 });',
  '',
].join('\n');

const PAY_JS = [
  "const retry = require('async-retry');",
  "const axios = require('axios');",
  "exports.pay = (body) => retry(() => axios.post('/payments', body), { retries: 2, onRetry: (e) => console.warn(e) });",
  '',
].join('\n');

describe('safe-retry-check --apply-suggestions', () => {
  it('migrates every legacy call it can, leaves the rest, says what it changed and reports on the changed code', async () => {
    const root = project({ 'src/load.ts': LOAD_TS, 'src/pay.js': PAY_JS });
    const { code, stdout, stderr } = await run(['--apply-suggestions', 'no-legacy-retry', '--format', 'json'], root);
    expect(readFileSync(path.join(root, 'src/load.ts'), 'utf8')).toBe([
      "import { createRetryPolicy } from 'eslint-plugin-safe-retry/runtime';",
      "import axios from 'axios';",
      '',
      'export const user = (id: string) => createRetryPolicy({ maxAttempts: 3, initialDelayMs: 500, multiplier: 2, maxDelayMs: 2000 }).read(() => axios.get(`/users/${id}`));',
      'export const team = (id: string) => createRetryPolicy({ maxAttempts: 2 }).read(async () => (await axios.get(`/teams/${id}`)).data);',
      '',
    ].join('\n'));
    // An option with no equivalent (onRetry): untouched, and still reported with the reason.
    expect(readFileSync(path.join(root, 'src/pay.js'), 'utf8')).toBe(PAY_JS);
    expect(stderr).toContain('src/load.ts: 1 applied (line 1)');
    expect(stderr).toContain('applied 1 suggestion of no-legacy-retry in 1 file');
    const results = JSON.parse(stdout) as ESLint.LintResult[];
    const legacy = results.flatMap((r) => r.messages.filter((m) => m.ruleId === 'safe-retry/no-legacy-retry').map((m) => path.basename(r.filePath)));
    expect(legacy).toEqual(['pay.js']);
    expect(code).toBe(1);
  });

  it('applies an edit two findings share once, and the re-lint finds neither', async () => {
    const root = project({
      'f.ts': "import fetchBuilder from 'fetch-retry';\nexport const f = fetchBuilder(fetch, { retries: 2, retryDelay: 500, retryOn: [400, 404, 500, 503] });\n",
    });
    const { stdout, stderr } = await run(['--apply-suggestions', 'safe-retry/no-retry-on-client-error', '-f', 'json'], root);
    expect(readFileSync(path.join(root, 'f.ts'), 'utf8')).toContain('retryOn: [500, 503]');
    expect(stderr).toContain('f.ts: 2 applied (lines 2, 2)');
    const results = JSON.parse(stdout) as ESLint.LintResult[];
    expect(results.flatMap((r) => r.messages).filter((m) => m.ruleId === 'safe-retry/no-retry-on-client-error')).toEqual([]);
  });

  it('refuses an unknown rule with exit 2, and says when there is nothing to apply', async () => {
    const root = project({ 'a.ts': "export const ok = () => fetch('/health');\n" });
    const unknown = await run(['--apply-suggestions', 'no-such-rule'], root);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown rule 'no-such-rule'");
    const none = await run(['--apply-suggestions', 'no-legacy-retry'], root);
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('no finding of no-legacy-retry has a suggestion to apply');
  });
});

describe('suggestionEdits', () => {
  const message = (line: number, range: [number, number], text: string) => ({
    ruleId: 'safe-retry/x', severity: 2 as const, message: '', line, column: 1, suggestions: [{ desc: '', fix: { range, text } }],
  });
  it('takes one edit per finding and skips one that overlaps an edit already taken', () => {
    const source = 'abcdefghij';
    const result = {
      filePath: '/p/a.ts', source, messages: [message(1, [6, 8], 'X'), message(1, [0, 3], 'Y'), message(1, [2, 5], 'Z'), message(1, [0, 3], 'Y')],
    } as unknown as ESLint.LintResult;
    const [edits] = suggestionEdits([result], 'safe-retry/x');
    expect(edits).toMatchObject({ output: 'YdefXij', applied: 3, skipped: 1 });
  });
});
