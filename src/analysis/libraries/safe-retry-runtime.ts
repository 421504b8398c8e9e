import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { argument, callOf } from '../library.js';
import type { Execution, RetrySite } from '../model.js';
import { geometricSchedule, growthOfFactor, totalAttempts } from '../schedule.js';
import { LIBRARY_FILTER, optionsTarget, orUnknown, site } from './shared.js';

/**
 * This project's own runtime, recognised like any other library: `createRetryPolicy(opts)`
 * defines the retry (attempts 1..5, exponential, always jittered, deadline 5 s by default);
 * `policy.read(fn)` and `policy.write({ idempotencyKey }, fn)` run operations through it.
 */
export const safeRetryRuntime: LibraryDescriptor = {
  id: 'safe-retry-runtime',
  modules: ['eslint-plugin-safe-retry/runtime'],
  attemptParameter: { index: 0, property: 'attempt' },
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      if (!call || use.path !== 'createRetryPolicy') continue;
      const view = ctx.options(argument(call, 0));
      const initial = view.number('initialDelayMs', 500);
      const multiplier = view.number('multiplier', 2);
      const maxDelay = view.number('maxDelayMs', 2000);
      const deadline = view.number('deadlineMs', 5000);
      const breaker = view.get('breaker');
      sites.push(site({
        library: 'safe-retry-runtime',
        label: 'createRetryPolicy()',
        node: call,
        reportNode: use.expression,
        attempts: totalAttempts(view.number('maxAttempts', 3), 'attempts'),
        delay: geometricSchedule({
          growth: growthOfFactor(orUnknown(multiplier.value), orUnknown(initial.value)),
          initialMs: orUnknown(initial.value),
          multiplier: orUnknown(multiplier.value),
          maxMs: orUnknown(maxDelay.value),
          node: multiplier.node ?? initial.node,
        }),
        // The runtime has no way to turn jitter off.
        jitter: { value: true },
        errorFilter: LIBRARY_FILTER,
        deadlineMs: deadline,
        attemptTimeoutMs: view.number('attemptTimeoutMs', undefined),
        clientLevel: true,
        breaker: breaker.valueNode,
        executions: executionsOf(call, ctx),
        options: optionsTarget(view, call, 0),
        fixes: { attempts: (total) => [{ path: ['maxAttempts'], text: String(total) }] },
      }));
    }
    return sites;
  },
};

/** `const policy = createRetryPolicy(); policy.read(fn)` / `policy.write(opts, fn)`. */
function executionsOf(call: TSESTree.CallExpression, ctx: AnalysisContext): Execution[] {
  const parent = call.parent;
  if (parent?.type !== T.VariableDeclarator || parent.id.type !== T.Identifier) return [];
  const variable = ctx.sourceCode.getDeclaredVariables(parent)[0];
  const out: Execution[] = [];
  for (const ref of variable?.references ?? []) {
    const member = ref.identifier.parent;
    if (member?.type !== T.MemberExpression || member.object !== ref.identifier || member.computed) continue;
    if (member.property.type !== T.Identifier) continue;
    const method = member.property.name;
    const exec = member.parent;
    if (exec?.type !== T.CallExpression || exec.callee !== member) continue;
    if (method === 'read') out.push({ call: exec, operation: argument(exec, 0), options: argument(exec, 1), method });
    else if (method === 'write') out.push({ call: exec, operation: argument(exec, 1), options: argument(exec, 0), method });
  }
  return out;
}
