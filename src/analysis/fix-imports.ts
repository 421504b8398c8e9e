/**
 * Names a suggestion may write for a library export: the file's own binding when it has one,
 * otherwise one added to an import (or require) of the module the file already has, or a new
 * import declaration when the caller allows it. A name the file already uses for something else
 * is never introduced.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import type { AnalysisContext } from './library.js';
import type { OptionEdit } from './model.js';
import { localReference } from './libraries/generic-helpers.js';

export interface ImportedName {
  /** How the code names the export (`handleWhen`, `cockatiel.handleWhen`). */
  readonly name: string;
  /** Insertions that bind it (empty when the file already has a binding). */
  readonly edits: readonly OptionEdit[];
}

/**
 * Whether `name` is already a binding or a reference in the file, or in `within` (a conservative
 * textual test: a suggestion must not shadow or capture a name the code already uses).
 */
export function nameInUse(ctx: AnalysisContext, name: string, within?: TSESTree.Node): boolean {
  const text = within ? ctx.sourceCode.getText(within) : ctx.sourceCode.text;
  return new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(text);
}

function insertion(at: number, text: string, label: string): OptionEdit {
  return { path: [], range: [at, at], text, label };
}

/**
 * `exportName` of `module` as this file can name it; `declare` allows a new import declaration
 * (or a require in a CommonJS file) when the file does not import the module yet.
 */
export function importedName(
  ctx: AnalysisContext,
  module: string,
  exportName: string,
  declare = false,
): ImportedName | undefined {
  const existing = localReference(ctx, [module], exportName);
  if (existing) return { name: existing, edits: [] };
  if (nameInUse(ctx, exportName)) return undefined;
  const label = `import ${exportName}`;
  const program = ctx.sourceCode.ast;
  for (const statement of program.body) {
    if (statement.type !== T.ImportDeclaration || statement.source.value !== module || statement.importKind === 'type') continue;
    const named = statement.specifiers.filter((s): s is TSESTree.ImportSpecifier => s.type === T.ImportSpecifier);
    const last = named[named.length - 1];
    if (last) return { name: exportName, edits: [insertion(last.range[1], `, ${exportName}`, label)] };
    const only = statement.specifiers[0];
    if (only?.type === T.ImportDefaultSpecifier && statement.specifiers.length === 1) {
      return { name: exportName, edits: [insertion(only.range[1], `, { ${exportName} }`, label)] };
    }
  }
  for (const binding of ctx.imports.bindings) {
    if (binding.module !== module) continue;
    const def = binding.variable.defs[0]?.node;
    if (def?.type !== T.VariableDeclarator || def.id.type !== T.ObjectPattern) continue;
    const props = def.id.properties;
    const last = props[props.length - 1];
    if (!last || last.type === T.RestElement) continue;
    return { name: exportName, edits: [insertion(last.range[1], `, ${exportName}`, label)] };
  }
  if (!declare) return undefined;
  return { name: exportName, edits: [declaration(ctx, module, exportName, label)] };
}

/** A new `import { x } from 'm';` after the file's imports, or a require in a CommonJS file. */
function declaration(ctx: AnalysisContext, module: string, exportName: string, label: string): OptionEdit {
  const program = ctx.sourceCode.ast;
  const imports = program.body.filter((s) => s.type === T.ImportDeclaration);
  const lastImport = imports[imports.length - 1];
  if (lastImport) return insertion(lastImport.range[1], `\nimport { ${exportName} } from '${module}';`, label);
  const requires = program.body.filter((s) => s.type === T.VariableDeclaration && /\brequire\(/.test(ctx.sourceCode.getText(s)));
  const lastRequire = requires[requires.length - 1];
  if (lastRequire) return insertion(lastRequire.range[1], `\nconst { ${exportName} } = require('${module}');`, label);
  const first = program.body[0];
  const directive = first?.type === T.ExpressionStatement && first.directive ? first : undefined;
  if (directive) return insertion(directive.range[1], `\nimport { ${exportName} } from '${module}';`, label);
  return insertion(program.range[0], `import { ${exportName} } from '${module}';\n`, label);
}
