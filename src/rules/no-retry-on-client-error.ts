import type { TSESTree } from '@typescript-eslint/utils';
import { getRetryModel } from '../analysis/index.js';
import { clientErrorSuggestion, describeEdits, type Suggestion } from '../analysis/fixes.js';
import { createRule } from '../util/create-rule.js';

type Options = [];
type MessageIds = 'retriesClientError' | 'retriesClientErrorWhen' | 'retriesEverything' | 'unfilteredHttp' | 'unfilteredDefaults' | 'stopOnClientErrors';

export default createRule<Options, MessageIds>({
  name: 'no-retry-on-client-error',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow retrying HTTP 4xx client errors',
      recommended: 'recommended',
      guideRules: ['R-RES-RE-2', 'R-RES-RE-X2'],
    },
    hasSuggestions: true,
    schema: [],
    messages: {
      retriesClientError:
        '{{label}} retries HTTP {{status}}, a client error that fails the same way on every attempt (R-RES-RE-X2). Retry only network errors, 408, 429 (honouring Retry-After) and 5xx{{noEdit}}.',
      retriesClientErrorWhen:
        '{{label}} retries HTTP {{status}} wherever the deployment sets `{{condition}}` (configuration read from {{reads}}), a client error that fails the same way on every attempt (R-RES-RE-X2). Retry only network errors, 408, 429 (honouring Retry-After) and 5xx, whatever the configuration{{noEdit}}.',
      retriesEverything:
        '{{label}} retries every failure, 4xx client errors included (R-RES-RE-X2). Retry only network errors, 408, 429 (honouring Retry-After) and 5xx{{noEdit}}.',
      unfilteredHttp:
        '{{label}} retries every error of {{call}}, including its 4xx responses (R-RES-RE-X2). Add an error filter that stops on 4xx (for example a predicate that only accepts network errors, 408, 429 and 5xx){{noEdit}}.',
      unfilteredDefaults:
        '{{label}} retries every error of the code that takes these defaults, including 4xx responses: {{hook}} at {{at}} sends {{call}}, which rejects on 4xx (R-RES-RE-X2). Make the default `retry` a function that stops on 4xx other than 408 and 429{{noEdit}}.',
      stopOnClientErrors: 'Stop retrying on 4xx other than 408 and 429 ({{edit}}).',
    },
  },
  defaultOptions: [],
  create(context) {
    return {
      'Program:exit'() {
        const model = getRetryModel(context);
        for (const site of model.sitesFor('client-errors')) {
          const filter = site.errorFilter;
          // Planned once per site, and only for a site that is reported (null: not planned yet).
          let planned: Suggestion | undefined | null = null;
          const report = (node: TSESTree.Node, messageId: Exclude<MessageIds, 'stopOnClientErrors'>, data: Record<string, string>) => {
            if (planned === null) planned = clientErrorSuggestion(site, model, model.operations.facts(site).httpCalls);
            const suggestion = planned;
            context.report({
              node,
              messageId,
              // Where no edit keeps the rest of the filter's meaning, the message says so.
              data: { ...data, noEdit: suggestion ? '' : '; no edit of this site can be suggested safely, write the filter by hand' },
              suggest: suggestion ? [{ messageId: 'stopOnClientErrors', data: { edit: describeEdits(suggestion.edits) }, fix: suggestion.fix }] : [],
            });
          };
          for (const inclusion of filter.clientErrors) {
            if (inclusion.condition) {
              const { text, reads } = inclusion.condition;
              report(inclusion.node, 'retriesClientErrorWhen', { label: site.label, status: inclusion.status, condition: text, reads: reads.join(', ') });
            } else report(inclusion.node, 'retriesClientError', { label: site.label, status: inclusion.status });
          }
          if (filter.clientErrors.length > 0) continue;
          if (filter.retriesEverything) {
            report(filter.retriesEverything, 'retriesEverything', { label: site.label });
            continue;
          }
          if (filter.kind !== 'none') continue;
          const call = model.operations.facts(site).httpCalls.find((c) => c.throwsOnClientError);
          if (call) {
            report(site.reportNode, 'unfilteredHttp', { label: site.label, call: `${context.sourceCode.getText(call.node.callee)}()` });
            continue;
          }
          // Defaults other files take (a QueryClient's): judged by what the code taking them sends.
          const use = site.defaultsTakenBy?.();
          if (use) report(site.reportNode, 'unfilteredDefaults', { label: site.label, hook: use.hook, at: use.at, call: use.call });
        }
      },
    };
  },
});
