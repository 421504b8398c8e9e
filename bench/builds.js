// node bench/builds.js --baseline=DIR — this build of the plugin against another build, on the lint
// corpus, side by side in one run. DIR is another checkout of this repository with its dist/ built
// (for example `git worktree add DIR <commit> && (cd DIR && npm ci && npm run build)`).
//
// Each round lints the corpus (without typescript.js unless --large) in one fresh child process per
// build, the order alternating by round. A child lints every file twice: the first pass is what a
// one-shot CI run pays (V8 has not compiled the plugin's code yet), the second what a long-lived
// process (an editor) pays. Both builds run all their rules and `no-unused-vars` in the same pass,
// `no-unused-vars` first, so the model (charged by ESLint to the first plugin rule that asks for it,
// `max-retry-attempts`) is measured beside the same yardstick in both. Times are CPU time (user plus
// system) of each rule's listeners, taken around every call: on a shared machine, wall-clock rule
// times (ESLint's TIMING and stats) grow with whatever else runs, CPU time much less.
//
//   --rounds=N   timed pairs (default 5; --quick 3)
//   --large      include typescript.js (about 20 s more per pass)
//   --codebase=DIR  lint a real codebase's TypeScript files in place instead of the corpus (their
//                imports resolve, so the following of imported helpers is paid as in a project;
//                pnpm/pnpm extracted as for bench/oneshot.js is the reference), with --limit=N
//                files at most (default 800, in path order)
//   SAFE_RETRY_BASELINE_DIR=DIR  the baseline, when run through `npm run bench` (without one it says
//                                how to supply it and exits 0)
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, ms, ratio, table } from './lib/stats.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const MODEL_RULE = 'safe-retry/max-retry-attempts';
const YARDSTICK = 'no-unused-vars';

/** The rule with every listener (and `create` itself) charged to `account[key]` in CPU microseconds. */
function timed(rule, account, key) {
  const charge = (fn) => function (...args) {
    const start = process.cpuUsage();
    try {
      return fn.apply(this, args);
    } finally {
      const d = process.cpuUsage(start);
      account[key] += d.user + d.system;
    }
  };
  return {
    ...rule,
    create: charge((context) => {
      const listeners = rule.create(context);
      return Object.fromEntries(Object.entries(listeners).map(([k, fn]) => [k, charge(fn)]));
    }),
  };
}

async function child(dir) {
  const { ESLint } = await import('eslint');
  const { builtinRules } = await import('eslint/use-at-your-own-risk');
  const { baseConfig, loadCorpus } = await import('./lib/corpus.js');
  const plugin = (await import(pathToFileURL(resolve(dir, 'dist/index.js')).href)).default;
  const codebase = arg('codebase');
  const files = codebase ? codebaseFiles(codebase, Number(arg('limit') ?? 800)) : loadCorpus({ large: process.argv.includes('--large') });
  const account = { model: 0, plugin: 0, yardstick: 0 };
  const rules = Object.fromEntries(Object.entries(plugin.rules).map(([name, rule]) => [name, timed(rule, account, 'plugin')]));
  // The model is charged to the first plugin rule that asks for it; count that rule apart as well.
  const modelRule = MODEL_RULE.slice('safe-retry/'.length);
  const inner = rules[modelRule];
  rules[modelRule] = timed(inner, account, 'model');
  const bench = { rules: { [YARDSTICK]: timed(builtinRules.get(YARDSTICK), account, 'yardstick') } };
  const globs = codebase ? ['**/*.ts', '**/*.tsx'] : ['corpus/**/*.{js,ts}'];
  const config = [
    ...(codebase ? [{ files: globs, languageOptions: { parser: (await import('typescript-eslint')).default.parser, sourceType: 'module' } }, { linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' } }] : baseConfig(globs)),
    { files: globs, plugins: { bench }, rules: { [`bench/${YARDSTICK}`]: 'error' } },
    // Only the rules of the preset: presets of older builds may carry other settings.
    { files: globs, plugins: { 'safe-retry': { ...plugin, rules } }, rules: plugin.configs.all.rules },
  ];
  const eslint = new ESLint({ cwd: codebase ? resolve(codebase) : root, overrideConfigFile: true, overrideConfig: config });
  const passes = [];
  for (let pass = 0; pass < 2; pass++) {
    for (const k of Object.keys(account)) account[k] = 0;
    let findings = 0;
    for (const file of files) {
      const [result] = await eslint.lintText(file.text, { filePath: file.name });
      findings += result.messages.filter((m) => m.ruleId?.startsWith('safe-retry/')).length;
    }
    // Microseconds to milliseconds; the model rule's time is inside the plugin's too.
    passes.push({ model: account.model / 1000, plugin: account.plugin / 1000, yardstick: account.yardstick / 1000, findings });
  }
  process.stdout.write(JSON.stringify({ files: files.length, passes }));
}

/** A codebase's TypeScript files in path order, without dependencies, build output and fixtures (as bench/oneshot.js ignores them). */
function codebaseFiles(dir, limit) {
  const out = [];
  const visit = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (out.length >= limit) return;
      const path = join(d, entry.name);
      if (entry.isDirectory()) {
        if (!/^(?:node_modules|lib|dist|fixtures|__fixtures__)$|^\./.test(entry.name)) visit(path);
      } else if (entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        out.push({ name: path, text: readFileSync(path, 'utf8') });
      }
    }
  };
  visit(resolve(dir));
  return out;
}

function run(dir) {
  const pass = ['--large', '--codebase=', '--limit='];
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), `--child=${dir}`, ...process.argv.filter((a) => pass.some((p) => a === p || (p.endsWith('=') && a.startsWith(p))))], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  if (r.status !== 0) throw new Error(`the child for ${dir} failed (exit ${r.status ?? r.signal}):\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function main() {
  const childDir = arg('child');
  if (childDir) return child(childDir);
  const baseline = arg('baseline') ?? process.env['SAFE_RETRY_BASELINE_DIR'];
  if (!baseline) {
    // `npm run bench` runs every benchmark; this one needs a second build, so it says how and passes.
    console.log('### This build against a baseline build\n\nNot run: give another built checkout with `--baseline=DIR` or `SAFE_RETRY_BASELINE_DIR=DIR` (see bench/builds.js).');
    return;
  }
  const base = resolve(baseline);
  if (!existsSync(resolve(base, 'dist/index.js'))) throw new Error(`${base} has no dist/index.js: run npm run build there first`);
  const rounds = Number(arg('rounds') ?? (process.argv.includes('--quick') ? 3 : 5));
  const builds = { baseline: base, 'this build': root };
  const results = { baseline: [], 'this build': [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['baseline', 'this build'] : ['this build', 'baseline'];
    for (const name of order) results[name].push(run(builds[name]));
    process.stderr.write(`round ${round + 1}/${rounds} done\n`);
  }
  const files = results['this build'][0].files;
  const commit = (dir) => {
    try {
      return execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return 'not a git checkout';
    }
  };
  const rows = [];
  for (const [pass, label] of [[0, 'first pass (one-shot)'], [1, 'second pass (long-lived)']]) {
    const at = (name, key) => results[name].map((r) => r.passes[pass][key]);
    const perRound = (f) => median(results['this build'].map((r, i) => f(r.passes[pass], results.baseline[i].passes[pass])));
    rows.push([
      label,
      ms(median(at('baseline', 'model'))),
      ms(median(at('this build', 'model'))),
      ratio(perRound((a, b) => a.model / b.model)),
      ratio(median(results.baseline.map((r) => r.passes[pass].model / r.passes[pass].yardstick))),
      ratio(median(results['this build'].map((r) => r.passes[pass].model / r.passes[pass].yardstick))),
      ratio(perRound((a, b) => a.plugin / b.plugin)),
      `${median(at('baseline', 'findings'))} / ${median(at('this build', 'findings'))}`,
    ]);
  }
  console.log(`### This build against a baseline build\n`);
  console.log(`Baseline: ${commit(base)}; this build: ${commit(root)} (the built dist/ of each). ${arg('codebase') ? `${files} TypeScript files of the codebase in ${arg('codebase')} (linted in place, imports followed),` : `${files} corpus files,`} ${rounds} alternated pairs of child processes; medians. "model" is \`${MODEL_RULE}\` (ESLint charges the shared model to it), "vs ${YARDSTICK}" is the same pass's \`${YARDSTICK}\` time.\n`);
  const detail = [];
  for (let i = 0; i < rounds; i++) {
    const [b, t] = [results.baseline[i], results['this build'][i]];
    detail.push([String(i + 1), i % 2 === 0 ? 'baseline' : 'this build', ...[0, 1].flatMap((p) => [ms(b.passes[p].model), ms(t.passes[p].model), ms(b.passes[p].yardstick), ms(t.passes[p].yardstick)])]);
  }
  console.log(table(['<pass', 'model ms, baseline', 'model ms, this build', 'model, this / baseline', `model vs ${YARDSTICK}, baseline`, `model vs ${YARDSTICK}, this build`, 'all plugin rules, this / baseline', 'plugin findings, baseline / this'], rows));
  console.log(`\nPer round (CPU ms; model = \`${MODEL_RULE}\`, nuv = \`${YARDSTICK}\`):\n`);
  console.log(table(['round', '<first', 'model 1, baseline', 'model 1, this', 'nuv 1, baseline', 'nuv 1, this', 'model 2, baseline', 'model 2, this', 'nuv 2, baseline', 'nuv 2, this'], detail));
}

await main();
