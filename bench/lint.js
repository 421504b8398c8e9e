// npm run bench:lint — what the plugin's rules cost on a real corpus, next to what people run anyway.
//
// Every number is a ratio taken side by side in one run: the rule sets are linted in a rotated
// order each round and the tables show medians over rounds. Times come from ESLint's own
// `stats: true` timing (parse, per-rule listener time, pass total). Absolute milliseconds are shown
// for orientation only; on a shared machine only the ratios mean anything.
//
//   node bench/lint.js            all sections
//   node bench/lint.js --quick    fewer rounds, no 16x scale (a smoke run)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import safeRetry from '../dist/index.js';
import { LINT_NODE_MODULES, PACKAGES, PLUGIN_PREFIX, copyName, loadCorpus, ruleSets, samePassSets } from './lib/corpus.js';
import { median, mb, ms, pct, ratio, rotation, table } from './lib/stats.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const quick = process.argv.includes('--quick');
const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
// --files=N: the first N files of each package only, to check the benchmark itself quickly.
const limit = Number(arg('files') ?? Infinity);

/**
 * Lint `files` and sum ESLint's stats: where npm put them (`real`), or `scale` times under distinct
 * virtual names.
 */
async function lintCorpus(eslint, files, { scale = 1, real = false } = {}) {
  const out = { files: 0, total: 0, parse: 0, rules: {}, byPackage: {}, findings: {}, fatal: 0 };
  for (let k = 0; k < scale; k++) {
    for (const file of files) {
      const started = process.hrtime.bigint();
      const [result] = await eslint.lintText(file.text, { filePath: real ? file.path : copyName(file, k) });
      // ESLint's stats give parse and per-rule times; a pass total only when fixing, so time the call.
      const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
      out.files++;
      out.total += elapsed;
      const pkg = (out.byPackage[file.package] ??= { total: 0, plugin: 0 });
      pkg.total += elapsed;
      for (const m of result.messages) {
        if (m.fatal) out.fatal++;
        else if (m.ruleId) out.findings[m.ruleId] = (out.findings[m.ruleId] ?? 0) + 1;
      }
      for (const pass of result.stats?.times.passes ?? []) {
        out.parse += pass.parse.total;
        for (const [id, t] of Object.entries(pass.rules ?? {})) {
          out.rules[id] = (out.rules[id] ?? 0) + t.total;
          if (id.startsWith(PLUGIN_PREFIX)) pkg.plugin += t.total;
        }
      }
    }
  }
  // ESLint's Linter keeps the last file's SourceCode (for getSourceCode()); with typescript.js last
  // that is over a gigabyte per ESLint instance. A tiny file in its place lets it go.
  await eslint.lintText('', { filePath: 'corpus/release.js' });
  return out;
}

const pluginTime = (run) => Object.entries(run.rules).reduce((sum, [id, t]) => (id.startsWith(PLUGIN_PREFIX) ? sum + t : sum), 0);
const findingCount = (run, prefix = '') => Object.entries(run.findings).reduce((s, [id, n]) => (id.startsWith(prefix) ? s + n : s), 0);

function newESLint(config) {
  return new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: config, stats: true });
}

// ------------------------------------------------------------------------------------------------
// 1. Rule sets side by side, per rule, per package

async function ruleSetSection() {
  const files = loadCorpus({ limit });
  const sets = ruleSets();
  const names = Object.keys(sets);
  const linters = Object.fromEntries(names.map((n) => [n, newESLint(sets[n])]));
  const rounds = quick ? 4 : 6;
  const runs = Object.fromEntries(names.map((n) => [n, []]));
  // The plugin and no-unused-vars in one pass, which of them runs first alternating by round.
  const same = samePassSets();
  const orders = Object.keys(same);
  const sameLinters = Object.fromEntries(orders.map((o) => [o, newESLint(same[o])]));
  const sameRuns = [];
  // One unmeasured round: JIT warm-up and the first parse of every module would otherwise land on whichever set runs first.
  for (const n of names) await lintCorpus(linters[n], files, { real: true });
  for (const o of orders) await lintCorpus(sameLinters[o], files, { real: true });
  for (let r = 0; r < rounds; r++) {
    for (const n of rotation(names, r)) runs[n].push(await lintCorpus(linters[n], files, { real: true }));
    const order = orders[r % orders.length];
    sameRuns.push({ order, run: await lintCorpus(sameLinters[order], files, { real: true }) });
  }
  const [base, plugin, reference] = names;
  const perRound = (f) => runs[base].map((_, r) => f(r));
  const lines = files.reduce((s, f) => s + f.lines, 0);

  const out = [];
  out.push(`## Lint cost on the corpus\n`);
  out.push(`${files.length} files, ${lines.toLocaleString('en')} lines (${PACKAGES.map((p) => p.name).join(', ')}); ${rounds} measured rounds after one warm-up round, sets rotated each round. Parse and rule times are ESLint \`stats\` sums over all files; "lint ms" is the time of each \`lintText\` call (config lookup, parse, scope analysis, traversal, rules) summed; medians over rounds.\n`);
  out.push(table(['<rule set', 'lint ms (lintText)', 'parse ms', 'rules ms', 'findings', 'total vs no-debugger'], names.map((n) => [
    n,
    ms(median(runs[n].map((x) => x.total))),
    ms(median(runs[n].map((x) => x.parse))),
    ms(median(runs[n].map((x) => Object.values(x.rules).reduce((a, b) => a + b, 0)))),
    String(findingCount(runs[n].at(-1))),
    ratio(median(perRound((r) => runs[n][r].total / runs[base][r].total))),
  ])));

  const share = perRound((r) => pluginTime(runs[plugin][r]) / runs[base][r].total);
  const shareSameRun = perRound((r) => pluginTime(runs[plugin][r]) / (runs[plugin][r].total - pluginTime(runs[plugin][r])));
  const delta = perRound((r) => runs[plugin][r].total / runs[base][r].total - 1);
  out.push(`\n### The plugin's share (budget: under 5%)\n`);
  out.push(table(['<measure', 'median', 'min', 'max'], [
    ['plugin rules (ESLint stats) / rest of the same pass', shareSameRun],
    ['plugin rules / no-debugger pass of the same round', share],
    ['pass total with plugin / no-debugger pass, minus 1 (noisiest: two runs)', delta],
  ].map(([label, v]) => [label, pct(median(v)), pct(Math.min(...v)), pct(Math.max(...v))])));
  out.push(`\nThe first measure compares work inside one and the same lint pass and is the least exposed to machine noise; the third subtracts two separate runs, so parse-time noise of a few percent shows up in it directly.`);

  // Per rule against eslint's no-unused-vars in the reference run of the same round.
  const nuv = 'no-unused-vars';
  const pluginRules = Object.keys(runs[plugin][0].rules).filter((id) => id.startsWith(PLUGIN_PREFIX));
  const rows = pluginRules.map((id) => {
    const v = perRound((r) => (runs[plugin][r].rules[id] ?? 0) / runs[reference][r].rules[nuv]);
    return [id, ms(median(runs[plugin].map((x) => x.rules[id] ?? 0))), ratio(median(v)), median(v) < 1 ? 'yes' : 'NO'];
  });
  const all = perRound((r) => pluginTime(runs[plugin][r]) / runs[reference][r].rules[nuv]);
  rows.push(['all plugin rules together', ms(median(runs[plugin].map(pluginTime))), ratio(median(all)), median(all) < 1 ? 'yes' : 'no (not a budget)']);
  rows.push([`${nuv} (eslint recommended run)`, ms(median(runs[reference].map((x) => x.rules[nuv]))), '1.00x', '']);
  out.push(`\n### Each rule against \`${nuv}\` (budget: every rule below 1.00x)\n`);
  out.push(table(['<rule', 'median ms', 'vs no-unused-vars', 'under budget'], rows));
  out.push(`\nThe retry model of a file is built once and shared; ESLint charges its construction to the first rule that asks for it (rules run in config order, so \`${pluginRules[0]}\`). That rule's row is the model plus its own judging.`);

  // The same comparison inside one pass, the order alternated.
  const sameRows = pluginRules.map((id) => {
    const byOrder = orders.map((o) => median(sameRuns.filter((x) => x.order === o).map((x) => (x.run.rules[id] ?? 0) / x.run.rules[nuv])));
    const both = median(sameRuns.map((x) => (x.run.rules[id] ?? 0) / x.run.rules[nuv]));
    return [id, ...byOrder.map(ratio), ratio(both), Math.max(...byOrder) < 1 ? 'yes' : 'NO'];
  });
  out.push(`\n#### The same, with \`${nuv}\` in the same lint pass\n`);
  out.push(table(['<rule', ...orders.map((o) => `vs ${nuv}, ${o}`), 'median of all rounds', 'under budget in both orders'], sameRows));
  out.push(`\n${rounds} rounds, the order alternated (${orders.join(' / ')}). ESLint's timing charges a rule for everything that happens while its listeners run: garbage collection of what the parser left behind, and cache misses on a tree no other rule has touched yet. In the cross-run table above, \`${nuv}\` shares those costs with eslint's ~60 recommended rules while the plugin's first rule bears them alone; here both face the same pass, and the order alternates.`);

  out.push(`\n### Per package\n`);
  const pkgRows = PACKAGES.map((p) => {
    const fs = files.filter((f) => f.package === p.name);
    const s = perRound((r) => runs[plugin][r].byPackage[p.name].plugin / runs[base][r].byPackage[p.name].total);
    return [`${p.name} (${p.what})`, String(fs.length), fs.reduce((a, f) => a + f.lines, 0).toLocaleString('en'), ms(median(runs[base].map((x) => x.byPackage[p.name].total))), ms(median(runs[plugin].map((x) => x.byPackage[p.name].plugin))), pct(median(s))];
  });
  out.push(table(['<package', 'files', 'lines', 'no-debugger pass ms', 'plugin rules ms', 'plugin share'], pkgRows));
  const fatal = Math.max(...names.map((n) => runs[n].at(-1).fatal));
  if (fatal) out.push(`\n${fatal} corpus files did not parse.`);
  return out.join('\n');
}

// ------------------------------------------------------------------------------------------------
// 2. Scaling and memory: each measurement in its own child process, so peak RSS is its own.

async function childRun() {
  const scale = Number(arg('scale'));
  const set = arg('set');
  const files = loadCorpus({ large: false, limit });
  const eslint = newESLint(ruleSets()[set]);
  // One unmeasured pass first, so JIT warm-up does not inflate the 1x time per file.
  await lintCorpus(eslint, files);
  const started = performance.now();
  const run = await lintCorpus(eslint, files, { scale });
  const wall = performance.now() - started;
  globalThis.gc?.();
  const heapAfterGc = process.memoryUsage().heapUsed;
  process.stdout.write(JSON.stringify({ files: run.files, total: run.total, plugin: pluginTime(run), wall, maxRss: process.resourceUsage().maxRSS * 1024, heapAfterGc, findings: findingCount(run) }));
}

function child(set, scale) {
  const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', `--set=${set}`, `--scale=${scale}`, `--files=${limit}`], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`child run ${set} x${scale} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function scalingSection() {
  const sets = ['no-debugger', 'no-debugger + safe-retry all'];
  const scales = quick ? [[1, 2], [4, 2]] : [[1, 3], [4, 3], [16, 1]];
  const results = {};
  for (const [scale, rounds] of scales) {
    for (let r = 0; r < rounds; r++) for (const set of rotation(sets, r)) ((results[scale] ??= {})[set] ??= []).push(child(set, scale));
  }
  const [base, plugin] = sets;
  const perFile = (scale, set) => median(results[scale][set].map((x) => x.total / x.files));
  const unit = perFile(scales[0][0], plugin);
  const rows = scales.map(([scale, rounds]) => {
    const b = results[scale][base];
    const p = results[scale][plugin];
    const pairs = b.map((x, i) => p[i].total / x.total);
    return [
      `${scale}x`, String(p[0].files), String(rounds),
      ms(perFile(scale, base)), ms(perFile(scale, plugin)), ratio(perFile(scale, plugin) / unit), ratio(median(pairs)),
      mb(median(b.map((x) => x.maxRss))), mb(median(p.map((x) => x.maxRss))), mb(median(b.map((x) => x.heapAfterGc))), mb(median(p.map((x) => x.heapAfterGc))),
    ];
  });
  const out = [`## Scaling and memory\n`];
  out.push(`The corpus without \`typescript.js\`, linted ${scales.map(([k]) => `${k}x`).join(', ')} under distinct virtual file names (nothing is copied); one child process per measurement, sets alternated. "per file" is ESLint's pass total divided by files. Memory: peak RSS of the child (\`process.resourceUsage().maxRSS\`) and heap in use after a forced GC at the end.\n`);
  out.push(table(['<scale', 'files', 'rounds', 'no-debugger ms/file', 'with plugin ms/file', 'plugin ms/file vs 1x', 'with plugin / no-debugger', 'peak RSS MB no-debugger', 'peak RSS MB with plugin', 'heap after GC MB no-debugger', 'heap after GC MB with plugin'], rows));
  out.push(`\nNear-constant "per file" across scales means linear total time; equal heap after GC at every scale means no per-file state survives a file (the model cache is a WeakMap keyed by the Program node).`);
  return out.join('\n');
}

// ------------------------------------------------------------------------------------------------
// 3. The type-aware preset

function typeAwarePreset() {
  for (const [name, config] of Object.entries(safeRetry.configs ?? {})) {
    if (config?.settings?.['safe-retry']?.typeAware || /type-?checked|type-?aware/.test(name)) return [name, config];
  }
  return undefined;
}

async function typeAwareSection() {
  const out = ['## Type-aware preset\n'];
  const found = typeAwarePreset();
  if (!found) {
    out.push('n/a: no type-aware preset yet');
    return out.join('\n');
  }
  const [presetName, preset] = found;
  // Type information needs real files and a program: lint the TypeScript sources where npm put
  // them, with a tsconfig made for the run (node_modules is excluded by default, so say otherwise).
  const dir = mkdtempSync(join(tmpdir(), 'safe-retry-typed-'));
  const tsPackages = PACKAGES.filter((p) => p.typescript);
  const files = loadCorpus({ large: false, limit }).filter((f) => tsPackages.some((p) => p.name === f.package));
  const tsconfigText = JSON.stringify({
    compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022', 'dom'], strict: true, noEmit: true, skipLibCheck: true, types: [] },
    files: files.map((f) => f.path),
    exclude: [],
  });
  // typescript-eslint keeps a program per tsconfig path for the life of the process: a tsconfig
  // file of its own per run makes every typed run build its program, as a fresh CLI run does.
  let runId = 0;
  const freshTsconfig = () => {
    const path = join(dir, `tsconfig.${runId++}.json`);
    writeFileSync(path, tsconfigText);
    return path;
  };
  try {
    const { default: tseslint } = await import('typescript-eslint');
    const base = { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } };
    const typed = () => ({ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser, parserOptions: { project: freshTsconfig(), tsconfigRootDir: dir } } });
    const common = [LINT_NODE_MODULES, { linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' } }];
    const recommended = safeRetry.configs.recommended;
    const sets = {
      'no-debugger, syntax only': [...common, base, { rules: { 'no-debugger': 'error' } }],
      'safe-retry recommended, syntax only': [...common, base, recommended, { rules: { 'no-debugger': 'error' } }],
      'no-debugger, typed parse': () => [...common, typed(), { rules: { 'no-debugger': 'error' } }],
      [`safe-retry ${presetName}, typed parse`]: () => [...common, typed(), preset, { rules: { 'no-debugger': 'error' } }],
    };
    const names = Object.keys(sets);
    const rounds = quick ? 2 : 3;
    const runs = Object.fromEntries(names.map((n) => [n, []]));
    // Round -1 is a warm-up (loading and JIT-compiling the parsers), not measured.
    for (let r = -1; r < rounds; r++) {
      for (const n of rotation(names, Math.max(r, 0))) {
        const config = typeof sets[n] === 'function' ? sets[n]() : sets[n];
        const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: config, stats: true });
        const started = performance.now();
        let total = 0;
        let plugin = 0;
        for (const f of files) {
          const [res] = await eslint.lintText(f.text, { filePath: f.path });
          for (const pass of res.stats?.times.passes ?? []) {
            total += pass.parse.total + Object.values(pass.rules ?? {}).reduce((a, t) => a + t.total, 0);
            for (const [id, t] of Object.entries(pass.rules ?? {})) if (id.startsWith(PLUGIN_PREFIX)) plugin += t.total;
          }
        }
        if (r >= 0) runs[n].push({ total, plugin, wall: performance.now() - started });
      }
    }
    const [b0, p0, b1, p1] = names;
    const m = (n, k) => median(runs[n].map((x) => x[k]));
    out.push(`${files.length} TypeScript files of ${tsPackages.map((p) => p.name).join(' and ')}, ${rounds} rounds after a warm-up round, a fresh ESLint and TypeScript program per run. "wall" includes building the TypeScript program, which \`stats\` does not see.\n`);
    out.push(table(['<run', 'wall ms', 'lint ms (lintText)', 'plugin rules ms', 'wall vs no-debugger syntax only'], names.map((n) => [n, ms(m(n, 'wall')), ms(m(n, 'total')), ms(m(n, 'plugin')), ratio(median(runs[n].map((x, i) => x.wall / runs[b0][i].wall)))])));
    out.push(`\nExtra cost of the type-aware preset over the same parse: plugin rules ${ms(m(p1, 'plugin'))} ms with types vs ${ms(m(p0, 'plugin'))} ms without; the typed parse itself (paid by any type-aware lint setup) is ${ratio(m(b1, 'wall') / m(b0, 'wall'))} the syntax-only wall time.`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out.join('\n');
}

// ------------------------------------------------------------------------------------------------
// 4. A monorepo through the CLI: --concurrency and --cache

function monorepoSection() {
  const dir = mkdtempSync(join(tmpdir(), 'safe-retry-monorepo-'));
  try {
    // packages/<name>/... : the corpus without the large file, laid out as a workspace.
    const files = loadCorpus({ large: false, limit });
    for (const f of files) {
      const target = join(dir, 'packages', f.package.replace('/', '__'), f.rel);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, f.text);
    }
    const url = (spec) => import.meta.resolve(spec);
    const sourceTypes = PACKAGES.filter((p) => !p.typescript && !p.large).map((p) => `  { files: ['packages/${p.name.replace('/', '__')}/**/*.js'], languageOptions: { sourceType: '${p.sourceType}' } },`);
    const configFile = (withPlugin) => [
      `import tseslint from '${url('typescript-eslint')}';`,
      withPlugin ? `import safeRetry from '${pathToFileURL(join(root, 'dist/index.js')).href}';` : '',
      'export default [',
      "  { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },",
      ...sourceTypes,
      '  { linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: "off" } },',
      withPlugin ? "  { files: ['**/*.{js,ts}'], ...safeRetry.configs.all }," : '',
      "  { files: ['**/*.{js,ts}'], rules: { 'no-debugger': 'error' } },",
      '];',
      '',
    ].join('\n');
    writeFileSync(join(dir, 'eslint.config.js'), configFile(true));
    writeFileSync(join(dir, 'no-debugger.config.js'), configFile(false));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'monorepo', private: true, type: 'module' }));
    const eslintBin = join(root, 'node_modules/eslint/bin/eslint.js');
    const cache = join(dir, '.eslintcache');
    const cli = (extra) => {
      const outFile = join(dir, 'out.json');
      const started = performance.now();
      const r = spawnSync(process.execPath, [eslintBin, '--format', 'json', '--output-file', outFile, ...extra, 'packages'], { cwd: dir, encoding: 'utf8' });
      const wall = performance.now() - started;
      if (r.status !== 0 && r.status !== 1) throw new Error(`eslint ${extra.join(' ')} exited ${r.status}: ${r.stderr}`);
      const results = JSON.parse(readFileSync(outFile, 'utf8'));
      const findings = results.flatMap((res) => res.messages.map((m) => `${res.filePath.slice(dir.length)}:${m.line}:${m.column} ${m.ruleId} ${m.message}`)).sort();
      return { wall, findings };
    };
    const variants = {
      'single-threaded (--concurrency off)': () => cli(['--concurrency', 'off']),
      'reference: no-debugger only, single-threaded': () => cli(['--concurrency', 'off', '--config', 'no-debugger.config.js']),
      '--concurrency auto': () => cli(['--concurrency', 'auto']),
      '--concurrency 2': () => cli(['--concurrency', '2']),
      '--cache, cold': () => { rmSync(cache, { force: true }); return cli(['--concurrency', 'off', '--cache', '--cache-location', cache]); },
      '--cache, warm (nothing changed)': () => {
        if (!existsSync(cache)) cli(['--concurrency', 'off', '--cache', '--cache-location', cache]);
        return cli(['--concurrency', 'off', '--cache', '--cache-location', cache]);
      },
    };
    const names = Object.keys(variants);
    const rounds = quick ? 2 : 3;
    const runs = Object.fromEntries(names.map((n) => [n, []]));
    for (let r = 0; r < rounds; r++) for (const n of rotation(names, r)) runs[n].push(variants[n]());
    // ESLint's rule for auto: one worker per 50 files, at most half the cores, and one worker means none.
    const autoWorkers = Math.min(Math.ceil(files.length / 50), availableParallelism() >> 1);
    const reference = runs[names[0]][0].findings;
    for (const n of names) {
      if (n.startsWith('reference')) continue;
      for (const run of runs[n]) {
        if (run.findings.length !== reference.length || run.findings.some((f, i) => f !== reference[i])) {
          throw new Error(`${n}: findings differ from the single-threaded run (${run.findings.length} vs ${reference.length})`);
        }
      }
    }
    const base = names[0];
    const out = ['## Monorepo through the CLI: multithreaded linting and the cache\n'];
    out.push(`The corpus without \`typescript.js\` (${files.length} files) laid out as \`packages/*\` in a temporary directory, linted by the \`eslint\` CLI with the plugin's \`all\` preset plus \`no-debugger\`; ${rounds} rounds, variants rotated. Every run produced the same ${reference.length} messages as the single-threaded run (asserted): ${reference.filter((f) => f.includes(` ${PLUGIN_PREFIX}`)).length} findings of the plugin, the rest ESLint's notices that the corpus's own directive comments are off. This machine has ${availableParallelism()} cores; \`--concurrency auto\` allows at most half of them and turns a single worker into none, so here it runs ${autoWorkers > 1 ? `${autoWorkers} workers` : 'single-threaded (its row differs from the first only by noise)'}. \`--concurrency 2\` forces two worker threads on the two cores.\n`);
    out.push(table(['<run', 'median wall ms', 'speed-up vs single-threaded'], names.map((n) => [n, ms(median(runs[n].map((x) => x.wall))), ratio(median(runs[n].map((x, i) => runs[base][i].wall / x.wall)))])));
    // One more single-threaded run with ESLint's TIMING table: what the rules cost in a one-shot process.
    const timed = spawnSync(process.execPath, [eslintBin, '--concurrency', 'off', '--format', 'json', '--output-file', join(dir, 'timed.json'), 'packages'], { cwd: dir, encoding: 'utf8', env: { ...process.env, TIMING: 'all' } });
    const timing = [...(timed.stdout ?? '').matchAll(/^(\S+)\s*\|\s*([\d.]+)\s*\|/gm)].map((m) => [m[1], Number(m[2])]);
    const cliPlugin = timing.filter(([id]) => id.startsWith(PLUGIN_PREFIX)).reduce((a, [, t]) => a + t, 0);
    const ref = names[1];
    const share = median(runs[base].map((x, i) => x.wall / runs[ref][i].wall - 1));
    out.push(`\nThe plugin's share of the single-threaded CLI wall time (process start, loading the plugin, following imported retry helpers into other files included): ${pct(share)} over the no-debugger-only run, median of per-round pairs. ESLint's \`TIMING=all\` in one more such run charges the plugin's rules ${ms(cliPlugin)} ms in all; the in-process rounds above see less because a long-lived process (an editor, those rounds) keeps the imported files it has parsed, while a one-shot CLI run parses each once.`);
    return out.join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What loading the plugin costs every `eslint` run (and every worker thread of one): a fresh process
 * imports ESLint, then the plugin, and the plugin's import is timed. typescript-eslint's own plugin,
 * the other plugin of the one-shot benchmark's config, loaded the same way, is the yardstick.
 */
async function loadSection() {
  const rounds = quick ? 5 : 15;
  const variants = {
    'eslint-plugin-safe-retry (dist/index.js)': pathToFileURL(join(root, 'dist/index.js')).href,
    '@typescript-eslint/eslint-plugin': '@typescript-eslint/eslint-plugin',
  };
  const names = Object.keys(variants);
  const times = Object.fromEntries(names.map((n) => [n, []]));
  const script = (specifier) => `await import('eslint'); const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`;
  for (let round = 0; round < rounds; round++) {
    for (const name of rotation(names, round)) {
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script(variants[name])], { cwd: root, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`loading ${name} failed: ${r.stderr}`);
      times[name].push(Number(r.stdout));
    }
  }
  const yard = names[1];
  const rows = names.map((n) => [n, ms(median(times[n])), ms(Math.min(...times[n])), ms(Math.max(...times[n])), ratio(median(times[n].map((t, i) => t / times[yard][i])))]);
  return ['### Loading the plugin', '',
    `A fresh Node process per measurement imports ESLint, then the plugin; the plugin's import is timed (${rounds} rounds, variants alternated, medians; the ratio is the median of the per-round ratios). This is paid once per \`eslint\` run, and once per worker thread with \`--concurrency\`.`, '',
    table(['<plugin', 'median ms', 'min', 'max', 'vs @typescript-eslint/eslint-plugin'], rows)].join('\n');
}

// ------------------------------------------------------------------------------------------------

if (process.argv.includes('--child')) {
  await childRun();
} else {
  const only = arg('only');
  const sections = { rules: ruleSetSection, scaling: scalingSection, typed: typeAwareSection, monorepo: monorepoSection, load: loadSection };
  for (const [name, section] of Object.entries(sections)) {
    if (only && !only.split(',').includes(name)) continue;
    const started = performance.now();
    console.log(await section());
    console.log('');
    process.stderr.write(`bench/lint: ${name} done in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  }
}
