/**
 * Responses judged through a function of the file: `if (!shouldRetry(res)) return res`,
 * `this.isRetryable(response)`, `Client.shouldRetry(res, n, max)`. A call that hands a response to
 * a function whose body reads that parameter as a response (`p.ok`, `p.status`,
 * `p.getStatusCode()`) reads the response as surely as `res.status` written in place: the loop and
 * recursion detectors take the call for the status read it makes, and the evaluator runs the
 * function per status as it runs any helper of the file (eval/calls.ts).
 */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { unwrap } from '../ast.js';
import { instanceMethod, staticMethod } from '../eval/calls.js';
import type { Evaluator } from '../eval/evaluator.js';
import { memberName } from '../eval/fields.js';
import { localFunction, parameterVariable } from '../eval/functions.js';
import type { AnalysisContext } from '../library.js';
import type { Node } from '../model.js';
import { thisCallsIn } from './method-calls.js';
import { isResponseRead } from './control-flow.js';

type Fn = TSESTree.FunctionLike;

/** Whether a reference is read as a response: `id.ok`, `id.status` (and kin), `id.getStatusCode()`. */
export function readAsResponse(id: Node): boolean {
  const m = id.parent;
  return m?.type === T.MemberExpression && m.object === id && isResponseRead(m);
}

const readParams = new WeakMap<Fn, readonly boolean[]>();

/** Which parameters of a function its body reads as a response. */
function responseParams(sourceCode: Readonly<TSESLint.SourceCode>, fn: Fn): readonly boolean[] {
  let known = readParams.get(fn);
  if (!known) {
    known = fn.params.map((p) => {
      const target = p.type === T.AssignmentPattern ? p.left : p;
      if (target.type !== T.Identifier) return false;
      const variable = parameterVariable(sourceCode, fn, target);
      return !!variable?.references.some((r) => readAsResponse(r.identifier as Node));
    });
    readParams.set(fn, known);
  }
  return known;
}

/** The function of this file a call runs: `f(x)`, `this.f(x)` inside its class, `Client.f(x)` for a static method. */
function calledFunction(ev: Evaluator, call: TSESTree.CallExpression): Fn | undefined {
  const callee = unwrap(call.callee);
  if (callee.type === T.Identifier) {
    const v = ev.variableOf(callee);
    return v ? localFunction(v) : undefined;
  }
  if (callee.type !== T.MemberExpression || callee.computed || callee.property.type !== T.Identifier) return undefined;
  const object = unwrap(callee.object);
  if (object.type === T.ThisExpression) return instanceMethod(object, callee.property.name);
  return object.type === T.Identifier ? staticMethod(ev, object, callee.property.name) : undefined;
}

/** The names a call hands to a function of this file that reads them as a response (`shouldRetry(res)`: `res`). */
export function responseArguments(ev: Evaluator, sourceCode: Readonly<TSESLint.SourceCode>, call: TSESTree.CallExpression): TSESTree.Identifier[] {
  if (call.arguments.length === 0) return [];
  const fn = calledFunction(ev, call);
  if (!fn) return [];
  const read = responseParams(sourceCode, fn);
  const out: TSESTree.Identifier[] = [];
  call.arguments.forEach((a, i) => {
    const arg = unwrap(a);
    if (read[i] && arg.type === T.Identifier) out.push(arg);
  });
  return out;
}

/**
 * From a response read on a parameter (`res.status` in `function shouldRetry(res)`), the calls of
 * that function in this file: where a response is judged through it. Empty when the read is not on
 * a parameter of the function it is in, or the function has no name the file calls it by.
 */
export function callsJudgingThrough(ctx: AnalysisContext, read: TSESTree.MemberExpression): TSESTree.CallExpression[] {
  const object = unwrap(read.object);
  if (object.type !== T.Identifier) return [];
  const def = ctx.evaluator.variableOf(object)?.defs[0];
  if (def?.type !== 'Parameter') return [];
  const fn = def.node as Fn;
  const out: TSESTree.CallExpression[] = [];
  const calledBy = (id: Node) => {
    const call = id.parent;
    if (call?.type === T.CallExpression && call.callee === id) out.push(call);
  };
  const holder = fn.parent;
  if (fn.type === T.FunctionDeclaration && fn.id) {
    for (const v of ctx.sourceCode.scopeManager?.getDeclaredVariables(fn) ?? []) if (v.defs[0]?.type === 'FunctionName') for (const r of v.references) calledBy(r.identifier as Node);
  } else if (holder?.type === T.VariableDeclarator && holder.init === fn && holder.id.type === T.Identifier) {
    const v = ctx.evaluator.variableOf(holder.id);
    if (v && localFunction(v) === fn) for (const r of v.references) if (!r.init) calledBy(r.identifier as Node);
  } else if (holder?.type === T.MethodDefinition && holder.value === fn && !holder.computed && holder.key.type === T.Identifier && holder.kind === 'method') {
    const name = holder.key.name;
    const cls = holder.parent.parent;
    if (!holder.static) out.push(...(thisCallsIn(ctx.sourceCode, holder.parent, name) ?? []));
    else if (cls?.type === T.ClassDeclaration && cls.id) {
      for (const v of ctx.sourceCode.scopeManager?.getDeclaredVariables(cls) ?? []) {
        if (v.defs[0]?.type !== 'ClassName') continue;
        for (const r of v.references) {
          const m = (r.identifier as Node).parent;
          if (m?.type === T.MemberExpression && m.object === r.identifier && memberName(m) === name) calledBy(m);
        }
      }
    }
  }
  return out;
}
