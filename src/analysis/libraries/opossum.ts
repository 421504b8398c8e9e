import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, BreakerQuery, LibraryDescriptor } from '../library.js';
import { functionOf } from '../library.js';
import type { Node } from '../model.js';
import { propertyKey, unwrap } from '../ast.js';
import { contains } from './shared.js';

/**
 * opossum: `new CircuitBreaker(action, opts)`, then `breaker.fire(...args)`. It does not retry; a
 * retry is composed with it when the breaker fires inside the retried code, or when the retry
 * runs inside the breaker's action.
 */
export const opossum: LibraryDescriptor = {
  id: 'opossum',
  modules: ['opossum'],
  breaker: { find: composedBreaker },
};

function composedBreaker(query: BreakerQuery, ctx: AnalysisContext): Node | undefined {
  for (const scope of query.scopes) {
    for (const call of query.callsIn(scope)) {
      const callee = unwrap(call.callee);
      if (callee.type === T.MemberExpression && propertyKey(callee, () => undefined) === 'fire' && isBreaker(callee.object, ctx)) return call;
    }
  }
  for (const ctor of ctx.nodesOfType(T.NewExpression)) {
    if (ctx.imports.resolve(ctor.callee)?.module !== 'opossum') continue;
    const action = ctor.arguments[0];
    const fn = action && functionOf(action, ctx);
    if (fn && contains(fn, query.site.node)) return ctor;
  }
  return undefined;
}

function isBreaker(node: Node, ctx: AnalysisContext): boolean {
  const init = ctx.evaluator.resolve(node);
  return init.type === T.NewExpression && ctx.imports.resolve(init.callee)?.module === 'opossum';
}
