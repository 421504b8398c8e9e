/**
 * Which local names are bound to which module exports. Recognition is by binding, never by
 * name: `pRetry(...)` is a p-retry call because `pRetry` was imported or required from
 * `p-retry`, whatever the local name.
 */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, findVariable, patternKey, propertyKey, unwrap, type Scope } from './ast.js';

type Variable = TSESLint.Scope.Variable;

/**
 * `default` is a default import; `module` is the whole module object (`require(m)`,
 * `import * as m`, `import m = require()`), which also acts as the default when called;
 * anything else is a named export, with `.member` segments for properties of it.
 */
export interface ModuleRef {
  readonly module: string;
  readonly path: string;
}

export interface ImportBinding extends ModuleRef {
  readonly variable: Variable;
  /** The import declaration or require call: the node to report for a banned module. */
  readonly node: TSESTree.Node;
}

export interface ModuleUse {
  readonly module: string;
  /** The import/export declaration or the require() call. */
  readonly node: TSESTree.Node;
  /** The module specifier string: the narrowest place to report a banned module. */
  readonly source: TSESTree.Node;
  /** `import type` / `export type`: erased at compile time, so nothing runs. */
  readonly typeOnly?: boolean;
}

export interface ImportTable {
  readonly bindings: readonly ImportBinding[];
  /** Every import/require of a module, including side-effect imports and re-exports. */
  readonly uses: readonly ModuleUse[];
  readonly modules: ReadonlySet<string>;
  resolve(node: TSESTree.Node): ModuleRef | undefined;
  bindingOf(variable: Variable): ImportBinding | undefined;
  /** References to a framework's undeclared globals that stand for a library export (`$fetch`). */
  readonly globalUses: readonly (ModuleRef & { readonly identifier: TSESTree.Identifier })[];
  /** The module a specifier written in this file names, as `modules` and the bindings name it. */
  moduleOf(specifier: string): string;
}

/** Global name -> the module export it stands for, when a file does not declare the name. */
export type ProvidedGlobals = ReadonlyMap<string, ModuleRef>;

/**
 * The module a specifier names, as the catalogue names modules. `packages` are the catalogue's
 * names a copy kept in the repository is recognised by (see copiedPackage); without them a
 * relative specifier is returned as written.
 */
export function normaliseModule(name: string, packages?: ReadonlySet<string>): string {
  // Only a relative specifier can name a copy; copiedPackage settles most of them with two substring tests.
  if (name.charCodeAt(0) === 46 /* . */) return copiedPackage(name, packages) ?? name;
  if (name.startsWith('node:')) return name.slice(5);
  // Deno and Supabase edge functions name npm packages by specifier or CDN URL:
  // `npm:stripe@14.21.0`, `https://esm.sh/stripe@14.21.0?target=deno`, `https://esm.sh/@scope/pkg@2/sub`.
  const cdn = /^(?:npm:|https?:\/\/esm\.sh\/(?:v\d+\/)?)((?:@[\w.-]+\/)?[\w.-]+?)(?:@[^/?#]*)?(\/[^?#]*)?(?:[?#].*)?$/.exec(name);
  return cdn ? cdn[1]! + (cdn[2] ?? '') : name;
}

/** `index`, `index.js`, `index.ts` and the like: a folder's entry, named explicitly. */
const FOLDER_ENTRY = /^index(?:\.[cm]?[jt]s)?$/;

/**
 * The package a relative import reaches when the path itself says which package it is, decided from
 * the specifier's text alone (no disk access):
 * - a path into an installed package, `../node_modules/.pnpm/p-retry@7.1.1/node_modules/p-retry/index.js`
 *   (what bundlers that keep modules emit): that package, with the path inside it (any package);
 * - the entry of a folder named exactly as one of `packages`, `./p-retry/index.js`,
 *   `../vendor/async-retry/index`: a copy of that package kept in the repository (langchain keeps
 *   p-retry so, to ship it in CommonJS).
 * A folder imported without its entry (`./p-retry`) and a file (`./async-retry.js`) are not taken:
 * from the text they cannot be told from a team's own module, and teams do name their own helpers
 * `async-retry.ts` or `fetch-retry.ts` with another API. Which names `packages` holds is the
 * catalogue's choice (index.ts: standalone retry helpers with a compound name, never a word like
 * `retry` or `axios` that a team calls its own folder).
 */
export function copiedPackage(specifier: string, packages?: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  // Most relative imports end in neither a folder's entry nor pass through node_modules: two
  // substring tests settle them.
  const installed = specifier.includes('/node_modules/');
  if (!installed && !(packages && FOLDER_ENTRY.test(specifier.slice(specifier.lastIndexOf('/') + 1)))) return undefined;
  const segments = specifier.split('/');
  const n = segments.length;
  const nodeModules = installed ? segments.lastIndexOf('node_modules') : -1;
  if (nodeModules >= 0 && nodeModules < n - 1) {
    const scoped = segments[nodeModules + 1]!.startsWith('@');
    const end = nodeModules + (scoped ? 3 : 2);
    if (end > n) return undefined;
    const rest = segments.slice(end);
    if (rest.length && FOLDER_ENTRY.test(rest[rest.length - 1]!)) rest.pop();
    return [...segments.slice(nodeModules + 1, end), ...rest].join('/');
  }
  if (!packages || n < 3 || !FOLDER_ENTRY.test(segments[n - 1]!)) return undefined;
  const folder = segments[n - 2]!;
  if (packages.has(folder)) return folder;
  const scope = segments[n - 3]!;
  return scope.startsWith('@') && packages.has(`${scope}/${folder}`) ? `${scope}/${folder}` : undefined;
}

export function buildImportTable(
  sourceCode: Readonly<TSESLint.SourceCode>, provided?: ProvidedGlobals, packages?: ReadonlySet<string>,
): ImportTable {
  const normalise = (name: string) => normaliseModule(name, packages);
  const program = sourceCode.ast;
  const scopeManager = sourceCode.scopeManager;
  const byVariable = new Map<Variable, ImportBinding>();
  const bindings: ImportBinding[] = [];
  const uses: ModuleUse[] = [];
  const modules = new Set<string>();
  const scopeOf = (n: TSESTree.Node): Scope => sourceCode.getScope(n);

  const bind = (variable: Variable | undefined, module: string, path: string, node: TSESTree.Node) => {
    if (!variable || byVariable.has(variable)) return;
    const b: ImportBinding = { module, path, variable, node };
    byVariable.set(variable, b);
    bindings.push(b);
  };
  const declared = (id: TSESTree.Identifier) => findVariable(scopeOf(id), id.name);

  for (const statement of program.body) {
    if (statement.type === T.ImportDeclaration) {
      const module = normalise(statement.source.value);
      modules.add(module);
      const typeOnly = statement.importKind === 'type' ||
        (statement.specifiers.length > 0 && statement.specifiers.every((s) => s.type === T.ImportSpecifier && s.importKind === 'type'));
      uses.push({ module, node: statement, source: statement.source, typeOnly });
      if (statement.importKind === 'type') continue;
      for (const spec of statement.specifiers) {
        if (spec.type === T.ImportSpecifier && spec.importKind === 'type') continue;
        const variable = sourceCode.scopeManager?.getDeclaredVariables(spec)[0];
        if (spec.type === T.ImportDefaultSpecifier) bind(variable, module, 'default', statement);
        else if (spec.type === T.ImportNamespaceSpecifier) bind(variable, module, 'module', statement);
        else {
          const imported = spec.imported.type === T.Identifier ? spec.imported.name : String(spec.imported.value);
          bind(variable, module, imported === 'default' ? 'default' : imported, statement);
        }
      }
    } else if (
      (statement.type === T.ExportNamedDeclaration || statement.type === T.ExportAllDeclaration) &&
      statement.source
    ) {
      const module = normalise(statement.source.value);
      modules.add(module);
      uses.push({ module, node: statement, source: statement.source, typeOnly: statement.exportKind === 'type' });
    } else if (
      statement.type === T.TSImportEqualsDeclaration &&
      statement.moduleReference.type === T.TSExternalModuleReference &&
      statement.moduleReference.expression.type === T.Literal
    ) {
      const module = normalise(String(statement.moduleReference.expression.value));
      modules.add(module);
      uses.push({ module, node: statement, source: statement.moduleReference.expression });
      bind(sourceCode.scopeManager?.getDeclaredVariables(statement)[0], module, 'module', statement);
    }
  }

  // require() calls, found through the references to an undeclared (or createRequire'd)
  // `require`, so no AST walk is needed.
  const requireRefs: TSESTree.Identifier[] = [];
  const globalScope = scopeManager?.globalScope;
  // A file that never spells `require` has no require() call: one substring search spares the
  // walk over every unresolved name of the file.
  if (globalScope && sourceCode.text.includes('require')) {
    // CommonJS files: ESLint declares `require` as a configured global, so references resolve to it.
    const configured = globalScope.set.get('require');
    if (configured && configured.defs.length === 0) {
      for (const ref of configured.references) requireRefs.push(ref.identifier as TSESTree.Identifier);
    } else {
      for (const ref of globalScope.through) if (ref.identifier.name === 'require') requireRefs.push(ref.identifier as TSESTree.Identifier);
    }
    const moduleScope = globalScope.childScopes.find((s) => s.type === 'module') ?? globalScope;
    const local = moduleScope.set.get('require');
    if (local && isCreateRequire(constInitializer(local))) {
      for (const ref of local.references) if (!ref.isWrite()) requireRefs.push(ref.identifier as TSESTree.Identifier);
    }
  }
  for (const id of requireRefs) {
    const call = id.parent;
    if (call?.type !== T.CallExpression || call.callee !== id) continue;
    const arg = call.arguments[0];
    const name = arg?.type === T.Literal && typeof arg.value === 'string' ? arg.value
      : arg?.type === T.TemplateLiteral && arg.expressions.length === 0 ? arg.quasis[0]?.value.cooked : undefined;
    if (!name) continue;
    const module = normalise(name);
    modules.add(module);
    uses.push({ module, node: call, source: arg! });
    bindRequire(call, module);
  }

  const globalUses = globalScope && provided?.size ? providedGlobalUses(sourceCode, globalScope, provided) : [];
  const byGlobal = new Map<TSESTree.Node, ModuleRef>();
  for (const g of globalUses) {
    modules.add(g.module);
    byGlobal.set(g.identifier, g);
  }

  function bindRequire(call: TSESTree.CallExpression, module: string) {
    // const x = require('m') / const x = require('m').y / const { a: b } = require('m'), and the
    // same through a compiler's interop helper: const x = __importDefault(require('m')).
    const chain = memberChain(interopWrapper(call) ?? call, 'module');
    if (!chain.complete) return;
    const { path, expression: node } = chain;
    const parent = node.parent;
    if (parent?.type === T.VariableDeclarator && parent.init === node) {
      if (parent.id.type === T.Identifier) bind(declared(parent.id), module, path, call);
      else if (parent.id.type === T.ObjectPattern) bindPattern(parent.id, module, path, call);
    } else if (parent?.type === T.AssignmentExpression && parent.right === node && parent.left.type === T.Identifier) {
      const variable = declared(parent.left);
      if (variable && variable.references.filter((r) => r.isWrite()).length === 1) bind(variable, module, path, call);
    }
  }

  function bindPattern(pattern: TSESTree.ObjectPattern, module: string, base: string, node: TSESTree.Node) {
    for (const p of pattern.properties) {
      if (p.type !== T.Property || p.computed) continue;
      const key = patternKey(p);
      if (!key) continue;
      const target = p.value.type === T.AssignmentPattern ? p.value.left : p.value;
      if (target.type === T.Identifier) bind(declared(target), module, joinPath(base, key), node);
      else if (target.type === T.ObjectPattern) bindPattern(target, module, joinPath(base, key), node);
    }
  }

  function resolve(raw: TSESTree.Node, depth = 0): ModuleRef | undefined {
    if (depth > 16) return undefined;
    const node = unwrap(raw);
    if (node.type === T.Identifier) {
      const provider = byGlobal.get(node);
      if (provider) return { module: provider.module, path: provider.path };
      const variable = findVariable(scopeOf(node), node.name);
      if (!variable) return undefined;
      const binding = byVariable.get(variable);
      if (binding) return binding;
      const init = constInitializer(variable);
      return init ? resolve(init, depth + 1) : undefined;
    }
    if (node.type === T.MemberExpression) {
      const base = resolve(node.object, depth + 1);
      if (!base) return undefined;
      const key = propertyKey(node, () => undefined);
      return key === undefined ? undefined : { module: base.module, path: joinPath(base.path, key) };
    }
    // `require('m')` used inline: resolved through the uses collected above.
    if (node.type === T.CallExpression && node.callee.type === T.Identifier && node.callee.name === 'require') {
      const use = uses.find((u) => u.node === node);
      return use ? { module: use.module, path: 'module' } : undefined;
    }
    return undefined;
  }

  return { bindings, uses, modules, resolve, bindingOf: (v) => byVariable.get(v), globalUses, moduleOf: normalise };
}

/**
 * The references to each provided global the file leaves undeclared: unresolved names, or a
 * global the ESLint configuration declares (no definition in the file). A local `$fetch` shadows.
 */
function providedGlobalUses(
  sourceCode: Readonly<TSESLint.SourceCode>, globalScope: Scope, provided: ProvidedGlobals,
): (ModuleRef & { identifier: TSESTree.Identifier })[] {
  const found: (ModuleRef & { identifier: TSESTree.Identifier })[] = [];
  for (const [name, ref] of provided) {
    // One substring search spares the walk for the files (nearly all) that never spell the name.
    if (!sourceCode.text.includes(name)) continue;
    const configured = globalScope.set.get(name);
    const refs = configured
      ? (configured.defs.length === 0 ? configured.references : [])
      : globalScope.through.filter((r) => r.identifier.name === name);
    // A global the file assigns is the file's own.
    if (refs.some((r) => r.isWrite())) continue;
    for (const r of refs) {
      found.push({ module: ref.module, path: ref.path, identifier: r.identifier as TSESTree.Identifier });
    }
  }
  return found;
}

/**
 * `module.x` and `default.x` both mean the export `x` (CommonJS interop makes a CJS module's
 * properties reachable either way); `module.default` is the default export.
 */
export function joinPath(base: string, key: string): string {
  if (base === 'module' || base === 'default') return key === 'default' ? 'default' : key;
  return `${base}.${key}`;
}

/**
 * Climbs `x.a.b` from `x` while the keys are static: the outermost member expression and the export
 * path it names (`module` + `.a.b`). `complete` is false when a computed key stopped the climb.
 */
export function memberChain(start: TSESTree.Node, path: string): { expression: TSESTree.Node; path: string; complete: boolean } {
  let expression = start;
  let p = path;
  while (expression.parent?.type === T.MemberExpression && expression.parent.object === expression) {
    const key = propertyKey(expression.parent, () => undefined);
    if (key === undefined) return { expression, path: p, complete: false };
    p = joinPath(p, key);
    expression = expression.parent;
  }
  // `(0, x.default)(...)`: compiled CommonJS calls an import through a comma expression so that
  // `this` is not bound; the call's callee is then the sequence, not the member.
  const seq = expression.parent;
  if (seq?.type === T.SequenceExpression && seq.expressions.length === 2 && seq.expressions[1] === expression && seq.expressions[0]!.type === T.Literal &&
    seq.parent?.type === T.CallExpression && seq.parent.callee === seq) {
    expression = seq;
  }
  return { expression, path: p, complete: true };
}

/** True when a reference path means "the module's callable default" (default import, require, namespace). */
export function isDefaultPath(path: string): boolean {
  return path === 'default' || path === 'module';
}

/**
 * Helpers that compilers wrap a `require()` in for ES-module interop: TypeScript's
 * `__importDefault`/`__importStar` (also as `tslib.__importDefault`), Babel's
 * `_interopRequireDefault`/`_interopRequireWildcard`, esbuild's `__toESM`. Each returns an object
 * whose `default` is the CommonJS module itself, which is how this table reads `module.default`.
 */
const INTEROP = new Set(['__importDefault', '__importStar', '_interopRequireDefault', '_interopRequireWildcard', '__toESM']);

function interopWrapper(call: TSESTree.CallExpression): TSESTree.CallExpression | undefined {
  const parent = call.parent;
  if (parent?.type !== T.CallExpression || parent.arguments[0] !== call) return undefined;
  const callee = unwrap(parent.callee);
  const name = callee.type === T.Identifier ? callee.name
    : callee.type === T.MemberExpression && !callee.computed && callee.property.type === T.Identifier ? callee.property.name : undefined;
  return name && INTEROP.has(name) ? parent : undefined;
}

function isCreateRequire(init: TSESTree.Node | undefined): boolean {
  if (!init || init.type !== T.CallExpression) return false;
  const callee = unwrap(init.callee);
  return (callee.type === T.Identifier && callee.name === 'createRequire') ||
    (callee.type === T.MemberExpression && !callee.computed && callee.property.type === T.Identifier && callee.property.name === 'createRequire');
}
