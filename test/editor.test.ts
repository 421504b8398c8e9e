/**
 * The editor path: the VS Code ESLint extension lints unsaved buffers through
 * `ESLint#lintText(text, { filePath })` with the project's flat config. Every finding must
 * squiggle the option or call to change (never a whole function or file), and every suggestion
 * must apply cleanly: the result still parses and the rule no longer reports there.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url);
const cwd = new URL('fixtures/project/', import.meta.url).pathname;

interface Sample {
  name: string;
  code: string;
}

/** Incorrect examples from rules-docs/<rule>.md (the docs test proves they report). */
function incorrectExamples(markdown: string): string[] {
  const out: string[] = [];
  let section = '';
  let incorrect = false;
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('## ')) { section = line.slice(3).trim(); incorrect = false; continue; }
    if (line.startsWith('### ')) { incorrect = line.slice(4).trim().toLowerCase().startsWith('incorrect'); continue; }
    if (section === 'Examples' && incorrect && /^```(ts|js|typescript|javascript)\s*$/.test(line)) {
      let end = i + 1;
      while (end < lines.length && !lines[end]!.startsWith('```')) end++;
      out.push(lines.slice(i + 1, end).join('\n'));
      i = end;
    }
  }
  return out;
}

/** Shapes beyond the docs, written the way people write them, to exercise suggestions widely. */
const EXTRA: Sample[] = [
  {
    name: 'cockatiel handleAll with constant backoff and many attempts',
    code: [
      "import { retry, handleAll, ConstantBackoff } from 'cockatiel';",
      'export const policy = retry(handleAll, { maxAttempts: 9, backoff: new ConstantBackoff(200) });',
    ].join('\n'),
  },
  {
    name: 'axios-retry with many retries and no delay',
    code: [
      "import axios from 'axios';",
      "import axiosRetry from 'axios-retry';",
      "const api = axios.create({ baseURL: 'https://api.example.com' });",
      'axiosRetry(api, { retries: 8 });',
    ].join('\n'),
  },
  {
    name: 'p-retry options in a const',
    code: [
      "import pRetry from 'p-retry';",
      'const options = { retries: 7, factor: 1, minTimeout: 300 };',
      "export const load = () => pRetry(() => fetch('/items'), options);",
    ].join('\n'),
  },
  {
    name: 'got client with 4xx statuses',
    code: [
      "import got from 'got';",
      "export const client = got.extend({ retry: { limit: 9, statusCodes: [400, 404, 500] } });",
    ].join('\n'),
  },
  {
    name: 'rxjs retry without a count',
    code: [
      "import { retry } from 'rxjs';",
      "import { ajax } from 'rxjs/ajax';",
      "export const items$ = ajax.getJSON('/items').pipe(retry());",
    ].join('\n'),
  },
  {
    name: 'hand-written loop with a fixed sleep',
    code: [
      'const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));',
      'export async function load(url: string) {',
      '  for (let i = 0; i < 10; i++) {',
      '    try {',
      '      return await fetch(url);',
      '    } catch {',
      '      await sleep(1000);',
      '    }',
      '  }',
      "  throw new Error('unreachable');",
      '}',
    ].join('\n'),
  },
];

let eslint: ESLint;
let ruleNames: string[];

beforeAll(async () => {
  // The built package, as the editor loads it from node_modules.
  const { default: safeRetry } = await import('../dist/index.js');
  ruleNames = Object.keys(safeRetry.rules);
  eslint = new ESLint({
    cwd,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as Linter.Parser } },
      safeRetry.configs.all as Linter.Config,
    ],
  });
});

const filePath = `${cwd}src/unsaved.ts`;

async function lintText(code: string) {
  const [result] = await eslint.lintText(code, { filePath });
  const fatal = result!.messages.find((m) => m.fatal);
  if (fatal) throw new Error(`does not parse: ${fatal.message}\n${code}`);
  return result!.messages.filter((m) => m.ruleId?.startsWith('safe-retry/'));
}

function samples(): Sample[] {
  const docs = readdirSync(new URL('rules-docs/', root)).filter((f) => f.endsWith('.md'));
  const fromDocs = docs.flatMap((file) =>
    incorrectExamples(readFileSync(new URL(`rules-docs/${file}`, root), 'utf8')).map((code, i) => ({ name: `${file} incorrect #${i + 1}`, code })),
  );
  return [...fromDocs, ...EXTRA];
}

/** The text of a single-line range; undefined when it spans lines. */
function covered(code: string, m: Linter.LintMessage): string | undefined {
  if (m.endLine !== m.line || m.endColumn === undefined) return undefined;
  return code.split('\n')[m.line - 1]!.slice(m.column - 1, m.endColumn - 1);
}

const applyFix = (text: string, fix: { range: readonly [number, number] | [number, number]; text: string }) =>
  text.slice(0, fix.range[0]) + fix.text + text.slice(fix.range[1]);

describe.each(samples().map((s) => [s.name, s] as const))('in the editor: %s', (_name, sample) => {
  it('reports precise ranges: one line, narrower than the line it is on', async () => {
    const messages = await lintText(sample.code);
    expect(messages.length, sample.code).toBeGreaterThan(0);
    for (const m of messages) {
      const text = covered(sample.code, m);
      expect(text, `${m.ruleId} at ${m.line}:${m.column} spans lines`).toBeDefined();
      const line = sample.code.split('\n')[m.line - 1]!.trim();
      expect(text!.length, `${m.ruleId} squiggles '${text}'`).toBeGreaterThan(0);
      // The option, callee, keyword or module name: never the whole statement, function or file.
      expect(text!.length < line.length || text!.length <= 24, `${m.ruleId} squiggles the whole line '${line}'`).toBe(true);
    }
  });

  it('has suggestions that apply cleanly, still parse, and clear the finding', async () => {
    const messages = await lintText(sample.code);
    for (const m of messages) {
      for (const suggestion of m.suggestions ?? []) {
        const fixed = applyFix(sample.code, suggestion.fix);
        expect(fixed).not.toBe(sample.code);
        const after = await lintText(fixed); // throws when the result does not parse
        const same = after.filter((a) => a.ruleId === m.ruleId && a.messageId === m.messageId && a.line === m.line);
        expect(same, `${m.ruleId}: '${suggestion.desc}' left the finding in place:\n${fixed}`).toEqual([]);
      }
    }
  });
});

/** Spring YAML as the resilience4j preset lints it in the editor. */
const SPRING_YAML = [
  'spring.application.name: payments',
  'resilience4j.retry:',
  '  configs:',
  '    default:',
  '      max-attempts: 9',
  '      wait-duration: 1s',
  '      enable-exponential-backoff: true',
  '  instances:',
  '    sber:',
  '      base-config: default',
  '      enable-exponential-backoff: false',
  '      retry-exceptions: [java.io.IOException, org.springframework.web.client.RestClientException]',
  'resilience4j.retry.instances.partners.max-attempts: 12',
  '',
].join('\n');

async function lintSpringYaml(yaml: string): Promise<Linter.LintMessage[]> {
  const { default: safeRetry } = await import('../dist/index.js');
  const yamlEslint = new ESLint({ cwd, overrideConfigFile: true, overrideConfig: [safeRetry.configs.resilience4j as Linter.Config] });
  const [result] = await yamlEslint.lintText(yaml, { filePath: `${cwd}src/main/resources/application.yml` });
  return result!.messages;
}

describe('coverage of the editor checks', () => {
  it('exercises every documented rule and some suggestions', async () => {
    const seen = new Set<string>();
    let suggestions = 0;
    for (const s of samples()) {
      for (const m of await lintText(s.code)) {
        seen.add(m.ruleId!.replace('safe-retry/', ''));
        suggestions += m.suggestions?.length ?? 0;
      }
    }
    // A rule that judges only Spring YAML is exercised by the YAML sample.
    for (const m of await lintSpringYaml(SPRING_YAML)) seen.add(m.ruleId!.replace('safe-retry/', ''));
    const documented = readdirSync(new URL('rules-docs/', root)).filter((f) => f.endsWith('.md')).map((f) => f.replace(/\.md$/, ''));
    for (const rule of documented.filter((r) => ruleNames.includes(r))) expect(seen, rule).toContain(rule);
    expect(suggestions).toBeGreaterThan(5);
  });
});

describe('in the editor: Spring YAML with the resilience4j preset', () => {
  const yaml = SPRING_YAML;

  it('squiggles the setting or the instance name, never the block', async () => {
    const messages = await lintSpringYaml(yaml);
    const found = messages.map((m) => `${m.ruleId?.replace('safe-retry/', '')} ${m.line} ${covered(yaml, m)}`);
    expect(found).toEqual(expect.arrayContaining([
      'max-retry-attempts 5 max-attempts: 9',
      'require-jitter 7 enable-exponential-backoff: true',
      // sber has no wait-duration of its own: Resilience4j keeps the waits of configs.default.
      'valid-resilience4j-config 11 enable-exponential-backoff: false',
      'no-retry-on-client-error 12 org.springframework.web.client.RestClientException',
      'max-retry-attempts 13 max-attempts: 12',
      'max-retry-duration 13 partners',
    ]));
    for (const m of messages) {
      const text = covered(yaml, m);
      expect(text, `${m.ruleId} at ${m.line}`).toBeDefined();
      expect(text!.length).toBeLessThan(yaml.split('\n')[m.line - 1]!.trim().length + 1);
    }
  });
});

