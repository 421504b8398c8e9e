// node bench/suggestions.js — share of findings that carry a suggestion, per rule, over the sites in
// bench/suggestions/sites.js; every suggestion is applied and re-linted (problems are listed).
// Uses the built plugin (npm run build first).
import * as tsParser from '@typescript-eslint/parser';
import plugin from '../dist/index.js';
import { coverage, coverageMarkdown, createChecker } from './suggestions/harness.js';
import { SITES } from './suggestions/sites.js';

const checker = createChecker({ plugin, tsParser });
const results = SITES.map((s) => checker.check(s));
const table = coverage(results);
const verbose = process.argv.includes('--verbose');
console.log(`# Suggestion coverage (${SITES.length} sites, ${SITES.filter((s) => s.js).length} of them JavaScript)\n`);
console.log(coverageMarkdown(table));
let broken = 0;
for (const r of results) {
  if (r.error) console.log(`\n${r.site.name}: ${r.error}`);
  for (const f of r.findings) for (const s of f.suggestions) {
    if (s.problems.length) { broken++; console.log(`\n${r.site.name}:${f.line} ${f.rule} "${s.desc}": ${s.problems.join('; ')}`); }
  }
}
console.log(`\nSuggestions that fail to parse, keep their finding or add one: ${broken}`);
if (verbose) {
  for (const [rule, row] of table) for (const m of row.missing) console.log(`no suggestion [${rule}] ${m}`);
}
process.exitCode = broken ? 1 : 0;
