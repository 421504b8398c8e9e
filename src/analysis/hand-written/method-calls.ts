/**
 * Calls of a class's own methods, `this.name(...)`, found from the class body's text: the way a
 * method calls itself again (a recursive retry) and the calls that start it from elsewhere in the
 * class (which give its counting parameters their first values).
 */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { contains, unwrap } from '../ast.js';
import type { Node } from '../model.js';
import { nodeAt } from '../node-lookup.js';
import type { HandWritten } from './attempts.js';

type Fn = TSESTree.FunctionLike;

/** The calls of method `fn` from elsewhere in its class (`this.fn(...)` outside it and outside `other`). */
export function methodCallsOutside(hw: HandWritten, fn: Fn, other: Fn | undefined): TSESTree.CallExpression[] {
  const holder = fn.parent;
  const body = holder?.type === T.MethodDefinition ? holder.parent : undefined;
  if (holder?.type !== T.MethodDefinition || holder.computed || holder.key.type !== T.Identifier || body?.type !== T.ClassBody) return [];
  return thisCallsIn(hw.ctx.sourceCode, body, holder.key.name)!.filter((c) => !contains(fn, c) && !(other && contains(other, c)));
}

/**
 * The calls from elsewhere in its class of a `private` instance method every use of which in the
 * class is a call: all the calls it gets, so what they pass is how it starts. Undefined for any
 * other method (a caller elsewhere may pass anything), or one the class also uses other than by
 * calling it (`cb(this.fn)`), or that is never called from elsewhere.
 */
export function closedMethodCallsOutside(hw: HandWritten, fn: Fn, other: Fn | undefined): TSESTree.CallExpression[] | undefined {
  const holder = fn.parent;
  const body = holder?.type === T.MethodDefinition ? holder.parent : undefined;
  if (holder?.type !== T.MethodDefinition || holder.accessibility !== 'private' || holder.static || holder.kind !== 'method') return undefined;
  if (holder.computed || holder.key.type !== T.Identifier || body?.type !== T.ClassBody) return undefined;
  const all = thisCallsIn(hw.ctx.sourceCode, body, holder.key.name, true);
  const outside = all?.filter((c) => !contains(fn, c) && !(other && contains(other, c)));
  return outside?.length ? outside : undefined;
}

/**
 * `this.name(...)` calls inside `scope`, found from the name's occurrences in its text. With
 * `strict`, undefined when some `this.name` there is not the callee of a call.
 */
export function thisCallsIn(sourceCode: Readonly<TSESLint.SourceCode>, scope: Node, name: string, strict = false): TSESTree.CallExpression[] | undefined {
  // Most methods never write `this.<own name>`: substring searches settle those before any node lookup.
  // The search runs on the body's own text: on the whole file, a name the body lacks would be
  // looked for up to the end of the file, once per method.
  const text = sourceCode.text;
  const [start, end] = scope.range;
  const body = text.slice(start, end);
  const out: TSESTree.CallExpression[] = [];
  for (let i = body.indexOf(name); i >= 0; i = body.indexOf(name, i + name.length)) {
    const at = start + i;
    if (!afterThisDot(text, at)) continue;
    const id = nodeAt(sourceCode, at);
    if (id?.type !== T.Identifier || id.range[0] !== at || id.name !== name) continue;
    const member = id.parent;
    if (member?.type !== T.MemberExpression || member.property !== id || member.computed || unwrap(member.object).type !== T.ThisExpression) continue;
    let callee: Node = member;
    // `this.f!()`, `(this.f as Retry)()`: the call's callee unwraps to the member.
    // A parent is such a wrapper exactly when `unwrap` (the shared definition) looks through it.
    while (callee.parent && (callee.parent as { expression?: Node }).expression === callee && unwrap(callee.parent) !== callee.parent) callee = callee.parent;
    const call = callee.parent;
    if (call?.type === T.CallExpression && call.callee === callee) out.push(call);
    else if (strict) return undefined;
  }
  return out;
}

/** Whether `this.`, `this?.` or `).` (as in `(this as Client).`) ends just before `at`, spaces allowed. */
function afterThisDot(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  if (text[i] !== '.') return false;
  i--;
  if (text[i] === '?') i--;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  if (text[i] === ')') return true;
  return text.startsWith('this', i - 3) && !/[\w$]/.test(text[i - 4] ?? '');
}
