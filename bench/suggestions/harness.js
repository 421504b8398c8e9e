// Applies every suggestion the plugin offers on a set of retry sites, re-parses and re-lints the
// result with every recommended rule, and measures which findings carry a suggestion at all.
// Shared by test/suggestions.test.ts (the plugin from src/) and bench/suggestions.js (from dist/).
import { Linter } from 'eslint';

/** The rules issue 16 asks suggestions of, in the order the table prints them. */
export const SUGGESTION_RULES = [
  'max-retry-attempts',
  'max-retry-duration',
  'no-legacy-retry',
  'no-nested-retry',
  'no-retry-on-client-error',
  'no-unsafe-write-retry',
  'require-exponential-backoff',
  'require-jitter',
];

export function createChecker({ plugin, tsParser }) {
  const rules = plugin.configs.recommended.rules;
  const linter = new Linter({ configType: 'flat' });

  function lint(code, js) {
    return linter.verify(code, [{
      files: ['**/*.{js,ts}'],
      plugins: { 'safe-retry': plugin },
      languageOptions: js
        ? { ecmaVersion: 'latest', sourceType: 'module' }
        : { parser: tsParser, ecmaVersion: 'latest', sourceType: 'module' },
      rules,
    }], js ? 'file.js' : 'file.ts');
  }

  const ruleOf = (m) => (m.ruleId ?? '').replace('safe-retry/', '');
  const counts = (messages) => {
    const out = new Map();
    for (const m of messages) {
      const key = `${ruleOf(m)}:${m.messageId}`;
      out.set(key, (out.get(key) ?? 0) + 1);
    }
    return out;
  };

  /**
   * Every finding of a site, each suggestion applied on its own: `problems` lists what went wrong
   * (a parse error, the finding still there, a new finding of any rule).
   */
  function check(site) {
    const js = !!site.js;
    const before = lint(site.code, js);
    const fatal = before.find((m) => m.fatal);
    if (fatal) return { site, error: `parse error: ${fatal.message}`, findings: [] };
    const beforeCounts = counts(before);
    const findings = before.map((m) => {
      const rule = ruleOf(m);
      const suggestions = (m.suggestions ?? []).map((s) => {
        const [start, end] = s.fix.range;
        const output = site.code.slice(0, start) + s.fix.text + site.code.slice(end);
        const after = lint(output, js);
        const problems = [];
        const parse = after.find((a) => a.fatal);
        if (parse) problems.push(`does not parse: ${parse.message}`);
        else {
          const afterCounts = counts(after);
          const ruleBefore = before.filter((b) => ruleOf(b) === rule).length;
          const ruleAfter = after.filter((a) => ruleOf(a) === rule).length;
          if (ruleAfter >= ruleBefore) problems.push(`the ${rule} finding stays`);
          for (const [key, n] of afterCounts) {
            if (n > (beforeCounts.get(key) ?? 0)) problems.push(`new finding ${key}: ${after.find((a) => `${ruleOf(a)}:${a.messageId}` === key).message}`);
          }
        }
        return { desc: s.desc, output, problems };
      });
      return { rule, messageId: m.messageId, line: m.line, message: m.message, suggestions };
    });
    return { site, findings };
  }

  return { lint, check };
}

/** Per rule: findings, findings with at least one suggestion, and the share. */
export function coverage(results) {
  const table = new Map(SUGGESTION_RULES.map((r) => [r, { findings: 0, suggested: 0, missing: [] }]));
  for (const { site, findings } of results) {
    for (const f of findings) {
      const row = table.get(f.rule);
      if (!row) continue;
      row.findings++;
      if (f.suggestions.length > 0) row.suggested++;
      else row.missing.push(`${site.name}:${f.line} ${f.message}`);
    }
  }
  return table;
}

export function coverageMarkdown(table) {
  const lines = ['| rule | findings | with a suggestion | share |', '|---|---:|---:|---:|'];
  let all = 0;
  let with_ = 0;
  for (const [rule, row] of table) {
    all += row.findings;
    with_ += row.suggested;
    lines.push(`| ${rule} | ${row.findings} | ${row.suggested} | ${row.findings ? Math.round((100 * row.suggested) / row.findings) : 0}% |`);
  }
  lines.push(`| all of the above | ${all} | ${with_} | ${all ? Math.round((100 * with_) / all) : 0}% |`);
  return lines.join('\n');
}
