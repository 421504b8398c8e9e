import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { getRetryModel } from '../analysis/index.js';
import { LEGACY } from '../analysis/legacy.js';
import { describeEdits, exportMigrationSuggestion, migrationSuggestion, type Suggestion } from '../analysis/fixes.js';
import { createRule } from '../util/create-rule.js';

type Options = [{ modules?: string[]; allow?: string[] }];
type MessageIds = 'legacyModule' | 'legacyExport' | 'migrate' | 'migrateExport';

export default createRule<Options, MessageIds>({
  name: 'no-legacy-retry',
  meta: {
    type: 'suggestion',
    docs: {
      description: 'Disallow standalone retry helpers that do not compose with a circuit breaker',
      recommended: 'recommended',
      guideRules: ['R-RES-RE-X4'],
    },
    hasSuggestions: true,
    schema: [
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          modules: {
            type: 'array',
            items: { type: 'string' },
            uniqueItems: true,
            description: 'More modules to treat as legacy retry helpers (added to the built-in list).',
          },
          allow: {
            type: 'array',
            items: { type: 'string' },
            uniqueItems: true,
            description: 'Modules (or `module#export`, e.g. `rxjs#retryWhen`) to allow although the built-in list names them.',
          },
        },
      },
    ],
    messages: {
      legacyModule:
        "'{{module}}' is a standalone retry helper: it does not compose with a circuit breaker, its metrics are wired by hand and its config lives in code (R-RES-RE-X4). Use eslint-plugin-safe-retry/runtime's createRetryPolicy, or cockatiel's retry wrapped with a circuitBreaker{{migration}}.",
      migrate: "Migrate every call in this file to eslint-plugin-safe-retry/runtime's createRetryPolicy(...).read(fn), a write to .write({ idempotencyKey }, fn) ({{edit}}).",
      migrateExport: "Replace it with the library's own operator, bounded and with growing, jittered waits ({{edit}}).",
      legacyExport:
        "'{{name}}' from '{{module}}' is a legacy retry helper (R-RES-RE-X4). Use eslint-plugin-safe-retry/runtime's createRetryPolicy, or cockatiel's retry wrapped with a circuitBreaker{{hint}}.",
    },
  },
  defaultOptions: [{ modules: [], allow: [] }],
  create(context, options) {
    const { allowed, banned } = moduleLists(options[0]);
    return {
      'Program:exit'() {
        const model = getRetryModel(context);
        const { imports } = model;
        for (const use of imports.uses) {
          if (!banned.has(use.module) || use.typeOnly) continue;
          const migration = migrationSuggestion(model, use);
          const suggestion = typeof migration === 'object' ? migration : undefined;
          context.report({
            node: use.source,
            messageId: 'legacyModule',
            data: { module: use.module, migration: typeof migration === 'string' ? `; no automatic migration here: ${migration}` : '' },
            suggest: suggestion ? [{ messageId: 'migrate', data: { edit: describeEdits(suggestion.edits) }, fix: suggestion.fix }] : [],
          });
        }
        const reported = new Set<TSESTree.Node>();
        for (const binding of imports.bindings) {
          const legacy = LEGACY.exports.get(binding.module);
          if (!legacy || banned.has(binding.module)) continue;
          const names = legacy.names;
          const report = (node: TSESTree.Node, name: string, migration?: Suggestion) => {
            if (allowed.has(`${binding.module}#${name}`) || reported.has(node)) return;
            reported.add(node);
            context.report({
              node,
              messageId: 'legacyExport',
              data: { name, module: binding.module, hint: legacy.hint },
              suggest: migration ? [{ messageId: 'migrateExport', data: { edit: describeEdits(migration.edits) }, fix: migration.fix }] : [],
            });
          };
          if (names.includes(binding.path)) {
            // import { retryWhen } from 'rxjs': the specifier itself.
            const spec = binding.variable.defs[0]?.node;
            const migration = exportMigrationSuggestion(model, binding);
            report(spec && spec.type === T.ImportSpecifier ? spec : binding.node, binding.path, typeof migration === 'object' ? migration : undefined);
            continue;
          }
          if (binding.path !== 'default' && binding.path !== 'module') continue;
          // import async from 'async'; async.retry(...)
          for (const ref of binding.variable.references) {
            const member = ref.identifier.parent;
            if (member?.type !== T.MemberExpression || member.object !== ref.identifier || member.computed) continue;
            if (member.property.type === T.Identifier && names.includes(member.property.name)) report(member, member.property.name);
          }
        }
      },
    };
  },
});

/**
 * The allowed and banned modules of one options value, built once per value: createRule hands
 * every file the same frozen options while the configuration stays the same.
 */
const listsOf = new WeakMap<object, { allowed: ReadonlySet<string>; banned: ReadonlySet<string> }>();
function moduleLists(options: Options[0]): { allowed: ReadonlySet<string>; banned: ReadonlySet<string> } {
  let lists = listsOf.get(options);
  if (!lists) {
    const { modules = [], allow = [] } = options;
    const allowed = new Set(allow);
    lists = { allowed, banned: new Set([...LEGACY.modules, ...modules].filter((m) => !allowed.has(m))) };
    listsOf.set(options, lists);
  }
  return lists;
}
