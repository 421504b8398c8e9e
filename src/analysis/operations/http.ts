/**
 * HTTP calls: which client a call goes through, the method it sends, and whether it rejects on a
 * 4xx response by itself.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import type { Node } from '../model.js';
import { findVariable, propertyKey, unwrap } from '../static-value.js';
import { rangeOf, type FileFacts } from './file.js';
import type { HttpCall } from './types.js';
import { HTTP_METHOD_MEMBERS, methodOfMember } from './vocabulary.js';

/** Clients whose promise rejects on any 4xx/5xx status unless told otherwise. */
const THROWING_CLIENTS = new Set(['axios', 'got', 'ky', 'superagent', 'ofetch']);
const FETCH_MODULES = new Set(['node-fetch', 'undici', 'cross-fetch', 'isomorphic-fetch']);

/** Conditions that are true for 4xx responses: `!res.ok`, `res.status >= 400`, `status !== 200`. */
const NOT_OK = /!\s*[\w$.]*\.ok\b|\.ok\s*===?\s*false|\.(?:status|statusCode)\s*(?:>=\s*(?:[1-3]\d\d|400)|>\s*(?:[1-3]\d\d)|!==?\s*2\d\d)/;

export interface HttpRequest {
  readonly client: string;
  /** Upper-cased; undefined when not statically known. */
  readonly method: string | undefined;
}

export interface HttpReader {
  /** The client and method of an HTTP request call; undefined when the call is not one. */
  requestOf(call: TSESTree.CallExpression): HttpRequest | undefined;
  /** The HTTP calls inside a scope, with whether each rejects on 4xx. */
  callsIn(scope: Node): HttpCall[];
}

interface ClientRef { module: string; kind: 'fetch' | 'node-http' | 'superagent' | 'library'; path: string; method?: string | undefined }

export function createHttpReader(file: FileFacts): HttpReader {
  const { ctx } = file;

  function requestOf(call: TSESTree.CallExpression): HttpRequest | undefined {
    const callee = unwrap(call.callee);
    // Octokit and similar: request('POST /repos/{owner}/{repo}/issues').
    if (callee.type === T.MemberExpression && !callee.computed && callee.property.type === T.Identifier && callee.property.name === 'request') {
      const route = ctx.evaluator.evaluate(call.arguments[0]);
      const m = typeof route === 'string' ? /^([A-Z]+)\s+\//.exec(route) : null;
      if (m) return { client: 'octokit', method: m[1] };
    }
    const client = clientOf(call);
    if (!client) return undefined;
    if (client.kind === 'fetch') return { client: client.module, method: methodOption(call.arguments[1], 'GET') };
    if (client.kind === 'node-http') {
      if (client.path === 'get') return { client: 'http', method: 'GET' };
      const options = call.arguments.find((a) => unwrap(a).type === T.ObjectExpression || (a.type === T.Identifier && ctx.evaluator.resolve(a).type === T.ObjectExpression));
      return { client: 'http', method: methodOption(options, 'GET') };
    }
    if (client.kind === 'superagent') return { client: 'superagent', method: client.method };
    // axios / got / ky: `.post(...)`, or the callable with a config.
    if (client.method) return { client: client.module, method: client.method };
    if (client.path === 'request') return { client: client.module, method: methodOption(call.arguments[0], 'GET') };
    const first = call.arguments[0];
    const config = first && (unwrap(first).type === T.ObjectExpression || ctx.evaluator.resolve(first).type === T.ObjectExpression) ? first : call.arguments[1];
    return { client: client.module, method: methodOption(config, 'GET') };
  }

  /** The static, upper-cased `method` of an options object; the fallback when absent; undefined when unknown. */
  function methodOption(node: Node | undefined, fallback: string): string | undefined {
    if (!node) return fallback;
    const view = ctx.options(node);
    if (view.state === 'absent') return fallback;
    if (view.state === 'unknown') return undefined;
    const v = view.get('method');
    if (!v.property && v.value === undefined) return fallback;
    return typeof v.value === 'string' ? v.value.toUpperCase() : undefined;
  }

  function clientOf(call: TSESTree.CallExpression): ClientRef | undefined {
    const callee = unwrap(call.callee);
    if (callee.type === T.Identifier && callee.name === 'fetch' && !ctx.imports.resolve(callee)) {
      return findVariable(ctx.evaluator.scopeOf(callee), 'fetch')?.defs.length ? undefined : { module: 'fetch', kind: 'fetch', path: 'fetch' };
    }
    // Chains such as `superagent.post(url).set(...).send(body)`: the root call decides.
    let target: Node = callee;
    while (target.type === T.MemberExpression && target.object.type === T.CallExpression) {
      target = unwrap(target.object.callee);
    }
    const ref = ctx.imports.resolve(target) ?? instanceOf(target);
    if (!ref) return undefined;
    const module = ref.module;
    const last = ref.path.split('.').pop() ?? ref.path;
    if (FETCH_MODULES.has(module)) {
      if (last === 'fetch' || ref.path === 'default' || ref.path === 'module') return { module: 'fetch', kind: 'fetch', path: 'fetch' };
      if (module === 'undici' && last === 'request') return { module: 'undici', kind: 'fetch', path: 'request' };
      return undefined;
    }
    if (module === 'http' || module === 'https') {
      return last === 'request' || last === 'get' ? { module, kind: 'node-http', path: last } : undefined;
    }
    if (module === 'superagent') {
      // Only the chain's root call carries the method; later links (.send, .set) are the same request.
      if (target !== callee && callee.type === T.MemberExpression && unwrap(call.callee) !== target) return undefined;
      let chainMethod: string;
      if (HTTP_METHOD_MEMBERS.has(last)) chainMethod = methodOfMember(last);
      else if (ref.path === 'default' || ref.path === 'module') {
        const m = ctx.evaluator.evaluate(call.arguments[0]);
        chainMethod = typeof m === 'string' && /^[A-Za-z]+$/.test(m) && call.arguments.length > 1 ? m.toUpperCase() : 'GET';
      } else return undefined;
      return { module, kind: 'superagent', path: last, method: chainMethod };
    }
    if (!THROWING_CLIENTS.has(module)) return undefined;
    if (target !== callee) return undefined; // `got(url).json()`: the inner call is the request
    if (HTTP_METHOD_MEMBERS.has(last)) return { module, kind: 'library', path: last, method: methodOfMember(last) };
    if (ref.path === 'default' || ref.path === 'module' || last === 'request') return { module, kind: 'library', path: last === 'request' ? 'request' : 'default' };
    return undefined;
  }

  /** `const api = axios.create()` / `got.extend()` / `ky.create()`: calls through `api` are that client's. */
  function instanceOf(target: Node): { module: string; path: string } | undefined {
    let base: Node = target;
    const path: string[] = [];
    while (base.type === T.MemberExpression) {
      const key = propertyKey(base, () => undefined);
      if (key === undefined) return undefined;
      path.unshift(key);
      base = unwrap(base.object);
    }
    if (base.type !== T.Identifier) return undefined;
    const init = ctx.evaluator.resolve(base);
    if (init.type !== T.CallExpression) return undefined;
    const factory = ctx.imports.resolve(init.callee) ?? instanceOf(unwrap(init.callee));
    if (!factory || !/(?:^|\.)(create|extend)$/.test(factory.path)) return undefined;
    return { module: factory.module, path: path.length ? path.join('.') : 'default' };
  }

  function callsIn(scope: Node): HttpCall[] {
    const out: HttpCall[] = [];
    let throwsOnNotOk: boolean | undefined;
    for (const call of file.callsIn(scope)) {
      const client = clientOf(call);
      if (!client) continue;
      if (client.kind === 'fetch' || client.kind === 'node-http') {
        throwsOnNotOk ??= throwsOnStatus(scope);
        out.push({ node: call, client: 'fetch', throwsOnClientError: throwsOnNotOk });
      } else {
        out.push({ node: call, client: client.module, throwsOnClientError: !disablesThrowing(call) });
      }
    }
    return out;
  }

  function throwsOnStatus(fn: Node): boolean {
    for (const t of rangeOf(ctx.nodesOfType(T.ThrowStatement), fn)) {
      for (let p: Node | undefined = t.parent; p && p !== fn; p = p.parent) {
        if (p.type === T.IfStatement && NOT_OK.test(ctx.sourceCode.getText(p.test))) return true;
      }
    }
    return false;
  }

  return { requestOf, callsIn };
}

/** `validateStatus: () => true` (axios) or `throwHttpErrors: false` (got, ky) turn off throwing. */
function disablesThrowing(call: TSESTree.CallExpression): boolean {
  return call.arguments.some((a) => a.type === T.ObjectExpression && a.properties.some((p) =>
    p.type === T.Property && !p.computed && p.key.type === T.Identifier &&
    (p.key.name === 'validateStatus' || p.key.name === 'throwHttpErrors')));
}
