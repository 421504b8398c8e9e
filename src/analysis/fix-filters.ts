/**
 * Error-filter edits shared by the descriptors' `clientErrors` facets: the 4xx entries taken out
 * of a status list (`statusCodes: [404, 500]` -> `[500]`), a range split around them
 * (`[[400, 599]]` -> `[[408, 408], [429, 429], [500, 599]]`), a `status === 404 ||` term taken out
 * of a predicate. Only literal code inside the site is edited: a list shared through a constant,
 * a spread or a value the model could not read keeps its meaning, and then no edit is offered.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import type { AnalysisContext } from './library.js';
import type { Node, OptionEdit, RetrySite } from './model.js';
import { contains, unwrap } from './ast.js';
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
 * `response.statusCode`, axios and ky in `response.status`, rxjs' ajax and others in `status`.
 * `Object(...)` keeps it valid JavaScript and type-correct TypeScript whatever the error's declared
 * type. Undefined when the error is the code's own (`if (!res.ok) throw new Error(...)` around
 * fetch): where it keeps the status is not known, and a filter reading the wrong field would filter
 * nothing.
 */
export function statusOfText(error: string, httpCalls: readonly HttpCall[] = []): string | undefined {
  // fetch resolves on 4xx; an SDK's error keeps the status in a shape of its own.
  if (httpCalls.some((c) => c.client === 'fetch' || c.sdk)) return undefined;
  if (httpCalls.length > 0 && httpCalls.every((c) => c.client === 'got')) return `Object(${error}).response?.statusCode`;
  // rxjs' AjaxError keeps the status on itself; its `response` is the body.
  if (httpCalls.length > 0 && httpCalls.every((c) => c.client === 'rxjs-ajax')) return `Object(${error}).status`;
  return `(Object(${error}).response?.status ?? Object(${error}).status)`;
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
