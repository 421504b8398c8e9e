/**
 * yaml-eslint-parser, loaded on first use. It is an optional peer dependency: a project that
 * never lints YAML must be able to import the plugin without it, so the preset carries this
 * stand-in and the real parser is required only when ESLint parses a matching file.
 */
import { createRequire } from 'node:module';
import type { Linter } from 'eslint';

type ParseResult = Omit<Linter.ESLintParseResult, 'ast' | 'scopeManager'> & { ast: unknown; scopeManager?: unknown };

/** What the plugin uses of yaml-eslint-parser. */
export interface YamlParserModule {
  parseForESLint(code: string, options?: unknown): ParseResult;
  /** A YAML text as its Program (one body entry per document). */
  parseYAML(code: string): unknown;
  /** The plain value of a parsed node (a Program with several documents: an array of them). */
  getStaticYAMLValue(node: unknown): unknown;
}

/** The loaded module, or the error of loading it (node-config reads keep it; a YAML parse asks again). */
let loaded: YamlParserModule | Error | undefined;

/** yaml-eslint-parser, or undefined when it is not installed (node-config's YAML files are then not read). */
export function loadYamlParser(): YamlParserModule | undefined {
  if (loaded === undefined) {
    try {
      // yaml-eslint-parser 2 is ESM only; require() of ESM works on every Node this package supports.
      loaded = createRequire(import.meta.url)('yaml-eslint-parser') as YamlParserModule;
    } catch (error) {
      loaded = error as Error;
    }
  }
  return loaded instanceof Error ? undefined : loaded;
}

function load(): YamlParserModule {
  // A parse asks again after a failure, as it always has (an editor may install the parser meanwhile).
  if (loaded instanceof Error) loaded = undefined;
  const parser = loadYamlParser();
  if (!parser) {
    const error = loaded as unknown as Error;
    throw new Error(
      'eslint-plugin-safe-retry: the resilience4j preset lints YAML with yaml-eslint-parser, which is not installed. ' +
        `Install it next to the plugin: npm install --save-dev yaml-eslint-parser (${error.message})`,
    );
  }
  return parser;
}

export const yamlParser: Linter.Parser = {
  meta: { name: 'eslint-plugin-safe-retry/yaml-eslint-parser' },
  parseForESLint(code: string, options?: Linter.ParserOptions): ParseResult {
    return load().parseForESLint(code, options);
  },
};
