import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import type { DelaySchedule, ErrorFilter, Node, RetrySite } from '../model.js';
import type { OptionsView } from '../options.js';
import { NO_DELAY, customSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown, type StaticValue } from '../eval/values.js';
import { unwrap } from '../ast.js';
import { declaredName, referencesOf, optionsArgument } from './http-shared.js';
import { LIBRARY_FILTER, optionsTarget, orUnknown, site } from './shared.js';
import { SITE_COUNT_SCHEDULE, type LibraryFixes } from '../fix-plan.js';
import { withDefaults } from '../fix-filters.js';

const MODULE = '@octokit/plugin-retry';
const DO_NOT_RETRY = [400, 401, 403, 404, 410, 422, 451];

/** Suggestions in this library's words: its own count edit (the schedule is the library's). */
const OCTOKIT_FIXES: LibraryFixes = {
  schedule: SITE_COUNT_SCHEDULE,
  // The defaults a written `doNotRetry` leaves out (an empty list leaves out all of them), added back.
  clientErrors(site, ctx) {
    const option = ctx.options(site.options?.object).get('retry');
    const list = option.valueNode ? ctx.options(option.valueNode).get('doNotRetry') : undefined;
    const text = list?.property && !list.property.shorthand ? withDefaults(list.valueNode, DO_NOT_RETRY, ctx) : undefined;
    return text ? [{ path: ['retry', 'doNotRetry'], text }] : undefined;
  },
};

/**
 * @octokit/plugin-retry: `const MyOctokit = Octokit.plugin(retry)`, then
 * `new MyOctokit({ retry: { enabled, retries, doNotRetry, retryAfterBaseValue } })`. 3 retries,
 * waits (n)^2 × 1 s (1 s, 4 s, 9 s) with no jitter, every status ≥ 400 outside `doNotRetry`.
 */
export const octokitPluginRetry: LibraryDescriptor = {
  id: MODULE,
  modules: [MODULE],
  fixes: OCTOKIT_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      if (use.path !== 'retry') continue;
      const actions = actionsOctokit(use.expression, ctx);
      if (actions) {
        const view = ctx.options(optionsArgument(actions, 1));
        sites.push(readSite(view, { node: actions, reportNode: actions.callee, operation: actions, options: optionsTarget(view, actions, 1), label: 'getOctokit(retry)' }));
        continue;
      }
      const plugin = pluginCall(use.expression);
      if (!plugin) continue;
      const constructions = constructionsOf(plugin, ctx);
      if (constructions.length === 0) {
        // The class is built here and used elsewhere: its retries run at the defaults.
        sites.push(readSite(ctx.options(undefined), { node: plugin, reportNode: use.expression, operation: plugin }));
        continue;
      }
      for (const created of constructions) {
        const view = ctx.options(optionsArgument(created, 0));
        sites.push(readSite(view, {
          node: created,
          reportNode: created.callee,
          operation: created,
          options: optionsTarget(view, created, 0),
        }));
      }
    }
    return sites;
  },
};

/**
 * `getOctokit(token, options, retry, ...)` from `@actions/github` (the GitHub Actions toolkit,
 * read in actions/toolkit packages/github/src/github.ts: `GitHub.plugin(...additionalPlugins)` then
 * `new OctokitWithPlugins(getOctokitOptions(token, options))`): the plugin comes in as an extra
 * argument, the options are the second.
 */
function actionsOctokit(expression: Node, ctx: AnalysisContext): TSESTree.CallExpression | undefined {
  const p = expression.parent;
  if (p?.type !== T.CallExpression || p.arguments.indexOf(expression as TSESTree.CallExpressionArgument) < 2) return undefined;
  const ref = ctx.imports.resolve(p.callee);
  return ref?.module === '@actions/github' && ref.path === 'getOctokit' ? p : undefined;
}

/** `Octokit.plugin(retry, throttling)` holding this use among its arguments. */
function pluginCall(expression: Node): TSESTree.CallExpression | undefined {
  const p = expression.parent;
  if (p?.type !== T.CallExpression || !p.arguments.includes(expression as TSESTree.CallExpressionArgument)) return undefined;
  const callee = unwrap(p.callee);
  if (callee.type !== T.MemberExpression || callee.computed || callee.property.type !== T.Identifier || callee.property.name !== 'plugin') return undefined;
  return p;
}

/** `new (Octokit.plugin(retry))(opts)` or `const My = Octokit.plugin(retry); new My(opts)`. */
function constructionsOf(plugin: TSESTree.CallExpression, ctx: AnalysisContext): TSESTree.NewExpression[] {
  const direct = plugin.parent;
  if (direct?.type === T.NewExpression && direct.callee === plugin) return [direct];
  const id = declaredName(plugin);
  if (!id) return [];
  const out: TSESTree.NewExpression[] = [];
  for (const ref of referencesOf(id, ctx)) {
    const p = ref.parent;
    if (p?.type === T.NewExpression && p.callee === ref) out.push(p);
  }
  return out;
}

function readSite(view: OptionsView, spec: { node: Node; reportNode: Node; operation: Node; options?: ReturnType<typeof optionsTarget>; label?: string }): RetrySite {
  const retry = view.sub('retry');
  const enabled = retry.boolean('enabled', true);
  let attempts = totalAttempts(retry.number('retries', 3), 'retries');
  if (enabled.value === false) attempts = { value: 1, node: enabled.node };
  const base = retry.number('retryAfterBaseValue', 1000);
  const baseMs = orUnknown(base.value);
  const delay: DelaySchedule = isKnown(baseMs) && baseMs <= 0
    ? { ...NO_DELAY, node: base.node }
    : customSchedule('polynomial', (n) => (isKnown(baseMs) ? n * n * baseMs : UNKNOWN), { initialMs: baseMs, maxMs: Infinity, node: base.node });
  return site({
    // This library re-sends every method, POST and PATCH included.
    retriesWrites: { value: true },
    library: MODULE,
    label: spec.label ?? 'Octokit.plugin(retry)',
    node: spec.node,
    reportNode: spec.reportNode,
    attempts,
    delay,
    jitter: { value: false },
    errorFilter: readFilter(retry),
    clientLevel: true,
    operation: spec.operation,
    ...(spec.options ? {
      options: spec.options,
      fixes: { attempts: (total: number) => [{ path: ['retry', 'retries'], text: String(Math.max(0, total - 1)) }] },
    } : {}),
  });
}

/**
 * `doNotRetry` lists what is NOT retried: an empty list retries every 4xx, and each default entry
 * left out of a written list is a client error that now gets retried.
 */
function readFilter(retry: OptionsView): ErrorFilter {
  const option = retry.get('doNotRetry');
  const node = option.property;
  if (!node && option.value === undefined) return retry.state === 'unknown' ? { kind: 'custom', clientErrors: [] } : LIBRARY_FILTER;
  if (!Array.isArray(option.value) || !node) return { kind: 'custom', clientErrors: [], node };
  const listed = new Set((option.value as StaticValue[]).filter((v): v is number => typeof v === 'number'));
  if (listed.size === 0 && (option.value as StaticValue[]).length === 0) {
    return { kind: 'none', clientErrors: [], retriesEverything: node, node };
  }
  // One finding on the list naming every default it drops, rather than one per status on the same node.
  const dropped = DO_NOT_RETRY.filter((s) => !listed.has(s)).map(String);
  const status = dropped.length > 1 ? `${dropped.slice(0, -1).join(', ')} and ${dropped[dropped.length - 1]}` : dropped[0];
  return { kind: 'statuses', clientErrors: status ? [{ status, node }] : [], node };
}
