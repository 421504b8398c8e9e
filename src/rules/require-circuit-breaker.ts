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
        for (const site of model.sites) {
          // Library defaults nobody wrote (a plain got call, an SDK client) are not this rule's target.
          if (site.kind === 'durable' || site.implicit || site.attempts.value === 1) continue;
          if (site.fromHelper?.has('breaker')) continue; // the helper composes with a breaker or not, once
          if (model.operations.breakerOf(site)) continue;
          context.report({ node: site.reportNode, messageId: 'noBreaker', data: { label: site.label } });
        }
      },
    };
  },
});
