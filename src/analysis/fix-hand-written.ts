/**
 * Fix vocabulary of hand-written retry loops: edits on the loop's own source, not on options.
 * Stopping on 4xx: a catch around a client that rejects on 4xx rethrows them before waiting; a
 * loop that retries whatever is not `res.ok` throws on a 4xx response instead of retrying it.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { fullJitterText, withTypicalWaits, type LibraryFixes } from './fix-plan.js';
import { waitEditOf } from './hand-written/wait-edit.js';
import type { AnalysisContext } from './library.js';
import type { OptionEdit, RetrySite } from './model.js';
import type { HttpCall } from './operations/types.js';
import { contains, isFunctionNode, unwrap } from './ast.js';
import { clientErrorTest, statusOfText } from './fix-filters.js';
import { nameInUse } from './fix-imports.js';

export const handWrittenFixes: LibraryFixes = {
  clientErrors(site, ctx, httpCalls) {
    if (site.errorFilter.retriesEverything) return throwOnClientResponse(site, ctx);
    if (site.errorFilter.kind !== 'none') return undefined;
    return rethrowInCatch(site, ctx, httpCalls.filter((c) => c.throwsOnClientError));
  },
  // The loop's one wait becomes full jitter on an exponential schedule computed from its counter
  // (`Math.random() * Math.min(cap, first * 2 ** attempt)`); the number of attempts stays.
  schedule: {
    writes: ['initialMs', 'multiplier', 'maxMs', 'jitter'],
    jitterBound: { factor: 1 },
    normalize: (plan) => ({ ...withTypicalWaits(plan), jitter: true }),
    write(plan, _changed, site) {
      const wait = waitEditOf(site);
      const text = wait && fullJitterText(withTypicalWaits(plan), wait.exponent);
      if (!wait || !text) return undefined;
      if (wait.node) return [{ path: [], range: wait.node.range, text, label: `wait ${text}` }];
      if (!wait.insert) return undefined;
      const { at, guard, indent } = wait.insert;
      const statement = `if (${guard}) await new Promise((resolve) => setTimeout(resolve, ${text}));`;
      return [{ path: [], range: [at, at], text: `${statement}\n${indent}`, label: statement }];
    },
  },
};

/** Whether `node` runs as part of the site's own code (not in a function defined inside it). */
function ownCode(site: RetrySite, node: TSESTree.Node): boolean {
  for (let n = node.parent; n && n !== site.node; n = n.parent) if (isFunctionNode(n)) return false;
  return contains(site.node, node);
}

/** `catch (e) {` -> `catch (e) { const status = ...; if (4xx) throw e;` around the request. */
function rethrowInCatch(site: RetrySite, ctx: AnalysisContext, calls: readonly HttpCall[]): OptionEdit[] | undefined {
  if (calls.length === 0) return undefined;
  const tries = ctx.nodesOfType(T.TryStatement).filter((t) => ownCode(site, t) && calls.some((c) => contains(t.block, c.node)));
  if (tries.length !== 1) return undefined;
  const handler = tries[0]!.handler;
  const param = handler?.param;
  if (!handler || param?.type !== T.Identifier || nameInUse(ctx, 'status', handler.body)) return undefined;
  const status = statusOfText(param.name, calls);
  if (!status) return undefined;
  const indent = `\n${indentOf(ctx, handler.body.body[0] ?? handler)}${handler.body.body.length ? '' : '  '}`;
  const text = `${indent}const status = ${status};${indent}if (${clientErrorTest('status')}) throw ${param.name};`;
  const at = handler.body.range[0] + 1;
  return [{ path: [], range: [at, at], text, label: 'rethrow 4xx from the catch' }];
}

/** `if (res.ok) return ...;` followed by `if (4xx) throw new Error(...)`: a 4xx ends the loop. */
function throwOnClientResponse(site: RetrySite, ctx: AnalysisContext): OptionEdit[] | undefined {
  const test = site.errorFilter.retriesEverything;
  const member = test ? unwrap(test) : undefined;
  if (member?.type !== T.MemberExpression || member.computed || member.property.type !== T.Identifier || member.property.name !== 'ok') return undefined;
  const response = unwrap(member.object);
  if (response.type !== T.Identifier) return undefined;
  const statement = member.parent;
  if (statement?.type !== T.IfStatement || statement.test !== member || statement.alternate || !returns(statement.consequent)) return undefined;
  // A throw inside a try of the loop would be caught and retried.
  const insideTry = ctx.nodesOfType(T.TryStatement).some((t) => ownCode(site, t) && contains(t.block, statement));
  if (insideTry || !ownCode(site, statement)) return undefined;
  const status = `${response.name}.status`;
  const text = `\n${indentOf(ctx, statement)}if (${clientErrorTest(status)}) throw new Error(\`HTTP \${${status}}\`);`;
  const at = statement.range[1];
  return [{ path: [], range: [at, at], text, label: 'throw on 4xx' }];
}

function returns(statement: TSESTree.Statement): boolean {
  if (statement.type === T.ReturnStatement) return true;
  if (statement.type !== T.BlockStatement) return false;
  const last = statement.body[statement.body.length - 1];
  return last?.type === T.ReturnStatement;
}

/** The whitespace before `node` on its line. */
function indentOf(ctx: AnalysisContext, node: TSESTree.Node): string {
  const line = ctx.sourceCode.lines[node.loc.start.line - 1] ?? '';
  return /^\s*/.exec(line)![0];
}
