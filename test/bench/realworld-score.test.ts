/**
 * The real-world benchmark's scoring (bench/lib/realworld/score.js): a finding counts for the
 * smallest labelled range holding its line, for every site of that range that expects its rule.
 */
import { describe, expect, it } from 'vitest';
import { score } from '../../bench/lib/realworld/score.js';

const site = (id: string, line: number, endLine: number, rules: string[], also: { path: string; line: number; endLine: number }[] = []) => ({
  id, repo: 'o/r', path: 'a.ts', line, endLine, rules, also,
});
const finding = (path: string, line: number, rule: string) => ({ repo: 'o/r', path, line, column: 1, rule, message: '' });
const helper = { path: 'retry.ts', line: 10, endLine: 30 };

describe('real-world scoring', () => {
  it('credits every call of a helper whose defect is reported once, in the helper they all name', () => {
    const sites = [site('call-1', 1, 3, ['max-retry-attempts'], [helper]), site('call-2', 5, 7, ['max-retry-attempts'], [helper])];
    const { perRule } = score({ sites, findings: [finding('retry.ts', 20, 'max-retry-attempts')], rules: ['max-retry-attempts'] });
    expect(perRule['max-retry-attempts']).toMatchObject({ tp: 2, fn: 0, fp: 0, duplicates: 0 });
  });

  it('counts a finding on a shared range that no site expects as one false alarm', () => {
    const sites = [site('call-1', 1, 3, [], [helper]), site('call-2', 5, 7, [], [helper])];
    const { perRule } = score({ sites, findings: [finding('retry.ts', 20, 'require-jitter')], rules: ['require-jitter'] });
    expect(perRule['require-jitter']).toMatchObject({ tp: 0, fp: 1 });
  });

  it('gives a finding to the smallest range only: an outer site does not get the inner one\'s report', () => {
    const sites = [site('outer', 1, 20, ['max-retry-attempts']), site('inner', 5, 8, ['require-jitter'])];
    const { perRule } = score({ sites, findings: [finding('a.ts', 6, 'max-retry-attempts')], rules: ['max-retry-attempts'] });
    expect(perRule['max-retry-attempts']).toMatchObject({ tp: 0, fn: 1, fp: 1 });
  });
});
