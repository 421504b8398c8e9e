// Rendering a real-world run: the console summary and bench/REALWORLD.md. Both show the same lists;
// the markdown adds the hand-written line on why each miss or false alarm happens (notes.json) and
// the saved runs side by side.
import { table as plainTable } from '../stats.js';
import { noteKey } from './score.js';

const fmt = (v) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a');
const share = (n, d) => (d ? `${Math.round((n / d) * 100)}%` : 'n/a');
const cell = (s) => String(s).replaceAll('|', '\\|').replaceAll('\n', ' ');
const code = (s) => `\`${String(s).replaceAll('`', "'")}\``;

/** Labels and messages are free text: a `|` in one must not split the markdown table. */
const table = (header, rows) => plainTable(header, rows.map((r) => r.map(cell)));

const range = (s) => (s.endLine > s.line ? `${s.path}:${s.line}-${s.endLine}` : `${s.path}:${s.line}`);
export const noteFor = (notes, entry) => notes[noteKey(entry)]?.[entry.rule];

/** Corpus figures: sites, look-alikes, repositories, how much of it is application code. */
export function corpusFigures(sites, repos) {
  const used = [...new Set(sites.map((s) => s.repo))];
  return {
    sites: sites.length,
    lookAlikes: sites.filter((s) => s.rules.length === 0).length,
    expectedReports: sites.reduce((n, s) => n + s.rules.length, 0),
    repos: used.length,
    applicationSites: sites.filter((s) => s.kind === 'application').length,
    applicationRepos: used.filter((r) => repos.get(r)?.kind === 'application').length,
  };
}

const countRows = (result, rules) => [
  ...rules.map((r) => [r, result.perRule[r]]),
  ['**all rules**', result.overall],
].map(([name, c]) => [name, c.expected, c.tp, c.fn, c.fp, c.duplicates, fmt(c.precision), fmt(c.recall)]);
const COUNT_HEADER = ['<rule', 'labelled', 'TP', 'FN', 'FP', 'duplicates', 'precision', 'recall'];

/** Recall and precision per label pattern (p-retry, rxjs, hand-written loop, ...): where the misses cluster. */
function patternRows(sites, result) {
  const byPattern = new Map();
  for (const s of sites) {
    const p = s.pattern ?? '(none)';
    const g = byPattern.get(p) ?? { sites: 0, expected: 0, found: 0, falseAlarms: 0 };
    g.sites++;
    g.expected += s.rules.length;
    byPattern.set(p, g);
  }
  const missed = new Map();
  for (const m of result.misses) missed.set(m.site.pattern ?? '(none)', (missed.get(m.site.pattern ?? '(none)') ?? 0) + 1);
  for (const f of result.falseAlarms) if (f.site) byPattern.get(f.site.pattern ?? '(none)').falseAlarms++;
  for (const [p, g] of byPattern) g.found = g.expected - (missed.get(p) ?? 0);
  return [...byPattern]
    .sort((a, b) => b[1].expected - a[1].expected || (a[0] < b[0] ? -1 : 1))
    .map(([p, g]) => [p, g.sites, g.expected, g.found, fmt(g.expected ? g.found / g.expected : NaN), g.falseAlarms]);
}

function findingText(f) {
  return `${f.message}`;
}

/** The console report: everything a person needs to act on, without the hand-written notes' rendering. */
export function consoleReport(run) {
  const { figures, result, rules, crashes, unparsed, missing, notes, seconds, files } = run;
  const out = [];
  out.push(`realworld: ${figures.sites} sites (${figures.lookAlikes} clean look-alikes, ${figures.expectedReports} expected reports) in ${figures.repos} repositories; application code: ${share(figures.applicationSites, figures.sites)} of sites, ${figures.applicationRepos} of ${figures.repos} repositories`);
  out.push(`  ${files} files linted in ${seconds.toFixed(1)} s; crashes: ${crashes.length}; files that did not parse: ${unparsed.length}; repositories not available: ${missing.length}`);
  out.push('');
  const rows = countRows(result, rules).map((r) => r.map(String));
  const widths = COUNT_HEADER.map((h, i) => Math.max(h.replace('<', '').length, ...rows.map((r) => r[i].replaceAll('*', '').length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  out.push(line(COUNT_HEADER.map((h) => h.replace('<', ''))));
  for (const r of rows) out.push(line(r.map((c) => c.replaceAll('*', ''))));
  for (const m of missing) out.push(`\nnot available: ${m.repo}: ${m.reason} (${m.sites} sites not scored)`);
  for (const c of crashes) out.push(`\ncrash: ${c.repo} ${c.path}: ${c.message}`);
  for (const u of unparsed) out.push(`\ndid not parse: ${u.repo} ${u.path}:${u.line}: ${u.message}`);
  const note = (e) => noteFor(notes, e) ?? '(not yet analysed)';
  if (result.misses.length) {
    out.push(`\nmisses (${result.misses.length}):`);
    for (const m of result.misses) out.push(`  ${m.rule}  ${m.site.repo} ${range(m.site)}\n      label: ${m.site.why}\n      note:  ${note(m)}`);
  }
  if (result.falseAlarms.length) {
    out.push(`\nfalse alarms (${result.falseAlarms.length}):`);
    for (const f of result.falseAlarms) {
      const where = f.site ? `on site ${f.site.id} (labelled: ${f.site.rules.join(', ') || 'clean look-alike'})` : 'outside every labelled range';
      out.push(`  ${f.rule}  ${f.finding.repo} ${f.finding.path}:${f.finding.line}:${f.finding.column}  ${where}\n      finding: ${findingText(f.finding)}${f.site ? `\n      label:   ${f.site.why}` : ''}\n      note:    ${note(f)}`);
    }
  }
  if (result.duplicates.length) {
    out.push(`\nduplicate reports (one site, one rule, more than one finding):`);
    for (const d of result.duplicates) out.push(`  ${d.rule}  ${d.site.repo} ${range(d.site)}: ${d.findings.length} findings at lines ${d.findings.map((f) => f.line).join(', ')}`);
  }
  return out.join('\n');
}

/** History columns: each saved run, then this one, with precision and recall per rule. */
function historyTable(history, current, rules) {
  const runs = [...history, current];
  const header = ['<rule', ...runs.flatMap((h) => [`${h.label} P`, `${h.label} R`])];
  // From the counts, so a saved run and this one are computed alike.
  const pr = (c) => (c ? [fmt(c.tp + c.fp ? c.tp / (c.tp + c.fp) : NaN), fmt(c.tp + c.fn ? c.tp / (c.tp + c.fn) : NaN)] : ['', '']);
  const rows = [
    ...rules.map((r) => [r, ...runs.flatMap((h) => pr(h.perRule[r]))]),
    ['**all rules**', ...runs.flatMap((h) => pr(h.overall))],
    ['sites / repositories', ...runs.flatMap((h) => [`${h.corpus.sites} / ${h.corpus.repos}`, ''])],
    ['date, plugin commit', ...runs.flatMap((h) => [`${h.date} ${h.plugin}`, ''])],
  ];
  return table(header, rows);
}

export function markdownReport(run) {
  const { figures, result, rules, crashes, unparsed, missing, notes, parts, date, plugin, history, current } = run;
  const out = [];
  out.push('# Real-world corpus report');
  out.push('');
  out.push('<!-- Generated by `npm run realworld -- DIR` (bench/realworld.js); DO NOT EDIT. The line on why each miss or false alarm happens is kept in bench/realworld/notes.json. -->');
  out.push('');
  out.push(
    `The plugin's \`recommended\` preset (plus \`resilience4j\` on Spring YAML) scored against labels written by reading the code first (bench/realworld/LABELLING.md). ` +
      `Each labelled file is linted in place in its repository, extracted at the pinned commit, so relative imports resolve; the repositories' own ESLint configs and inline directives are ignored, and internal analysis errors count as crashes. ` +
      `Plugin at ${plugin}, ${date}.`,
  );
  out.push('');
  out.push(`**Corpus:** ${figures.sites} sites (${figures.lookAlikes} clean look-alikes; ${figures.expectedReports} expected reports) in ${figures.repos} repositories; application code: ${share(figures.applicationSites, figures.sites)} of sites, ${figures.applicationRepos} of ${figures.repos} repositories. Parts: ${parts.length ? parts.map(code).join(', ') : 'none'}.`);
  out.push('');
  out.push(`**Crashes:** ${crashes.length}. Files that did not parse: ${unparsed.length}. Repositories not available: ${missing.length}${missing.length ? ` (their ${missing.reduce((n, m) => n + m.sites, 0)} sites are not scored)` : ''}.`);
  for (const c of crashes) out.push(`- crash: ${code(c.repo)} ${code(c.path)}: ${cell(c.message)}`);
  for (const u of unparsed) out.push(`- did not parse: ${code(u.repo)} ${code(`${u.path}:${u.line}`)}: ${cell(u.message)}`);
  for (const m of missing) out.push(`- not available: ${code(m.repo)}: ${cell(m.reason)}`);
  out.push('');
  out.push(table(COUNT_HEADER, countRows(result, rules)));
  out.push('');
  out.push('A finding counts for the smallest labelled range containing its line. TP and FN count labelled sites; FP counts sites that got a report they should not have, plus each report in a labelled file outside every labelled range. A second report of the same rule on one site is a duplicate, listed below and left out of precision.');
  out.push('');
  out.push('### By label pattern');
  out.push('');
  out.push(table(['<pattern', 'sites', 'expected reports', 'found', 'recall', 'false alarms on these sites'], patternRows(run.sites, result)));
  out.push('');
  const note = (e) => noteFor(notes, e) ?? '(not yet analysed)';
  out.push(`## Misses (${result.misses.length})`);
  out.push('');
  if (!result.misses.length) out.push('None.');
  for (const rule of rules) {
    const ms = result.misses.filter((m) => m.rule === rule);
    if (!ms.length) continue;
    out.push(`### ${rule} (${ms.length})`);
    out.push('');
    for (const m of ms) out.push(`- ${code(m.site.repo)} ${code(range(m.site))} (${m.site.kind}, ${m.site.pattern ?? 'no pattern'}). Label: ${cell(m.site.why)} **Why missed:** ${cell(note(m))}`);
    out.push('');
  }
  out.push(`## False alarms (${result.falseAlarms.length})`);
  out.push('');
  if (!result.falseAlarms.length) out.push('None.');
  for (const rule of rules) {
    const fs = result.falseAlarms.filter((f) => f.rule === rule);
    if (!fs.length) continue;
    out.push(`### ${rule} (${fs.length})`);
    out.push('');
    for (const f of fs) {
      const where = f.site ? `on ${code(range(f.site))}, labelled ${f.site.rules.length ? f.site.rules.join(', ') : 'a clean look-alike'} (${cell(f.site.why)})` : 'outside every labelled range';
      out.push(`- ${code(f.finding.repo)} ${code(`${f.finding.path}:${f.finding.line}`)} ${where}. Reported: "${cell(f.finding.message)}" **Why:** ${cell(note(f))}`);
    }
    out.push('');
  }
  if (result.duplicates.length) {
    out.push(`## Duplicate reports (${result.duplicates.length} ${result.duplicates.length === 1 ? 'site' : 'sites'})`);
    out.push('');
    for (const d of result.duplicates) out.push(`- ${d.rule}: ${code(d.site.repo)} ${code(range(d.site))}: ${d.findings.length} reports, at lines ${d.findings.map((f) => f.line).join(', ')}${d.expected ? '' : ' (a false alarm too)'}`);
    out.push('');
  }
  out.push('## History');
  out.push('');
  out.push('Runs saved with `--label NAME` (bench/realworld/history.json), then this run. The corpus may have grown between runs: compare the sites row too.');
  out.push('');
  out.push(historyTable(history, current, rules));
  out.push('');
  const stale = run.staleNotes;
  if (stale.length) {
    out.push('## Notes that match nothing in this run');
    out.push('');
    out.push('Kept in notes.json for a miss or false alarm that no longer happens (fixed, or relabelled): delete them once read.');
    out.push('');
    for (const s of stale) out.push(`- ${code(s.key)} ${s.rule}: ${cell(s.text)}`);
    out.push('');
  }
  return out.join('\n');
}
