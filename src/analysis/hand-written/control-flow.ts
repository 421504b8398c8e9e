/**
 * How statements end and what runs after them, read from the syntax of one retry construct
 * (never the whole file): whether a branch leaves the loop, goes on to another attempt, or
 * continues; which call a promise chain starts from; what a loop body holds.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { isFunctionNode, isLoopNode, labelsOf, memberName, unwrap, walk, type Loop } from '../ast.js';
import { STATUS_KEYS } from '../eval/evaluator.js';
import { RESPONSE_GETTERS } from '../eval/calls.js';
import type { Node } from '../model.js';

/** How a statement ends: leaves the construct (`return`/`throw`/`break` out), or may go on. */
export type Exit = 'throw' | 'leave' | undefined;

/**
 * How a statement ends. `caught`: the statement is in the try block of a retry, where a throw
 * goes to the catch (another attempt) rather than out.
 */
export function exitOf(s: TSESTree.Statement | null | undefined, loop: Loop | undefined, caught = false): Exit {
  if (!s) return undefined;
  switch (s.type) {
    case T.ThrowStatement: return caught ? undefined : 'throw';
    case T.ReturnStatement: return 'leave';
    case T.BreakStatement: return loop ? 'leave' : undefined;
    case T.ContinueStatement: return loop && s.label && !labelsOf(loop).includes(s.label.name) ? 'leave' : undefined;
    case T.BlockStatement: return sequenceExits(s.body, loop, caught);
    case T.IfStatement: {
      const a = exitOf(s.consequent, loop, caught);
      const b = exitOf(s.alternate, loop, caught);
      return a && b ? (a === 'throw' && b === 'throw' ? 'throw' : 'leave') : undefined;
    }
    case T.ExpressionStatement: return !caught && endsProcess(s.expression) ? 'throw' : undefined;
    default: return undefined;
  }
}

/** `process.exit(1)` ends everything, and `throwWithCause(err)`, `rethrow(e)` exist to throw: read like a throw. */
function endsProcess(expression: Node): boolean {
  const e = unwrap(expression);
  if (e.type !== T.CallExpression) return false;
  const callee = e.callee;
  if (memberName(callee) === 'exit' && callee.type === T.MemberExpression && callee.object.type === T.Identifier && callee.object.name === 'process') return true;
  const name = calleeName(e);
  return !!name && /^(?:throw|rethrow|raise)[A-Z_]?/.test(name);
}

/** Whether a statement always goes on to the loop's next iteration (`continue`). */
export function continues(s: TSESTree.Statement | null | undefined, loop: Loop | undefined): boolean {
  if (!s || !loop) return false;
  switch (s.type) {
    case T.ContinueStatement: return !s.label || labelsOf(loop).includes(s.label.name);
    case T.BlockStatement:
      for (const st of s.body) {
        if (exitOf(st, loop)) return false;
        if (continues(st, loop)) return true;
      }
      return false;
    case T.IfStatement: return continues(s.consequent, loop) && (continues(s.alternate, loop) || !!exitOf(s.alternate, loop));
    default: return false;
  }
}

/** How a run of statements ends: the first exit before a `continue`. */
export function sequenceExits(statements: readonly TSESTree.Statement[], loop: Loop | undefined, caught = false): Exit {
  for (const st of statements) {
    const e = exitOf(st, loop, caught);
    if (e) return e;
    if (continues(st, loop)) return undefined;
  }
  return undefined;
}

/**
 * Whether the statements of a `switch` case end it (a `break`, `return`, `throw` or `continue` last,
 * through trailing blocks); a case that does not falls through into the next.
 */
export function endsCase(statements: readonly Node[]): boolean {
  const last = statements[statements.length - 1];
  if (!last) return false;
  if (last.type === T.BreakStatement || last.type === T.ReturnStatement || last.type === T.ThrowStatement || last.type === T.ContinueStatement) return true;
  return last.type === T.BlockStatement && endsCase(last.body);
}

/** The statements after `s` in its block, and in each enclosing block up to `stop`. */
export function following(s: Node, stop: Node): TSESTree.Statement[][] {
  const out: TSESTree.Statement[][] = [];
  let child: Node = s;
  for (let p = s.parent; p; child = p, p = p.parent) {
    if (p.type === T.BlockStatement || p.type === T.Program || p.type === T.SwitchCase) {
      const body = (p.type === T.SwitchCase ? p.consequent : p.body) as TSESTree.Statement[];
      const i = body.indexOf(child as TSESTree.Statement);
      out.push(i >= 0 ? body.slice(i + 1) : []);
    }
    if (p === stop) break;
  }
  return out;
}

const PROMISE_METHODS = new Set(['then', 'catch', 'finally']);

/** `a.then(...).catch(...)` -> `a(...)`: the call a promise chain starts from. */
export function chainRoot(expr: Node): Node {
  let n = unwrap(expr);
  for (;;) {
    if (n.type === T.AwaitExpression) {
      n = unwrap(n.argument);
      continue;
    }
    if (n.type === T.CallExpression) {
      const c = unwrap(n.callee);
      const name = memberName(c);
      if (name && PROMISE_METHODS.has(name)) {
        n = unwrap((c as TSESTree.MemberExpression).object);
        continue;
      }
    }
    return n;
  }
}

/** `x.name(...)`: the method name of a call. */
export function methodName(call: Node): string | undefined {
  return call.type === T.CallExpression ? memberName(unwrap(call.callee)) : undefined;
}

/** `(0, exports.sleep)` -> `exports.sleep`: how compilers call an imported function. */
export function calleeOf(call: TSESTree.CallExpression): Node {
  const c = unwrap(call.callee);
  return c.type === T.SequenceExpression && c.expressions.length > 0 ? unwrap(c.expressions[c.expressions.length - 1]!) : c;
}

/** `f(...)`, `x.f(...)`: the name a call is made by. */
export function calleeName(call: TSESTree.CallExpression): string | undefined {
  const c = calleeOf(call);
  return c.type === T.Identifier ? c.name : memberName(c);
}

/**
 * The counted loop (`for`, `while`, `do`) a node sits in, within its function; `for…of`/`for…in`
 * walk, not retry, except a `for…of` that may run through a list of waits (mayListWaits).
 */
export function nearestLoop(n: Node): Loop | undefined {
  for (let p = n.parent; p; p = p.parent) {
    if (isFunctionNode(p)) return undefined;
    if (p.type === T.ForStatement || p.type === T.WhileStatement || p.type === T.DoWhileStatement) return p;
    if (p.type === T.ForOfStatement) return mayListWaits(p) ? p : undefined;
    if (p.type === T.ForInStatement) return undefined;
  }
  return undefined;
}

/** The write an identifier is the target of (`x++`, `x = ...`); `multi` for anything else (destructuring). */
export function writeExpression(id: Node): TSESTree.UpdateExpression | TSESTree.AssignmentExpression | 'multi' {
  const p = id.parent;
  if (p?.type === T.UpdateExpression && p.argument === id) return p;
  if (p?.type === T.AssignmentExpression && p.left === id) return p;
  return 'multi';
}

/** The awaits of a block in document order, not entering nested functions. */
export function collectAwaits(block: Node): TSESTree.AwaitExpression[] {
  const out: TSESTree.AwaitExpression[] = [];
  walk(block, (n) => { if (n.type === T.AwaitExpression) out.push(n); }, { skipFunctions: true });
  return out;
}

/** The terms a condition needs to hold (`a && !b` wanted true: `a` true, `b` false). */
export function requiredTerms(test: Node, want: boolean): { expr: Node; want: boolean }[] {
  const n = unwrap(test);
  if (n.type === T.UnaryExpression && n.operator === '!') return requiredTerms(n.argument, !want);
  if (n.type === T.LogicalExpression && ((n.operator === '&&' && want) || (n.operator === '||' && !want))) {
    return [...requiredTerms(n.left, want), ...requiredTerms(n.right, want)];
  }
  return [{ expr: n, want }];
}

/** Visits the nodes of an expression, not entering nested functions. */
export function walkExpression(node: Node, visit: (n: Node) => void): void {
  walk(node, visit, { skipFunctions: true });
}

/** What a loop body holds that the detector reads; nested functions and nested loops are left out. */
export interface LoopScan {
  tries: TSESTree.TryStatement[];
  ifs: TSESTree.IfStatement[];
  awaits: TSESTree.AwaitExpression[];
  continues: TSESTree.ContinueStatement[];
  returns: TSESTree.ReturnStatement[];
  breaks: TSESTree.BreakStatement[];
  /** Identifiers written (`x++`, `x = ...`). */
  writes: TSESTree.Identifier[];
  /** `a[i]`. */
  computed: TSESTree.MemberExpression[];
  /** `res.ok`, `err.status`. */
  statusMembers: TSESTree.MemberExpression[];
  /** `result.error`: the error part of a returned result. */
  errorMembers: TSESTree.MemberExpression[];
  /** Calls handed a name (`shouldRetry(res)`): a response may be judged in the function called. */
  namedCalls: TSESTree.CallExpression[];
  switches: TSESTree.SwitchStatement[];
}

/** A read of a response's verdict: `x.ok`, `x.status` (and kin), or a status getter called as `x.getStatusCode()`. */
export function isResponseRead(m: TSESTree.MemberExpression): boolean {
  if (m.computed || m.property.type !== T.Identifier) return false;
  const key = m.property.name;
  if (key === 'ok' || STATUS_KEYS.has(key)) return true;
  const call = m.parent;
  return RESPONSE_GETTERS.get(key) === 'status' && call?.type === T.CallExpression && call.callee === m && call.arguments.length === 0;
}

/** The member of a returned result (`{ data } | { error }`) that holds its failure. */
export const RESULT_ERROR_KEYS: ReadonlySet<string> = new Set(['error', 'err']);

export function scanLoop(loop: Loop): LoopScan {
  const out: LoopScan = { tries: [], ifs: [], awaits: [], continues: [], returns: [], breaks: [], writes: [], computed: [], statusMembers: [], errorMembers: [], namedCalls: [], switches: [] };
  // A `for…of` reads its list once, before the first pass: nothing of it is per attempt.
  const parts: Node[] = loop.type === T.ForStatement ? [loop.test, loop.update].filter((n): n is TSESTree.Expression => !!n) : loop.type === T.ForOfStatement ? [] : [loop.test];
  // `break` inside a switch leaves the switch, not the loop.
  const switchEnds: number[] = [];
  const visit = (n: Node) => {
    while (switchEnds.length && n.range[0] >= switchEnds[switchEnds.length - 1]!) switchEnds.pop();
    switch (n.type) {
      case T.TryStatement: out.tries.push(n); break;
      case T.IfStatement: out.ifs.push(n); break;
      case T.AwaitExpression: out.awaits.push(n); break;
      case T.ContinueStatement: out.continues.push(n); break;
      case T.ReturnStatement: out.returns.push(n); break;
      case T.BreakStatement: if (n.label || switchEnds.length === 0) out.breaks.push(n); break;
      case T.SwitchStatement: switchEnds.push(n.range[1]); out.switches.push(n); break;
      case T.CallExpression: if (n.arguments.some((a) => a.type === T.Identifier)) out.namedCalls.push(n); break;
      case T.UpdateExpression: if (n.argument.type === T.Identifier) out.writes.push(n.argument); break;
      case T.AssignmentExpression: if (n.left.type === T.Identifier) out.writes.push(n.left); break;
      case T.MemberExpression:
        if (n.computed) out.computed.push(n);
        else if (isResponseRead(n)) out.statusMembers.push(n);
        else if (n.property.type === T.Identifier && RESULT_ERROR_KEYS.has(n.property.name)) out.errorMembers.push(n);
        break;
      default: break;
    }
  };
  const skip = (n: Node) => isFunctionNode(n) || isLoopNode(n);
  for (const root of [...parts, loop.body]) if (!skip(root)) walk(root, visit, { skip });
  const order = (a: Node, b: Node) => a.range[0] - b.range[0];
  for (const list of Object.values(out) as Node[][]) list.sort(order);
  return out;
}

/**
 * `for (const delay of [1000, 2000, 4000])`, `for (const ms of RETRY_DELAYS)`: a `for…of` whose
 * one variable may be a wait, over a list written as numbers or named. Settled from the syntax;
 * the list's values and the variable's uses are checked where the loop is read (delay-lists.ts).
 */
export function mayListWaits(loop: TSESTree.ForOfStatement): boolean {
  if (loop.await || loop.left.type !== T.VariableDeclaration || loop.left.declarations.length !== 1 || loop.left.declarations[0]!.id.type !== T.Identifier) return false;
  const list = unwrap(loop.right);
  if (list.type === T.Identifier || list.type === T.MemberExpression) return true;
  // Numbers, names and spreads of named lists (`[0, ...RETRY_DELAYS_MS]`): their values are read later.
  return list.type === T.ArrayExpression && list.elements.length > 0 &&
    list.elements.every((e) => (e?.type === T.Literal && typeof e.value === 'number') || e?.type === T.Identifier || (e?.type === T.SpreadElement && e.argument.type === T.Identifier));
}
