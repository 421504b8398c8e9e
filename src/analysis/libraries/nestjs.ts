import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { argument, callOf, functionOf } from '../library.js';
import type { Node, OptionEdit, RetrySite } from '../model.js';
import type { OptionsView } from '../options.js';
import { UNKNOWN_SCHEDULE, geometricSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown } from '../eval/values.js';
import { unwrap } from '../ast.js';
import { NO_FILTER, customFilter, optionsTarget, site } from './shared.js';
import { SITE_COUNT_SCHEDULE, type LibraryFixes } from '../fix-plan.js';

const MODULES: Record<string, { module: string; optionsIndex: number }> = {
  TypeOrmModule: { module: '@nestjs/typeorm', optionsIndex: 0 },
  MongooseModule: { module: '@nestjs/mongoose', optionsIndex: 1 },
};

/** Suggestions in this library's words: its own count edit (the schedule is the library's). */
const NESTJS_FIXES: LibraryFixes = { schedule: SITE_COUNT_SCHEDULE };

/**
 * NestJS database modules: `TypeOrmModule.forRoot({ retryAttempts, retryDelay, toRetry })`,
 * `MongooseModule.forRoot(uri, { retryAttempts, retryDelay })` and their `forRootAsync({
 * useFactory })` forms. They retry the initial connection: `retryAttempts` counts ATTEMPTS in the
 * code (it stops when `errorCount + 1 >= retryAttempts`), default 9, although the interface doc
 * says "times to retry, default 10"; `retryDelay` is a constant 3000 ms.
 */
export const nestjs: LibraryDescriptor = {
  id: 'nestjs',
  modules: Object.values(MODULES).map((m) => m.module),
  fixes: NESTJS_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const [name, method] = use.path.split('.');
      const spec = name ? MODULES[name] : undefined;
      if (!spec || spec.module !== use.module || (method !== 'forRoot' && method !== 'forRootAsync')) continue;
      const call = callOf(use);
      if (!call) continue;
      const target = method === 'forRoot' ? { source: argument(call, spec.optionsIndex), call, index: spec.optionsIndex } : factoryResult(call, ctx);
      const view = ctx.options(target.source);
      // The framework's own startup connection retry (9 attempts, 3 s apart) is its default, and
      // it offers no exponential or jittered form: only a retry the code configures is judged.
      if (view.state === 'object' && !view.get('retryAttempts').property && !view.get('retryDelay').property) continue;
      sites.push(siteOf(call, use.expression, `${name}.${method}()`, view, target.call, target.index));
    }
    return sites;
  },
};

function siteOf(call: TSESTree.CallExpression, callee: Node, label: string, view: OptionsView, targetCall: TSESTree.CallExpression | undefined, index: number | undefined): RetrySite {
  const retryAttempts = view.number('retryAttempts', 9);
  const retryDelay = view.number('retryDelay', 3000);
  const ms = retryDelay.value;
  const delay = ms === undefined ? UNKNOWN_SCHEDULE : geometricSchedule({
    growth: isKnown(ms) ? (ms <= 0 ? 'none' : 'constant') : UNKNOWN,
    initialMs: ms,
    multiplier: 1,
    maxMs: ms,
    node: retryDelay.node,
  });
  const toRetry = view.get('toRetry');
  const filtered = !!toRetry.property || toRetry.value !== undefined;
  return site({
    library: 'nestjs',
    label,
    node: call,
    reportNode: callee,
    attempts: totalAttempts(retryAttempts, 'attempts'),
    delay: { ...delay, node: retryDelay.node },
    jitter: { value: false },
    errorFilter: filtered ? customFilter(toRetry.property) : view.state === 'unknown' ? customFilter() : NO_FILTER,
    options: targetCall && index !== undefined ? optionsTarget(view, targetCall, index) : { object: view.object },
    fixes: {
      attempts: (total: number): OptionEdit[] => [{ path: ['retryAttempts'], text: String(total) }],
    },
  });
}

/** `forRootAsync({ useFactory: (...) => ({ ... }) })`: the object the factory returns. */
function factoryResult(call: TSESTree.CallExpression, ctx: AnalysisContext): { source: Node | undefined; call?: undefined; index?: undefined } {
  const outer = ctx.options(argument(call, 0));
  const factory = functionOf(outer.get('useFactory').valueNode, ctx);
  // `useClass`/`useExisting` or a factory we cannot see: the options are not in this file.
  if (!factory?.body) return { source: unknownNode(call) };
  if (factory.body.type !== T.BlockStatement) return { source: unwrap(factory.body) };
  const returns = factory.body.body.filter((s): s is TSESTree.ReturnStatement => s.type === T.ReturnStatement);
  return { source: returns.length === 1 && returns[0]!.argument ? returns[0]!.argument : unknownNode(call) };
}

/** A node the options view cannot read, so every option stays UNKNOWN. */
function unknownNode(call: TSESTree.CallExpression): Node {
  return call;
}
