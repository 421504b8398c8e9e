/**
 * The rdjson formatter: reviewdog's schema, UTF-8 byte columns on lines split at \n, and every
 * suggestion (and autofix) as a whole-line suggested change that gives exactly what ESLint's would.
 */
import { readFileSync } from 'node:fs';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { TextIndex, utf8Length } from '../../src/formatters/positions.js';
import format, { toRdjson, type RdjsonDiagnostic, type RdjsonPosition, type RdjsonResult } from '../../src/formatters/rdjson.js';
import plugin from '../../src/index.js';
import { rdjsonErrors } from '../helpers/rdjson.js';

const cwd = new URL('../fixtures/project/', import.meta.url).pathname;

function eslintFor(extra: Linter.Config[] = []) {
  return new ESLint({
    cwd,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as Linter.Parser } },
      plugin.configs.all as Linter.Config,
      ...extra,
    ],
  });
}

async function lint(code: string, file = 'src/inline.ts', extra: Linter.Config[] = []) {
  const eslint = eslintFor(extra);
  const results = await eslint.lintText(code, { filePath: `${cwd}${file}` });
  return { results, rulesMeta: eslint.getRulesMetaForResults(results), eslint };
}

/** Byte offset of an rdjson position in `text`, lines split at \n as reviewdog does. */
function byteOffset(text: string, position: RdjsonPosition): number {
  const lines = text.split('\n');
  let offset = 0;
  for (let i = 0; i < position.line - 1; i++) offset += Buffer.byteLength(lines[i]!, 'utf8') + 1;
  return offset + (position.column ?? 1) - 1;
}

/** The text an rdjson range covers, read the way reviewdog reads it: in UTF-8 bytes. */
function bytesCovered(text: string, d: RdjsonDiagnostic): string {
  const range = d.location.range!;
  return Buffer.from(text, 'utf8').subarray(byteOffset(text, range.start), byteOffset(text, range.end ?? range.start)).toString('utf8');
}

/**
 * Applies an rdjson suggestion as reviewdog's GitHub and GitLab reporters do with a range of lines:
 * the lines from start to end (\n-separated) become the suggestion's text.
 */
function applyLines(text: string, s: NonNullable<RdjsonDiagnostic['suggestions']>[number]): string {
  expect(s.range.start.column).toBeUndefined();
  expect(s.range.end?.column).toBeUndefined();
  const lines = text.split('\n');
  const first = s.range.start.line;
  const last = s.range.end?.line ?? first;
  lines.splice(first - 1, last - first + 1, ...s.text.split('\n'));
  return lines.join('\n');
}

const applyEslintFix = (text: string, fix: { range: readonly [number, number] | [number, number]; text: string }) =>
  text.slice(0, fix.range[0]) + fix.text + text.slice(fix.range[1]);

describe('positions', () => {
  it('counts UTF-8 bytes the way the rdjson spec example does', () => {
    // reviewdog.rdf.Position: in 'a𐐀b' the column of b is 6.
    const index = new TextIndex('a𐐀b');
    expect(index.positionAt('a𐐀'.length).utf8Column).toBe(6);
    expect(utf8Length('ключ')).toBe(8);
    expect(utf8Length('\ud800')).toBe(3); // lone surrogate: written as U+FFFD
  });

  it('maps ESLint lines (which also break at U+2028 and \\r) onto \\n lines', () => {
    const text = 'a\u2028b\r\nc\rd\ne';
    const index = new TextIndex(text);
    // ESLint: 1 "a", 2 "b", 3 "c", 4 "d", 5 "e". Git: 1 "a\u2028b\r", 2 "c\rd", 3 "e".
    expect(index.fromEslint(2, 1)).toEqual({ line: 1, utf16Column: 3, utf8Column: 5 });
    expect(index.fromEslint(4, 1)).toEqual({ line: 2, utf16Column: 3, utf8Column: 3 });
    expect(index.fromEslint(5, 1)).toEqual({ line: 3, utf16Column: 1, utf8Column: 1 });
  });
});

describe('rdjson formatter', () => {
  const code = [
    "import pRetry from 'p-retry';",
    "const note = 'ключ идемпотентности 🔑'; export const a = () => pRetry(() => fetch('/a'), { retries: 10, factor: 1, minTimeout: 500 });",
    "const text = 'line\u2028separator inside a string'; export const b = () => pRetry(() => fetch('/b'), { retries: 12, minTimeout: 500, factor: 2 });",
    '',
  ].join('\n');

  it('validates against reviewdog schema (published and strict)', async () => {
    const { results, rulesMeta } = await lint(code);
    const output = JSON.parse(format(results, { cwd, rulesMeta })) as RdjsonResult;
    expect(rdjsonErrors(output)).toEqual([]);
    expect(output.diagnostics.length).toBeGreaterThan(3);
    expect(output.source).toEqual({ name: 'eslint', url: 'https://eslint.org' });
  });

  it('names the file relative to cwd, the rule, its docs and the severity', async () => {
    const { results, rulesMeta } = await lint(code);
    const d = toRdjson(results, { cwd, rulesMeta }).diagnostics.find((x) => x.code?.value === 'safe-retry/max-retry-attempts')!;
    expect(d).toMatchObject({
      location: { path: 'src/inline.ts' },
      severity: 'ERROR',
      code: { value: 'safe-retry/max-retry-attempts', url: expect.stringMatching(/rules-docs\/max-retry-attempts\.md$/) },
    });
    expect(d.message).toMatch(/\(R-RES-RE-3\)/);
  });

  it('puts ranges in UTF-8 bytes on \\n lines: the bytes it points at are the reported text', async () => {
    const { results, rulesMeta } = await lint(code);
    const attempts = toRdjson(results, { cwd, rulesMeta }).diagnostics.filter((x) => x.code?.value === 'safe-retry/max-retry-attempts');
    expect(attempts.map((d) => bytesCovered(code, d))).toEqual(['retries: 10', 'retries: 12']);
    // Line 2 has Cyrillic and an emoji before the option: byte columns are past UTF-16 ones.
    const first = attempts[0]!;
    const eslintMessage = results[0]!.messages.find((m) => m.ruleId === 'safe-retry/max-retry-attempts')!;
    expect(first.location.range!.start.line).toBe(2);
    expect(first.location.range!.start.column).toBeGreaterThan(eslintMessage.column);
    // Line 3 holds a U+2028: ESLint calls the finding line 4, git and reviewdog line 3.
    const second = attempts[1]!;
    const eslintSecond = results[0]!.messages.filter((m) => m.ruleId === 'safe-retry/max-retry-attempts')[1]!;
    expect(eslintSecond.line).toBe(4);
    expect(second.location.range!.start.line).toBe(3);
  });

  it('carries every suggestion as a suggested change that produces what ESLint would', async () => {
    const { results, rulesMeta } = await lint(code);
    const messages = results[0]!.messages.filter((m) => m.suggestions?.length);
    expect(new Set(messages.map((m) => m.ruleId)).size).toBeGreaterThanOrEqual(3);
    const diagnostics = toRdjson(results, { cwd, rulesMeta }).diagnostics;
    // Two findings can share a rule and a message (both lines lack jitter): pair them in order.
    const seen = new Map<string, number>();
    for (const message of messages) {
      const id = `${message.ruleId} ${message.message}`;
      const nth = seen.get(id) ?? 0;
      seen.set(id, nth + 1);
      const d = diagnostics.filter((x) => x.code?.value === message.ruleId && x.message === message.message)[nth]!;
      expect(d.suggestions, message.message).toHaveLength(message.suggestions!.length);
      message.suggestions!.forEach((s, i) => {
        expect(applyLines(code, d.suggestions![i]!)).toBe(applyEslintFix(code, s.fix));
      });
      // One line range for all of them, holding the finding: reviewdog posts a suggestion on
      // GitHub only when its lines are the comment's.
      const ranges = new Set(d.suggestions!.map((s) => JSON.stringify(s.range)));
      expect(ranges.size, message.message).toBe(1);
      const { start, end } = d.suggestions![0]!.range;
      expect(start.line).toBeLessThanOrEqual(d.location.range!.start.line);
      expect(end!.line).toBeGreaterThanOrEqual(d.location.range!.end?.line ?? d.location.range!.start.line);
    }
  });

  it('gives every suggestion of a finding the same lines when its edits lie on different lines', async () => {
    // An autofix on line 2 and a suggestion on line 3 of one message, as a rule could report them.
    const text = 'const a = 1;\nconst b = 2;\nconst c = 3;\nconst d = 4;\n';
    const start = text.indexOf('2;');
    const message: Linter.LintMessage = {
      ruleId: 'x/y', severity: 2, message: 'm', line: 2, column: 11, endLine: 2, endColumn: 12,
      fix: { range: [start, start + 1], text: '20' },
      suggestions: [{ desc: 'd', fix: { range: [text.indexOf('3;'), text.indexOf('3;') + 1], text: '30\nconst e = 5' } }],
    };
    const result = { filePath: `${cwd}src/lines.ts`, source: text, messages: [message] } as unknown as ESLint.LintResult;
    const [d] = toRdjson([result], { cwd }).diagnostics;
    expect(d!.suggestions).toEqual([
      { range: { start: { line: 2 }, end: { line: 3 } }, text: 'const b = 20;\nconst c = 3;' },
      { range: { start: { line: 2 }, end: { line: 3 } }, text: 'const b = 2;\nconst c = 30\nconst e = 5;' },
    ]);
    expect(applyLines(text, d!.suggestions![1]!)).toBe('const a = 1;\nconst b = 2;\nconst c = 30\nconst e = 5;\nconst d = 4;\n');
    expect(rdjsonErrors(toRdjson([result], { cwd }))).toEqual([]);
  });

  it('carries autofixes too, and handles CRLF files', async () => {
    const crlf = "let fixed = 'é';\r\nexport const x = fixed;\r\n";
    const { results, rulesMeta } = await lint(crlf, 'src/crlf.ts', [{ rules: { 'prefer-const': 'error' } }]);
    const message = results[0]!.messages.find((m) => m.ruleId === 'prefer-const')!;
    const d = toRdjson(results, { cwd, rulesMeta }).diagnostics.find((x) => x.code?.value === 'prefer-const')!;
    expect(d.suggestions).toEqual([{ range: { start: { line: 1 }, end: { line: 1 } }, text: "const fixed = 'é';\r" }]);
    expect(applyLines(crlf, d.suggestions![0]!)).toBe(applyEslintFix(crlf, message.fix!));
    expect(bytesCovered(crlf, d)).toBe('fixed');
  });

  it('reports parse errors without a code, and measures against the fixed output after --fix', async () => {
    const broken = await lint("const s = 'ü'; pRetry(() => {", 'src/broken.ts');
    const d = toRdjson(broken.results, { cwd, rulesMeta: broken.rulesMeta }).diagnostics[0]!;
    expect(d.code).toBeUndefined();
    expect(d.severity).toBe('ERROR');
    expect(rdjsonErrors(toRdjson(broken.results, { cwd }))).toEqual([]);

    const eslint = new ESLint({ cwd, overrideConfigFile: true, fix: true, overrideConfig: [{ rules: { 'prefer-const': 'error', 'no-debugger': 'error' } }] });
    const results = await eslint.lintText("let a = 'ä'; debugger;\n", { filePath: `${cwd}src/fixed.js` });
    expect(results[0]!.output).toBe("const a = 'ä'; debugger;\n");
    const debug = toRdjson(results, { cwd }).diagnostics.find((x) => x.code?.value === 'no-debugger')!;
    expect(bytesCovered(results[0]!.output!, debug)).toBe('debugger;');
  });

  it('loads through ESLint as a formatter file and through the package exports', async () => {
    const eslint = eslintFor();
    const formatter = await eslint.loadFormatter(new URL('../../dist/formatters/rdjson.js', import.meta.url).pathname);
    const results = await eslint.lintText(code, { filePath: `${cwd}src/inline.ts` });
    const output = JSON.parse(await formatter.format(results)) as RdjsonResult;
    expect(rdjsonErrors(output)).toEqual([]);
    expect(output.diagnostics.some((d) => d.code?.value === 'safe-retry/max-retry-attempts' && d.code.url)).toBe(true);

    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { exports: Record<string, { default: string; types: string }> };
    expect(pkg.exports['./formatter-rdjson']).toEqual({ types: './dist/formatters/rdjson.d.ts', default: './dist/formatters/rdjson.js' });
    const viaExports = (await import('eslint-plugin-safe-retry/formatter-rdjson' as string)) as { default: typeof format };
    expect(typeof viaExports.default).toBe('function');
  });

  it("matches the README's reviewdog example: the diagnostic and the suggested change it shows", async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### Suggestions on pull requests (reviewdog)'), readme.indexOf('### GitHub code scanning'));
    const block = (fence: string) => {
      const start = section.indexOf(`${fence}\n`);
      expect(start, fence).toBeGreaterThan(-1);
      const body = section.slice(start + fence.length + 1);
      return body.slice(0, body.indexOf('\n```'));
    };
    // The file as the README shows it, whole: the line numbers it quotes are the block's own.
    expect(section).toContain('adds this file, `src/orders.ts`:');
    const source = block('```ts');
    const shown = JSON.parse(block('```json')) as RdjsonDiagnostic;
    const suggestion = block('```suggestion');

    // The preset alone, as the README's configs use it: it brings the files and the parser.
    const eslint = new ESLint({ cwd, overrideConfigFile: true, overrideConfig: [plugin.configs.recommended as Linter.Config] });
    const results = await eslint.lintText(`${source}\n`, { filePath: `${cwd}src/orders.ts` });
    const diagnostics = toRdjson(results, { cwd, rulesMeta: eslint.getRulesMetaForResults(results) }).diagnostics;
    // The other diagnostic is p-retry's import itself (R-RES-RE-X4), as the README says.
    expect(diagnostics.map((d) => d.code?.value)).toEqual(['safe-retry/no-legacy-retry', 'safe-retry/max-retry-attempts']);
    expect(diagnostics[1]).toEqual(shown);
    expect(shown.suggestions!.map((s) => s.text)).toEqual([suggestion]);
    expect(rdjsonErrors({ source: shown.source, diagnostics })).toEqual([]);
  });
});
