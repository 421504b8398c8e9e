/**
 * HTTP requests sent through a receiver that is not an import: most application code holds its
 * client in a class member or a parameter (`this.http.post(...)` on Angular's `HttpClient`,
 * `this.httpService.post(...)` on NestJS's `HttpService`, an axios instance made in another file).
 *
 * Two kinds of evidence, strongest first:
 *   1. the receiver's declared type (`private http: HttpClient`, `inject(HttpClient)`, a parameter
 *      typed `AxiosInstance`), resolved to the module that exports it;
 *   2. the call's shape: a member named after an HTTP method whose first argument is a URL
 *      (`api.post('/orders', body)`, `client.get(`${base}/users`)`), or a member `fetch(url, init)`.
 *      Route registration (`app.post('/orders', handler)`) passes a function and is left out, and
 *      so are `map.delete(key)` and `params.get('page')`, whose argument is no URL.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { enclosingClass, findVariable, isFunctionNode, propertyKey, unwrap } from '../ast.js';
import type { AnalysisContext, HttpFacet, LibraryDescriptor } from '../library.js';
import type { Node } from '../model.js';
import { HTTP_METHOD_MEMBERS, methodOfMember } from './vocabulary.js';

export interface ReceiverRequest {
  /** The client's descriptor id, or the receiver's name when only the call's shape tells. */
  readonly client: string;
  /** `fetch`-like calls take the method from their init object; the others name it. */
  readonly style: 'method-member' | 'fetch' | 'interceptor';
  /** Upper-cased, for `method-member`. */
  readonly method?: string | undefined;
  /** Whether the client rejects (or errors the observable) on a 4xx response by itself. */
  readonly throwsOnClientError: boolean;
  /** Options that turn that off: the descriptor's, or undefined when the client is known only by shape. */
  readonly nonThrowingOptions?: readonly string[] | undefined;
  /** The option among them that is a status predicate (axios's `validateStatus`). */
  readonly statusAcceptedOption?: string | undefined;
  /** The descriptor's `bodyArgument`: where `post(url, data, config)` takes its body. */
  readonly bodyArgument?: number | undefined;
  /** Arguments before the request's own: 1 for `this.fetch.call(undefined, url, init)`. */
  readonly argumentOffset?: number | undefined;
}

/** A type that the catalogue says is a client, or a handler that passes requests on. */
interface TypedClient {
  readonly library: LibraryDescriptor;
  readonly facet: HttpFacet;
  readonly handler: boolean;
}

const typeIndexes = new WeakMap<readonly LibraryDescriptor[], ReadonlyMap<string, TypedClient>>();

/** `module#Type` -> the client, from the descriptors' `http.types` and `http.handlerTypes`, once per catalogue. */
function typeIndex(libraries: readonly LibraryDescriptor[]): ReadonlyMap<string, TypedClient> {
  let index = typeIndexes.get(libraries);
  if (!index) {
    const map = new Map<string, TypedClient>();
    for (const library of libraries) {
      const facet = library.http;
      if (!facet) continue;
      for (const module of library.modules) {
        for (const t of facet.types ?? []) map.set(`${module}#${t}`, { library, facet, handler: false });
        for (const t of facet.handlerTypes ?? []) map.set(`${module}#${t}`, { library, facet, handler: true });
      }
    }
    typeIndexes.set(libraries, (index = map));
  }
  return index;
}

/** Receiver names that hold HTTP clients in real code: `http`, `httpClient`, `api`, `apiClient`, `axiosInstance`, `$http`. */
const CLIENT_NAME = /^\$?(?:https?|api|axios|request|rest|fetcher|client)$|(?:Http|Api|Axios|Rest|Client|Fetcher|Request|Instance|Service)$|^(?:http|api|axios|rest)[A-Z_]/;
/** Receivers that register routes or hold local data, never clients. */
const NOT_CLIENT_NAME = /^(?:app|router|server|fastify|route|routes|express|map|cache|store|storage|params|searchParams|headers|form|formData|set|session|cookies|localStorage|sessionStorage|db|redis|knex|prisma|repository|repo|model|collection)$/i;

export function createReceiverReader(ctx: AnalysisContext, libraries: readonly LibraryDescriptor[]) {
  const types = typeIndex(libraries);
  const typeCache = new Map<Node, TypedClient | null>();

  /** The request a call sends through a receiver that is not an import; undefined when it is none. */
  function requestOf(call: TSESTree.CallExpression): ReceiverRequest | undefined {
    const callee = unwrap(call.callee);
    if (callee.type === T.Identifier) return heldFetch(callee, call);
    if (callee.type !== T.MemberExpression) return undefined;
    const member = propertyKey(callee, () => undefined);
    if (!member) return undefined;
    const receiver = unwrap(callee.object);
    // `this.fetch.call(undefined, url, init)`: the fetch member called with a `this` of its own.
    if (member === 'call' && receiver.type === T.MemberExpression && propertyKey(receiver, () => undefined) === 'fetch') {
      const url = call.arguments[1];
      return url && url.type !== T.SpreadElement && urlLike(unwrap(url), true) ? { client: 'fetch', style: 'fetch', throwsOnClientError: false, argumentOffset: 1 } : undefined;
    }
    const typed = clientType(receiver);
    const knownOf = (t: TypedClient) => ({ client: t.library.id, throwsOnClientError: t.facet.throwsOnClientError, nonThrowingOptions: t.facet.nonThrowingOptions ?? [], statusAcceptedOption: t.facet.statusAcceptedOption, bodyArgument: t.facet.bodyArgument });
    // `client.channels.fetch(id)`: a member of a typed client's manager (discord.js `Client#channels`),
    // named in the descriptor by its path.
    if (!typed && receiver.type === T.MemberExpression && !receiver.computed && unwrap(receiver.object).type === T.Identifier) {
      const owner = clientType(unwrap(receiver.object));
      const method = owner && !owner.handler ? owner.facet.typedMembers?.[`${propertyKey(receiver, () => undefined)}.${member}`] : undefined;
      if (owner && method) return { ...knownOf(owner), style: 'method-member', method };
    }
    if (typed) {
      const known = knownOf(typed);
      if (typed.handler) return member === 'handle' ? { ...known, style: 'interceptor' } : undefined;
      const named = typed.facet.typedMembers;
      if (named && Object.hasOwn(named, member)) return { ...known, style: 'method-member', method: named[member] };
      if (HTTP_METHOD_MEMBERS.has(member)) return { ...known, style: 'method-member', method: methodOfMember(member) };
      if (member === 'request') return { ...known, style: 'fetch' };
      return undefined;
    }
    if (call.arguments.length === 0 || call.arguments.some((a) => isFunctionNode(unwrap(a as Node)))) return undefined;
    const name = receiverName(receiver);
    if ((name && NOT_CLIENT_NAME.test(name)) || isLocalData(receiver)) return undefined;
    const first = unwrap(call.arguments[0] as Node);
    if (member === 'fetch' && urlLike(first, true)) return { client: 'fetch', style: 'fetch', throwsOnClientError: false };
    if (!HTTP_METHOD_MEMBERS.has(member)) return undefined;
    // A literal path or URL is evidence enough; a variable named `url` needs a receiver named like a client.
    if (urlLike(first, false) || (name !== undefined && CLIENT_NAME.test(name) && urlLike(first, true))) {
      return { client: name ?? 'client', style: 'method-member', method: methodOfMember(member), throwsOnClientError: true };
    }
    return undefined;
  }

  /**
   * `const _fetch = this.fetch; _fetch(url, init)` (replicate's client, to call the fetch it was given
   * without its `this`): a name held from a member `fetch`, called with a URL, is that member's call.
   */
  function heldFetch(callee: TSESTree.Identifier, call: TSESTree.CallExpression): ReceiverRequest | undefined {
    const first = call.arguments[0];
    if (!first || first.type === T.SpreadElement || callee.name === 'fetch') return undefined;
    const held = ctx.evaluator.resolve(callee);
    if (held === callee || held.type !== T.MemberExpression || propertyKey(held, () => undefined) !== 'fetch') return undefined;
    return urlLike(unwrap(first), true) ? { client: 'fetch', style: 'fetch', throwsOnClientError: false } : undefined;
  }

  /** A receiver whose value this file writes as data (an object literal, `new Map()`): no client. */
  function isLocalData(receiver: Node): boolean {
    if (receiver.type !== T.Identifier) return false;
    const init = ctx.evaluator.resolve(receiver);
    return init !== receiver && (init.type === T.ObjectExpression || init.type === T.ArrayExpression || (init.type === T.NewExpression && init.callee.type === T.Identifier && /^(?:Map|WeakMap|Set|URLSearchParams|FormData|Headers)$/.test(init.callee.name)));
  }

  /** The client the receiver's declared type names, or `null` when none is written. */
  function clientType(receiver: Node): TypedClient | null {
    let cached = typeCache.get(receiver);
    if (cached === undefined) {
      cached = typeOfReceiver(receiver);
      typeCache.set(receiver, cached);
    }
    return cached;
  }

  function typeOfReceiver(receiver: Node): TypedClient | null {
    if (receiver.type === T.MemberExpression && unwrap(receiver.object).type === T.ThisExpression) {
      const name = propertyKey(receiver, () => undefined);
      const cls = enclosingClass(receiver);
      return name && cls ? memberType(cls.body, name) : null;
    }
    if (receiver.type === T.Identifier) {
      const variable = findVariable(ctx.evaluator.scopeOf(receiver), receiver.name);
      const def = variable?.defs[0];
      if (!def) return null;
      if (def.type === 'Parameter' && def.name.type === T.Identifier) return annotated(def.name.typeAnnotation?.typeAnnotation);
      if (def.type === 'Variable' && def.node.type === T.VariableDeclarator && def.node.id.type === T.Identifier) {
        return annotated(def.node.id.typeAnnotation?.typeAnnotation) ?? injected(def.node.init);
      }
    }
    return null;
  }

  /** `constructor(private http: HttpClient)`, `http: HttpClient`, `http = inject(HttpClient)`. */
  function memberType(cls: TSESTree.ClassBody, name: string): TypedClient | null {
    for (const element of cls.body) {
      if (element.type === T.PropertyDefinition && !element.computed && element.key.type === T.Identifier && element.key.name === name) {
        return annotated(element.typeAnnotation?.typeAnnotation) ?? injected(element.value);
      }
      if (element.type === T.MethodDefinition && element.kind === 'constructor') {
        for (const p of element.value.params) {
          const param = p.type === T.TSParameterProperty ? p.parameter : undefined;
          if (param?.type === T.Identifier && param.name === name) return annotated(param.typeAnnotation?.typeAnnotation);
        }
      }
    }
    return null;
  }

  /** `TextChannel`, `TextChannel | null`: the one type named besides null and undefined. */
  function annotated(type: TSESTree.TypeNode | undefined): TypedClient | null {
    if (type?.type === T.TSUnionType) {
      const named = type.types.filter((t) => t.type !== T.TSNullKeyword && t.type !== T.TSUndefinedKeyword);
      return named.length === 1 ? annotated(named[0]) : null;
    }
    if (type?.type !== T.TSTypeReference) return null;
    return typedClient(type.typeName);
  }

  function injected(init: Node | null | undefined): TypedClient | null {
    const call = init ? unwrap(init) : undefined;
    if (call?.type !== T.CallExpression || call.arguments.length === 0) return null;
    const callee = ctx.imports.resolve(call.callee);
    if (!callee || callee.path !== 'inject') return null;
    return typedClient(call.arguments[0] as Node);
  }

  function typedClient(node: Node): TypedClient | null {
    const ref = ctx.imports.resolve(node) ?? typeImport(node);
    return (ref && types.get(`${ref.module}#${ref.path}`)) ?? null;
  }

  /** `import type { TextChannel } from 'discord.js'`: a name imported for its type only (the import table binds values). */
  function typeImport(node: Node): { module: string; path: string } | undefined {
    if (node.type !== T.Identifier) return undefined;
    const def = findVariable(ctx.evaluator.scopeOf(node), node.name)?.defs[0];
    if (def?.type !== 'ImportBinding' || def.node.type !== T.ImportSpecifier || def.parent?.type !== T.ImportDeclaration) return undefined;
    const imported = def.node.imported;
    return { module: ctx.imports.moduleOf(def.parent.source.value), path: imported.type === T.Identifier ? imported.name : String(imported.value) };
  }

  return { requestOf };
}

/** `this.http` → `http`, `api` → `api`, `this.deps.client` → `client`. */
function receiverName(receiver: Node): string | undefined {
  if (receiver.type === T.Identifier) return receiver.name;
  if (receiver.type === T.MemberExpression) return propertyKey(receiver, () => undefined);
  return undefined;
}

/**
 * A URL or path: a string or template that starts with `/` or a scheme, or holds a path segment;
 * with `named`, also an expression named like one (`url`, `this.endpoint`, `buildUrl(...)`).
 */
function urlLike(node: Node, named: boolean): boolean {
  if (node.type === T.Literal) return typeof node.value === 'string' && isPath(node.value);
  if (node.type === T.TemplateLiteral) return isPath(node.quasis.map((q) => q.value.cooked ?? '').join('x'));
  if (node.type === T.BinaryExpression && node.operator === '+') return urlLike(unwrap(node.left), named) || urlLike(unwrap(node.right), named);
  if (node.type === T.NewExpression && node.callee.type === T.Identifier && node.callee.name === 'URL') return true;
  if (!named) return false;
  const name = node.type === T.Identifier ? node.name : node.type === T.MemberExpression ? propertyKey(node, () => undefined) : node.type === T.CallExpression ? receiverName(unwrap(node.callee)) : undefined;
  return !!name && /(?:url|uri|endpoint|path|route|href)$/i.test(name);
}

function isPath(text: string): boolean {
  return /^(?:https?:\/\/|\/)/i.test(text) || /^[\w.-]*\/[\w{}$.:-]/.test(text) && !/\s/.test(text);
}
