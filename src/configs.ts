/** Presets derived from rule meta, never from hand-kept lists, and the files and parser they bring. */
import { createRequire } from 'node:module';
import type { TSESLint } from '@typescript-eslint/utils';
import type { Linter } from 'eslint';
import type { SafeRetryDocs } from './util/create-rule.js';

type RuleEntry = { meta: { docs?: Partial<SafeRetryDocs> } };
type RulesRecord = Record<string, RuleEntry>;
export type RuleLevels = Record<string, TSESLint.SharedConfig.RuleEntry>;

export const PRESETS = ['recommended', 'strict', 'all', 'recommended-type-checked'] as const;
export type Preset = (typeof PRESETS)[number];

/** The rule settings a preset turns on: `strict` adds its rules and stricter options to `recommended`. */
export function presetRules(rules: RulesRecord, namespace: string, preset: Preset): RuleLevels {
  const out: RuleLevels = {};
  for (const [name, rule] of Object.entries(rules)) {
    const docs = rule.meta.docs ?? {};
    const level = docs.recommended;
    // recommended-type-checked: the recommended rules, with the type-aware layer switched on (settings).
    const on = preset === 'all' || level === 'recommended' || (preset === 'strict' && level === 'strict');
    if (!on) continue;
    const strictOptions = preset === 'strict' || preset === 'all' ? docs.strictOptions : undefined;
    out[`${namespace}/${name}`] = strictOptions ? ['error', ...strictOptions] : 'error';
  }
  return out;
}

/** Spring Boot's configuration files, where Resilience4j retry instances are configured. */
export const RESILIENCE4J_FILES = ['**/application*.yml', '**/application*.yaml'];

/**
 * The `resilience4j` preset judges Spring YAML with the `recommended` rule settings: the same rule
 * ids and messages, fed by the YAML source of the retry model (rules about code find nothing there).
 */
export function resilience4jRules(rules: RulesRecord, namespace: string): RuleLevels {
  return presetRules(rules, namespace, 'recommended');
}

/** Shared settings a preset carries: only the type-checked preset turns the type-aware layer on. */
export function presetSettings(preset: Preset): Record<string, unknown> | undefined {
  return preset === 'recommended-type-checked' ? { 'safe-retry': { typeAware: true } } : undefined;
}

export const TS_FILES = ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts'];
export const JS_FILES = ['**/*.js', '**/*.jsx', '**/*.mjs', '**/*.cjs'];
/** What every code preset lints: without `files`, ESLint would lint no TypeScript at all. */
export const CODE_FILES = [...JS_FILES, ...TS_FILES];

interface TsParser {
  parseForESLint(code: string, options?: unknown): unknown;
}

let tsParser: TsParser | undefined;

/** Required on first parse, so that importing the plugin (and `--help` of the bin) does not load TypeScript. */
function loadTsParser(): TsParser {
  return (tsParser ??= createRequire(import.meta.url)('@typescript-eslint/parser') as TsParser);
}

const JAVASCRIPT = /\.[cm]?jsx?$/i;
const TYPE_INFORMATION = ['project', 'projectService', 'programs'] as const;

/**
 * typescript-eslint's parser, which reads JavaScript as well, so that one preset object lints both
 * (typescript-eslint's own configs set it for every file too).
 *
 * `typed`: type information for TypeScript files only. JavaScript files are rarely part of a
 * tsconfig, and the project service refuses a file that is not ("was not found by the project
 * service"), which would turn every `.js` file, eslint.config.js included, into a parse error; the
 * plugin's type-aware layer falls back to the syntax there. A `project` the config names wins over
 * the preset's `projectService: true` (typescript-eslint would ignore it, with a warning).
 */
export function codeParser(version: string, typed: boolean): Linter.Parser {
  return {
    meta: { name: `eslint-plugin-safe-retry/typescript-eslint-parser${typed ? '-typed' : ''}`, version },
    parseForESLint(code: string, options?: Linter.ParserOptions) {
      let effective = options;
      if (typed && options) {
        const file = typeof options['filePath'] === 'string' ? options['filePath'] : '';
        if (JAVASCRIPT.test(file)) {
          effective = { ...options };
          for (const key of TYPE_INFORMATION) delete effective[key];
        } else if (options['project'] && options['projectService'] === true) {
          effective = { ...options };
          delete effective['projectService'];
        }
      }
      return loadTsParser().parseForESLint(code, effective) as Linter.ESLintParseResult;
    },
  };
}
