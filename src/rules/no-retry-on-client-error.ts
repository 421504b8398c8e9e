import { getRetryModel } from '../analysis/index.js';
import { createRule } from '../util/create-rule.js';

type Options = [];
type MessageIds = 'retriesClientError' | 'retriesEverything' | 'unfilteredHttp';

export default createRule<Options, MessageIds>({
  name: 'no-retry-on-client-error',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow retrying HTTP 4xx client errors',
      recommended: 'recommended',
      guideRules: ['R-RES-RE-2', 'R-RES-RE-X2'],
    },
    schema: [],
    messages: {
      retriesClientError:
        '{{label}} retries HTTP {{status}}, a client error that fails the same way on every attempt (R-RES-RE-X2). Retry only network errors, 408, 429 (honouring Retry-After) and 5xx.',
      retriesEverything:
        '{{label}} retries every failure, 4xx client errors included (R-RES-RE-X2). Retry only network errors, 408, 429 (honouring Retry-After) and 5xx.',
      unfilteredHttp:
        '{{label}} retries every error of {{call}}, including its 4xx responses (R-RES-RE-X2). Add an error filter that stops on 4xx (for example a predicate that only accepts network errors, 408, 429 and 5xx).',
    },
  },
  defaultOptions: [],
  create(context) {
    return {
      'Program:exit'() {
        const model = getRetryModel(context);
        for (const site of model.sitesFor('client-errors')) {
          const filter = site.errorFilter;
          for (const inclusion of filter.clientErrors) {
            context.report({ node: inclusion.node, messageId: 'retriesClientError', data: { label: site.label, status: inclusion.status } });
          }
          if (filter.clientErrors.length > 0) continue;
          if (filter.retriesEverything) {
            context.report({ node: filter.retriesEverything, messageId: 'retriesEverything', data: { label: site.label } });
            continue;
          }
          if (filter.kind !== 'none') continue;
          const call = model.operations.facts(site).httpCalls.find((c) => c.throwsOnClientError);
          if (!call) continue;
          context.report({
            node: site.reportNode,
            messageId: 'unfilteredHttp',
            data: { label: site.label, call: `${context.sourceCode.getText(call.node.callee)}()` },
          });
        }
      },
    };
  },
});
