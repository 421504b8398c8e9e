/**
 * The optional type-aware layer: with `settings["safe-retry"].typeAware` (set by the
 * `recommended-type-checked` preset) and type information available, a call the syntax alone
 * cannot judge is resolved through the type checker to its declaration, in any file, to read its
 * `@idempotent` tag or the HTTP method its body sends. Without the setting nothing here runs, so the
 * syntactic rules behave the same with or without type information.
 */
import { createRequire } from 'node:module';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import type * as TS from 'typescript';

export interface DeclarationFacts {
  readonly idempotent: boolean;
  /** Upper-cased HTTP methods the declaration's body sends, as far as they are written literally. */
  readonly methods: readonly string[];
  readonly name: string;
}

let ts: typeof TS | undefined;
function typescript(): typeof TS {
  // Loaded only when the type-aware layer is on; a type-aware setup always has it installed.
  ts ??= createRequire(import.meta.url)('typescript') as typeof TS;
  return ts;
}

interface Services {
  program: TS.Program;
  esTreeNodeToTSNodeMap: { get(node: TSESTree.Node): TS.Node | undefined };
}

export function typeAwareServices(sourceCode: Readonly<TSESLint.SourceCode>): Services | undefined {
  const services = sourceCode.parserServices as Partial<Services> | undefined;
  return services?.program && services.esTreeNodeToTSNodeMap ? (services as Services) : undefined;
}

const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

export function createDeclarationReader(services: Services) {
  const cache = new Map<TS.Node, DeclarationFacts | undefined>();
  const checker = services.program.getTypeChecker();

  return function declarationOf(callee: TSESTree.Node): DeclarationFacts | undefined {
    const t = typescript();
    const decl = declarationNode(callee, t);
    if (!decl) return undefined;
    if (cache.has(decl)) return cache.get(decl);
    const facts = read(decl, t);
    cache.set(decl, facts);
    return facts;
  };

  function declarationNode(callee: TSESTree.Node, t: typeof TS): TS.Declaration | undefined {
    // The checker is TypeScript's, with its own bugs: in one CI run it threw from symbolToNode while
    // building a module specifier for a NodeNext project (a baseUrl it read as undefined). What the
    // checker cannot answer is unknown, as for any value the model cannot resolve.
    try {
      let tsNode = services.esTreeNodeToTSNodeMap.get(callee);
      if (!tsNode) return undefined;
      if (t.isPropertyAccessExpression(tsNode)) tsNode = tsNode.name;
      let symbol = checker.getSymbolAtLocation(tsNode);
      if (symbol && symbol.flags & t.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      return symbol?.valueDeclaration ?? symbol?.declarations?.[0];
    } catch {
      return undefined;
    }
  }

  function read(decl: TS.Declaration, t: typeof TS): DeclarationFacts | undefined {
    const fn = functionOf(decl, t);
    const tagged = [decl, fn, t.isVariableDeclaration(decl) ? decl.parent?.parent : undefined]
      .some((n) => !!n && t.getJSDocTags(n).some((tag) => tag.tagName.text === 'idempotent'));
    const methods = new Set<string>();
    if (fn?.body) {
      const visit = (n: TS.Node): void => {
        if (t.isCallExpression(n)) {
          const callee = n.expression;
          if (t.isIdentifier(callee) && callee.text === 'fetch') methods.add(methodOf(n.arguments[1], t) ?? 'GET');
          else if (t.isPropertyAccessExpression(callee) && HTTP_METHODS.has(callee.name.text) && n.arguments.length > 0) {
            methods.add(callee.name.text.toUpperCase());
          }
        }
        if (!t.isFunctionLike(n) || n === fn) t.forEachChild(n, visit);
      };
      visit(fn);
    }
    const named = (decl as TS.Declaration & { name?: TS.Node }).name;
    const name = named && t.isIdentifier(named) ? named.text : 'function';
    return { idempotent: tagged, methods: [...methods], name };
  }
}

function functionOf(decl: TS.Declaration, t: typeof TS): TS.FunctionLikeDeclaration | undefined {
  if (t.isFunctionDeclaration(decl) || t.isMethodDeclaration(decl)) return decl;
  if (t.isVariableDeclaration(decl) && decl.initializer && (t.isArrowFunction(decl.initializer) || t.isFunctionExpression(decl.initializer))) {
    return decl.initializer;
  }
  return undefined;
}

function methodOf(init: TS.Expression | undefined, t: typeof TS): string | undefined {
  if (!init || !t.isObjectLiteralExpression(init)) return undefined;
  for (const p of init.properties) {
    if (t.isPropertyAssignment(p) && t.isIdentifier(p.name) && p.name.text === 'method' && t.isStringLiteralLike(p.initializer)) {
      return p.initializer.text.toUpperCase();
    }
  }
  return undefined;
}
