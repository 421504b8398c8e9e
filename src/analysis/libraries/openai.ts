import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { SITE_COUNT_SCHEDULE } from '../fix-plan.js';
import type { LibraryDescriptor } from '../library.js';
import { labelOf, newOf } from '../library.js';
import { isDefaultPath } from '../imports.js';
import type { RetrySite, Setting } from '../model.js';
import type { OptionsView } from '../options.js';
import { geometricSchedule, totalAttempts } from '../schedule.js';
import { LIBRARY_FILTER, NO_TIMEOUT, optionsTarget, site } from './shared.js';
import { implicitWhen, optionsArgument, requestOptionCalls, writesNone } from './sdk-shared.js';

/**
 * The Stainless-generated SDK client: `new OpenAI({ maxRetries, timeout })`, overridable per
 * request (`client.chat.completions.create(body, { maxRetries })`). `maxRetries` counts retries
 * (default 2); waits are min(0.5 s × 2^(n−1), 8 s) less up to 25% jitter; connection errors,
 * 408, 409, 429 and 5xx are retried unless `x-should-retry` says otherwise, for every method
 * (read from openai/openai-node 7.5.0, src/client.ts `shouldRetry` and `retryRequest`; the same
 * in 4.x src/core.ts): a POST completion is re-sent with no idempotency key (OpenAI never sets
 * `idempotencyHeader`), and 409 is a retried 4xx.
 *
 * Those two are reported where the team writes `maxRetries` (it chose how often completions are
 * re-sent); a client left at the SDK's default two retries is counted by no-nested-retry when
 * something retries around it, but not reported on its own (the corpus labels treat the default
 * as the SDK's policy: panstav/test-therapy-bot's bare client is unlabelled).
 */
function stainlessClient(id: string, modules: string[], classes: string[], calls?: RegExp): LibraryDescriptor {
  return {
    id,
    modules,
    // maxRetries ?? 2 for every method (openai 7.5.0 src/client.ts `retryRequest`, 4.x src/core.ts).
    // A client handed in is known by the SDK's resource paths (`*.chat.completions.create(...)`).
    builtInRetry: {
      attempts: 3,
      retriesWrites: true,
      label: `${modules[0]} client`,
      ...(calls ? { matches: (call: TSESTree.CallExpression) => calls.test(memberPath(call.callee)) } : {}),
    },
    fixes: { schedule: SITE_COUNT_SCHEDULE },
    find(uses, ctx) {
      const sites: RetrySite[] = [];
      for (const use of uses) {
        if (!isDefaultPath(use.path) && !classes.includes(use.path)) continue;
        const call = newOf(use);
        if (!call) continue;
        const view = optionsArgument(call, 0, ctx);
        sites.push(site({
          library: id,
          label: `new ${labelOf(use.expression, ctx.sourceCode)}()`,
          node: call,
          reportNode: use.expression,
          ...readOptions(view),
          ...implicitWhen(writesNone(view, ['maxRetries'])),
          clientLevel: true,
          operation: call,
          options: optionsTarget(view, call, 0),
          fixes: { attempts: (total) => [{ path: ['maxRetries'], text: String(total - 1) }] },
        }));
        for (const request of requestOptionCalls(call, 'maxRetries', ctx)) {
          sites.push(site({
            library: id,
            label: `${labelOf(request.call.callee, ctx.sourceCode)}()`,
            node: request.call,
            reportNode: request.call.callee,
            ...readOptions(request.view),
            operation: request.call,
            options: optionsTarget(request.view, request.call, request.index),
            fixes: { attempts: (total) => [{ path: ['maxRetries'], text: String(total - 1) }] },
          }));
        }
      }
      return sites;
    },
  };
}

function readOptions(view: OptionsView) {
  const retries = view.number('maxRetries', 2);
  const timeout = view.number('timeout', undefined);
  const written = view.get('maxRetries').property;
  return {
    attempts: totalAttempts(retries, 'retries'),
    delay: geometricSchedule({ growth: 'exponential', initialMs: 500, multiplier: 2, maxMs: 8000, node: retries.node ?? view.object }),
    jitter: { value: true } as Setting<boolean>,
    errorFilter: written ? { ...LIBRARY_FILTER, clientErrors: [{ status: '409', node: written }] } : LIBRARY_FILTER,
    ...(written ? { retriesWrites: { value: true, node: written } as Setting<boolean> } : {}),
    attemptTimeoutMs: timeout.node ? timeout : NO_TIMEOUT,
  };
}

/** `a.b.c` of a callee made of plain members; '' otherwise. */
function memberPath(node: TSESTree.Node): string {
  const parts: string[] = [];
  let n: TSESTree.Node = node;
  while (n.type === T.MemberExpression && !n.computed && n.property.type === T.Identifier) {
    parts.unshift(n.property.name);
    n = n.object;
  }
  return n.type === T.Identifier || n.type === T.ThisExpression || n.type === T.MemberExpression ? parts.join('.') : '';
}

/** The OpenAI SDK's own resource paths, which no other client spells this way. */
const OPENAI_CALLS = /(?:^|\.)(?:chat\.completions\.(?:create|parse|stream)|responses\.(?:create|parse|stream)|embeddings\.create|images\.(?:generate|edit|createVariation)|moderations\.create|audio\.(?:transcriptions|translations|speech)\.create)$/;

export const openai: LibraryDescriptor = stainlessClient('openai', ['openai'], ['OpenAI', 'AzureOpenAI'], OPENAI_CALLS);

/** Anthropic's SDK is generated the same way, with the same retry defaults. */
export const anthropic: LibraryDescriptor = stainlessClient('anthropic', ['@anthropic-ai/sdk'], ['Anthropic']);
