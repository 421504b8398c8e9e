/**
 * Error-filter edits shared by the descriptors' `clientErrors` facets: the 4xx entries taken out
 * of a status list (`statusCodes: [404, 500]` -> `[500]`), a range split around them
 * (`[[400, 599]]` -> `[[408, 408], [429, 429], [500, 599]]`), a `status === 404 ||` term taken out
 * of a predicate. Only literal code inside the site is edited: a list shared through a constant,
 * a spread or a value the model could not read keeps its meaning, and then no edit is offered.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext } from './library.js';
import type { Node, OptionEdit, RetrySite } from './model.js';
import { contains, isFunctionNode, memberName, unwrap } from './ast.js';
import { RETRYABLE_CLIENT_ERRORS, isNonRetryableClientError } from '../shared/guide-limits.js';
import type { HttpCall } from './operations/types.js';

/** Where edits may go: the site's own code and the options object it was given. */
function editable(site: RetrySite, node: Node): boolean {
  return contains(site.node, node) || (!!site.options?.object && contains(site.options.object, node));
}

/**
 * Every 4xx inclusion of the site's filter removed, or undefined when any of them is not a
 * literal entry or term this module knows how to take out.
 */
export function dropClientErrorEntries(site: RetrySite, ctx: AnalysisContext): OptionEdit[] | undefined {
  const inclusions = site.errorFilter.clientErrors;
  if (inclusions.length === 0) return undefined;
  const arrays = new Map<TSESTree.ArrayExpression, Set<Node>>();
  const chains = new Map<Node, Set<Node>>();
  for (const { node } of inclusions) {
    if (!editable(site, node)) return undefined;
    const parent = node.parent;
    if (parent?.type === T.ArrayExpression && node.type !== T.SpreadElement) {
      const set = arrays.get(parent) ?? new Set<Node>();
      set.add(node);
      arrays.set(parent, set);
      continue;
    }
    const chain = orChainRoot(node);
    if (!chain) return undefined;
    const set = chains.get(chain) ?? new Set<Node>();
    set.add(node);
    chains.set(chain, set);
  }
  const edits: OptionEdit[] = [];
  for (const [array, dropped] of arrays) {
    const kept: string[] = [];
    for (const element of array.elements) {
      if (!element) return undefined;
      if (!dropped.has(element)) { kept.push(ctx.sourceCode.getText(element)); continue; }
      const split = splitRange(element, ctx);
      if (split === undefined) return undefined;
      kept.push(...split);
    }
    edits.push({ path: [], range: array.range, text: `[${kept.join(', ')}]`, label: `${ctx.sourceCode.getText(array)} -> [${kept.join(', ')}]` });
  }
  for (const [root, dropped] of chains) {
    const terms = orTerms(root).filter((t) => !dropped.has(t));
    const text = terms.length ? terms.map((t) => ctx.sourceCode.getText(t)).join(' || ') : 'false';
    edits.push({ path: [], range: root.range, text, label: `without ${[...dropped].map((d) => ctx.sourceCode.getText(d)).join(', ')}` });
  }
  return edits;
}

/**
 * A dropped entry's replacement: nothing for a single status, the parts outside the 4xx contract
 * errors for a `[lo, hi]` range; undefined when the entry cannot be read.
 */
function splitRange(element: Node, ctx: AnalysisContext): string[] | undefined {
  if (element.type !== T.ArrayExpression) return [];
  const value = ctx.evaluator.evaluate(element);
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [lo, hi] = value as unknown[];
  if (typeof lo !== 'number' || typeof hi !== 'number') return undefined;
  if (!Number.isInteger(lo) || !Number.isInteger(hi) || hi - lo > 1000) return undefined;
  const out: string[] = [];
  let from: number | undefined;
  for (let s = lo; s <= hi + 1; s++) {
    const keep = s <= hi && !isNonRetryableClientError(s);
    if (keep && from === undefined) from = s;
    else if (!keep && from !== undefined) {
      out.push(`[${from}, ${s - 1}]`);
      from = undefined;
    }
  }
  return out;
}

/** The top of the `||` chain a term belongs to, when it is a term of one. */
function orChainRoot(node: Node): Node | undefined {
  let top: Node | undefined;
  let n: Node = node;
  while (n.parent?.type === T.LogicalExpression && n.parent.operator === '||') {
    top = n.parent;
    n = n.parent;
  }
  return top;
}

function orTerms(root: Node): Node[] {
  const e = root;
  if (e.type === T.LogicalExpression && e.operator === '||') return [...orTerms(e.left), ...orTerms(e.right)];
  return [e];
}

/** `4xx` statuses a library's default list keeps out of retries, merged into a written list. */
export function withDefaults(array: Node | undefined, defaults: readonly number[], ctx: AnalysisContext): string | undefined {
  const list = array ? unwrap(array) : undefined;
  if (list?.type !== T.ArrayExpression || list.elements.some((e) => !e || e.type === T.SpreadElement)) return undefined;
  const present = new Set(list.elements.map((e) => ctx.evaluator.evaluate(e!)));
  const texts = list.elements.map((e) => ctx.sourceCode.getText(e!));
  for (const s of defaults) if (!present.has(s)) texts.push(String(s));
  return `[${texts.join(', ')}]`;
}

/**
 * Source text reading the HTTP status of an error thrown by the site's client: got keeps it in
 * `response.statusCode`, axios and ky in `response.status`, rxjs' ajax and others in `status`, an
 * SDK where its descriptor says (`errorStatus`: Stripe's `statusCode`, the AWS SDK's
 * `$metadata?.httpStatusCode`). `Object(...)` keeps it valid JavaScript and type-correct TypeScript
 * whatever the error's declared type. Undefined when the error is the code's own and does not carry
 * the status (`if (!res.ok) throw new Error(...)` around fetch, see `carryOwnStatus`) or an SDK's
 * shape is not known: a filter reading the wrong field would filter nothing.
 */
export function statusOfText(error: string, httpCalls: readonly HttpCall[] = []): string | undefined {
  const parts: string[] = [];
  const add = (text: string) => { if (!parts.includes(text)) parts.push(text); };
  const http: HttpCall[] = [];
  for (const c of httpCalls) {
    if (c.errorStatus) add(`Object(${error}).${c.errorStatus}`);
    // fetch resolves on 4xx; an SDK's error keeps the status in a shape of its own.
    else if (c.client === 'fetch' || c.sdk) return undefined;
    else http.push(c);
  }
  if (http.length > 0 || parts.length === 0) {
    if (http.length > 0 && http.every((c) => c.client === 'got')) add(`Object(${error}).response?.statusCode`);
    // rxjs' AjaxError keeps the status on itself; its \`response\` is the body.
    else if (http.length > 0 && http.every((c) => c.client === 'rxjs-ajax')) add(`Object(${error}).status`);
    else add(`(Object(${error}).response?.status ?? Object(${error}).status)`);
  }
  return parts.length === 1 ? parts[0] : `(${parts.join(' ?? ')})`;
}

/**
 * fetch calls whose code throws an error of its own on `!res.ok` (`if (!res.ok) throw new
 * Error(String(res.status))`): the thrown error made to carry the status
 * (`throw Object.assign(new Error(...), { status: res.status })`), so that a filter can read it.
 * Returns the calls with that status known and the edits; the calls unchanged (no edit) when any
 * fetch call's throw is not one fresh error thrown on `!res.ok` of its own response.
 */
export function carryOwnStatus(httpCalls: readonly HttpCall[], ctx: AnalysisContext): { calls: readonly HttpCall[]; edits: OptionEdit[] } {
  const fetches = httpCalls.filter((c) => c.client === 'fetch' && c.throwsOnClientError && !c.errorStatus);
  if (fetches.length === 0) return { calls: httpCalls, edits: [] };
  const edits: OptionEdit[] = [];
  for (const call of fetches) {
    const edit = ownThrowEdit(call.node, ctx);
    if (!edit) return { calls: httpCalls, edits: [] };
    if (!edits.some((e) => e.range![0] === edit.range![0])) edits.push(edit);
  }
  return { calls: httpCalls.map((c) => (fetches.includes(c) ? { ...c, errorStatus: 'status' } : c)), edits };
}

/** The one `if (!res.ok) throw new X(...)` on the response of `call`, made to carry `res.status`. */
function ownThrowEdit(call: TSESTree.CallExpression, ctx: AnalysisContext): OptionEdit | undefined {
  const found = responseOf(call);
  if (!found) return undefined;
  const { name, scope } = found;
  const throws = ctx.nodesOfType(T.IfStatement).filter((s) => contains(scope, s) && notOk(s.test, name));
  if (throws.length !== 1) return undefined;
  const statement = throws[0]!;
  const consequent = statement.consequent.type === T.BlockStatement && statement.consequent.body.length === 1
    ? statement.consequent.body[0]!
    : statement.consequent;
  if (consequent.type !== T.ThrowStatement || consequent.argument?.type !== T.NewExpression) return undefined;
  // In the function that reads the response, not in a callback defined there.
  if (nearestFunction(statement) !== scope) return undefined;
  const thrown = consequent.argument;
  const text = `Object.assign(${ctx.sourceCode.getText(thrown)}, { status: ${name}.status })`;
  return { path: [], range: thrown.range, text, label: `the thrown error carries ${name}.status` };
}

/**
 * The name the response of a fetch call is read through and the code that reads it:
 * `const res = await fetch(...)` in its function, or `fetch(...).then((res) => ...)`.
 */
function responseOf(call: TSESTree.CallExpression): { name: string; scope: Node } | undefined {
  const parent = call.parent;
  if (parent?.type === T.MemberExpression && parent.object === call && memberName(parent) === 'then' && parent.parent?.type === T.CallExpression) {
    const fn = parent.parent.arguments[0];
    const param = fn && isFunctionNode(fn) ? fn.params[0] : undefined;
    return fn && param?.type === T.Identifier ? { name: param.name, scope: fn } : undefined;
  }
  const declarator = parent?.type === T.AwaitExpression ? parent.parent : undefined;
  if (declarator?.type !== T.VariableDeclarator || declarator.id.type !== T.Identifier) return undefined;
  const scope = nearestFunction(declarator);
  return scope ? { name: declarator.id.name, scope } : undefined;
}

function nearestFunction(node: Node): Node | undefined {
  for (let n = node.parent; n; n = n.parent) if (isFunctionNode(n)) return n;
  return undefined;
}

/** `!res.ok` or `res.ok === false` on the named response. */
function notOk(test: Node, name: string): boolean {
  const member = test.type === T.UnaryExpression && test.operator === '!' ? unwrap(test.argument)
    : test.type === T.BinaryExpression && (test.operator === '===' || test.operator === '==') && test.right.type === T.Literal && test.right.value === false ? unwrap(test.left)
      : undefined;
  return member?.type === T.MemberExpression && !member.computed && memberName(member) === 'ok' &&
    unwrap(member.object).type === T.Identifier && (unwrap(member.object) as TSESTree.Identifier).name === name;
}

/** Source text true for a 4xx that fails the same way on every attempt (not 408, not 429). */
export function clientErrorTest(status: string): string {
  const allowed = [...RETRYABLE_CLIENT_ERRORS].map((s) => ` && ${status} !== ${s}`).join('');
  return `${status} >= 400 && ${status} < 500${allowed}`;
}

/** `(error) => ...` that is true when an error is worth retrying (not a 4xx contract error). */
export function retryableErrorArrow(param: string, error: string, httpCalls: readonly HttpCall[] = []): string | undefined {
  const status = statusOfText(error, httpCalls);
  return status && `(${param}) => { const status = ${status}; return !(${clientErrorTest('status')}); }`;
}
