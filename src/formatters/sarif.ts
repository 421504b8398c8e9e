/**
 * A small SARIF 2.1.0 writer for the zero-config check, so `safe-retry-check --format sarif`
 * works without another package. Projects that run the `eslint` CLI use
 * `@microsoft/eslint-formatter-sarif` instead (see the README); both put ESLint's message,
 * rule id and UTF-16 columns (SARIF's default column kind) into the result.
 *
 * Locations are relative to the repository root (`%SRCROOT%`), which is where code scanning looks
 * them up, whatever directory the check ran in; a file outside the repository keeps an absolute
 * URI, which code scanning cannot place but which still names the file.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ESLint } from 'eslint';

interface SarifRule {
  id: string;
  shortDescription?: { text: string };
  helpUri?: string;
  properties?: { tags: string[] };
}

export interface SarifTool {
  name: string;
  version: string;
  informationUri: string;
}

export function toSarif(
  results: readonly ESLint.LintResult[],
  context: {
    cwd: string;
    /** The repository root (the directory holding `.git`); the current directory when there is none. */
    root?: string | undefined;
    rulesMeta: ESLint.LintResultData['rulesMeta'];
  },
  tool: SarifTool,
): object {
  const rules: SarifRule[] = [];
  const ruleIndex = new Map<string, number>();
  const indexOfRule = (id: string): number => {
    let i = ruleIndex.get(id);
    if (i !== undefined) return i;
    const meta = context.rulesMeta[id] as { docs?: { description?: string; url?: string; guideRules?: readonly string[] } } | undefined;
    const rule: SarifRule = { id };
    if (meta?.docs?.description) rule.shortDescription = { text: meta.docs.description };
    if (meta?.docs?.url) rule.helpUri = meta.docs.url;
    if (meta?.docs?.guideRules) rule.properties = { tags: [...meta.docs.guideRules] };
    i = rules.push(rule) - 1;
    ruleIndex.set(id, i);
    return i;
  };
  const root = context.root ?? context.cwd;
  const sarifResults: object[] = [];
  const notifications: object[] = [];
  for (const result of results) {
    const artifactLocation = artifactOf(root, path.resolve(context.cwd, result.filePath));
    for (const message of result.messages) {
      const region: Record<string, number> = {};
      if (message.line > 0) region['startLine'] = message.line;
      if (message.column > 0) region['startColumn'] = message.column;
      if (message.endLine) region['endLine'] = message.endLine;
      if (message.endColumn) region['endColumn'] = message.endColumn;
      const entry = {
        level: message.severity === 2 ? 'error' : 'warning',
        message: { text: message.message },
        locations: [{ physicalLocation: { artifactLocation, region } }],
      };
      // A message without a rule is a parse error: a notification about the run, not a finding.
      if (message.ruleId) sarifResults.push({ ruleId: message.ruleId, ruleIndex: indexOfRule(message.ruleId), ...entry });
      else notifications.push({ ...entry, descriptor: { id: 'parse-error' } });
    }
  }
  return {
    version: '2.1.0',
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    runs: [
      {
        tool: { driver: { ...tool, rules } },
        // SARIF requires the base URI to end with a slash.
        originalUriBaseIds: { '%SRCROOT%': { uri: `${pathToFileURL(root).href.replace(/\/?$/, '/')}` } },
        columnKind: 'utf16CodeUnits',
        results: sarifResults,
        invocations: [{ executionSuccessful: true, toolExecutionNotifications: notifications }],
      },
    ],
  };
}

function artifactOf(root: string, file: string): { uri: string; uriBaseId?: string } {
  const relative = path.relative(root, file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return { uri: pathToFileURL(file).href };
  // A relative reference: segments percent-encoded, separators always '/'.
  return { uri: relative.split(path.sep).map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' };
}
