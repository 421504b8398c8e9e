/**
 * Retriers returned by a call (issue 14, options that travel): a function that returns a retry
 * helper (`makeRetry(opts)` returning `(fn) => { for (...) try { return await fn() } ... }`,
 * kafkajs's `createRetry(opts)` returning `(fn) => new Promise(...)`) is a factory. What a call of
 * it returns, kept in a const (`const retry = makeRetry({ retries: 10 })`), in an instance field
 * set in the class (`this.retrier = createRetry(retry)`) or called at once (`makeRetry()(fn)`), is
 * the helper: each call of it is a retry site, read with the factory's parameters bound to the
 * arguments of the call that made it. A factory's own calls are no sites.
 *
 * Who reports what is the helpers' rule (inferred.ts): the helper's numbers as the factory writes
 * them by default are the helper's own findings; what a factory call changes is the call's. An
 * argument of the factory call that cannot be read stays unknown at the retrier's calls.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, staticPropertyName, unwrap } from '../ast.js';
import { memberName, thisClass } from '../eval/fields.js';
import type { DataValue } from '../eval/values.js';
import type { AnalysisContext } from '../library.js';
import type { Node } from '../model.js';
import { keyOf, nameOf, readArguments, type WrapperHelper } from './inferred.js';
import { methodCalls } from './methods.js';

type Fn = TSESTree.FunctionLike;

/** Distinct factory calls remembered per factory. */
const MAX_MADE = 64;

/** The factory of a helper some named function returns, or undefined. */
export function factoryOf(ctx: AnalysisContext, helper: WrapperHelper): WrapperHelper | undefined {
  const fn = helper.returnedBy;
  const named = fn && helper.madeWith ? nameOf(ctx, fn) : undefined;
  if (!fn || !named) return undefined;
  let base: WrapperHelper | undefined;
  // The helper as the factory makes it when given nothing: its defaults, the numbers its own code writes.
  const baseOf = () => (base ??= helper.madeWith!([]));
  const made = new Map<string, WrapperHelper>();
  return {
    fn,
    ...named,
    site: helper.site,
    kind: helper.kind,
    operation: helper.operation,
    ctx,
    defaults: () => baseOf().defaults(),
    specialise: () => undefined,
    makes(factoryArgs: readonly DataValue[]): WrapperHelper {
      const key = keyOf(factoryArgs);
      let hit = made.get(key);
      if (!hit) {
        const at = helper.madeWith!(factoryArgs);
        // Compared with the factory's defaults, so what the factory call changes is the call's finding.
        hit = { ...at, defaults: () => baseOf().defaults() };
        if (made.size >= MAX_MADE) made.delete(made.keys().next().value!);
        made.set(key, hit);
      }
      return hit;
    },
  };
}

export interface RetrierCall {
  readonly call: TSESTree.CallExpression;
  readonly callee: Node;
}

/**
 * Whether a call's result is kept where a retrier is looked for: a const, an instance field, or a
 * call of it. Decided from the tree around the call alone, before any file is read.
 */
export function keepsResult(call: TSESTree.CallExpression): boolean {
  const p = call.parent;
  if (p?.type === T.CallExpression) return p.callee === call;
  if (p?.type === T.VariableDeclarator) return p.init === call && p.id.type === T.Identifier;
  if (p?.type === T.PropertyDefinition) return p.value === call && !p.static;
  return p?.type === T.AssignmentExpression && p.operator === '=' && p.right === call && isThisMember(p.left);
}

function isThisMember(n: Node): n is TSESTree.MemberExpression {
  return n.type === T.MemberExpression && !n.computed && unwrap(n.object).type === T.ThisExpression && memberName(n) !== undefined;
}

/** The calls of what one factory call returns. */
export function retrierCalls(ctx: AnalysisContext, factoryCall: TSESTree.CallExpression): RetrierCall[] {
  const p = factoryCall.parent;
  if (p?.type === T.CallExpression && p.callee === factoryCall) return [{ call: p, callee: factoryCall }];
  if (p?.type === T.VariableDeclarator && p.init === factoryCall && p.id.type === T.Identifier) {
    const variable = ctx.sourceCode.scopeManager?.getDeclaredVariables(p).find((v) => v.name === (p.id as TSESTree.Identifier).name);
    // A name written again may hold something else when it is called.
    if (!variable || constInitializer(variable) !== factoryCall) return [];
    const out: RetrierCall[] = [];
    for (const ref of variable.references) {
      const id = ref.identifier as Node;
      if (id.parent?.type === T.CallExpression && id.parent.callee === id) out.push({ call: id.parent, callee: id });
    }
    return out;
  }
  let owner: TSESTree.ClassDeclaration | TSESTree.ClassExpression | undefined;
  let name: string | undefined;
  if (p?.type === T.PropertyDefinition && p.value === factoryCall && !p.static) {
    owner = p.parent.parent as typeof owner;
    name = p.key.type === T.PrivateIdentifier ? `#${p.key.name}` : staticPropertyName(p);
  } else if (p?.type === T.AssignmentExpression && p.right === factoryCall && isThisMember(p.left) && inConstructor(p)) {
    owner = thisClass(unwrap(p.left.object) as TSESTree.ThisExpression);
    name = memberName(p.left);
  }
  if (!owner || name === undefined || hasOtherWrite(ctx, owner, name, p as Node)) return [];
  return methodCalls(ctx, owner, name);
}

/** `this.x = ...` written in the class's constructor (set once, before any method runs). */
function inConstructor(n: Node): boolean {
  for (let q = n.parent; q; q = q.parent) {
    if (q.type === T.FunctionExpression) return q.parent?.type === T.MethodDefinition && q.parent.kind === 'constructor';
    if (q.type === T.ArrowFunctionExpression || q.type === T.FunctionDeclaration) return false;
  }
  return false;
}

/** Another `this.<name> = ...` in the class than `write`: the field may hold something else. */
function hasOtherWrite(ctx: AnalysisContext, owner: TSESTree.ClassDeclaration | TSESTree.ClassExpression, name: string, write: Node): boolean {
  const text = ctx.sourceCode.text.slice(owner.range[0], owner.range[1]);
  const bare = name.startsWith('#') ? name.slice(1) : name;
  const writes = text.match(new RegExp(`[.#]${bare.replace(/\$/g, '\\$')}\\s*=[^=]`, 'g'))?.length ?? 0;
  return writes > (write.type === T.PropertyDefinition ? 0 : 1);
}

/** The retrier sites of a factory's calls: `addCall` with the helper each call makes. */
export function addFactoryCalls(
  ctx: AnalysisContext,
  factory: WrapperHelper,
  factoryCall: TSESTree.CallExpression,
  addCall: (helper: WrapperHelper, call: TSESTree.CallExpression, callee: Node) => boolean,
): void {
  const calls = retrierCalls(ctx, factoryCall);
  if (calls.length === 0 || !factory.makes) return;
  const args = readArguments(factoryCall, ctx, factory.fn.params.length);
  const made: WrapperHelper = { ...factory.makes(args.values), madeAt: { fn: factory.fn, nodes: args.nodes } };
  for (const c of calls) addCall(made, c.call, c.callee);
}
