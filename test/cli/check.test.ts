/** The zero-config check, run as a user runs it: the built bin in a child process. */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rdjsonErrors } from '../helpers/rdjson.js';

const bin = new URL('../../dist/cli/check.js', import.meta.url).pathname;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 99) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

let project: string;
let clean: string;

const write = (root: string, file: string, text: string) => {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
};

beforeAll(() => {
  project = mkdtempSync(path.join(tmpdir(), 'safe-retry-check-'));
  write(project, 'src/payments.ts', [
    "import pRetry from 'p-retry';",
    'interface Charge { id: string }',
    'export async function charge(id: string): Promise<Charge> {',
    "  return pRetry(() => fetch(`/charges/${id}`).then((r) => r.json() as Promise<Charge>), { retries: 9, factor: 1 });",
    '}',
    '',
  ].join('\n'));
  write(project, 'src/view.tsx', [
    "import retry from 'async-retry';",
    'export const View = () => <div>{String(retry)}</div>;',
    '',
  ].join('\n'));
  // Top-level `return` parses only as CommonJS: proves .cjs gets sourceType commonjs.
  write(project, 'scripts/report.cjs', [
    "const pRetry = require('p-retry');",
    'if (process.env.SKIP) return;',
    "pRetry(() => fetch('/report'), { retries: 2, minTimeout: 500 });",
    '',
  ].join('\n'));
  write(project, 'src/ok.js', "export const ok = () => fetch('/health');\n");
  // Other people's retries and build output must not be reported.
  for (const dir of ['node_modules/lib', 'dist', 'build', 'coverage', '.next/server']) {
    write(project, `${dir}/index.js`, "import retry from 'async-retry';\nretry(() => 1, { retries: 50 });\n");
  }
  write(project, 'src/types.d.ts', "declare module 'x' { export const retries: 50; }\n");
  // The project's own ESLint config is not read (it would fail to load here).
  write(project, 'eslint.config.js', "throw new Error('the check must not load the project config');\n");

  clean = mkdtempSync(path.join(tmpdir(), 'safe-retry-check-clean-'));
  write(clean, 'src/read.ts', "import pRetry from 'p-retry';\nexport const read = () => pRetry(() => fetch('/x'), { retries: 2, minTimeout: 500, randomize: true });\n");
});

afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(clean, { recursive: true, force: true });
});

describe('safe-retry-check', () => {
  it('starts with the Node shebang so npm can link it as a bin', () => {
    expect(readFileSync(bin, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { bin: Record<string, string> };
    expect(pkg.bin['safe-retry-check']).toBe('./dist/cli/check.js');
  });

  it('groups findings by guide rule, with counts and a summary, and exits 1 on errors', async () => {
    const { code, stdout, stderr } = await run([], project);
    expect(stderr).toBe('');
    expect(code).toBe(1);
    const headings = stdout.split('\n').filter((l) => /^R-RES-/.test(l));
    expect(headings).toEqual([
      'R-RES-RE-3  at most 5 attempts, 3 typical  (1)',
      'R-RES-RE-4  under about 5 s of in-memory retrying  (1)',
      'R-RES-RE-X3  exponential backoff with jitter, never constant or linear  (2)',
      'R-RES-RE-X4  no legacy retry helpers  (1)',
    ]);
    expect(stdout).toContain('  src/payments.ts:4:91  error  pRetry() makes up to 10 calls in total');
    expect(stdout).toContain('safe-retry/max-retry-attempts');
    expect(stdout).toContain("src/view.tsx:1:19  error  'async-retry' is a standalone retry helper");
    expect(stdout).toContain('scripts/report.cjs:3:46  error  pRetry() backs off without randomness');
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('5 problems (5 errors, 0 warnings) in 3 of 5 files checked, under 4 guide rules.');
    for (const ignored of ['node_modules', 'dist/', 'build/', 'coverage/', '.next/', 'types.d.ts', 'eslint.config.js']) {
      expect(stdout).not.toContain(ignored);
    }
  });

  it('checks only the paths it is given', async () => {
    const { code, stdout } = await run(['scripts'], project);
    expect(code).toBe(1);
    expect(stdout).toContain('scripts/report.cjs');
    expect(stdout).not.toContain('src/payments.ts');
  });

  it('exits 0 on a clean tree', async () => {
    const { code, stdout } = await run(['src'], clean);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe('No problems in 1 file checked.');
  });

  it('prints ESLint results as JSON', async () => {
    const { code, stdout } = await run(['--format', 'json'], project);
    expect(code).toBe(1);
    const results = JSON.parse(stdout) as Array<{ filePath: string; messages: Array<{ ruleId: string; line: number }> }>;
    const payments = results.find((r) => r.filePath.endsWith('payments.ts'))!;
    expect(payments.messages.map((m) => [m.ruleId, m.line])).toEqual(expect.arrayContaining([
      ['safe-retry/max-retry-attempts', 4],
      ['safe-retry/require-exponential-backoff', 4],
    ]));
  });

  it('prints SARIF 2.1.0 with relative paths and rule metadata', async () => {
    const { code, stdout } = await run(['-f', 'sarif'], project);
    expect(code).toBe(1);
    const sarif = JSON.parse(stdout) as {
      version: string;
      runs: Array<{
        tool: { driver: { name: string; rules: Array<{ id: string; helpUri: string; properties: { tags: string[] } }> } };
        results: Array<{ ruleId: string; ruleIndex: number; message: { text: string }; locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; startColumn: number } } }> }>;
      }>;
    };
    expect(sarif.version).toBe('2.1.0');
    const run0 = sarif.runs[0]!;
    expect(run0.tool.driver.name).toBe('eslint-plugin-safe-retry');
    const attempts = run0.results.find((r) => r.ruleId === 'safe-retry/max-retry-attempts')!;
    expect(attempts.locations[0]!.physicalLocation.artifactLocation.uri).toBe('src/payments.ts');
    expect(attempts.locations[0]!.physicalLocation.region).toMatchObject({ startLine: 4, startColumn: 91 });
    expect(attempts.message.text).toMatch(/\(R-RES-RE-3\)/);
    expect(run0.tool.driver.rules[attempts.ruleIndex]).toMatchObject({ id: 'safe-retry/max-retry-attempts', properties: { tags: ['R-RES-RE-3'] } });
  });

  it('prints rdjson that validates against reviewdog schema, suggestions included', async () => {
    const { code, stdout } = await run(['--format=rdjson'], project);
    expect(code).toBe(1);
    const rdjson = JSON.parse(stdout) as { diagnostics: Array<{ code?: { value: string }; location: { path: string }; suggestions?: unknown[] }> };
    expect(rdjsonErrors(rdjson)).toEqual([]);
    const attempts = rdjson.diagnostics.find((d) => d.code?.value === 'safe-retry/max-retry-attempts')!;
    expect(attempts.location.path).toBe('src/payments.ts');
    expect(attempts.suggestions).toEqual([{ range: { start: { line: 4, column: 100 }, end: { line: 4, column: 101 } }, text: '2' }]);
  });

  it.each([
    [['--format', 'xml'], /unknown format 'xml'; use one of text, json, sarif, rdjson/],
    [['--preset', 'lenient'], /unknown preset 'lenient'/],
    [['--fix'], /Unknown option '--fix'/],
    [['no-such-dir'], /no such file or directory: no-such-dir/],
    [['--format'], /argument missing/],
  ])('exits 2 with a clear message on bad usage: %j', async (args, message) => {
    const { code, stdout, stderr } = await run(args, project);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
  });

  it('prints help and version', async () => {
    const help = await run(['--help'], project);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: safe-retry-check/);
    const version = await run(['-v'], project);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(version.stdout.trim()).toBe(pkg.version);
  });

  it('draws progress on a terminal only', async () => {
    // Not a TTY: nothing on stderr (asserted above too); under a pseudo-terminal the spinner shows.
    const { stderr } = await run([], project);
    expect(stderr).toBe('');
    let ptyOutput: string;
    try {
      ptyOutput = execFileSync('script', ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} .`, '/dev/null'], {
        cwd: project,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      });
    } catch (error) {
      ptyOutput = String((error as { stdout?: string }).stdout ?? '');
    }
    expect(ptyOutput).toMatch(/checking\.\.\. \d+ files/);
    expect(ptyOutput).toContain('5 problems');
  });

  it('checks Spring application*.yml with the resilience4j preset, and groups multi-rule messages by the first', async () => {
    const spring = mkdtempSync(path.join(tmpdir(), 'safe-retry-check-spring-'));
    try {
      write(spring, 'src/main/resources/application.yml', 'resilience4j.retry.instances.sber:\n  max-attempts: 8\n  wait-duration: 100ms\n');
      write(spring, 'docker-compose.yml', 'services:\n  retry:\n    max-attempts: 99\n');
      write(spring, 'web/pay.ts', [
        "import pRetry from 'p-retry';",
        "import axios from 'axios';",
        "export const pay = (id: string) => pRetry(() => axios.post('/charges', { id }), { retries: 2, minTimeout: 500, randomize: true });",
        '',
      ].join('\n'));
      const { code, stdout } = await run([], spring);
      expect(code).toBe(1);
      expect(stdout).toContain("src/main/resources/application.yml:2:3  error  Resilience4j retry instance 'sber' makes up to 8 calls in total");
      expect(stdout).not.toContain('docker-compose.yml');
      // "(R-RES-RE-1, R-RES-RE-X1)": grouped under R-RES-RE-1.
      expect(stdout).toMatch(/^R-RES-RE-1 {2}retry only reads, or writes with an idempotency key {2}\(1\)$/m);
      expect(stdout).not.toMatch(/^safe-retry\//m);
    } finally {
      rmSync(spring, { recursive: true, force: true });
    }
  });
});
