import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { getRetryModel } from '../analysis/index.js';
import { describeEdits, disableSuggestion, keySuggestion, optionEditsFix } from '../analysis/fixes.js';
import { isFunctionNode } from '../analysis/library.js';
import type { RetrySite } from '../analysis/model.js';
import type { Operation } from '../analysis/operations/index.js';
import { createRule } from '../util/create-rule.js';

type Options = [{ allowIdempotentMethods?: boolean }];
type MessageIds = 'configuredWrites' | 'unsafeWrite' | 'unsafeWrites' | 'unsafeAutoKey' | 'unsafeClientWrites' | 'callOnce' | 'idempotentOnly' | 'stopRetrying' | 'sendKey';

export default createRule<Options, MessageIds>({
  name: 'no-unsafe-write-retry',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow retrying a write that carries no idempotency key',
      recommended: 'recommended',
      strictOptions: [{ allowIdempotentMethods: false }],
      guideRules: ['R-RES-RE-1', 'R-RES-RE-X1'],
    },
    hasSuggestions: true,
    schema: [
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          allowIdempotentMethods: {
            type: 'boolean',
            description: 'Treat PUT and DELETE (idempotent by HTTP semantics) as safe to retry without a key.',
          },
        },
      },
    ],
    messages: {
      unsafeWrite:
        '{{site}} repeats {{operation}}, a write without an idempotency key: if a response is lost, the retry performs it again (R-RES-RE-1, R-RES-RE-X1). Send a key created once per user action, or do not retry.',
      unsafeWrites:
        '{{site}} repeats {{count}} writes without an idempotency key ({{operations}}): if a response is lost, the retry performs them again (R-RES-RE-1, R-RES-RE-X1). Send a key created once per user action with each, or do not retry.',
      unsafeAutoKey:
        '{{site}} repeats {{operation}}, whose SDK makes a new idempotency key on every call, so each retry is a new operation (R-RES-RE-1, R-RES-RE-X1). Pass a key created once per user action, or do not retry.',
      unsafeClientWrites:
        '{{site}} also re-sends writes such as {{operation}} ({{count}} in this file) that carry no idempotency key (R-RES-RE-1, R-RES-RE-X1). Retry idempotent requests only, or send a key created once per user action.',
      configuredWrites:
        '{{site}} is configured to re-send writes (POST, PATCH) that carry no idempotency key wherever this client is used (R-RES-RE-1, R-RES-RE-X1). Retry idempotent requests only, or send a key created once per user action.',
      callOnce: 'Call {{operation}} once, without the retry.',
      idempotentOnly: 'Retry idempotent requests only ({{edit}}).',
      stopRetrying: 'Stop retrying through this client, reads included ({{edit}}).',
      sendKey: 'Send an idempotency key created once, before the retry ({{edit}}).',
    },
  },
  defaultOptions: [{ allowIdempotentMethods: true }],
  create(context, [{ allowIdempotentMethods = true }]) {
    const isWrite = (op: Operation) => op.kind === 'write' || (!allowIdempotentMethods && op.kind === 'idempotent-write');
    return {
      'Program:exit'() {
        const model = getRetryModel(context);
        const reported = new Set<TSESTree.Node>();
        for (const site of model.sitesFor('writes')) {
          // A retry of refused requests only (429) never repeats a write that took effect.
          if (site.errorFilter.refusedOnly) continue;
          const facts = model.operations.facts(site);
          for (const group of facts.groups) {
            if (group.engineKey) continue; // the engine hands one key to every attempt
            const unkeyed = group.operations.filter((op) => isWrite(op) && !op.key);
            if (!group.scope) {
              reportClient(site, unkeyed, group.operations.length > 0);
              continue;
            }
            // One report per site, at its first unkeyed write, naming the others: the site is what
            // gets fixed (a key created once per action for each write, or no retry).
            const shown = (op: Operation) => group.shownAt ?? op.node;
            const fresh = unkeyed.filter((op) => !reported.has(shown(op)));
            const first = fresh[0];
            if (!first) continue;
            for (const op of fresh) reported.add(shown(op));
            const once = callOnceFix(site, context.sourceCode);
            const several = fresh.length > 1;
            // One write: its key, created once before the retry, where the request can carry it.
            const key = several ? undefined : keySuggestion(site, first, model);
            context.report({
              node: shown(first),
              messageId: several ? 'unsafeWrites' : first.autoKey ? 'unsafeAutoKey' : 'unsafeWrite',
              data: several ? { site: site.label, count: fresh.length, operations: listOf(fresh.map((op) => op.label)) } : { site: site.label, operation: first.label },
              suggest: [
                ...(key ? [{ messageId: 'sendKey' as const, data: { edit: describeEdits(key.edits) }, fix: key.fix }] : []),
                ...(once ? [{ messageId: 'callOnce' as const, data: { operation: first.label }, fix: once }] : []),
              ],
            });
          }
        }
      },
    };

    function reportClient(site: RetrySite, unkeyed: readonly Operation[], usedHere: boolean) {
      // Only a client that re-sends writes repeats them; got and ky do not by default.
      if (site.retriesWrites?.value !== true) return;
      const { narrow, off } = clientFixes(site);
      if (unkeyed.length === 0) {
        // Where this file sends requests through the client, what it sends decides (reads and keyed
        // writes are fine). A client configured here and used elsewhere (exported, a global axios,
        // an SDK client handed out) is judged by its configuration: one that names write methods,
        // retries every request, or an SDK whose calls are all writes re-sends writes wherever the
        // client is used. Reported at the configuration, once.
        if (usedHere) return;
        context.report({
          node: site.retriesWrites.node ?? site.reportNode,
          messageId: 'configuredWrites',
          data: { site: site.label },
          suggest: [
            ...(narrow ? [{ messageId: 'idempotentOnly' as const, data: { edit: narrow.edit }, fix: narrow.fix }] : []),
            ...(off ? [{ messageId: 'stopRetrying' as const, data: { edit: off.edit }, fix: off.fix }] : []),
          ],
        });
        return;
      }
      context.report({
        node: site.retriesWrites.node ?? site.reportNode,
        messageId: 'unsafeClientWrites',
        data: { site: site.label, operation: unkeyed[0]!.label, count: unkeyed.length },
        suggest: [
          ...(narrow ? [{ messageId: 'idempotentOnly' as const, data: { edit: narrow.edit }, fix: narrow.fix }] : []),
          ...(off ? [{ messageId: 'stopRetrying' as const, data: { edit: off.edit }, fix: off.fix }] : []),
        ],
      });
    }

    /**
     * Retry idempotent requests only, where the library can say so; otherwise turn the client's
     * retries off, in its own words: the writes are then sent once.
     */
    function clientFixes(site: RetrySite) {
      const edits = site.fixes?.idempotentOnly?.();
      const fix = optionEditsFix(site, edits, context.sourceCode);
      const narrow = fix && edits ? { edit: describeEdits(edits), fix } : undefined;
      const off = narrow ? undefined : disableSuggestion(site, getRetryModel(context));
      return { narrow, off: off && { edit: describeEdits(off.edits), fix: off.fix } };
    }
  },
});

/**
 * `pRetry(() => charge(order), opts)` becomes `charge(order)`: offered only when the retried
 * function is an inline arrow with an expression body and no parameters, so nothing else changes.
 */
function callOnceFix(site: RetrySite, sourceCode: Readonly<TSESLint.SourceCode>): ((fixer: TSESLint.RuleFixer) => TSESLint.RuleFix) | undefined {
  const call = site.node;
  const fn = site.operation;
  if (call.type !== T.CallExpression || !fn || !isFunctionNode(fn) || fn.type !== T.ArrowFunctionExpression) return undefined;
  if (!call.arguments.includes(fn as TSESTree.CallExpressionArgument) || fn.params.length > 0 || fn.body.type === T.BlockStatement) return undefined;
  const body = sourceCode.getText(fn.body);
  const simple = [T.CallExpression, T.AwaitExpression, T.MemberExpression, T.Identifier].includes(fn.body.type as never);
  const text = simple ? body : `(${body})`;
  return (fixer) => fixer.replaceText(call, fn.async || fn.body.type === T.CallExpression ? text : `Promise.resolve(${body})`);
}

/** `a()`, `a() and b()`, `a(), b() and 2 more`: distinct labels, the first three named. */
function listOf(labels: readonly string[]): string {
  const distinct = [...new Set(labels)];
  const named = distinct.slice(0, 3);
  const rest = distinct.length - named.length;
  if (rest > 0) return `${named.join(', ')} and ${rest} more`;
  return named.length > 1 ? `${named.slice(0, -1).join(', ')} and ${named[named.length - 1]}` : named[0] ?? '';
}
