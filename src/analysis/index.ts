/**
 * The retry model of one file, built once and shared by every rule through a WeakMap keyed
 * by the Program node (a new parse on every keystroke gives a new key, so no stale reuse).
 */
import { reportInternalError } from './internal-error.js';
import { isAbsolute } from 'node:path';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { buildImportTable, memberChain, type ImportTable, type ProvidedGlobals } from './imports.js';
import { registerContext, type AnalysisContext, type ErrorShape, type LibraryDescriptor, type LibraryUse, type ProjectAccess } from './library.js';
import type { RetrySite } from './model.js';
import { OptionsView } from './options.js';
import { constInitializer } from './ast.js';
import { createEvaluator, type Evaluator } from './eval/evaluator.js';
import { LIBRARIES } from './libraries/index.js';
import { findHandWrittenSites, mayHoldHandWritten } from './hand-written/index.js';
import { withConflictRerun } from './hand-written/conflict-rerun.js';
import { createOperationAnalysis, type OperationAnalysis } from './operations/index.js';
import { siteSelection, type Aspect } from './selection.js';
import { readSettings, type SafeRetrySettings } from './settings.js';
import { declaredDescriptors, findWrapperSites, helpersOf, isFollowable, readModule, rememberLinted, resolveImport, type FileEnvironment } from './wrappers/index.js';
import { crossFileClassField, crossFileValue, importedValue, type OpenModule } from './operations/members.js';
import { nodeConfigValues } from './node-config.js';
import { buildYamlModel, isYamlProgram } from './yaml/index.js';
import { findingNodes, type FindingNode } from './finding-node.js';
import { findTypedOptionSites } from './typed-options.js';
import { findImportedInstanceSites } from './imported-instances.js';
import { indexNodes, isLeftOutOfIndex, nodesByShortcut, nodesOfSkippedType } from './node-lookup.js';

export type { RetrySite } from './model.js';

export interface RetryModel {
  readonly sites: readonly RetrySite[];
  readonly imports: ImportTable;
  readonly evaluator: Evaluator;
  readonly context: AnalysisContext;
  /** What each site repeats, its keys, nested retry layers and breakers; computed per site on demand. */
  readonly operations: OperationAnalysis;
  /** The sites a rule judges for one aspect of a retry (the one site-selection policy, `selection.ts`). */
  sitesFor(aspect: Aspect): readonly RetrySite[];
  /**
   * Where a finding about one of a site's settings is shown (`finding-node.ts`). Spring YAML shows an
   * inherited value on the config line that sets it, for the config and each instance inheriting it.
   */
  findingNode: FindingNode;
}

const cache = new WeakMap<TSESTree.Program, RetryModel>();

type AnyContext = Readonly<TSESLint.RuleContext<string, readonly unknown[]>>;

export function getRetryModel(context: AnyContext): RetryModel {
  const sourceCode = context.sourceCode;
  const program = sourceCode.ast;
  let model = cache.get(program);
  if (!model) {
    // Resilience4j's Spring YAML feeds the same rules through the same model shape.
    if (isYamlProgram(sourceCode)) model = buildYamlModel(sourceCode, context.filename);
    else {
      const env = fileEnvironment(context);
      model = buildModel(sourceCode, LIBRARIES, readSettings(context.settings), env);
      // The helpers it offers to files of the same run that import it, so they need not parse it again.
      rememberLinted(env.filename, sourceCode.text, model.context, helpersOf(model.context));
    }
    cache.set(program, model);
  }
  return model;
}

/** Where the file lives and how it was parsed: lets the model follow imports of the team's retry helpers. */
function fileEnvironment(context: AnyContext): FileEnvironment {
  const languageOptions = context.languageOptions as { parser?: unknown; parserOptions?: unknown } | undefined;
  return { filename: context.physicalFilename ?? context.filename, parser: languageOptions?.parser, parserOptions: languageOptions?.parserOptions };
}

export function buildModel(
  sourceCode: Readonly<TSESLint.SourceCode>,
  catalogue: readonly LibraryDescriptor[] = LIBRARIES,
  settings: SafeRetrySettings = {},
  env?: FileEnvironment,
): RetryModel {
  // Declared helpers (settings wrappers) are judged through the same catalogue path as libraries.
  const libraries = settings.wrappers?.length ? [...catalogue, ...declaredDescriptors(settings.wrappers)] : catalogue;
  const open = env?.filename ? openModule(env, libraries) : undefined;
  const project = env?.filename && open ? projectAccess(env, libraries, settings, open) : undefined;
  const context = createContext(sourceCode, providedGlobals(libraries), { file: env?.filename, open, libraries, project });
  const { evaluator, imports } = context;

  const sites: RetrySite[] = [];
  // How each library site is read again with a helper's parameters bound (wrappers/library-helpers.ts).
  const readers = new Map<RetrySite, { library: LibraryDescriptor; uses: readonly LibraryUse[] }>();
  const lookup = catalogueLookup(libraries);
  // Which libraries this file imports, found from its imports (a file that imports nothing skips them all).
  const modulesOf = new Map<LibraryDescriptor, string[]>();
  for (const m of imports.modules) {
    let found = lookup.byModule.get(m);
    if (!found) {
      // A module no descriptor names is tested once per catalogue, not once per importing file.
      found = lookup.matchers.filter((l) => l.matchModule!(m));
      if (lookup.byModule.size < MAX_LOOKED_UP) lookup.byModule.set(m, found);
    }
    for (const library of found) {
      const list = modulesOf.get(library);
      if (list) list.push(m);
      else modulesOf.set(library, [m]);
    }
  }
  // Catalogue order, so sites come out the same whatever the import order.
  for (const library of modulesOf.size ? libraries : []) {
    const modules = modulesOf.get(library);
    if (!modules) continue;
    const uses = collectUses(imports, new Set(modules));
    if (uses.length === 0) continue;
    try {
      const found = library.find!(uses, context).map((s) => withConflictRerun(s, evaluator));
      for (const s of found) readers.set(s, { library, uses });
      sites.push(...found);
    } catch (error) {
      // A descriptor bug must not take the linter down on a valid file; treat the file as unknown.
      reportInternalError(library.id, sourceCode, error);
    }
  }
  try {
    sites.push(...findImportedInstanceSites(context, lookup.instanceReaders));
  } catch (error) {
    reportInternalError('imported instances', sourceCode, error);
  }
  // The detectors start from catch scopes, function scopes and `.ok`/`.status` reads; a file with
  // none of the words any of them needs (mayHoldHandWritten) is settled by one test of its text.
  try {
    if (mayHoldHandWritten(sourceCode.text)) sites.push(...findHandWrittenSites(context));
  } catch (error) {
    reportInternalError('hand-written', sourceCode, error);
  }
  try {
    const typed = lookup.typed.filter((l) => l.modules.some((m) => imports.modules.has(m)));
    if (typed.length) sites.push(...findTypedOptionSites(context, typed, sites));
  } catch (error) {
    reportInternalError('typed options', sourceCode, error);
  }
  try {
    const reread = (site: RetrySite, ctx: AnalysisContext): RetrySite | undefined => {
      const r = readers.get(site);
      const uses = r?.uses.filter((u) => u.expression.parent === site.node);
      return uses?.length ? r!.library.find!(uses, ctx).find((s) => s.node === site.node) : undefined;
    };
    const wrapped = findWrapperSites(context, sites, env, analyseImported, reread);
    for (let i = 0; i < sites.length; i++) sites[i] = wrapped.replace.get(sites[i]!) ?? sites[i]!;
    sites.push(...wrapped.sites);
  } catch (error) {
    reportInternalError('wrappers', sourceCode, error);
  }
  const operations = createOperationAnalysis(context, () => sites, settings, libraries, { filename: env?.filename, open });
  return { sites, imports, evaluator, context, operations, sitesFor: siteSelection(sites, libraries, operations.overriddenByEveryCall), findingNode: findingNodes(() => sites) };
}

/** The context every reader of one parsed file shares: evaluator, imports, options and a node index. */
function createContext(
  sourceCode: Readonly<TSESLint.SourceCode>,
  globals: ProvidedGlobals,
  where: { file?: string | undefined; open?: OpenModule | undefined; libraries?: readonly LibraryDescriptor[]; project?: ProjectAccess | undefined } = {},
): AnalysisContext {
  const { file, open, libraries, project } = where;
  const evaluator = createEvaluator(sourceCode);
  const imports = buildImportTable(sourceCode, globals, copiedPackageNames(libraries ?? LIBRARIES));
  let index: Map<string, TSESTree.Node[]> | undefined;
  let found: Map<string, TSESTree.Node[]> | undefined;
  // node-config's settings, read from the project's config directory.
  if (file && isAbsolute(file)) evaluator.modules = nodeConfigValues(imports, file, sourceCode.text);
  let shapes: readonly ErrorShape[] | undefined;
  const context: AnalysisContext = {
    sourceCode,
    file,
    importedValue: file && open && isAbsolute(file) ? (id) => importedValue(id, context, file, open) : undefined,
    evaluator,
    imports,
    options: (node) => new OptionsView(evaluator, node),
    // Read only by a filter that could not be decided from the status alone: built on that question.
    errorShapes: () => (shapes ??= errorShapesOf(libraries ?? [], imports)),
    httpFacetOf: (module) => (libraries ?? []).find((l) => l.http && (l.modules.includes(module) || !!l.matchModule?.(module)))?.http,
    project: project && file && isAbsolute(file) ? project : undefined,
    nodesOfType(type) {
      // Keyword-led statements and functions are found without a walk; the rest share one index.
      const known = (found ??= new Map()).get(type);
      if (known) return known as never;
      let list = nodesByShortcut(sourceCode, type);
      if (!list && isLeftOutOfIndex(type)) list = nodesOfSkippedType(sourceCode, type);
      if (!list) {
        index ??= indexNodes(sourceCode);
        list = index.get(type) ?? [];
      }
      found.set(type, list);
      return list as never;
    },
  };
  if (file && open && isAbsolute(file)) {
    evaluator.moduleValue = (node) => crossFileValue(node, context, file, open);
    evaluator.classField = (typeName, key) => crossFileClassField(typeName, key, context, file, open);
  }
  registerContext(context);
  return context;
}

/** The error shapes of the libraries a file imports. */
function errorShapesOf(libraries: readonly LibraryDescriptor[], imports: ImportTable): readonly ErrorShape[] {
  const imported = (l: LibraryDescriptor) => [...imports.modules].some((m) => l.modules.includes(m) || !!l.matchModule?.(m));
  return libraries.filter((l) => l.operations?.errorShapes && imported(l)).flatMap((l) => l.operations!.errorShapes!);
}

/** Another file of the project, parsed like the linted one and read for what its exports do (cached by version). */
function openModule(env: FileEnvironment, libraries: readonly LibraryDescriptor[]): OpenModule {
  const globals = providedGlobals(libraries);
  return (specifier, fromFile) => {
    if (!isFollowable(specifier)) return undefined;
    const file = resolveImport(specifier, fromFile);
    return file ? readModule(file, env, (sourceCode) => createContext(sourceCode, globals, { file, libraries })) : undefined;
  };
}

/**
 * The linted file's window on the rest of its project: any file by path, parsed like the linted one
 * (shared with the import following, cached by version), and an operation analysis per opened file,
 * which follows that file's own imports. Built per linted file; what it opens outlives it in the
 * module cache.
 */
function projectAccess(env: FileEnvironment, libraries: readonly LibraryDescriptor[], settings: SafeRetrySettings, open: OpenModule): ProjectAccess {
  const globals = providedGlobals(libraries);
  const analyses = new WeakMap<AnalysisContext, OperationAnalysis>();
  return {
    // Opened like the linted file (its imports followed one file away), so a hook's imported
    // query function is read; kept apart from the contexts import following opens.
    open: (file) => (isAbsolute(file) ? readModule(file, env, (sourceCode) => createContext(sourceCode, globals, { file, libraries, open }), 'project') : undefined),
    facts(ctx, site) {
      let analysis = analyses.get(ctx);
      // Its imports are followed one file further for the clients its calls send through.
      if (!analysis) analyses.set(ctx, (analysis = createOperationAnalysis(ctx, () => [], settings, libraries, { filename: ctx.file, open, sitesOf: openedSites })));
      return analysis.facts(site);
    },
    sites: openedSites,
  };
}

/** The sites of files opened for their exports, by the opened file's source (a new version is a new source). */
const sitesOfOpened = new WeakMap<object, readonly RetrySite[]>();
function openedSites(ctx: AnalysisContext): readonly RetrySite[] {
  let sites = sitesOfOpened.get(ctx.sourceCode);
  if (!sites) {
    try {
      sites = buildModel(ctx.sourceCode, LIBRARIES, {}).sites;
    } catch (error) {
      reportInternalError('opened file', ctx.sourceCode, error);
      sites = [];
    }
    sitesOfOpened.set(ctx.sourceCode, sites);
  }
  return sites;
}

interface CatalogueLookup {
  /** Grows with the module names met that no descriptor names (bounded by MAX_LOOKED_UP). */
  readonly byModule: Map<string, readonly LibraryDescriptor[]>;
  /** Descriptors that recognise families of modules by a test (`@aws-sdk/client-*`). */
  readonly matchers: readonly LibraryDescriptor[];
  /** Descriptors whose options type marks a typed constant as a site (`optionsType`). */
  readonly typed: readonly LibraryDescriptor[];
  /** Descriptors that read clients built in another file (`importedInstances`). */
  readonly instanceReaders: readonly LibraryDescriptor[];
}

const lookups = new WeakMap<readonly LibraryDescriptor[], CatalogueLookup>();

/** Module name -> descriptors, built once per catalogue rather than once per file. */
/** Module names kept per catalogue with the descriptors that find sites in them (the catalogue's own, then those met). */
const MAX_LOOKED_UP = 20000;

function catalogueLookup(libraries: readonly LibraryDescriptor[]): CatalogueLookup {
  let lookup = lookups.get(libraries);
  if (lookup) return lookup;
  const byModule = new Map<string, LibraryDescriptor[]>();
  // Only descriptors that find sites: the others are read for their facets alone.
  const finders = libraries.filter((l) => l.find);
  for (const library of finders) {
    for (const m of library.modules) {
      const list = byModule.get(m);
      if (list) { if (!list.includes(library)) list.push(library); } else byModule.set(m, [library]);
    }
  }
  // A module named by one descriptor may still be matched by another's test.
  const matchers = finders.filter((l) => l.matchModule);
  for (const [m, list] of byModule) for (const l of matchers) if (!list.includes(l) && l.matchModule!(m)) list.push(l);
  lookup = { byModule, matchers, typed: libraries.filter((l) => l.optionsType), instanceReaders: libraries.filter((l) => l.importedInstances) };
  lookups.set(libraries, lookup);
  return lookup;
}

const globalsOfCatalogue = new WeakMap<readonly LibraryDescriptor[], ProvidedGlobals>();

/** The framework globals the catalogue's libraries stand behind (`$fetch`), built once per catalogue. */
function providedGlobals(libraries: readonly LibraryDescriptor[]): ProvidedGlobals {
  let globals = globalsOfCatalogue.get(libraries);
  if (globals) return globals;
  const map = new Map<string, { module: string; path: string }>();
  for (const l of libraries) for (const [name, path] of Object.entries(l.globals ?? {})) map.set(name, { module: l.modules[0]!, path });
  globals = map;
  globalsOfCatalogue.set(libraries, globals);
  return globals;
}

const copiedOfCatalogue = new WeakMap<readonly LibraryDescriptor[], ReadonlySet<string>>();

/**
 * The package names a copy kept in the repository is recognised by (`./p-retry/index.js`, see
 * copiedPackage in imports.ts), built once per catalogue: the standalone retry helpers (the
 * `legacy` modules, the small packages teams vendor) whose name is compound, `p-retry`,
 * `exponential-backoff`, `@lifeomic/attempt`. A plain word (`retry`, `async`) is what a team calls
 * its own folder, and a client's name (`react-query`, `axios`) is what it calls the folder of its
 * own setup around the client: neither is read as the package.
 */
function copiedPackageNames(libraries: readonly LibraryDescriptor[]): ReadonlySet<string> {
  let names = copiedOfCatalogue.get(libraries);
  if (names) return names;
  const compound = (m: string) => (m.startsWith('@') ? m.split('/').length === 2 : !m.includes('/') && m.includes('-'));
  names = new Set(libraries.flatMap((l) => l.legacy?.modules ?? []).filter(compound));
  copiedOfCatalogue.set(libraries, names);
  return names;
}

/** Another file of the project, read for the retry helpers it exports (its own imports are not followed). */
function analyseImported(sourceCode: Readonly<TSESLint.SourceCode>) {
  // The catalogue too: a helper may be a library retry around its parameter. A file that imports
  // no library of the catalogue runs none of it.
  const model = buildModel(sourceCode, LIBRARIES, {});
  return { ctx: model.context, helpers: helpersOf(model.context) };
}

function collectUses(imports: ImportTable, modules: ReadonlySet<string>): LibraryUse[] {
  const uses: LibraryUse[] = [];
  const seen = new Set<TSESLint.Scope.Variable>();
  const visit = (variable: TSESLint.Scope.Variable, module: string, path: string, depth: number) => {
    if (seen.has(variable) || depth > 8) return;
    seen.add(variable);
    for (const ref of variable.references) {
      if (ref.isWrite() || ref.init) continue;
      const { expression, path: p } = memberChain(ref.identifier as TSESTree.Node, path);
      uses.push({ module, path: p, expression });
      // const alias = pRetry; const op = retry.operation -> follow the alias as the same thing.
      const parent = expression.parent;
      if (parent?.type === T.VariableDeclarator && parent.init === expression && parent.id.type === T.Identifier) {
        const alias = variable.scope.set.get(parent.id.name) ?? findDeclared(parent.id, variable);
        if (alias && constInitializer(alias) === expression) visit(alias, module, p, depth + 1);
      }
    }
  };
  for (const binding of imports.bindings) if (modules.has(binding.module)) visit(binding.variable, binding.module, binding.path, 0);
  for (const g of imports.globalUses) {
    if (!modules.has(g.module)) continue;
    const { expression, path: p } = memberChain(g.identifier, g.path);
    uses.push({ module: g.module, path: p, expression });
  }
  // `require('m').x(...)` used inline without a binding.
  for (const use of imports.uses) {
    if (!modules.has(use.module) || use.node.type !== T.CallExpression) continue;
    const parent = use.node.parent;
    if (parent?.type === T.VariableDeclarator || parent?.type === T.AssignmentExpression) continue;
    const { expression, path: p } = memberChain(use.node, 'module');
    if (expression.parent?.type === T.VariableDeclarator) continue; // bound above
    uses.push({ module: use.module, path: p, expression });
  }
  return uses;
}

function findDeclared(id: TSESTree.Identifier, near: TSESLint.Scope.Variable): TSESLint.Scope.Variable | undefined {
  for (let s: TSESLint.Scope.Scope | null = near.scope; s; s = s.upper) {
    for (const child of [s, ...s.childScopes]) {
      const v = child.set.get(id.name);
      if (v && v.defs.some((d) => d.name === id)) return v;
    }
  }
  return undefined;
}
