/**
 * yaml-eslint-parser, loaded on first use. It is an optional peer dependency: a project that
 * never lints YAML must be able to import the plugin without it, so the preset carries this
 * stand-in and the real parser is required only when ESLint parses a matching file.
 */
import { createRequire } from 'node:module';
import type { Linter } from 'eslint';

type ParseResult = Omit<Linter.ESLintParseResult, 'ast' | 'scopeManager'> & { ast: unknown; scopeManager?: unknown };

interface YamlParser {
  parseForESLint(code: string, options?: unknown): ParseResult;
}

let loaded: YamlParser | undefined;

function load(): YamlParser {
  if (loaded) return loaded;
  try {
    // yaml-eslint-parser 2 is ESM only; require() of ESM works on every Node this package supports.
    loaded = createRequire(import.meta.url)('yaml-eslint-parser') as YamlParser;
  } catch (error) {
    throw new Error(
      'eslint-plugin-safe-retry: the resilience4j preset lints YAML with yaml-eslint-parser, which is not installed. ' +
        `Install it next to the plugin: npm install --save-dev yaml-eslint-parser (${(error as Error).message})`,
    );
  }
  return loaded;
}

export const yamlParser: Linter.Parser = {
  meta: { name: 'eslint-plugin-safe-retry/yaml-eslint-parser' },
  parseForESLint(code: string, options?: Linter.ParserOptions): ParseResult {
    return load().parseForESLint(code, options);
  },
};
