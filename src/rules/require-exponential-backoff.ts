import { getRetryModel } from '../analysis/index.js';
import { fallingWaits, singleWait } from '../analysis/schedule.js';
import { formatDuration, formatWaits } from '../analysis/fix-plan.js';
import { describeEdits, scheduleSuggestion } from '../analysis/fixes.js';
import { isKnown } from '../analysis/eval/values.js';
import { createRule } from '../util/create-rule.js';

type Options = [];
type MessageIds = 'noDelay' | 'constantDelay' | 'linearDelay' | 'fallingDelay' | 'useExponential';

const MESSAGE_BY_GROWTH = { none: 'noDelay', constant: 'constantDelay', linear: 'linearDelay' } as const;

export default createRule<Options, MessageIds>({
  name: 'require-exponential-backoff',
  meta: {
    type: 'problem',
    docs: {
      description: 'Require exponential backoff between retry attempts',
      recommended: 'recommended',
      guideRules: ['R-RES-RE-2', 'R-RES-RE-X3'],
    },
    hasSuggestions: true,
    messages: {
      noDelay:
        '{{label}} retries immediately, with no wait between attempts (R-RES-RE-X3). Back off exponentially: first wait about 500 ms, then multiply by 2.',
      constantDelay:
        '{{label}} {{constant}} (R-RES-RE-X3). Back off exponentially with multiplier 2{{keep}}.',
      linearDelay:
        '{{label}} grows its wait linearly, which does not relieve a struggling dependency (R-RES-RE-X3). Back off exponentially with multiplier 2.',
      fallingDelay:
        '{{label}} waits do not keep growing ({{waits}}): a retry that waits less than the one before it hits a recovering dependency sooner, not later (R-RES-RE-X3). Back off exponentially with multiplier 2.',
      useExponential: 'Switch to exponential backoff ({{edit}}).',
    },
    schema: [],
  },
  defaultOptions: [],
  create(context) {
    return {
      'Program:exit'() {
        const model = getRetryModel(context);
        for (const site of model.sitesFor('backoff')) {
          const growth = site.delay.growth;
          const falling = fallingWaits(site);
          if (!falling && (!isKnown(growth) || !(growth in MESSAGE_BY_GROWTH))) continue;
          if (!falling && singleWait(site)) continue;
          const suggestion = scheduleSuggestion(site, { need: 'backoff' }, model, site.fixes?.exponential?.());
          context.report({
            node: model.findingNode(site, site.delay.node),
            messageId: falling ? 'fallingDelay' : MESSAGE_BY_GROWTH[growth as keyof typeof MESSAGE_BY_GROWTH],
            data: { label: site.label, waits: falling ? formatWaits(falling, formatDuration) : '', ...constantWording(site.jitter.value === true) },
            suggest: suggestion ? [{ messageId: 'useExponential', data: { edit: describeEdits(suggestion.edits) }, fix: suggestion.fix }] : [],
          });
        }
      },
    };
  },
});

/**
 * How a constant schedule is described: a random wait in a fixed range (`1000 + Math.random() *
 * 1000`, async-retry's default randomisation with `factor: 1`) does not bring clients back in step;
 * only its lack of growth is wrong.
 */
function constantWording(jittered: boolean): { constant: string; keep: string } {
  return jittered
    ? { constant: 'waits about as long before every retry (randomised, but not growing), so a dependency that stays overloaded gets no relief from it', keep: ', keeping the randomness' }
    : { constant: 'waits the same time before every retry, so clients hit a recovering dependency in step', keep: '' };
}
