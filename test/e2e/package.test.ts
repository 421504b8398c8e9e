/**
 * The published package, used the way a person uses it: `npm pack`, install the tarball into a
 * fresh project with npm (once with ESLint 9, once with ESLint 10), configure it with each
 * eslint.config.js of the README exactly as written there, and run the README's commands: the real
 * `eslint` CLI, its formatters, the zero-config bin through `npx` (also where the plugin is not
 * installed at all) and a TypeScript consumer compile. Needs the built dist (npm test builds first)
 * and the npm registry; the installs take a while, hence the long timeouts.
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
const SARIF_FORMATTER = '3.1.0';
const MINUTES = 60_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A user's shell: without the node_modules/.bin directories `npm test` puts on PATH (the bin looks
 * for yaml-eslint-parser there, where npx puts its packages); npx installs what a project lacks
 * (the answer to its prompt is yes, whatever this machine's npmrc says), from the npm cache first,
 * as the installs here do.
 */
const userEnv = {
  ...process.env,
  PATH: (process.env['PATH'] ?? '').split(path.delimiter).filter((dir) => !/node_modules[\\/]\.bin/.test(dir)).join(path.delimiter),
  NO_COLOR: '1',
  npm_config_prefer_offline: 'true',
  npm_config_yes: 'true',
};

function run(command: string, args: string[], cwd: string, timeout = 5 * MINUTES): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout, maxBuffer: 64 * 1024 * 1024, env: userEnv }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx_ = process.platform === 'win32' ? 'npx.cmd' : 'npx';

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
  // Planted bugs: a retried POST without an idempotency key, in TypeScript and in JavaScript.
  'src/payments.ts': [
    "import pRetry from 'p-retry';",
    '',
    'export async function charge(amount: number): Promise<Response> {',
    "  return pRetry(() => fetch('https://payments.example.com/charges', { method: 'POST', body: JSON.stringify({ amount }) }), { retries: 2, minTimeout: 500, randomize: true });",
    '}',
    '',
  ].join('\n'),
  'src/refunds.js': [
    "import pRetry from 'p-retry';",
    '',
    'export const refund = (id) =>',
    "  pRetry(() => fetch(`https://payments.example.com/refunds/${id}`, { method: 'POST' }), { retries: 2, minTimeout: 500, randomize: true });",
    '',
  ].join('\n'),
  // A POST only the type checker sees: fetchLedgerToken's name reads like a read (the syntax trusts
  // a read verb and does not follow it), its body posts.
  'src/ledger.ts': [
    'export async function fetchLedgerToken(entry: { id: string }): Promise<Response> {',
    "  return fetch('https://ledger.example.com/entries', { method: 'POST', body: JSON.stringify(entry) });",
    '}',
    '',
  ].join('\n'),
  'src/sync.ts': [
    "import pRetry from 'p-retry';",
    "import { fetchLedgerToken } from './ledger.js';",
    '',
    "export const sync = () => pRetry(() => fetchLedgerToken({ id: '1' }), { retries: 2, minTimeout: 500, randomize: true });",
    '',
  ].join('\n'),
  // Outside src/: found by every config except the one limited to src/.
  'scripts/seed.js': [
    "import pRetry from 'p-retry';",
    '',
    "await pRetry(() => fetch('https://seed.example.com/ping'), { retries: 9, minTimeout: 50, maxTimeout: 300, randomize: true });",
    '',
  ].join('\n'),
  'lib/format.js': "export const format = (n) => n.toFixed(2);\n",
  // Typed linting: one tsconfig for the code, at the root (`tsconfigRootDir` is tested from src/).
  'tsconfig.json': JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: [], lib: ['ES2022', 'DOM'] },
    include: ['src', 'types'],
  }, null, 2),
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
    "export const limited = defineConfig({ files: ['src/**'], extends: [safeRetry.configs['recommended-type-checked']] });",
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
  // Spring Boot YAML for the resilience4j preset (outside src/, so the bin's `src` run stays code-only).
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
  'tsconfig.consumer.json': JSON.stringify({
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

/** What the syntactic presets find in the app, as `file:line rule`. */
const FOUND = [
  // p-retry itself is a legacy helper (R-RES-RE-X4): reported at each import.
  'scripts/seed.js:1 safe-retry/no-legacy-retry',
  'scripts/seed.js:3 safe-retry/max-retry-attempts',
  'src/catalogue.ts:1 safe-retry/no-legacy-retry',
  'src/legacy.ts:1 safe-retry/no-legacy-retry',
  'src/orders.ts:1 safe-retry/no-legacy-retry',
  'src/orders.ts:9 safe-retry/max-retry-attempts',
  'src/orders.ts:9 safe-retry/max-retry-duration',
  'src/orders.ts:9 safe-retry/require-exponential-backoff',
  'src/orders.ts:9 safe-retry/require-jitter',
  'src/payments.ts:1 safe-retry/no-legacy-retry',
  'src/payments.ts:4 safe-retry/no-unsafe-write-retry',
  'src/refunds.js:1 safe-retry/no-legacy-retry',
  'src/refunds.js:4 safe-retry/no-unsafe-write-retry',
  'src/sync.ts:1 safe-retry/no-legacy-retry',
];
/** What only the type checker finds. */
const FOUND_WITH_TYPES = ['src/sync.ts:4 safe-retry/no-unsafe-write-retry'];
/** The Spring file, with the resilience4j preset. */
const FOUND_IN_YAML = [
  'config/application.yml:1 safe-retry/max-retry-duration',
  'config/application.yml:1 safe-retry/no-retry-on-client-error',
  'config/application.yml:2 safe-retry/max-retry-attempts',
  'config/application.yml:4 safe-retry/require-exponential-backoff',
  'config/application.yml:4 safe-retry/require-jitter',
];

/** Every `// eslint.config.js` block of the README, as written there. */
const README_CONFIGS = [...readFileSync(path.join(repo, 'README.md'), 'utf8').matchAll(/```js\n(\/\/ eslint\.config\.js\n[\s\S]*?)```/g)].map((m) => m[1]!);

/** What each README config must find: it names the files it lints and the bugs planted there. */
function expectedFor(config: string, major: 9 | 10): { found: string[]; yamlRefused?: boolean } {
  if (config.includes("files: ['src/**']")) return { found: FOUND.filter((f) => f.startsWith('src/')) };
  if (config.includes("'recommended-type-checked'")) return { found: [...FOUND, ...FOUND_WITH_TYPES].sort() };
  if (config.includes('configs.resilience4j')) {
    // Without the optional yaml-eslint-parser (the ESLint 9 project), the YAML file gets one clear error.
    return major === 10 ? { found: [...FOUND, ...FOUND_IN_YAML].sort() } : { found: FOUND, yamlRefused: true };
  }
  return { found: FOUND };
}

interface Message { ruleId: string | null; line: number; message: string; fatal?: boolean; suggestions?: unknown[] }
interface Result { filePath: string; messages: Message[] }

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
  const npx = (args: string[], cwd = project) => run(npx_, args, cwd);
  const findingsOf = (results: Result[], root = project) =>
    results.flatMap((r) => r.messages.filter((m) => m.ruleId?.startsWith('safe-retry/')).map((m) => `${path.relative(root, r.filePath)}:${m.line} ${m.ruleId}`)).sort();

  beforeAll(async () => {
    project = mkdtempSync(path.join(tmpdir(), `safe-retry-e2e-eslint${major}-`));
    workDirs.push(project);
    for (const [file, text] of Object.entries(APP)) {
      mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
      writeFileSync(path.join(project, file), text);
    }
    README_CONFIGS.forEach((config, i) => writeFileSync(path.join(project, `readme-${i + 1}.config.js`), config));
    // The project's own config: the README's setup next to typescript-eslint.
    writeFileSync(path.join(project, 'eslint.config.js'), README_CONFIGS.find((c) => c.includes("from 'typescript-eslint'"))!);
    // The README's install command, with the packed tarball for the package name and pinned versions.
    const install = await run(npm, [
      'install', '--save-dev', '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline',
      `eslint@${ESLINT_VERSIONS[major]}`,
      tarball,
      `typescript-eslint@${TYPESCRIPT_ESLINT}`,
      `typescript@${TYPESCRIPT}`,
      `@types/node@${TYPES_NODE}`,
      `@microsoft/eslint-formatter-sarif@${SARIF_FORMATTER}`,
      // The optional peer: installed with ESLint 10 only, so both sides of "optional" are tested.
      ...(major === 10 ? [`yaml-eslint-parser@${YAML_ESLINT_PARSER}`] : []),
    ], project, 10 * MINUTES);
    expect(install.code, install.stderr).toBe(0);
    const installed = JSON.parse(readFileSync(path.join(project, 'node_modules/eslint/package.json'), 'utf8')) as { version: string };
    expect(installed.version).toBe(ESLINT_VERSIONS[major]);
  }, 12 * MINUTES);

  it('has the README configs to test: install, typescript-eslint, some files, type-checked, resilience4j', () => {
    expect(README_CONFIGS).toHaveLength(5);
    for (const config of README_CONFIGS) expect(config).toMatch(/^import \{ defineConfig \} from 'eslint\/config';$/m);
  });

  it.each(README_CONFIGS.map((config, i) => [i + 1, config.split('\n').find((l) => l.startsWith('export default'))!, config] as const))(
    'README config %i (%s) lints the files it claims and finds the planted bugs',
    async (i, _title, config) => {
      const lint = await eslint('-c', `readme-${i}.config.js`, '-f', 'json', '.');
      expect(lint.code, lint.stderr).toBe(1);
      const results = JSON.parse(lint.stdout) as Result[];
      const { found, yamlRefused } = expectedFor(config, major);
      expect(findingsOf(results)).toEqual(found);
      const fatal = results.flatMap((r) => r.messages.filter((m) => m.fatal).map((m) => `${path.relative(project, r.filePath)}: ${m.message}`));
      if (yamlRefused) {
        expect(fatal).toHaveLength(1);
        expect(fatal[0]).toMatch(/^config\/application\.yml: .*yaml-eslint-parser, which is not installed/);
      } else {
        expect(fatal).toEqual([]);
      }
    },
    2 * MINUTES,
  );

  it('type-checked: tsconfig.json is found from the config directory when eslint runs in a subdirectory', async () => {
    const typed = README_CONFIGS.findIndex((c) => c.includes("'recommended-type-checked'")) + 1;
    const lint = await run(process.execPath, [path.join(project, 'node_modules/eslint/bin/eslint.js'), '-c', `../readme-${typed}.config.js`, '-f', 'json', '.'], path.join(project, 'src'));
    expect(lint.code, lint.stderr).toBe(1);
    const results = JSON.parse(lint.stdout) as Result[];
    expect(results.flatMap((r) => r.messages.filter((m) => m.fatal))).toEqual([]);
    expect(findingsOf(results)).toEqual([...FOUND, ...FOUND_WITH_TYPES].filter((f) => f.startsWith('src/')).sort());
  }, 2 * MINUTES);

  it("runs the README's CI commands: npx eslint . --max-warnings 0, TIMING=1, and the SARIF formatter", async () => {
    const ci = await npx(['eslint', '.', '--max-warnings', '0']);
    expect(ci.code, ci.stderr).toBe(1);
    expect(ci.stdout).toMatch(/\(R-RES-RE-3\)/);
    const timing = await run('sh', ['-c', 'TIMING=1 npx eslint .'], project);
    expect(timing.stdout).toMatch(/^Rule +\| Time \(ms\) \| Relative/m);
    expect(timing.stdout).toMatch(/^safe-retry\/[a-z-]+ +\|/m);
    const sarif = await npx(['eslint', '.', '-f', '@microsoft/eslint-formatter-sarif', '-o', 'eslint.sarif']);
    expect(sarif.code, sarif.stderr).toBe(1);
    const log = JSON.parse(readFileSync(path.join(project, 'eslint.sarif'), 'utf8')) as { runs: Array<{ results: Array<{ ruleId: string }> }> };
    expect(log.runs[0]!.results.map((r) => r.ruleId)).toEqual(expect.arrayContaining(['safe-retry/max-retry-attempts', 'safe-retry/no-unsafe-write-retry']));
  }, 3 * MINUTES);

  it('--fix changes nothing: every fix the plugin offers is a suggestion, not an autofix', async () => {
    const files = Object.keys(APP);
    const before = Object.fromEntries(files.map((f) => [f, readFileSync(path.join(project, f), 'utf8')]));
    const dry = await eslint('.', '--fix-dry-run', '-f', 'json');
    const dryResults = JSON.parse(dry.stdout) as Array<{ output?: string }>;
    expect(dryResults.filter((r) => r.output !== undefined)).toEqual([]);
    const fixed = await eslint('.', '--fix');
    expect(fixed.code).toBe(1); // the findings remain for a person to decide
    for (const [file, text] of Object.entries(before)) expect(readFileSync(path.join(project, file), 'utf8'), file).toBe(text);
  }, 2 * MINUTES);

  it('formats rdjson through the formatter file that the README names, suggestions included', async () => {
    const rdjson = await eslint('.', '-f', './node_modules/eslint-plugin-safe-retry/dist/formatters/rdjson.js');
    expect(rdjson.code, rdjson.stderr).toBe(1);
    const output = JSON.parse(rdjson.stdout) as { diagnostics: Array<{ code?: { value: string }; location: { path: string; range?: { start: { line: number } } }; suggestions?: Array<{ range: { start: { line: number }; end?: { line: number } }; text: string }> }> };
    expect(rdjsonErrors(output)).toEqual([]);
    expect(output.diagnostics.map((d) => `${d.location.path}:${d.location.range?.start.line} ${d.code?.value}`).sort()).toEqual(FOUND);
    // The max-retry-attempts finding on src/orders.ts line 9 carries its fix as whole line 9.
    const attempts = output.diagnostics.find((d) => d.code?.value === 'safe-retry/max-retry-attempts' && d.location.path === 'src/orders.ts')!;
    expect(attempts.suggestions).toHaveLength(1);
    expect(attempts.suggestions![0]!.range).toEqual({ start: { line: 9 }, end: { line: 9 } });
    expect(attempts.suggestions![0]!.text).toMatch(/^ {2}const response = await pRetry\(.*\);$/);
    expect(attempts.suggestions![0]!.text).not.toContain('retries: 9');
    // ESLint reads a `-f` value containing '/' as a path, so the package subpath is not a CLI name
    // (the README says so); it stays importable for the Node API.
    const bySubpath = await eslint('.', '-f', 'eslint-plugin-safe-retry/formatter-rdjson');
    expect(bySubpath.code).toBe(2);
    expect(bySubpath.stderr).toMatch(/problem loading formatter/);
    const imported = await run(process.execPath, ['--input-type=module', '-e', "import f from 'eslint-plugin-safe-retry/formatter-rdjson'; console.log(typeof f)"], project);
    expect(imported.stdout.trim()).toBe('function');
  }, 2 * MINUTES);

  it("runs the README's zero-config commands through npx on the installed package", async () => {
    const whole = await npx(['-p', 'eslint-plugin-safe-retry', 'safe-retry-check']);
    expect(whole.code, whole.stderr).toBe(1);
    expect(whole.stdout).toMatch(/^R-RES-RE-3 {2}at most 5 attempts, 3 typical {2}\(\d+\)$/m);
    for (const finding of FOUND) expect(whole.stdout).toContain(`${finding.split(' ')[0]}:`);
    if (major === 10) {
      expect(whole.stdout).toContain('config/application.yml:2:');
      expect(whole.stderr).toBe('');
    } else {
      // The optional parser is missing: the Spring file is named as not checked, not skipped in silence.
      expect(whole.stdout).not.toContain('config/application.yml');
      expect(whole.stderr).toMatch(/1 Spring application\*\.yml file was not checked: yaml-eslint-parser is not installed\n {2}config\/application\.yml\n/);
      const springOnly = await npx(['-p', 'eslint-plugin-safe-retry', 'safe-retry-check', 'config']);
      expect(springOnly.code).toBe(2);
      expect(springOnly.stderr).toContain('  config: only Spring application*.yml, not checked without yaml-eslint-parser\n');
    }

    const paths = await npx(['-p', 'eslint-plugin-safe-retry', 'safe-retry-check', 'src', 'lib']);
    expect(paths.code, paths.stderr).toBe(1);
    expect(paths.stdout).not.toMatch(/scripts\/|config\//);
    expect(paths.stdout.trimEnd().split('\n').at(-1)).toMatch(/^\d+ problems \(\d+ errors, 0 warnings\) in 6 of 8 files checked/);

    // npx puts yaml-eslint-parser in its own cache when the project lacks it; the bin finds it there.
    const withYaml = await npx(['-p', 'eslint-plugin-safe-retry', '-p', 'yaml-eslint-parser', 'safe-retry-check', 'config']);
    expect(withYaml.code, withYaml.stderr).toBe(1);
    expect(withYaml.stdout).toContain("config/application.yml:2:3  error  Resilience4j retry instance 'sber' makes up to 10 calls in total");

    const sarif = await run('sh', ['-c', 'npx -p eslint-plugin-safe-retry safe-retry-check --format sarif > eslint.sarif'], project);
    expect(sarif.code, sarif.stderr).toBe(1);
    const log = JSON.parse(readFileSync(path.join(project, 'eslint.sarif'), 'utf8')) as { runs: Array<{ results: Array<{ locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }> }> }> };
    expect(log.runs[0]!.results.map((r) => r.locations[0]!.physicalLocation.artifactLocation.uri)).toContain('src/orders.ts');
  }, 5 * MINUTES);

  it('lints Spring YAML with the resilience4j preset, or says which optional peer is missing', async () => {
    const yaml = await eslint('-c', 'eslint.yaml.config.js', '-f', 'json', 'config/application.yml');
    const [result] = JSON.parse(yaml.stdout) as Result[];
    expect(yaml.code).toBe(1);
    if (major === 10) {
      expect(findingsOf([result!])).toEqual(FOUND_IN_YAML);
    } else {
      // Without yaml-eslint-parser the plugin still loads; the YAML file gets one clear message.
      expect(result!.messages).toHaveLength(1);
      expect(result!.messages[0]).toMatchObject({ fatal: true, ruleId: null });
      expect(result!.messages[0]!.message).toMatch(/yaml-eslint-parser, which is not installed/);
    }
  }, 2 * MINUTES);

  it('type-checks a TypeScript consumer of ".", "./runtime" and "./formatter-rdjson", presets in a typed config included', async () => {
    const tsc = await run(process.execPath, [path.join(project, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.consumer.json'], project);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);
  }, 3 * MINUTES);
});

describe('the zero-config check where the plugin is not installed (npx installs it)', () => {
  let bare: string;

  beforeAll(() => {
    bare = mkdtempSync(path.join(tmpdir(), 'safe-retry-e2e-npx-'));
    workDirs.push(bare);
    for (const file of ['src/orders.ts', 'src/refunds.js', 'config/application.yml']) {
      mkdirSync(path.dirname(path.join(bare, file)), { recursive: true });
      writeFileSync(path.join(bare, file), APP[file]!);
    }
  });

  // The README's commands, with the packed tarball for the package name (it is not published yet).
  it.each([
    [false, ['-p', 'TARBALL', 'safe-retry-check']],
    [true, ['-p', 'TARBALL', '-p', 'yaml-eslint-parser', 'safe-retry-check']],
  ] as const)('checks code (and Spring YAML: %s) from npx\'s cache', async (withYaml, args) => {
    const check = await run(npx_, args.map((a) => (a === 'TARBALL' ? tarball : a)), bare, 10 * MINUTES);
    expect(check.code, check.stderr).toBe(1);
    expect(check.stdout).toContain('src/orders.ts:9:');
    expect(check.stdout).toContain('src/refunds.js:4:');
    if (withYaml) expect(check.stdout).toContain('config/application.yml:2:3');
    else expect(check.stderr).toMatch(/Spring application\*\.yml file was not checked/);
  }, 12 * MINUTES);
});
