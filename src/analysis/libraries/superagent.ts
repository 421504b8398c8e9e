import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { alwaysTrue, argument, functionOf } from '../library.js';
import type { ErrorFilter, Node, RetrySite, Setting } from '../model.js';
import { NO_DELAY, totalAttempts } from '../schedule.js';
import { UNKNOWN } from '../eval/values.js';
import { declaredName, predicateClientErrors, referencesOf } from './http-shared.js';
import { LIBRARY_FILTER, NO_TIMEOUT, site } from './shared.js';
import { SITE_COUNT_SCHEDULE, type LibraryFixes } from '../fix-plan.js';

const MODULE = 'superagent';

/** Suggestions in this library's words: its own count edit (the schedule is the library's). */
const SUPERAGENT_FIXES: LibraryFixes = { schedule: SITE_COUNT_SCHEDULE };

/**
 * superagent: `request.get(url).retry(count?, callback?)` somewhere along a method chain rooted at
 * the superagent import, or `.retry()` on an agent (`request.agent().retry(2)`), which applies to
 * every request it sends. `.retry()` alone means 1 retry; retries are immediate (no delay, no
 * jitter) and `.timeout(...)` bounds each attempt.
 */
export const superagent: LibraryDescriptor = {
  id: MODULE,
  modules: [MODULE],
  // `superagent.post(url).send(body)`: a response outside 2xx rejects.
  http: { method: 'chained', senders: ['default'], throwsOnClientError: true },
  fixes: SUPERAGENT_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const chain = chainFrom(use.expression);
      const agent = use.path === 'agent';
      const s = siteOfChain(chain, agent, ctx);
      if (s) sites.push(s);
      if (!agent || chain.length === 0) continue;
      // const agent = request.agent(); agent.retry(2); agent.get(url).retry(1)
      const id = declaredName(chain[chain.length - 1]!.call);
      if (!id) continue;
      for (const ref of referencesOf(id, ctx)) {
        const r = siteOfChain(chainFrom(ref), true, ctx);
        if (r) sites.push(r);
      }
    }
    return sites;
  },
};

interface Link {
  /** The method called (`get`, `retry`); undefined for calling the start itself. */
  readonly name: string | undefined;
  readonly call: TSESTree.CallExpression;
}

/** The calls chained on `start`: `start(...)`, `.set(...)`, `.retry(3)`, ... */
function chainFrom(start: Node): Link[] {
  const out: Link[] = [];
  let current: Node = start;
  const first = current.parent;
  if (first?.type === T.CallExpression && first.callee === current) {
    out.push({ name: undefined, call: first });
    current = first;
  }
  for (;;) {
    const member = current.parent;
    if (member?.type !== T.MemberExpression || member.object !== current) break;
    // `request[method](url)`: a request whose method is chosen at run time.
    const computedRoot = member.computed && current === start;
    if (!computedRoot && (member.computed || member.property.type !== T.Identifier)) break;
    const call = member.parent;
    if (call?.type !== T.CallExpression || call.callee !== member) break;
    out.push({ name: computedRoot ? 'request' : (member.property as TSESTree.Identifier).name, call });
    current = call;
  }
  return out;
}

const REQUEST_METHODS = new Set(['get', 'post', 'put', 'patch', 'del', 'delete', 'head', 'options', 'request']);

/**
 * The site of the last `.retry()` in a chain. On an agent, a `.retry()` before any request method
 * (`agent.retry(2)`) configures the agent itself: every request it sends.
 */
function siteOfChain(chain: readonly Link[], agentRoot: boolean, ctx: AnalysisContext): RetrySite | undefined {
  let retry: TSESTree.CallExpression | undefined;
  let timeout: TSESTree.CallExpression | undefined;
  let clientLevel = false;
  let requested = false;
  for (const link of chain) {
    if (link.name !== undefined && REQUEST_METHODS.has(link.name)) requested = true;
    if (link.name === 'retry') {
      retry = link.call;
      clientLevel = agentRoot && !requested;
    } else if (link.name === 'timeout') timeout = link.call;
  }
  if (!retry) return undefined;
  const member = retry.callee as TSESTree.MemberExpression;
  return site({
    // This library re-sends every method, POST and PATCH included.
    retriesWrites: { value: true },
    library: MODULE,
    label: '.retry()',
    node: retry,
    reportNode: member.property,
    attempts: readCount(retry, ctx),
    delay: NO_DELAY,
    jitter: { value: false },
    errorFilter: readCallback(argument(retry, 1), ctx),
    attemptTimeoutMs: timeout ? readTimeout(timeout, ctx) : NO_TIMEOUT,
    clientLevel,
    operation: chain[0]?.call,
    options: { call: retry, argumentIndex: 0 },
    fixes: { attempts: (total) => [{ path: [], text: String(Math.max(0, total - 1)) }] },
  });
}

/** `.retry()` and `.retry(true)` mean one retry; `.retry(n)` n retries. */
function readCount(call: TSESTree.CallExpression, ctx: AnalysisContext): Setting<number> {
  if (call.arguments.length === 0) return { value: 2 };
  const arg = argument(call, 0);
  if (!arg) return { value: UNKNOWN };
  const v = ctx.evaluator.evaluate(arg);
  if (v === true || v === undefined) return { value: 2, node: arg };
  if (v === false) return { value: 1, node: arg };
  if (typeof v === 'number') return totalAttempts({ value: v, node: arg }, 'retries');
  return { value: UNKNOWN, node: arg };
}

function readCallback(node: Node | undefined, ctx: AnalysisContext): ErrorFilter {
  if (!node) return LIBRARY_FILTER;
  const fn = functionOf(node, ctx);
  if (fn && alwaysTrue(fn, ctx)) return { kind: 'none', clientErrors: [], retriesEverything: node, node };
  return { kind: 'custom', clientErrors: fn ? predicateClientErrors(fn, ctx, {}) : [], node };
}

/** `.timeout(ms)` or `.timeout({ deadline, response })`; the timers restart on every retry. */
function readTimeout(call: TSESTree.CallExpression, ctx: AnalysisContext): Setting<number | undefined> {
  const arg = argument(call, 0);
  if (!arg) return NO_TIMEOUT;
  const v = ctx.evaluator.evaluate(arg);
  if (typeof v === 'number') return { value: v > 0 ? v : undefined, node: arg };
  const view = ctx.options(arg);
  if (view.state !== 'object') return { value: UNKNOWN, node: arg };
  const deadline = view.number('deadline', undefined);
  if (deadline.value !== undefined) return deadline;
  // Without a deadline the response timeout still bounds the wait for the first byte.
  const response = view.number('response', undefined);
  return response.value === undefined ? NO_TIMEOUT : response;
}
