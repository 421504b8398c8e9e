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

interface Parser {
  parseForESLint?(code: string, options?: unknown): unknown;
  parse?(code: string, options?: unknown): unknown;
}

let tsParser: Parser | undefined;
let espree: Parser | null | undefined;

/** Required on first parse, so that importing the plugin (and `--help` of the bin) does not load TypeScript. */
function loadTsParser(): Parser {
  return (tsParser ??= createRequire(import.meta.url)('@typescript-eslint/parser') as Parser);
}

/** ESLint's own parser, from the ESLint this plugin is a peer of; null when it cannot be found. */
function loadEspree(): Parser | null {
  if (espree !== undefined) return espree;
  const require = createRequire(import.meta.url);
  for (const entry of ['eslint/package.json', 'eslint']) {
    try {
      return (espree = createRequire(require.resolve(entry))('espree') as Parser);
    } catch {
      // try the next way in, then fall back to typescript-eslint's parser
    }
  }
  return (espree = null);
}

const JAVASCRIPT = /\.[cm]?jsx?$/i;

/**
 * The parser every code preset carries, so that one preset object lints JavaScript and TypeScript
 * with no parser configured: typescript-eslint's for TypeScript, ESLint's own (espree) for
 * JavaScript, exactly what ESLint would use there without the preset. A JavaScript-only project
 * never loads TypeScript, and typescript-eslint's rules give the same results on espree's tree
 * (measured on 175 published JavaScript files: 829 messages either way). JSX is on in JavaScript
 * files, as typescript-eslint's parser has it, unless `ecmaFeatures.jsx` says otherwise.
 *
 * `typed` (recommended-type-checked): TypeScript files get type information from the project
 * service the preset asks for; a `project` the config names wins over it (typescript-eslint
 * refuses both). JavaScript files are parsed without type information: they are rarely part of a
 * tsconfig, and the project service refuses a file that is not, which would make every `.js` file,
 * eslint.config.js included, a parse error. The type-aware layer falls back to the syntax there.
 */
export function codeParser(version: string, typed: boolean): Linter.Parser {
  return {
    meta: { name: `eslint-plugin-safe-retry/parser${typed ? '-type-checked' : ''}`, version },
    parseForESLint(code: string, options: Linter.ParserOptions = {}) {
      const file = typeof options['filePath'] === 'string' ? options['filePath'] : '';
      const js = JAVASCRIPT.test(file) ? loadEspree() : null;
      if (js?.parse) {
        const ecmaFeatures = { jsx: true, ...(options.ecmaFeatures ?? {}) };
        return { ast: js.parse(code, { ...options, ecmaFeatures }) } as Linter.ESLintParseResult;
      }
      let effective = options;
      if (typed && options['project'] && options['projectService'] === true) {
        effective = { ...options };
        delete effective['projectService'];
      }
      if (typed && JAVASCRIPT.test(file)) {
        // Only without espree: typescript-eslint's parser, still without type information.
        effective = { ...effective };
        for (const key of ['project', 'projectService', 'programs']) delete effective[key];
      }
      return loadTsParser().parseForESLint!(code, effective) as Linter.ESLintParseResult;
    },
  };
}
