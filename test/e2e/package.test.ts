/**
 * The published package, used the way a person uses it: `npm pack`, install the tarball into a
 * fresh project with npm (once with ESLint 9, once with ESLint 10), configure it with
 * typescript-eslint as the README says, and run the real `eslint` CLI, the zero-config bin and
 * a TypeScript consumer compile. Needs the built dist (npm test builds first) and the npm
 * registry; the installs take a while, hence the long timeouts.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rdjsonErrors } from '../helpers/rdjson.js';

const repo = new URL('../..', import.meta.url).pathname;
const ESLINT_VERSIONS = { 9: '9.39.5', 10: '10.15.0' } as const;
const TYPESCRIPT_ESLINT = '8.74.0';
const TYPESCRIPT = '6.0.3';
const TYPES_NODE = '20.19.43';
const YAML_ESLINT_PARSER = '2.1.0';
const MINUTES = 60_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, timeout = 5 * MINUTES): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const APP: Record<string, string> = {
  'src/orders.ts': [
    "import pRetry from 'p-retry';",
    '',
    'export interface Order {',
    '  id: string;',
    '  total: number;',
    '}',
    '',
    'export async function loadOrder(id: string): Promise<Order> {',
    '  const response = await pRetry(() => fetch(`https://orders.example.com/orders/${id}`), { retries: 9, factor: 1, minTimeout: 1000 });',
    '  return (await response.json()) as Order;',
    '}',
    '',
  ].join('\n'),
  'src/legacy.ts': [
    "import retry from 'async-retry';",
    '',
    'export async function ping(): Promise<number> {',
    "  return retry(async () => (await fetch('https://status.example.com/ping')).status, { retries: 2, minTimeout: 500, factor: 2 });",
    '}',
    '',
  ].join('\n'),
  'src/catalogue.ts': [
    "import pRetry from 'p-retry';",
    '',
    'export async function loadCatalogue(): Promise<unknown> {',
    "  const response = await pRetry(() => fetch('https://catalogue.example.com/items'), { retries: 2, minTimeout: 500, factor: 2, randomize: true });",
    '  return response.json();',
    '}',
    '',
  ].join('\n'),
  // The README's TypeScript setup, verbatim.
  'eslint.config.js': [
    "import tseslint from 'typescript-eslint';",
    "import safeRetry from 'eslint-plugin-safe-retry';",
    '',
    'export default tseslint.config(',
    '  ...tseslint.configs.recommended,',
    '  safeRetry.configs.recommended,',
    ');',
    '',
  ].join('\n'),
  // A consumer compile: the entry points resolve to real types (wrong uses must fail to compile).
  'types/consumer.ts': [
    "import safeRetry, { configs, rules } from 'eslint-plugin-safe-retry';",
    "import { createRetryPolicy, createCircuitBreaker, type RetryPolicyOptions } from 'eslint-plugin-safe-retry/runtime';",
    "import formatRdjson from 'eslint-plugin-safe-retry/formatter-rdjson';",
    "import { defineConfig } from 'eslint/config';",
    "import tseslint from 'typescript-eslint';",
    '',
    '// The presets fit a typed eslint.config.ts, with either helper.',
    'export const withEslint = defineConfig([safeRetry.configs.recommended, safeRetry.configs.resilience4j]);',
    'export const withTypescriptEslint = tseslint.config(...tseslint.configs.recommended, safeRetry.configs.strict, safeRetry.configs.resilience4j);',
    "const namespace: string = safeRetry.meta.namespace;",
    "const recommended = configs.recommended.rules['safe-retry/max-retry-attempts'];",
    "const ruleCount: number = Object.keys(rules).length;",
    'const options: RetryPolicyOptions = { maxAttempts: 3, initialDelayMs: 500, breaker: createCircuitBreaker() };',
    'const policy = createRetryPolicy(options);',
    'const rdjson: string = formatRdjson([]);',
    '// @ts-expect-error there is no such preset',
    'const missing = configs.lenient;',
    '// @ts-expect-error maxAttempts is a number',
    "createRetryPolicy({ maxAttempts: 'three' });",
    'export { namespace, recommended, ruleCount, policy, rdjson, missing };',
    '',
  ].join('\n'),
  // Spring Boot YAML for the resilience4j preset (outside src/, so the bin's `src` run stays JS-only).
  'config/application.yml': [
    'resilience4j.retry.instances.sber:',
    '  max-attempts: 10',
    '  wait-duration: 1s',
    '  enable-exponential-backoff: false',
    '',
  ].join('\n'),
  'eslint.yaml.config.js': [
    "import safeRetry from 'eslint-plugin-safe-retry';",
    '',
    'export default [safeRetry.configs.resilience4j];',
    '',
  ].join('\n'),
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      types: ['node'],
      // Our declarations are checked too, and every import inside them must resolve.
      skipLibCheck: false,
    },
    include: ['types'],
  }, null, 2),
  'package.json': JSON.stringify({ name: 'consumer-app', version: '1.0.0', private: true, type: 'module' }, null, 2),
};

/** The findings the recommended preset must report on the app, as `file:line rule`. */
const EXPECTED = [
  'src/legacy.ts:1 safe-retry/no-legacy-retry',
  'src/orders.ts:9 safe-retry/max-retry-attempts',
  'src/orders.ts:9 safe-retry/max-retry-duration',
  'src/orders.ts:9 safe-retry/require-exponential-backoff',
];

let tarball: string;
const workDirs: string[] = [];

beforeAll(async () => {
  if (!existsSync(path.join(repo, 'dist/index.js'))) throw new Error('dist/ is missing: run `npm run build` (npm test does) before the e2e tests');
  const out = mkdtempSync(path.join(tmpdir(), 'safe-retry-pack-'));
  workDirs.push(out);
  // --ignore-scripts: prepack would rebuild dist/ while other test files import it; npm test built it.
  const packed = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', out], repo);
  expect(packed.code, packed.stderr).toBe(0);
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = path.join(out, info!.filename);
  // What a user gets: the build, docs and the bin, not sources or tests.
  const files = info!.files.map((f) => f.path);
  expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/runtime/index.d.ts', 'dist/cli/check.js', 'dist/formatters/rdjson.js', 'README.md']));
  expect(files.some((f) => f.startsWith('src/') || f.startsWith('test/'))).toBe(false);
}, 5 * MINUTES);

afterAll(() => {
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});

describe.each([9, 10] as const)('installed from the tarball with ESLint %i', (major) => {
  let project: string;
  const eslint = (...args: string[]) => run(process.execPath, [path.join(project, 'node_modules/eslint/bin/eslint.js'), ...args], project);

  beforeAll(async () => {
    project = mkdtempSync(path.join(tmpdir(), `safe-retry-e2e-eslint${major}-`));
    workDirs.push(project);
    for (const [file, text] of Object.entries(APP)) {
      mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
      writeFileSync(path.join(project, file), text);
    }
    const install = await run(npm, [
      'install', '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline',
      tarball,
      `eslint@${ESLINT_VERSIONS[major]}`,
      `typescript-eslint@${TYPESCRIPT_ESLINT}`,
      `typescript@${TYPESCRIPT}`,
      `@types/node@${TYPES_NODE}`,
      // The optional peer: installed with ESLint 10 only, so both sides of "optional" are tested.
      ...(major === 10 ? [`yaml-eslint-parser@${YAML_ESLINT_PARSER}`] : []),
    ], project, 10 * MINUTES);
    expect(install.code, install.stderr).toBe(0);
    const installed = JSON.parse(readFileSync(path.join(project, 'node_modules/eslint/package.json'), 'utf8')) as { version: string };
    expect(installed.version).toBe(ESLINT_VERSIONS[major]);
  }, 12 * MINUTES);

  it('reports the known violations with the recommended preset and exits 1', async () => {
    const stylish = await eslint('.');
    expect(stylish.code, stylish.stderr).toBe(1);
    expect(stylish.stdout).toMatch(/\(R-RES-RE-3\)/);

    const json = await eslint('.', '-f', 'json');
    expect(json.code).toBe(1);
    const results = JSON.parse(json.stdout) as Array<{ filePath: string; messages: Array<{ ruleId: string | null; line: number; suggestions?: unknown[] }> }>;
    const findings = results.flatMap((r) => r.messages.map((m) => `${path.relative(project, r.filePath)}:${m.line} ${m.ruleId}`)).sort();
    expect(findings).toEqual(EXPECTED);
    // The suggestions an editor offers arrive through the CLI too.
    const attempts = results.flatMap((r) => r.messages).find((m) => m.ruleId === 'safe-retry/max-retry-attempts')!;
    expect(attempts.suggestions?.length).toBe(1);
  }, 2 * MINUTES);

  it('--fix changes nothing: every fix the plugin offers is a suggestion, not an autofix', async () => {
    const before = Object.fromEntries(Object.keys(APP).map((f) => [f, readFileSync(path.join(project, f), 'utf8')]));
    const dry = await eslint('.', '--fix-dry-run', '-f', 'json');
    const dryResults = JSON.parse(dry.stdout) as Array<{ output?: string }>;
    expect(dryResults.filter((r) => r.output !== undefined)).toEqual([]);
    const fixed = await eslint('.', '--fix');
    expect(fixed.code).toBe(1); // the findings remain for a person to decide
    for (const [file, text] of Object.entries(before)) expect(readFileSync(path.join(project, file), 'utf8'), file).toBe(text);
  }, 2 * MINUTES);

  it('formats rdjson through the formatter file that the README names', async () => {
    const rdjson = await eslint('.', '-f', './node_modules/eslint-plugin-safe-retry/dist/formatters/rdjson.js');
    expect(rdjson.code, rdjson.stderr).toBe(1);
    const output = JSON.parse(rdjson.stdout) as { diagnostics: Array<{ code?: { value: string }; location: { path: string }; suggestions?: unknown[] }> };
    expect(rdjsonErrors(output)).toEqual([]);
    expect(output.diagnostics.map((d) => `${d.location.path} ${d.code?.value}`).sort()).toEqual(
      EXPECTED.map((e) => e.replace(/:\d+ /, ' ')).sort(),
    );
    expect(output.diagnostics.some((d) => (d.suggestions?.length ?? 0) > 0)).toBe(true);
    // ESLint reads a `-f` value containing '/' as a path, so the package subpath is not a CLI name
    // (the README says so); it stays importable for the Node API.
    const bySubpath = await eslint('.', '-f', 'eslint-plugin-safe-retry/formatter-rdjson');
    expect(bySubpath.code).toBe(2);
    expect(bySubpath.stderr).toMatch(/problem loading formatter/);
    const imported = await run(process.execPath, ['--input-type=module', '-e', "import f from 'eslint-plugin-safe-retry/formatter-rdjson'; console.log(typeof f)"], project);
    expect(imported.stdout.trim()).toBe('function');
  }, 2 * MINUTES);

  it('runs the zero-config bin from node_modules/.bin', async () => {
    const check = await run(path.join(project, 'node_modules/.bin/safe-retry-check'), ['src'], project);
    expect(check.code, check.stderr).toBe(1);
    expect(check.stdout).toMatch(/^R-RES-RE-3 {2}at most 5 attempts, 3 typical {2}\(1\)$/m);
    expect(check.stdout).toContain('src/orders.ts:9:');
    expect(check.stdout.trimEnd().split('\n').at(-1)).toMatch(/^4 problems \(4 errors, 0 warnings\) in 2 of 3 files checked/);
  }, 2 * MINUTES);

  it('lints Spring YAML with the resilience4j preset, or says which optional peer is missing', async () => {
    const yaml = await eslint('-c', 'eslint.yaml.config.js', '-f', 'json', 'config/application.yml');
    const [result] = JSON.parse(yaml.stdout) as Array<{ messages: Array<{ ruleId: string | null; line: number; message: string; fatal?: boolean }> }>;
    expect(yaml.code).toBe(1);
    if (major === 10) {
      expect(result!.messages.map((m) => `${m.line} ${m.ruleId}`).sort()).toEqual([
        '1 safe-retry/max-retry-duration',
        '1 safe-retry/no-retry-on-client-error',
        '2 safe-retry/max-retry-attempts',
        '4 safe-retry/require-exponential-backoff',
      ]);
    } else {
      // Without yaml-eslint-parser the plugin still loads; the YAML file gets one clear message.
      expect(result!.messages).toHaveLength(1);
      expect(result!.messages[0]).toMatchObject({ fatal: true, ruleId: null });
      expect(result!.messages[0]!.message).toMatch(/yaml-eslint-parser, which is not installed/);
    }
  }, 2 * MINUTES);

  it('type-checks a TypeScript consumer of ".", "./runtime" and "./formatter-rdjson", presets in a typed config included', async () => {
    const tsc = await run(process.execPath, [path.join(project, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], project);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);
  }, 3 * MINUTES);
});
