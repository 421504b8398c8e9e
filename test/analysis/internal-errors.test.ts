/**
 * An error inside the analysis of what a site repeats leaves that site's operations unknown: the
 * rule that asked finds nothing there, and the linter goes on (a rule must not throw on a valid file).
 */
import * as tsParser from '@typescript-eslint/parser';
import type { TSESLint } from '@typescript-eslint/utils';
import { Linter } from 'eslint';
import { afterEach, describe, expect, it } from 'vitest';
import { getRetryModel, type RetryModel } from '../../src/analysis/index.js';
import type { RetrySite } from '../../src/analysis/model.js';

function modelOf(code: string): RetryModel {
  let model: RetryModel | undefined;
  const capture = {
    meta: { type: 'problem' as const, schema: [] },
    create(context: TSESLint.RuleContext<string, []>) {
      return { 'Program:exit'() { model = getRetryModel(context); } };
    },
  };
  new Linter({ configType: 'flat' }).verify(code, [
    { files: ['**/*.ts'], plugins: { test: { rules: { capture } } as never }, languageOptions: { parser: tsParser as never }, rules: { 'test/capture': 'error' } },
  ], 'file.ts');
  return model!;
}

describe('internal errors of the operation analysis', () => {
  const strict = process.env['SAFE_RETRY_STRICT_ANALYSIS'];
  afterEach(() => {
    if (strict === undefined) delete process.env['SAFE_RETRY_STRICT_ANALYSIS'];
    else process.env['SAFE_RETRY_STRICT_ANALYSIS'] = strict;
  });

  const model = () => modelOf(`import pRetry from 'p-retry';\nexport const load = () => pRetry(() => fetch('/a'), { retries: 2 });`);
  // A site whose reading fails half-way: any property read throws.
  const broken = new Proxy({} as RetrySite, { get() { throw new Error('broken site'); } });

  it('leave the site with no known operations instead of throwing', () => {
    delete process.env['SAFE_RETRY_STRICT_ANALYSIS'];
    const m = model();
    expect(m.operations.facts(broken)).toEqual({ fn: undefined, httpCalls: [], groups: [], nested: [] });
    // The file's real site is still read.
    expect(m.operations.facts(m.sites[0]!).httpCalls.length).toBe(1);
  });

  it('are thrown under SAFE_RETRY_STRICT_ANALYSIS, for the tests that must see them', () => {
    process.env['SAFE_RETRY_STRICT_ANALYSIS'] = '1';
    expect(() => model().operations.facts(broken)).toThrow('broken site');
  });
});
