/**
 * Hand-written retries: loops and self-recursion that re-run an operation after a failure.
 *
 * The detector reads three things from the code around a retried call:
 * - the constraints that must hold to get from a failure back to another attempt (the loop
 *   test, `if (attempt >= max) throw` guards, `retries > 0 ? again() : reject()`), evaluated
 *   per attempt to find the bound (bound.ts);
 * - the sleep on the failure path (sleeps.ts), whose argument is evaluated per attempt with
 *   interval arithmetic (`Math.random()` is [0, 1]) to get the schedule, its growth and its
 *   jitter (schedule.ts);
 * - the guards that look at the error or the response, evaluated per HTTP status to get the
 *   error filter (filter.ts).
 * Counters are modelled per attempt (attempts.ts) on the one evaluator (eval/). Loops are found
 * from catch clauses and `.ok`/`.status` reads (loops.ts), recursion from functions that name
 * themselves in their body (recursion.ts). Anything that cannot be read stays UNKNOWN.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { contains, unwrap, type Loop } from '../ast.js';
import type { AnalysisContext } from '../library.js';
import type { Node, RetrySite } from '../model.js';
import { catchClauses, nodesAtWord } from '../node-lookup.js';
import type { HandWritten } from './attempts.js';
import { nearestLoop } from './control-flow.js';
import type { BoundCall } from './helper-call.js';
import { interceptorSites } from './interceptors.js';
import { loopSite } from './loops.js';
import { recursionSite } from './recursion.js';
import { callsJudgingThrough } from './status-predicates.js';
import { LOGGER_NAME } from '../operations/vocabulary.js';

export type { BoundCall } from './helper-call.js';

// A dot first: a literal first character lets the scan skip ahead, twice as fast as `\b` here.
const STATUS_WORD = /\.\s*(?:ok|status|statusCode|httpStatusCode|httpStatus|getStatus|getStatusCode)\b/g;

/**
 * The hand-written retry sites of a file; with `bound`, only those inside that helper, read as
 * if the helper were called with those arguments.
 */
export function findHandWrittenSites(ctx: AnalysisContext, bound?: BoundCall): RetrySite[] {
  const hw: HandWritten = { ctx, evaluator: ctx.evaluator, bound };
  const sourceCode = ctx.sourceCode;
  const sites: RetrySite[] = [];
  const loops = new Set<Loop>();
  // Every `catch` has a scope: the scope analysis lists them without a look at the text.
  for (const handler of catchClauses(sourceCode)) {
    const loop = nearestLoop(handler.parent);
    if (loop) loops.add(loop);
  }
  // `res.ok` / `err.status` in a loop: found from the words, not from every member expression.
  for (const id of nodesAtWord(sourceCode, STATUS_WORD, isStatusProperty, { atEnd: true })) {
    const loop = nearestLoop(id.parent!);
    if (loop) loops.add(loop);
    // Read in a function the loop hands its response to (`if (!shouldRetry(res)) return res`).
    else for (const call of callsJudgingThrough(ctx, id.parent as TSESTree.MemberExpression)) {
      const caller = nearestLoop(call);
      if (caller) loops.add(caller);
    }
  }
  // A returned result's error in a loop: `result.error`, or `const { data, error } = await op()`.
  for (const id of nodesAtWord(sourceCode, ERROR_WORD, isResultError, { atEnd: true, after: '.{,' })) {
    const loop = nearestLoop(id.parent!);
    if (loop) loops.add(loop);
  }
  const within = bound?.fn;
  for (const loop of loops) {
    if (within && !contains(within, loop)) continue;
    const s = guard(() => loopSite(hw, loop));
    if (s) sites.push(s);
  }
  const functions: TSESTree.FunctionLike[] = [
    ...ctx.nodesOfType(T.FunctionDeclaration),
    ...ctx.nodesOfType(T.FunctionExpression),
    ...ctx.nodesOfType(T.ArrowFunctionExpression),
  ];
  for (const fn of functions) {
    if (within && !contains(within, fn)) continue;
    const s = recursionSite(hw, fn, guard);
    if (s) sites.push(s);
  }
  for (const s of interceptorSites(hw, guard)) {
    if (!within || contains(within, s.node)) sites.push(s);
  }
  return sites.sort((x, y) => x.node.range[0] - y.node.range[0]);
}

/**
 * A word every hand-written site needs somewhere in its file, so that a file without any of them is
 * settled without the detectors (about a third of a typical codebase's files). Each detector starts
 * from, or needs on its way back to another attempt, one of:
 * - loops: a `catch` clause, a status read (`.ok`, `.status*`) or a returned error (`.error`, `{ err }`);
 * - recursion (and cycles through another function): a failure between the function and its call
 *   again (failurePath, callbackStep, responseFailure): a `catch` clause or `.catch(`, a `.then(`
 *   handler, a failure callback property (`onError`, `onFail*`, `onReject*`), an error-first
 *   callback whose first parameter is named `err`, `error`, `e`, `ex`, `er` or `exc` (any case), an
 *   `ok`/status key in a condition, or the falsy result of an `await`ed call;
 * - interceptors: `interceptors.response.use`.
 * The test is case-insensitive and looser than each of those (a word in a comment passes too), and
 * any `\u` escape passes, since an identifier may spell one of those names with escapes.
 */
const HAND_WRITTEN_HINT = /catch|then|await|interceptors|on(?:fail|error|reject)|status|\bok\b|err|\\u/i;
/**
 * The short error-parameter names of HAND_WRITTEN_HINT, tested apart: with them in the alternation
 * every `e` of the text starts a look-behind, and the words above settle most files first.
 */
const SHORT_ERROR_NAME = /(?<![\w$])(?:e|ex|er|exc)(?![\w$])/i;

/** False when no hand-written site can be in a file of this text (see HAND_WRITTEN_HINT). */
export function mayHoldHandWritten(text: string): boolean {
  return HAND_WRITTEN_HINT.test(text) || SHORT_ERROR_NAME.test(text);
}

/** One construct's analysis must not cost the others theirs. */
function guard<R>(f: () => R | undefined): R | undefined {
  try {
    return f();
  } catch (error) {
    if (process.env['SAFE_RETRY_STRICT_ANALYSIS']) throw error;
    return undefined;
  }
}

// Only a property (`result.error`) or a destructured key (`{ data, error }`) is a returned error:
// the word after `.`, `{` or `,` (nodesAtWord's `after`), which skips `catch (err)`, `err.message`
// and most other uses.
const ERROR_WORD = /err(?:or)?\b/g;

/** The `error` of `result.error` (on a variable) or of `const { error } = ...`. */
function isResultError(n: Node): boolean {
  const p = n.parent;
  if (n.type !== T.Identifier || !p) return false;
  if (p.type === T.MemberExpression) return p.property === n && !p.computed && unwrap(p.object).type === T.Identifier && !LOGGER_NAME.test((unwrap(p.object) as TSESTree.Identifier).name);
  return p.type === T.Property && (p.key === n || (p.shorthand && p.value === n)) && !p.computed && p.parent?.type === T.ObjectPattern;
}


/** The `ok` of `res.ok`, the `status` of `err.status`, `getStatusCode` of `res.getStatusCode()` (not a variable or key of that name). */
function isStatusProperty(n: Node): boolean {
  const m = n.parent;
  return n.type === T.Identifier && m?.type === T.MemberExpression && m.property === n && !m.computed;
}
