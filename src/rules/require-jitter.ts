import { getRetryModel } from '../analysis/index.js';
import { describeEdits, scheduleSuggestion } from '../analysis/fixes.js';
import { createRule } from '../util/create-rule.js';

type Options = [];
type MessageIds = 'noJitter' | 'addJitter';

export default createRule<Options, MessageIds>({
  name: 'require-jitter',
  meta: {
    type: 'problem',
    docs: {
      description: 'Require randomised jitter on retry delays',
      recommended: 'recommended',
      guideRules: ['R-RES-RE-X3'],
    },
    hasSuggestions: true,
    messages: {
      noJitter:
        '{{label}} backs off without randomness, so every client that failed together retries together and the load peak only moves (R-RES-RE-X3). Add jitter (full jitter is the usual choice).',
      addJitter: 'Randomise the delays ({{edit}}).',
    },
    schema: [],
  },
  defaultOptions: [],
  create(context) {
    return {
      'Program:exit'() {
        const model = getRetryModel(context);
        for (const site of model.sitesFor('jitter')) {
          // Any schedule with no randomness, whatever its shape: immediate, constant, linear or
          // growing retries all land together (a constant wait breaks this rule and
          // require-exponential-backoff both, and both are reported so one pass fixes the site).
          if (typeof site.delay.growth !== 'string') continue;
          if (site.jitter.value !== false) continue;
          const suggestion = scheduleSuggestion(site, { need: 'jitter' }, model, site.fixes?.jitter?.());
          context.report({
            node: model.findingNode(site, site.jitter.node ?? site.delay.node),
            messageId: 'noJitter',
            data: { label: site.label },
            suggest: suggestion ? [{ messageId: 'addJitter', data: { edit: describeEdits(suggestion.edits) }, fix: suggestion.fix }] : [],
          });
        }
      },
    };
  },
});
