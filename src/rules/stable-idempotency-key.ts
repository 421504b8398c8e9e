import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { getRetryModel } from '../analysis/index.js';
import { inside, type IdempotencyKey } from '../analysis/operations/index.js';
import { findVariable } from '../analysis/ast.js';
import { createRule } from '../util/create-rule.js';

type Options = [];
type MessageIds = 'freshKey' | 'attemptKey' | 'hoistKey';

export default createRule<Options, MessageIds>({
  name: 'stable-idempotency-key',
  meta: {
    type: 'problem',
    docs: {
      description: 'Require idempotency keys that stay the same on every retry attempt',
      recommended: 'recommended',
      guideRules: ['R-RES-RE-1', 'R-RES-RE-X1'],
    },
    hasSuggestions: true,
    schema: [],
    messages: {
      freshKey:
        '{{site}} creates this idempotency key inside the retried code, so every attempt sends a new key and the remote side sees a new operation (R-RES-RE-1). Create the key once per user action, before the retry, or derive it deterministically (UUID v5 of the order id and the operation).',
      attemptKey:
        '{{site}} derives this idempotency key from the attempt number, so every attempt sends a new key (R-RES-RE-1). Derive the key from the operation alone (UUID v5 of the order id and the operation).',
      hoistKey: 'Create the key once, before the retry.',
    },
  },
  defaultOptions: [],
  create(context) {
    return {
      'Program:exit'() {
        const model = getRetryModel(context);
        const reported = new Set<TSESTree.Node>();
        for (const site of model.sitesFor('keys')) {
          for (const group of model.operations.facts(site).groups) {
            const keys = [group.engineKey, ...group.operations.map((o) => o.key)];
            for (const key of keys) {
              if (!key || key.stability !== 'fresh' || !key.freshSource || reported.has(key.freshSource)) continue;
              reported.add(key.freshSource);
              const fromAttempt = key.freshSource.type === T.Identifier;
              const hoist = fromAttempt ? undefined : hoistFix(group.execution?.call ?? site.node, group.scope, key, context.sourceCode);
              context.report({
                node: key.freshSource,
                messageId: fromAttempt ? 'attemptKey' : 'freshKey',
                data: { site: site.label },
                suggest: hoist ? [{ messageId: 'hoistKey', fix: hoist }] : [],
              });
            }
          }
        }
      },
    };
  },
});

/**
 * Moves the key's creation into `const idempotencyKey = ...;` right before the statement holding
 * the retry. Offered only when the moved expression uses nothing declared inside the retried code.
 */
function hoistFix(
  retryCall: TSESTree.Node,
  scope: TSESTree.Node | undefined,
  key: IdempotencyKey,
  sourceCode: Readonly<TSESLint.SourceCode>,
): ((fixer: TSESLint.RuleFixer) => TSESLint.RuleFix[]) | undefined {
  if (!scope || !key.freshSource) return undefined;
  const candidates = [key.value, key.freshSource].filter((n) => inside(scope, n) && inside(n, key.freshSource!));
  const moved = candidates.find((n) => selfContained(n, scope, sourceCode));
  if (!moved) return undefined;
  // Before the statement that starts the retry (the runtime's `policy.write(...)`, not where the policy is made).
  let statement: TSESTree.Node | undefined = retryCall;
  while (statement && !(statement.parent && (statement.parent.type === T.BlockStatement || statement.parent.type === T.Program) && isStatement(statement))) {
    statement = statement.parent;
  }
  if (!statement || (statement !== scope && inside(scope, statement))) return undefined;
  if (findVariable(sourceCode.getScope(statement), 'idempotencyKey')) return undefined;
  const indent = ' '.repeat(statement.loc.start.column);
  const text = sourceCode.getText(moved);
  return (fixer) => [
    fixer.insertTextBefore(statement, `const idempotencyKey = ${text};\n${indent}`),
    fixer.replaceText(moved, 'idempotencyKey'),
  ];
}

function isStatement(node: TSESTree.Node): boolean {
  return /Statement$|Declaration$/.test(node.type);
}

/** True when every identifier in `node` is bound outside `scope` (or is a global). */
function selfContained(node: TSESTree.Node, scope: TSESTree.Node, sourceCode: Readonly<TSESLint.SourceCode>): boolean {
  const stack: TSESTree.Node[] = [node];
  const keys = sourceCode.visitorKeys as Record<string, readonly string[] | undefined>;
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === T.Identifier) {
      const parent = n.parent;
      const isKeyName = parent?.type === T.MemberExpression && parent.property === n && !parent.computed;
      const isPropKey = parent?.type === T.Property && parent.key === n && !parent.computed;
      if (!isKeyName && !isPropKey) {
        const v = findVariable(sourceCode.getScope(n), n.name);
        if (v && v.defs.some((d) => inside(scope, d.name as TSESTree.Node))) return false;
      }
    }
    if (n.type === T.ArrowFunctionExpression || n.type === T.FunctionExpression) return false;
    for (const k of keys[n.type] ?? []) {
      const child = (n as unknown as Record<string, unknown>)[k];
      if (Array.isArray(child)) for (const c of child) { if (c && typeof c === 'object' && 'type' in c) stack.push(c as TSESTree.Node); }
      else if (child && typeof child === 'object' && 'type' in child) stack.push(child as TSESTree.Node);
    }
  }
  return true;
}
