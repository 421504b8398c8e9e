import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { argument, callOf, newOf } from '../library.js';
import type { ErrorFilter, Node, OptionEdit, RetrySite, SiteFixes } from '../model.js';
import type { OptionsView } from '../options.js';
import { UNKNOWN_SCHEDULE, geometricSchedule, growthOfFactor, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown } from '../eval/values.js';
import { unwrap } from '../ast.js';
import { statusListFilter, optionsArgument, writesRetried } from './http-shared.js';
import { LIBRARY_FILTER, optionsTarget, orUnknown, site } from './shared.js';
import { keyedSchedule, type LibraryFixes } from '../fix-plan.js';
import { dropClientErrorEntries } from '../fix-filters.js';

const MODULE = 'undici';

/** Suggestions in this library's words (fixes.ts reads this facet). */
const UNDICI_FIXES: LibraryFixes = {
  // 4xx entries taken out of the written status list (fix-filters.ts).
  clientErrors: dropClientErrorEntries,
  schedule: keyedSchedule({
    attempts: { path: ['maxRetries'], counts: 'retries' },
    initialMs: ['minTimeout'],
    multiplier: ['timeoutFactor'],
    maxMs: ['maxTimeout'],
  }),
};

/**
 * undici: `new RetryAgent(dispatcher, opts)`, `dispatcher.compose(interceptors.retry(opts))` and
 * `new RetryHandler({ ...dispatchOpts, retryOptions }, handlers)`. maxRetries 5, waits
 * min(500 × 2^(n−1), 30000) with no jitter, statuses 500/502/503/504/429. A `retry` function
 * replaces the whole policy.
 */
export const undici: LibraryDescriptor = {
  id: MODULE,
  modules: [MODULE],
  // `fetch` and `request(url, { method })`: neither rejects on a status.
  http: { method: 'fetch', senders: ['fetch', 'default', 'request'], throwsOnClientError: false },
  fixes: UNDICI_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      if (use.path === 'RetryAgent') {
        const created = newOf(use);
        if (!created) continue;
        const view = ctx.options(optionsArgument(created, 1));
        sites.push(readSite(view, [], {
          label: 'new RetryAgent()', node: created, reportNode: use.expression, clientLevel: true, operation: created,
          options: optionsTarget(view, created, 1),
        }, ctx));
      } else if (use.path === 'interceptors.retry') {
        const call = callOf(use);
        if (!call) continue;
        const view = ctx.options(optionsArgument(call, 0));
        sites.push(readSite(view, [], {
          label: 'interceptors.retry()', node: call, reportNode: use.expression, clientLevel: true, operation: composedOn(call),
          options: optionsTarget(view, call, 0),
        }, ctx));
      } else if (use.path === 'RetryHandler') {
        const created = newOf(use);
        if (!created) continue;
        const outer = ctx.options(optionsArgument(created, 0));
        const view = outer.sub('retryOptions');
        const nested = !!outer.get('retryOptions').property;
        sites.push(readSite(view, ['retryOptions'], {
          label: 'new RetryHandler()', node: created, reportNode: use.expression, clientLevel: false, operation: argument(created, 0),
          // Edits go through `retryOptions` inside the dispatch options.
          options: optionsTarget(nested ? view : outer, created, 0),
        }, ctx, nested));
      }
    }
    return sites;
  },
};

/** `agent.compose(interceptors.retry())`: the dispatcher the interceptor is composed onto. */
function composedOn(call: TSESTree.CallExpression): Node {
  const p = call.parent;
  if (p?.type === T.CallExpression && p.arguments.includes(call)) {
    const callee = unwrap(p.callee);
    if (callee.type === T.MemberExpression && !callee.computed && callee.property.type === T.Identifier && callee.property.name === 'compose') return p;
  }
  return call;
}

interface Spec {
  label: string;
  node: Node;
  reportNode: Node;
  clientLevel: boolean;
  operation: Node | undefined;
  options: ReturnType<typeof optionsTarget>;
}

function readSite(view: OptionsView, prefix: readonly string[], spec: Spec, ctx: AnalysisContext, nested = true): RetrySite {
  const custom = view.get('retry');
  const replaced = !!custom.property || (custom.value !== undefined);
  const factor = view.number('timeoutFactor', 2);
  const min = view.number('minTimeout', 500);
  const max = view.number('maxTimeout', 30_000);
  const initial = orUnknown(min.value);
  const multiplier = orUnknown(factor.value);
  const delay = replaced ? { ...UNKNOWN_SCHEDULE, node: custom.property } : geometricSchedule({
    growth: growthOfFactor(multiplier, initial),
    initialMs: initial,
    multiplier,
    maxMs: orUnknown(max.value),
    node: factor.node ?? min.node,
  });
  const statusCodes = view.get('statusCodes');
  let errorFilter: ErrorFilter = view.state === 'unknown' ? { kind: 'custom', clientErrors: [] } : LIBRARY_FILTER;
  if (replaced) errorFilter = { kind: 'custom', clientErrors: [], node: custom.property };
  else if (statusCodes.property || statusCodes.value !== undefined) errorFilter = statusListFilter(statusCodes, ctx, {});
  // With the options object absent from RetryHandler's dispatch options, edits need the full path.
  const at = (key: string): string[] => (nested ? [key] : [...prefix, key]);
  const fixes: SiteFixes = {
    ...(replaced ? {} : { attempts: (total: number): OptionEdit[] => [{ path: at('maxRetries'), text: String(Math.max(0, total - 1)) }] }),
    exponential: () => [
      ...(isKnown(initial) && initial <= 0 ? [{ path: at('minTimeout'), text: '500' }] : []),
      { path: at('timeoutFactor'), text: '2' },
    ],
  };
  return site({
    library: MODULE,
    ...spec,
    attempts: replaced ? { value: UNKNOWN, node: custom.property } : totalAttempts(view.number('maxRetries', 5), 'retries'),
    delay,
    jitter: { value: replaced ? UNKNOWN : false, node: replaced ? custom.property : undefined },
    errorFilter,
    retriesWrites: replaced ? { value: UNKNOWN, node: custom.property } : writesRetried(view.get('methods'), ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE', 'QUERY']),
    fixes,
  });
}
