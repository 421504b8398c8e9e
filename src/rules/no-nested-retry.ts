import type { TSESTree } from '@typescript-eslint/utils';
import { getRetryModel } from '../analysis/index.js';
import { describeEdits, disableSuggestion } from '../analysis/fixes.js';
import { createRule } from '../util/create-rule.js';

type Options = [];
type MessageIds = 'nestedRetry' | 'disableInner';

export default createRule<Options, MessageIds>({
  name: 'no-nested-retry',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow retrying an operation that already retries on its own',
      recommended: 'recommended',
      guideRules: ['R-RES-RE-3'],
    },
    hasSuggestions: true,
    schema: [],
    messages: {
      nestedRetry:
        '{{outer}} retries {{inner}}, which already makes up to {{innerAttempts}} calls: {{outerAttempts}} x {{innerAttempts}} = {{total}} calls to the dependency per user action (R-RES-RE-3). Retry in one layer only: configure the inner one, or drop the outer one{{noEdit}}.',
      disableInner: 'Turn off the retries of the inner layer, keeping those of {{outer}} ({{edit}}).',
    },
  },
  defaultOptions: [],
  create(context) {
    return {
      'Program:exit'() {
        const model = getRetryModel(context);
        const reported = new Set<TSESTree.Node>();
        for (const site of model.sitesFor('nested')) {
          const outer = site.attempts.value;
          if (typeof outer !== 'number' || outer <= 1) continue;
          // Defaults another file's hooks take (a QueryClient's): the first hook whose query function
          // sends through a layer that retries on its own, named with its file, reported here.
          const taken = site.defaultsNestedBy?.();
          if (taken && !reported.has(site.reportNode)) {
            reported.add(site.reportNode);
            context.report({
              node: site.reportNode,
              messageId: 'nestedRetry',
              data: {
                outer: site.label,
                inner: `${taken.label} of ${taken.hook} at ${taken.at}`,
                outerAttempts: outer === Infinity ? 'unbounded' : outer,
                innerAttempts: taken.attempts === Infinity ? 'unbounded' : taken.attempts,
                total: outer === Infinity || taken.attempts === Infinity ? 'unbounded' : String(outer * taken.attempts),
                noEdit: '; no edit of the inner layer can be suggested safely here',
              },
            });
          }
          for (const nested of model.operations.facts(site).nested) {
            if (reported.has(nested.node)) continue;
            reported.add(nested.node);
            const total = outer === Infinity || nested.attempts === Infinity ? 'unbounded' : String(outer * nested.attempts);
            // The inner layer's count set to one attempt, in its own library's words.
            const suggestion = nested.site ? disableSuggestion(nested.site, model) : undefined;
            context.report({
              node: nested.node,
              messageId: 'nestedRetry',
              data: {
                outer: site.label,
                inner: nested.label,
                outerAttempts: outer === Infinity ? 'unbounded' : outer,
                innerAttempts: nested.attempts === Infinity ? 'unbounded' : nested.attempts,
                total,
                noEdit: suggestion ? '' : '; no edit of the inner layer can be suggested safely here',
              },
              suggest: suggestion
                ? [{ messageId: 'disableInner', data: { outer: site.label, edit: describeEdits(suggestion.edits) }, fix: suggestion.fix }]
                : [],
            });
          }
        }
      },
    };
  },
});
