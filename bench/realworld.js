// npm run realworld -- DIR — the plugin against real code: every labelled retry site of the
// real-world corpus (bench/realworld/parts/*.json, see LABELLING.md), each repository extracted at its
// pinned commit into DIR/<owner>+<name> from the fetched snapshots and its labelled files linted in
// place, so the model follows relative imports as it does in a user's project. Prints per-rule
// precision and recall with every miss and false alarm, and writes bench/REALWORLD.md.
//
//   npm run realworld -- DIR [--mirror PATH]     snapshots from PATH, else $SAFE_RETRY_MIRROR
//     --only owner/name     one repository (printed only; REALWORLD.md is written by full runs)
//     --rule R              score one rule (printed only)
//     --json                machine-readable result on stdout
//     --label NAME          save this run's table as NAME in bench/realworld/history.json
//     --parts DIR           read the parts from DIR instead of the manifest (scratch labels)
//
// A benchmark, not a test: misses and false alarms do not fail it. It exits 2 on bad labels or
// arguments, 1 when a file crashed the plugin, did not parse, or a repository was not available.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import safeRetry from '../dist/index.js';
import { LabelError, checkAgainstSnapshots, loadLabels, partFiles } from './lib/realworld/labels.js';
import { corpusFigures, consoleReport, markdownReport } from './lib/realworld/report.js';
import { labelledFiles, noteKey, score } from './lib/realworld/score.js';
import { extract, lineCounts, locate, mirrorDir } from './lib/realworld/snapshots.js';
import { PREFIX, repositoryLinter } from './lib/realworld/lint.js';

// Internal analysis errors are swallowed so a user's lint run survives them; here they count.
process.env['SAFE_RETRY_STRICT_ANALYSIS'] = '1';
// ESLint warns once per repository that keeps a legacy .eslintignore; the repositories' own ignore
// files are not used here anyway, so that warning is noise. Every other warning is still printed.
const defaultWarning = process.listeners('warning');
process.removeAllListeners('warning');
process.on('warning', (w) => {
  if (w.name !== 'ESLintIgnoreWarning') for (const l of defaultWarning) l(w);
});

const root = fileURLToPath(new URL('../', import.meta.url));
const here = join(root, 'bench/realworld');

function usage(message) {
  console.error(`realworld: ${message}\nusage: npm run realworld -- DIR [--mirror PATH] [--only owner/name] [--rule R] [--json] [--label NAME] [--parts DIR]`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    allowPositionals: true,
    options: {
      mirror: { type: 'string' },
      only: { type: 'string' },
      rule: { type: 'string' },
      json: { type: 'boolean', default: false },
      label: { type: 'string' },
      parts: { type: 'string' },
    },
  });
} catch (error) {
  usage(error.message);
}
const { values: opts, positionals } = args;
if (positionals.length !== 1) usage('expected one directory to extract the repositories into');
const workDir = resolve(positionals[0]);
// Third-party trees inside the project would be picked up by its own lint, tests and commits.
if (workDir === resolve(root) || workDir.startsWith(resolve(root) + sep)) usage(`${positionals[0]} is inside the project; give a directory outside it`);
// Only a run of every rule on every part's labels speaks for the corpus; the others print and write nothing.
const partial = Boolean(opts.only || opts.rule || opts.parts);
if (opts.label && partial) usage('--label saves a full run of the manifest\'s parts; drop --only, --rule and --parts');

const log = (line) => process.stderr.write(`${line}\n`);
const ruleNames = Object.keys(safeRetry.rules);
const presetRules = Object.keys(safeRetry.configs.recommended.rules).map((r) => r.slice(PREFIX.length));
let rules = presetRules;
if (opts.rule) {
  const r = opts.rule.startsWith(PREFIX) ? opts.rule.slice(PREFIX.length) : opts.rule;
  if (!presetRules.includes(r)) usage(`--rule ${opts.rule}: not a rule of the recommended preset (${presetRules.join(', ')})`);
  rules = [r];
}

// ------------------------------------------------------------------------------------------------
// Labels, checked before anything is extracted or linted

let repos;
let sites;
let parts;
let mirror;
const missing = [];
try {
  parts = partFiles(join(here, 'manifest.json'), opts.parts && resolve(opts.parts));
  ({ repos, sites } = loadLabels(parts, { ruleNames, presetRules, displayBase: opts.parts ? resolve(opts.parts, '..') : here }));
  if (opts.only) {
    if (!repos.has(opts.only)) usage(`--only ${opts.only}: no labelled repository of that name`);
    sites = sites.filter((s) => s.repo === opts.only);
  }
  mirror = mirrorDir(opts.mirror);
  const files = labelledFiles(sites);
  const counts = new Map();
  for (const [repo, paths] of files) {
    const { commit } = repos.get(repo);
    const where = locate(mirror, repo, commit);
    if (!where.ok) {
      missing.push({ repo, reason: where.reason, sites: sites.filter((s) => s.repo === repo).length });
      continue;
    }
    repos.get(repo).gitDir = where.gitDir;
    counts.set(repo, lineCounts(where.gitDir, commit, [...paths]));
  }
  checkAgainstSnapshots(sites, (repo, path) => (counts.has(repo) ? counts.get(repo).get(path) : null));
} catch (error) {
  if (error instanceof LabelError) {
    console.error(`realworld: ${error.message}`);
    process.exit(2);
  }
  usage(error.message);
}
if (sites.length === 0) log(`realworld: no labelled sites yet (${parts.length} parts)`);

// ------------------------------------------------------------------------------------------------
// Extraction and linting, one repository at a time

const findings = [];
const crashes = [];
const unparsed = [];
const timings = [];
let linted = 0;
const started = performance.now();
if (sites.length) mkdirSync(workDir, { recursive: true });
for (const [repo, paths] of labelledFiles(sites)) {
  const info = repos.get(repo);
  if (!info.gitDir) continue;
  const t0 = performance.now();
  let dir;
  try {
    const out = extract(info.gitDir, info.commit, workDir, repo);
    dir = out.dir;
    if (out.extracted) log(`realworld: extracted ${repo} at ${info.commit.slice(0, 12)}${out.absent.length ? ` (${out.absent.length} files the snapshot lacks left out, such as ${out.absent[0]})` : ''}`);
  } catch (error) {
    missing.push({ repo, reason: `extraction failed: ${String(error.message).split('\n')[0]}`, sites: sites.filter((s) => s.repo === repo).length });
    continue;
  }
  const lint = repositoryLinter(dir);
  for (const path of [...paths].sort()) {
    linted++;
    try {
      const result = await lint(path);
      for (const m of result.messages) {
        if (m.fatal) unparsed.push({ repo, path, line: m.line, message: m.message });
        else if (m.ruleId?.startsWith(PREFIX)) findings.push({ repo, path, line: m.line, column: m.column, endLine: m.endLine, rule: m.ruleId.slice(PREFIX.length), message: m.message });
        else if (m.ruleId === null && /ignored/i.test(m.message)) unparsed.push({ repo, path, line: 0, message: m.message });
      }
    } catch (error) {
      crashes.push({ repo, path, message: String(error?.message ?? error).split('\n').filter(Boolean).join(' / ') });
    }
  }
  timings.push({ repo, files: paths.size, seconds: (performance.now() - t0) / 1000 });
}
const seconds = (performance.now() - started) / 1000;

// ------------------------------------------------------------------------------------------------
// Scoring and reports

const scored = sites.filter((s) => repos.get(s.repo).gitDir && !missing.some((m) => m.repo === s.repo));
const result = score({ sites: scored, findings, rules });
const figures = corpusFigures(scored, repos);
const notesPath = join(here, 'notes.json');
const notes = existsSync(notesPath) ? (JSON.parse(readFileSync(notesPath, 'utf8')).notes ?? {}) : {};
const git = (...a) => spawnSync('git', a, { cwd: root, encoding: 'utf8' }).stdout?.trim() ?? '';
const plugin = `${git('rev-parse', '--short', 'HEAD') || 'unknown commit'}${git('status', '--porcelain', '--', 'src') ? ' (with uncommitted changes to src/)' : ''}`;
const date = new Date().toISOString().slice(0, 10);
const summary = (label) => ({
  label,
  date,
  plugin,
  corpus: figures,
  perRule: Object.fromEntries(Object.entries(result.perRule).map(([r, c]) => [r, pick(c)])),
  overall: pick(result.overall),
});
function pick(c) {
  return { expected: c.expected, tp: c.tp, fn: c.fn, fp: c.fp, duplicates: c.duplicates };
}

const used = new Set([...result.misses, ...result.falseAlarms, ...result.duplicates].map((e) => `${noteKey(e)}\0${e.rule}`));
const staleNotes = Object.entries(notes).flatMap(([key, byRule]) => Object.entries(byRule).filter(([rule]) => !used.has(`${key}\0${rule}`)).map(([rule, text]) => ({ key, rule, text })));

const run = {
  figures, result, rules, crashes, unparsed, missing, notes, seconds, files: linted, sites: scored, staleNotes,
  parts: parts.map((p) => relative(opts.parts ? resolve(opts.parts, '..') : here, p)),
  date, plugin,
};

if (!partial) {
  const historyPath = join(here, 'history.json');
  const saved = existsSync(historyPath) ? (JSON.parse(readFileSync(historyPath, 'utf8')).runs ?? []) : [];
  let history = saved;
  if (opts.label) {
    history = [...saved.filter((h) => h.label !== opts.label), summary(opts.label)];
    writeFileSync(historyPath, `${JSON.stringify({ about: 'Runs of npm run realworld saved with --label, shown side by side in REALWORLD.md.', runs: history }, null, 2)}\n`);
  }
  const current = summary(opts.label ? `${opts.label} (this run)` : 'this run');
  // A saved run is shown once: as "this run" when it is this run.
  const shown = opts.label ? history.filter((h) => h.label !== opts.label) : history;
  writeFileSync(join(root, 'bench/REALWORLD.md'), `${markdownReport({ ...run, history: shown, current })}\n`);
  log(`realworld: wrote bench/REALWORLD.md${opts.label ? ` and saved the run as "${opts.label}"` : ''}`);
} else {
  log('realworld: not a full run (--only, --rule or --parts): bench/REALWORLD.md and the history are left as they are');
}

if (opts.json) {
  const plain = (e) => ({ rule: e.rule, site: e.site?.id, repo: e.site?.repo ?? e.finding?.repo, path: e.site?.path ?? e.finding?.path, line: e.site?.line ?? e.finding?.line, note: notes[noteKey(e)]?.[e.rule] ?? null });
  console.log(JSON.stringify({
    date, plugin, corpus: figures, rules,
    perRule: summary('').perRule, overall: summary('').overall,
    misses: result.misses.map(plain),
    falseAlarms: result.falseAlarms.map((f) => ({ ...plain(f), finding: f.finding })),
    duplicates: result.duplicates.map((d) => ({ ...plain(d), findings: d.findings })),
    crashes, unparsed, missing, timings, seconds,
  }, null, 2));
} else {
  console.log(consoleReport(run));
}
if (crashes.length || unparsed.length || missing.length) process.exitCode = 1;
