import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { LOCK_HINT, blockingClaimLocks } from '../analysis/sql.js';
import { createRule } from '../util/create-rule.js';

type Options = [];
type MessageIds = 'blockingClaim' | 'addSkipLocked';

export default createRule<Options, MessageIds>({
  name: 'require-skip-locked',
  meta: {
    type: 'problem',
    docs: {
      description: 'Require SKIP LOCKED (or NOWAIT) on queries that claim rows from a task table',
      recommended: 'recommended',
      guideRules: ['R-RES-RE-5'],
    },
    hasSuggestions: true,
    schema: [],
    messages: {
      blockingClaim:
        'This query claims rows with `{{clause}}` but without SKIP LOCKED, so every worker waits on the rows another worker holds and they run one at a time (R-RES-RE-5). Add SKIP LOCKED to claim the rows nobody holds.',
      addSkipLocked: 'Add SKIP LOCKED.',
    },
  },
  defaultOptions: [],
  create(context) {
    const sourceCode = context.sourceCode;
    if (!LOCK_HINT.test(sourceCode.text)) return {};

    function check(node: TSESTree.Literal | TSESTree.TemplateLiteral) {
      // Search the raw source of the literal, so every offset maps back to an editor position.
      const raw = sourceCode.getText(node);
      for (const lock of blockingClaimLocks(raw)) {
        const at = node.range[0] + lock.end;
        context.report({
          node,
          loc: { start: sourceCode.getLocFromIndex(node.range[0] + lock.start), end: sourceCode.getLocFromIndex(at) },
          messageId: 'blockingClaim',
          data: { clause: lock.clause },
          suggest: [{ messageId: 'addSkipLocked', fix: (fixer) => fixer.insertTextAfterRange([at, at], ' SKIP LOCKED') }],
        });
      }
    }

    return {
      Literal(node) {
        if (typeof node.value === 'string' && LOCK_HINT.test(node.value)) check(node);
      },
      TemplateLiteral(node) {
        // Quasis only: interpolated values are parameters, not SQL keywords.
        if (node.quasis.some((q) => LOCK_HINT.test(q.value.raw)) || (node.parent?.type === T.TaggedTemplateExpression && LOCK_HINT.test(sourceCode.getText(node)))) {
          check(node);
        }
      },
    };
  },
});
