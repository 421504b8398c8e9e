// The lint corpus: code nobody on this project wrote, pinned as devDependencies so `npm ci` brings
// the same bytes to every machine. Files are linted under virtual names (`corpus/<package>/...`)
// because flat config ignores node_modules, and so that larger corpora can be made by linting the
// same files again under other names without copying anything.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import safeRetry from '../../dist/index.js';

const root = new URL('../../', import.meta.url).pathname;

/** Directory of an installed package (its package.json may not be exported, so resolve by path). */
function packageDir(name) {
  return join(root, 'node_modules', name);
}

export function versionOf(name) {
  return JSON.parse(readFileSync(join(packageDir(name), 'package.json'), 'utf8')).version;
}

/**
 * What each package contributes. `sourceType` is the package's own module system, not a guess from
 * the text: undici is CommonJS, typescript.js is a CommonJS bundle, the rest ship ESM.
 */
export const PACKAGES = [
  { name: 'rxjs', typescript: true, dirs: ['src'], ext: /\.ts$/, exclude: /\.d\.ts$/, sourceType: 'module', what: 'TypeScript sources under src/' },
  { name: 'got', dirs: ['dist/source'], ext: /\.js$/, sourceType: 'module', what: 'dist/source JavaScript (ESM)' },
  { name: 'undici', dirs: ['lib'], files: ['index.js', 'index-fetch.js'], ext: /\.js$/, sourceType: 'commonjs', what: 'lib/ and entry points (CommonJS)' },
  { name: '@aws-sdk/client-s3', dirs: ['dist-es'], ext: /\.js$/, sourceType: 'module', what: 'dist-es JavaScript (ESM)' },
  { name: 'openai', typescript: true, dirs: ['src'], ext: /\.ts$/, exclude: /\.d\.ts$/, sourceType: 'module', what: 'TypeScript sources under src/ (an SDK with its own retries)' },
  { name: 'stripe', dirs: ['esm'], ext: /\.js$/, sourceType: 'module', what: 'esm/ JavaScript (an SDK with its own retries)' },
  { name: '@actions/http-client', dirs: ['lib'], ext: /\.js$/, sourceType: 'module', what: 'lib/ JavaScript (ESM, a client with its own retries)' },
  { name: '@slack/web-api', dirs: ['dist'], ext: /\.js$/, sourceType: 'commonjs', what: 'dist/ JavaScript (CommonJS, uses p-retry)' },
  { name: '@vercel/blob', dirs: ['dist'], ext: /\.js$/, sourceType: 'module', what: 'dist/ JavaScript (ESM, uses async-retry)' },
  { name: 'make-fetch-happen', dirs: ['lib'], ext: /\.js$/, sourceType: 'commonjs', what: 'lib/ JavaScript (CommonJS, uses promise-retry)' },
  { name: 'typescript', files: ['lib/typescript.js'], ext: /\.js$/, sourceType: 'commonjs', large: true, what: 'lib/typescript.js, the large-file case' },
];

function* walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}

/**
 * Every corpus file: `{ package, path (real, for reading), name (virtual, for linting), text, lines }`.
 * `large: false` leaves out the multi-megabyte file (the scaling runs multiply the rest); `limit`
 * keeps the first files of each package (for smoke runs of the benchmarks themselves).
 */
export function loadCorpus({ large = true, limit = Infinity } = {}) {
  const files = [];
  for (const pkg of PACKAGES) {
    if (pkg.large && !large) continue;
    const base = packageDir(pkg.name);
    const paths = [];
    for (const d of pkg.dirs ?? []) for (const p of walk(join(base, d))) if (pkg.ext.test(p) && !pkg.exclude?.test(p)) paths.push(p);
    for (const f of pkg.files ?? []) paths.push(join(base, f));
    for (const path of paths.slice(0, limit)) {
      const text = readFileSync(path, 'utf8');
      const rel = relative(base, path);
      files.push({ package: pkg.name, sourceType: pkg.sourceType, large: !!pkg.large, path, rel, name: `corpus/${pkg.name}/${rel}`, text, lines: text.split('\n').length });
    }
  }
  return files;
}

/** Virtual name of copy `k` of a corpus file, for the scaling runs (copy 0 is the plain virtual name). */
export function copyName(file, k) {
  return k === 0 ? file.name : `corpus/copy-${k}/${file.name.slice('corpus/'.length)}`;
}

/**
 * Files are linted either under virtual names (`corpus/...`) or where npm put them
 * (`node_modules/...`, with ESLint's default ignores off): there a relative import resolves to a
 * real file, so the model's following of imported retry helpers costs what it costs in a project.
 */
const FILES = ['corpus/**/*.{js,ts}', 'node_modules/**/*.{js,ts}'];

/** Flat config ignores node_modules by default; this global negation lets the corpus be linted in place. */
export const LINT_NODE_MODULES = { ignores: ['!**/node_modules/'] };

/** Parser and module system per corpus package. */
export function languageConfigs() {
  const out = [{ files: FILES.map((g) => g.replace('{js,ts}', 'ts')), languageOptions: { parser: tseslint.parser, sourceType: 'module' } }];
  for (const pkg of PACKAGES) {
    if (pkg.typescript) continue;
    const files = [`corpus/${pkg.name}/**/*.js`, `corpus/copy-*/${pkg.name}/**/*.js`, `node_modules/${pkg.name}/**/*.js`];
    out.push({ files, languageOptions: { ecmaVersion: 'latest', sourceType: pkg.sourceType } });
  }
  return out;
}

/**
 * What every corpus lint starts from: node_modules not ignored, the files linted, each package's
 * parser and module system, and the corpus's own directives ignored.
 */
export function baseConfig(files = FILES) {
  return [
    LINT_NODE_MODULES,
    { files },
    ...languageConfigs(),
    // The corpus's own eslint-disable comments are not ours to honour or judge.
    { linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' } },
  ];
}

/** The rule sets every benchmark compares, as complete flat configs. */
export function ruleSets() {
  const base = baseConfig();
  const noDebugger = { files: FILES, rules: { 'no-debugger': 'error' } };
  return {
    'no-debugger': [...base, noDebugger],
    'no-debugger + safe-retry all': [...base, { ...safeRetry.configs.all, files: FILES }, noDebugger],
    'eslint recommended': [...base, { files: FILES, rules: js.configs.recommended.rules }],
  };
}

/**
 * The plugin's rules and `no-unused-vars` in one and the same pass, in both orders: the rule that
 * runs first on a file pays for bringing its syntax tree and scopes back into the CPU caches, so a
 * fair comparison alternates which one goes first.
 */
export function samePassSets() {
  const [ignoreNodeModules, filesOnly, ...rest] = ruleSets()['no-debugger'];
  const noDebugger = rest.pop();
  const nuv = { files: FILES, rules: { 'no-unused-vars': 'error' } };
  const plugin = { ...safeRetry.configs.all, files: FILES };
  return {
    'plugin first': [ignoreNodeModules, filesOnly, ...rest, plugin, nuv, noDebugger],
    'no-unused-vars first': [ignoreNodeModules, filesOnly, ...rest, nuv, plugin, noDebugger],
  };
}

export const PLUGIN_PREFIX = 'safe-retry/';
