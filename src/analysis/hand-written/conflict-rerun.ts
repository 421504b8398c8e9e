/**
 * A transaction re-run on a conflict: the way back to another attempt requires the caught error to
 * carry a database conflict code (Prisma's P2034 write conflict or deadlock, PostgreSQL's and
 * CockroachDB's 40001 serialization failure and 40P01 deadlock, MySQL's ER_LOCK_DEADLOCK (1213), SQLite's
 * SQLITE_BUSY). MySQL's lock wait timeout is not one: it rolls back the statement only. The database rolled the transaction back, so nothing was written
 * and re-running it is what the database asks for: not a transient-failure retry of a dependency.
 * Its count is still judged; its waits, jitter and writes are not (selection.ts).
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { isFunctionNode, memberName, unwrap } from '../ast.js';
import type { Node, RetrySite } from '../model.js';
import type { Evaluator } from '../eval/evaluator.js';
import type { HandWritten } from './attempts.js';
import type { Shape } from './site.js';
import { requiredTerms } from './control-flow.js';

/**
 * Codes that say the database rolled the whole transaction back. Prisma's P2028 (the transaction
 * could not start, or expired before its commit) is one too: no commit happened.
 */
const CONFLICT_CODES: ReadonlySet<string | number> = new Set(['P2034', 'P2028', '40001', '40P01', 'ER_LOCK_DEADLOCK', 1213, 'SQLITE_BUSY']);

/** Properties drivers put the code on. */
const CODE_PROPERTIES: ReadonlySet<string> = new Set(['code', 'errno', 'sqlState', 'sqlstate']);

/** The test that limits the retry to conflicts, when every way back requires one. */
export function conflictRerun(hw: HandWritten, shape: Shape): Node | undefined {
  for (const c of shape.constraints) {
    for (const term of requiredTerms(c.test, c.want)) if (isConflictTest(hw.evaluator, term.expr, term.want)) return term.expr;
  }
  return undefined;
}

/**
 * Whether `node` having the value `want` means the code is a conflict code: `e.code === 'P2034'`,
 * `['P2034', 'P2028'].includes(e.code)` or an `||` of such tests when true; `e.code !== '40001'`
 * or an `&&` of such tests when false.
 */
function isConflictTest(evaluator: Evaluator, node: Node, want: boolean): boolean {
  const n = unwrap(node);
  if (n.type === T.UnaryExpression && n.operator === '!') return isConflictTest(evaluator, n.argument, !want);
  if (n.type === T.LogicalExpression && n.operator === (want ? '||' : '&&')) return isConflictTest(evaluator, n.left, want) && isConflictTest(evaluator, n.right, want);
  if (n.type === T.BinaryExpression && (want ? n.operator === '===' || n.operator === '==' : n.operator === '!==' || n.operator === '!=')) {
    const [code, value] = isCodeRead(n.left) ? [n.left, n.right] : [n.right, n.left];
    return isCodeRead(code) && isConflictCode(evaluator.evaluate(value as Node));
  }
  if (want && n.type === T.CallExpression && memberName(unwrap(n.callee)) === 'includes' && n.arguments.length === 1) {
    const arg = n.arguments[0]!;
    if (arg.type === T.SpreadElement || !isCodeRead(arg)) return false;
    const list = evaluator.evaluate((unwrap(n.callee) as TSESTree.MemberExpression).object);
    return Array.isArray(list) && list.length > 0 && list.every(isConflictCode);
  }
  return false;
}

function isCodeRead(node: Node): boolean {
  const name = memberName(unwrap(node));
  return name !== undefined && CODE_PROPERTIES.has(name);
}

function isConflictCode(value: unknown): boolean {
  return (typeof value === 'string' || typeof value === 'number') && CONFLICT_CODES.has(value);
}

/**
 * A library retry whose filter is a predicate written in its options that accepts conflicts only
 * (`shouldRetry: (e) => e.code === 'P2034'`, `retryIf: (e) => ['40001', '40P01'].includes(e.code)`):
 * the same re-run, read from the predicate's returned expression. The site itself when it is not one.
 */
export function withConflictRerun(site: RetrySite, evaluator: Evaluator): RetrySite {
  const at = site.errorFilter.node;
  const fn = at?.type === T.Property ? unwrap(at.value) : at && unwrap(at);
  if (site.conflictRerun || !fn || !isFunctionNode(fn) || !fn.body) return site;
  let returned: Node | undefined;
  if (fn.body.type !== T.BlockStatement) returned = fn.body;
  else if (fn.body.body.length === 1 && fn.body.body[0]!.type === T.ReturnStatement) returned = fn.body.body[0]!.argument ?? undefined;
  if (!returned) return site;
  for (const term of requiredTerms(returned, true)) if (isConflictTest(evaluator, term.expr, term.want)) return { ...site, conflictRerun: term.expr };
  return site;
}
