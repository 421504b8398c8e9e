/**
 * What a retry site repeats: the operations inside its retried function (or sent through its
 * client), whether each is a read or a write, the idempotency key it carries and whether that
 * key survives from one attempt to the next. Computed lazily per site, cached with the model.
 */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import type { AnalysisContext } from './library.js';
import { functionOf, isFunctionNode } from './library.js';
import type { Execution, Node, RetrySite } from './model.js';
import type { SafeRetrySettings } from './settings.js';
import { findVariable, propertyKey, staticPropertyName, unwrap } from './static-value.js';
import { createDeclarationReader, typeAwareServices } from './type-aware.js';

type Variable = TSESLint.Scope.Variable;

export type OperationKind = 'read' | 'idempotent-write' | 'write' | 'unknown';

export interface IdempotencyKey {
  /** The property that carries the key (`'Idempotency-Key': key`, `idempotencyKey: key`). */
  readonly node: Node;
  /** Its value expression. */
  readonly value: Node;
  /** `fresh`: a new value on every attempt; `stable`: provably the same; `unknown` otherwise. */
  readonly stability: 'stable' | 'fresh' | 'unknown';
  /** The expression that makes it new per attempt (`randomUUID()`, `Date.now()`, the attempt number). */
  readonly freshSource?: Node | undefined;
}

export interface Operation {
  /** The call a person sees inside the retry. */
  readonly node: TSESTree.CallExpression | TSESTree.NewExpression;
  readonly label: string;
  readonly kind: OperationKind;
  /** How the kind was decided. */
  readonly evidence: 'http' | 'sdk' | 'verb' | 'jsdoc' | 'settings';
  readonly method?: string | undefined;
  readonly key?: IdempotencyKey | undefined;
  /** The SDK makes its own key per call (Stripe, AWS); an outer retry makes a new call, so a new key. */
  readonly autoKey?: string | undefined;
}

export interface HttpCall {
  readonly node: TSESTree.CallExpression;
  /** `axios`, `got`, `ky`, `superagent`, `ofetch`, `fetch`. */
  readonly client: string;
  /** True when the call rejects on a 4xx response by itself, or the code throws on `!res.ok`. */
  readonly throwsOnClientError: boolean;
}

export interface OperationGroup {
  /** The retried function, loop or recursive function; undefined for calls through a client. */
  readonly scope: Node | undefined;
  readonly execution?: Execution | undefined;
  /** A key given to the retry engine itself (the runtime's `write({ idempotencyKey })`). */
  readonly engineKey?: IdempotencyKey | undefined;
  readonly operations: readonly Operation[];
}

/** Another retry layer under this one. */
export interface NestedRetry {
  readonly node: Node;
  readonly label: string;
  readonly attempts: number;
  /** The site of the inner layer, when it is one of this file's retry sites. */
  readonly site?: RetrySite | undefined;
}

export interface OperationFacts {
  readonly fn: TSESTree.FunctionLike | undefined;
  readonly httpCalls: readonly HttpCall[];
  readonly groups: readonly OperationGroup[];
  readonly nested: readonly NestedRetry[];
}

export interface OperationAnalysis {
  facts(site: RetrySite): OperationFacts;
  /** The retry sites whose configuration makes `call`'s client retry (axios-retry on `api`, `new S3Client`). */
  clientSitesOf(call: Node): readonly RetrySite[];
  /** Whether a circuit breaker is composed with the site (cockatiel wrap, runtime `breaker`, opossum). */
  breakerOf(site: RetrySite): Node | undefined;
}

const DEFAULT_READ_VERBS = ['get', 'fetch', 'find', 'list', 'read', 'load', 'search', 'query', 'head', 'describe', 'retrieve', 'lookup', 'count', 'exists', 'download', 'resolve', 'check', 'poll', 'select', 'scan', 'peek', 'show'];
const DEFAULT_WRITE_VERBS = ['create', 'send', 'charge', 'pay', 'register', 'submit', 'insert', 'post', 'transfer', 'save', 'upsert', 'publish', 'refund', 'capture', 'book', 'reserve', 'place', 'purchase', 'withdraw', 'deposit', 'enqueue', 'notify', 'email', 'sms', 'increment', 'decrement', 'issue', 'confirm', 'approve', 'dispatch', 'ship', 'order', 'checkout', 'invite', 'mint', 'debit', 'credit', 'patch', 'update'];

/** Names whose verb reads like a write but that build local objects or wire events. */
const NOT_OPERATIONS = /(?:^|\.)(?:create|make|build|new)(?:[A-Z]\w*)?(?:Error|Exception|Hash|Hmac|Cipher|Element|Context|Logger|Signal|Controller|Instance|Buffer|Stream|Reader|Writer|Parser|Proxy|Agent|Pool|Headers|Url|URL|Id|Timer|Timeout|Promise|Deferred|Options|Config)$|Listener$|Handler$/;
const IDEMPOTENT_VERBS = ['put', 'delete', 'remove', 'set', 'replace', 'del', 'destroy', 'cancel', 'void', 'revoke', 'unsubscribe', 'disable', 'enable'];

const HTTP_READ = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'QUERY']);
const HTTP_IDEMPOTENT = new Set(['PUT', 'DELETE']);

const DEFAULT_KEY_NAMES = ['idempotency-key', 'x-idempotency-key', 'idempotency_key', 'idempotencykey', 'clienttoken', 'clientrequesttoken'];

/** Clients whose promise rejects on any 4xx/5xx status unless told otherwise. */
const THROWING_CLIENTS = new Set(['axios', 'got', 'ky', 'superagent', 'ofetch']);
const FETCH_MODULES = new Set(['node-fetch', 'undici', 'cross-fetch', 'isomorphic-fetch']);
const HTTP_METHOD_NAMES = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'del']);

/** Generators whose every call returns a new value. */
const FRESH_EXPORTS: Record<string, readonly string[]> = {
  crypto: ['randomUUID', 'randomBytes', 'randomInt', 'getRandomValues'],
  uuid: ['v1', 'v4', 'v6', 'v7', 'default'],
  nanoid: ['nanoid', 'default'],
  'nanoid/non-secure': ['nanoid'],
  ulid: ['ulid', 'monotonicFactory', 'default'],
  ulidx: ['ulid'],
  cuid: ['default', 'module'],
  '@paralleldrive/cuid2': ['createId'],
  'short-uuid': ['generate'],
  hyperid: ['default', 'module'],
  'eslint-plugin-safe-retry/runtime': ['idempotencyKey.random'],
};
const FRESH_GLOBALS = new Set(['Date.now', 'performance.now', 'Math.random', 'crypto.randomUUID', 'crypto.getRandomValues', 'process.hrtime', 'process.hrtime.bigint']);

const STRIPE_WRITE = /^(create|update|confirm|capture|pay|finalize|send|void|cancel|refund|attach|detach|apply|verify|reject|approve|close|reopen|mark|accept|increment|decrement|submit|reverse|expire|resume|pause|del)/;
const STRIPE_READ = /^(retrieve|list|search|preview)/;
const AWS_WRITE = /^(Put|Create|Send|Update|Start|Publish|Post|Invoke|Write|Copy|Upload|Complete|Add|Register|Run|Execute|Batch(?!Get)|Transact(?!Get)|Import|Attach|Associate|Modify|Increment|Restore|Tag|Untag|Enable|Disable|Set|Reset|Request|Submit|Send)/;
const AWS_IDEMPOTENT = /^(Delete|Remove|Stop|Terminate|Cancel|Abort|Detach|Disassociate|Deregister|Purge)/;
const AWS_READ = /^(Get|List|Describe|Query|Scan|Head|Select|BatchGet|TransactGet|Lookup|Search|Check|Validate|Estimate|Preview|Download|Receive|Test)/;

/** The verbs, functions and key names that classify operations: the defaults plus the settings. */
interface Vocabulary {
  readonly readVerbs: ReadonlySet<string>;
  readonly writeVerbs: ReadonlySet<string>;
  readonly readFunctions: ReadonlySet<string>;
  readonly writeFunctions: ReadonlySet<string>;
  readonly keyNames: ReadonlySet<string>;
}

function buildVocabulary(settings: SafeRetrySettings): Vocabulary {
  const readVerbs = new Set([...DEFAULT_READ_VERBS, ...(settings.readVerbs ?? [])].map((v) => v.toLowerCase()));
  const writeVerbs = new Set([...DEFAULT_WRITE_VERBS, ...(settings.writeVerbs ?? [])].map((v) => v.toLowerCase()));
  for (const v of settings.readVerbs ?? []) writeVerbs.delete(v.toLowerCase());
  return {
    readVerbs,
    writeVerbs,
    readFunctions: new Set(settings.readFunctions ?? []),
    writeFunctions: new Set(settings.writeFunctions ?? []),
    keyNames: new Set([...DEFAULT_KEY_NAMES, ...(settings.idempotencyHeaders ?? []).map((h) => h.toLowerCase())]),
  };
}

export function createOperationAnalysis(
  ctx: AnalysisContext,
  sites: () => readonly RetrySite[],
  settings: SafeRetrySettings,
  attemptParameterOf: (library: string) => { index: number; property?: string } | undefined,
): OperationAnalysis {
  const cache = new WeakMap<RetrySite, OperationFacts>();
  // Built on the first question about a site: most files have no retry site and never ask.
  let vocabulary: Vocabulary | undefined;
  const words = () => (vocabulary ??= buildVocabulary(settings));
  let clientMap: Map<Variable, RetrySite[]> | undefined;
  const services = settings.typeAware ? typeAwareServices(ctx.sourceCode) : undefined;
  const declarationOf = services ? createDeclarationReader(services) : undefined;

  function facts(site: RetrySite): OperationFacts {
    let f = cache.get(site);
    if (!f) {
      f = compute(site);
      cache.set(site, f);
    }
    return f;
  }

  function compute(site: RetrySite): OperationFacts {
    const groups: OperationGroup[] = [];
    let fn: TSESTree.FunctionLike | undefined;
    if (site.executions?.length) {
      for (const execution of site.executions) {
        const scope = functionOf(execution.operation, ctx);
        groups.push({
          scope,
          execution,
          engineKey: execution.method === 'write' ? engineKeyOf(execution, scope) : undefined,
          operations: scope ? operationsIn(scope, attemptVariables(site, scope)) : [],
        });
      }
      fn = groups[0]?.scope as TSESTree.FunctionLike | undefined;
    } else if (site.clientLevel) {
      groups.push({ scope: undefined, operations: callsThroughClient(site).map((c) => classify(c, new Set(), undefined, 0)).filter(isOperation) });
    } else {
      const scope = scopeOf(site);
      if (scope) {
        fn = isFunctionNode(scope) ? scope : undefined;
        groups.push({ scope, operations: operationsIn(scope, attemptVariables(site, scope)) });
      }
    }
    const scopes = groups.map((g) => g.scope).filter((s): s is Node => !!s);
    return { fn, httpCalls: scopes.flatMap(httpCallsIn), groups, nested: scopes.flatMap((s) => nestedIn(site, s)) };
  }

  function scopeOf(site: RetrySite): Node | undefined {
    const fn = functionOf(site.operation, ctx);
    if (fn) return fn;
    if (site.library === 'hand-written') return site.node;
    return undefined;
  }

  /** Variables whose value differs on every attempt: the attempt-number parameter, loop counters. */
  function attemptVariables(site: RetrySite, scope: Node): Set<Variable> {
    const out = new Set<Variable>();
    const param = attemptParameterOf(site.library);
    if (param && isFunctionNode(scope)) {
      const p = scope.params[param.index];
      const target = p?.type === T.AssignmentPattern ? p.left : p;
      if (target?.type === T.Identifier && !param.property) addDeclared(target, out);
      else if (target?.type === T.ObjectPattern && param.property) {
        for (const prop of target.properties) {
          if (prop.type === T.Property && staticPropertyName(prop) === param.property) {
            const value = prop.value.type === T.AssignmentPattern ? prop.value.left : prop.value;
            if (value.type === T.Identifier) addDeclared(value, out);
          }
        }
      }
    }
    if (site.library === 'hand-written') {
      // Counters: anything the loop (or the recursion) updates from one attempt to the next.
      for (const kind of [T.UpdateExpression, T.AssignmentExpression] as const) {
        for (const n of ctx.nodesOfType(kind)) {
          if (!inside(scope, n)) continue;
          const target = n.type === T.UpdateExpression ? n.argument : n.left;
          if (target.type !== T.Identifier) continue;
          const v = findVariable(ctx.evaluator.scopeOf(target), target.name);
          if (v) out.add(v);
        }
      }
      if (scope.type === T.ForStatement && scope.init?.type === T.VariableDeclaration) {
        for (const d of scope.init.declarations) if (d.id.type === T.Identifier) addDeclared(d.id, out);
      }
      if (isFunctionNode(scope)) for (const p of scope.params) if (p.type === T.Identifier) addDeclared(p, out);
    }
    return out;
  }

  function addDeclared(id: TSESTree.Identifier, out: Set<Variable>) {
    const v = findVariable(ctx.evaluator.scopeOf(id), id.name);
    if (v) out.add(v);
  }

  function operationsIn(scope: Node, attemptVars: Set<Variable>): Operation[] {
    const out: Operation[] = [];
    for (const type of [T.CallExpression, T.NewExpression] as const) {
      for (const call of rangeOf(ctx.nodesOfType(type), scope)) {
        const op = classify(call, attemptVars, scope, 0);
        if (op) out.push(op);
      }
    }
    return out.sort((a, b) => a.node.range[0] - b.node.range[0]);
  }

  function classify(
    call: TSESTree.CallExpression | TSESTree.NewExpression,
    attemptVars: Set<Variable>,
    scope: Node | undefined,
    depth: number,
  ): Operation | undefined {
    if (call.type === T.NewExpression) return undefined; // constructors build requests; the call sends them
    const http = httpMethodOf(call);
    const label = labelOf(call);
    const key = () => keyOf(call, attemptVars, scope);
    if (http) {
      return { node: call, label: http.method && http.method !== 'GET' && !/\.(post|put|patch|delete|del)\(/i.test(label) ? `${label} (${http.method})` : label, kind: kindOfMethod(http.method), evidence: 'http', method: http.method, key: key() };
    }
    const sdk = sdkOperation(call);
    if (sdk) return { node: call, label, kind: sdk.kind, evidence: 'sdk', key: key(), autoKey: sdk.autoKey };
    const name = calleeText(call.callee);
    if (name && words().writeFunctions.has(name)) return { node: call, label, kind: 'write', evidence: 'settings', key: key() };
    if (name && words().readFunctions.has(name)) return { node: call, label, kind: 'read', evidence: 'settings' };
    if (declarationOf && depth === 0) {
      const decl = declarationOf(call.callee);
      if (decl?.idempotent) return { node: call, label, kind: 'read', evidence: 'jsdoc' };
      if (decl && decl.methods.length > 0) {
        const kinds = decl.methods.map(kindOfMethod);
        const kind = kinds.includes('write') ? 'write' : kinds.includes('idempotent-write') ? 'idempotent-write' : 'read';
        const method = decl.methods.find((m) => kindOfMethod(m) === kind);
        return { node: call, label: kind === 'read' ? label : `${label} (${method})`, kind, evidence: 'http', method, key: key() };
      }
    }
    const local = localFunction(call.callee);
    if (local) {
      if (isMarkedIdempotent(local)) return { node: call, label, kind: 'read', evidence: 'jsdoc' };
      if (depth < 2) {
        // Follow the team's own helper one or two levels: its body decides.
        const inner = operationsInFunction(local, depth + 1);
        const worst = inner.find((o) => o.kind === 'write') ?? inner.find((o) => o.kind === 'idempotent-write');
        if (worst) {
          const innerKey = worst.key;
          const outerKey = innerKey ? mapKeyToCall(innerKey, local, call, attemptVars, scope) : key();
          return { node: call, label: `${label} (${worst.label})`, kind: worst.kind, evidence: worst.evidence, method: worst.method, key: outerKey, autoKey: worst.autoKey };
        }
        if (inner.length > 0 && inner.every((o) => o.kind === 'read')) return { node: call, label, kind: 'read', evidence: inner[0]!.evidence };
      }
    }
    // A verb is weak evidence: trust it only for a call made right in the retried code whose
    // promise the code waits on (remote operations are awaited; createHash() and
    // addEventListener() are not), never inside helpers followed from there.
    if (depth > 0 || !awaited(call) || NOT_OPERATIONS.test(name ?? '')) return undefined;
    const verb = verbOf(call.callee);
    if (!verb) return undefined;
    if (words().writeVerbs.has(verb)) return { node: call, label, kind: 'write', evidence: 'verb', key: key() };
    if (IDEMPOTENT_VERBS.includes(verb)) return { node: call, label, kind: 'idempotent-write', evidence: 'verb', key: key() };
    if (words().readVerbs.has(verb)) return { node: call, label, kind: 'read', evidence: 'verb' };
    return undefined;
  }

  function operationsInFunction(fn: TSESTree.FunctionLike, depth: number): Operation[] {
    const out: Operation[] = [];
    for (const call of rangeOf(ctx.nodesOfType(T.CallExpression), fn)) {
      const op = classify(call, new Set(), fn, depth);
      if (op) out.push(op);
    }
    return out;
  }

  /** A key a helper reads from its parameter takes its stability from the argument passed in. */
  function mapKeyToCall(key: IdempotencyKey, fn: TSESTree.FunctionLike, call: TSESTree.CallExpression, attemptVars: Set<Variable>, scope: Node | undefined): IdempotencyKey {
    if (key.stability === 'fresh') return { ...key, freshSource: key.freshSource };
    const value = unwrap(key.value);
    if (value.type !== T.Identifier) return key;
    const index = fn.params.findIndex((p) => p.type === T.Identifier && p.name === value.name);
    const arg = index >= 0 ? call.arguments[index] : undefined;
    if (!arg || arg.type === T.SpreadElement) return key;
    const fresh = freshness(arg, attemptVars, scope, 0);
    return { node: key.node, value: arg, ...fresh };
  }

  function engineKeyOf(execution: Execution, scope: Node | undefined): IdempotencyKey | undefined {
    const view = ctx.options(execution.options);
    const found = view.get('idempotencyKey');
    if (!found.property || !found.valueNode) return undefined;
    return { node: found.property, value: found.valueNode, ...freshness(found.valueNode, new Set(), scope, 0) };
  }

  // ---------------------------------------------------------------- HTTP

  function httpMethodOf(call: TSESTree.CallExpression): { client: string; method: string | undefined } | undefined {
    const callee = unwrap(call.callee);
    // Octokit and similar: request('POST /repos/{owner}/{repo}/issues').
    if (callee.type === T.MemberExpression && !callee.computed && callee.property.type === T.Identifier && callee.property.name === 'request') {
      const route = ctx.evaluator.evaluate(call.arguments[0]);
      const m = typeof route === 'string' ? /^([A-Z]+)\s+\//.exec(route) : null;
      if (m) return { client: 'octokit', method: m[1] };
    }
    const client = httpClientOf(call);
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

  interface ClientRef { module: string; kind: 'fetch' | 'node-http' | 'superagent' | 'library'; path: string; method?: string | undefined }

  function httpClientOf(call: TSESTree.CallExpression): ClientRef | undefined {
    const callee = unwrap(call.callee);
    if (callee.type === T.Identifier && callee.name === 'fetch' && !ctx.imports.resolve(callee)) {
      return findVariable(ctx.evaluator.scopeOf(callee), 'fetch')?.defs.length ? undefined : { module: 'fetch', kind: 'fetch', path: 'fetch' };
    }
    // Chains such as `superagent.post(url).set(...).send(body)`: the root call decides.
    let target: Node = callee;
    let chainMethod: string | undefined;
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
      if (target !== callee && callee.type === T.MemberExpression) {
        // Only the chain's root call carries the method; later links (.send, .set) are the same request.
        if (unwrap(call.callee) !== target) return undefined;
      }
      if (HTTP_METHOD_NAMES.has(last)) chainMethod = last === 'del' ? 'DELETE' : last.toUpperCase();
      else if (ref.path === 'default' || ref.path === 'module') {
        const m = ctx.evaluator.evaluate(call.arguments[0]);
        chainMethod = typeof m === 'string' && /^[A-Za-z]+$/.test(m) && call.arguments.length > 1 ? m.toUpperCase() : 'GET';
      } else return undefined;
      return { module, kind: 'superagent', path: last, method: chainMethod };
    }
    if (!THROWING_CLIENTS.has(module)) return undefined;
    if (target !== callee) return undefined; // `got(url).json()`: the inner call is the request
    if (HTTP_METHOD_NAMES.has(last)) return { module, kind: 'library', path: last, method: last === 'del' ? 'DELETE' : last.toUpperCase() };
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

  function httpCallsIn(scope: Node): HttpCall[] {
    const out: HttpCall[] = [];
    let throwsOnNotOk: boolean | undefined;
    for (const call of rangeOf(ctx.nodesOfType(T.CallExpression), scope)) {
      const client = httpClientOf(call);
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

  // ---------------------------------------------------------------- SDKs

  function sdkOperation(call: TSESTree.CallExpression): { kind: OperationKind; autoKey?: string } | undefined {
    const callee = unwrap(call.callee);
    if (callee.type !== T.MemberExpression) return undefined;
    const method = propertyKey(callee, () => undefined);
    if (!method) return undefined;
    // AWS SDK v3: client.send(new PutObjectCommand(input)).
    if (method === 'send') {
      const arg = call.arguments[0] ? unwrap(call.arguments[0]) : undefined;
      const command = arg?.type === T.NewExpression ? arg : arg?.type === T.Identifier ? ctx.evaluator.resolve(arg) : undefined;
      if (command?.type === T.NewExpression) {
        const ref = ctx.imports.resolve(command.callee);
        if (ref && (ref.module.startsWith('@aws-sdk/') || ref.module.startsWith('@smithy/'))) {
          const name = ref.path.replace(/Command$/, '');
          const kind: OperationKind = AWS_READ.test(name) ? 'read' : AWS_IDEMPOTENT.test(name) ? 'idempotent-write' : AWS_WRITE.test(name) ? 'write' : 'unknown';
          return { kind, autoKey: kind === 'write' ? 'aws' : undefined };
        }
      }
    }
    // Stripe: stripe.paymentIntents.create(params, { idempotencyKey }).
    let root: Node = callee;
    while (root.type === T.MemberExpression) root = unwrap(root.object);
    if (root.type === T.Identifier || root.type === T.ThisExpression) {
      const init = root.type === T.Identifier ? ctx.evaluator.resolve(root) : undefined;
      const ctor = init?.type === T.NewExpression || init?.type === T.CallExpression ? ctx.imports.resolve(init.callee) : undefined;
      if (ctor?.module === 'stripe') {
        if (STRIPE_READ.test(method)) return { kind: 'read' };
        if (method === 'del') return { kind: 'idempotent-write' };
        if (STRIPE_WRITE.test(method)) return { kind: 'write', autoKey: 'stripe' };
        return { kind: 'unknown' };
      }
    }
    return undefined;
  }

  // ---------------------------------------------------------------- keys

  function keyOf(call: TSESTree.CallExpression, attemptVars: Set<Variable>, scope: Node | undefined): IdempotencyKey | undefined {
    const found = findKeyProperty(call.arguments, 0, new Set());
    if (!found) return undefined;
    return { node: found.property, value: found.value, ...freshness(found.value, attemptVars, scope, 0) };
  }

  function findKeyProperty(nodes: readonly Node[], depth: number, seen: Set<Node>): { property: Node; value: Node } | undefined {
    if (depth > 6) return undefined;
    for (const raw of nodes) {
      const node = unwrap(raw);
      if (seen.has(node)) continue;
      seen.add(node);
      switch (node.type) {
        case T.ObjectExpression:
          for (const p of node.properties) {
            if (p.type === T.SpreadElement) {
              const r = findKeyProperty([p.argument], depth + 1, seen);
              if (r) return r;
              continue;
            }
            const name = staticPropertyName(p);
            if (name !== undefined && words().keyNames.has(name.toLowerCase()) && p.kind === 'init') return { property: p, value: p.value as Node };
            if (!isFunctionNode(p.value as Node)) {
              const r = findKeyProperty([p.value as Node], depth + 1, seen);
              if (r) return r;
            }
          }
          break;
        case T.Identifier: {
          const resolved = ctx.evaluator.resolve(node);
          if (resolved !== node) {
            const r = findKeyProperty([resolved], depth + 1, seen);
            if (r) return r;
          }
          break;
        }
        case T.CallExpression:
        case T.NewExpression: {
          // JSON.stringify({ idempotency_key }), new Headers({...}), new PutCommand({ ClientToken }).
          const r = findKeyProperty(node.arguments.filter((a) => a.type !== T.SpreadElement) as Node[], depth + 1, seen);
          if (r) return r;
          // headers.set('Idempotency-Key', key) is handled by the caller's statements, not here.
          break;
        }
        case T.ArrayExpression: {
          // [['Idempotency-Key', key]] as a headers init.
          for (const el of node.elements) {
            const e = el && unwrap(el);
            if (e?.type === T.ArrayExpression && e.elements.length === 2 && e.elements[0] && e.elements[1]) {
              const name = ctx.evaluator.evaluate(e.elements[0]);
              if (typeof name === 'string' && words().keyNames.has(name.toLowerCase())) return { property: e, value: e.elements[1] as Node };
            }
          }
          break;
        }
        default:
          break;
      }
    }
    return undefined;
  }

  /**
   * Whether a key expression gets a new value on every attempt. Only provable sources count:
   * random/time generators and the attempt counter, reached through locals and string building.
   */
  function freshness(raw: Node, attemptVars: Set<Variable>, scope: Node | undefined, depth: number): Pick<IdempotencyKey, 'stability' | 'freshSource'> {
    // Calls through a retrying client: the client re-sends the request it was given, key included.
    if (!scope) return { stability: 'stable' };
    // Evaluated outside the retried code (the runtime's write options): once per call, not per attempt.
    if (!inside(scope, raw)) return { stability: 'stable' };
    const fresh = freshSourceOf(raw, attemptVars, scope, depth, new Set());
    if (fresh) return { stability: 'fresh', freshSource: fresh };
    if (scope && !inside(scope, raw)) return { stability: 'stable' };
    return { stability: 'unknown' };
  }

  function freshSourceOf(raw: Node, attemptVars: Set<Variable>, scope: Node | undefined, depth: number, seen: Set<Node>): Node | undefined {
    if (depth > 12 || seen.has(raw)) return undefined;
    seen.add(raw);
    const node = unwrap(raw);
    const recurse = (n: Node | null | undefined) => (n ? freshSourceOf(n, attemptVars, scope, depth + 1, seen) : undefined);
    switch (node.type) {
      case T.CallExpression: {
        if (isFreshGenerator(node.callee)) return node;
        // uuid v3/v5 and other derivations are fresh only if fed something fresh.
        for (const a of node.arguments) {
          const r = recurse(a);
          if (r) return r;
        }
        const callee = unwrap(node.callee);
        return callee.type === T.MemberExpression ? recurse(callee.object) : undefined;
      }
      case T.NewExpression: {
        const callee = unwrap(node.callee);
        if (callee.type === T.Identifier && callee.name === 'Date' && node.arguments.length === 0 && !findVariable(ctx.evaluator.scopeOf(callee), 'Date')?.defs.length) return node;
        for (const a of node.arguments) {
          const r = recurse(a);
          if (r) return r;
        }
        return undefined;
      }
      case T.TemplateLiteral:
        for (const e of node.expressions) {
          const r = recurse(e);
          if (r) return r;
        }
        return undefined;
      case T.BinaryExpression:
        return recurse(node.left as Node) ?? recurse(node.right);
      case T.LogicalExpression:
        return recurse(node.left) ?? recurse(node.right);
      case T.ConditionalExpression:
        return recurse(node.consequent) ?? recurse(node.alternate);
      case T.MemberExpression:
        return recurse(node.object);
      case T.AwaitExpression:
        return recurse(node.argument);
      case T.Identifier: {
        const v = findVariable(ctx.evaluator.scopeOf(node), node.name);
        if (!v) return undefined;
        if (attemptVars.has(v)) return node;
        // A binding made inside the retried code (or assigned there) is re-made on every attempt.
        for (const def of v.defs) {
          if (def.type !== 'Variable') continue;
          const decl = def.node as TSESTree.VariableDeclarator;
          if (scope && !inside(scope, decl)) continue;
          if (decl.init && decl.id.type === T.Identifier) {
            const r = recurse(decl.init);
            if (r) return r;
          } else if (decl.init && decl.id.type === T.ObjectPattern) {
            const r = recurse(decl.init);
            if (r) return r;
          }
        }
        for (const ref of v.references) {
          if (!ref.isWrite() || !ref.writeExpr) continue;
          if (scope && !inside(scope, ref.identifier as Node)) continue;
          const r = recurse(ref.writeExpr as Node);
          if (r) return r;
        }
        return undefined;
      }
      default:
        return undefined;
    }
  }

  function isFreshGenerator(calleeRaw: Node): boolean {
    const callee = unwrap(calleeRaw);
    const ref = ctx.imports.resolve(callee);
    if (ref) {
      const names = FRESH_EXPORTS[ref.module];
      return !!names && (names.includes(ref.path) || names.includes(ref.path.split('.').pop() ?? ''));
    }
    const name = ctx.evaluator.qualifiedName(callee);
    if (!name || !FRESH_GLOBALS.has(name)) return false;
    const root = name.split('.')[0]!;
    return !findVariable(ctx.evaluator.scopeOf(callee), root)?.defs.length;
  }

  // ---------------------------------------------------------------- layers

  function clientVariables(): Map<Variable, RetrySite[]> {
    if (clientMap) return clientMap;
    clientMap = new Map();
    const add = (v: Variable | undefined, site: RetrySite) => {
      if (!v) return;
      const list = clientMap!.get(v) ?? [];
      list.push(site);
      clientMap!.set(v, list);
    };
    for (const site of sites()) {
      if (!site.clientLevel || site.executions) continue;
      const parent = site.node.parent;
      if (parent?.type === T.VariableDeclarator && parent.init === site.node && parent.id.type === T.Identifier) {
        add(ctx.sourceCode.getDeclaredVariables(parent)[0], site);
      }
      const target = site.operation && unwrap(site.operation);
      if (target?.type === T.Identifier) add(findVariable(ctx.evaluator.scopeOf(target), target.name), site);
    }
    return clientMap;
  }

  function clientSitesOf(call: Node): readonly RetrySite[] {
    if (call.type !== T.CallExpression) return [];
    let root: Node = unwrap(call.callee);
    while (root.type === T.MemberExpression || root.type === T.CallExpression) {
      root = unwrap(root.type === T.MemberExpression ? root.object : root.callee);
    }
    if (root.type !== T.Identifier) return [];
    const v = findVariable(ctx.evaluator.scopeOf(root), root.name);
    return (v && clientVariables().get(v)) ?? [];
  }

  function callsThroughClient(site: RetrySite): TSESTree.CallExpression[] {
    const out: TSESTree.CallExpression[] = [];
    for (const [v, list] of clientVariables()) {
      if (!list.includes(site)) continue;
      for (const ref of v.references) {
        let n: Node = ref.identifier as Node;
        while (n.parent?.type === T.MemberExpression && n.parent.object === n) n = n.parent;
        if (n.parent?.type === T.CallExpression && n.parent.callee === n && n !== ref.identifier) out.push(n.parent);
        else if (n.parent?.type === T.CallExpression && n.parent.callee === n && isCallableClient(site)) out.push(n.parent);
      }
    }
    return out;
  }

  function isCallableClient(site: RetrySite): boolean {
    return site.library === 'got' || site.library === 'ky' || site.library === 'axios-retry' || site.library === 'fetch-retry';
  }

  function nestedIn(site: RetrySite, scope: Node): NestedRetry[] {
    const out: NestedRetry[] = [];
    for (const other of sites()) {
      if (other === site || !inside(scope, other.node) || other.kind === 'durable') continue;
      const a = other.attempts.value;
      if (typeof a !== 'number' || a <= 1) continue;
      out.push({ node: other.reportNode, label: other.label, attempts: a, site: other });
    }
    for (const call of rangeOf(ctx.nodesOfType(T.CallExpression), scope)) {
      for (const client of clientSitesOf(call)) {
        const a = client.attempts.value;
        if (typeof a !== 'number' || a <= 1) continue;
        const op = classify(call, new Set(), scope, 2);
        // Clients that only retry idempotent methods do not repeat this write.
        if (op && (op.kind === 'write') && client.retriesWrites?.value !== true) continue;
        out.push({ node: call, label: `${labelOf(call)} (${client.label})`, attempts: a, site: client });
      }
    }
    return out;
  }

  function breakerOf(site: RetrySite): Node | undefined {
    if (site.breaker) return site.breaker;
    // opossum: the breaker fires inside the retried code, or the retry runs inside the breaker's action.
    const f = facts(site);
    for (const group of f.groups) {
      if (!group.scope) continue;
      for (const call of rangeOf(ctx.nodesOfType(T.CallExpression), group.scope)) {
        const callee = unwrap(call.callee);
        if (callee.type === T.MemberExpression && propertyKey(callee, () => undefined) === 'fire' && isOpossum(callee.object)) return call;
      }
    }
    for (const ctor of ctx.nodesOfType(T.NewExpression)) {
      const ref = ctx.imports.resolve(ctor.callee);
      if (ref?.module !== 'opossum') continue;
      const action = ctor.arguments[0];
      const fn = action && functionOf(action, ctx);
      if (fn && inside(fn, site.node)) return ctor;
    }
    return undefined;
  }

  function isOpossum(node: Node): boolean {
    const init = ctx.evaluator.resolve(node);
    return init.type === T.NewExpression && ctx.imports.resolve(init.callee)?.module === 'opossum';
  }

  // ---------------------------------------------------------------- helpers

  function localFunction(calleeRaw: Node): TSESTree.FunctionLike | undefined {
    const callee = unwrap(calleeRaw);
    if (callee.type !== T.Identifier) return undefined;
    const v = ctx.evaluator.evaluate(callee);
    return typeof v === 'object' && v !== null && 'kind' in v && v.kind === 'function' ? v.node : undefined;
  }

  function isMarkedIdempotent(fn: TSESTree.FunctionLike): boolean {
    let holder: Node = fn;
    while (holder.parent && (holder.parent.type === T.VariableDeclarator || holder.parent.type === T.VariableDeclaration || holder.parent.type === T.ExportNamedDeclaration || holder.parent.type === T.ExportDefaultDeclaration)) holder = holder.parent;
    return ctx.sourceCode.getCommentsBefore(holder).some((c) => c.type === 'Block' && /@idempotent\b/.test(c.value));
  }

  function labelOf(call: TSESTree.CallExpression | TSESTree.NewExpression): string {
    const text = calleeText(call.callee) ?? ctx.sourceCode.getText(call.callee);
    return `${text.length > 40 ? `${text.slice(0, 37)}...` : text}()`;
  }

  function throwsOnStatus(fn: Node): boolean {
    for (const t of rangeOf(ctx.nodesOfType(T.ThrowStatement), fn)) {
      for (let p: Node | undefined = t.parent; p && p !== fn; p = p.parent) {
        if (p.type === T.IfStatement && NOT_OK.test(ctx.sourceCode.getText(p.test))) return true;
      }
    }
    return false;
  }

  return { facts, clientSitesOf, breakerOf };
}

/** Whether the code waits on the call's result: awaited, returned, an arrow's body or a promise chain's head. */
function awaited(call: TSESTree.CallExpression): boolean {
  let node: Node = call;
  let parent = node.parent;
  // Look through wrappers that pass the promise on: (x), x as T, x!, race(x, ...).
  while (parent && (parent.type === T.TSAsExpression || parent.type === T.TSNonNullExpression || parent.type === T.ChainExpression)) {
    node = parent;
    parent = parent.parent;
  }
  if (!parent) return false;
  if (parent.type === T.AwaitExpression || parent.type === T.ReturnStatement || parent.type === T.YieldExpression) return true;
  // An arrow's body is waited on when the arrow is a callback whose result is used (a retried
  // function, a `then` handler); a promise executor's result is thrown away, so the
  // `setTimeout` of `new Promise((r) => setTimeout(r, ms))` is a sleep, not an operation.
  if (parent.type === T.ArrowFunctionExpression && parent.body === node) return parent.parent?.type !== T.NewExpression;
  if (parent.type === T.MemberExpression && parent.object === node) {
    const key = propertyKey(parent, () => undefined);
    return key === 'then' || key === 'catch' || key === 'finally';
  }
  // Promise.all([a(), b()]) and similar: an element of an awaited array.
  if (parent.type === T.ArrayExpression) return !!parent.parent && parent.parent.type === T.CallExpression;
  return false;
}

function isOperation(op: Operation | undefined): op is Operation {
  return !!op;
}

/** Conditions that are true for 4xx responses: `!res.ok`, `res.status >= 400`, `status !== 200`. */
const NOT_OK = /!\s*[\w$.]*\.ok\b|\.ok\s*===?\s*false|\.(?:status|statusCode)\s*(?:>=\s*(?:[1-3]\d\d|400)|>\s*(?:[1-3]\d\d)|!==?\s*2\d\d)/;

/** `validateStatus: () => true` (axios) or `throwHttpErrors: false` (got, ky) turn off throwing. */
function disablesThrowing(call: TSESTree.CallExpression): boolean {
  return call.arguments.some((a) => a.type === T.ObjectExpression && a.properties.some((p) =>
    p.type === T.Property && !p.computed && p.key.type === T.Identifier &&
    (p.key.name === 'validateStatus' || p.key.name === 'throwHttpErrors')));
}

function kindOfMethod(method: string | undefined): OperationKind {
  if (!method) return 'unknown';
  if (HTTP_READ.has(method)) return 'read';
  if (HTTP_IDEMPOTENT.has(method)) return 'idempotent-write';
  return 'write';
}

export function inside(outer: Node, inner: Node): boolean {
  return inner.range[0] >= outer.range[0] && inner.range[1] <= outer.range[1];
}

/** The nodes of a document-ordered list that lie inside `scope`, found by binary search. */
function* rangeOf<N extends Node>(list: readonly N[], scope: Node): Generator<N> {
  const [start, end] = scope.range;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.range[0] < start) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < list.length && list[i]!.range[0] < end; i++) yield list[i]!;
}

/** `orders.create`, `createOrder`, `this.client.post`: the callee as dotted text, when static. */
function calleeText(calleeRaw: Node): string | undefined {
  const callee = unwrap(calleeRaw);
  if (callee.type === T.Identifier) return callee.name;
  if (callee.type === T.ThisExpression) return 'this';
  if (callee.type === T.MemberExpression) {
    const key = propertyKey(callee, () => undefined);
    const base = calleeText(callee.object);
    return key !== undefined && base !== undefined ? `${base}.${key}` : key;
  }
  if (callee.type === T.CallExpression) {
    const inner = calleeText(callee.callee);
    return inner ? `${inner}()` : undefined;
  }
  return undefined;
}

/** The leading verb of a callee name: `createOrder` → `create`, `send_sms` → `send`, `charges.create` → `create`. */
function verbOf(calleeRaw: Node): string | undefined {
  const callee = unwrap(calleeRaw);
  let name: string | undefined;
  if (callee.type === T.Identifier) {
    // A bare `setX()` is a timer or a local setter (`setTimeout`, `setState`,
    // `setCredentialFeature`), not a remote write.
    if (/^set[A-Z]/.test(callee.name)) return undefined;
    name = callee.name;
  } else if (callee.type === T.MemberExpression) {
    name = propertyKey(callee, () => undefined);
    const base = unwrap(callee.object);
    // Built-ins whose method names look like verbs: Array#push, Map#set, console.log ...
    if (base.type === T.Identifier && BUILTIN_OBJECTS.has(base.name)) return undefined;
    if (name && BUILTIN_METHODS.has(name)) return undefined;
  }
  if (!name) return undefined;
  const m = /^_*([a-z]+|[A-Z][a-z]+)/.exec(name);
  return m ? m[1]!.toLowerCase() : undefined;
}

const BUILTIN_OBJECTS = new Set(['console', 'JSON', 'Math', 'Object', 'Array', 'Promise', 'Reflect', 'Number', 'String', 'Date', 'Buffer', 'process', 'Symbol', 'Atomics', 'Intl', 'URL', 'path', 'fs', 'util', 'assert']);
const BUILTIN_METHODS = new Set(['push', 'set', 'add', 'delete', 'get', 'has', 'then', 'catch', 'finally', 'resolve', 'reject', 'append', 'emit', 'send', 'write', 'end', 'json', 'text', 'toString', 'replace', 'update', 'digest', 'remove', 'removeItem', 'setItem', 'getItem', 'setTimeout', 'clear', 'abort', 'fill', 'find', 'includes', 'sort']);
