import type { TSESTree } from '@typescript-eslint/utils';
import { getRetryModel, type RetrySite } from '../analysis/index.js';
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
        const count = (n: number) => (n === Infinity ? 'unbounded' : n);
        // One report per inner layer, at `node`, with the inner layer's own edit when there is one.
        const report = (site: RetrySite, outer: number, node: TSESTree.Node, inner: string, attempts: number, suggestion: ReturnType<typeof disableSuggestion>) => {
          if (reported.has(node)) return;
          reported.add(node);
          context.report({
            node,
            messageId: 'nestedRetry',
            data: {
              outer: site.label,
              inner,
              outerAttempts: count(outer),
              innerAttempts: count(attempts),
              total: String(count(outer * attempts)),
              noEdit: suggestion ? '' : '; no edit of the inner layer can be suggested safely here',
            },
            suggest: suggestion
              ? [{ messageId: 'disableInner', data: { outer: site.label, edit: describeEdits(suggestion.edits) }, fix: suggestion.fix }]
              : [],
          });
        };
        for (const site of model.sitesFor('nested')) {
          const outer = site.attempts.value;
          if (typeof outer !== 'number' || outer <= 1) continue;
          // Defaults another file's hooks take (a QueryClient's): the first hook whose query function
          // sends through a layer that retries on its own, named with its file, reported here.
          const taken = site.defaultsNestedBy?.();
          if (taken) report(site, outer, site.reportNode, `${taken.label} of ${taken.hook} at ${taken.at}`, taken.attempts, undefined);
          for (const nested of model.operations.facts(site).nested) {
            if (reported.has(nested.node)) continue;
            // The inner layer's count set to one attempt, in its own library's words.
            report(site, outer, nested.node, nested.label, nested.attempts, nested.site ? disableSuggestion(nested.site, model) : undefined);
          }
        }
      },
    };
  },
});
