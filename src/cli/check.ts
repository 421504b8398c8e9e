#!/usr/bin/env node
/**
 * safe-retry-check: try the rules on an existing codebase without touching its ESLint setup.
 *
 * Runs ESLint's Node API with this plugin's preset and its own parser setup (typescript-eslint's
 * parser for TypeScript, espree for JavaScript), ignoring the project's own ESLint config,
 * dependencies and build output. Findings are grouped by the guide rule they break.
 *
 * Exit codes: 0 no errors, 1 errors found, 2 bad usage, nothing checked, or a crash.
 */
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, styleText } from 'node:util';
import type { ESLint as ESLintClass, Linter } from 'eslint';
import { toRdjson } from '../formatters/rdjson.js';
import { applySuggestions } from './apply-suggestions.js';
import { toSarif } from '../formatters/sarif.js';
import { JS_FILES, RESILIENCE4J_FILES, TS_FILES } from '../configs.js';

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

const SKIPPED_DIRECTORIES = IGNORED.filter((p) => p.endsWith('/')).map((p) => p.slice(3, -1)).join(', ');
const CODE_EXTENSIONS = ['.js', '.jsx', '.mjs', '.cjs', '.ts', '.tsx', '.mts', '.cts'];
const CODE_EXTENSION = /\.(?:[cm]?jsx?|[cm]?ts|tsx)$/;

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
      --apply-suggestions <rule>
                        apply the first suggestion of each finding of <rule> (e.g.
                        no-legacy-retry) to the files, print what changed, then report
                        on the changed code; edits that overlap another one are skipped
  -h, --help            show this help
  -v, --version         print the version

Paths outside the current directory are checked too. Only this plugin's findings and parse
errors are reported, never the project's own eslint comments about other rules.

Exit code: 0 without errors, 1 when errors were found, 2 on bad usage or when no file was checked.`;

class UsageError extends Error {}

interface Args {
  format: Format;
  applySuggestions: string | undefined;
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
        'apply-suggestions': { type: 'string' },
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
  const apply = values['apply-suggestions']?.replace(/^safe-retry\//, '');
  return {
    format: format as Format,
    applySuggestions: apply,
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

  if (args.applySuggestions !== undefined && !(args.applySuggestions in plugin.rules)) {
    io.stderr.write(`safe-retry-check: unknown rule '${args.applySuggestions}' for --apply-suggestions; use one of ${Object.keys(plugin.rules).join(', ')}\n`);
    return 2;
  }
  const preset = plugin.configs[args.preset];
  // Spring's application*.yml too, when the optional yaml-eslint-parser can be found. Without it,
  // such files are only counted (by a parser that reads nothing), to say that they were not checked.
  const yamlParser = await loadYamlParser(io.cwd);
  const springFiles = new Set<string>();
  const yaml: Linter.Config[] = [
    yamlParser
      ? { ...plugin.configs.resilience4j, languageOptions: { parser: yamlParser }, rules: preset.rules } as Linter.Config
      : { name: 'safe-retry-check/spring-not-checked', files: RESILIENCE4J_FILES, languageOptions: { parser: countingParser(springFiles) } },
  ];
  const lintedFiles = [...TS_FILES, ...JS_FILES, ...(yamlParser ? RESILIENCE4J_FILES : [])];

  let files = 0;
  const progress = io.stderr.isTTY ? startProgress(io.stderr, () => files) : undefined;
  const overrideConfig: Linter.Config[] = [
    { ignores: IGNORED },
    // The project's eslint-disable comments name rules this check never runs: it must not judge them.
    { linterOptions: { reportUnusedDisableDirectives: 'off' } },
    { files: TS_FILES, languageOptions: { parser: tsParser as Linter.Parser } },
    { files: ['**/*.jsx'], languageOptions: { parserOptions: { ecmaFeatures: { jsx: true } } } },
    // Node runs .cjs as CommonJS whatever package.json says (ESLint's defaults agree).
    { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
    // The preset's rules, not its parser: JavaScript keeps ESLint's own parser here.
    { name: preset.name, files: [...TS_FILES, ...JS_FILES], plugins: preset.plugins, rules: preset.rules, ...(preset.settings ? { settings: preset.settings } : {}) } as Linter.Config,
    ...yaml,
    ...(progress
      ? [{ files: lintedFiles, plugins: { 'safe-retry-check': progressPlugin(() => files++) }, rules: { 'safe-retry-check/progress': 'warn' } } as Linter.Config]
      : []),
  ];

  // ESLint ignores files outside its cwd, so a path outside the current directory is checked from
  // itself: ignore patterns then apply below the path given, as they do below the current directory.
  const instances = new Map<string, ESLintClass>();
  const instanceFor = (root: string) => {
    let eslint = instances.get(root);
    if (!eslint) {
      eslint = new ESLint({ cwd: root, overrideConfigFile: true, errorOnUnmatchedPattern: false, warnIgnored: false, overrideConfig });
      instances.set(root, eslint);
    }
    return eslint;
  };

  const byFile = new Map<string, ESLintClass.LintResult>();
  const linterOf = new Map<ESLintClass.LintResult, ESLintClass>();
  const empty: Array<{ given: string; absolute: string; eslint: ESLintClass; springOnly: boolean }> = [];
  try {
    for (const given of args.paths) {
      const absolute = path.resolve(io.cwd, given);
      const eslint = instanceFor(isWithin(io.cwd, absolute) ? io.cwd : statSync(absolute).isDirectory() ? absolute : path.dirname(absolute));
      const results = await eslint.lintFiles([absolute]);
      const checked = results.filter((r) => !springFiles.has(r.filePath));
      if (checked.length === 0) empty.push({ given, absolute, eslint, springOnly: results.length > 0 });
      for (const result of checked) {
        const kept = withoutProjectDirectives(result);
        byFile.set(result.filePath, kept);
        linterOf.set(kept, eslint);
      }
    }
  } finally {
    progress?.stop();
  }
  if (args.applySuggestions !== undefined) {
    // Each changed file is linted again by the instance that found its findings.
    await applySuggestions([...byFile.values()], `safe-retry/${args.applySuggestions}`, {
      relint: async (result) => withoutProjectDirectives((await linterOf.get(result)!.lintFiles([result.filePath]))[0]!),
      replace: (before, after) => {
        byFile.set(after.filePath, after);
        linterOf.set(after, linterOf.get(before)!);
      },
      log: (line) => io.stderr.write(`${line}\n`),
      display: (file) => displayPath(io.cwd, file),
    });
  }
  const results = [...byFile.values()].sort((a, b) => a.filePath.localeCompare(b.filePath));

  const withYaml = yamlParser !== undefined;
  if (springFiles.size > 0) {
    const list = [...springFiles].sort().map((f) => `  ${displayPath(io.cwd, f)}`).join('\n');
    io.stderr.write(
      `safe-retry-check: warning: ${springFiles.size} Spring application*.yml file${springFiles.size === 1 ? ' was' : 's were'} not checked: yaml-eslint-parser is not installed\n${list}\n` +
        'Run `npx -p eslint-plugin-safe-retry -p yaml-eslint-parser safe-retry-check`, or install it: npm install --save-dev yaml-eslint-parser\n',
    );
  }
  const reasons = await Promise.all(empty.map(async ({ given, absolute, eslint, springOnly }) =>
    `  ${given}: ${springOnly ? 'only Spring application*.yml, not checked without yaml-eslint-parser' : await whyNothing(absolute, eslint, withYaml)}`));
  if (results.length === 0) {
    io.stderr.write(`safe-retry-check: nothing was checked (0 files), so this run cannot pass:\n${reasons.join('\n')}\n${coverage(withYaml)}\n`);
    return 2;
  }
  if (reasons.length > 0) io.stderr.write(`safe-retry-check: warning: nothing was checked in\n${reasons.join('\n')}\n${coverage(withYaml)}\n`);

  const rulesMeta: RulesMeta = {};
  // Each instance answers only for the files it linted.
  for (const eslint of instances.values()) Object.assign(rulesMeta, eslint.getRulesMetaForResults(results.filter((r) => linterOf.get(r) === eslint)));

  io.stdout.write(report(args.format, results, { cwd: io.cwd, rulesMeta, pkg, paint: colours(io.stdout) }));
  return results.some((r) => r.errorCount > 0) ? 1 : 0;
}

function report(
  format: Format,
  results: readonly ESLintClass.LintResult[],
  { cwd, rulesMeta, pkg, paint }: { cwd: string; rulesMeta: RulesMeta; pkg: { name: string; version: string }; paint: Paint },
): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(results)}\n`;
    case 'rdjson':
      return `${JSON.stringify(toRdjson(results, { cwd, rulesMeta }))}\n`;
    case 'sarif':
      return `${JSON.stringify(toSarif(results, { cwd, root: repositoryRoot(cwd), rulesMeta }, {
        name: pkg.name,
        version: pkg.version,
        informationUri: 'https://github.com/safe-retry/eslint-plugin-safe-retry',
      }), null, 2)}\n`;
    case 'text':
      return formatText(results, cwd, rulesMeta, paint);
  }
}

function isWithin(dir: string, file: string): boolean {
  const relative = path.relative(dir, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Keeps this plugin's findings and parse errors. The rest comes from the project's own comments:
 * `eslint-disable` of rules that never ran here, `/* eslint no-console: 2 *\/` turning on a core
 * rule, rules of plugins that are not loaded, `/* eslint-env *\/` that ESLint 10 rejects.
 */
function withoutProjectDirectives(result: ESLintClass.LintResult): ESLintClass.LintResult {
  // A parse error is the only message of its file; other rule-less messages come from comments.
  const ours = (m: Linter.LintMessage) => (m.ruleId === null ? m.fatal === true && m.message.startsWith('Parsing error') : m.ruleId.startsWith('safe-retry/'));
  if (result.messages.every(ours) && result.suppressedMessages.every(ours)) return result;
  const messages = result.messages.filter(ours);
  const count = (severity: number, fixable = false) => messages.filter((m) => m.severity === severity && (!fixable || m.fix)).length;
  return {
    ...result,
    messages,
    suppressedMessages: result.suppressedMessages.filter(ours),
    errorCount: count(2),
    fatalErrorCount: messages.filter((m) => m.fatal).length,
    warningCount: count(1),
    fixableErrorCount: count(2, true),
    fixableWarningCount: count(1, true),
  };
}

/** Why a path the user gave produced no file to lint. */
async function whyNothing(absolute: string, eslint: ESLintClass, yaml: boolean): Promise<string> {
  const kinds = `JavaScript or TypeScript${yaml ? ' (or Spring application*.yml)' : ''}`;
  if (statSync(absolute).isDirectory()) {
    // A file that would be linted if it were there: ignored means the directory itself is skipped.
    return (await eslint.isPathIgnored(path.join(absolute, 'index.js'))) ? 'skipped, with everything in it' : `no ${kinds} file in it`;
  }
  const name = path.basename(absolute);
  if (!(CODE_EXTENSION.test(name) || (yaml && /^application.*\.ya?ml$/.test(name)))) return `not a ${kinds} file`;
  return (await eslint.isPathIgnored(absolute)) ? 'skipped' : 'not checked';
}

/** What the check reads and skips, for the message that explains an empty run. */
function coverage(yaml: boolean): string {
  return `Checked: ${CODE_EXTENSIONS.join(' ')} files${yaml ? ' and Spring application*.yml' : ''}. ` +
    `Skipped: ${SKIPPED_DIRECTORIES} directories, minified (*.min.js) and declaration (*.d.ts) files.`;
}

/** The directory holding `.git` (a directory, or a file in a worktree or submodule) above `from`. */
function repositoryRoot(from: string): string | undefined {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * yaml-eslint-parser, looked up next to this package, then in the checked project, then where npx
 * put its `-p` packages (their `node_modules/.bin` is on PATH): with the plugin installed in the
 * project, `npx -p eslint-plugin-safe-retry -p yaml-eslint-parser` runs the project's copy of the
 * bin while the parser lands in npx's cache, out of reach of the bin's own module resolution.
 */
async function loadYamlParser(cwd: string): Promise<Linter.Parser | undefined> {
  const fromPath = (process.env['PATH'] ?? '').split(path.delimiter).filter((dir) => /node_modules[\\/]\.bin[\\/]?$/.test(dir));
  const bases = [fileURLToPath(import.meta.url), path.join(cwd, 'package.json'), ...fromPath.map((dir) => path.join(dir, '..', 'package.json'))];
  for (const base of bases) {
    let resolved: string;
    try {
      resolved = createRequire(base).resolve('yaml-eslint-parser');
    } catch {
      continue;
    }
    return (await import(pathToFileURL(resolved).href)) as Linter.Parser;
  }
  return undefined;
}

/** A parser that reads nothing and notes the file: for files this run cannot check but must name. */
function countingParser(seen: Set<string>): Linter.Parser {
  return {
    meta: { name: 'safe-retry-check/not-checked' },
    parseForESLint(code: string, options?: Linter.ParserOptions) {
      if (typeof options?.['filePath'] === 'string') seen.add(options['filePath']);
      const lines = code.split(/\r\n|[\r\n\u2028\u2029]/);
      const end = { line: lines.length, column: lines.at(-1)!.length };
      const ast = { type: 'Program', body: [], sourceType: 'script', range: [0, code.length], loc: { start: { line: 1, column: 0 }, end }, tokens: [], comments: [] };
      return { ast } as unknown as Linter.ESLintParseResult;
    },
  };
}

function displayPath(cwd: string, file: string): string {
  return (isWithin(cwd, file) ? path.relative(cwd, file) : file).split(path.sep).join('/');
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
    // Relative below the current directory, absolute outside it (a path full of ../ is hard to read).
    const file = displayPath(cwd, result.filePath);
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
