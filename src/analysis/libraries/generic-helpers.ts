/** Small helpers shared by the generic-wrapper descriptors (cockatiel, rxjs, async, ...). */
import type { AnalysisContext, LibraryUse } from '../library.js';
import type { Node } from '../model.js';
import { contains } from './shared.js';

/**
 * How this file can name `exportName` of `module` in a suggestion: the local name of a named
 * import, or `ns.exportName` through a namespace import or require; undefined when it has no
 * binding (a suggestion must not introduce an unbound identifier).
 */
export function localReference(ctx: AnalysisContext, modules: readonly string[], exportName: string): string | undefined {
  let viaNamespace: string | undefined;
  for (const b of ctx.imports.bindings) {
    if (!modules.includes(b.module)) continue;
    if (b.path === exportName) return b.variable.name;
    if (b.path === 'module' && !viaNamespace) viaNamespace = `${b.variable.name}.${exportName}`;
  }
  return viaNamespace;
}

/** True when a use with path `path` (e.g. `StopError`, `retry.StopError`) appears inside `scope`. */
export function usesPathInside(uses: readonly LibraryUse[], path: string, scope: Node | undefined): boolean {
  if (!scope) return false;
  return uses.some((u) => u.path === path && contains(scope, u.expression));
}

/**
 * Source text of `outer` with `inner` (a node inside it) replaced by `replacement`: used to
 * rewrite one expression of a user's delay function while keeping the rest as written.
 */
export function replaceInside(ctx: AnalysisContext, outer: Node, inner: Node, replacement: string): string {
  const text = ctx.sourceCode.getText(outer);
  const start = inner.range[0] - outer.range[0];
  const end = inner.range[1] - outer.range[0];
  return text.slice(0, start) + replacement + text.slice(end);
}
