/**
 * Conditions decided by the deployment's configuration alone: `process.env.RETRY_404 === 'true'`,
 * `!import.meta.env.VITE_STRICT`, or a const of the same file set from one. The code cannot say
 * which way such a condition goes, but it says what the code does in each configuration, so a
 * filter that accepts a 4xx it names under such a condition retries that 4xx wherever the
 * setting is on. A condition on anything else the model does not know is no such fact.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import { constInitializer, memberName, unwrap } from './ast.js';
import { UNKNOWN, truth } from './eval/values.js';
import type { AnalysisContext } from './library.js';

type Node = TSESTree.Node;

/** A condition on the deployment's configuration: its text and the environment variables it reads. */
export interface DeploymentCondition {
  /** The condition as written (`RETRY_404_ENABLED`, `process.env.STRICT !== '1'`). */
  readonly text: string;
  /** The configuration it reads (`process.env.RETRY_404`). */
  readonly reads: readonly string[];
}

/** Calls that keep a value's dependence on configuration (and nothing else). */
const GLOBAL_CONVERSIONS = new Set(['Boolean', 'String', 'Number', 'parseInt', 'parseFloat']);
const STRING_METHODS = new Set(['toLowerCase', 'toUpperCase', 'trim']);
const COMPARISONS = new Set(['===', '!==', '==', '!=']);

/** A name the file declares (not the global of that name). */
function declared(id: TSESTree.Identifier, ctx: AnalysisContext): boolean {
  return !!ctx.evaluator.variableOf(id)?.defs.length;
}

/** `process.env.X` / `process.env['X']` / `import.meta.env.X`, as the text of the read; undefined otherwise. */
function environmentRead(node: Node, ctx: AnalysisContext): string | undefined {
  if (node.type !== T.MemberExpression) return undefined;
  const name = memberName(node) ?? (node.computed && node.property.type === T.Literal && typeof node.property.value === 'string' ? node.property.value : undefined);
  if (name === undefined) return undefined;
  const env = unwrap(node.object);
  if (env.type !== T.MemberExpression || memberName(env) !== 'env') return undefined;
  const root = unwrap(env.object);
  const isProcess = root.type === T.Identifier && root.name === 'process' && !declared(root, ctx);
  const isImportMeta = root.type === T.MetaProperty && root.meta.name === 'import' && root.property.name === 'meta';
  return isProcess || isImportMeta ? `${isProcess ? 'process' : 'import.meta'}.env.${name}` : undefined;
}

/**
 * The configuration reads `node` is built from, or undefined when it reads anything else:
 * literals, comparisons, `!`, `&&`/`||`/`??`, conversions and consts of the file set from them.
 */
function configurationReads(raw: Node, ctx: AnalysisContext, reads: Set<string>, depth: number): boolean {
  if (depth > 8) return false;
  const node = unwrap(raw);
  const read = environmentRead(node, ctx);
  if (read) {
    reads.add(read);
    return true;
  }
  switch (node.type) {
    case T.Literal:
      return true;
    case T.Identifier: {
      if (node.name === 'undefined') return true;
      const init = constInitializer(ctx.evaluator.variableOf(node));
      return !!init && configurationReads(init, ctx, reads, depth + 1);
    }
    case T.UnaryExpression:
      return node.operator === '!' && configurationReads(node.argument, ctx, reads, depth + 1);
    case T.BinaryExpression:
      return COMPARISONS.has(node.operator) && node.left.type !== T.PrivateIdentifier &&
        configurationReads(node.left, ctx, reads, depth + 1) && configurationReads(node.right, ctx, reads, depth + 1);
    case T.LogicalExpression:
      return configurationReads(node.left, ctx, reads, depth + 1) && configurationReads(node.right, ctx, reads, depth + 1);
    case T.CallExpression: {
      const callee = unwrap(node.callee);
      if (callee.type === T.Identifier && GLOBAL_CONVERSIONS.has(callee.name) && !declared(callee, ctx)) {
        return node.arguments.every((a) => a.type !== T.SpreadElement && configurationReads(a, ctx, reads, depth + 1));
      }
      if (callee.type === T.MemberExpression && STRING_METHODS.has(memberName(callee) ?? '') && node.arguments.length === 0) {
        return configurationReads(callee.object, ctx, reads, depth + 1);
      }
      return false;
    }
    default:
      return false;
  }
}

/**
 * `node` as a condition on the deployment's configuration: it reads at least one environment
 * variable, nothing but configuration, and its truth is not known from the code.
 */
export function deploymentCondition(node: Node, ctx: AnalysisContext): DeploymentCondition | undefined {
  const reads = new Set<string>();
  if (!configurationReads(node, ctx, reads, 0) || reads.size === 0) return undefined;
  if (truth(ctx.evaluator.evaluate(node)) !== UNKNOWN) return undefined;
  return { text: ctx.sourceCode.getText(node), reads: [...reads] };
}
