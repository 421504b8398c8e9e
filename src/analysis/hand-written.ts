/** Hand-written retries: loops and self-recursion that re-run an operation after a failure. */
import type { TSESLint } from '@typescript-eslint/utils';
import type { AnalysisContext } from './library.js';
import type { RetrySite } from './model.js';

const HINT = /\b(?:setTimeout|sleep|delay|wait|backoff|retry|retries|attempt)/i;

/** Cheap text check so files with no hint of a retry loop skip the AST walk entirely. */
export function mayContainHandWrittenRetry(sourceCode: Readonly<TSESLint.SourceCode>): boolean {
  return HINT.test(sourceCode.text);
}

export function findHandWrittenSites(_ctx: AnalysisContext): RetrySite[] {
  return [];
}
