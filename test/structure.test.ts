// The house rules on size, checked on every source file: no file under src/ over 800 lines, no
// function over 150 lines, no class or factory closure over 400 lines. A factory closure is a
// function whose body defines at least two functions of its own at its top level (declarations,
// or consts bound to function expressions) and hands them out; it is held to the class limit.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '@typescript-eslint/parser';
import type { TSESTree } from '@typescript-eslint/utils';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));
const MAX_FILE_LINES = 800;
const MAX_FUNCTION_LINES = 150;
const MAX_CLASS_LINES = 400;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(?:ts|js|mjs|cjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

type Node = TSESTree.Node;
type Fn = TSESTree.FunctionDeclaration | TSESTree.FunctionExpression | TSESTree.ArrowFunctionExpression;

const isFunction = (n: Node | null | undefined): n is Fn =>
  !!n && (n.type === 'FunctionDeclaration' || n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression');

const lines = (n: Node) => n.loc.end.line - n.loc.start.line + 1;

/** A function that defines two or more functions at the top level of its body. */
function isFactory(fn: Fn): boolean {
  if (fn.body.type !== 'BlockStatement') return false;
  let inner = 0;
  for (const s of fn.body.body) {
    if (s.type === 'FunctionDeclaration') inner++;
    else if (s.type === 'VariableDeclaration') inner += s.declarations.filter((d) => isFunction(d.init)).length;
  }
  return inner >= 2;
}

function nameOf(n: Node): string {
  if ((n.type === 'FunctionDeclaration' || n.type === 'ClassDeclaration' || n.type === 'FunctionExpression' || n.type === 'ClassExpression') && n.id) return n.id.name;
  const p = n.parent;
  if (p?.type === 'VariableDeclarator' && p.id.type === 'Identifier') return p.id.name;
  if ((p?.type === 'MethodDefinition' || p?.type === 'Property' || p?.type === 'PropertyDefinition') && p.key.type === 'Identifier') return p.key.name;
  return '(anonymous)';
}

function visit(node: Node, each: (n: Node) => void): void {
  each(node);
  for (const [key, child] of Object.entries(node)) {
    if (key === 'parent' || key === 'loc' || key === 'range') continue;
    if (Array.isArray(child)) {
      for (const c of child) if (c && typeof c === 'object' && typeof c.type === 'string') visit(c as Node, each);
    } else if (child && typeof child === 'object' && typeof (child as Node).type === 'string') visit(child as Node, each);
  }
}

interface Violation {
  readonly file: string;
  readonly what: string;
  readonly lines: number;
  readonly limit: number;
}

function violationsOf(path: string): Violation[] {
  const text = readFileSync(path, 'utf8');
  const file = relative(root, path);
  const out: Violation[] = [];
  const fileLines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (fileLines > MAX_FILE_LINES) out.push({ file, what: 'file', lines: fileLines, limit: MAX_FILE_LINES });
  const ast = parse(text, { loc: true, range: true, sourceType: 'module', ecmaVersion: 'latest', jsx: false }) as unknown as TSESTree.Program;
  withParents(ast);
  visit(ast, (n) => {
    if (n.type === 'ClassDeclaration' || n.type === 'ClassExpression') {
      if (lines(n) > MAX_CLASS_LINES) out.push({ file, what: `class ${nameOf(n)}`, lines: lines(n), limit: MAX_CLASS_LINES });
    } else if (isFunction(n)) {
      const factory = isFactory(n);
      const limit = factory ? MAX_CLASS_LINES : MAX_FUNCTION_LINES;
      if (lines(n) > limit) out.push({ file, what: `${factory ? 'factory closure' : 'function'} ${nameOf(n)}`, lines: lines(n), limit });
    }
  });
  return out;
}

/** Parent links, for names: the parser does not set them. */
function withParents(node: Node, parent?: Node): void {
  (node as { parent?: Node }).parent = parent;
  for (const [key, child] of Object.entries(node)) {
    if (key === 'parent' || key === 'loc' || key === 'range') continue;
    if (Array.isArray(child)) {
      for (const c of child) if (c && typeof c === 'object' && typeof c.type === 'string') withParents(c as Node, node);
    } else if (child && typeof child === 'object' && typeof (child as Node).type === 'string') withParents(child as Node, node);
  }
}

describe('house rules on size', () => {
  const files = sourceFiles(join(root, 'src'));

  it('finds the source files', () => {
    expect(files.length).toBeGreaterThan(50);
  });

  it(`no file over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}, no class or factory closure over ${MAX_CLASS_LINES}`, () => {
    const violations: string[] = [];
    for (const path of files) {
      for (const v of violationsOf(path)) violations.push(`${v.file}: ${v.what} has ${v.lines} lines (at most ${v.limit})`);
    }
    expect(violations).toEqual([]);
  });

  it('counts what it should (a self-check on a small sample)', () => {
    const long = Array.from({ length: 151 }, (_, i) => `  const a${i} = ${i};`).join('\n');
    const text = `function big() {\n${long}\n}\n`;
    const ast = parse(text, { loc: true, range: true }) as unknown as TSESTree.Program;
    withParents(ast);
    const fn = ast.body[0] as TSESTree.FunctionDeclaration;
    expect(lines(fn)).toBe(153);
    expect(isFactory(fn)).toBe(false);
    expect(nameOf(fn)).toBe('big');
  });
});
