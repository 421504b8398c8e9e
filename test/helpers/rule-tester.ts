/**
 * One RuleTester for all rule tests. @typescript-eslint/rule-tester pins its own copy of
 * @typescript-eslint/utils, so its RuleModule type differs nominally from ours: bridge it here once.
 */
import { RuleTester, type RunTests } from '@typescript-eslint/rule-tester';
import type { TSESLint } from '@typescript-eslint/utils';

export const ruleTester = new RuleTester();

export function run<M extends string, O extends readonly unknown[]>(
  name: string,
  rule: TSESLint.RuleModule<M, O, unknown>,
  tests: RunTests<M, O>,
): void {
  ruleTester.run(name, rule as never, tests);
}
