/**
 * Conditions decided by the deployment's configuration alone: `process.env.RETRY_404 === 'true'`,
 * `!import.meta.env.VITE_STRICT`, or a const of the same file set from one. The code cannot say
 * which way such a condition goes, but it says what the code does in each configuration, so a
 * filter that accepts a 4xx it names under such a condition retries that 4xx wherever the
 * setting is on. A condition on anything else the model does not know is no such fact.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, environmentRead, memberName, unwrap } from './ast.js';
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

const COMPARISONS = new Set(['===', '!==', '==', '!=']);
/** String methods on a setting, and whether a literal can be their result. */
const STRING_METHODS: Readonly<Record<string, (s: string) => boolean>> = {
  toLowerCase: (v) => v === v.toLowerCase(),
  toUpperCase: (v) => v === v.toUpperCase(),
  trim: (v) => v === v.trim(),
};

/** What a condition on configuration can be: true in some configuration, false in some, and the settings it reads. */
interface Possible {
  readonly canBeTrue: boolean;
  readonly canBeFalse: boolean;
  readonly reads: ReadonlySet<string>;
}

const constant = (v: boolean): Possible => ({ canBeTrue: v, canBeFalse: !v, reads: new Set() });

/** `process.env.X` / `process.env['X']` / `import.meta.env.X`, as the text of the read; undefined otherwise. */
function settingRead(node: Node, ctx: AnalysisContext): string | undefined {
  const read = environmentRead(node, (id) => ctx.evaluator.shadowed(id));
  return read && `${read.source}.env.${read.name}`;
}

/** A const of the file, followed to its initialiser. */
function followed(raw: Node, ctx: AnalysisContext, depth: number): Node {
  let node = unwrap(raw);
  for (let i = 0; i < 4 && node.type === T.Identifier && depth + i < 8; i++) {
    const init = constInitializer(ctx.evaluator.variableOf(node));
    if (!init) break;
    node = unwrap(init);
  }
  return node;
}

/**
 * A setting as a string to compare (`process.env.MODE`, `process.env.MODE?.toLowerCase()`):
 * its read, and whether a literal can be its value; undefined for anything else.
 */
function settingValue(raw: Node, ctx: AnalysisContext, depth: number): { read: string; accepts: (literal: string) => boolean } | undefined {
  const node = followed(raw, ctx, depth);
  const read = settingRead(node, ctx);
  if (read) return { read, accepts: () => true };
  if (node.type !== T.CallExpression || node.arguments.length > 0) return undefined;
  const callee = unwrap(node.callee);
  const method = callee.type === T.MemberExpression ? STRING_METHODS[memberName(callee) ?? ''] : undefined;
  if (!method || callee.type !== T.MemberExpression) return undefined;
  const inner = settingValue(callee.object, ctx, depth + 1);
  return inner && { read: inner.read, accepts: (v) => method(v) && inner.accepts(v) };
}

/**
 * Which ways a condition built from settings can go: a setting's truthiness, its comparison with a
 * string literal, `!`, `&&`/`||` over different settings, `Boolean(...)`, and consts of the file
 * set from them; literals and what the evaluator decides are constants. Undefined when it reads
 * anything else, or asks one setting twice (`X === 'a' && X === 'b'` can never hold).
 */
function possible(raw: Node, ctx: AnalysisContext, depth: number): Possible | undefined {
  if (depth > 8) return undefined;
  const node = followed(raw, ctx, depth);
  const known = truth(ctx.evaluator.evaluate(node));
  if (known !== UNKNOWN) return constant(known);
  const read = settingRead(node, ctx);
  if (read) return { canBeTrue: true, canBeFalse: true, reads: new Set([read]) };
  switch (node.type) {
    case T.UnaryExpression: {
      const inner = node.operator === '!' ? possible(node.argument, ctx, depth + 1) : undefined;
      return inner && { canBeTrue: inner.canBeFalse, canBeFalse: inner.canBeTrue, reads: inner.reads };
    }
    case T.BinaryExpression: {
      if (!COMPARISONS.has(node.operator) || node.left.type === T.PrivateIdentifier) return undefined;
      const [setting, other] = settingValue(node.left, ctx, depth + 1) ? [node.left, node.right] : [node.right, node.left];
      const value = settingValue(setting, ctx, depth + 1);
      const literal = ctx.evaluator.evaluate(other);
      if (!value || (typeof literal !== 'string' && literal !== undefined && literal !== null)) return undefined;
      // A setting may be unset, or any string the method can give.
      const equal = literal === undefined || literal === null || value.accepts(literal);
      const negated = node.operator === '!==' || node.operator === '!=';
      return { canBeTrue: negated || equal, canBeFalse: !negated || equal, reads: new Set([value.read]) };
    }
    case T.LogicalExpression: {
      if (node.operator === '??') return undefined;
      const a = possible(node.left, ctx, depth + 1);
      const b = possible(node.right, ctx, depth + 1);
      if (!a || !b || [...a.reads].some((r) => b.reads.has(r))) return undefined;
      const reads = new Set([...a.reads, ...b.reads]);
      return node.operator === '&&'
        ? { canBeTrue: a.canBeTrue && b.canBeTrue, canBeFalse: a.canBeFalse || b.canBeFalse, reads }
        : { canBeTrue: a.canBeTrue || b.canBeTrue, canBeFalse: a.canBeFalse && b.canBeFalse, reads };
    }
    case T.CallExpression: {
      const callee = unwrap(node.callee);
      const only = node.arguments.length === 1 ? node.arguments[0]! : undefined;
      if (callee.type !== T.Identifier || callee.name !== 'Boolean' || ctx.evaluator.shadowed(callee) || !only || only.type === T.SpreadElement) return undefined;
      return possible(only, ctx, depth + 1);
    }
    default:
      return undefined;
  }
}

/**
 * `node` as a condition on the deployment's configuration: it reads at least one environment
 * variable and nothing but configuration, and some configuration makes it true, some false.
 */
export function deploymentCondition(node: Node, ctx: AnalysisContext): DeploymentCondition | undefined {
  const p = possible(node, ctx, 0);
  if (!p || p.reads.size === 0 || !p.canBeTrue || !p.canBeFalse) return undefined;
  return { text: ctx.sourceCode.getText(node), reads: [...p.reads] };
}
