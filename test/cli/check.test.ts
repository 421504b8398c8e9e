/** The zero-config check, run as a user runs it: the built bin in a child process. */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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
  write(clean, 'src/read.ts', [
    "import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';",
    'const transient = (e: Error & { status?: number }) => e.status === undefined || e.status >= 500;',
    'const policy = retry(handleWhen(transient), { maxAttempts: 2, backoff: new ExponentialBackoff({ initialDelay: 200, maxDelay: 1000 }) });',
    "export const read = () => policy.execute(() => fetch('/x'));",
    '',
  ].join('\n'));
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
      'R-RES-RE-X3  exponential backoff with jitter, never constant or linear  (3)',
      'R-RES-RE-X4  no legacy retry helpers  (3)',
    ]);
    expect(stdout).toContain('  src/payments.ts:4:91  error  pRetry() makes up to 10 calls in total');
    expect(stdout).toContain('safe-retry/max-retry-attempts');
    expect(stdout).toContain("src/view.tsx:1:19  error  'async-retry' is a standalone retry helper");
    expect(stdout).toContain('scripts/report.cjs:3:46  error  pRetry() backs off without randomness');
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('8 problems (8 errors, 0 warnings) in 3 of 5 files checked, under 4 guide rules.');
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
    expect(run0.tool.driver.rules[attempts.ruleIndex]).toMatchObject({ id: 'safe-retry/max-retry-attempts', properties: { tags: ['R-RES-RE-3', 'R-RES-RE-5'] } });
  });

  it('prints rdjson that validates against reviewdog schema, suggestions included', async () => {
    const { code, stdout } = await run(['--format=rdjson'], project);
    expect(code).toBe(1);
    const rdjson = JSON.parse(stdout) as { diagnostics: Array<{ code?: { value: string }; location: { path: string }; suggestions?: unknown[] }> };
    expect(rdjsonErrors(rdjson)).toEqual([]);
    const attempts = rdjson.diagnostics.find((d) => d.code?.value === 'safe-retry/max-retry-attempts')!;
    expect(attempts.location.path).toBe('src/payments.ts');
    // Line 4 with the whole compliant schedule planned from the model (attempts, growth, first
    // wait, jitter), as a whole-line replacement.
    const line4 = readFileSync(path.join(project, 'src/payments.ts'), 'utf8').split('\n')[3]!;
    expect(attempts.suggestions).toEqual([{ range: { start: { line: 4 }, end: { line: 4 } }, text: line4.replace('{ retries: 9, factor: 1 }', '{ retries: 2, factor: 2, minTimeout: 500, randomize: true }') }]);
  });

  it.each([
    [['--format', 'xml'], /unknown format 'xml'; use one of text, json, sarif, rdjson/],
    [['--preset', 'lenient'], /unknown preset 'lenient'/],
    [['--fix'], /Unknown option '--fix'/],
    [['no-such-dir'], /no such file or directory: no-such-dir/],
    [['/no/such/absolute/dir'], /no such file or directory: \/no\/such\/absolute\/dir/],
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
    expect(ptyOutput).toContain('8 problems');
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

  it('checks a path outside the current directory, skipping dependencies and build output below it', async () => {
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'safe-retry-check-elsewhere-'));
    const here = mkdtempSync(path.join(tmpdir(), 'safe-retry-check-here-'));
    try {
      write(elsewhere, 'svc/src/poll.ts', "import pRetry from 'p-retry';\nexport const poll = () => pRetry(() => fetch('/p'), { retries: 9, minTimeout: 500, randomize: true });\n");
      write(elsewhere, 'svc/node_modules/lib/index.js', "import retry from 'async-retry';\nretry(() => 1, { retries: 50 });\n");
      write(elsewhere, 'svc/dist/poll.js', "import retry from 'async-retry';\nretry(() => 1, { retries: 50 });\n");
      const absolute = path.join(elsewhere, 'svc');
      for (const given of [absolute, path.relative(here, absolute)]) {
        const { code, stdout, stderr } = await run([given], here);
        expect(stderr, given).toBe('');
        expect(code, given).toBe(1);
        // Outside the current directory a file is named by its absolute path.
        expect(stdout).toMatch(new RegExp(`^ {2}${path.join(absolute, 'src/poll.ts')}:2:\\d+ {2}error {2}pRetry\\(\\) makes up to 10 calls in total`, 'm'));
        expect(stdout).not.toMatch(/node_modules|dist/);
        expect(stdout.trimEnd().split('\n').at(-1)).toMatch(/in 1 of 1 file checked/);
      }
      // A single file outside, and one inside next to it: both checked.
      write(here, 'local.ts', "import pRetry from 'p-retry';\nexport const l = () => pRetry(() => fetch('/l'), { retries: 8, minTimeout: 500, randomize: true });\n");
      const both = await run([path.join(absolute, 'src/poll.ts'), 'local.ts', '-f', 'json'], here);
      expect(both.code).toBe(1);
      expect((JSON.parse(both.stdout) as Array<{ filePath: string }>).map((r) => r.filePath).sort()).toEqual([path.join(here, 'local.ts'), path.join(absolute, 'src/poll.ts')].sort());
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
      rmSync(here, { recursive: true, force: true });
    }
  });

  it('exits 2 when nothing was checked, saying why for each path, in every format', async () => {
    const bare = mkdtempSync(path.join(tmpdir(), 'safe-retry-check-bare-'));
    try {
      write(bare, 'docs/guide.md', '# guide\n');
      write(bare, 'README.md', '# readme\n');
      write(bare, 'dist/index.js', "import retry from 'async-retry';\nretry(() => 1, { retries: 50 });\n");
      for (const format of ['text', 'json', 'sarif', 'rdjson']) {
        const { code, stdout, stderr } = await run(['-f', format], bare);
        expect(code, format).toBe(2);
        expect(stdout, format).toBe('');
        expect(stderr).toMatch(/^safe-retry-check: nothing was checked \(0 files\), so this run cannot pass:\n {2}\.: no JavaScript or TypeScript .*file in it\n/);
        expect(stderr).toMatch(/Skipped: node_modules, dist, build/);
      }
      const { code, stderr } = await run(['docs', 'README.md', 'dist', 'dist/index.js'], bare);
      expect(code).toBe(2);
      expect(stderr).toContain('  docs: no JavaScript or TypeScript');
      expect(stderr).toMatch(/ {2}README\.md: not a JavaScript or TypeScript .*file\n/);
      expect(stderr).toContain('  dist: skipped, with everything in it\n');
      expect(stderr).toContain('  dist/index.js: skipped\n');
      // Some paths checked, one empty: the run counts, and the empty path is named on stderr.
      write(bare, 'src/ok.ts', "export const ok = () => fetch('/ok');\n");
      const partial = await run(['src', 'docs'], bare);
      expect(partial.code).toBe(0);
      expect(partial.stdout.trim()).toBe('No problems in 1 file checked.');
      expect(partial.stderr).toMatch(/^safe-retry-check: warning: nothing was checked in\n {2}docs: no JavaScript or TypeScript/);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  it("reports nothing about the project's own eslint comments, and honours its disables of these rules", async () => {
    const commented = mkdtempSync(path.join(tmpdir(), 'safe-retry-check-comments-'));
    try {
      write(commented, 'src/jobs.js', [
        "import pRetry from 'p-retry';",
        '/* eslint-disable no-console */',
        "console.log('start');",
        '/* eslint-enable no-console */',
        '// eslint-disable-next-line react-hooks/exhaustive-deps',
        "export const a = () => pRetry(() => fetch('/a'), { retries: 9, minTimeout: 500, randomize: true });",
        '/* eslint no-console: "error", @typescript-eslint/no-explicit-any: "error" */',
        "console.log('on by an inline config');",
        '/* eslint-env node */',
        '// eslint-disable-next-line safe-retry/max-retry-attempts -- a reviewed exception',
        "export const b = () => pRetry(() => fetch('/b'), { retries: 8, minTimeout: 500, randomize: true });",
        '// eslint-disable-next-line no-undef',
        'export const c = 1;',
        '',
      ].join('\n'));
      const { code, stdout } = await run(['-f', 'json'], commented);
      expect(code).toBe(1);
      const [result] = JSON.parse(stdout) as Array<{ messages: Array<{ ruleId: string | null; line: number }>; errorCount: number; warningCount: number; fatalErrorCount: number }>;
      // Only this plugin's findings; the disable of max-retry-attempts on line 11 is honoured.
      expect(result!.messages.every((m) => m.ruleId?.startsWith('safe-retry/'))).toBe(true);
      expect(result!.messages.filter((m) => m.ruleId === 'safe-retry/max-retry-attempts').map((m) => m.line)).toEqual([6]);
      expect(result).toMatchObject({ errorCount: result!.messages.length, warningCount: 0, fatalErrorCount: 0 });
      const text = await run([], commented);
      expect(text.stdout).not.toMatch(/Unused eslint|no-console|not found|eslint-env|no-explicit-any/);
      expect(text.stdout.trimEnd().split('\n').at(-1)).toMatch(new RegExp(`^${result!.messages.length} problems? \\(${result!.messages.length} errors?, 0 warnings\\) in 1 of 1 file checked`));
      // A file that does not parse is still reported.
      write(commented, 'src/broken.ts', 'export const = ;\n');
      const broken = await run(['src/broken.ts'], commented);
      expect(broken.code).toBe(1);
      expect(broken.stdout).toMatch(/src\/broken\.ts:1:\d+ {2}error {2}Parsing error/);
    } finally {
      rmSync(commented, { recursive: true, force: true });
    }
  });

  it('writes SARIF locations relative to the repository root, from any directory in it', async () => {
    const repo = mkdtempSync(path.join(tmpdir(), 'safe-retry-check-repo-'));
    const outside = mkdtempSync(path.join(tmpdir(), 'safe-retry-check-outside-'));
    try {
      mkdirSync(path.join(repo, '.git'));
      write(repo, 'services/api/src/pay ments.ts', "import pRetry from 'p-retry';\nexport const p = () => pRetry(() => fetch('/p'), { retries: 9, minTimeout: 500, randomize: true });\n");
      write(outside, 'x.ts', "import pRetry from 'p-retry';\nexport const x = () => pRetry(() => fetch('/x'), { retries: 9, minTimeout: 500, randomize: true });\n");
      const { code, stdout } = await run(['-f', 'sarif', '.', path.join(outside, 'x.ts')], path.join(repo, 'services/api'));
      expect(code).toBe(1);
      const sarif = JSON.parse(stdout) as {
        runs: Array<{
          originalUriBaseIds: Record<string, { uri: string }>;
          results: Array<{ ruleId: string; locations: Array<{ physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string } } }> }>;
        }>;
      };
      const run0 = sarif.runs[0]!;
      expect(run0.originalUriBaseIds).toEqual({ '%SRCROOT%': { uri: pathToFileURL(repo).href + '/' } });
      const locations = run0.results.filter((r) => r.ruleId === 'safe-retry/max-retry-attempts').map((r) => r.locations[0]!.physicalLocation.artifactLocation);
      const inRepo = { uri: 'services/api/src/pay%20ments.ts', uriBaseId: '%SRCROOT%' };
      // Outside the repository: an absolute URI, not a path that climbs out of %SRCROOT%.
      const notInRepo = { uri: pathToFileURL(path.join(outside, 'x.ts')).href };
      expect(locations).toHaveLength(2);
      expect(locations).toEqual(expect.arrayContaining([inRepo, notInRepo]));
      // Resolved against %SRCROOT%, it is the file: what code scanning does with it.
      expect(fileURLToPath(new URL(inRepo.uri, run0.originalUriBaseIds['%SRCROOT%']!.uri))).toBe(path.join(repo, 'services/api/src/pay ments.ts'));
    } finally {
      rmSync(repo, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
