// npm run bench:oneshot — what the plugin costs a one-shot `eslint` run, as CI runs it, on a real
// TypeScript codebase of over a thousand files.
//
// The codebase is not part of this repository and is never downloaded by the benchmark (CI has no
// network, and benchmarks are not tests). Supply it yourself, extracted outside this repository:
//
//   git clone https://github.com/pnpm/pnpm /tmp/oneshot-pnpm
//   git -C /tmp/oneshot-pnpm checkout 36e5ae6ac8d03743442f083680fa3015e4a774b3
//   SAFE_RETRY_ONESHOT_DIR=/tmp/oneshot-pnpm npm run bench:oneshot
//   (or: node bench/oneshot.js --codebase=/tmp/oneshot-pnpm)
//
// Any TypeScript codebase works; the results name the commit when the directory is a git checkout
// (or holds a ONESHOT-COMMIT file, for an extracted archive). Without a codebase the section prints
// how to supply one and exits 0, so `npm run bench` still completes.
//
// Each round runs the CLI twice in fresh processes, with and without `safe-retry`'s recommended
// preset, the order alternating by round; the config (typescript-eslint's recommended on top of
// @eslint/js recommended, the codebase's own ignores) is written by the benchmark into a temporary
// directory and passed with --config. Every run has TIMING=all, which gives ESLint's per-rule
// times, and reports its own CPU time. Nothing survives a run (the plugin keeps no cache on disk):
// every round is a cold CI run.
//
// A CI run lints after `pnpm install`, which links the codebase's workspace packages into
// node_modules; the plugin follows imports of `@pnpm/...` through those links into the packages'
// sources. The snapshot has no node_modules, so the benchmark creates `<codebase>/node_modules/<name>`
// symlinks to every workspace package (a package.json with a name outside fixtures and
// node_modules), and nothing else.
//
//   --rounds=N         timed pairs (default 5; --quick 3)
//   --name=OWNER/REPO  where the codebase comes from, for the results (default pnpm/pnpm)
//   --warmup           one unmeasured pair first (a codebase not yet in the disk cache)
//   --plugin=DIR       the built plugin to load (default: this checkout's dist/), to compare builds
//   --baseline=DIR     another checkout of this repository with its dist/ built: a third run per
//                      round with that build's preset, the order rotating, and its model's TIMING
//                      set beside this build's (issue 13's budget, on a real codebase, one-shot)
//   --no-link          leave the codebase's directory as it is (no workspace links)
//   --cpu-prof         also write a V8 CPU profile of one run with the plugin (path printed on stderr)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, ms, pct, ratio, table } from './lib/stats.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const quick = process.argv.includes('--quick');
const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const codebase = arg('codebase') ?? process.env.SAFE_RETRY_ONESHOT_DIR;
const rounds = Number(arg('rounds') ?? (quick ? 3 : 5));
// The repository the codebase comes from, for the results (its commit is read from the directory).
const source = arg('name') ?? process.env.SAFE_RETRY_ONESHOT_NAME ?? 'pnpm/pnpm';
const PLUGIN_PREFIX = 'safe-retry/';
const eslintBin = join(root, 'node_modules/eslint/bin/eslint.js');
const pluginDir = resolve(arg('plugin') ?? join(root, 'dist'));
const baselineDir = arg('baseline') ? resolve(arg('baseline'), 'dist') : undefined;
if (baselineDir && !existsSync(join(baselineDir, 'index.js'))) {
  console.error(`bench/oneshot: --baseline=${arg('baseline')} has no built plugin (${join(baselineDir, 'index.js')} is missing): run \`npm ci && npm run build\` there first`);
  process.exit(2);
}

/** The git commit of the codebase, when it is a checkout or says so in ONESHOT-COMMIT. */
function commitOf(dir) {
  try {
    return execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    const marker = join(dir, 'ONESHOT-COMMIT');
    return existsSync(marker) ? readFileSync(marker, 'utf8').trim() : 'unknown commit';
  }
}

/** `<codebase>/node_modules/<name>` -> the package's folder, for every workspace package (kept when there); returns how many. */
function linkWorkspace(dir) {
  const names = new Set();
  const visit = (d, depth) => {
    if (depth > 6) return;
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.') || entry.name === 'node_modules' || /fixtures/.test(entry.name)) continue;
      const sub = join(d, entry.name);
      const manifest = join(sub, 'package.json');
      if (existsSync(manifest)) {
        let name;
        try { name = JSON.parse(readFileSync(manifest, 'utf8')).name; } catch { /* not a package */ }
        const link = name && join(dir, 'node_modules', name);
        if (link) {
          // The first package of a name wins, as it would for an install that refuses duplicates.
          if (!lstatSync(link, { throwIfNoEntry: false })) {
            mkdirSync(dirname(link), { recursive: true });
            symlinkSync(relative(dirname(link), sub), link);
          }
          names.add(name);
        }
      }
      visit(sub, depth + 1);
    }
  };
  visit(dir, 0);
  return names.size;
}

/** The config of a run: the plugin built in `plugin` (a dist/ folder) added, or none. */
function configText(plugin) {
  const withPlugin = plugin !== undefined;
  const url = (spec) => import.meta.resolve(spec);
  return [
    `import js from '${url('@eslint/js')}';`,
    `import tseslint from '${url('typescript-eslint')}';`,
    withPlugin ? `import safeRetry from '${pathToFileURL(join(plugin, 'index.js')).href}';` : '',
    'export default [',
    // The ignores the codebase's own eslint.config uses for pnpm (fixtures, build output).
    "  { ignores: ['**/fixtures/**', '**/__fixtures__/**', '**/node_modules/**', '**/lib/**', '**/dist/**'] },",
    '  js.configs.recommended,',
    '  ...tseslint.configs.recommended,',
    withPlugin ? '  safeRetry.configs.recommended,' : '',
    '  { linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: "off" } },',
    '];',
    '',
  ].join('\n');
}

/** Written into the temporary directory: reports the eslint process's own CPU time when it exits. */
const CPU_REPORTER = "process.on('exit', () => require('node:fs').writeFileSync(process.env.SAFE_RETRY_ONESHOT_CPU, JSON.stringify(process.cpuUsage())));\n";

function run(dir, config, { env = {}, extraNode = [] } = {}) {
  const out = join(dir, 'results.json');
  const cpuFile = join(dir, 'cpu.json');
  const started = performance.now();
  const r = spawnSync(process.execPath, ['--require', join(dir, 'cpu-reporter.cjs'), ...extraNode, eslintBin, '--config', config, '--concurrency', 'off', '--format', 'json', '--output-file', out, '.'], {
    cwd: codebase,
    encoding: 'utf8',
    env: { ...process.env, TIMING: 'all', SAFE_RETRY_ONESHOT_CPU: cpuFile, ...env },
    maxBuffer: 64 << 20,
  });
  const wall = performance.now() - started;
  if (r.status !== 0 && r.status !== 1) throw new Error(`eslint exited ${r.status}: ${r.stderr.slice(-2000)}`);
  const results = JSON.parse(readFileSync(out, 'utf8'));
  const { user, system } = JSON.parse(readFileSync(cpuFile, 'utf8'));
  rmSync(out, { force: true });
  const findings = {};
  let fatal = 0;
  for (const res of results) {
    for (const m of res.messages) {
      if (m.fatal) fatal++;
      else if (m.ruleId) findings[m.ruleId] = (findings[m.ruleId] ?? 0) + 1;
    }
  }
  // TIMING=all prints a table after the results: rule | ms | relative.
  const timing = Object.fromEntries([...(r.stdout ?? '').matchAll(/^(\S+)\s*\|\s*([\d.]+)\s*\|/gm)].map((m) => [m[1], Number(m[2])]));
  return { wall, cpu: (user + system) / 1000, files: results.length, ts: results.filter((x) => /\.[cm]?tsx?$/.test(x.filePath)).length, findings, fatal, timing };
}

/** How many findings of the plugin's rules a run reported. */
function pluginFindingsOf(run) {
  return Object.entries(run.findings).filter(([id]) => id.startsWith(PLUGIN_PREFIX)).reduce((a, [, n]) => a + n, 0);
}

const LABELS = { without: 'typescript-eslint recommended only', with: 'with safe-retry recommended', baseline: 'with the baseline build\'s safe-retry recommended' };

function section() {
  const out = ['## One-shot CLI run on a real TypeScript codebase\n'];
  if (!codebase || !existsSync(codebase)) {
    out.push('Not run: no codebase supplied. Set `SAFE_RETRY_ONESHOT_DIR` (or pass `--codebase=DIR`) to a TypeScript codebase extracted outside this repository; `bench/oneshot.js` says how (pnpm/pnpm at a pinned commit is the reference).');
    return out.join('\n');
  }
  const linked = process.argv.includes('--no-link') ? 0 : linkWorkspace(codebase);
  if (linked) process.stderr.write(`bench/oneshot: ${linked} workspace packages linked under ${join(codebase, 'node_modules')}\n`);
  const dir = mkdtempSync(join(tmpdir(), 'safe-retry-oneshot-'));
  try {
    const configs = { without: join(dir, 'without.config.mjs'), with: join(dir, 'with.config.mjs'), baseline: join(dir, 'baseline.config.mjs') };
    writeFileSync(configs.without, configText(undefined));
    writeFileSync(configs.with, configText(pluginDir));
    if (baselineDir) writeFileSync(configs.baseline, configText(baselineDir));
    writeFileSync(join(dir, 'cpu-reporter.cjs'), CPU_REPORTER);
    const names = baselineDir ? ['without', 'with', 'baseline'] : ['without', 'with'];
    // --warmup: one unmeasured pair first, for a codebase not yet in the disk cache.
    if (process.argv.includes('--warmup')) for (const n of names) run(dir, configs[n]);
    const runs = { without: [], with: [], baseline: [] };
    for (let r = 0; r < rounds; r++) {
      // Rotated by round: with two runs, the order alternates.
      const order = [...names.slice(r % names.length), ...names.slice(0, r % names.length)];
      for (const n of order) {
        runs[n].push(run(dir, configs[n]));
        process.stderr.write(`bench/oneshot: round ${r + 1}/${rounds} ${n}: wall ${ms(runs[n].at(-1).wall)} ms, cpu ${ms(runs[n].at(-1).cpu)} ms\n`);
      }
    }
    if (process.argv.includes('--cpu-prof')) {
      const profDir = join(tmpdir(), 'safe-retry-oneshot-prof');
      run(dir, configs.with, { extraNode: ['--cpu-prof', `--cpu-prof-dir=${profDir}`] });
      process.stderr.write(`bench/oneshot: CPU profile of one run with the plugin in ${profDir}\n`);
    }
    const same = runs.with.every((x) => JSON.stringify(x.findings) === JSON.stringify(runs.with[0].findings));
    const pairs = (k) => runs.with.map((x, i) => x[k] / runs.without[i][k]);
    const files = runs.with[0].files;
    const pluginFindings = pluginFindingsOf(runs.with.at(-1));
    const stat = (n, k) => [median(runs[n].map((x) => x[k])), Math.min(...runs[n].map((x) => x[k])), Math.max(...runs[n].map((x) => x[k]))].map(ms);
    const range = (v) => `${ratio(median(v))} (pairs ${ratio(Math.min(...v))}–${ratio(Math.max(...v))})`;
    out.push(`\`eslint .\` once per run, a fresh process each time (\`--concurrency off\`), on ${files} files (${runs.with[0].ts} TypeScript) of [${source}](https://github.com/${source}) at commit \`${commitOf(codebase)}\`, its ${linked} workspace packages linked into node_modules as an install would, with \`@eslint/js\` recommended plus typescript-eslint's \`recommended\` (the codebase's own ignores: fixtures, build output), with and without \`safe-retry\`'s \`recommended\` preset. ${rounds} ${baselineDir ? 'rounds of three runs (the third with a baseline build, below), the order rotating' : 'pairs, the order alternating'} by round, \`TIMING=all\` in every run; nothing survives a run (no \`--cache\`, and the plugin keeps nothing on disk), so each is a cold CI run. ${pluginFindings} findings of the plugin, ${same ? 'the same in every run' : 'NOT the same in every run'}${runs.with[0].fatal ? `; ${runs.with[0].fatal} files did not parse` : ''}. CPU is the eslint process's own user + system time; on a shared machine both move with the other work running, so only the pairs' ratios mean anything.\n`);
    out.push(table(['<run', 'median wall ms', 'min', 'max', 'median CPU ms', 'min', 'max'], names.map((n) => [LABELS[n], ...stat(n, 'wall'), ...stat(n, 'cpu')])));
    out.push(`\n**With plugin / without, wall time: ${range(pairs('wall'))}**, median of ${rounds} alternated pairs (target ≤ 1.03x); CPU time: ${range(pairs('cpu'))}.\n`);

    // ESLint's TIMING=all, per rule, medians over the runs with the plugin.
    const nuv = '@typescript-eslint/no-unused-vars';
    const ids = Object.keys(runs.with[0].timing);
    const t = Object.fromEntries(ids.map((id) => [id, median(runs.with.map((x) => x.timing[id] ?? 0))]));
    const vsNuv = (id) => median(runs.with.map((x) => (x.timing[id] ?? 0) / x.timing[nuv]));
    const pluginRules = ids.filter((id) => id.startsWith(PLUGIN_PREFIX)).sort((a, b) => t[b] - t[a]);
    const top = ids.filter((id) => !id.startsWith(PLUGIN_PREFIX) && id !== nuv).sort((a, b) => t[b] - t[a]).slice(0, 2);
    const rows = [...pluginRules.filter((id) => t[id] >= 1), nuv, ...top].map((id) => [id, ms(t[id]), ratio(vsNuv(id))]);
    const pluginTotal = (x) => pluginRules.reduce((a, id) => a + (x.timing[id] ?? 0), 0);
    rows.push([`all ${pluginRules.length} safe-retry rules together`, ms(median(runs.with.map(pluginTotal))), ratio(median(runs.with.map((x) => pluginTotal(x) / x.timing[nuv])))]);
    out.push(`ESLint's \`TIMING=all\` per rule, medians over the ${rounds} runs with the plugin (the ratio is taken within each run); ESLint charges a file's shared retry model, the following of its imports into other files included, to the first plugin rule that asks for it:\n`);
    out.push(table(['<rule', 'median ms', `vs ${nuv}`], rows));
    const modelRule = pluginRules[0];
    out.push(`\nThe rule that carries the shared model, \`${modelRule}\`, costs ${ratio(vsNuv(modelRule))} \`${nuv}\` (target ≤ 0.25x). The plugin's rules together take ${pct(median(runs.with.map((x) => pluginTotal(x) / x.wall)))} of the wall time of a run with the plugin; the rest of the difference between the pairs is loading the plugin, the preset's parser choice, the garbage the analysis leaves, and noise.`);
    if (baselineDir) out.push(baselineSection(runs, modelRule, nuv));
    return out.join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** --baseline: the model's TIMING in this build's runs against the other build's, round by round. */
function baselineSection(runs, modelRule, nuv) {
  const of = (x, id) => x.timing[id] ?? 0;
  const row = (label, list) => [label, ms(median(list.map((x) => of(x, modelRule)))), ms(median(list.map((x) => of(x, nuv)))), ratio(median(list.map((x) => of(x, modelRule) / of(x, nuv)))), String(pluginFindingsOf(list.at(-1)))];
  const perRound = runs.with.map((x, i) => of(x, modelRule) / of(runs.baseline[i], modelRule));
  // The checkouts the two dist/ folders were built in, named by commit as the codebase is.
  const rev = (d) => { const c = commitOf(d); return /^[0-9a-f]{40}$/.test(c) ? c.slice(0, 7) : c; };
  return [
    `\n### This build against a baseline build, one-shot\n`,
    `The same rounds ran a third \`eslint .\` with the preset of the build at ${rev(dirname(baselineDir))} (this build: ${rev(dirname(pluginDir))}), the order rotating by round. TIMING of \`${modelRule}\`, which ESLint charges with the shared model in both builds, medians over the rounds:\n`,
    table(['<build', `${modelRule} ms`, `${nuv} ms`, 'model vs no-unused-vars, within each run', 'plugin findings'], [row('baseline', runs.baseline), row('this build', runs.with)]),
    `\n**Model, this build / baseline: ${ratio(median(perRound))}** (rounds ${ratio(Math.min(...perRound))}–${ratio(Math.max(...perRound))}).`,
  ].join('\n');
}

console.log(section());
