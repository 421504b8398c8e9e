/**
 * `safe-retry-check --apply-suggestions RULE`: the first suggestion of each finding of one rule,
 * applied to the file it was found in. One edit per finding; an edit that overlaps one already
 * taken in the same file is skipped (the same edit offered by two findings counts once), so no
 * two edits ever rewrite the same text. The caller writes the files and lints them again.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { ESLint, Linter } from 'eslint';

export interface FileEdits {
  readonly filePath: string;
  /** The file's new text. */
  readonly output: string;
  /** Findings whose edit was applied (or was the same as one applied). */
  readonly applied: number;
  /** Findings whose edit overlapped another one and was left out. */
  readonly skipped: number;
  /** Lines (1-based, in the old text) of the findings whose edit was applied. */
  readonly lines: readonly number[];
}

type Fix = NonNullable<Linter.LintMessage['fix']>;

/** The edits of `ruleId`'s suggestions per file, for files where at least one applies. */
export function suggestionEdits(results: readonly ESLint.LintResult[], ruleId: string): FileEdits[] {
  const out: FileEdits[] = [];
  for (const result of results) {
    if (!result.messages.some((m) => m.ruleId === ruleId && m.suggestions?.length)) continue;
    const source = result.source ?? readFileSync(result.filePath, 'utf8');
    const picked: Array<{ fix: Fix; line: number }> = [];
    for (const m of result.messages) {
      const fix = m.ruleId === ruleId ? m.suggestions?.[0]?.fix : undefined;
      if (fix) picked.push({ fix, line: m.line });
    }
    if (picked.length === 0) continue;
    picked.sort((a, b) => a.fix.range[0] - b.fix.range[0] || a.fix.range[1] - b.fix.range[1]);
    const taken: Fix[] = [];
    const lines: number[] = [];
    let skipped = 0;
    for (const { fix, line } of picked) {
      const last = taken[taken.length - 1];
      if (last && same(last, fix)) {
        lines.push(line);
        continue;
      }
      if (last && fix.range[0] < last.range[1]) {
        skipped++;
        continue;
      }
      taken.push(fix);
      lines.push(line);
    }
    let output = source;
    for (const fix of [...taken].reverse()) output = output.slice(0, fix.range[0]) + fix.text + output.slice(fix.range[1]);
    out.push({ filePath: result.filePath, output, applied: lines.length, skipped, lines });
  }
  return out;
}

function same(a: Fix, b: Fix): boolean {
  return a.range[0] === b.range[0] && a.range[1] === b.range[1] && a.text === b.text;
}

export interface ApplyIo {
  /** The file linted again after its edits. */
  relint(result: ESLint.LintResult): Promise<ESLint.LintResult>;
  replace(before: ESLint.LintResult, after: ESLint.LintResult): void;
  log(line: string): void;
  display(file: string): string;
}

/** Writes the edits, says what changed, and lints each changed file again. */
export async function applySuggestions(results: readonly ESLint.LintResult[], ruleId: string, io: ApplyIo): Promise<void> {
  const edits = suggestionEdits(results, ruleId);
  const rule = ruleId.replace(/^safe-retry\//, '');
  if (edits.length === 0) {
    io.log(`safe-retry-check: no finding of ${rule} has a suggestion to apply`);
    return;
  }
  let applied = 0;
  let skipped = 0;
  for (const e of edits) {
    writeFileSync(e.filePath, e.output);
    applied += e.applied;
    skipped += e.skipped;
    const more = e.skipped ? `; ${e.skipped} skipped (overlapping another edit)` : '';
    io.log(`  ${io.display(e.filePath)}: ${e.applied} applied (line${e.lines.length === 1 ? '' : 's'} ${e.lines.join(', ')})${more}`);
  }
  io.log(`safe-retry-check: applied ${applied} suggestion${applied === 1 ? '' : 's'} of ${rule} in ${edits.length} file${edits.length === 1 ? '' : 's'}` +
    `${skipped ? `, skipped ${skipped} that overlapped another edit (run again to apply them)` : ''}; the report below is of the changed code`);
  for (const e of edits) {
    const before = results.find((r) => r.filePath === e.filePath)!;
    io.replace(before, await io.relint(before));
  }
}
