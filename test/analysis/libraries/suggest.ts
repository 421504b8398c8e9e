/** Applies every suggestion the plugin's rules offer on a snippet, for descriptor fix tests. */
import { Linter } from 'eslint';
import * as tsParser from '@typescript-eslint/parser';
import type { TSESLint } from '@typescript-eslint/utils';
import plugin from '../../../src/index.js';
import { getRetryModel } from '../../../src/analysis/index.js';
import type { RetrySite } from '../../../src/analysis/model.js';

export interface Applied {
  rule: string;
  desc: string;
  output: string;
}

export function suggestions(code: string, opts: { js?: boolean } = {}): Applied[] {
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(code, [
    {
      files: ['**/*.{js,ts}'],
      plugins: { 'safe-retry': plugin as never },
      languageOptions: opts.js
        ? { ecmaVersion: 'latest', sourceType: 'module' }
        : { parser: tsParser as never, ecmaVersion: 'latest', sourceType: 'module' },
      rules: plugin.configs.all.rules as never,
    },
  ], opts.js ? 'file.js' : 'file.ts');
  const out: Applied[] = [];
  for (const m of messages) {
    if (m.fatal) throw new Error(`parse error in test snippet: ${m.message}`);
    for (const s of m.suggestions ?? []) {
      const [start, end] = s.fix.range;
      out.push({ rule: (m.ruleId ?? '').replace('safe-retry/', ''), desc: s.desc, output: code.slice(0, start) + s.fix.text + code.slice(end) });
    }
  }
  return out;
}

/** The raw retry sites of a snippet, with a way to print their nodes (for fields the summary omits). */
export function rawSites(code: string): { sites: RetrySite[]; text: (node: unknown) => string | undefined } {
  let sites: RetrySite[] = [];
  let text: (node: unknown) => string | undefined = () => undefined;
  const capture = {
    meta: { type: 'problem' as const, schema: [] },
    create(context: TSESLint.RuleContext<string, []>) {
      return {
        'Program:exit'() {
          sites = [...getRetryModel(context).sites];
          text = (node) => (node ? context.sourceCode.getText(node as never) : undefined);
        },
      };
    },
  };
  new Linter({ configType: 'flat' }).verify(code, [{
    files: ['**/*.ts'],
    plugins: { test: { rules: { capture } } as never },
    languageOptions: { parser: tsParser as never, ecmaVersion: 'latest', sourceType: 'module' },
    rules: { 'test/capture': 'error' },
  }], 'file.ts');
  return { sites, text };
}
