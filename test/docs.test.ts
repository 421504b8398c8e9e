/** Every example in rules-docs is real: incorrect blocks must report, correct blocks must not. */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Linter } from 'eslint';
import { lint } from './helpers/model.js';
import plugin from '../src/index.js';

function lintYaml(code: string, rule: string): Linter.LintMessage[] {
  const config = { ...plugin.configs.resilience4j, rules: { [`safe-retry/${rule}`]: 'error' } } as Linter.Config;
  return new Linter({ configType: 'flat' }).verify(code, [config], 'application.yml');
}

const dir = new URL('../rules-docs/', import.meta.url);

interface Example {
  kind: 'incorrect' | 'correct';
  code: string;
  line: number;
  /** A Spring Boot application.yml (a rule that judges only YAML shows YAML examples). */
  yaml?: boolean;
}

export function examplesOf(markdown: string): Example[] {
  const out: Example[] = [];
  let section = '';
  let kind: Example['kind'] | undefined;
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('## ')) { section = line.slice(3).trim(); kind = undefined; continue; }
    if (line.startsWith('### ')) {
      const title = line.slice(4).trim().toLowerCase();
      kind = title.startsWith('incorrect') ? 'incorrect' : title.startsWith('correct') ? 'correct' : undefined;
      continue;
    }
    if (section === 'Examples' && kind && /^```(ts|js|typescript|javascript|ya?ml)\s*$/.test(line)) {
      const start = i + 1;
      let end = start;
      while (end < lines.length && !lines[end]!.startsWith('```')) end++;
      out.push({ kind, code: lines.slice(start, end).join('\n'), line: start + 1, ...(/ya?ml/.test(line) ? { yaml: true } : {}) });
      i = end;
    }
  }
  return out;
}

const docs = readdirSync(dir).filter((f) => f.endsWith('.md'));

describe.each(docs)('%s', (file) => {
  const rule = file.replace(/\.md$/, '');
  const markdown = readFileSync(new URL(file, dir), 'utf8');
  const examples = examplesOf(markdown);

  it('has at least one incorrect and one correct example', () => {
    expect(examples.some((e) => e.kind === 'incorrect')).toBe(true);
    expect(examples.some((e) => e.kind === 'correct')).toBe(true);
  });

  it('has Examples, and When Not To Use It sections', () => {
    expect(markdown).toMatch(/^## Examples$/m);
    expect(markdown).toMatch(/^## When Not To Use It$/m);
  });

  it.each(examples.map((e) => [`${e.kind} example at line ${e.line}`, e] as const))('%s', (_title, example) => {
    const findings = example.yaml ? lintYaml(`${example.code}\n`, rule) : lint(example.code, { rules: { [`safe-retry/${rule}`]: 'error' } });
    if (example.kind === 'incorrect') expect(findings.length, example.code).toBeGreaterThan(0);
    else expect(findings, example.code).toEqual([]);
  });
});
