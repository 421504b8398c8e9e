/**
 * Every suggestion on the sites of bench/suggestions/sites.js (each library the catalogue knows,
 * hand-written loops, nested layers, writes; TypeScript and JavaScript) is applied, re-parsed and
 * re-linted with every recommended rule: it must parse, clear its finding and add none. The share
 * of findings with a suggestion is printed per rule (bench/suggestions.js prints the same table).
 */
import * as tsParser from '@typescript-eslint/parser';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';
import { coverage, coverageMarkdown, createChecker } from '../bench/suggestions/harness.js';
import { SITES } from '../bench/suggestions/sites.js';

const checker = createChecker({ plugin, tsParser });
const results = SITES.map((site) => checker.check(site));

describe('suggestions on typical retry sites', () => {
  it.each(results.map((r) => [r.site.name, r] as const))('%s: every suggestion parses, clears its finding and adds none', (_name, r) => {
    expect(r.error).toBeUndefined();
    const problems = r.findings.flatMap((f) => f.suggestions.flatMap((s) => s.problems.map((p) => `${f.rule} "${s.desc}": ${p}`)));
    expect(problems).toEqual([]);
  });

  it('records the share of findings with a suggestion, per rule', () => {
    const table = coverage(results);
    console.log(coverageMarkdown(table));
    for (const [, row] of table) expect(row.findings).toBeGreaterThan(0);
  });

  it('gives a suggestion on at least 80% of each rule\'s findings (issue 16)', () => {
    const shares = [...coverage(results)].map(([rule, row]) => [rule, row.suggested / row.findings] as const);
    expect(shares.filter(([, share]) => share < 0.8)).toEqual([]);
  });
});
