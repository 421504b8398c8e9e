import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { argument, callOf } from '../library.js';
import type { Node, RetrySite } from '../model.js';
import { NODE_RETRY_DEFAULTS, NODE_RETRY_SCHEDULE, customFilter, optionsTarget, readNodeRetryOptions, site } from './shared.js';

/**
 * node-retry (`retry`): `retry.operation(opts)` then `op.attempt(cb)` / `op.retry(err)`;
 * `retry.timeouts(opts)` and `retry.wrap(obj, opts)`. The caller decides per error by calling
 * `op.retry(err)`, so the filter is the caller's own.
 */
export const nodeRetry: LibraryDescriptor = {
  id: 'retry',
  modules: ['retry'],
  // A standalone helper: no circuit breaker, metrics wired by hand, config in code (R-RES-RE-X4).
  legacy: { modules: ['retry'] },
  attemptParameter: { index: 0 },
  fixes: {
    schedule: NODE_RETRY_SCHEDULE,
    migrate: () => 'retry.operation() drives attempts through callbacks (op.attempt, op.retry): rewrite it by hand',
  },
  // `const POLICY: WrapOptions = {...}`: the options read as the library reads them, filter unknown.
  optionsType: { names: ['OperationOptions', 'WrapOptions', 'TimeoutsOptions'], read: (view) => ({ ...readNodeRetryOptions(view, NODE_RETRY_DEFAULTS), errorFilter: customFilter() }) },
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      if (!call) continue;
      const optionsIndex = use.path === 'operation' || use.path === 'timeouts' ? 0 : use.path === 'wrap' ? 1 : -1;
      if (optionsIndex < 0) continue;
      const view = ctx.options(argument(call, optionsIndex));
      const read = readNodeRetryOptions(view, NODE_RETRY_DEFAULTS);
      sites.push(site({
        library: 'retry',
        label: `retry.${use.path}()`,
        node: call,
        reportNode: use.expression,
        ...read,
        errorFilter: customFilter(),
        operation: use.path === 'operation' ? attemptCallback(call, ctx) : argument(call, 0),
        options: optionsTarget(view, call, optionsIndex),
      }));
    }
    return sites;
  },
};

/** `const op = retry.operation(); op.attempt(cb)`: the callback is what gets repeated. */
function attemptCallback(call: TSESTree.CallExpression, ctx: AnalysisContext): Node | undefined {
  const parent = call.parent;
  if (parent?.type !== T.VariableDeclarator || parent.id.type !== T.Identifier) return undefined;
  const variable = ctx.sourceCode.getDeclaredVariables(parent)[0];
  for (const ref of variable?.references ?? []) {
    const member = ref.identifier.parent;
    if (member?.type !== T.MemberExpression || member.object !== ref.identifier) continue;
    if (member.property.type !== T.Identifier || !['attempt', 'try', 'start'].includes(member.property.name)) continue;
    const attempt = member.parent;
    if (attempt?.type === T.CallExpression && attempt.callee === member) return argument(attempt, 0);
  }
  return undefined;
}
