/**
 * The retry model of one file, built once and shared by every rule through a WeakMap keyed
 * by the Program node (a new parse on every keystroke gives a new key, so no stale reuse).
 */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import { buildImportTable, memberChain, type ImportTable } from './imports.js';
import type { AnalysisContext, LibraryDescriptor, LibraryUse } from './library.js';
import type { RetrySite } from './model.js';
import { OptionsView } from './options.js';
import { createEvaluator, constInitializer, type Evaluator } from './static-value.js';
import { LIBRARIES } from './libraries/index.js';
import { findHandWrittenSites, mayContainHandWrittenRetry } from './hand-written.js';
import { createOperationAnalysis, type OperationAnalysis } from './operations.js';
import { readSettings, type SafeRetrySettings } from './settings.js';
import { declaredDescriptors, findWrapperSites, helpersOf, type FileEnvironment } from './wrappers/index.js';
import { buildYamlModel, isYamlProgram } from './yaml/index.js';

export type { RetrySite } from './model.js';

export interface RetryModel {
  readonly sites: readonly RetrySite[];
  readonly imports: ImportTable;
  readonly evaluator: Evaluator;
  readonly context: AnalysisContext;
  /** What each site repeats, its keys, nested retry layers and breakers; computed per site on demand. */
  readonly operations: OperationAnalysis;
}

const cache = new WeakMap<TSESTree.Program, RetryModel>();

type AnyContext = Readonly<TSESLint.RuleContext<string, readonly unknown[]>>;

export function getRetryModel(context: AnyContext): RetryModel {
  const sourceCode = context.sourceCode;
  const program = sourceCode.ast;
  let model = cache.get(program);
  if (!model) {
    // Resilience4j's Spring YAML feeds the same rules through the same model shape.
    model = isYamlProgram(sourceCode) ? buildYamlModel(sourceCode, context.filename) : buildModel(sourceCode, LIBRARIES, readSettings(context.settings), fileEnvironment(context));
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
  const evaluator = createEvaluator(sourceCode);
  const imports = buildImportTable(sourceCode);
  let index: Map<string, TSESTree.Node[]> | undefined;
  let skipped: Map<string, TSESTree.Node[]> | undefined;
  const context: AnalysisContext = {
    sourceCode,
    evaluator,
    imports,
    options: (node) => new OptionsView(evaluator, node),
    nodesOfType(type) {
      if (LEAVES.has(type) || TYPE_ONLY.has(type) || type.startsWith('TS')) {
        const list = (skipped ??= new Map()).get(type) ?? nodesOfSkippedType(sourceCode, type);
        skipped.set(type, list);
        return list as never;
      }
      index ??= indexNodes(sourceCode);
      return (index.get(type) ?? []) as never;
    },
  };

  const sites: RetrySite[] = [];
  // List the imported modules once, not once per library; a file that imports nothing skips them all.
  const imported = [...imports.modules];
  for (const library of libraries) {
    if (imported.length === 0) break;
    const modules = imported.filter((m) => library.modules.includes(m) || library.matchModule?.(m));
    if (modules.length === 0) continue;
    const uses = collectUses(imports, new Set(modules));
    if (uses.length === 0) continue;
    try {
      sites.push(...library.find(uses, context));
    } catch (error) {
      // A descriptor bug must not take the linter down on a valid file; treat the file as unknown.
      reportInternalError(library.id, sourceCode, error);
    }
  }
  if (mayContainHandWrittenRetry(sourceCode)) {
    try {
      sites.push(...findHandWrittenSites(context));
    } catch (error) {
      reportInternalError('hand-written', sourceCode, error);
    }
  }
  try {
    const wrapped = findWrapperSites(context, sites, env, analyseImported);
    for (let i = 0; i < sites.length; i++) sites[i] = wrapped.replace.get(sites[i]!) ?? sites[i]!;
    sites.push(...wrapped.sites);
  } catch (error) {
    reportInternalError('wrappers', sourceCode, error);
  }
  const byId = new Map(libraries.map((l) => [l.id, l]));
  const operations = createOperationAnalysis(context, () => sites, settings, (id) => byId.get(id)?.attemptParameter);
  return { sites, imports, evaluator, context, operations };
}

/** Another file of the project, read for the retry helpers it exports (its own imports are not followed). */
function analyseImported(sourceCode: Readonly<TSESLint.SourceCode>) {
  const model = buildModel(sourceCode, [], {});
  return { ctx: model.context, helpers: helpersOf(model.context) };
}

function reportInternalError(where: string, sourceCode: Readonly<TSESLint.SourceCode>, error: unknown) {
  if (process.env['SAFE_RETRY_DEBUG']) {
    process.stderr.write(`safe-retry: analysis of ${where} failed on a file of ${sourceCode.lines.length} lines: ${String((error as Error)?.stack ?? error)}\n`);
  }
  if (process.env['SAFE_RETRY_STRICT_ANALYSIS']) throw error;
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

/**
 * Nodes the index leaves out: leaves (most of any tree, and never asked for by type) and
 * TypeScript's type-only subtrees, which hold no code that runs. Skipping them roughly halves the
 * walk on the corpus; asking for one of these types walks the whole tree for it instead.
 */
const LEAVES = new Set<string>([T.Identifier, T.Literal, T.TemplateElement, T.PrivateIdentifier, T.ThisExpression, T.Super, T.EmptyStatement]);
const TYPE_ONLY = new Set<string>([
  T.TSTypeAnnotation, T.TSTypeParameterDeclaration, T.TSTypeParameterInstantiation,
  T.TSInterfaceDeclaration, T.TSTypeAliasDeclaration, T.TSDeclareFunction, T.TSInterfaceHeritage,
]);

function isSkipped(node: TSESTree.Node): boolean {
  // A parameter can carry decorators (`@Inject() x`), whose calls are code.
  if (node.type === T.Identifier) return !(node as { decorators?: unknown[] }).decorators?.length;
  return LEAVES.has(node.type) || TYPE_ONLY.has(node.type);
}

function indexNodes(sourceCode: Readonly<TSESLint.SourceCode>): Map<string, TSESTree.Node[]> {
  const index = new Map<string, TSESTree.Node[]>();
  walkTree(sourceCode, (node) => {
    let list = index.get(node.type);
    if (!list) index.set(node.type, (list = []));
    list.push(node);
  }, isSkipped);
  return index;
}

/** Every node of one type, for the types the index leaves out. */
function nodesOfSkippedType(sourceCode: Readonly<TSESLint.SourceCode>, type: string): TSESTree.Node[] {
  const out: TSESTree.Node[] = [];
  walkTree(sourceCode, (node) => { if (node.type === type) out.push(node); }, () => false);
  return out;
}

/** Pre-order, children pushed in reverse, so each visit comes in document order. */
function walkTree(sourceCode: Readonly<TSESLint.SourceCode>, visit: (node: TSESTree.Node) => void, skip: (node: TSESTree.Node) => boolean): void {
  const keys = sourceCode.visitorKeys as Record<string, readonly string[] | undefined>;
  const stack: TSESTree.Node[] = [sourceCode.ast];
  while (stack.length) {
    const node = stack.pop()!;
    visit(node);
    const childKeys = keys[node.type];
    if (!childKeys) continue;
    for (let i = childKeys.length - 1; i >= 0; i--) {
      const child = (node as unknown as Record<string, unknown>)[childKeys[i]!];
      if (Array.isArray(child)) {
        for (let j = child.length - 1; j >= 0; j--) {
          const c = child[j] as TSESTree.Node | null;
          if (c && typeof c.type === 'string' && !skip(c)) stack.push(c);
        }
      } else if (child && typeof (child as TSESTree.Node).type === 'string' && !skip(child as TSESTree.Node)) stack.push(child as TSESTree.Node);
    }
  }
}
