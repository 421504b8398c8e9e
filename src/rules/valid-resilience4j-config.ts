import { getRetryModel } from '../analysis/index.js';
import { yamlConfigProblems } from '../analysis/yaml/index.js';
import { createRule } from '../util/create-rule.js';

type Options = [];
type MessageIds = 'invalid' | 'invalidWaits';

export default createRule<Options, MessageIds>({
  name: 'valid-resilience4j-config',
  meta: {
    type: 'problem',
    docs: {
      description: 'Require Resilience4j settings that Spring Boot can bind and the safe-retry runtime can apply',
      recommended: 'recommended',
      guideRules: ['R-RES-RE-2', 'R-RES-RE-X3'],
    },
    schema: [],
    // The problem's words come from the reader the runtime's createPolicyRegistry uses: its
    // PolicyConfigError prints the same key path and the same text.
    messages: {
      invalid: '{{key}}: {{problem}} (R-RES-RE-2).',
      invalidWaits: '{{key}}: {{problem}} (R-RES-RE-X3).',
    },
  },
  defaultOptions: [],
  create(context) {
    return {
      'Program:exit'() {
        getRetryModel(context); // reads the YAML file once, for every rule
        for (const problem of yamlConfigProblems(context.sourceCode)) {
          context.report({
            node: problem.node,
            messageId: problem.rule === 'R-RES-RE-X3' ? 'invalidWaits' : 'invalid',
            data: { key: problem.path, problem: problem.message },
          });
        }
      },
    };
  },
});
