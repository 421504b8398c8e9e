/**
 * HTTP calls: which client a call goes through, the method it sends, and whether it rejects on a
 * 4xx response by itself.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { HttpFacet, ImportedValue, LibraryDescriptor } from '../library.js';
import type { Node } from '../model.js';
import { enclosingFunction, findVariable, isFunctionNode, memberName, propertyKey, readsMethod, unwrap } from '../ast.js';
import { localFunction, rangeOf, type FileFacts } from './file.js';
import { createReceiverReader } from './receivers.js';
import type { HttpCall, MethodParameter, OperationKind, Variable } from './types.js';
import { HTTP_METHOD_MEMBERS, kindOfMethod, methodOfMember, worstMethod } from './vocabulary.js';
import { functionOf } from '../library.js';
import { FREE, STATIC_ENV, type Env } from '../eval/environment.js';
import { computedCallee } from './computed-names.js';
import { argumentsOfEveryCall, evalReturn, parameterBehind, parameterPosition, parameterVariable, returnOf } from '../eval/functions.js';
import { truth } from '../eval/values.js';
import { isNonRetryableClientError } from '../../shared/guide-limits.js';

/** Conditions that are true for 4xx responses: `!res.ok`, `res.status >= 400`, `status !== 200`. */
const NOT_OK = /!\s*[\w$.]*\.ok\b|\.ok\s*===?\s*false|\.(?:status|statusCode)\s*(?:>=\s*(?:[1-3]\d\d|400)|>\s*(?:[1-3]\d\d)|!==?\s*2\d\d)/;

export interface HttpRequest {
  readonly client: string;
  /** Upper-cased; undefined when not statically known. */
  readonly method: string | undefined;
  /** Set when the kind does not follow from the method: an interceptor sends every method. */
  readonly kind?: OperationKind | undefined;
  /** The argument that is the request's body, when the client takes it before its config. */
  readonly body?: number | undefined;
  /** The method is the caller's, compared only to choose a response predicate (Operation.methodPicksFilter). */
  readonly methodPicksFilter?: boolean | undefined;
  /** Where the caller's method comes in, for a request sending every method (Operation.methodParameter). */
  readonly methodParameter?: MethodParameter | undefined;
}

export interface HttpReader {
  /** The client and method of an HTTP request call; undefined when the call is not one. */
  requestOf(call: TSESTree.CallExpression): HttpRequest | undefined;
  /** The HTTP calls inside a scope, with whether each rejects on 4xx. */
  callsIn(scope: Node): HttpCall[];
  /** The request a direct call of a callable client sends. */
  callThroughClient(call: TSESTree.CallExpression): HttpRequest;
  /** The parameter of the function around `value` a method value comes from (`method`, `options.method`), when it is one. */
  methodParameterOf(value: Node): MethodParameter | undefined;
}

/** A call through an HTTP client: the descriptor that knows the client, and the method it sends when the call names it. */
interface ClientRef {
  readonly library: LibraryDescriptor;
  readonly facet: HttpFacet;
  /** The export called (`fetch`, `request`, `get`), `default` for the module itself. */
  readonly entry: string;
  /** Set when the callee's name is the method (`axios.post`, `superagent.del`). */
  readonly method?: string | undefined;
  /** `request[action](route)`: the computed key that names the method. */
  readonly chosen?: Node | undefined;
}

interface HttpIndex {
  readonly byModule: ReadonlyMap<string, LibraryDescriptor>;
  readonly byGlobal: ReadonlyMap<string, LibraryDescriptor>;
  /** Every client's options that stop it rejecting on 4xx: for a client known only by its call's shape. */
  readonly anyNonThrowing: readonly string[];
}

const indexes = new WeakMap<readonly LibraryDescriptor[], HttpIndex>();

/** Module and global name -> the HTTP client's descriptor, built once per catalogue. */
function httpIndex(libraries: readonly LibraryDescriptor[]): HttpIndex {
  let index = indexes.get(libraries);
  if (!index) {
    const clients = libraries.filter((l) => l.http);
    index = {
      byModule: new Map(clients.flatMap((l) => l.modules.map((m) => [m, l] as const))),
      byGlobal: new Map(clients.flatMap((l) => (l.http!.global ? [[l.http!.global, l] as const] : []))),
      anyNonThrowing: [...new Set(clients.flatMap((l) => l.http!.nonThrowingOptions ?? []))],
    };
    indexes.set(libraries, index);
  }
  return index;
}

/** The body's argument index for a method that sends one, when the client puts it before the config. */
function bodyArgument(index: number | undefined, method: string | undefined): number | undefined {
  return index !== undefined && (method === 'POST' || method === 'PUT' || method === 'PATCH') ? index : undefined;
}

/**
 * `imported` reads what an imported name holds in the file that exports it, when the model may
 * follow imports: an axios instance created in another file is still axios.
 */
export function createHttpReader(file: FileFacts, imported?: (id: TSESTree.Identifier) => ImportedValue | undefined): HttpReader {
  const { ctx } = file;
  const index = httpIndex(file.libraries);
  const receivers = createReceiverReader(ctx, file.libraries);

  function requestOf(call: TSESTree.CallExpression): HttpRequest | undefined {
    const callee = unwrap(call.callee);
    // Octokit and similar: request('POST /repos/{owner}/{repo}/issues').
    if (callee.type === T.MemberExpression && !callee.computed && callee.property.type === T.Identifier && callee.property.name === 'request') {
      const route = ctx.evaluator.evaluate(call.arguments[0]);
      const m = typeof route === 'string' ? /^([A-Z]+)\s+\//.exec(route) : null;
      if (m) return { client: 'octokit', method: m[1] };
    }
    const client = clientOf(call);
    if (!client) return throughReceiver(call) ?? passedFetch(call);
    const id = client.library.id;
    if (client.chosen) return chosenRequest(id, call, client.chosen, client.facet);
    if (client.method) return { client: id, method: client.method, body: bodyArgument(client.facet.bodyArgument, client.method) };
    switch (client.facet.method) {
      case 'fetch':
        return sent(id, call, call.arguments[1]);
      case 'node-http': {
        if (client.entry === 'get') return { client: id, method: 'GET' };
        const options = call.arguments.find((a) => unwrap(a).type === T.ObjectExpression || (a.type === T.Identifier && ctx.evaluator.resolve(a).type === T.ObjectExpression));
        return sent(id, call, options);
      }
      case 'chained': {
        // `superagent(method, url)`; a bare `superagent(url)` is a GET.
        const m = ctx.evaluator.evaluate(call.arguments[0]);
        return { client: id, method: typeof m === 'string' && /^[A-Za-z]+$/.test(m) && call.arguments.length > 1 ? m.toUpperCase() : 'GET' };
      }
      case 'members': {
        if (client.entry === 'request') return sent(id, call, call.arguments[0]);
        const first = call.arguments[0];
        const config = first && (unwrap(first).type === T.ObjectExpression || ctx.evaluator.resolve(first).type === T.ObjectExpression) ? first : call.arguments[1];
        return sent(id, call, config);
      }
    }
  }

  /** A request through a class member, a parameter or an instance made elsewhere (receivers.ts). */
  function throughReceiver(call: TSESTree.CallExpression): HttpRequest | undefined {
    const request = receivers.requestOf(call);
    if (!request) return undefined;
    if (request.style === 'method-member') return { client: request.client, method: request.method, body: bodyArgument(request.bodyArgument, request.method) };
    if (request.style === 'fetch') {
      const offset = request.argumentOffset ?? 0;
      return sent(request.client, call, call.arguments[offset + (call.arguments.length - offset > 1 ? 1 : 0)]);
    }
    // An interceptor re-sends every request that passes through it, whatever its method, unless
    // the code looks at the method.
    return checksMethod(call) ? { client: request.client, method: undefined } : { client: request.client, method: undefined, kind: 'write' };
  }

  /** The request a call sends with these options: their method, GET when none is written. */
  function sent(client: string, call: TSESTree.CallExpression, options: Node | undefined): HttpRequest {
    // `fetch(url, options)` with the whole init a parameter (`options = {}` included): the method
    // is the caller's. Not taken for every method here (a caller that passes none sends a GET),
    // but a call of this function that passes `{ method: 'POST' }` sends that
    // (Classifier.withPassedMethod).
    const whole = options && wholeInitParameter(ctx, options);
    if (whole) return checksMethod(call) ? { client, method: undefined } : { client, method: undefined, methodParameter: whole };
    const method = methodOption(options, 'GET');
    if (method !== undefined || !options) return { client, method };
    // `fetch(url, { method })` with the method a caller passes in: the function sends whatever its
    // callers ask for, POST included, unless it looks at the method (as an interceptor would).
    const view = ctx.options(options);
    const given = view.state === 'object' ? view.get('method').valueNode : undefined;
    const param = (given && callerParameter(given)) ?? assignedMethod(options, call);
    if (!param || checksMethod(call)) return { client, method };
    const found = comparisons(param);
    if (found.length > 0) return picksFilterOnly(found) ? { client, method, methodPicksFilter: true } : { client, method };
    const passed = given && unwrap(given).type === T.Identifier ? passedMethods(param) : undefined;
    if (passed) return { client, method: passed };
    return { client, method: undefined, kind: 'write', methodParameter: given && methodParameterOf(ctx, given) };
  }

  /**
   * `fetchFn(url, { method, headers, body })` through a function named for fetch that the code is
   * handed or holds (a parameter `fetchFn`, `customFetch`), with an init object that states the
   * method: that request, its method read as `fetch`'s is (the caller's one included).
   */
  function passedFetch(call: TSESTree.CallExpression): HttpRequest | undefined {
    const callee = unwrap(call.callee);
    const [url, init] = call.arguments;
    if (callee.type !== T.Identifier || !/fetch/i.test(callee.name) || call.arguments.length !== 2 || !url || !init) return undefined;
    const u = unwrap(url);
    if (u.type === T.SpreadElement || u.type === T.ObjectExpression || isFunctionNode(u) || ctx.imports.resolve(callee)) return undefined;
    // A function of the file is followed to its body instead (it may look at the method).
    if (localFunction(callee, ctx)) return undefined;
    const object = unwrap(init);
    if (object.type !== T.ObjectExpression || !object.properties.some((p) => p.type === T.Property && !p.computed && ((p.key.type === T.Identifier && p.key.name === 'method') || (p.key.type === T.Literal && p.key.value === 'method')))) return undefined;
    return sent('fetch', call, object);
  }

  /**
   * `request[action](route)`, `api[method](url, data)`: a known client's member chosen at run time.
   * A written name or constant lists of names (computed-names.ts) send those methods, judged by the
   * worst; a name the caller passes sends every method, as a `method` the caller passes to `fetch`
   * does (unless the code compares it, or every call of a local function passes literals). Any
   * other key is no known request (undefined).
   */
  function chosenRequest(client: string, call: TSESTree.CallExpression, key: Node, facet: HttpFacet): HttpRequest | undefined {
    // A written name (`request['get']`) or the names of constant lists: computed-names.ts reads both.
    const names = computedCallee(call, ctx)?.names;
    if (names) {
      if (!names.every((n) => HTTP_METHOD_MEMBERS.has(n))) return undefined;
      const method = worstMethod(names.map(methodOfMember));
      return { client, method, body: bodyArgument(facet.bodyArgument, method) };
    }
    const param = callerParameter(key);
    if (!param || checksMethod(call) || compared(param)) return undefined;
    const passed = passedMethods(param, (n) => (HTTP_METHOD_MEMBERS.has(n) ? methodOfMember(n) : undefined));
    if (passed) return { client, method: passed, body: bodyArgument(facet.bodyArgument, passed) };
    return { client, method: undefined, kind: 'write', body: facet.bodyArgument };
  }

  /**
   * The method a local, unexported function's method parameter is given when every call passes a
   * string literal there (or passes none where the parameter has a literal default): the worst of
   * them. Undefined when any call passes something else, or the function has other uses.
   */
  function passedMethods(v: Variable, asMethod: (name: string) => string | undefined = (n) => (/^[A-Za-z]+$/.test(n) ? n.toUpperCase() : undefined)): string | undefined {
    // A parameter's default is a write of it too (`init`): only a later assignment changes what a call passed.
    const at = v.references.some((r) => r.isWrite() && !r.init) ? undefined : parameterPosition(v);
    if (!at) return undefined;
    const args = argumentsOfEveryCall(ctx.sourceCode, at.fn, at.index);
    if (!args?.length) return undefined;
    const fallback = at.param.type === T.AssignmentPattern ? at.param.right : undefined;
    const methods: string[] = [];
    for (const arg of args) {
      const given = arg ? unwrap(arg) : fallback && unwrap(fallback);
      const method = given?.type === T.Literal && typeof given.value === 'string' ? asMethod(given.value) : undefined;
      if (!method) return undefined;
      methods.push(method);
    }
    return worstMethod(methods);
  }

  /**
   * `init.method = method.toUpperCase()` on the options object before the call, with `method` the
   * caller's (`const { method, ...rest } = init || {}`): the method sent is the caller's whatever
   * the object literal wrote before. The parameter it comes from.
   */
  function assignedMethod(options: Node, call: TSESTree.CallExpression): Variable | undefined {
    const id = unwrap(options);
    const v = id.type === T.Identifier ? ctx.evaluator.variableOf(id) : undefined;
    if (!v || v.defs.length !== 1 || v.defs[0]!.type !== 'Variable') return undefined;
    for (const r of v.references) {
      const member = r.identifier.parent;
      if (member?.type !== T.MemberExpression || member.object !== r.identifier || memberName(member) !== 'method') continue;
      const write = member.parent;
      if (write?.type !== T.AssignmentExpression || write.left !== member || write.operator !== '=' || write.range[1] > call.range[0]) continue;
      const from = callerParameter(write.right);
      if (from) return from;
    }
    return undefined;
  }

  /**
   * The parameter a method value comes from: `method` or `{ method }` among the parameters,
   * `options.method`, or a name destructured from a parameter (`const { method } = options`).
   */
  function callerParameter(value: Node): Variable | undefined {
    let n = unwrap(value);
    // `method.toUpperCase()`: the same method, spelt in capitals.
    if (n.type === T.CallExpression && n.arguments.length === 0 && /^to(?:Upper|Lower)Case$/.test(memberName(n.callee) ?? '')) n = unwrap((unwrap(n.callee) as TSESTree.MemberExpression).object);
    while (n.type === T.MemberExpression) n = unwrap(n.object);
    if (n.type !== T.Identifier) return undefined;
    const v = ctx.evaluator.variableOf(n);
    // The method variable itself (its comparisons are looked at), when it is the caller's.
    return parameterBehind(v, (id) => ctx.evaluator.variableOf(id)) ? v : undefined;
  }

  /** Whether the code compares the method it is given (`method === 'GET'`, `SAFE.includes(method)`). */
  function compared(v: Variable): boolean {
    return comparisons(v).length > 0;
  }

  /** The comparisons of a method variable: `method === 'GET'`, `switch (method)`, `SAFE.includes(method)`. */
  function comparisons(v: Variable): Node[] {
    return v.references.flatMap((r): Node[] => {
      let id: Node = r.identifier as Node;
      while (id.parent?.type === T.MemberExpression && id.parent.object === id) id = id.parent;
      const p = id.parent;
      if (p?.type === T.BinaryExpression && ['===', '!==', '==', '!='].includes(p.operator)) return [p];
      if (p?.type === T.SwitchStatement) return [p];
      return p?.type === T.CallExpression && p.arguments.includes(id as TSESTree.CallExpressionArgument) && ['includes', 'has', 'indexOf'].includes(memberName(p.callee) ?? '') ? [p] : [];
    });
  }

  /**
   * Whether every comparison of the method (`found`, not none) only chooses between two predicates that call nothing
   * (`const shouldRetry = method === 'GET' ? (r) => r.status >= 500 : (r) => r.status === 429`):
   * the request sent is the same, only the predicate handed on differs. A chosen function that
   * calls something may run the retry or the request itself (`method === 'GET' ? withRetry : once`).
   */
  function picksFilterOnly(found: readonly Node[]): boolean {
    const predicate = (n: Node) => isFunctionNode(unwrap(n)) && file.callsIn(unwrap(n)).next().done === true;
    return found.every((c) => {
      const p = c.parent;
      return p?.type === T.ConditionalExpression && p.test === c && predicate(p.consequent) && predicate(p.alternate);
    });
  }

  /** Whether the function around `call` reads a request's `method` (`req.method === 'GET'`). */
  function checksMethod(call: TSESTree.CallExpression): boolean {
    const fn = enclosingFunction(call);
    return !!fn && readsMethod(rangeOf(ctx.nodesOfType(T.MemberExpression), fn), fn);
  }

  /** The static, upper-cased `method` of an options object; the fallback when absent; undefined when unknown. */
  function methodOption(node: Node | undefined, fallback: string): string | undefined {
    if (!node) return fallback;
    const view = ctx.options(node);
    if (view.state === 'absent') return fallback;
    if (view.state === 'unknown') return undefined;
    const v = view.get('method');
    // A method written before the caller's options (or in the defaults they fall back to) is what
    // a call passing none sends: a write there is one; a read (or none written) may be replaced by
    // whatever a caller passes, so it is not known.
    if ((v.beforeCallerOptions || v.fallbackDefault) && !(typeof v.value === 'string' && kindOfMethod(v.value.toUpperCase()) === 'write')) return undefined;
    if (!v.property && v.value === undefined) return fallback;
    if (typeof v.value === 'string') return v.value.toUpperCase();
    return v.valueNode ? chosenMethod(v.valueNode) : undefined;
  }

  /**
   * `method: data ? 'POST' : 'GET'`: a method chosen between written ones sends each of them some
   * time; the request is judged by the one that repeats worst (a write over an idempotent write
   * over a read). Undefined unless every branch is a known method.
   */
  function chosenMethod(node: Node, depth = 0): string | undefined {
    const n = unwrap(node);
    if (n.type !== T.ConditionalExpression || depth > 3) {
      const value = ctx.evaluator.evaluate(n);
      return typeof value === 'string' && /^[A-Za-z]+$/.test(value) ? value.toUpperCase() : undefined;
    }
    const both = [chosenMethod(n.consequent, depth + 1), chosenMethod(n.alternate, depth + 1)];
    if (both.some((m) => m === undefined)) return undefined;
    return worstMethod(both as string[]);
  }

  function clientOf(call: TSESTree.CallExpression): ClientRef | undefined {
    const callee = unwrap(call.callee);
    const global = callee.type === T.Identifier ? index.byGlobal.get(callee.name) : undefined;
    if (global && callee.type === T.Identifier && !ctx.imports.resolve(callee)) {
      // A `fetch` the file declares itself is its own function, not the global.
      return findVariable(ctx.evaluator.scopeOf(callee), callee.name)?.defs.length ? undefined : { library: global, facet: global.http!, entry: callee.name };
    }
    // Chains such as `superagent.post(url).set(...).send(body)`: the root call decides.
    let target: Node = callee;
    while (target.type === T.MemberExpression && target.object.type === T.CallExpression) {
      target = unwrap(target.object.callee);
    }
    // `request[action](route)`: the client itself (the module or an instance), its member chosen at run time.
    if (target.type === T.MemberExpression && target.computed) {
      const base = unwrap(target.object);
      const ref = ctx.imports.resolve(base) ?? instanceOf(base);
      const library = ref && (ref.path === 'default' || ref.path === 'module') ? index.byModule.get(ref.module) : undefined;
      const named = library && (library.http!.method === 'members' || library.http!.method === 'chained');
      return named && target === callee ? { library, facet: library.http!, entry: 'chosen', chosen: target.property } : undefined;
    }
    const direct = ctx.imports.resolve(target);
    const ref = (direct && index.byModule.has(direct.module) ? direct : undefined) ?? instanceOf(target);
    const library = ref && index.byModule.get(ref.module);
    if (!ref || !library) return undefined;
    const facet = library.http!;
    const entry = ref.path === 'default' || ref.path === 'module' ? 'default' : ref.path.split('.').pop() ?? ref.path;
    const named = facet.method === 'members' || facet.method === 'chained';
    // Only the chain's root call is the request: `got(url).json()`, `.send()` and `.set()` are the same request.
    if (target !== callee && named) return undefined;
    if (named && HTTP_METHOD_MEMBERS.has(entry)) return { library, facet, entry, method: methodOfMember(entry) };
    return facet.senders.includes(entry) ? { library, facet, entry } : undefined;
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
    const factory = init.type === T.CallExpression ? ctx.imports.resolve(init.callee) ?? instanceOf(unwrap(init.callee)) : init === base ? importedFactory(base) : undefined;
    if (!factory || !/(?:^|\.)(create|extend)$/.test(factory.path)) return undefined;
    return { module: factory.module, path: path.length ? path.join('.') : 'default' };
  }

  /** `import { instance } from './instance'` where that file exports `axios.create(...)`: the factory called there. */
  function importedFactory(id: TSESTree.Identifier): { module: string; path: string } | undefined {
    const value = imported?.(id);
    const init = value && unwrap(value.node);
    if (init?.type !== T.CallExpression) return undefined;
    const ref = value!.ctx.imports.resolve(unwrap(init.callee));
    return ref && index.byModule.has(ref.module) ? ref : undefined;
  }

  function callsIn(scope: Node): HttpCall[] {
    const out: HttpCall[] = [];
    let throwsOnNotOk: boolean | undefined;
    for (const call of file.callsIn(scope)) {
      const client = clientOf(call);
      const sent = client
        ? { client: client.library.id, throwsOnClientError: client.facet.throwsOnClientError, nonThrowingOptions: client.facet.nonThrowingOptions, statusAcceptedOption: client.facet.statusAcceptedOption }
        : receivers.requestOf(call);
      if (!sent) continue;
      // A client that does not reject on 4xx leaves it to the code: `if (!res.ok) throw ...`.
      const throws = sent.throwsOnClientError
        ? !disablesThrowing(call, sent.nonThrowingOptions ?? index.anyNonThrowing, sent.statusAcceptedOption)
        : (throwsOnNotOk ??= throwsOnStatus(scope) || operatorsBeforeRetry(scope).some(throwsOnStatus));
      out.push({ node: call, client: sent.client, throwsOnClientError: throws });
    }
    return out;
  }

  /**
   * An observable resubscribed by a retry operator further down its pipe: the operators between
   * them (`fromFetch(url).pipe(switchMap((res) => { if (!res.ok) throw ... }), retry(1))`) run on
   * every attempt, so a throw on `!res.ok` there makes the 4xx an error the retry sees.
   */
  function operatorsBeforeRetry(source: Node): Node[] {
    const member = source.parent;
    if (member?.type !== T.MemberExpression || member.object !== source || memberName(member) !== 'pipe') return [];
    const pipe = member.parent;
    if (pipe?.type !== T.CallExpression || pipe.callee !== member) return [];
    const out: Node[] = [];
    for (const arg of pipe.arguments) {
      const callee = arg.type === T.CallExpression ? unwrap(arg.callee) : undefined;
      const name = callee?.type === T.Identifier ? callee.name : callee && memberName(callee);
      if (name === 'retry' || name === 'retryWhen') break;
      out.push(arg);
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

  /**
   * A call of a client that is itself a function (`const f = fetchBuilder(fetch)`, `got.extend()`):
   * `f(url, { method: 'POST' })` sends that method, GET when none is written.
   */
  function callThroughClient(call: TSESTree.CallExpression): HttpRequest {
    const first = call.arguments[0];
    const config = first && (unwrap(first).type === T.ObjectExpression || ctx.evaluator.resolve(first).type === T.ObjectExpression) ? first : call.arguments[1];
    return { client: 'client', method: methodOption(config, 'GET') };
  }

  /**
   * An option written on the call that stops the client from rejecting on 4xx (`throwHttpErrors:
   * false`, `validateStatus`). A status predicate (`validateStatus: (s) => s === 200 || s === 422`)
   * that is false for some 4xx leaves the call rejecting on those; one that cannot be read counts
   * as stopping it.
   */
  function disablesThrowing(call: TSESTree.CallExpression, options: readonly string[], statusAccepted: string | undefined): boolean {
    for (const a of call.arguments) {
      if (a.type !== T.ObjectExpression) continue;
      for (const p of a.properties) {
        if (p.type !== T.Property || p.computed || p.key.type !== T.Identifier || !options.includes(p.key.name)) continue;
        if (p.key.name === statusAccepted && rejectsSomeClientError(p.value)) continue;
        return true;
      }
    }
    return false;
  }

  /** Whether a status predicate is false (the response rejects) for some 4xx that cannot succeed on retry. */
  function rejectsSomeClientError(value: Node): boolean {
    const fn = functionOf(value, ctx);
    const param = fn?.params[0];
    if (!fn || param?.type !== T.Identifier) return false;
    const variable = parameterVariable(ctx.sourceCode, fn, param);
    const returned = returnOf(fn);
    if (!variable || !returned) return false;
    for (let status = 400; status <= 499; status++) {
      if (!isNonRetryableClientError(status)) continue;
      const env: Env = { ...STATIC_ENV, lookup: (v) => (v === variable ? status : FREE) };
      if (truth(evalReturn(returned, (n) => ctx.evaluator.evaluateIn(n, env))) === false) return true;
    }
    return false;
  }

  return { requestOf, callsIn, callThroughClient, methodParameterOf: (value) => methodParameterOf(ctx, value) };
}

/** A request's whole init object when it is a parameter of the function sending it, never written: where its `method` comes from. */
function wholeInitParameter(ctx: FileFacts['ctx'], options: Node): MethodParameter | undefined {
  const n = unwrap(options);
  if (n.type !== T.Identifier) return undefined;
  const v = ctx.evaluator.variableOf(n);
  if (!v || v.references.some((r) => r.isWrite() && !r.init)) return undefined;
  const at = parameterPosition(v);
  const target = at && (at.param.type === T.AssignmentPattern ? at.param.left : at.param);
  return at && target?.type === T.Identifier ? { fn: at.fn, index: at.index, key: 'method' } : undefined;
}

/**
 * The parameter a method value comes from: `method` itself a parameter, or `options.method` with
 * `options` one (MethodParameter).
 */
function methodParameterOf(ctx: FileFacts['ctx'], value: Node): MethodParameter | undefined {
  let n = unwrap(value);
  if (n.type === T.CallExpression && n.arguments.length === 0 && /^to(?:Upper|Lower)Case$/.test(memberName(n.callee) ?? '')) n = unwrap((unwrap(n.callee) as TSESTree.MemberExpression).object);
  let key: string | undefined;
  if (n.type === T.MemberExpression) {
    key = propertyKey(n, () => undefined);
    n = unwrap(n.object);
    if (key === undefined) return undefined;
  }
  if (n.type !== T.Identifier) return undefined;
  const v = ctx.evaluator.variableOf(n);
  if (v?.references.some((r) => r.isWrite() && !r.init)) return undefined;
  const at = parameterPosition(v);
  return at && at.param.type === T.Identifier ? { fn: at.fn, index: at.index, key } : undefined;
}
