import { AST_NODE_TYPES } from '@typescript-eslint/types';
import { getRetryModel, type RetryModel } from '../analysis/index.js';
import { describeEdits, optionEditsFix, scheduleSuggestion } from '../analysis/fixes.js';
import type { RetrySite } from '../analysis/model.js';
import { isKnown } from '../analysis/eval/values.js';
import { DURABLE_MAX_ATTEMPTS, MAX_ATTEMPTS } from '../shared/guide-limits.js';
import { createRule } from '../util/create-rule.js';

type Options = [{ max?: number }];
type MessageIds = 'tooManyAttempts' | 'tooManyAttemptsByDefault' | 'unbounded' | 'unboundedUntilAborted' | 'setThreeAttempts' | 'durableTooMany' | 'durableUnbounded' | 'setDurableAttempts';

export default createRule<Options, MessageIds>({
  name: 'max-retry-attempts',
  meta: {
    type: 'problem',
    docs: {
      description: 'Enforce a small bound on the number of retry attempts',
      recommended: 'recommended',
      guideRules: ['R-RES-RE-3', 'R-RES-RE-5'],
    },
    hasSuggestions: true,
    messages: {
      tooManyAttempts:
        '{{label}} makes up to {{attempts}} calls in total, above the bound of {{max}} (R-RES-RE-3). Use 3 attempts; work that needs more belongs in a durable task queue.',
      tooManyAttemptsByDefault:
        '{{label}} makes up to {{attempts}} calls in total with this default, which every call that passes no value gets, above the bound of {{max}} (R-RES-RE-3). Default to 3 attempts; work that needs more belongs in a durable task queue.',
      unbounded:
        '{{label}} retries without bound (R-RES-RE-3). Bound it to 3 attempts; work that must eventually succeed belongs in a durable task queue.',
      unboundedUntilAborted:
        '{{label}} has no limit on attempts: it retries until it succeeds or its abort signal fires (R-RES-RE-3). Bound it to 3 attempts; work that must eventually succeed belongs in a durable task queue.',
      setThreeAttempts: 'Bound the attempts, keeping the schedule within the guide ({{edit}}).',
      durableTooMany:
        '{{label}} retries this durable work up to {{attempts}} times, above the bound of {{max}} (R-RES-RE-5). After {{max}} attempts mark it failed and alert a human.',
      durableUnbounded:
        '{{label}} retries this durable work without bound and with no overall deadline (R-RES-RE-5). Bound it to {{max}} attempts, then mark it failed and alert a human.',
      setDurableAttempts: 'Limit to {{max}} attempts ({{edit}}).',
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
    /**
     * A durable engine (Temporal, BullMQ) is judged by R-RES-RE-5's bound, not the in-memory one:
     * at most 10 attempts, and never without bound unless an overall deadline stops it.
     */
    function reportDurable(site: RetrySite, model: RetryModel) {
      const attempts = site.attempts.value;
      if (!isKnown(attempts) || attempts <= DURABLE_MAX_ATTEMPTS) return;
      const deadline = site.deadlineMs.value;
      if (attempts === Infinity && isKnown(deadline) && deadline !== undefined && deadline > 0) return;
      const edits = site.fixes?.attempts?.(DURABLE_MAX_ATTEMPTS);
      const fix = optionEditsFix(site, edits, context.sourceCode);
      context.report({
        node: model.findingNode(site, site.attempts.node),
        messageId: attempts === Infinity ? 'durableUnbounded' : 'durableTooMany',
        data: { label: site.label, attempts, max: DURABLE_MAX_ATTEMPTS },
        suggest: fix && edits
          ? [{ messageId: 'setDurableAttempts', data: { max: DURABLE_MAX_ATTEMPTS, edit: describeEdits(edits) }, fix }]
          : [],
      });
    }
    return {
      'Program:exit'() {
        // A helper's own bound is reported once, in the helper, not at every call to it.
        const model = getRetryModel(context);
        for (const site of model.sitesFor('attempts')) {
          if (site.kind === 'durable') {
            reportDurable(site, model);
            continue;
          }
          const attempts = site.attempts.value;
          if (!isKnown(attempts) || attempts <= max) continue;
          // A parameter's default (`{ maxAttempts = 5 }`) is shown where it is written; the options' own edit would not change it.
          const node = model.findingNode(site, site.attempts.node);
          const byDefault = node.type === AST_NODE_TYPES.AssignmentPattern;
          const suggestion = site.attempts.node?.type === AST_NODE_TYPES.AssignmentPattern ? undefined : scheduleSuggestion(site, { need: 'attempts', maxAttempts: max }, model, site.fixes?.attempts?.(3));
          context.report({
            node,
            messageId: attempts === Infinity ? (site.stopsOnAbort ? 'unboundedUntilAborted' : 'unbounded') : byDefault ? 'tooManyAttemptsByDefault' : 'tooManyAttempts',
            data: { label: site.label, attempts, max },
            suggest: suggestion
              ? [{ messageId: 'setThreeAttempts', data: { edit: describeEdits(suggestion.edits) }, fix: suggestion.fix }]
              : [],
          });
        }
      },
    };
  },
});
