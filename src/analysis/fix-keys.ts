/**
 * An idempotency key for a retried write (R-RES-RE-1): `const idempotencyKey = crypto.randomUUID()`
 * created once, before the retry (in the function that starts it, so once per call of that
 * function, never once per module), and sent the way the client takes it: an `Idempotency-Key`
 * header in fetch's init or axios' and Angular's request config, superagent's `.set(...)`, Stripe's
 * `idempotencyKey` request option. Offered for a single unkeyed write whose request is written
 * where the edit can place the key; anything else is left to the code.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext } from './library.js';
import type { OptionEdit, RetrySite } from './model.js';
import type { HttpCall, Operation } from './operations/types.js';
import { isFunctionNode, memberName, staticPropertyName, unwrap } from './ast.js';
import { nameInUse } from './fix-imports.js';
import { localReference } from './libraries/generic-helpers.js';

const KEY = 'idempotencyKey';
/** The name a suggested key goes by (a variable, or the runtime's attempt context's property). */
export const KEY_NAME = KEY;
const HEADER = `'Idempotency-Key': ${KEY}`;

export function idempotencyKeyEdits(site: RetrySite, op: Operation, httpCalls: readonly HttpCall[], ctx: AnalysisContext): OptionEdit[] | undefined {
  if (nameInUse(ctx, KEY)) return undefined;
  const send = sendKey(op, httpCalls.find((c) => c.node === op.node)?.client ?? clientModule(op, ctx), ctx);
  const create = send && createKey(site, ctx);
  return send && create ? [...create, ...send] : undefined;
}

/**
 * The request sending a key named `idempotencyKey` the way its client takes it, or undefined (the
 * runtime migration's `policy.write`, whose function receives the key under that name).
 */
export function keySendingEdits(op: Operation, httpCalls: readonly HttpCall[], ctx: AnalysisContext): OptionEdit[] | undefined {
  if (nameInUse(ctx, KEY)) return undefined;
  return sendKey(op, httpCalls.find((c) => c.node === op.node)?.client ?? clientModule(op, ctx), ctx);
}

/** How the file calls `randomUUID`: its own import from node:crypto, or the global `crypto`. */
export function uuidCallee(ctx: AnalysisContext): string | undefined {
  return localReference(ctx, ['crypto', 'node:crypto'], 'randomUUID') ?? (nameInUse(ctx, 'crypto') ? undefined : 'crypto.randomUUID');
}

/** Where the request takes the key. */
function sendKey(op: Operation, client: string | undefined, ctx: AnalysisContext): OptionEdit[] | undefined {
  const call = op.node;
  if (call.type !== T.CallExpression || call.arguments.some((a) => a.type === T.SpreadElement)) return undefined;
  if (op.autoKey === 'stripe') return optionsArgument(call, 1, KEY, `{ ${KEY} }`, ctx);
  if (!client) return undefined;
  const method = memberName(unwrap(call.callee));
  switch (client) {
    case 'fetch':
      return call.arguments.length === 2 ? headers(call.arguments[1]!) : undefined;
    case 'axios':
    case 'angular-http':
      if (method !== 'post' && method !== 'put' && method !== 'patch') return undefined;
      return optionsArgument(call, 2, 'headers', `{ headers: { ${HEADER} } }`, ctx, true);
    case 'superagent':
      return [{ path: [], range: [call.range[1], call.range[1]], text: `.set('Idempotency-Key', ${KEY})`, label: `.set('Idempotency-Key', ${KEY})` }];
    default:
      return undefined;
  }
}

/** The options argument at `index`: appended when absent, `property` added when it is a literal without one. */
function optionsArgument(call: TSESTree.CallExpression, index: number, property: string, fresh: string, ctx: AnalysisContext, isHeaders = false): OptionEdit[] | undefined {
  const args = call.arguments;
  if (args.length === index) {
    const last = args[index - 1]!;
    return [{ path: [], range: [last.range[1], last.range[1]], text: `, ${fresh}`, label: fresh }];
  }
  if (args.length !== index + 1) return undefined;
  const options = args[index]!;
  if (isHeaders) return headers(options);
  return addProperty(options, property, property === KEY ? KEY : undefined);
}

/** `{ method: 'POST', headers: { ... } }`: the header added to the literal headers object, or a headers object added. */
function headers(init: TSESTree.Node): OptionEdit[] | undefined {
  const object = unwrap(init);
  if (object.type !== T.ObjectExpression || object.properties.some((p) => p.type === T.SpreadElement)) return undefined;
  const existing = object.properties.find((p) => p.type === T.Property && staticPropertyName(p) === 'headers') as TSESTree.Property | undefined;
  if (!existing) return addProperty(object, 'headers', `{ ${HEADER} }`);
  const inner = unwrap(existing.value as TSESTree.Node);
  if (existing.shorthand || inner.type !== T.ObjectExpression || inner.properties.some((p) => p.type === T.SpreadElement)) return undefined;
  return addProperty(inner, HEADER, undefined, true);
}

/** A request the site's own facts do not list (a chain the site retries): the module of its callee's root. */
function clientModule(op: Operation, ctx: AnalysisContext): string | undefined {
  const callee = unwrap(op.node.callee);
  const root = callee.type === T.MemberExpression ? unwrap(callee.object) : callee;
  return ctx.imports.resolve(root)?.module === 'superagent' ? 'superagent' : undefined;
}

/** `name: value` (or the shorthand `name`) inserted after the object's last property. */
function addProperty(node: TSESTree.Node, name: string, value: string | undefined, raw = false): OptionEdit[] | undefined {
  const object = unwrap(node);
  if (object.type !== T.ObjectExpression || object.properties.some((p) => p.type === T.SpreadElement)) return undefined;
  if (!raw && object.properties.some((p) => p.type === T.Property && staticPropertyName(p) === name)) return undefined;
  const text = raw || value === undefined || value === name ? name : `${name}: ${value}`;
  const last = object.properties[object.properties.length - 1];
  if (!last) return [{ path: [], range: object.range, text: `{ ${text} }`, label: text }];
  return [{ path: [], range: [last.range[1], last.range[1]], text: `, ${text}`, label: text }];
}

/**
 * `const idempotencyKey = crypto.randomUUID();` before the statement that starts the retry, in
 * the function around it; an arrow with an expression body gets a block. At module level there
 * is no call to tie the key to: nothing is offered.
 */
function createKey(site: RetrySite, ctx: AnalysisContext): OptionEdit[] | undefined {
  const uuid = uuidCallee(ctx);
  if (!uuid) return undefined;
  const declaration = `const ${KEY} = ${uuid}();`;
  let node: TSESTree.Node = site.node;
  for (let parent: TSESTree.Node | undefined = node.parent; parent; parent = parent.parent) {
    if (isFunctionNode(parent)) {
      if (parent.type !== T.ArrowFunctionExpression || parent.body !== node || node.type === T.BlockStatement) return undefined;
      const indent = indentOf(ctx, parent);
      const text = `{\n${indent}  ${declaration}\n${indent}  return ${ctx.sourceCode.getText(node)};\n${indent}}`;
      return [{ path: [], range: node.range, text, label: declaration }];
    }
    if (parent.type === T.BlockStatement && insideFunction(parent)) {
      return [{ path: [], range: [node.range[0], node.range[0]], text: `${declaration}\n${indentOf(ctx, node)}`, label: declaration }];
    }
    if (parent.type === T.Program || parent.type === T.ClassBody || parent.type === T.PropertyDefinition) return undefined;
    node = parent;
  }
  return undefined;
}

function insideFunction(block: TSESTree.BlockStatement): boolean {
  for (let n: TSESTree.Node | undefined = block.parent; n; n = n.parent) if (isFunctionNode(n)) return true;
  return false;
}

function indentOf(ctx: AnalysisContext, node: TSESTree.Node): string {
  return /^\s*/.exec(ctx.sourceCode.lines[node.loc.start.line - 1] ?? '')![0];
}
