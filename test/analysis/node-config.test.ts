/**
 * node-config settings (the `config` package) read from the project's `config/` directory: a value
 * only `default.{json,yaml,yml}` sets is what every deployment runs with; one that a deployment,
 * host, local or custom-environment-variables file also sets (or a directory this reader cannot
 * read) stays unknown, so nothing is reported from it.
 */
import { writeFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { clearNodeConfigCache } from '../../src/analysis/node-config.js';
import { clearModuleCache, FRESH_MS } from '../../src/analysis/wrappers/index.js';
import { temporaryProjects } from '../helpers/project.js';
import { lintAt } from '../helpers/lint-at.js';

const project = temporaryProjects('safe-retry-node-config-');

const PACKAGE = JSON.stringify({ name: 'svc', dependencies: { config: '^3.3.11' } });

/** A loop bounded by a setting, with jittered exponential waits: only the count can be wrong. */
const loop = (header: string, bound: string) => `
${header}
import { setTimeout as sleep } from 'node:timers/promises';
export async function load(url: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url);
    } catch (error) {
      if (attempt >= ${bound}) throw error;
      await sleep(Math.random() * 100 * 2 ** attempt);
    }
  }
}
`;

/** The count findings only: the waits of `loop` grow with the count, so the time may be judged too. */
const lint = (code: string, file: string) => lintAt(code, file).filter((f) => /max-retry-(attempts|duration)/.test(f));

const DEFAULT_YAML = 'retry:\n  attempts: 8\n  delayMs: 100\nmaxRetries: 9\n';

describe('node-config values', () => {
  beforeEach(() => {
    clearModuleCache();
    clearNodeConfigCache();
  });

  it('reads config.get(path), member chains and named imports from config/default.yaml', () => {
    const at = project({ 'package.json': PACKAGE, 'config/default.yaml': DEFAULT_YAML, 'config/test.yaml': 'retry:\n  delayMs: 1\n', 'src/a.ts': '' });
    expect(lint(loop(`import config from 'config';`, `config.get<number>('retry.attempts')`), at('src/a.ts'))).toContain('9 max-retry-attempts');
    expect(lint(loop(`import config from 'config';`, `config.retry.attempts`), at('src/a.ts'))).toContain('9 max-retry-attempts');
    expect(lint(loop(`import * as config from 'config';`, `Number(config.get('maxRetries'))`), at('src/a.ts'))).toContain('9 max-retry-attempts');
    expect(lint(loop(`import { maxRetries } from 'config';`, `maxRetries`), at('src/a.ts'))).toContain('9 max-retry-attempts');
    expect(lint(loop(`const { retry } = require('config');`, `retry.attempts`), at('src/a.ts'))).toContain('9 max-retry-attempts');
  });

  it('reads a library option written from a setting', () => {
    const at = project({ 'package.json': PACKAGE, 'config/default.yml': 'retry:\n  retries: 9\n', 'src/a.ts': '' });
    const code = `import config from 'config';\nimport pRetry from 'p-retry';\nexport const get = () => pRetry(() => fetch('/x'), { retries: config.get('retry.retries'), randomize: true });\n`;
    expect(lint(code, at('src/a.ts'))).toContain('3 max-retry-attempts');
  });

  it('reads config/default.json', () => {
    const at = project({ 'package.json': PACKAGE, 'config/default.json': JSON.stringify({ retry: { attempts: 12 } }), 'src/a.ts': '' });
    expect(lint(loop(`import config from 'config';`, `config.get('retry.attempts')`), at('src/a.ts'))).toContain('9 max-retry-attempts');
  });

  it('keeps a key another file leaves alone, next to one it overrides', () => {
    const at = project({ 'package.json': PACKAGE, 'config/default.yaml': DEFAULT_YAML, 'config/production.yaml': 'retry:\n  delayMs: 500\n', 'src/a.ts': '' });
    expect(lint(loop(`import config from 'config';`, `config.get('retry.attempts')`), at('src/a.ts'))).toContain('9 max-retry-attempts');
  });

  it('stays silent on a key a deployment, local or environment-variables file also sets', () => {
    const source = loop(`import config from 'config';`, `config.get('retry.attempts')`);
    for (const [name, text] of [
      ['production.yaml', 'retry:\n  attempts: 3\n'],
      ['local.json', JSON.stringify({ retry: { attempts: 3 } })],
      ['custom-environment-variables.yaml', 'retry:\n  attempts: RETRY_ATTEMPTS\n'],
      ['staging.yml', 'retry: 3\n'],
    ] as const) {
      const at = project({ 'package.json': PACKAGE, 'config/default.yaml': DEFAULT_YAML, [`config/${name}`]: text, 'src/a.ts': '' });
      expect(lint(source, at('src/a.ts')), name).toEqual([]);
    }
  });

  it('stays silent when the directory or the project cannot be read soundly', () => {
    const source = loop(`import config from 'config';`, `config.get('retry.attempts')`);
    const cases: Record<string, string>[] = [
      // A file this reader does not parse may override anything.
      { 'config/production.js': 'module.exports = {};' },
      { 'config/default.json5': '{ retry: { attempts: 3 } }' },
      // Unparseable, multi-document, a JSON default with comments (node-config reads it as JSON5).
      { 'config/default.yaml': 'retry: [unclosed\n' },
      { 'config/default.yaml': 'retry:\n  attempts: 8\n---\nretry:\n  attempts: 2\n' },
      { 'config/default.yaml': '', 'config/default.json': '{ /* c */ "retry": { "attempts": 8 } }' },
      // The package does not depend on node-config, or its scripts move the directory.
      { 'package.json': JSON.stringify({ name: 'svc' }) },
      { 'package.json': JSON.stringify({ name: 'svc', dependencies: { config: '3' }, scripts: { start: 'NODE_CONFIG_DIR=./cfg node .' } }) },
      // A number YAML 1.1 and 1.2 read differently (octal, underscores, sexagesimal).
      { 'config/default.yaml': 'retry:\n  attempts: 010\n' },
      { 'config/default.yaml': 'retry:\n  attempts: 1_0\n' },
      { 'config/default.yaml': 'retry:\n  attempts: 8\n  window: 1:30\n' },
      // No default file at all.
      { 'config/default.yaml': '', 'config/production.yaml': 'retry:\n  attempts: 8\n' },
    ];
    for (const files of cases) {
      const base: Record<string, string> = { 'package.json': PACKAGE, 'config/default.yaml': DEFAULT_YAML, 'src/a.ts': '', ...files };
      for (const k of Object.keys(base)) if (base[k] === '' && k !== 'src/a.ts') delete base[k];
      const at = project(base);
      expect(lint(source, at('src/a.ts')), JSON.stringify(files)).toEqual([]);
    }
  });

  it('stays silent where the file changes the settings or moves the directory itself', () => {
    const at = project({ 'package.json': PACKAGE, 'config/default.yaml': DEFAULT_YAML, 'src/a.ts': '' });
    expect(lint(loop(`import config from 'config';\nconfig.util.extendDeep(config, { retry: { attempts: 2 } });`, `config.get('retry.attempts')`), at('src/a.ts'))).toEqual([]);
    expect(lint(loop(`import config from 'config';\n(config as any).retry.attempts = 2;`, `config.retry.attempts`), at('src/a.ts'))).toEqual([]);
    expect(lint(loop(`process.env.NODE_CONFIG_DIR = '/etc/svc';\nimport config from 'config';`, `config.get('retry.attempts')`), at('src/a.ts'))).toEqual([]);
  });

  it('leaves a config module of the project itself alone (a tsconfig baseUrl import)', () => {
    const at = project({
      'package.json': PACKAGE,
      'tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: 'src' } }),
      'config/default.yaml': DEFAULT_YAML,
      'src/config.ts': 'export default { get: (k: string) => 2 };',
      'src/a.ts': '',
    });
    expect(lint(loop(`import config from 'config';`, `config.get('retry.attempts')`), at('src/a.ts'))).toEqual([]);
    // The same through a tsconfig path alias, with no baseUrl.
    const aliased = project({
      'package.json': PACKAGE,
      'tsconfig.json': JSON.stringify({ compilerOptions: { paths: { config: ['./src/settings.ts'] } } }),
      'config/default.yaml': DEFAULT_YAML,
      'src/settings.ts': 'export default { get: (k: string) => 2 };',
      'src/a.ts': '',
    });
    expect(lint(loop(`import config from 'config';`, `config.get('retry.attempts')`), aliased('src/a.ts'))).toEqual([]);
  });

  it('sees an override written after a first read (an editor session)', async () => {
    const at = project({ 'package.json': PACKAGE, 'config/default.yaml': DEFAULT_YAML, 'src/a.ts': '' });
    const source = loop(`import config from 'config';`, `config.get('retry.attempts')`);
    expect(lint(source, at('src/a.ts'))).toContain('9 max-retry-attempts');
    writeFileSync(at('config/production.yaml'), 'retry:\n  attempts: 3\n');
    await new Promise((r) => setTimeout(r, FRESH_MS + 50));
    expect(lint(source, at('src/a.ts'))).toEqual([]);
  });

  it('reads a value that is not a number as nothing to judge', () => {
    const at = project({ 'package.json': PACKAGE, 'config/default.yaml': 'retry:\n  attempts: many\n', 'src/a.ts': '' });
    expect(lint(loop(`import config from 'config';`, `config.get('retry.attempts')`), at('src/a.ts'))).toEqual([]);
  });
});
