/**
 * Names a suggestion may write for a library export: the file's own binding when it has one,
 * otherwise one added to an import (or require) of the module the file already has, or a new
 * import declaration when the caller allows it. A name the file already uses for something else
 * is never introduced.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext } from './library.js';
import type { NewDeclaration, OptionEdit } from './model.js';
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
  return nameIn(within ? ctx.sourceCode.getText(within) : ctx.sourceCode.text, name);
}

/** Whether `text` spells `name` as a whole word, not after a `.`. */
function nameIn(text: string, name: string): boolean {
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
  const place = (at: number, form: NewDeclaration['form'], after: boolean): OptionEdit => {
    const declares: NewDeclaration = { module, names: [exportName], form, after };
    return { ...insertion(at, declarationText(declares), label), declares };
  };
  if (lastImport) return place(lastImport.range[1], 'import', true);
  const requires = program.body.filter((s) => s.type === T.VariableDeclaration && /\brequire\(/.test(ctx.sourceCode.getText(s)));
  const lastRequire = requires[requires.length - 1];
  if (lastRequire) return place(lastRequire.range[1], 'require', true);
  const first = program.body[0];
  const directive = first?.type === T.ExpressionStatement && first.directive ? first : undefined;
  if (directive) return place(directive.range[1], 'import', true);
  return place(program.range[0], 'import', false);
}

/** The text of a new declaration. */
export function declarationText(d: NewDeclaration): string {
  const statement = d.form === 'import' ? `import { ${d.names.join(', ')} } from '${d.module}';` : `const { ${d.names.join(', ')} } = require('${d.module}');`;
  return d.after ? `\n${statement}` : `${statement}\n`;
}

/**
 * One suggestion's new declarations of the same module at the same place, written as one
 * (`import { retry, timer } from 'rxjs'` rather than a declaration per name); other edits unchanged.
 */
export function mergeDeclarations(edits: readonly OptionEdit[]): readonly OptionEdit[] {
  if (edits.filter((e) => e.declares).length < 2) return edits;
  const out: OptionEdit[] = [];
  const merged = new Map<string, number>();
  for (const e of edits) {
    const d = e.declares;
    const key = d && e.range ? `${e.range[0]}\0${d.module}\0${d.form}\0${d.after}` : undefined;
    const at = key === undefined ? undefined : merged.get(key);
    if (at === undefined) {
      if (key !== undefined) merged.set(key, out.length);
      out.push(e);
      continue;
    }
    const first = out[at]!;
    const declares: NewDeclaration = { ...first.declares!, names: [...new Set([...first.declares!.names, ...d!.names])] };
    out[at] = { ...first, declares, text: declarationText(declares), label: [first.label, e.label].filter(Boolean).join(', ') };
  }
  return out;
}

/**
 * Edits that drop the import specifiers a rewrite leaves unused: every reference to them lies
 * inside the replaced `ranges`, and the new text (`replacement`) does not name them (`retryWhen`
 * and `delay` once `retryWhen((e) => e.pipe(delay(1000)))` becomes `retry({ ... timer(...) })`).
 * A specifier in `renames` is kept under its new name (`retryWhen` -> `retry`), written in the
 * same edit, so the caller must not rename it again when `renamed` says so. A declaration left
 * with no specifier goes whole, with the line break before it.
 */
export function importsLeftUnused(
  ctx: AnalysisContext,
  ranges: readonly (readonly [number, number])[],
  replacement: string,
  renames: ReadonlyMap<TSESTree.Node, string> = new Map(),
): { edits: OptionEdit[]; renamed: ReadonlySet<TSESTree.Node> } {
  const inside = (n: TSESTree.Node) => ranges.some((r) => n.range[0] >= r[0] && n.range[1] <= r[1]);
  // A name the new text refers to; an object key (`{ count: 2, delay: ... }`) is not a reference,
  // but a branch of a conditional (`ok ? delay : other`) is.
  const references = replacement.replace(/([{,]\s*)[\w$]+(?=\s*:)/g, '$1');
  const named = (name: string) => nameIn(references, name);
  const edits: OptionEdit[] = [];
  const renamed = new Set<TSESTree.Node>();
  const text = ctx.sourceCode.text;
  const lastImport = ctx.sourceCode.ast.body.filter((s) => s.type === T.ImportDeclaration).at(-1);
  for (const statement of ctx.sourceCode.ast.body) {
    if (statement.type !== T.ImportDeclaration || statement.importKind === 'type') continue;
    const unused = statement.specifiers.filter((s) => {
      if (renames.has(s)) return false;
      const refs = ctx.sourceCode.scopeManager?.getDeclaredVariables(s)[0]?.references ?? [];
      return refs.length > 0 && refs.every((r) => inside(r.identifier)) && !named(s.local.name);
    });
    if (unused.length === 0) continue;
    const label = `drop ${unused.map((s) => s.local.name).join(', ')}`;
    if (unused.length === statement.specifiers.length) {
      let start = statement.range[0];
      while (start > 0 && /\s/.test(text[start - 1]!)) start--;
      // At the top of the file, the line break after it instead; not after the last import, where
      // a new declaration may be written.
      let end = statement.range[1];
      if (start === 0 && statement !== lastImport && text[end] === '\n') end++;
      edits.push({ path: [], range: [start, end], text: '', label });
      continue;
    }
    // Only `import { a, b } from 'm'`: the names kept are written again in their place.
    if (statement.specifiers.some((s) => s.type !== T.ImportSpecifier)) continue;
    const first = statement.specifiers[0]!;
    const last = statement.specifiers[statement.specifiers.length - 1]!;
    const kept = statement.specifiers.filter((s) => !unused.includes(s)).map((s) => renames.get(s) ?? ctx.sourceCode.getText(s));
    for (const s of statement.specifiers) if (renames.has(s)) renamed.add(s);
    edits.push({ path: [], range: [first.range[0], last.range[1]], text: kept.join(', '), label });
  }
  return { edits, renamed };
}
