import { getRetryModel } from '../analysis/index.js';
import { createRule } from '../util/create-rule.js';

type Options = [];
type MessageIds = 'noBreaker';

export default createRule<Options, MessageIds>({
  name: 'require-circuit-breaker',
  meta: {
    type: 'suggestion',
    docs: {
      description: 'Require retries to be composed with a circuit breaker',
      recommended: 'strict',
      guideRules: ['R-RES-CB-1'],
    },
    schema: [],
    messages: {
      noBreaker:
        '{{label}} is not composed with a circuit breaker, so it keeps sending traffic to a dependency that stays down (R-RES-CB-1). Pass a breaker (the runtime\'s `breaker` option, cockatiel `wrap(retry, circuitBreaker)`, or opossum around the operation).',
    },
  },
  defaultOptions: [],
  create(context) {
    return {
      'Program:exit'() {
        const model = getRetryModel(context);
        // Library defaults nobody wrote (a plain got call, an SDK client) and durable engines are not
        // this rule's target; a helper composes with a breaker or not, once, in the helper.
        for (const site of model.sitesFor('breaker')) {
          if (model.operations.breakerOf(site)) continue;
          context.report({ node: site.reportNode, messageId: 'noBreaker', data: { label: site.label } });
        }
      },
    };
  },
});
