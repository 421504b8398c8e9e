#!/usr/bin/env node
/**
 * safe-retry-check: try the rules on an existing codebase without touching its ESLint setup.
 *
 * Runs ESLint's Node API with this plugin's preset and its own parser setup (typescript-eslint's
 * parser for TypeScript, espree for JavaScript), ignoring the project's own ESLint config,
 * dependencies and build output. Findings are grouped by the guide rule they break.
 *
 * Exit codes: 0 no errors, 1 errors found, 2 bad usage or a crash.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs, styleText } from 'node:util';
import type { ESLint as ESLintClass, Linter } from 'eslint';
import { toRdjson } from '../formatters/rdjson.js';
import { toSarif } from '../formatters/sarif.js';

const FORMATS = ['text', 'json', 'sarif', 'rdjson'] as const;
type Format = (typeof FORMATS)[number];
const PRESETS = ['recommended', 'strict', 'all'] as const;
type PresetName = (typeof PRESETS)[number];

/** Build output, caches and vendored code: linting them reports other people's retries. */
const IGNORED = [
  '**/node_modules/',
  '**/dist/',
  '**/build/',
  '**/out/',
  '**/coverage/',
  '**/.next/',
  '**/.nuxt/',
  '**/.output/',
  '**/.svelte-kit/',
  '**/.turbo/',
  '**/.vercel/',
  '**/.cache/',
  '**/.yarn/',
  '**/vendor/',
  '**/*.min.js',
  '**/*.d.ts',
  '**/*.d.mts',
  '**/*.d.cts',
];

const TS_FILES = ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts'];
const JS_FILES = ['**/*.js', '**/*.jsx', '**/*.mjs', '**/*.cjs'];

/** Short titles of the guide's rules, for the group headings (GUIDE.md is the full text). */
const GUIDE_TITLES: Record<string, string> = {
  'R-RES-RE-1': 'retry only reads, or writes with an idempotency key',
  'R-RES-RE-2': 'typical config: 3 attempts, 500 ms, x2, network errors and 5xx only',
  'R-RES-RE-3': 'at most 5 attempts, 3 typical',
  'R-RES-RE-4': 'under about 5 s of in-memory retrying',
  'R-RES-RE-5': 'longer retries belong in a durable task queue',
  'R-RES-RE-X1': 'no retried write without an idempotency key',
  'R-RES-RE-X2': 'never retry 4xx client errors',
  'R-RES-RE-X3': 'exponential backoff with jitter, never constant or linear',
  'R-RES-RE-X4': 'no legacy retry helpers',
  'R-RES-CB-1': 'combine retry with a circuit breaker',
};
const GUIDE_ORDER = Object.keys(GUIDE_TITLES);
const PARSE_ERRORS = 'parse errors';

const USAGE = `Usage: safe-retry-check [options] [paths...]

Lints JavaScript and TypeScript under the given paths (default: the current directory) with
eslint-plugin-safe-retry's rules, without reading the project's own ESLint config. Spring's
application*.yml (Resilience4j retry settings) too, when yaml-eslint-parser is installed.

Options:
  -f, --format <name>   text (default), json, sarif or rdjson
      --preset <name>   recommended (default), strict or all
  -h, --help            show this help
  -v, --version         print the version

Exit code: 0 without errors, 1 when errors were found, 2 on bad usage.`;

class UsageError extends Error {}

interface Args {
  format: Format;
  preset: PresetName;
  paths: string[];
  help: boolean;
  version: boolean;
}

function parseArguments(argv: readonly string[]): Args {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        format: { type: 'string', short: 'f' },
        preset: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const format = values.format ?? 'text';
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`unknown format '${format}'; use one of ${FORMATS.join(', ')}`);
  }
  const preset = values.preset ?? 'recommended';
  if (!(PRESETS as readonly string[]).includes(preset)) {
    throw new UsageError(`unknown preset '${preset}'; use one of ${PRESETS.join(', ')}`);
  }
  return {
    format: format as Format,
    preset: preset as PresetName,
    paths: positionals.length > 0 ? positionals : ['.'],
    help: values.help ?? false,
    version: values.version ?? false,
  };
}

/** Counts linted files for the progress line; it never reports anything. */
function progressPlugin(onFile: () => void) {
  return {
    rules: {
      progress: {
        meta: { type: 'suggestion' as const, schema: [] },
        create() {
          onFile();
          return {};
        },
      },
    },
  };
}

async function main(argv: readonly string[], io: { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream; cwd: string }): Promise<number> {
  let args: Args;
  try {
    args = parseArguments(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`safe-retry-check: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  const require = createRequire(import.meta.url);
  const pkg = require('../../package.json') as { name: string; version: string; homepage?: string };
  if (args.help) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (args.version) {
    io.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  const missing = args.paths.filter((p) => !existsSync(path.resolve(io.cwd, p)));
  if (missing.length > 0) {
    io.stderr.write(`safe-retry-check: no such file or directory: ${missing.join(', ')}\n`);
    return 2;
  }

  // Imported here so that --help and usage errors stay instant.
  const [{ ESLint }, tsParser, { default: plugin }] = await Promise.all([
    import('eslint'),
    import('@typescript-eslint/parser'),
    import('../index.js'),
  ]);

  // Spring's application*.yml too, when the optional yaml-eslint-parser is installed.
  const yaml = resolvable('yaml-eslint-parser')
    ? [{ ...plugin.configs.resilience4j, rules: plugin.configs[args.preset].rules } as Linter.Config]
    : [];
  const lintedFiles = [...TS_FILES, ...JS_FILES, ...(yaml.length ? plugin.configs.resilience4j.files : [])];

  let files = 0;
  const progress = io.stderr.isTTY ? startProgress(io.stderr, () => files) : undefined;
  const eslint = new ESLint({
    cwd: io.cwd,
    overrideConfigFile: true,
    errorOnUnmatchedPattern: false,
    overrideConfig: [
      { ignores: IGNORED },
      { files: TS_FILES, languageOptions: { parser: tsParser as Linter.Parser } },
      { files: ['**/*.jsx'], languageOptions: { parserOptions: { ecmaFeatures: { jsx: true } } } },
      // Node runs .cjs as CommonJS whatever package.json says (ESLint's defaults agree).
      { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
      { files: [...TS_FILES, ...JS_FILES], ...plugin.configs[args.preset] } as Linter.Config,
      ...yaml,
      ...(progress
        ? [{ files: lintedFiles, plugins: { 'safe-retry-check': progressPlugin(() => files++) }, rules: { 'safe-retry-check/progress': 'warn' } } as Linter.Config]
        : []),
    ],
  });

  let results: ESLintClass.LintResult[];
  try {
    results = await eslint.lintFiles(args.paths);
  } finally {
    progress?.stop();
  }
  const rulesMeta = eslint.getRulesMetaForResults(results);

  switch (args.format) {
    case 'json':
      io.stdout.write(`${JSON.stringify(results)}\n`);
      break;
    case 'rdjson':
      io.stdout.write(`${JSON.stringify(toRdjson(results, { cwd: io.cwd, rulesMeta }))}\n`);
      break;
    case 'sarif':
      io.stdout.write(`${JSON.stringify(toSarif(results, { cwd: io.cwd, rulesMeta }, {
        name: pkg.name,
        version: pkg.version,
        informationUri: 'https://github.com/safe-retry/eslint-plugin-safe-retry',
      }), null, 2)}\n`);
      break;
    case 'text':
      io.stdout.write(formatText(results, io.cwd, rulesMeta, colours(io.stdout)));
      break;
  }
  return results.some((r) => r.errorCount > 0) ? 1 : 0;
}

function resolvable(module: string): boolean {
  try {
    createRequire(import.meta.url).resolve(module);
    return true;
  } catch {
    return false;
  }
}

type Paint = (style: 'bold' | 'red' | 'yellow' | 'dim' | 'green', text: string) => string;

function colours(stream: NodeJS.WriteStream): Paint {
  const on = stream.isTTY && !process.env['NO_COLOR'];
  return (style, text) => (on ? styleText(style, text) : text);
}

interface Finding {
  file: string;
  message: Linter.LintMessage;
}

type RulesMeta = ESLintClass.LintResultData['rulesMeta'];

/**
 * The guide rule a message cites first, e.g. `(R-RES-RE-3)` or `(R-RES-RE-1, R-RES-RE-X1)`; else
 * the first of the rule's `docs.guideRules`; parse errors have none.
 */
function guideRuleOf(message: Linter.LintMessage, rulesMeta: RulesMeta): string {
  if (!message.ruleId) return PARSE_ERRORS;
  const cited = /\((R-RES-[A-Z0-9]+-[A-Z0-9]+)[,)]/.exec(message.message)?.[1];
  const declared = (rulesMeta[message.ruleId]?.docs as { guideRules?: readonly string[] } | undefined)?.guideRules?.[0];
  return cited ?? declared ?? message.ruleId;
}

function formatText(results: readonly ESLintClass.LintResult[], cwd: string, rulesMeta: RulesMeta, paint: Paint = (_s, t) => t): string {
  const groups = new Map<string, Finding[]>();
  for (const result of results) {
    const file = path.relative(cwd, result.filePath).split(path.sep).join('/');
    for (const message of result.messages) {
      const id = guideRuleOf(message, rulesMeta);
      let group = groups.get(id);
      if (!group) groups.set(id, (group = []));
      group.push({ file, message });
    }
  }
  const rank = (id: string) => (id === PARSE_ERRORS ? Infinity : GUIDE_ORDER.includes(id) ? GUIDE_ORDER.indexOf(id) : GUIDE_ORDER.length);
  const ids = [...groups.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

  const lines: string[] = [];
  for (const id of ids) {
    const findings = groups.get(id)!;
    const title = GUIDE_TITLES[id];
    lines.push(`${paint('bold', id)}${title ? `  ${title}` : ''}  (${findings.length})`);
    for (const { file, message } of findings) {
      const where = `${file}:${message.line}:${message.column}`;
      const level = message.severity === 2 ? paint('red', 'error') : paint('yellow', 'warning');
      const rule = message.ruleId ? `  ${paint('dim', message.ruleId)}` : '';
      lines.push(`  ${where}  ${level}  ${message.message}${rule}`);
    }
    lines.push('');
  }
  const errors = results.reduce((n, r) => n + r.errorCount, 0);
  const warnings = results.reduce((n, r) => n + r.warningCount, 0);
  const withProblems = results.filter((r) => r.messages.length > 0).length;
  const problems = errors + warnings;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const summary = problems === 0
    ? paint('green', `No problems in ${plural(results.length, 'file')} checked.`)
    : paint('bold', `${plural(problems, 'problem')} (${plural(errors, 'error')}, ${plural(warnings, 'warning')}) in ${withProblems} of ${plural(results.length, 'file')} checked, under ${plural(ids.filter((id) => id !== PARSE_ERRORS).length, 'guide rule')}.`);
  lines.push(summary);
  return `${lines.join('\n')}\n`;
}

/** A spinner with the count of files linted so far; only ever drawn on a terminal. */
function startProgress(stream: NodeJS.WriteStream, count: () => number) {
  const frames = ['|', '/', '-', '\\'];
  let frame = 0;
  const draw = () => stream.write(`\r${frames[frame++ % frames.length]} checking... ${count()} files`);
  draw();
  const timer = setInterval(draw, 120);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      stream.write('\r\x1b[2K');
    },
  };
}

main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() }).then(
  (code) => {
    // exitCode, not exit(): a piped stdout must be flushed before the process ends.
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`safe-retry-check: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 2;
  },
);
