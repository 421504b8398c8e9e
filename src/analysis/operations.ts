/**
 * What a retry site repeats: the HTTP calls (and, later, other operations) inside its
 * operation, read once per site and cached.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import type { AnalysisContext } from './library.js';
import { functionOf } from './library.js';
import type { Node, RetrySite } from './model.js';
import { unwrap } from './static-value.js';

export interface HttpCall {
  readonly node: TSESTree.CallExpression;
  /** `axios`, `got`, `ky`, `superagent`, `ofetch`, `fetch`. */
  readonly client: string;
  /** True when the call rejects on a 4xx response by itself, or the code throws on `!res.ok`. */
  readonly throwsOnClientError: boolean;
}

export interface OperationFacts {
  readonly fn: TSESTree.FunctionLike | undefined;
  readonly httpCalls: readonly HttpCall[];
}

/** Clients whose promise rejects on any 4xx/5xx status unless told otherwise. */
const THROWING_CLIENTS: Record<string, string> = {
  axios: 'axios',
  got: 'got',
  ky: 'ky',
  superagent: 'superagent',
  ofetch: 'ofetch',
  'node-fetch': 'fetch',
  undici: 'fetch',
};

const cache = new WeakMap<RetrySite, OperationFacts>();

export function operationFacts(site: RetrySite, ctx: AnalysisContext): OperationFacts {
  let facts = cache.get(site);
  if (!facts) {
    facts = computeFacts(site, ctx);
    cache.set(site, facts);
  }
  return facts;
}

function computeFacts(site: RetrySite, ctx: AnalysisContext): OperationFacts {
  const fn = site.clientLevel ? undefined : functionOf(site.operation, ctx) ?? (isLoopOrFunction(site.node) ? site.node : undefined);
  if (!fn) return { fn: undefined, httpCalls: [] };
  const [start, end] = fn.range;
  const httpCalls: HttpCall[] = [];
  let throwsOnNotOk: boolean | undefined;
  for (const call of ctx.nodesOfType(T.CallExpression)) {
    if (call.range[0] < start) continue;
    if (call.range[0] >= end) break;
    const client = httpClientOf(call, ctx);
    if (!client) continue;
    if (client === 'fetch') {
      throwsOnNotOk ??= throwsOnStatus(fn, ctx);
      httpCalls.push({ node: call, client, throwsOnClientError: throwsOnNotOk });
    } else {
      httpCalls.push({ node: call, client, throwsOnClientError: !hasValidateStatus(call) });
    }
  }
  return { fn: fn as TSESTree.FunctionLike, httpCalls };
}

function isLoopOrFunction(node: Node): node is TSESTree.FunctionLike {
  return node.type === T.FunctionDeclaration || node.type === T.FunctionExpression || node.type === T.ArrowFunctionExpression;
}

function httpClientOf(call: TSESTree.CallExpression, ctx: AnalysisContext): string | undefined {
  const callee = unwrap(call.callee);
  if (callee.type === T.Identifier && callee.name === 'fetch' && !ctx.imports.resolve(callee)) {
    return isShadowed(callee, ctx) ? undefined : 'fetch';
  }
  // Method chains such as `superagent.get(url).set(...)` resolve through their root.
  let target: Node = callee;
  while (target.type === T.MemberExpression && target.object.type === T.CallExpression) target = unwrap(target.object.callee);
  const ref = ctx.imports.resolve(target) ?? instanceFactory(target, ctx);
  if (!ref) return undefined;
  const client = THROWING_CLIENTS[ref.module];
  if (!client) return undefined;
  if (client === 'fetch' && !(ref.path === 'fetch' || ref.path === 'default' || ref.path === 'module' || ref.path === 'request')) return undefined;
  return client;
}

/** `const api = axios.create()` / `got.extend()` / `ky.create()`: calls through `api` are that client's. */
function instanceFactory(target: Node, ctx: AnalysisContext): { module: string; path: string } | undefined {
  let base: Node = target;
  while (base.type === T.MemberExpression) base = unwrap(base.object);
  if (base.type !== T.Identifier) return undefined;
  const init = ctx.evaluator.resolve(base);
  if (init.type !== T.CallExpression) return undefined;
  const factory = ctx.imports.resolve(init.callee);
  if (!factory || !INSTANCE_FACTORIES.has(factory.path)) return undefined;
  return { module: factory.module, path: 'default' };
}

const INSTANCE_FACTORIES = new Set(['create', 'extend']);

function isShadowed(id: TSESTree.Identifier, ctx: AnalysisContext): boolean {
  for (let s: ReturnType<AnalysisContext['evaluator']['scopeOf']> | null = ctx.evaluator.scopeOf(id); s; s = s.upper) {
    const v = s.set.get(id.name);
    if (v && v.defs.length > 0) return true;
  }
  return false;
}

/** `validateStatus: () => true` (axios) or `throwHttpErrors: false` (got, ky) turn off throwing. */
function hasValidateStatus(call: TSESTree.CallExpression): boolean {
  return call.arguments.some((a) => a.type === T.ObjectExpression && a.properties.some((p) =>
    p.type === T.Property && !p.computed && p.key.type === T.Identifier &&
    (p.key.name === 'validateStatus' || p.key.name === 'throwHttpErrors' || p.key.name === 'ok')));
}

/** Conditions that are true for 4xx responses: `!res.ok`, `res.status >= 400`, `status !== 200`. */
const NOT_OK = /!\s*[\w$.]*\.ok\b|\.ok\s*===?\s*false|\.(?:status|statusCode)\s*(?:>=\s*(?:[1-3]\d\d|400)|>\s*(?:[1-3]\d\d)|!==?\s*2\d\d)/;

/** Whether the function throws when a response is not ok: `if (!res.ok) throw ...`, `res.status >= 400`. */
function throwsOnStatus(fn: Node, ctx: AnalysisContext): boolean {
  const [start, end] = fn.range;
  for (const t of ctx.nodesOfType(T.ThrowStatement)) {
    if (t.range[0] < start) continue;
    if (t.range[0] >= end) break;
    for (let p: Node | undefined = t.parent; p && p !== fn; p = p.parent) {
      if (p.type === T.IfStatement && NOT_OK.test(ctx.sourceCode.getText(p.test))) return true;
    }
  }
  return false;
}
