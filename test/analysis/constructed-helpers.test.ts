/**
 * Method helpers called on an instance built with `new Owner(args)` (issue 14, options that
 * travel): the fields the constructor sets from its parameters take the construction's arguments.
 * Same file and a class another file exports (@actions/tool-cache's RetryHelper shape).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { clearModuleCache } from '../../src/analysis/wrappers/index.js';
import { analyse, lint } from '../helpers/model.js';
import { lintAt } from '../helpers/lint-at.js';
import { temporaryProjects } from '../helpers/project.js';

const HELPER = `
export class RetryHelper {
  private maxAttempts: number;
  private minSeconds: number;
  private maxSeconds: number;
  constructor(maxAttempts: number, minSeconds: number, maxSeconds: number) {
    this.maxAttempts = maxAttempts;
    this.minSeconds = Math.floor(minSeconds);
    this.maxSeconds = Math.floor(maxSeconds);
  }
  async execute<T>(action: () => Promise<T>): Promise<T> {
    let attempt = 1;
    while (attempt < this.maxAttempts) {
      try {
        return await action();
      } catch (err) {
        console.log(err);
      }
      const seconds = this.getSleepAmount();
      await this.sleep(seconds);
      attempt++;
    }
    return await action();
  }
  private getSleepAmount(): number {
    return Math.floor(Math.random() * (this.maxSeconds - this.minSeconds + 1)) + this.minSeconds;
  }
  private async sleep(seconds: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  }
}
`;

const rules = (code: string) => lint(code).map((f) => `${f.line} ${f.rule}`);

describe('a method helper called on an instance built here', () => {
  beforeEach(() => clearModuleCache());

  it('reads the constructor\'s arguments into the fields: 3 calls with 10-20 s waits are the call\'s finding', () => {
    const code = `${HELPER}\nexport async function download(url: string) {\n  const helper = new RetryHelper(3, 10, 20);\n  return helper.execute(async () => fetch(url));\n}\n`;
    const call = analyse(code).find((s) => s.library === 'wrapper:execute');
    expect(call).toMatchObject({ attempts: 3, jitter: true });
    expect(rules(code)).toContain('35 max-retry-duration');
  });

  it('called at once on the construction, too', () => {
    const code = `${HELPER}\nexport const get = (url: string) => new RetryHelper(8, 0, 0).execute(async () => fetch(url));\n`;
    expect(analyse(code).find((s) => s.library === 'wrapper:execute')).toMatchObject({ attempts: 8 });
    expect(rules(code)).toContain('33 max-retry-attempts');
  });

  it('look-alikes: an argument the caller does not pass as a known value stays unknown; small numbers stay silent', () => {
    const unknownCount = `${HELPER}\nexport async function download(url: string, n: number) {\n  return new RetryHelper(n, 10, 20).execute(async () => fetch(url));\n}\n`;
    expect(analyse(unknownCount).find((s) => s.library === 'wrapper:execute')).toMatchObject({ attempts: 'unknown' });
    expect(rules(unknownCount).filter((r) => /max-retry-(duration|attempts)/.test(r))).toEqual([]);
    const small = `${HELPER}\nexport async function download(url: string) {\n  return new RetryHelper(3, 0, 1).execute(async () => fetch(url));\n}\n`;
    expect(rules(small).filter((r) => /max-retry-(duration|attempts)/.test(r))).toEqual([]);
  });

  it('the helper alone (no construction read) keeps its fields unknown', () => {
    expect(analyse(HELPER)[0]).toMatchObject({ attempts: 'unknown' });
    expect(rules(HELPER).filter((r) => /max-retry-(duration|attempts)/.test(r))).toEqual([]);
  });
});

describe('a method helper of a class another file exports', () => {
  const project = temporaryProjects('safe-retry-constructed-');
  beforeEach(() => clearModuleCache());

  const CALLER = (args: string) => `import { RetryHelper } from './retry-helper.js';
export async function download(url: string) {
  const retryHelper = new RetryHelper(${args});
  return await retryHelper.execute(async () => fetch(url));
}
`;

  it('is read with the construction\'s arguments at the call', () => {
    const code = CALLER('3, 10, 20');
    const at = project({ 'src/retry-helper.ts': HELPER, 'src/tool.ts': code });
    expect(lintAt(code, at('src/tool.ts'))).toContain('4 max-retry-duration');
  });

  it('through a re-export, and as a default export', () => {
    const code = CALLER('3, 10, 20').replace("'./retry-helper.js'", "'./index.js'");
    const at = project({ 'src/retry-helper.ts': HELPER, 'src/index.ts': "export { RetryHelper } from './retry-helper.js';\n", 'src/tool.ts': code });
    expect(lintAt(code, at('src/tool.ts'))).toContain('4 max-retry-duration');
    const byDefault = CALLER('3, 10, 20').replace('{ RetryHelper }', 'RetryHelper');
    const at2 = project({ 'src/retry-helper.ts': HELPER.replace('export class', 'export default class'), 'src/tool.ts': byDefault });
    expect(lintAt(byDefault, at2('src/tool.ts'))).toContain('4 max-retry-duration');
  });

  it('look-alikes stay silent: arguments not known here, a name written again', () => {
    const unknownWait = CALLER('3, settings.min, settings.max');
    const at = project({ 'src/retry-helper.ts': HELPER, 'src/tool.ts': unknownWait });
    expect(lintAt(unknownWait, at('src/tool.ts')).filter((r) => /max-retry-(duration|attempts)/.test(r))).toEqual([]);
    const rewritten = CALLER('3, 10, 20').replace('const retryHelper', 'let retryHelper').replace('  return await', '  retryHelper = other();\n  return await');
    const at2 = project({ 'src/retry-helper.ts': HELPER, 'src/tool.ts': rewritten });
    expect(lintAt(rewritten, at2('src/tool.ts')).filter((r) => /max-retry-(duration|attempts)/.test(r))).toEqual([]);
  });
});

describe('arguments computed by a function of the caller\'s file', () => {
  const GET_GLOBAL = `function getGlobal<T>(key: string, fallback: T): T {
  const value = (global as any)[key] as T | undefined;
  return value !== undefined ? value : fallback;
}
`;
  const download = (min: string, max: string) => `${HELPER}\n${GET_GLOBAL}export async function download(url: string) {
  const minSeconds = ${min};
  const maxSeconds = ${max};
  return new RetryHelper(3, minSeconds, maxSeconds).execute(async () => fetch(url));
}
`;
  const durationOrAttempts = (code: string) => rules(code).filter((r) => /max-retry-(duration|attempts)/.test(r));

  it('follows the function, a global only tests set (TEST_…) read as unset: the 10-20 s waits are reported', () => {
    const code = download("getGlobal<number>('TEST_RETRY_MIN_SECONDS', 10)", "getGlobal<number>('TEST_RETRY_MAX_SECONDS', 20)");
    expect(analyse(code).find((s) => s.library === 'wrapper:execute')).toMatchObject({ attempts: 3, initialMs: 10_000 });
    expect(durationOrAttempts(code)).toEqual(['40 max-retry-duration']);
    const dotted = download('(globalThis as any).TEST_MIN ?? 10', "getGlobal('TEST_MAX', 20)");
    expect(analyse(dotted).find((s) => s.library === 'wrapper:execute')).toMatchObject({ initialMs: 10_000 });
  });

  it('reads a library option written the same way: a function of the file followed at the call', () => {
    const code = `import pRetry from 'p-retry';
function retriesFor(kind: string) { return kind === 'upload' ? 10 : 3; }
export const upload = () => pRetry(() => fetch('/files'), { retries: retriesFor('upload') });
export const list = (n: number) => pRetry(() => fetch('/files'), { retries: retriesFor(String(n)) });
`;
    expect(analyse(code).map((s) => s.attempts)).toEqual([11, 'unknown']);
    expect(durationOrAttempts(code)).toEqual(['3 max-retry-duration', '3 max-retry-attempts']);
  });

  it('look-alikes stay unknown: another global, an environment variable, a function of another module', () => {
    for (const [min, max] of [
      ["getGlobal('RETRY_MIN_SECONDS', 10)", "getGlobal('RETRY_MAX_SECONDS', 20)"],
      ["Number(process.env.TEST_MIN ?? 10)", "Number(process.env.TEST_MAX ?? 20)"],
      ["settings.get('TEST_MIN', 10)", "settings.get('TEST_MAX', 20)"],
    ]) {
      const code = download(min!, max!);
      expect(analyse(code).find((s) => s.library === 'wrapper:execute'), min).toMatchObject({ attempts: 3, initialMs: 'unknown' });
      expect(durationOrAttempts(code), min).toEqual([]);
    }
  });
});
