import { getRetryModel } from '../analysis/index.js';
import { describeEdits, optionEditsFix } from '../analysis/fixes.js';
import { createRule } from '../util/create-rule.js';

type Options = [];
type MessageIds = 'noJitter' | 'addJitter';

export default createRule<Options, MessageIds>({
  name: 'require-jitter',
  meta: {
    type: 'problem',
    docs: {
      description: 'Require randomised jitter on growing retry delays',
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
        for (const site of getRetryModel(context).sitesFor('jitter')) {
          // Constant and linear delays are require-exponential-backoff's finding, not this rule's.
          const growth = site.delay.growth;
          if (growth !== 'exponential' && growth !== 'polynomial') continue;
          if (site.jitter.value !== false) continue;
          const edits = site.fixes?.jitter?.();
          const fix = optionEditsFix(site, edits, context.sourceCode);
          context.report({
            node: site.jitter.node ?? site.delay.node ?? site.reportNode,
            messageId: 'noJitter',
            data: { label: site.label },
            suggest: fix && edits ? [{ messageId: 'addJitter', data: { edit: describeEdits(edits) }, fix }] : [],
          });
        }
      },
    };
  },
});
