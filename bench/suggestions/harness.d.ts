import type { Linter } from 'eslint';

export const SUGGESTION_RULES: readonly string[];
export interface Site { name: string; code: string; js?: boolean }
export interface CheckedSuggestion { desc: string; output: string; problems: string[] }
export interface CheckedFinding { rule: string; messageId: string | undefined; line: number; message: string; suggestions: CheckedSuggestion[] }
export interface CheckResult { site: Site; error?: string; findings: CheckedFinding[] }
export interface CoverageRow { findings: number; suggested: number; missing: string[] }
export function createChecker(deps: { plugin: unknown; tsParser: unknown }): {
  lint(code: string, js: boolean): Linter.LintMessage[];
  check(site: Site): CheckResult;
};
export function coverage(results: readonly CheckResult[]): Map<string, CoverageRow>;
export function coverageMarkdown(table: Map<string, CoverageRow>): string;
