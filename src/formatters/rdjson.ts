/**
 * ESLint formatter for reviewdog's rdjson (reviewdog.rdf.DiagnosticResult).
 *
 * Unlike a formatter that only carries autofixes, every ESLint *suggestion* becomes an rdjson
 * suggestion, so reviewdog's `github-pr-review` reporter shows it as a one-click suggested
 * change on the pull request. Most of this plugin's fixes are suggestions: they change
 * behaviour (fewer attempts, other delays), so a person has to accept them.
 *
 * Positions follow the rdjson spec: 1-based lines split at \n, 1-based columns in UTF-8 bytes,
 * exclusive ends.
 *
 * Suggestions replace whole lines (a range of lines without columns, the text being the new
 * content of those lines without the last line break), and all suggestions of one diagnostic
 * cover the same lines, which include the diagnostic's own. That is the form every reviewdog
 * reporter applies as written: GitLab ignores columns and replaces the lines of the range, and
 * GitHub posts a suggestion only when its lines are the comment's lines (the first suggestion's,
 * or else the diagnostic's) and needs the diff's copy of a line to apply columns within it. A
 * suggestion that touches a line outside the pull request's diff still cannot be posted there.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ESLint, Linter } from 'eslint';
import { TextIndex } from './positions.js';

export interface RdjsonPosition {
  line: number;
  column?: number;
}

export interface RdjsonRange {
  start: RdjsonPosition;
  end?: RdjsonPosition;
}

export interface RdjsonSuggestion {
  range: RdjsonRange;
  text: string;
}

export interface RdjsonDiagnostic {
  message: string;
  location: { path: string; range?: RdjsonRange };
  severity: 'ERROR' | 'WARNING' | 'INFO';
  source: { name: string; url?: string };
  code?: { value: string; url?: string };
  suggestions?: RdjsonSuggestion[];
}

export interface RdjsonResult {
  source: { name: string; url?: string };
  diagnostics: RdjsonDiagnostic[];
}

const SOURCE = { name: 'eslint', url: 'https://eslint.org' };

type Fix = { range: readonly [number, number] | [number, number]; text: string };

/** Builds the rdjson object; `format` serialises it. Exported for the zero-config check and tests. */
export function toRdjson(results: readonly ESLint.LintResult[], context?: Partial<ESLint.LintResultData>): RdjsonResult {
  const cwd = context?.cwd ?? process.cwd();
  const rulesMeta = context?.rulesMeta ?? {};
  const diagnostics: RdjsonDiagnostic[] = [];
  for (const result of results) {
    if (result.messages.length === 0) continue;
    const index = textIndexOf(result);
    const file = relativePath(cwd, result.filePath);
    for (const message of result.messages) diagnostics.push(diagnosticOf(message, file, index, rulesMeta));
  }
  return { source: SOURCE, diagnostics };
}

export default function format(results: ESLint.LintResult[], context?: ESLint.LintResultData): string {
  return JSON.stringify(toRdjson(results, context));
}

function diagnosticOf(
  message: Linter.LintMessage,
  file: string,
  index: TextIndex | undefined,
  rulesMeta: Record<string, { docs?: { url?: string } } | undefined>,
): RdjsonDiagnostic {
  const diagnostic: RdjsonDiagnostic = {
    message: message.message,
    location: { path: file },
    severity: message.severity === 2 ? 'ERROR' : 'WARNING',
    source: SOURCE,
  };
  if (message.line > 0) diagnostic.location.range = messageRange(message, index);
  if (message.ruleId) {
    const url = rulesMeta[message.ruleId]?.docs?.url;
    diagnostic.code = url ? { value: message.ruleId, url } : { value: message.ruleId };
  }
  const fixes: Fix[] = [];
  if (message.fix) fixes.push(message.fix);
  for (const suggestion of message.suggestions ?? []) fixes.push(suggestion.fix);
  // Fix ranges are offsets into the text; without the text they cannot be placed.
  if (index && fixes.length > 0) diagnostic.suggestions = lineSuggestions(fixes, message, index);
  return diagnostic;
}

/** Every fix as a replacement of the same whole lines: those of all the fixes and of the finding. */
function lineSuggestions(fixes: readonly Fix[], message: Linter.LintMessage, index: TextIndex): RdjsonSuggestion[] {
  let first = index.fromEslint(message.line, message.column).line;
  let last = message.endLine !== undefined ? index.fromEslint(message.endLine, message.endColumn ?? 1).line : first;
  for (const fix of fixes) {
    first = Math.min(first, index.positionAt(fix.range[0]).line);
    last = Math.max(last, index.positionAt(fix.range[1]).line);
  }
  const start = index.lineStart(first);
  const end = index.lineEnd(last);
  const range: RdjsonRange = { start: { line: first }, end: { line: last } };
  return fixes.map((fix) => ({
    range,
    text: index.text.slice(start, fix.range[0]) + fix.text + index.text.slice(fix.range[1], end),
  }));
}

function messageRange(message: Linter.LintMessage, index: TextIndex | undefined): RdjsonRange {
  if (!index) {
    // No text to measure: ESLint's numbers are right for ASCII lines, the common case.
    const range: RdjsonRange = { start: { line: message.line, column: message.column } };
    if (message.endLine !== undefined && message.endColumn !== undefined) range.end = { line: message.endLine, column: message.endColumn };
    return range;
  }
  const start = index.fromEslint(message.line, message.column);
  const range: RdjsonRange = { start: { line: start.line, column: start.utf8Column } };
  if (message.endLine !== undefined && message.endColumn !== undefined) {
    const end = index.fromEslint(message.endLine, message.endColumn);
    range.end = { line: end.line, column: end.utf8Column };
  }
  return range;
}

const indexCache = new WeakMap<ESLint.LintResult, TextIndex | undefined>();

/** Messages refer to the fixed output when `--fix` ran, otherwise to the source. */
function textIndexOf(result: ESLint.LintResult): TextIndex | undefined {
  if (indexCache.has(result)) return indexCache.get(result);
  let text = result.output ?? result.source;
  if (text === undefined) {
    try {
      text = readFileSync(result.filePath, 'utf8');
    } catch {
      text = undefined; // `lintText` without a real file: fall back to ESLint's columns
    }
  }
  // A BOM is not part of ESLint's text, and its columns and offsets exclude it.
  const index = text === undefined ? undefined : new TextIndex(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  indexCache.set(result, index);
  return index;
}

function relativePath(cwd: string, file: string): string {
  if (!path.isAbsolute(file)) return file.split(path.sep).join('/');
  const relative = path.relative(cwd, file);
  return (relative.startsWith('..') ? file : relative).split(path.sep).join('/');
}
