import { getRetryModel } from '../analysis/index.js';
import { describeEdits, optionEditsFix } from '../analysis/fixes.js';
import { isKnown } from '../analysis/static-value.js';
import { MAX_ATTEMPTS } from '../shared/guide-limits.js';
import { createRule } from '../util/create-rule.js';

type Options = [{ max?: number }];
type MessageIds = 'tooManyAttempts' | 'unbounded' | 'setThreeAttempts';

export default createRule<Options, MessageIds>({
  name: 'max-retry-attempts',
  meta: {
    type: 'problem',
    docs: {
      description: 'Enforce a small bound on the number of retry attempts',
      recommended: 'recommended',
      guideRules: ['R-RES-RE-3'],
    },
    hasSuggestions: true,
    messages: {
      tooManyAttempts:
        '{{label}} makes up to {{attempts}} calls in total, above the bound of {{max}} (R-RES-RE-3). Use 3 attempts; work that needs more belongs in a durable task queue.',
      unbounded:
        '{{label}} retries without bound (R-RES-RE-3). Bound it to 3 attempts; work that must eventually succeed belongs in a durable task queue.',
      setThreeAttempts: 'Limit to 3 attempts in total ({{edit}}).',
    },
    schema: [
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          max: {
            type: 'integer',
            minimum: 1,
            description: 'Largest allowed number of attempts, counting the first call.',
          },
        },
      },
    ],
  },
  defaultOptions: [{ max: MAX_ATTEMPTS }],
  create(context, [{ max = MAX_ATTEMPTS }]) {
    return {
      'Program:exit'() {
        for (const site of getRetryModel(context).sites) {
          if (site.kind === 'durable') continue;
          // A helper's own bound is reported once, in the helper, not at every call to it.
          if (site.fromHelper?.has('attempts')) continue;
          const attempts = site.attempts.value;
          if (!isKnown(attempts) || attempts <= max) continue;
          const edits = site.fixes?.attempts?.(3);
          const fix = optionEditsFix(site, edits, context.sourceCode);
          context.report({
            node: site.attempts.node ?? site.reportNode,
            messageId: attempts === Infinity ? 'unbounded' : 'tooManyAttempts',
            data: { label: site.label, attempts, max },
            suggest: fix && edits
              ? [{ messageId: 'setThreeAttempts', data: { edit: describeEdits(edits) }, fix }]
              : [],
          });
        }
      },
    };
  },
});
