/**
 * Per-request timeouts written in a request's config (axios's `timeout`, named by the client's
 * `http.timeoutOption` facet): `axios(config)` where `config = { ..., timeout: 5000 }`, or a
 * config built in a const and completed before the call (`options.timeout = seconds * 1000`,
 * under an `if` read in the attempt's environment). Each attempt that sends such a request may
 * wait that long for it before it fails, so it counts towards the retry's worst case (R-RES-RE-4).
 *
 * What cannot be read leaves the timeout unknown: a config passed whole to another call
 * (`Object.assign(config, extra)`, `prepare(config)`), more than one write of the option, a write
 * in a loop, a callback or under a condition that is not known, a spread that may set it.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, contains, lookupProperty, memberName, unwrap, type Variable } from '../ast.js';
import type { Env } from '../eval/environment.js';
import type { Evaluator } from '../eval/evaluator.js';
import { UNKNOWN, truth } from '../eval/values.js';
import type { AnalysisContext, HttpFacet } from '../library.js';
import type { Node } from '../model.js';

type Call = TSESTree.CallExpression;

/** Members of a `members` client that send with a method of their name and take the config after the url. */
const URL_FIRST = new Set(['get', 'delete', 'head', 'options']);
/** ... and those that take a body between the url and the config. */
const BODY_FIRST = new Set(['post', 'put', 'patch']);

/** Where a request's timeout is written: the expression, or `none` when its config sets none. */
export type RequestTimeout = { readonly expr: Node } | 'none';

/** The module's client facet, when it names a timeout option and sends by members (axios). */
export function timeoutFacet(ctx: AnalysisContext, module: string): (HttpFacet & { timeoutOption: string }) | undefined {
  const facet = ctx.httpFacetOf?.(module);
  return facet?.method === 'members' && facet.timeoutOption ? (facet as HttpFacet & { timeoutOption: string }) : undefined;
}

/**
 * The config argument of a call of a `members` client: `client(config)`, `client(url, config)`,
 * `client.request(config)`, `client.get(url, config)`, `client.post(url, data, config)`. `member`
 * is the member called, undefined for the client itself.
 */
export function configArgument(call: Call, facet: HttpFacet, member: string | undefined): Node | undefined {
  let index: number;
  if (member === undefined) index = call.arguments.length === 1 ? 0 : 1;
  else if (member === 'request') index = 0;
  else if (URL_FIRST.has(member)) index = 1;
  else if (BODY_FIRST.has(member)) index = (facet.bodyArgument ?? 1) + 1;
  else return undefined;
  const arg = call.arguments[index];
  if (call.arguments.slice(0, index + 1).some((a) => a.type === T.SpreadElement)) return undefined;
  return arg as Node | undefined;
}

/**
 * A call of a client imported from a module whose facet names a timeout option, or of an instance
 * the file makes from it (`const api = axios.create({ timeout: 5000 }); api.get(url)`): the
 * expression its config sets the option with, the instance's own where the call's config sets none.
 */
export function importedRequestTimeout(ctx: AnalysisContext, call: Call, env: Env): RequestTimeout | undefined {
  const ref = ctx.imports.resolve(call.callee);
  const facet = ref && timeoutFacet(ctx, ref.module);
  if (!ref || !facet) return instanceRequestTimeout(ctx, call, env);
  // `axios(...)` is the module itself (`default`, or `module` for a require); `axios.get(...)` its member.
  const segments = ref.path.split('.').filter((s) => s !== 'default' && s !== 'module');
  if (segments.length > 1) return undefined;
  const member = segments[0];
  const config = configArgument(call, facet, member);
  return config ? optionIn(ctx.evaluator, config, facet.timeoutOption, call, env) : 'none';
}

/** `api.get(url, config)` or `api(config)` on a const made by `<client>.create(defaults)`. */
function instanceRequestTimeout(ctx: AnalysisContext, call: Call, env: Env): RequestTimeout | undefined {
  const callee = unwrap(call.callee);
  const member = callee.type === T.MemberExpression ? memberName(callee) : undefined;
  const client = callee.type === T.MemberExpression ? unwrap(callee.object) : callee;
  if (client.type !== T.Identifier || (callee.type === T.MemberExpression && member === undefined)) return undefined;
  const variable = ctx.evaluator.variableOf(client);
  const init = constInitializer(variable);
  const made = init && unwrap(init);
  if (made?.type !== T.CallExpression) return undefined;
  // `api.defaults.timeout = ...` elsewhere changes what the instance was made with.
  if (variable!.references.some((r) => r.identifier.parent?.type === T.MemberExpression && memberName(r.identifier.parent) === 'defaults')) return undefined;
  const ref = ctx.imports.resolve(made.callee);
  const facet = ref && timeoutFacet(ctx, ref.module);
  const path = ref?.path.split('.').filter((x) => x !== 'default' && x !== 'module');
  if (!facet || path?.length !== 1 || path[0] !== 'create') return undefined;
  const config = configArgument(call, facet, member);
  const own = config ? optionIn(ctx.evaluator, config, facet.timeoutOption, call, env) : 'none';
  if (own !== 'none') return own;
  const defaults = made.arguments[0];
  if (made.arguments.length > 1 || defaults?.type === T.SpreadElement) return undefined;
  return defaults ? optionIn(ctx.evaluator, defaults as Node, facet.timeoutOption, made, env) : 'none';
}

/**
 * The expression that sets `key` on the config `node` when `call` is made: a property of the
 * literal, or the one later write `config.key = value` that applies in `env`. Undefined when not known.
 */
export function optionIn(ev: Evaluator, node: Node, key: string, call: Call, env: Env): RequestTimeout | undefined {
  const n = unwrap(node);
  if (n.type === T.ObjectExpression) return literalOption(ev, n, key);
  if (n.type !== T.Identifier) return undefined;
  const variable = ev.variableOf(n);
  const init = variable && constInitializer(variable);
  const literal = init && unwrap(init);
  if (!variable || literal?.type !== T.ObjectExpression) return undefined;
  const written = writesOf(variable, key, call);
  if (written === undefined) return undefined;
  const base = literalOption(ev, literal, key);
  if (written.length === 0) return base;
  if (written.length > 1) return undefined;
  const write = written[0]!;
  const block = declarationBlock(literal);
  if (!block || write.range[0] > call.range[0] || !contains(block, write)) return undefined;
  const applies = appliesIn(ev, write, block, env);
  if (applies === undefined) return undefined;
  return applies ? { expr: write.right } : base;
}

function literalOption(ev: Evaluator, literal: TSESTree.ObjectExpression, key: string): RequestTimeout | undefined {
  const found = lookupProperty(literal, key, (x) => ev.scopeOf(x));
  if (found.state === 'absent') return 'none';
  return found.state === 'present' ? { expr: found.value } : undefined;
}

/**
 * The writes `variable.key = value` of a config, when every other use of it only reads members of
 * it or hands it to `call`; undefined when it escapes (passed elsewhere, reassigned, written otherwise).
 */
function writesOf(variable: Variable, key: string, call: Call): TSESTree.AssignmentExpression[] | undefined {
  const out: TSESTree.AssignmentExpression[] = [];
  for (const ref of variable.references) {
    if (ref.init) continue;
    if (ref.isWrite()) return undefined;
    const id = ref.identifier as Node;
    const p = id.parent;
    if (call.arguments.includes(id as TSESTree.CallExpressionArgument)) continue;
    if (p?.type !== T.MemberExpression || p.object !== id) return undefined;
    const name = memberName(p);
    const w = p.parent;
    const assigned = w?.type === T.AssignmentExpression && w.left === p;
    if (name === undefined) {
      if (assigned || p.computed) return undefined;
      continue;
    }
    if (name === key && (assigned || w?.type === T.UpdateExpression || (w?.type === T.UnaryExpression && w.operator === 'delete'))) {
      if (!assigned || (w as TSESTree.AssignmentExpression).operator !== '=') return undefined;
      out.push(w as TSESTree.AssignmentExpression);
    }
  }
  return out;
}

/** The block whose statement declares the const a config literal initialises. */
function declarationBlock(literal: Node): Node | undefined {
  let n: Node = literal;
  while (n.parent && (n.parent.type === T.TSAsExpression || n.parent.type === T.TSSatisfiesExpression)) n = n.parent;
  const declarator = n.parent;
  if (declarator?.type !== T.VariableDeclarator || declarator.init !== n) return undefined;
  const block = declarator.parent?.parent;
  return block?.type === T.BlockStatement || block?.type === T.Program ? block : undefined;
}

/** Whether a write between the config's declaration and the call runs: the `if`s around it read in `env`. */
function appliesIn(ev: Evaluator, write: Node, block: Node, env: Env): boolean | undefined {
  let child: Node = write;
  for (let p = write.parent; p && p !== block; child = p, p = p.parent) {
    if (p.type === T.IfStatement) {
      if (child === p.test) return undefined;
      const t = truth(ev.evaluateIn(p.test, env));
      if (t === UNKNOWN) return undefined;
      if (t !== (child === p.consequent)) return false;
    } else if (p.type !== T.BlockStatement && p.type !== T.ExpressionStatement && p.type !== T.TryStatement) {
      return undefined;
    }
  }
  return true;
}
