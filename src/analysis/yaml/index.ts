/**
 * The retry model of a YAML file: the same RetryModel shape the rules read for JavaScript, built
 * from Resilience4j's Spring configuration instead of code. Nothing here is JavaScript, so the
 * import table is empty and the operation analysis knows no operations; breakers come from
 * circuit-breaker instances of the same name.
 */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import type { RetryModel } from '../index.js';
import type { ImportTable } from '../imports.js';
import type { AnalysisContext } from '../library.js';
import type { RetrySite } from '../model.js';
import type { OperationAnalysis, OperationFacts } from '../operations/index.js';
import { OptionsView } from '../options.js';
import { siteSelection } from '../selection.js';
import { createEvaluator } from '../eval/evaluator.js';
import { readResilience4jYaml, type YamlProblem } from './resilience4j.js';

const EMPTY_IMPORTS: ImportTable = {
  bindings: [],
  uses: [],
  modules: new Set(),
  resolve: () => undefined,
  bindingOf: () => undefined,
  globalUses: [],
  moduleOf: (specifier) => specifier,
};

const NO_FACTS: OperationFacts = { fn: undefined, httpCalls: [], groups: [], nested: [] };

/** True for the Program of yaml-eslint-parser (its documents, or its parser services flag). */
export function isYamlProgram(sourceCode: Readonly<TSESLint.SourceCode>): boolean {
  const body = (sourceCode.ast as unknown as { body?: ReadonlyArray<{ type?: string }> }).body ?? [];
  if (body.some((n) => n.type === 'YAMLDocument')) return true;
  return (sourceCode.parserServices as { isYAML?: boolean } | undefined)?.isYAML === true;
}

/** The Resilience4j problems of each linted YAML file, found while its model is built. */
const problemsByProgram = new WeakMap<object, readonly YamlProblem[]>();

/** What Spring cannot bind (or the runtime cannot apply) in a YAML file whose model is built; empty for code. */
export function yamlConfigProblems(sourceCode: Readonly<TSESLint.SourceCode>): readonly YamlProblem[] {
  return problemsByProgram.get(sourceCode.ast) ?? [];
}

export function buildYamlModel(sourceCode: Readonly<TSESLint.SourceCode>, filename?: string): RetryModel {
  let sites: RetrySite[] = [];
  try {
    const read = readResilience4jYaml(sourceCode, filename);
    sites = read.sites;
    problemsByProgram.set(sourceCode.ast, read.problems);
  } catch (error) {
    // Like a descriptor bug: a valid file must never take the linter down.
    if (process.env['SAFE_RETRY_STRICT_ANALYSIS']) throw error;
  }
  const evaluator = createEvaluator(sourceCode);
  const context: AnalysisContext = {
    sourceCode,
    evaluator,
    imports: EMPTY_IMPORTS,
    options: (node) => new OptionsView(evaluator, node),
    nodesOfType: () => [] as never,
  };
  const operations: OperationAnalysis = {
    facts: () => NO_FACTS,
    clientSitesOf: () => [],
    overriddenByEveryCall: () => false,
    breakerOf: (site) => site.breaker as TSESTree.Node | undefined,
  };
  return { sites, imports: EMPTY_IMPORTS, evaluator, context, operations, sitesFor: siteSelection(sites, []), findingNode: (site, node) => node ?? site.reportNode };
}
