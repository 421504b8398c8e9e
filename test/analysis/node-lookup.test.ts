/**
 * The shortcuts of node-lookup.ts must find exactly what a walk over the whole tree finds: on
 * hand-made traps (keywords in strings, comments, names and JSX text) and on real files of the
 * corpus, with both parsers.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as tsParser from '@typescript-eslint/parser';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { Linter } from 'eslint';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { catchClauses, nodeAt, nodesByShortcut, nodesOfSkippedType } from '../../src/analysis/node-lookup.js';

function parse(code: string, opts: { js?: boolean; jsx?: boolean; script?: boolean } = {}): Readonly<TSESLint.SourceCode> {
  let captured: Readonly<TSESLint.SourceCode> | undefined;
  const capture = { meta: { type: 'problem' as const, schema: [] }, create: (context: TSESLint.RuleContext<string, []>) => ({ Program() { captured = context.sourceCode; } }) };
  const linter = new Linter({ configType: 'flat' });
  const languageOptions = {
    ecmaVersion: 'latest' as const,
    sourceType: opts.script ? ('commonjs' as const) : ('module' as const),
    ...(opts.js ? { parserOptions: { ecmaFeatures: { jsx: !!opts.jsx } } } : { parser: tsParser as never, parserOptions: { ecmaFeatures: { jsx: !!opts.jsx } } }),
  };
  const messages = linter.verify(code, [{ files: ['**/*.{js,jsx,ts,tsx}'], plugins: { t: { rules: { capture } } as never }, languageOptions, rules: { 't/capture': 'error' } }], opts.js ? 'file.jsx' : opts.jsx ? 'file.tsx' : 'file.ts');
  const fatal = messages.find((m) => m.fatal);
  if (fatal) throw new Error(`parse error: ${fatal.message}`);
  return captured!;
}

const SHORTCUT_TYPES = [
  'TryStatement', 'ForStatement', 'ForInStatement', 'ForOfStatement', 'WhileStatement', 'DoWhileStatement',
  'ThrowStatement', 'NewExpression', 'FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression',
];

function expectSameAsWalk(sourceCode: Readonly<TSESLint.SourceCode>) {
  for (const type of SHORTCUT_TYPES) {
    const walked = nodesOfSkippedType(sourceCode, type);
    const found = nodesByShortcut(sourceCode, type);
    expect(found, type).toBeDefined();
    expect(found!.map((n) => n.range), type).toEqual(walked.map((n) => n.range));
    expect(found!.every((n, i) => n === walked[i]), type).toBe(true);
  }
  const catches = nodesOfSkippedType(sourceCode, 'CatchClause');
  expect(catchClauses(sourceCode)).toEqual(catches);
}

const TRAPS = `
// try for while do throw new function => in a comment
/* try { } catch {} for (;;) {} */
const s = 'try { x() } catch { for (;;) new Thing() }';
const t = \`while (x) \${ (() => { try { return 1 } catch { return 2 } })() } do\`;
const retry = { try: 1, for: 2, new: 3, do: 4 };
retry.try + retry.for + retry.new + retry.do;
outer: for (let i = 0; i < 3; i++) { inner: while (i) { break outer; } }
for await (const x of xs) {}
for (const k in obj) {}
do { n-- } while (n > 0)
function Named() { if (new.target) throw new Error('x'); }
async function* gen() { yield* other(); }
export default function () { return function inner() {}; }
class C { m() { return () => this.m(); } get g() { return 1; } static s = () => {}; #p = function () {}; }
const o = { method() {}, async am() {}, arrow: async (a) => a, ['computed']: function () {} };
try { a(); } finally { b(); }
try { a(); } catch { c(); }
try { a(); } catch (e) { try { d(); } catch { } }
const tryAgain = 1, fortune = 2, renew = 3, doNot = 4, whileAway = 5;
label: { throw tryAgain; }
`;

const TS_TRAPS = `
type F = new () => T;
interface I { m(): void; new (x: number): I }
declare function declared(x: number): void;
function overloaded(x: string): void;
function overloaded(x: unknown) { return x; }
abstract class A { abstract m(): void; constructor(private readonly x = new Map<string, number>()) {} }
enum E { A = 1 }
namespace N { export function f() { for (;;) { try { break; } catch { } } } }
const g = <T,>(x: T) => x;
const h = (x as unknown as () => void);
@decorate(() => new Thing()) class D { @prop(function () { throw 1; }) p = 1; }
`;

describe('node lookup shortcuts', () => {
  it('find every keyword-led statement, function and catch clause a full walk finds, and nothing else (JavaScript)', () => {
    expectSameAsWalk(parse(TRAPS, { js: true }));
  });

  it('do the same for TypeScript, with type-only constructs that look like code', () => {
    expectSameAsWalk(parse(TRAPS + TS_TRAPS));
  });

  it('do the same with JSX text that holds keywords', () => {
    const code = 'const v = <div title="try">try for while {cond ? new A() : (() => { do { x() } while (y) })()} throw</div>;';
    expectSameAsWalk(parse(code, { js: true, jsx: true }));
    expectSameAsWalk(parse(code, { jsx: true }));
  });

  it('do the same on real files of the corpus', () => {
    const modules = fileURLToPath(new URL('../../node_modules/', import.meta.url));
    const files = [
      { path: `${modules}got/dist/source/core/index.js`, js: true },
      { path: `${modules}undici/lib/dispatcher/client-h1.js`, js: true, script: true },
      { path: `${modules}rxjs/src/internal/Observable.ts` },
      { path: `${modules}openai/src/core.ts`, optional: true },
      { path: `${modules}openai/src/client.ts`, optional: true },
    ];
    let checked = 0;
    for (const f of files) {
      let text: string;
      try {
        text = readFileSync(f.path, 'utf8');
      } catch (error) {
        if (f.optional) continue;
        throw error;
      }
      expectSameAsWalk(parse(text, { js: f.js, script: f.script }));
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(3);
  });

  it('nodeAt gives the deepest node whose range holds the offset, for every offset', () => {
    const sourceCode = parse(TRAPS + TS_TRAPS);
    const all: TSESTree.Node[] = [];
    const keys = sourceCode.visitorKeys as Record<string, readonly string[] | undefined>;
    const visit = (n: TSESTree.Node, depth: number, out: { node: TSESTree.Node; depth: number }[]) => {
      out.push({ node: n, depth });
      for (const k of keys[n.type] ?? []) {
        const c = (n as unknown as Record<string, unknown>)[k];
        for (const x of Array.isArray(c) ? c : [c]) if (x && typeof (x as TSESTree.Node).type === 'string') visit(x as TSESTree.Node, depth + 1, out);
      }
    };
    const flat: { node: TSESTree.Node; depth: number }[] = [];
    visit(sourceCode.ast, 0, flat);
    all.push(...flat.map((x) => x.node));
    const deepest = (offset: number) => {
      let best: { node: TSESTree.Node; depth: number } | undefined;
      for (const x of flat) if (x.node.range[0] <= offset && offset < x.node.range[1] && (!best || x.depth > best.depth)) best = x;
      return best?.node;
    };
    fc.assert(fc.property(fc.integer({ min: 0, max: sourceCode.text.length - 1 }), (offset) => {
      const expected = deepest(offset) ?? sourceCode.ast;
      expect(nodeAt(sourceCode, offset)).toBe(expected);
    }), { numRuns: 500 });
    expect(nodeAt(sourceCode, -1)).toBeUndefined();
    expect(nodeAt(sourceCode, sourceCode.text.length)).toBeUndefined();
    expect(all.length).toBeGreaterThan(100);
  });
});
