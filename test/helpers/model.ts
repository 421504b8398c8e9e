/** Test helpers: build the retry model of a snippet, or lint it with the plugin's rules. */
import { Linter } from 'eslint';
import * as tsParser from '@typescript-eslint/parser';
import type { TSESLint } from '@typescript-eslint/utils';
import { getRetryModel } from '../../src/analysis/index.js';
import type { RetrySite } from '../../src/analysis/model.js';
import { worstCaseDurationMs } from '../../src/analysis/schedule.js';
import { UNKNOWN, type Maybe } from '../../src/analysis/eval/values.js';
import plugin from '../../src/index.js';

export interface SiteSummary {
  library: string;
  label: string;
  kind: string;
  line: number;
  attempts: number | 'unknown';
  growth: string;
  initialMs: number | 'unknown';
  multiplier: number | 'unknown';
  maxMs: number | 'unknown';
  jitter: boolean | 'unknown';
  filter: string;
  clientErrors: string[];
  retriesEverything: boolean;
  /** Set only when the filter retries nothing but refused requests (429). */
  refusedOnly?: true;
  deadlineMs: number | undefined | 'unknown';
  attemptTimeoutMs: number | undefined | 'unknown';
  worstCaseMs: number | 'unknown';
  clientLevel: boolean;
  /** Source text of the retried operation, if any. */
  operation: string | undefined;
  /** Source text of the node the attempts setting points at, if written. */
  attemptsAt: string | undefined;
}

const show = <V>(v: Maybe<V>): V | 'unknown' => (v === UNKNOWN ? 'unknown' : v);

export function summarise(site: RetrySite, sourceCode: Readonly<TSESLint.SourceCode>): SiteSummary {
  return {
    library: site.library,
    label: site.label,
    kind: site.kind,
    line: site.node.loc.start.line,
    attempts: show(site.attempts.value),
    growth: String(show(site.delay.growth)),
    initialMs: show(site.delay.initialMs),
    multiplier: show(site.delay.multiplier),
    maxMs: show(site.delay.maxMs),
    jitter: show(site.jitter.value),
    filter: site.errorFilter.kind,
    clientErrors: site.errorFilter.clientErrors.map((c) => c.status),
    retriesEverything: !!site.errorFilter.retriesEverything,
    ...(site.errorFilter.refusedOnly ? { refusedOnly: true as const } : {}),
    deadlineMs: show(site.deadlineMs.value),
    attemptTimeoutMs: show(site.attemptTimeoutMs.value),
    worstCaseMs: show(worstCaseDurationMs(site.attempts.value, site.delay, site.attemptTimeoutMs.value, site.deadlineMs.value)),
    clientLevel: site.clientLevel,
    operation: site.operation ? sourceCode.getText(site.operation) : undefined,
    attemptsAt: site.attempts.node ? sourceCode.getText(site.attempts.node) : undefined,
  };
}

/** The retry sites of a snippet, summarised as plain data (TypeScript parser unless `js` is set). */
export function analyse(code: string, opts: { js?: boolean; filename?: string } = {}): SiteSummary[] {
  let out: SiteSummary[] = [];
  const linter = new Linter({ configType: 'flat' });
  const capture = {
    meta: { type: 'problem' as const, schema: [] },
    create(context: TSESLint.RuleContext<string, []>) {
      return {
        'Program:exit'() {
          out = getRetryModel(context).sites.map((s) => summarise(s, context.sourceCode));
        },
      };
    },
  };
  const messages = linter.verify(code, [
    {
      files: ['**/*.{js,mjs,cjs,jsx,ts,mts,cts,tsx}'],
      plugins: { test: { rules: { capture } } as never },
      languageOptions: opts.js
        ? { ecmaVersion: 'latest', sourceType: 'module' }
        : { parser: tsParser as never, ecmaVersion: 'latest', sourceType: 'module' },
      rules: { 'test/capture': 'error' },
    },
  ], opts.filename ?? (opts.js ? 'file.js' : 'file.ts'));
  const fatal = messages.find((m) => m.fatal);
  if (fatal) throw new Error(`parse error in test snippet: ${fatal.message}`);
  return out;
}

export interface Finding {
  rule: string;
  messageId: string | undefined;
  line: number;
  column: number;
  text: string;
}

/** Lints a snippet with the plugin (recommended preset unless `rules` is given) and returns the findings. */
export function lint(code: string, opts: { js?: boolean; filename?: string; rules?: Record<string, unknown> } = {}): Finding[] {
  // The recommended preset: what a team gets by default (require-circuit-breaker is strict-only).
  const rules = opts.rules ?? plugin.configs.recommended.rules;
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(code, [
    {
      files: ['**/*.{js,mjs,cjs,jsx,ts,mts,cts,tsx}'],
      plugins: { 'safe-retry': plugin as never },
      languageOptions: opts.js
        ? { ecmaVersion: 'latest', sourceType: 'module' }
        : { parser: tsParser as never, ecmaVersion: 'latest', sourceType: 'module' },
      rules: rules as never,
    },
  ], opts.filename ?? (opts.js ? 'file.js' : 'file.ts'));
  const lines = code.split('\n');
  return messages.map((m) => {
    if (m.fatal) throw new Error(`parse error in test snippet: ${m.message}`);
    const line = lines[m.line - 1] ?? '';
    const text = m.endLine === m.line ? line.slice(m.column - 1, (m.endColumn ?? m.column) - 1) : line.slice(m.column - 1);
    return { rule: (m.ruleId ?? '').replace('safe-retry/', ''), messageId: m.messageId, line: m.line, column: m.column, text };
  });
}
