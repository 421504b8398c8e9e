/**
 * Calls a retry cannot repeat: made on the way out of an attempt (only a `return` of plain values
 * follows), to a function that cannot reject (an async function whose every statement that may
 * fail is inside a `try` whose `catch` only logs). Only its own failure could lead to another
 * attempt, and it has none; once it has run, the attempt has ended. A log or notification helper
 * that catches everything itself (`await sendLog(client, msg); return { success: true }`) is such
 * a call. The function is followed in this file or in the project file it is imported from.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { isFunctionNode, unwrap } from '../ast.js';
import type { AnalysisContext } from '../library.js';
import { functionOf } from '../library.js';
import type { Node } from '../model.js';

/** Whether `call`, made in the retried `scope`, is one the retry cannot repeat (see above). */
export function runsOnceOnTheWayOut(call: TSESTree.CallExpression | TSESTree.NewExpression, scope: Node, ctx: AnalysisContext): boolean {
  if (call.type !== T.CallExpression || !leavesAfter(call, scope)) return false;
  const fn = calledFunction(call, ctx);
  return !!fn && fn.async && fn.body?.type === T.BlockStatement && statementsSafe(fn.body.body, undefined, fn);
}

/** `await f(...);` followed in its block by `return <plain values>`, with no `finally` around it in the scope. */
function leavesAfter(call: TSESTree.CallExpression, scope: Node): boolean {
  let expr: Node = call;
  if (expr.parent?.type === T.AwaitExpression) expr = expr.parent;
  const statement = expr.parent;
  if (statement?.type !== T.ExpressionStatement) return false;
  const block = statement.parent;
  const list = block?.type === T.BlockStatement || block?.type === T.Program ? block.body : block?.type === T.SwitchCase ? block.consequent : undefined;
  const next = list?.[list.indexOf(statement as TSESTree.Statement) + 1];
  if (next?.type !== T.ReturnStatement || (next.argument && !plain(next.argument, undefined))) return false;
  for (let n: Node | undefined = statement; n && n !== scope; n = n.parent) {
    if (n.type === T.TryStatement && n.finalizer) return false;
    if (isFunctionNode(n)) return false; // made in a callback inside the retried code
  }
  return true;
}

/** The function a plain-name callee runs, here or (one file away) where it is imported from. */
function calledFunction(call: TSESTree.CallExpression, ctx: AnalysisContext): TSESTree.FunctionLike | undefined {
  const callee = unwrap(call.callee);
  if (callee.type !== T.Identifier) return undefined;
  const local = functionOf(callee, ctx);
  if (local) return local;
  const imported = ctx.importedValue?.(callee);
  return imported ? functionOf(imported.node, imported.ctx) : undefined;
}

/**
 * Statements that cannot throw: plain values and control flow, and `try` blocks (anything goes
 * inside, but a `return` there must be awaited or plain: a returned promise's rejection escapes
 * the `try`) whose `catch` is itself safe with its parameter readable. `caught` is the parameter
 * of the catch clause being read.
 */
function statementsSafe(list: readonly Node[], caught: Node | undefined, fn: TSESTree.FunctionLike): boolean {
  return list.every((s) => statementSafe(s, caught, fn));
}

function statementSafe(s: Node, caught: Node | undefined, fn: TSESTree.FunctionLike): boolean {
  switch (s.type) {
    case T.EmptyStatement:
    case T.BreakStatement:
    case T.ContinueStatement:
      return true;
    case T.BlockStatement:
      return statementsSafe(s.body, caught, fn);
    case T.ExpressionStatement:
      return plain(s.expression, caught);
    case T.ReturnStatement:
      return !s.argument || plain(s.argument, caught);
    case T.VariableDeclaration:
      return s.declarations.every((d) => d.id.type === T.Identifier && (!d.init || plain(d.init, caught)));
    case T.IfStatement:
      return plain(s.test, caught) && statementSafe(s.consequent, caught, fn) && (!s.alternate || statementSafe(s.alternate, caught, fn));
    case T.WhileStatement:
    case T.DoWhileStatement:
      return plain(s.test, caught) && statementSafe(s.body, caught, fn);
    case T.ForStatement:
      return (!s.init || (s.init.type === T.VariableDeclaration ? statementSafe(s.init, caught, fn) : plain(s.init, caught))) && (!s.test || plain(s.test, caught)) && (!s.update || plain(s.update, caught)) && statementSafe(s.body, caught, fn);
    case T.TryStatement: {
      const handler = s.handler;
      if (!handler || !returnsCaught(s.block, fn)) return false;
      if (handler.param && handler.param.type !== T.Identifier) return false;
      return statementsSafe(handler.body.body, handler.param ?? undefined, fn) && (!s.finalizer || statementsSafe(s.finalizer.body, caught, fn));
    }
    default:
      return false;
  }
}

/** Every `return` of the function inside a `try` block hands back a plain value or an awaited one. */
function returnsCaught(block: Node, fn: TSESTree.FunctionLike): boolean {
  let ok = true;
  const visit = (n: Node) => {
    if (!ok) return;
    if (n !== block && isFunctionNode(n)) return;
    if (n.type === T.ReturnStatement && n.argument && unwrap(n.argument).type !== T.AwaitExpression && !plain(n.argument, undefined)) ok = false;
    for (const key of Object.keys(n) as (keyof typeof n)[]) {
      if (key === 'parent') continue;
      const v = n[key] as unknown;
      if (Array.isArray(v)) v.forEach((c) => c && typeof c === 'object' && 'type' in c && visit(c as Node));
      else if (v && typeof v === 'object' && 'type' in v) visit(v as Node);
    }
  };
  visit(block);
  return ok && fn.async;
}

/**
 * An expression that cannot throw: literals, names, operators on them, object and array literals,
 * assignments to names; in a catch clause also the caught error's own members and `console` logging.
 */
function plain(raw: Node, caught: Node | undefined): boolean {
  const n = unwrap(raw);
  switch (n.type) {
    case T.Literal:
    case T.Identifier:
    case T.ThisExpression:
      return true;
    case T.TemplateLiteral:
      return n.expressions.every((e) => plain(e, caught));
    case T.UnaryExpression:
      return n.operator !== 'delete' && plain(n.argument, caught);
    case T.BinaryExpression:
      return n.operator !== 'in' && n.operator !== 'instanceof' && plain(n.left as Node, caught) && plain(n.right, caught);
    case T.LogicalExpression:
      return plain(n.left, caught) && plain(n.right, caught);
    case T.ConditionalExpression:
      return plain(n.test, caught) && plain(n.consequent, caught) && plain(n.alternate, caught);
    case T.UpdateExpression:
      return unwrap(n.argument).type === T.Identifier;
    case T.AssignmentExpression:
      return unwrap(n.left).type === T.Identifier && plain(n.right, caught);
    case T.ArrayExpression:
      return n.elements.every((e) => !e || (e.type !== T.SpreadElement && plain(e, caught)));
    case T.ObjectExpression:
      return n.properties.every((p) => p.type === T.Property && !p.computed && p.kind === 'init' && plain(p.value as Node, caught));
    case T.MemberExpression:
      return !!caught && !n.computed && caughtError(n.object, caught);
    case T.CallExpression: {
      const callee = unwrap(n.callee);
      const logs = callee.type === T.MemberExpression && !callee.computed && unwrap(callee.object).type === T.Identifier && (unwrap(callee.object) as TSESTree.Identifier).name === 'console';
      return !!caught && logs && n.arguments.every((a) => a.type !== T.SpreadElement && plain(a, caught));
    }
    default:
      return false;
  }
}

/** `error`, `(error as TypeError)`: the catch clause's parameter. */
function caughtError(node: Node, caught: Node): boolean {
  const n = unwrap(node);
  return n.type === T.Identifier && caught.type === T.Identifier && n.name === (caught as TSESTree.Identifier).name;
}
