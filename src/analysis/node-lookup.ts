/**
 * Finding nodes without walking the whole tree. Most files hold no retry at all, and on those the
 * model's cost is whatever it takes to be sure of that; a walk over every node was most of it.
 *
 * - Statements that begin with a keyword (`try`, `for`, `while`, `do`, `throw`, `new`) are found by
 *   searching the text for the word and descending from the root to the node at that offset; a
 *   match inside a string, a comment or a longer name lands on some other node and is dropped.
 * - Functions come from the scope analysis ESLint has already done: every function has a scope.
 * - Everything else comes from one walk over the tree, built only when something asks for it.
 */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { walk } from './ast.js';

type Keys = Readonly<Record<string, readonly string[] | undefined>>;

/** Node types whose source starts with (or, for `do…while`, holds outside any child) a keyword. */
const KEYWORD_LED: Readonly<Partial<Record<string, RegExp>>> = {
  [T.TryStatement]: /\btry\b/g,
  [T.ForStatement]: /\bfor\b/g,
  [T.ForInStatement]: /\bfor\b/g,
  [T.ForOfStatement]: /\bfor\b/g,
  [T.WhileStatement]: /\bwhile\b/g,
  [T.DoWhileStatement]: /\bdo\b/g,
  [T.ThrowStatement]: /\bthrow\b/g,
  [T.NewExpression]: /\bnew\b/g,
};

const FUNCTIONS = new Set<string>([T.FunctionDeclaration, T.FunctionExpression, T.ArrowFunctionExpression]);

/**
 * Nodes of one type in document order, or undefined when this type has no shortcut and needs
 * the full index.
 */
export function nodesByShortcut(sourceCode: Readonly<TSESLint.SourceCode>, type: string): TSESTree.Node[] | undefined {
  const pattern = KEYWORD_LED[type];
  if (pattern) return nodesAtWord(sourceCode, pattern, (n) => n.type === type);
  if (FUNCTIONS.has(type)) return functionsOfType(sourceCode, type);
  return undefined;
}

/** The last character before `index` that is not white space ('' at the start of the text). */
function previousNonSpace(text: string, index: number): string {
  let i = index - 1;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  return i >= 0 ? text[i]! : '';
}

/**
 * The nodes a word of the text belongs to, in document order, without duplicates: for each match
 * of `pattern` (a global regex), the deepest node whose range holds the match's first (or last)
 * character, kept when `accept` says so. With `after`, only matches whose previous character other
 * than white space is one of its characters: a pattern that starts with a literal word lets the
 * regex engine skip ahead, three times as fast as a leading character class.
 */
export function nodesAtWord(
  sourceCode: Readonly<TSESLint.SourceCode>,
  pattern: RegExp,
  accept: (node: TSESTree.Node) => boolean,
  { atEnd = false, after }: { atEnd?: boolean; after?: string } = {},
): TSESTree.Node[] {
  const text = sourceCode.text;
  // A global pattern is used as given (nothing here re-enters it); compiling a copy per file cost
  // more than the search on small files.
  const re = pattern.global ? pattern : new RegExp(pattern.source, `${pattern.flags}g`);
  re.lastIndex = 0;
  const out: TSESTree.Node[] = [];
  const seen = new Set<TSESTree.Node>();
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (after !== undefined && !after.includes(previousNonSpace(text, m.index))) continue;
    // `atEnd`: the node at the match's last character (the name after `.\s*`), not its first.
    const node = nodeAt(sourceCode, atEnd ? m.index + m[0].length - 1 : m.index);
    if (node && !seen.has(node) && accept(node)) {
      seen.add(node);
      out.push(node);
    }
    if (m[0].length === 0) re.lastIndex++;
  }
  return out.sort((a, b) => a.range[0] - b.range[0]);
}

/** The deepest node whose range holds `offset` (the Program when no statement does). */
export function nodeAt(sourceCode: Readonly<TSESLint.SourceCode>, offset: number): TSESTree.Node | undefined {
  const keys = sourceCode.visitorKeys as Keys;
  let node: TSESTree.Node = sourceCode.ast;
  if (offset < 0 || offset >= sourceCode.text.length) return undefined;
  descend: for (;;) {
    const childKeys = keys[node.type];
    if (!childKeys) return node;
    for (const key of childKeys) {
      const child: unknown = (node as unknown as Record<string, unknown>)[key];
      const hit: TSESTree.Node | undefined = Array.isArray(child) ? holding(child as (TSESTree.Node | null)[], offset) : holds(child, offset) ? (child as TSESTree.Node) : undefined;
      if (hit) {
        node = hit;
        continue descend;
      }
    }
    return node;
  }
}

function holds(value: unknown, offset: number): boolean {
  if (!value || typeof (value as TSESTree.Node).type !== 'string') return false;
  const range = (value as TSESTree.Node).range;
  return !!range && range[0] <= offset && offset < range[1];
}

/** The element of a source-ordered child list that holds `offset`: binary search on long lists. */
function holding(list: readonly (TSESTree.Node | null)[], offset: number): TSESTree.Node | undefined {
  if (list.length > 16 && !list.includes(null)) {
    let lo = 0;
    let hi = list.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const n = list[mid]!;
      if (offset < n.range[0]) hi = mid - 1;
      else if (offset >= n.range[1]) lo = mid + 1;
      else return n;
    }
    return undefined;
  }
  for (const n of list) if (holds(n, offset)) return n!;
  return undefined;
}

/** The scope analysis's list of every scope, when the parser's scope manager exposes one. */
function scopesOf(sourceCode: Readonly<TSESLint.SourceCode>): readonly TSESLint.Scope.Scope[] | undefined {
  const scopes = (sourceCode.scopeManager as { scopes?: readonly TSESLint.Scope.Scope[] } | null | undefined)?.scopes;
  return Array.isArray(scopes) ? scopes : undefined;
}

/** Scopes are made in traversal order, which is document order; sort only if that ever fails. */
function inDocumentOrder<N extends TSESTree.Node>(list: N[]): N[] {
  for (let i = 1; i < list.length; i++) {
    if (list[i - 1]!.range[0] > list[i]!.range[0]) return list.sort((a, b) => a.range[0] - b.range[0]);
  }
  return list;
}

/** Every `catch` clause, from the catch scopes of the scope analysis (a walk when there are none to read). */
export function catchClauses(sourceCode: Readonly<TSESLint.SourceCode>): TSESTree.CatchClause[] {
  const scopes = scopesOf(sourceCode);
  if (!scopes) return nodesOfSkippedType(sourceCode, T.CatchClause) as TSESTree.CatchClause[];
  const out: TSESTree.CatchClause[] = [];
  for (const scope of scopes) if (scope.type === 'catch' && scope.block.type === T.CatchClause) out.push(scope.block);
  return inDocumentOrder(out);
}

const functionLists = new WeakMap<readonly TSESLint.Scope.Scope[], ReadonlyMap<string, TSESTree.Node[]>>();

/** Every function of one type, from the function scopes of the scope analysis (all three types in one pass). */
function functionsOfType(sourceCode: Readonly<TSESLint.SourceCode>, type: string): TSESTree.Node[] | undefined {
  const scopes = scopesOf(sourceCode);
  if (!scopes) return undefined;
  let lists = functionLists.get(scopes);
  if (!lists) {
    const byType = new Map<string, TSESTree.Node[]>([...FUNCTIONS].map((t) => [t, []]));
    for (const scope of scopes) {
      // A named function expression has a second scope for its name, on the same node.
      if (scope.type !== 'function') continue;
      const block = scope.block as TSESTree.Node;
      byType.get(block.type)?.push(block);
    }
    for (const list of byType.values()) inDocumentOrder(list);
    functionLists.set(scopes, (lists = byType));
  }
  return lists.get(type);
}

/**
 * Nodes the full index leaves out: leaves (most of any tree, and never asked for by type) and
 * TypeScript's type-only subtrees, which hold no code that runs. Asking for one of these types
 * walks the whole tree for it instead.
 */
const LEAVES = new Set<string>([T.Identifier, T.Literal, T.TemplateElement, T.PrivateIdentifier, T.ThisExpression, T.Super, T.EmptyStatement]);
const TYPE_ONLY = new Set<string>([
  T.TSTypeAnnotation, T.TSTypeParameterDeclaration, T.TSTypeParameterInstantiation,
  T.TSInterfaceDeclaration, T.TSTypeAliasDeclaration, T.TSDeclareFunction, T.TSInterfaceHeritage,
]);

export function isLeftOutOfIndex(type: string): boolean {
  return LEAVES.has(type) || TYPE_ONLY.has(type) || type.startsWith('TS');
}

function isSkipped(node: TSESTree.Node): boolean {
  // A parameter can carry decorators (`@Inject() x`), whose calls are code.
  if (node.type === T.Identifier) return !(node as { decorators?: unknown[] }).decorators?.length;
  return LEAVES.has(node.type) || TYPE_ONLY.has(node.type);
}

/** Every node but leaves and type-only subtrees, by type, in document order. */
export function indexNodes(sourceCode: Readonly<TSESLint.SourceCode>): Map<string, TSESTree.Node[]> {
  const index = new Map<string, TSESTree.Node[]>();
  walkTree(sourceCode, (node) => {
    let list = index.get(node.type);
    if (!list) index.set(node.type, (list = []));
    list.push(node);
  }, isSkipped);
  return index;
}

/** Every node of one type, for the types the index leaves out. */
export function nodesOfSkippedType(sourceCode: Readonly<TSESLint.SourceCode>, type: string): TSESTree.Node[] {
  const out: TSESTree.Node[] = [];
  walkTree(sourceCode, (node) => { if (node.type === type) out.push(node); }, () => false);
  return out;
}

/** The whole file, every child (decorators and types too, unless `skip` says otherwise), in document order. */
function walkTree(sourceCode: Readonly<TSESLint.SourceCode>, visit: (node: TSESTree.Node) => void, skip: (node: TSESTree.Node) => boolean): void {
  walk(sourceCode.ast, visit, { skip, keys: sourceCode.visitorKeys as Keys, budget: Infinity });
}
