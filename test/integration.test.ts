/** The real ESLint class (what the CLI and the VS Code extension use) with the published presets. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const cwd = new URL('./fixtures/project/', import.meta.url).pathname;

async function lintProject(preset: 'recommended' | 'strict' | 'all') {
  // The built package, as a user's config would import it.
  const { default: safeRetry } = await import('../dist/index.js');
  const eslint = new ESLint({
    cwd,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as never } },
      { files: ['**/*.js'], languageOptions: { sourceType: 'commonjs' } },
      safeRetry.configs[preset] as never,
    ],
  });
  const results = await eslint.lintFiles(['src']);
  return results
    .flatMap((r) => r.messages.map((m) => `${r.filePath.slice(cwd.length)}:${m.line}:${m.column} ${m.ruleId}`))
    .sort();
}

describe('ESLint integration', () => {
  it('reports the fixture project with the recommended preset', async () => {
    expect(await lintProject('recommended')).toEqual([
      'src/orders.ts:9:48 safe-retry/max-retry-attempts',
      'src/orders.ts:9:60 safe-retry/require-exponential-backoff',
      'src/orders.ts:9:60 safe-retry/require-jitter',
      'src/orders.ts:1:20 safe-retry/no-legacy-retry',
      'src/orders.ts:2:19 safe-retry/no-legacy-retry',
      'src/orders.ts:9:10 safe-retry/max-retry-duration',
      'src/report.js:1:24 safe-retry/no-legacy-retry',
      'src/report.js:4:55 safe-retry/require-jitter',
    ].sort());
  });

  it('works the same under every preset for these rules', async () => {
    const all = await lintProject('all');
    expect(all).toEqual(expect.arrayContaining(await lintProject('recommended')));
  });

  it.each(['recommended', 'strict', 'all'] as const)('lints JavaScript and TypeScript with the %s preset alone, given no parser and no files', async (preset) => {
    const { default: safeRetry } = await import('../dist/index.js');
    const eslint = new ESLint({ cwd, overrideConfigFile: true, overrideConfig: [safeRetry.configs[preset] as never] });
    const results = await eslint.lintFiles(['.']);
    const found = results.flatMap((r) => r.messages.map((m) => `${r.filePath.slice(cwd.length)}:${m.line}:${m.column} ${m.ruleId}`));
    expect(found).toEqual(expect.arrayContaining(await lintProject('recommended')));
    expect(results.map((r) => r.filePath.slice(cwd.length)).sort()).toEqual(['src/orders.ts', 'src/report.js']);
  });
});

describe('the parser the presets carry', () => {
  it('parses JavaScript with ESLint\'s own parser: a JavaScript-only run never loads TypeScript', () => {
    // A fresh process: the module cache shows what linting JavaScript loaded.
    const script = `
      import { createRequire } from 'node:module';
      import { ESLint } from 'eslint';
      const { default: safeRetry } = await import(${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)});
      const eslint = new ESLint({ cwd: ${JSON.stringify(cwd)}, overrideConfigFile: true, overrideConfig: [safeRetry.configs.recommended] });
      const [result] = await eslint.lintFiles(['src/report.js']);
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => /[\\/]typescript[\\/]lib[\\/]typescript\.js$/.test(f));
      console.log(JSON.stringify({ rules: result.messages.map((m) => m.ruleId), loaded }));
    `;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: new URL('..', import.meta.url).pathname, encoding: 'utf8' })) as { rules: string[]; loaded: string[] };
    expect(out.rules).toEqual(['safe-retry/no-legacy-retry', 'safe-retry/require-jitter']);
    expect(out.loaded).toEqual([]);
  });

  it('parses JSX in .js files, as typescript-eslint\'s parser does, and CommonJS in .cjs', async () => {
    const { default: safeRetry } = await import('../dist/index.js');
    const eslint = new ESLint({ cwd, overrideConfigFile: true, overrideConfig: [safeRetry.configs.recommended as never, { rules: { 'no-undef': 'error' } }] });
    const [jsx] = await eslint.lintText("import { retry } from 'cockatiel';\nexport const A = () => <div>{String(retry)}</div>;\n", { filePath: `${cwd}src/view.js` });
    expect(jsx!.messages).toEqual([]);
    const [cjs] = await eslint.lintText("const { retry } = require('cockatiel');\nif (!retry) return;\nmodule.exports = {};\n", { filePath: `${cwd}src/script.cjs` });
    expect(cjs!.messages).toEqual([]);
  });
});

describe('recommended-type-checked on its own', () => {
  const root = new URL('./fixtures/typed-alone/', import.meta.url).pathname;

  /**
   * One `eslint` run in a fresh Node process, as a user's CI or editor starts it. In one process,
   * typescript-eslint remembers which files it parsed: in single-run mode (CI=true, or the eslint
   * CLI) a second parse of a file gets an isolated program holding that file alone, which is what an
   * `--fix` pass sees. Two configurations linted in one process would test that fallback, not the
   * configuration.
   */
  function lintTyped(parserOptions: object, singleRun: boolean): string[] {
    const script = `
      import { ESLint } from 'eslint';
      const { default: safeRetry } = await import(${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)});
      const root = ${JSON.stringify(root)};
      const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: [safeRetry.configs['recommended-type-checked'], { languageOptions: { parserOptions: ${JSON.stringify(parserOptions)} } }] });
      const results = await eslint.lintFiles(['.']);
      console.log(JSON.stringify(results.flatMap((r) => r.messages.map((m) => r.filePath.slice(root.length) + ':' + m.line + ' ' + (m.ruleId ?? m.message)))));
    `;
    const env = { ...process.env, CI: singleRun ? 'true' : '', TSESTREE_SINGLE_RUN: singleRun ? 'true' : 'false' };
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: new URL('..', import.meta.url).pathname, encoding: 'utf8', env });
    return (JSON.parse(out) as string[]).sort();
  }

  describe.each([
    ['in single-run mode, as in CI', true],
    ['with a long-lived program, as in an editor', false],
  ] as const)('%s', (_, singleRun) => {
    it('asks for the project service by itself, and lints JavaScript outside the tsconfig without type information', () => {
      expect(lintTyped({ tsconfigRootDir: root }, singleRun)).toEqual([
        'src/caller.ts:1 safe-retry/no-legacy-retry',
        // The POST is in another file, under a name that reads like a read: only the type checker sees it.
        'src/caller.ts:4 safe-retry/no-unsafe-write-retry',
        'src/refund.js:2 safe-retry/no-legacy-retry',
        'src/refund.js:5 safe-retry/no-unsafe-write-retry',
      ]);
    });

    it('uses a parserOptions.project of the config instead of the project service (typescript-eslint refuses both)', () => {
      expect(lintTyped({ project: './tsconfig.json', tsconfigRootDir: root }, singleRun)).toEqual([
        'src/caller.ts:1 safe-retry/no-legacy-retry',
        'src/caller.ts:4 safe-retry/no-unsafe-write-retry',
        'src/refund.js:2 safe-retry/no-legacy-retry',
        'src/refund.js:5 safe-retry/no-unsafe-write-retry',
      ]);
    });
  });

  it('reads a program holding one file alone (an --fix pass in single-run mode) as unknown, without a crash', async () => {
    // The second parse of a file in one single-run process gets an isolated program: the checker
    // cannot see the imported declaration (and throws inside TypeScript when asked), so the POST in
    // the other file is unknown and only what the syntax shows is reported.
    const { default: safeRetry } = await import('../dist/index.js');
    const previous = process.env['TSESTREE_SINGLE_RUN'];
    process.env['TSESTREE_SINGLE_RUN'] = 'true';
    try {
      const lint = async () => {
        const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: [safeRetry.configs['recommended-type-checked'] as never, { languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: root } } }] });
        const results = await eslint.lintFiles(['src/caller.ts']);
        return results.flatMap((r) => r.messages.map((m) => `${m.line} ${m.ruleId ?? m.message}`));
      };
      expect(await lint()).toEqual(['1 safe-retry/no-legacy-retry', '4 safe-retry/no-unsafe-write-retry']);
      expect(await lint()).toEqual(['1 safe-retry/no-legacy-retry']);
    } finally {
      if (previous === undefined) delete process.env['TSESTREE_SINGLE_RUN'];
      else process.env['TSESTREE_SINGLE_RUN'] = previous;
    }
  });

  it('finds only what the syntax shows with the syntactic preset', async () => {
    const { default: safeRetry } = await import('../dist/index.js');
    const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: [safeRetry.configs.recommended as never] });
    const results = await eslint.lintFiles(['.']);
    expect(results.flatMap((r) => r.messages.map((m) => `${r.filePath.slice(root.length)}:${m.line} ${m.ruleId}`))).toEqual(['src/caller.ts:1 safe-retry/no-legacy-retry', 'src/refund.js:2 safe-retry/no-legacy-retry', 'src/refund.js:5 safe-retry/no-unsafe-write-retry']);
  });
});

describe("the README's settings snippets", () => {
  // Each `settings: { ... }` block of the README, evaluated as written inside a config object.
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const fragments = [...readme.matchAll(/```js\n(settings: \{[\s\S]*?)\n```/g)].map((m) => m[1]!);

  async function lintWith(fragment: string | undefined, code: string) {
    const { default: safeRetry } = await import('../dist/index.js');
    const settings = fragment === undefined ? {} : (new Function(`return {\n${fragment}\n};`) as () => object)();
    const eslint = new ESLint({ cwd, overrideConfigFile: true, overrideConfig: [safeRetry.configs.recommended as never, settings as never] });
    const [result] = await eslint.lintText(code, { filePath: `${cwd}src/snippet.ts` });
    return result!.messages.map((m) => `${m.line} ${m.ruleId ?? m.message}`);
  }

  it('finds two of them', () => {
    expect(fragments).toHaveLength(2);
  });

  it('shared settings: writeFunctions and writeVerbs make a retried call a write', async () => {
    const fragment = fragments.find((f) => f.includes('writeFunctions'))!;
    const code = [
      "import pRetry from 'p-retry';",
      "import { ledger, provisionServer } from './ops.js';",
      'const opts = { retries: 2, minTimeout: 500, randomize: true };',
      'export const a = () => pRetry(() => ledger.apply({ id: 1 }), opts);',
      'export const b = () => pRetry(() => provisionServer(), opts);',
      '',
    ].join('\n');
    // p-retry itself is a legacy helper (R-RES-RE-X4), with or without the settings.
    expect(await lintWith(undefined, code)).toEqual(['1 safe-retry/no-legacy-retry']);
    expect(await lintWith(fragment, code)).toEqual(['1 safe-retry/no-legacy-retry', '4 safe-retry/no-unsafe-write-retry', '5 safe-retry/no-unsafe-write-retry']);
  });

  it('wrappers: calls to the declared helper are judged like a library', async () => {
    const fragment = fragments.find((f) => f.includes('wrappers'))!;
    const code = [
      "import { withRetry } from '@acme/http';",
      "export const load = () => withRetry(() => fetch('/report'), { retries: 10, jitter: true });",
      '',
    ].join('\n');
    expect(await lintWith(undefined, code)).toEqual([]);
    expect(await lintWith(fragment, code)).toEqual(expect.arrayContaining(['2 safe-retry/max-retry-attempts']));
  });
});
