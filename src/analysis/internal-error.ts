/**
 * An error inside the analysis: the construct (or the file) is treated as unknown, never reported
 * and never allowed to take the linter down on a valid file. `SAFE_RETRY_DEBUG` prints it;
 * `SAFE_RETRY_STRICT_ANALYSIS` rethrows it (tests that must see internal errors).
 */
import type { TSESLint } from '@typescript-eslint/utils';

export function reportInternalError(where: string, sourceCode: Readonly<TSESLint.SourceCode>, error: unknown): void {
  if (process.env['SAFE_RETRY_DEBUG']) {
    process.stderr.write(`safe-retry: analysis of ${where} failed on a file of ${sourceCode.lines.length} lines: ${String((error as Error)?.stack ?? error)}\n`);
  }
  if (process.env['SAFE_RETRY_STRICT_ANALYSIS']) throw error;
}
