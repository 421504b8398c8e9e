/**
 * What the operation analysis knows about one file, built once per model: the analysis context,
 * the vocabulary (built on the first question, since most files have no retry site), the
 * type-aware declaration reader, and small readers of calls shared by the other parts.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import type { Node } from '../model.js';
import type { SafeRetrySettings } from '../settings.js';
import { propertyKey, unwrap } from '../ast.js';
import { createDeclarationReader, typeAwareServices } from '../type-aware.js';
import { buildVocabulary, type Vocabulary } from './vocabulary.js';

export interface FileFacts {
  readonly ctx: AnalysisContext;
  /** The catalogue the model was built with; the parts read descriptors' facets from it. */
  readonly libraries: readonly LibraryDescriptor[];
  descriptorOf(id: string): LibraryDescriptor | undefined;
  words(): Vocabulary;
  /** Present when type information is on: what a callee's declaration says (JSDoc, HTTP method). */
  readonly declarationOf: ReturnType<typeof createDeclarationReader> | undefined;
  /** The calls of the file that lie inside `scope`, in document order. */
  callsIn(scope: Node): Generator<TSESTree.CallExpression>;
}

export function createFileFacts(ctx: AnalysisContext, settings: SafeRetrySettings, libraries: readonly LibraryDescriptor[]): FileFacts {
  let vocabulary: Vocabulary | undefined;
  let byId: Map<string, LibraryDescriptor> | undefined;
  const services = settings.typeAware ? typeAwareServices(ctx.sourceCode) : undefined;
  return {
    ctx,
    libraries,
    descriptorOf: (id) => (byId ??= new Map(libraries.map((l) => [l.id, l]))).get(id),
    words: () => (vocabulary ??= buildVocabulary(settings)),
    declarationOf: services ? createDeclarationReader(services) : undefined,
    callsIn: (scope) => rangeOf(ctx.nodesOfType(T.CallExpression), scope),
  };
}

export function inside(outer: Node, inner: Node): boolean {
  return inner.range[0] >= outer.range[0] && inner.range[1] <= outer.range[1];
}

/** The nodes of a document-ordered list that lie inside `scope`, found by binary search. */
export function* rangeOf<N extends Node>(list: readonly N[], scope: Node): Generator<N> {
  const [start, end] = scope.range;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.range[0] < start) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < list.length && list[i]!.range[0] < end; i++) yield list[i]!;
}

/** `orders.create`, `createOrder`, `this.client.post`: the callee as dotted text, when static. */
export function calleeText(calleeRaw: Node): string | undefined {
  const callee = unwrap(calleeRaw);
  if (callee.type === T.Identifier) return callee.name;
  if (callee.type === T.ThisExpression) return 'this';
  if (callee.type === T.MemberExpression) {
    const key = propertyKey(callee, () => undefined);
    const base = calleeText(callee.object);
    return key !== undefined && base !== undefined ? `${base}.${key}` : key;
  }
  if (callee.type === T.CallExpression) {
    const inner = calleeText(callee.callee);
    return inner ? `${inner}()` : undefined;
  }
  return undefined;
}

/** How an operation is named in messages: `orders.create()`. */
export function callLabel(call: TSESTree.CallExpression | TSESTree.NewExpression, ctx: AnalysisContext): string {
  const text = calleeText(call.callee) ?? ctx.sourceCode.getText(call.callee);
  return `${text.length > 40 ? `${text.slice(0, 37)}...` : text}()`;
}

/** Whether the code waits on the call's result: awaited, returned, an arrow's body or a promise chain's head. */
export function awaited(call: TSESTree.CallExpression): boolean {
  let node: Node = call;
  let parent = node.parent;
  // Look through wrappers that pass the promise on: (x), x as T, x!, race(x, ...).
  while (parent && (parent.type === T.TSAsExpression || parent.type === T.TSNonNullExpression || parent.type === T.ChainExpression)) {
    node = parent;
    parent = parent.parent;
  }
  if (!parent) return false;
  if (parent.type === T.AwaitExpression || parent.type === T.ReturnStatement || parent.type === T.YieldExpression) return true;
  // An arrow's body is waited on when the arrow is a callback whose result is used (a retried
  // function, a `then` handler); a promise executor's result is thrown away, so the
  // `setTimeout` of `new Promise((r) => setTimeout(r, ms))` is a sleep, not an operation.
  if (parent.type === T.ArrowFunctionExpression && parent.body === node) return parent.parent?.type !== T.NewExpression;
  if (parent.type === T.MemberExpression && parent.object === node) {
    const key = propertyKey(parent, () => undefined);
    return key === 'then' || key === 'catch' || key === 'finally';
  }
  // Promise.all([a(), b()]) and similar: an element of an awaited array.
  if (parent.type === T.ArrayExpression) return !!parent.parent && parent.parent.type === T.CallExpression;
  return false;
}

/** The function a plain identifier callee is bound to in this file (`createOrder` of `createOrder()`). */
export function localFunction(calleeRaw: Node, ctx: AnalysisContext): TSESTree.FunctionLike | undefined {
  const callee = unwrap(calleeRaw);
  if (callee.type !== T.Identifier) return undefined;
  const v = ctx.evaluator.evaluate(callee);
  return typeof v === 'object' && v !== null && 'kind' in v && v.kind === 'function' ? v.node : undefined;
}

/** A `/** @idempotent *\/` comment on the function (or its declaration) marks it safe to repeat. */
export function isMarkedIdempotent(fn: TSESTree.FunctionLike, ctx: AnalysisContext): boolean {
  let holder: Node = fn;
  while (holder.parent && (holder.parent.type === T.VariableDeclarator || holder.parent.type === T.VariableDeclaration || holder.parent.type === T.ExportNamedDeclaration || holder.parent.type === T.ExportDefaultDeclaration)) holder = holder.parent;
  return ctx.sourceCode.getCommentsBefore(holder).some((c) => c.type === 'Block' && /@idempotent\b/.test(c.value));
}
