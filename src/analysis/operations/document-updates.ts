/**
 * Document-database updates whose effect the call itself spells out: MongoDB's (and Mongoose's)
 * `updateOne(filter, update)` and its neighbours, with the update document written in the call or
 * in a constant. Its operators say whether repeating it changes more than the first run did:
 * `$set`, `$unset`, `$setOnInsert` (with `upsert`), `$addToSet`, `$pull`, `$min`, `$max` land in the
 * same state however often they run; `$inc`, `$push`, `$mul`, `$pop` and `$bit` do not. A plain
 * field is Mongoose's implicit `$set`. The method names are MongoDB's own (no other common client
 * uses them), and the `$` operators are the evidence: anything else, a spread, a computed key or an
 * aggregation pipeline, says nothing here.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { memberName, staticPropertyName, unwrap } from '../ast.js';
import type { AnalysisContext } from '../library.js';
import type { OperationKind } from './types.js';

/** Methods taking `(filter, update, options)`. */
const UPDATES: ReadonlySet<string> = new Set(['updateOne', 'updateMany', 'findOneAndUpdate', 'findByIdAndUpdate']);
/** Methods taking `(filter, replacement, options)`: the whole document is written again, the same. */
const REPLACES: ReadonlySet<string> = new Set(['replaceOne', 'findOneAndReplace', 'findByIdAndReplace']);

const SAME_STATE: ReadonlySet<string> = new Set(['$set', '$unset', '$setOnInsert', '$addToSet', '$pull', '$pullAll', '$min', '$max', '$rename', '$currentDate']);
const ACCUMULATING: ReadonlySet<string> = new Set(['$inc', '$push', '$mul', '$pop', '$bit']);

/** What repeating the update does: an idempotent write, a write, or undefined when the call does not say. */
export function documentUpdateKind(call: TSESTree.CallExpression, ctx: AnalysisContext): OperationKind | undefined {
  const callee = unwrap(call.callee);
  if (callee.type !== T.MemberExpression) return undefined;
  const name = memberName(callee);
  if (name === undefined || (!UPDATES.has(name) && !REPLACES.has(name))) return undefined;
  const arg = call.arguments[1];
  if (!arg || arg.type === T.SpreadElement) return undefined;
  let doc: TSESTree.Node;
  try {
    doc = unwrap(ctx.evaluator.resolve(arg));
  } catch {
    return undefined;
  }
  if (doc.type !== T.ObjectExpression || doc.properties.length === 0) return undefined;
  let operators = 0;
  let accumulates = false;
  for (const p of doc.properties) {
    if (p.type !== T.Property) return undefined;
    const key = staticPropertyName(p);
    if (key === undefined) return undefined;
    if (!key.startsWith('$')) continue;
    operators++;
    if (ACCUMULATING.has(key)) accumulates = true;
    else if (!SAME_STATE.has(key)) return undefined;
  }
  if (REPLACES.has(name)) return operators === 0 ? 'idempotent-write' : undefined;
  // Plain fields only are Mongoose's implicit `$set`; the driver refuses them, so either way no accumulation.
  return accumulates ? 'write' : 'idempotent-write';
}
