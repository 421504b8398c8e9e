/**
 * Slack's `WebClient` (`@slack/web-api`): `new WebClient(token?, { retryConfig, timeout })`.
 *
 * Read from slackapi/node-slack-sdk at @slack/web-api 8.0.0 (packages/web-api/src/WebClient.ts,
 * retry-policies.ts), the same in 6.7 and 6.13: every Web API method is sent as a POST through
 * `pRetry(task, this.retryConfig)`; `retryConfig` defaults to `tenRetriesInAboutThirtyMinutes`
 * (`{ retries: 10, factor: 1.96821, randomize: true }`: 11 calls over about half an hour). A
 * written `retryConfig` replaces the policy whole, so what it leaves out takes p-retry's own
 * defaults (retries 10, factor 2, 1 s, no randomness). A 429 with Retry-After is waited out
 * and retried. Any other status but 200 is thrown as a `WebAPIHTTPError` (a `SlackError`, not
 * p-retry's `AbortError`), so 4xx responses are retried too ("Slack's Web API doesn't use
 * meaningful status codes besides 429 and 200", WebClient.ts makeRequest at 8.0.0; the 6.x axios
 * version throws `httpErrorFromResponse` the same way). Errors the Web API reports in a 200 body
 * (`ok: false`) are not retried. Every method is a POST with no idempotency key, so the client
 * re-sends writes (`chat.postMessage`) wherever it is used.
 */
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { labelOf, newOf } from '../library.js';
import type { Node, RetrySite } from '../model.js';
import type { OptionsView } from '../options.js';
import { unwrap } from '../ast.js';
import { LIBRARY_FILTER, NODE_RETRY_DEFAULTS, NODE_RETRY_SCHEDULE, NO_TIMEOUT, optionsTarget, readNodeRetryOptions, site } from './shared.js';
import { implicitWhen, optionsArgument } from './sdk-shared.js';

const MODULE = '@slack/web-api';

/** The exported policies, by name (retry-policies.ts). */
const POLICIES: Record<string, Record<string, number | boolean>> = {
  tenRetriesInAboutThirtyMinutes: { retries: 10, factor: 1.96821, randomize: true },
  fiveRetriesInFiveMinutes: { retries: 5, factor: 3.86 },
  rapidRetryPolicy: { minTimeout: 0, maxTimeout: 1 },
};
const P_RETRY_DEFAULTS = { ...NODE_RETRY_DEFAULTS, forever: true };

export const slackWebApi: LibraryDescriptor = {
  id: 'slack-web-api',
  modules: [MODULE],
  fixes: { schedule: NODE_RETRY_SCHEDULE },
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      if (use.path !== 'WebClient') continue;
      const call = newOf(use);
      if (!call) continue;
      const view = optionsArgument(call, 1, ctx);
      const config = view.get('retryConfig');
      let read: ReturnType<typeof readNodeRetryOptions> | undefined;
      // Suggestions edit a `retryConfig` written as an object literal, in p-retry's words.
      let retryConfig: OptionsView | undefined;
      if (view.state !== 'unknown' && !config.property && config.value === undefined) {
        read = readNodeRetryOptions(ctx.options(undefined), { ...P_RETRY_DEFAULTS, ...POLICIES.tenRetriesInAboutThirtyMinutes });
      } else {
        const policy = config.valueNode ? policyName(config.valueNode, ctx) : undefined;
        if (policy) read = readNodeRetryOptions(ctx.options(undefined), { ...P_RETRY_DEFAULTS, ...POLICIES[policy] });
        else if (config.valueNode) {
          const written = view.sub('retryConfig');
          if (written.state === 'object') {
            read = readNodeRetryOptions(written, P_RETRY_DEFAULTS);
            retryConfig = written;
          }
        }
      }
      if (!read) continue;
      if (read.attempts.value === 1) continue;
      const timeout = view.number('timeout', undefined);
      sites.push(site({
        library: 'slack-web-api',
        label: `new ${labelOf(use.expression, ctx.sourceCode)}()`,
        node: call,
        reportNode: use.expression,
        attempts: { value: read.attempts.value, node: read.attempts.node ?? config.property },
        delay: read.delay.node ? read.delay : { ...read.delay, node: config.property ?? use.expression },
        jitter: read.jitter,
        deadlineMs: read.deadlineMs,
        errorFilter: { ...LIBRARY_FILTER, clientErrors: [{ status: '4xx (every status but 200 and 429)', node: config.property ?? use.expression }] },
        attemptTimeoutMs: typeof timeout.value === 'number' && timeout.value > 0 ? timeout : NO_TIMEOUT,
        // Every Web API call is a POST, chat.postMessage included, and none carries a key.
        retriesWrites: { value: true, node: config.property ?? use.expression },
        clientLevel: true,
        ...implicitWhen(!config.property && view.state !== 'unknown'),
        operation: call,
        options: retryConfig?.object ? { object: retryConfig.object } : optionsTarget(view, call, 1),
        fixes: retryConfig?.object ? read.fixes : undefined,
      }));
    }
    return sites;
  },
};

/** `retryPolicies.fiveRetriesInFiveMinutes` or a named import of one of the exported policies. */
function policyName(node: Node, ctx: AnalysisContext): string | undefined {
  const ref = ctx.imports.resolve(unwrap(node));
  if (ref?.module !== MODULE) return undefined;
  const name = ref.path.split('.').pop() ?? '';
  return name in POLICIES ? name : undefined;
}
