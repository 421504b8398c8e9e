/**
 * GitHub code scanning through @microsoft/eslint-formatter-sarif (what the README recommends for
 * the `eslint` CLI): our messages, rule ids, docs links and exact ranges survive the conversion.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../../src/index.js';

const require = createRequire(import.meta.url);
const sarifFormatter = require('@microsoft/eslint-formatter-sarif') as (results: ESLint.LintResult[], data: ESLint.LintResultData) => string;

interface SarifLog {
  version: string;
  runs: Array<{
    tool: { driver: { rules: Array<{ id: string; helpUri?: string; shortDescription?: { text: string } }> } };
    results: Array<{
      ruleId: string;
      ruleIndex: number;
      level: string;
      message: { text: string };
      locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; startColumn: number; endLine: number; endColumn: number } } }>;
    }>;
  }>;
}

const cwd = new URL('../fixtures/project/', import.meta.url).pathname;

const code = [
  "import pRetry from 'p-retry';",
  "import got from 'got';",
  "const label = 'заказ №1 ✓'; export const a = () => pRetry(() => fetch('/a'), { retries: 10, factor: 1, minTimeout: 500 });",
  "export const client = got.extend({ retry: { limit: 2, statusCodes: [404, 500, 503] } });",
  '',
].join('\n');

describe('SARIF via @microsoft/eslint-formatter-sarif', () => {
  it('keeps every message, rule, docs link and range', async () => {
    const eslint = new ESLint({
      cwd,
      overrideConfigFile: true,
      overrideConfig: [
        { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as Linter.Parser } },
        plugin.configs.recommended as Linter.Config,
      ],
    });
    const filePath = `${cwd}src/sarif.ts`;
    const results = await eslint.lintText(code, { filePath });
    const messages = results[0]!.messages;
    expect(messages.map((m) => m.ruleId)).toEqual(expect.arrayContaining([
      'safe-retry/max-retry-attempts',
      'safe-retry/require-exponential-backoff',
      'safe-retry/no-retry-on-client-error',
    ]));

    const log = JSON.parse(sarifFormatter(results, { cwd, rulesMeta: eslint.getRulesMetaForResults(results) })) as SarifLog;
    expect(log.version).toBe('2.1.0');
    const run = log.runs[0]!;
    expect(run.results).toHaveLength(messages.length);
    const lines = code.split('\n');
    for (const [i, message] of messages.entries()) {
      const result = run.results[i]!;
      expect(result.ruleId).toBe(message.ruleId);
      expect(result.message.text).toBe(message.message);
      expect(result.level).toBe('error');
      const { artifactLocation, region } = result.locations[0]!.physicalLocation;
      expect(artifactLocation.uri).toBe(pathToFileURL(filePath).href);
      expect(region).toEqual({ startLine: message.line, startColumn: message.column, endLine: message.endLine, endColumn: message.endColumn });
      // SARIF's default column kind is UTF-16 code units, ESLint's too: the region is the squiggle.
      if (region.startLine === region.endLine) {
        const covered = lines[region.startLine - 1]!.slice(region.startColumn - 1, region.endColumn - 1);
        expect(covered.length).toBeGreaterThan(0);
        if (message.ruleId === 'safe-retry/max-retry-attempts') expect(covered).toBe('retries: 10');
        if (message.ruleId === 'safe-retry/no-retry-on-client-error') expect(covered).toBe('404');
      }
      const rule = run.tool.driver.rules[result.ruleIndex]!;
      expect(rule.id).toBe(message.ruleId);
      expect(rule.helpUri).toMatch(/rules-docs\/[a-z-]+\.md$/);
      expect(rule.shortDescription?.text).toMatch(/^(Enforce|Require|Disallow) /);
    }
  });
});
