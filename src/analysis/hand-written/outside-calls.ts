/**
 * The calls that start a recursive retry from outside it, whose arguments are the first call's:
 * calls by its own name, and calls through the name a caller holds it under when the function
 * around it returns it (kafkajs's `createRetriable` returns `retry`; `const start =
 * createRetriable(configs, ...); start(randomFromRetryTime(configs.factor, configs.initialRetryTime))`).
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { contains, enclosingFunction, unwrap, type Variable } from '../ast.js';
import type { Value } from '../eval/values.js';
import type { Node } from '../model.js';
import { rootEnv, type HandWritten } from './attempts.js';

type Fn = TSESTree.FunctionLike;

/** Calls made through the name a returning function's caller holds the recursion under. */
const heldCalls = new WeakSet<TSESTree.CallExpression>();

/** The calls of `fn` (bound to `variable`) from outside it and outside `other` (the cycle's other function). */
export function outsideCalls(hw: HandWritten, fn: Fn, variable: Variable | undefined, other: Fn | undefined): TSESTree.CallExpression[] {
  if (!variable) return [];
  const out: TSESTree.CallExpression[] = [];
  for (const r of variable.references) {
    const id = r.identifier as Node;
    if (r.isWrite() || contains(fn, id) || (other && contains(other, id))) continue;
    const p = id.parent;
    if (p?.type === T.CallExpression && p.callee === id) out.push(p);
    else if (p?.type === T.ReturnStatement || (p?.type === T.ArrowFunctionExpression && p.body === id)) out.push(...heldBy(hw, id));
  }
  return out;
}

/** `return retry` in `createRetriable`: the calls of what each `const start = createRetriable(...)` holds. */
function heldBy(hw: HandWritten, returned: Node): TSESTree.CallExpression[] {
  const outer = enclosingFunction(returned);
  const declarator = outer?.parent;
  if (declarator?.type !== T.VariableDeclarator || declarator.init !== outer || declarator.id.type !== T.Identifier) return [];
  const maker = hw.evaluator.variableOf(declarator.id);
  const out: TSESTree.CallExpression[] = [];
  for (const r of maker?.references ?? []) {
    const call = r.identifier.parent;
    if (call?.type !== T.CallExpression || call.callee !== r.identifier) continue;
    const holder = call.parent;
    if (holder?.type !== T.VariableDeclarator || holder.init !== call || holder.id.type !== T.Identifier) continue;
    const held = hw.evaluator.variableOf(holder.id);
    // The name holds that one value: a const, never reassigned.
    if (!held || held.references.some((x) => x.isWrite() && !x.init)) continue;
    for (const x of held.references) {
      const c = x.identifier.parent;
      if (c?.type === T.CallExpression && c.callee === x.identifier) {
        heldCalls.add(c);
        out.push(c);
      }
    }
  }
  return out;
}

/**
 * An argument of a call from outside: read from the code alone, or, for a call through a held
 * name, as the code runs where it is made (its own defaults, local helpers followed), since that
 * call is the recursion's own start (`start(randomFromRetryTime(...))`), not a caller's choice.
 */
export function firstArgument(hw: HandWritten, call: TSESTree.CallExpression, arg: Node): Value {
  return heldCalls.has(call) ? hw.evaluator.evaluateIn(unwrap(arg), rootEnv(hw)) : hw.evaluator.evaluate(arg);
}
