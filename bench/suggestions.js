// node bench/suggestions.js — share of findings that carry a suggestion, per rule, over the sites in
// bench/suggestions/sites.js; every suggestion is applied and re-linted (problems are listed).
// Uses the built plugin (npm run build first). --verbose lists findings without a suggestion;
// --show RULE prints each suggestion of RULE applied to its site.
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
// --show RULE: every suggestion of that rule, applied (to read what a suggestion writes).
const show = process.argv.indexOf('--show');
if (show > 0) {
  const rule = process.argv[show + 1];
  for (const r of results) for (const f of r.findings) {
    if (f.rule !== rule) continue;
    for (const s of f.suggestions) console.log(`\n--- ${r.site.name}:${f.line} [${s.desc}]\n${s.output}`);
  }
}
process.exitCode = broken ? 1 : 0;
