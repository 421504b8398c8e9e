// npm run realworld:trees -- DIR — the plugin on the rest of each real-world repository: every
// source file that mentions retrying (`retr`, `backoff`, `attempt`) outside the labelled files, in
// the repositories `npm run realworld -- DIR` extracted into DIR, linted in place as realworld.js
// lints the labelled ones. Nobody labelled these files, so nothing is scored: the findings are
// listed for a reviewer to read (a false alarm here is one no label would have caught), with their
// count per rule.
//
//   npm run realworld:trees -- DIR [--only owner/name] [--save FILE] [--against FILE]
//     --save FILE      write the findings as JSON (to compare a later build against)
//     --against FILE   list only what differs from a saved run: findings gained and lost
//
// A benchmark, not a test. It exits 1 when a file crashed the plugin, 2 on bad arguments.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadLabels, partFiles } from './lib/realworld/labels.js';
import { PREFIX, repositoryLinter } from './lib/realworld/lint.js';
import { labelledFiles } from './lib/realworld/score.js';
import { MARKER, dirName } from './lib/realworld/snapshots.js';
import safeRetry from '../dist/index.js';

const here = fileURLToPath(new URL('./realworld/', import.meta.url));

function usage(message) {
  console.error(`realworld-trees: ${message}\nusage: npm run realworld:trees -- DIR [--only owner/name] [--save FILE] [--against FILE]`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({ allowPositionals: true, options: { only: { type: 'string' }, save: { type: 'string' }, against: { type: 'string' } } });
} catch (error) {
  usage(error.message);
}
const { values: opts, positionals } = args;
if (positionals.length !== 1) usage('give the directory `npm run realworld -- DIR` extracted the repositories into');
const workDir = resolve(positionals[0]);

// The repositories' own ignore files are not used; their legacy .eslintignore warning is noise.
const defaultWarning = process.listeners('warning');
process.removeAllListeners('warning');
process.on('warning', (w) => {
  if (w.name !== 'ESLintIgnoreWarning') for (const l of defaultWarning) l(w);
});

const ruleNames = Object.keys(safeRetry.rules);
const presetRules = Object.keys(safeRetry.configs.recommended.rules).map((r) => r.slice(PREFIX.length));
const { repos, sites } = loadLabels(partFiles(join(here, 'manifest.json')), { ruleNames, presetRules, displayBase: here });
const labelled = labelledFiles(sites);

const SKIP_DIRS = /^(?:node_modules|dist|build|out|coverage|vendor|\.git|\.next|\.nuxt|\.turbo)$/;
const SOURCE = /\.(?:[cm]?[jt]sx?)$/;
const MENTIONS_RETRY = /retr|backoff|attempt/i;
const MAX_BYTES = 400_000;

/** Source files of a repository that mention retrying, relative to its directory, sorted. */
function candidates(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) {
        if (!SKIP_DIRS.test(e.name)) walk(join(d, e.name));
        continue;
      }
      if (!SOURCE.test(e.name) || /\.d\.[cm]?ts$|\.min\.js$/.test(e.name)) continue;
      const path = join(d, e.name);
      if (statSync(path).size > MAX_BYTES) continue;
      if (MENTIONS_RETRY.test(readFileSync(path, 'utf8'))) out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out.sort();
}

const findings = [];
const crashes = [];
let files = 0;
const started = performance.now();
for (const repo of [...repos.keys()].sort()) {
  if (opts.only && repo !== opts.only) continue;
  const dir = join(workDir, dirName(repo));
  if (!existsSync(join(dir, MARKER))) {
    console.error(`realworld-trees: ${repo} is not extracted in ${workDir} (run npm run realworld -- ${positionals[0]} first)`);
    continue;
  }
  const skip = labelled.get(repo) ?? new Set();
  const lint = repositoryLinter(dir);
  for (const path of candidates(dir)) {
    if (skip.has(path)) continue;
    files++;
    try {
      const result = await lint(path);
      for (const m of result.messages) {
        if (m.ruleId?.startsWith(PREFIX)) findings.push({ repo, path, line: m.line, rule: m.ruleId.slice(PREFIX.length), message: m.message });
      }
    } catch (error) {
      crashes.push({ repo, path, message: String(error?.message ?? error).split('\n')[0] });
    }
  }
}
const seconds = (performance.now() - started) / 1000;

const key = (f) => `${f.repo} ${f.path}:${f.line} ${f.rule}: ${f.message}`;
const show = (f) => `${f.repo} ${f.path}:${f.line} ${f.rule}: ${f.message.length > 160 ? `${f.message.slice(0, 157)}...` : f.message}`;
console.log(`realworld-trees: ${files} files outside the labelled ones linted in ${seconds.toFixed(1)} s; ${findings.length} findings; crashes: ${crashes.length}`);
const byRule = new Map();
for (const f of findings) byRule.set(f.rule, (byRule.get(f.rule) ?? 0) + 1);
for (const [rule, n] of [...byRule].sort((a, b) => b[1] - a[1])) console.log(`  ${rule.padEnd(28)} ${n}`);
if (opts.against) {
  const before = JSON.parse(readFileSync(opts.against, 'utf8')).filter((f) => !opts.only || f.repo === opts.only);
  const had = new Set(before.map(key));
  const has = new Set(findings.map(key));
  const gained = findings.filter((f) => !had.has(key(f)));
  const lost = before.filter((f) => !has.has(key(f)));
  console.log(`\nagainst ${opts.against}: ${gained.length} gained, ${lost.length} lost`);
  for (const f of gained) console.log(`  + ${show(f)}`);
  for (const f of lost) console.log(`  - ${show(f)}`);
} else {
  console.log('');
  for (const f of findings) console.log(`  ${show(f)}`);
}
for (const c of crashes) console.log(`  CRASH ${c.repo} ${c.path}: ${c.message}`);
if (opts.save) writeFileSync(opts.save, `${JSON.stringify(findings, null, 1)}\n`);
process.exit(crashes.length ? 1 : 0);
