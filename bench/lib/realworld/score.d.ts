/** Types of score.js, for the tests of the real-world benchmark's scoring. */
export interface Range { readonly path: string; readonly line: number; readonly endLine: number }
export interface LabelledSite extends Range {
  readonly id: string;
  readonly repo: string;
  readonly rules: readonly string[];
  readonly also: readonly Range[];
}
export interface Finding { readonly repo: string; readonly path: string; readonly line: number; readonly column: number; readonly rule: string; readonly message: string }
export interface RuleCounts { expected: number; tp: number; fn: number; fp: number; duplicates: number; precision: number; recall: number }
export function score(input: { sites: readonly LabelledSite[]; findings: readonly Finding[]; rules: readonly string[] }): {
  perRule: Record<string, RuleCounts>;
  overall: RuleCounts;
  misses: { site: LabelledSite; rule: string }[];
  falseAlarms: { site: LabelledSite | undefined; rule: string; finding: Finding }[];
  duplicates: { site: LabelledSite; rule: string; findings: Finding[]; expected: boolean }[];
};
export function rangeIndex(sites: readonly LabelledSite[]): Map<string, { site: LabelledSite; line: number; endLine: number }[]>;
export function labelledFiles(sites: readonly LabelledSite[]): Map<string, Set<string>>;
export function noteKey(entry: { site?: LabelledSite | undefined; finding?: Finding }): string;
