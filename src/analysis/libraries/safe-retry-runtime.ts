import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { keyedSchedule, type LibraryFixes } from '../fix-plan.js';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { argument, callOf } from '../library.js';
import type { Execution, RetrySite } from '../model.js';
import { UNKNOWN_SCHEDULE, geometricSchedule, growthOfFactor, totalAttempts } from '../schedule.js';
import { UNKNOWN } from '../eval/values.js';
import { IN_MEMORY_MS, TYPICAL_ATTEMPTS, TYPICAL_FIRST_WAIT_MS, TYPICAL_MULTIPLIER } from '../../shared/guide-limits.js';
import { LIBRARY_FILTER, optionsTarget, orUnknown, site } from './shared.js';

/** Suggestions in the runtime's own option names (fixes.ts reads this facet). */
const RUNTIME_FIXES: LibraryFixes = {
  schedule: keyedSchedule({
    attempts: { path: ['maxAttempts'], counts: 'attempts' },
    initialMs: ['initialDelayMs'],
    multiplier: ['multiplier'],
    maxMs: ['maxDelayMs'],
    deadlineMs: ['deadlineMs'],
    jitterBound: { factor: 1 },
  }),
};

/**
 * This project's own runtime, recognised like any other library: `createRetryPolicy(opts)`
 * defines the retry (attempts 1..5, exponential, always jittered, deadline 5 s by default);
 * `policy.read(fn)` and `policy.write({ idempotencyKey }, fn)` run operations through it.
 */
export const safeRetryRuntime: LibraryDescriptor = {
  id: 'safe-retry-runtime',
  modules: ['eslint-plugin-safe-retry/runtime'],
  attemptParameter: { index: 0, property: 'attempt' },
  fixes: RUNTIME_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      if (call && use.path === 'createPolicyRegistry') {
        const registry = registrySite(call, use.expression, ctx);
        if (registry) sites.push(registry);
        continue;
      }
      if (!call || use.path !== 'createRetryPolicy') continue;
      const view = ctx.options(argument(call, 0));
      // The runtime's own defaults, which are the guide's typical values.
      const initial = view.number('initialDelayMs', TYPICAL_FIRST_WAIT_MS);
      const multiplier = view.number('multiplier', TYPICAL_MULTIPLIER);
      const maxDelay = view.number('maxDelayMs', 2000);
      const deadline = view.number('deadlineMs', IN_MEMORY_MS);
      const breaker = view.get('breaker');
      sites.push(site({
        library: 'safe-retry-runtime',
        label: 'createRetryPolicy()',
        node: call,
        reportNode: use.expression,
        attempts: totalAttempts(view.number('maxAttempts', TYPICAL_ATTEMPTS), 'attempts'),
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

/**
 * `createPolicyRegistry(config)`: the limits come from configuration (YAML, JSON, environment), so
 * they are unknown here and never judged; what the code sends through `registry.retry(name)` is.
 */
function registrySite(call: TSESTree.CallExpression, callee: TSESTree.Node, ctx: AnalysisContext): RetrySite | undefined {
  const policies = methodCalls(call, ctx, 'retry');
  const executions = policies.flatMap((policy) => [...executionCalls(policy, ctx), ...executionsOf(policy, ctx)]);
  if (executions.length === 0) return undefined;
  return site({
    library: 'safe-retry-runtime',
    label: 'registry.retry()',
    node: call,
    reportNode: callee,
    attempts: { value: UNKNOWN },
    delay: UNKNOWN_SCHEDULE,
    jitter: { value: true },
    errorFilter: LIBRARY_FILTER,
    deadlineMs: { value: UNKNOWN },
    clientLevel: true,
    // A configured instance pairs with the circuit breaker of its name; whether one exists is config.
    breaker: call,
    executions,
  });
}

/** `x.method(...)` calls on the value a call's result is stored in (or on the call itself). */
function methodCalls(call: TSESTree.CallExpression, ctx: AnalysisContext, method: string): TSESTree.CallExpression[] {
  const out: TSESTree.CallExpression[] = [];
  const take = (object: TSESTree.Node) => {
    const member = object.parent;
    if (member?.type !== T.MemberExpression || member.object !== object || member.computed) return;
    if (member.property.type !== T.Identifier || member.property.name !== method) return;
    if (member.parent?.type === T.CallExpression && member.parent.callee === member) out.push(member.parent);
  };
  take(call);
  const parent = call.parent;
  if (parent?.type === T.VariableDeclarator && parent.id.type === T.Identifier) {
    for (const ref of ctx.sourceCode.getDeclaredVariables(parent)[0]?.references ?? []) take(ref.identifier);
  }
  return out;
}

/** `policy.read(fn)` / `policy.write(opts, fn)` made directly on a call's result. */
function executionCalls(call: TSESTree.CallExpression, ctx: AnalysisContext): Execution[] {
  return [...methodCalls(call, ctx, 'read'), ...methodCalls(call, ctx, 'write')].flatMap((exec) => toExecution(exec));
}

function toExecution(exec: TSESTree.CallExpression): Execution[] {
  const callee = exec.callee as TSESTree.MemberExpression;
  const method = callee.property.type === T.Identifier ? callee.property.name : '';
  if (method === 'read') return [{ call: exec, operation: argument(exec, 0), options: argument(exec, 1), method }];
  if (method === 'write') return [{ call: exec, operation: argument(exec, 1), options: argument(exec, 0), method }];
  return [];
}

/** `const policy = createRetryPolicy(); policy.read(fn)` / `policy.write(opts, fn)`. */
function executionsOf(call: TSESTree.CallExpression, ctx: AnalysisContext): Execution[] {
  const parent = call.parent;
  if (parent?.type !== T.VariableDeclarator || parent.id.type !== T.Identifier) return [];
  return [...methodCalls(call, ctx, 'read'), ...methodCalls(call, ctx, 'write')]
    .filter((exec) => exec.callee.type === T.MemberExpression && exec.callee.object !== call)
    .flatMap((exec) => toExecution(exec));
}
