/** The contract between the model and the per-library catalogue. */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import type { ImportTable, ModuleRef } from './imports.js';
import type { Node, RetrySite, SiteKind } from './model.js';
import { OptionsView } from './options.js';
import type { Evaluator } from './static-value.js';

/** One use of a library binding: `pRetry`, `axiosRetry.exponentialDelay`, `got.extend`. */
export interface LibraryUse extends ModuleRef {
  /** The outermost statically named member expression (or the identifier itself). */
  readonly expression: Node;
}

export interface AnalysisContext {
  readonly sourceCode: Readonly<TSESLint.SourceCode>;
  readonly evaluator: Evaluator;
  readonly imports: ImportTable;
  options(node: Node | undefined): OptionsView;
  /** Every node of one type, from a single lazily built index of the file. */
  nodesOfType<K extends T>(type: K): readonly Extract<TSESTree.Node, { type: K }>[];
}

export interface LibraryDescriptor {
  /** Stable id, also the module name for single-module libraries. */
  readonly id: string;
  readonly modules: readonly string[];
  /** For families of modules such as `@aws-sdk/client-*`. */
  matchModule?(module: string): boolean;
  /** Durable engines (workflow and job queues) are exempt from the in-memory limits. */
  readonly kind?: SiteKind;
  find(uses: readonly LibraryUse[], ctx: AnalysisContext): RetrySite[];
  /**
   * Which parameter of the retried function differs on every attempt (p-retry's attempt number,
   * the runtime's `{ attempt }`): a key derived from it is a new key per attempt.
   */
  readonly attemptParameter?: { readonly index: number; readonly property?: string };

  // ---- What the operation analysis reads about calls made through the library.

  /**
   * The client a client-level site configures is itself callable (`api(url)` sends a request:
   * got, ky, axios, a fetch-retry fetch), so bare calls of it are operations too.
   */
  readonly callableClient?: boolean;
}

/** The call whose callee is exactly this use: `pRetry(...)`, `got.extend(...)`. */
export function callOf(use: LibraryUse): TSESTree.CallExpression | undefined {
  const p = use.expression.parent;
  return p?.type === T.CallExpression && p.callee === use.expression ? p : undefined;
}

export function newOf(use: LibraryUse): TSESTree.NewExpression | undefined {
  const p = use.expression.parent;
  return p?.type === T.NewExpression && p.callee === use.expression ? p : undefined;
}

/** `@Retryable(...)`: the decorator whose expression calls this use. */
export function decoratorOf(use: LibraryUse): { decorator: TSESTree.Decorator; call: TSESTree.CallExpression } | undefined {
  const call = callOf(use);
  const p = call?.parent;
  return call && p?.type === T.Decorator ? { decorator: p, call } : undefined;
}

/** Argument `i` unless it is a spread (whose position then says nothing). */
export function argument(call: TSESTree.CallExpression | TSESTree.NewExpression, i: number): Node | undefined {
  for (let k = 0; k <= i && k < call.arguments.length; k++) if (call.arguments[k]!.type === T.SpreadElement) return undefined;
  return call.arguments[i];
}

/** True when a call passes a spread before or at `i`, so later positions are unknown. */
export function hasSpreadUpTo(call: TSESTree.CallExpression | TSESTree.NewExpression, i: number): boolean {
  for (let k = 0; k <= i && k < call.arguments.length; k++) if (call.arguments[k]!.type === T.SpreadElement) return true;
  return false;
}

export function isFunctionNode(node: Node | undefined): node is TSESTree.FunctionLike {
  return !!node && (node.type === T.ArrowFunctionExpression || node.type === T.FunctionExpression || node.type === T.FunctionDeclaration);
}

/** `fn` itself when it is a function literal, or the function a const binding points at. */
export function functionOf(node: Node | undefined, ctx: AnalysisContext): TSESTree.FunctionLike | undefined {
  if (!node) return undefined;
  if (isFunctionNode(node)) return node;
  const v = ctx.evaluator.evaluate(node);
  return typeof v === 'object' && v !== null && 'kind' in v && v.kind === 'function' ? v.node : undefined;
}

/** True when a function always returns `true` (e.g. `() => true`): a filter that lets everything through. */
export function alwaysTrue(fn: TSESTree.FunctionLike | undefined, ctx: AnalysisContext): boolean {
  if (!fn || !fn.body) return false;
  if (fn.body.type !== T.BlockStatement) return ctx.evaluator.evaluate(fn.body) === true;
  const body = fn.body.body;
  if (body.length !== 1) return false;
  const only = body[0]!;
  return only.type === T.ReturnStatement && !!only.argument && ctx.evaluator.evaluate(only.argument) === true;
}

/** The method label used in messages, e.g. `pRetry()` or `got.extend()`. */
export function labelOf(node: Node, sourceCode: Readonly<TSESLint.SourceCode>): string {
  const text = sourceCode.getText(node);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
