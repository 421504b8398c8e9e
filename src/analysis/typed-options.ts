/**
 * Retry options written as typed constants: `export const FIVE_RETRIES: WrapOptions = {...}`, a
 * `satisfies Options`, or a type of the project's own that extends or aliases the library's
 * (`interface RetryOptions extends WrapOptions {}`). A file of such policies calls no retry
 * itself; the policies are passed to one elsewhere (a client's option, another file's call), where
 * the value may not be readable. The type says whose options they are, so each is a site of that
 * library, judged where it is written by the library's own reading and defaults (its descriptor's
 * `optionsType` facet). An object a retry call of the file already reads is left to that call.
 */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { contains, unwrap } from './ast.js';
import type { AnalysisContext, LibraryDescriptor } from './library.js';
import type { Node, RetrySite } from './model.js';

type Variable = TSESLint.Scope.Variable;

/** A project's own type naming the library's, followed this many aliases deep. */
const MAX_ALIASES = 2;

/** `typed`: the descriptors with an `optionsType` whose modules the file imports. */
export function findTypedOptionSites(ctx: AnalysisContext, typed: readonly LibraryDescriptor[], sites: readonly RetrySite[]): RetrySite[] {
  const out: RetrySite[] = [];
  for (const statement of ctx.sourceCode.ast.body) {
    if (statement.type !== T.ImportDeclaration) continue;
    const module = ctx.imports.moduleOf(statement.source.value);
    const library = typed.find((l) => l.modules.includes(module));
    if (!library) continue;
    for (const spec of statement.specifiers) {
      if (spec.type !== T.ImportSpecifier) continue;
      const imported = spec.imported.type === T.Identifier ? spec.imported.name : spec.imported.value;
      if (!library.optionsType!.names.includes(imported)) continue;
      const variable = declared(ctx, spec);
      for (const d of variable ? typedDeclarators(ctx, variable, 0) : []) {
        const object = unwrap(d.init!) as TSESTree.ObjectExpression;
        if (sites.some((s) => s.options?.object === object || (s.attempts.node && contains(object, s.attempts.node)))) continue;
        const s = siteOf(ctx, library, d, object, imported);
        if (s) out.push(s);
      }
    }
  }
  return out;
}

function declared(ctx: AnalysisContext, node: Node): Variable | undefined {
  try {
    return ctx.sourceCode.scopeManager?.getDeclaredVariables(node)[0];
  } catch {
    return undefined;
  }
}

/** `const x: T = {...}`, `const x = {...} satisfies T` (or `as T`) for the type `variable`, and through types built on it. */
function typedDeclarators(ctx: AnalysisContext, variable: Variable, depth: number): TSESTree.VariableDeclarator[] {
  const out: TSESTree.VariableDeclarator[] = [];
  for (const ref of variable.references) {
    const reference = ref.identifier.parent;
    if (reference?.type !== T.TSTypeReference || reference.typeName !== ref.identifier) {
      // `interface RetryOptions extends WrapOptions {}`
      if (reference?.type === T.TSInterfaceHeritage && reference.expression === ref.identifier && depth < MAX_ALIASES) {
        const iface = reference.parent as Node | undefined;
        const own = iface?.type === T.TSInterfaceDeclaration ? declared(ctx, iface) : undefined;
        if (own) out.push(...typedDeclarators(ctx, own, depth + 1));
      }
      continue;
    }
    const holder = reference.parent;
    if (holder?.type === T.TSTypeAliasDeclaration && holder.typeAnnotation === reference && depth < MAX_ALIASES) {
      const own = declared(ctx, holder);
      if (own) out.push(...typedDeclarators(ctx, own, depth + 1));
      continue;
    }
    let declarator: Node | undefined;
    if (holder?.type === T.TSTypeAnnotation && holder.parent?.type === T.Identifier) declarator = holder.parent.parent;
    else if ((holder?.type === T.TSSatisfiesExpression || holder?.type === T.TSAsExpression) && holder.typeAnnotation === reference) declarator = holder.parent;
    if (declarator?.type !== T.VariableDeclarator || declarator.id.type !== T.Identifier || !declarator.init) continue;
    if (declarator.parent?.kind !== 'const' || unwrap(declarator.init).type !== T.ObjectExpression) continue;
    out.push(declarator);
  }
  return out;
}

function siteOf(ctx: AnalysisContext, library: LibraryDescriptor, d: TSESTree.VariableDeclarator, object: TSESTree.ObjectExpression, type: string): RetrySite | undefined {
  const view = ctx.options(object);
  if (view.state !== 'object') return undefined;
  const read = library.optionsType!.read(view, ctx);
  const name = (d.id as TSESTree.Identifier).name;
  return {
    library: library.id,
    label: `${name} (${type})`,
    kind: 'in-memory',
    node: d,
    reportNode: d.id,
    clientLevel: false,
    attemptTimeoutMs: { value: undefined },
    ...read,
    options: { object },
  };
}
