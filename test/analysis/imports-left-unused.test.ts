/**
 * The import specifiers a suggestion's rewrite leaves unused (fix-imports.ts importsLeftUnused):
 * dropped when every reference lies inside the rewritten range and the new text does not refer to
 * them; an object key of the new text is no reference, a branch of a conditional is.
 */
import { Linter } from 'eslint';
import * as tsParser from '@typescript-eslint/parser';
import type { TSESLint } from '@typescript-eslint/utils';
import { describe, expect, it } from 'vitest';
import { getRetryModel } from '../../src/analysis/index.js';
import { importsLeftUnused } from '../../src/analysis/fix-imports.js';

/** The drop edits for replacing the text between the markers `/*<*\/` and `/*>*\/` of `code` by `replacement`. */
function drops(code: string, replacement: string): string[] {
  const range: [number, number] = [code.indexOf('/*<*/'), code.indexOf('/*>*/')];
  let out: string[] = [];
  const capture = {
    meta: { type: 'problem' as const, schema: [] },
    create(context: TSESLint.RuleContext<string, []>) {
      return {
        'Program:exit'() {
          out = importsLeftUnused(getRetryModel(context).context, [range], replacement).edits.map((e) => `${e.label} -> ${JSON.stringify(e.text)}`);
        },
      };
    },
  };
  new Linter({ configType: 'flat' }).verify(code, [{
    files: ['**/*.ts'],
    plugins: { test: { rules: { capture } } as never },
    languageOptions: { parser: tsParser as never, sourceType: 'module' },
    rules: { 'test/capture': 'error' },
  }], 'file.ts');
  return out;
}

const code = "import { retryWhen, delay, map } from 'rxjs/operators';\nexport const a$ = s$.pipe(map((x) => x), /*<*/retryWhen((e) => e.pipe(delay(1000)))/*>*/);\n";

describe('imports a rewrite leaves unused', () => {
  it('drops the names used only inside the rewritten range, not one the new text keys an option by', () => {
    expect(drops(code, 'retry({ count: 2, delay: 1000 })')).toEqual(['drop retryWhen, delay -> "map"']);
  });

  it('keeps a name the new text refers to, also as a branch of a conditional', () => {
    expect(drops(code, 'retry({ count: 2, delay: (e, n) => n > 1 ? delay : timer(1) })')).toEqual(['drop retryWhen -> "delay, map"']);
  });
});
