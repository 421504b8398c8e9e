// The evaluator's shortcut that settles "never a function" from declarations must agree with the
// evaluator itself: wherever it says so, a full static evaluation gives no function.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tsParser from '@typescript-eslint/parser';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import { createEvaluator } from '../../src/analysis/eval/evaluator.js';
import { isStaticFunction } from '../../src/analysis/eval/values.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

interface Verdicts {
  names: number;
  settled: number;
  /** Names the shortcut calls never a function that evaluate to one. */
  wrong: string[];
  /** Names that evaluate to a function, by source text. */
  functions: string[];
  /** Names the shortcut settled, by source text. */
  settledText: string[];
}

/** Every identifier and member expression read as a value in `code`, judged both ways. */
function judge(code: string, filename: string): Verdicts {
  const out: Verdicts = { names: 0, settled: 0, wrong: [], functions: [], settledText: [] };
  const linter = new Linter({ configType: 'flat' });
  const rule: TSESLint.RuleModule<'x'> = {
    meta: { type: 'problem', messages: { x: 'x' }, schema: [] },
    defaultOptions: [],
    create(context) {
      const sourceCode = context.sourceCode;
      const evaluator = createEvaluator(sourceCode);
      const check = (node: TSESTree.Identifier | TSESTree.MemberExpression) => {
        const parent = node.parent;
        // Names read as values only: not keys, declarations or the property side of a member.
        if (parent?.type === 'MemberExpression' && parent.property === node) return;
        if ((parent?.type === 'Property' || parent?.type === 'PropertyDefinition' || parent?.type === 'MethodDefinition') && parent.key === node) return;
        if (parent?.type === 'VariableDeclarator' && parent.id === node) return;
        if (node.type === 'Identifier' && parent && /^(?:TS|Import|Export|Label|Function|Class|Catch|Break|Continue)/.test(parent.type)) return;
        if (parent?.type === 'ArrowFunctionExpression' && parent.params.includes(node as TSESTree.Parameter)) return;
        out.names++;
        const never = evaluator.neverAFunction(node);
        const isFunction = isStaticFunction(evaluator.evaluate(node));
        const text = sourceCode.getText(node);
        if (isFunction) out.functions.push(text);
        if (never) {
          out.settled++;
          out.settledText.push(text);
          if (isFunction) out.wrong.push(`${filename}:${node.loc.start.line} ${text}`);
        }
      };
      return { Identifier: check, MemberExpression: check };
    },
  };
  const messages = linter.verify(code, [{
    files: ['**/*.ts'],
    languageOptions: { parser: tsParser as Linter.Parser, ecmaVersion: 'latest', sourceType: 'module' },
    plugins: { t: { rules: { judge: rule as never } } },
    rules: { 't/judge': 'error' },
  }], filename);
  const fatal = messages.find((m) => m.fatal);
  if (fatal) throw new Error(`${filename}: ${fatal.message}`);
  return out;
}

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

describe('neverAFunction', () => {
  it('settles parameters, imports, awaited and called results, and keeps every name that may be a function', () => {
    const v = judge(`
      import { imported } from './x';
      function declared() {}
      const arrow = () => 1;
      const handlers = { onRetry: () => 1, count: 2 };
      const list = [arrow];
      const { onRetry } = handlers;
      const picked = cond() ? arrow : declared;
      const built = make();
      const awaited = await load();
      let later;
      later = arrow;
      export function run(param: number, { option } = {} as any) {
        use(imported, declared, arrow, handlers, handlers.onRetry, handlers.count, list, list[0], onRetry, picked,
          built, built.x, awaited, awaited.y, later, param, option, this, globalThis.fetch, undefined);
      }
    `, 'snippet.ts');
    expect(v.wrong).toEqual([]);
    // Each of these evaluates to a function and must never be settled.
    expect(v.functions).toEqual(expect.arrayContaining(['declared', 'arrow', 'handlers.onRetry', 'onRetry']));
    expect(v.settledText).toEqual(expect.arrayContaining(['imported', 'handlers', 'list', 'built', 'built.x', 'awaited', 'awaited.y', 'later', 'param', 'option', 'globalThis.fetch']));
    for (const name of ['declared', 'arrow', 'handlers.onRetry', 'list[0]', 'onRetry', 'picked']) expect(v.settledText).not.toContain(name);
  });

  it('settles a conditional, a logical default or a copy whose every branch is no function, and keeps any with one', () => {
    const v = judge(`
      const arrow = () => 1;
      const handlers = { onRetry: () => 1 };
      const either = cond() ? make() : await load();
      const orEmpty = opts().list ?? [];
      const copied = either;
      const built = make();
      const memberCopy = built.count;
      const nested = a() ? (b() || 'x') : \`t\`;
      const withFunction = cond() ? make() : arrow;
      const withDefault = opts().retry || arrow;
      const withObject = cond() ? { f: arrow } : make();
      const copiedFunction = handlers.onRetry;
      export function run() {
        use(either, orEmpty, copied, memberCopy, nested, either.x, withFunction, withDefault, withObject, withObject.f, copiedFunction);
      }
    `, 'branches.ts');
    expect(v.wrong).toEqual([]);
    expect(v.functions).toContain('copiedFunction');
    expect(v.settledText).toEqual(expect.arrayContaining(['either', 'orEmpty', 'copied', 'memberCopy', 'nested', 'either.x', 'withObject']));
    // A branch that may be a function keeps the name for evaluation, whatever the evaluation then says.
    for (const name of ['withFunction', 'withDefault', 'withObject.f', 'copiedFunction']) expect(v.settledText).not.toContain(name);
  });

  it('keeps class fields that hold a function, and settles `this` members that are no known field', () => {
    const v = judge(`
      const fallback = () => true;
      export class Caller {
        private onFailed = (e: unknown) => e;
        private handlers = { check: () => false };
        private check: (e: unknown) => boolean;
        private count = 3;
        constructor(opts: { check?: (e: unknown) => boolean }) {
          this.check = opts.check ?? fallback;
        }
        run() {
          use(this.onFailed, this.handlers.check, this.check, this.count, this.missing, this.run);
        }
      }
    `, 'class.ts');
    expect(v.wrong).toEqual([]);
    expect(v.functions).toEqual(expect.arrayContaining(['this.onFailed', 'this.handlers.check', 'this.check']));
    expect(v.settledText).toEqual(expect.arrayContaining(['this.missing', 'this.run']));
  });

  it('never contradicts a full evaluation on any name of the project\'s own source', () => {
    let names = 0;
    let settled = 0;
    const wrong: string[] = [];
    for (const file of sourceFiles(join(root, 'src'))) {
      const v = judge(readFileSync(file, 'utf8'), file.slice(root.length));
      names += v.names;
      settled += v.settled;
      wrong.push(...v.wrong);
    }
    expect(wrong).toEqual([]);
    // A shortcut that settles nothing would make this test pass vacuously.
    expect(names).toBeGreaterThan(10_000);
    expect(settled / names).toBeGreaterThan(0.3);
  });
});
