/**
 * THE place that decides what a call inside a retry is: a read, an idempotent write, a write, or
 * not an operation at all. Evidence, strongest first:
 *   1. an HTTP request whose method is known (`fetch(url, { method: 'POST' })`, `axios.post`);
 *   2. an SDK call its descriptor classifies (Stripe, AWS), or a MongoDB update by its operators;
 *   3. the project's settings (`writeFunctions`, `readFunctions`);
 *   4. with type information, the callee's declaration (`@idempotent`, the HTTP method it sends);
 *   5. the team's own helper, followed one or two levels: its body decides;
 *   6. the callee's verb (`createOrder`, `chargeCard`), only for a call made right in the retried
 *      code whose promise the code waits on.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { contains, enclosingFunction, isFunctionNode, memberName, propertyKey, unwrap } from '../ast.js';
import { onCycle } from '../call-cycles.js';
import type { Node, RetrySite } from '../model.js';
import { awaited, callLabel, calleeText, isMarkedIdempotent, localFunction, type FileFacts } from './file.js';
import type { HttpReader } from './http.js';
import type { KeyReader } from './keys.js';
import type { IdempotencyKey, MethodParameter, Operation, OperationKind, Variable } from './types.js';
import type { MethodResolver, MethodTarget } from './members.js';
import type { AnalysisContext } from '../library.js';
import { IDEMPOTENT_VERBS, NOT_OPERATIONS, REQUEST_SENDERS, kindOfMethod, methodVerb, verbOf, worstMethod } from './vocabulary.js';
import { computedCallee } from './computed-names.js';
import { documentUpdateKind } from './document-updates.js';
import { argumentsOfEveryCall } from '../eval/functions.js';

type AnyCall = TSESTree.CallExpression | TSESTree.NewExpression;

const HTTP_METHODS = /^(?:get|head|options|post|put|patch|delete)$/i;

/** How a request that may send any method is named in messages: `fetch() (every request, POST included)`. */
const EVERY_METHOD = 'every request, POST included';

export interface Classifier {
  /**
   * What `call` is. `attemptVars` are the variables that change per attempt (for keys), `scope` the
   * retried code, `depth` how many helpers deep the call was found (0: in the retried code).
   */
  classify(call: AnyCall, attemptVars: Set<Variable>, scope: Node | undefined, depth: number): Operation | undefined;
  /** Every operation inside the retried code, in source order. */
  operationsIn(scope: Node, attemptVars: Set<Variable>): Operation[];
  /** A call through a retrying client: what the call sends, the client's own calls included (`f(url, init)`). */
  throughClient(call: TSESTree.CallExpression, callable: boolean): Operation | undefined;
  /**
   * A helper of this classifier's file, called `depth` helpers deep: the operations in its body, and
   * the client of an HTTP call in it that rejects on 4xx with nothing in the helper catching it.
   */
  helperBody(fn: TSESTree.FunctionLike, depth: number): { operations: Operation[]; rejecting: string | undefined };
}

/** How member calls are followed to the methods they run, here or in another file. */
export interface MethodFollowing {
  readonly resolver: MethodResolver;
  /** The classifier of the file a method is written in. */
  classifierOf(ctx: AnalysisContext): Classifier;
  /**
   * When `fn` (a function of this classifier's file) is another retry of the file, a recursion or a
   * function of a cycle (`retryRequest` of makeRequest/retryRequest): what that retry repeats.
   */
  repeatedBy?(fn: TSESTree.FunctionLike): readonly Operation[] | undefined;
}

export function createClassifier(file: FileFacts, http: HttpReader, keys: KeyReader, methods?: MethodFollowing): Classifier {
  const { ctx } = file;
  const sdks = file.libraries.filter((l) => l.operations);

  function classify(call: AnyCall, attemptVars: Set<Variable>, scope: Node | undefined, depth: number): Operation | undefined {
    if (call.type === T.NewExpression) return undefined; // constructors build requests; the call sends them
    // A function calling itself (or another that calls it back) is the retry (or the walk) itself:
    // its operations are the calls in its body.
    if (callsItself(call, ctx) || onCycle(ctx, call)) return undefined;
    const label = callLabel(call, ctx);
    const request = http.requestOf(call);
    const key = () => keys.keyOf(call, attemptVars, scope, request?.body);
    if (request) {
      const { method } = request;
      const shown = method && method !== 'GET' && !/\.(post|put|patch|delete|del)\(/i.test(label) ? `${label} (${method})` : label;
      return { node: call, label: request.kind === 'write' && !method ? `${label} (${EVERY_METHOD})` : shown, kind: request.kind ?? kindOfMethod(method), evidence: 'http', method, key: key(), methodPicksFilter: request.methodPicksFilter, methodParameter: request.methodParameter };
    }
    // `this.fetchFn(url, { method: 'POST' })`: a URL and an init object stating an HTTP method are
    // that request, whatever the callee is called (stronger than its verb: `fetchFn` is no read).
    const stated = statedMethod(call);
    const statedOp: Operation | undefined = stated
      ? { node: call, label: stated === 'GET' ? label : `${label} (${stated})`, kind: kindOfMethod(stated), evidence: 'http', method: stated, key: key() }
      : undefined;
    // A function of this file is read first: its body says what it sends with that init (a
    // `send(url, init)` that always GETs, or passes the init's method on).
    const local = localFunction(call.callee, ctx);
    if (statedOp && !local && !thisMethodOfFile(call)) return statedOp;
    const sdk = sdkOperation(call);
    if (sdk) return { node: call, label, kind: sdk.kind, evidence: 'sdk', key: key(), autoKey: sdk.autoKey, rejectingSdk: sdk.rejecting };
    // A MongoDB update whose operators are written in the call (`$set` lands in the same state again, `$inc` does not).
    const update = documentUpdateKind(call, ctx);
    if (update) return { node: call, label, kind: update, evidence: 'sdk', key: key() };
    const name = calleeText(call.callee);
    if (name && file.words().writeFunctions.has(name)) return { node: call, label, kind: 'write', evidence: 'settings', key: key() };
    if (name && file.words().readFunctions.has(name)) return { node: call, label, kind: 'read', evidence: 'settings' };
    const declared = depth === 0 ? byDeclaration(call, label, key) : undefined;
    if (declared) return declared;
    // `this.send()`, `api.create()`, `service.create()` imported: the method's body decides, as a local helper's does.
    const method = local ? { fn: local, ctx } : depth < 2 ? methods?.resolver.methodOf(call.callee) ?? importedUndecided(call) : undefined;
    // What the helper's body rejects with when its operations do not decide the kind (a fetch
    // sending the method its caller passes, then `if (!res.ok) throw`): kept on the verb's reading.
    let rejectingSdk: string | undefined;
    if (method) {
      if (isMarkedIdempotent(method.fn, method.ctx)) return { node: call, label, kind: 'read', evidence: 'jsdoc' };
      const again = method.ctx === ctx ? intoRetry(call, method.fn, label, attemptVars, scope) : undefined;
      if (again) return again;
      const body = depth < 2 ? helperBodyOf(method, depth) : undefined;
      const followed = body ? throughHelper(call, method, body, label, attemptVars, scope) : undefined;
      if (followed) return followed;
      rejectingSdk = body && (rejecting(body.operations) ?? body.rejecting);
    }
    if (statedOp) return statedOp;
    // A verb is weak evidence: trust it only for a call made right in the retried code whose
    // promise the code waits on (remote operations are awaited; createHash() and
    // addEventListener() are not), never inside helpers followed from there; and never for a
    // function of the project declared to return no promise (`_patchConfig(): Partial<Options>`):
    // whatever it sends, its body (followed above) says.
    if (depth > 0 || !awaited(call) || NOT_OPERATIONS.test(name ?? '')) return undefined;
    if (method && returnsNoPromise(method.fn)) return undefined;
    const verb = verbOf(call.callee);
    if (!verb) return byComputedName(call, label, key);
    const rejects = rejectingSdk ? { rejectingSdk } : {};
    if (file.words().writeVerbs.has(verb)) return { node: call, label, kind: 'write', evidence: 'verb', key: key(), ...rejects };
    if (IDEMPOTENT_VERBS.has(verb)) return { node: call, label, kind: 'idempotent-write', evidence: 'verb', key: key(), ...rejects };
    if (file.words().readVerbs.has(verb)) return { node: call, label, kind: 'read', evidence: 'verb', ...rejects };
    return byComputedName(call, label, key);
  }

  /** The body of a helper (or method) a call runs, read by its own file's classifier. */
  function helperBodyOf(method: MethodTarget, depth: number): ReturnType<Classifier['helperBody']> {
    const foreign = method.ctx !== ctx;
    return (foreign && methods ? methods.classifierOf(method.ctx) : self).helperBody(method.fn, depth);
  }

  /**
   * `context[op](...)` (or its promisified function) with `op` taking each name of constant lists:
   * the code runs with every name, so one write among them is a write the retry repeats.
   */
  function byComputedName(call: TSESTree.CallExpression, label: string, key: () => Operation['key']): Operation | undefined {
    const computed = computedCallee(call, ctx);
    if (!computed) return undefined;
    const verbs = computed.names.map((n) => [n, methodVerb(n)] as const);
    const object = ctx.sourceCode.getText(computed.object);
    const writes = verbs.filter(([, v]) => v && file.words().writeVerbs.has(v)).map(([n]) => `${object}.${n}`);
    if (writes.length) return { node: call, label: `${label} (${writes.join(', ')})`, kind: 'write', evidence: 'verb', key: key() };
    if (verbs.every(([, v]) => v && file.words().readVerbs.has(v))) return { node: call, label, kind: 'read', evidence: 'verb' };
    return undefined;
  }

  /** The HTTP method `f(url, { method: 'POST', ... })` states, upper-cased; undefined for any other shape. */
  function statedMethod(call: TSESTree.CallExpression): string | undefined {
    const [url, init] = call.arguments;
    if (!url || !init || call.arguments.length > 2 || url.type === T.SpreadElement || isFunctionNode(unwrap(url)) || unwrap(url).type === T.ObjectExpression) return undefined;
    const view = ctx.options(init);
    if (view.state !== 'object') return undefined;
    const method = view.get('method').value;
    return typeof method === 'string' && HTTP_METHODS.test(method) ? method.toUpperCase() : undefined;
  }

  /** With type information: `@idempotent` on the declaration, or the HTTP methods its body sends. */
  function byDeclaration(call: TSESTree.CallExpression, label: string, key: () => Operation['key']): Operation | undefined {
    const decl = file.declarationOf?.(call.callee);
    if (!decl) return undefined;
    if (decl.idempotent) return { node: call, label, kind: 'read', evidence: 'jsdoc' };
    if (decl.methods.length === 0) return undefined;
    const method = worstMethod(decl.methods);
    const kind = kindOfMethod(method);
    return { node: call, label: kind === 'read' ? label : `${label} (${method})`, kind, evidence: 'http', method, key: key() };
  }

  /** `this.send(...)` naming a method of a class of this file. */
  function thisMethodOfFile(call: TSESTree.CallExpression): boolean {
    const callee = unwrap(call.callee);
    if (callee.type !== T.MemberExpression || unwrap(callee.object).type !== T.ThisExpression) return false;
    return methods?.resolver.methodOf(call.callee)?.ctx === ctx;
  }

  /** The team's own helper (or a method), followed one or two levels: its body decides. */
  function throughHelper(call: TSESTree.CallExpression, method: MethodTarget, body: ReturnType<Classifier['helperBody']>, label: string, attemptVars: Set<Variable>, scope: Node | undefined): Operation | undefined {
    const foreign = method.ctx !== ctx;
    const inner = body.operations.map((op) => (op.methodParameter?.fn === method.fn ? withPassedMethod(op, op.methodParameter, call) : op));
    const worst = inner.find((o) => o.kind === 'write') ?? inner.find((o) => o.kind === 'idempotent-write');
    const rejectingSdk = rejecting(inner) ?? body.rejecting;
    if (worst) {
      const outerKey = !worst.key ? keys.keyOf(call, attemptVars, scope) : foreign ? foreignKey(worst.key, method.fn, call, attemptVars, scope) : keys.mapKeyToCall(worst.key, method.fn, call, attemptVars, scope);
      return { node: call, label: `${label} (${worst.label})`, kind: worst.kind, evidence: worst.evidence, method: worst.method, key: outerKey, autoKey: worst.autoKey, rejectingSdk, methodFromCall: worst.methodFromCall };
    }
    if (inner.length > 0 && inner.every((o) => o.kind === 'read')) return { node: call, label, kind: 'read', evidence: inner[0]!.evidence, rejectingSdk };
    return undefined;
  }

  /**
   * `makeRequest(fetchFn, url, args.method)` imported from another file of the project, whose name
   * says nothing (no read or write verb): its body decides, as a local helper's does. A name that
   * already decides is not followed (opening the file costs a parse).
   */
  function importedUndecided(call: TSESTree.CallExpression): MethodTarget | undefined {
    const callee = unwrap(call.callee);
    if (callee.type !== T.Identifier || !methods || !ctx.imports.resolve(callee)) return undefined;
    const verb = verbOf(callee);
    if (verb && (file.words().writeVerbs.has(verb) || file.words().readVerbs.has(verb) || IDEMPOTENT_VERBS.has(verb))) return undefined;
    return methods.resolver.importedFunction(callee);
  }

  /**
   * A request in a helper sending the method its caller passes, seen from this call of the helper:
   * the method this call passes (`'GET'`: a read), or still every method when this function's own
   * caller chooses it (then known again at that call); as it was when the argument cannot be read.
   */
  function withPassedMethod(op: Operation, at: MethodParameter, call: TSESTree.CallExpression): Operation {
    if (call.arguments.slice(0, at.index + 1).some((a) => a.type === T.SpreadElement)) return op;
    const arg = call.arguments[at.index] as Node | undefined;
    if (!arg) return op;
    let given: Node | undefined = arg;
    let value: unknown;
    if (at.key !== undefined) {
      const view = ctx.options(arg);
      if (view.state !== 'object') return { ...op, methodParameter: undefined };
      const v = view.get(at.key);
      value = v.value;
      given = v.valueNode;
    } else value = ctx.evaluator.evaluate(arg);
    const outer = typeof value === 'string' || !given ? undefined : http.methodParameterOf(given);
    // The method of this function's own caller, where every call in this file passes a written one.
    if (outer) value = methodOfEveryCall(outer) ?? value;
    if (typeof value === 'string' && HTTP_METHODS.test(value)) {
      const method = value.toUpperCase();
      const kind = kindOfMethod(method);
      const label = op.label.includes(EVERY_METHOD) ? op.label.replace(EVERY_METHOD, method) : `${op.label} (${method})`;
      // A request the function's own code already counts as a write (every method) is reported
      // there; the call's method adds a write only where the function's code left it open.
      return { ...op, kind, method, label: kind === 'read' ? op.label.replace(` (${EVERY_METHOD})`, '') : label, methodParameter: undefined, methodFromCall: op.kind !== 'write' };
    }
    return { ...op, methodParameter: outer };
  }

  /** The worst method every call of a local, unexported function passes at a MethodParameter; undefined unless each is written. */
  function methodOfEveryCall(at: MethodParameter): string | undefined {
    const args = argumentsOfEveryCall(ctx.sourceCode, at.fn, at.index);
    if (!args?.length) return undefined;
    const found: string[] = [];
    for (const arg of args) {
      const value = !arg ? undefined : at.key === undefined ? ctx.evaluator.evaluate(arg) : ctx.options(arg).get(at.key).value;
      if (typeof value !== 'string' || !HTTP_METHODS.test(value)) return undefined;
      found.push(value.toUpperCase());
    }
    return worstMethod(found);
  }

  /**
   * A call into another retry of the file (`this.retryRequest(options)` where makeRequest and
   * retryRequest retry each other): it sends what that retry repeats, the caller's method included.
   */
  function intoRetry(call: TSESTree.CallExpression, fn: TSESTree.FunctionLike, label: string, attemptVars: Set<Variable>, scope: Node | undefined): Operation | undefined {
    const inner = methods?.repeatedBy?.(fn);
    const worst = inner?.find((o) => o.kind === 'write') ?? inner?.find((o) => o.kind === 'idempotent-write');
    if (!worst) return undefined;
    const key = worst.key ? keys.mapKeyToCall(worst.key, fn, call, attemptVars, scope) : keys.keyOf(call, attemptVars, scope);
    return { node: call, label: `${label} (${worst.label})`, kind: worst.kind, evidence: worst.evidence, method: worst.method, key, autoKey: worst.autoKey, rejectingSdk: worst.rejectingSdk };
  }

  /**
   * A key found in another file's method, seen from this call: the argument it is passed in (whose
   * freshness this file decides), else the call itself stands where the key is made.
   */
  function foreignKey(key: IdempotencyKey, fn: TSESTree.FunctionLike, call: TSESTree.CallExpression, attemptVars: Set<Variable>, scope: Node | undefined): IdempotencyKey {
    const mapped = keys.mapKeyToCall(key, fn, call, attemptVars, scope);
    if (mapped.value !== key.value) return { ...mapped, node: mapped.value };
    return { node: call, value: call, stability: key.stability };
  }

  function helperBody(fn: TSESTree.FunctionLike, depth: number): { operations: Operation[]; rejecting: string | undefined } {
    const operations: Operation[] = [];
    for (const c of file.callsIn(fn)) {
      const op = classify(c, new Set(), fn, depth + 1);
      if (op) operations.push(op);
    }
    // An HTTP call whose 4xx rejection leaves the helper: nothing in it catches the failure.
    const escaping = http.callsIn(fn).find((c) => c.throwsOnClientError && !caughtWithin(c.node, fn));
    return { operations, rejecting: escaping?.client };
  }

  /** A call an SDK's descriptor classifies (Stripe resources, AWS commands), first descriptor first. */
  function sdkOperation(call: TSESTree.CallExpression): { kind: OperationKind; autoKey?: string | undefined; rejecting?: string | undefined } | undefined {
    for (const library of sdks) {
      const facet = library.operations!;
      const kind = facet.classify(call, ctx);
      if (kind) return { kind, autoKey: kind === 'write' && facet.makesOwnKey ? library.id : undefined, rejecting: facet.rejectsOnClientError ? library.id : undefined };
    }
    return undefined;
  }

  function operationsIn(scope: Node, attemptVars: Set<Variable>): Operation[] {
    const out: Operation[] = [];
    for (const call of file.callsIn(scope)) {
      const op = classify(call, attemptVars, scope, 0);
      if (op) out.push(op);
    }
    return out;
  }

  function throughClient(call: TSESTree.CallExpression, callable: boolean): Operation | undefined {
    const op = classify(call, new Set(), undefined, 0);
    if (op || !callable || unwrap(call.callee).type !== T.Identifier) return op;
    const { method } = http.callThroughClient(call);
    return { node: call, label: callLabel(call, ctx), kind: kindOfMethod(method), evidence: 'http', method, key: keys.keyOf(call, new Set(), undefined) };
  }

  const self: Classifier = { classify, operationsIn, throughClient, helperBody };
  return self;
}

/** Whether a failure of `call` is caught inside `fn`: a `try` block or a `.catch()` on it. */
function caughtWithin(call: TSESTree.CallExpression, fn: TSESTree.FunctionLike): boolean {
  for (let n: Node | undefined = call; n && n !== fn; n = n.parent) {
    const p: Node | undefined = n.parent;
    if (p?.type === T.TryStatement && p.block === n && p.handler) return true;
    if (p?.type === T.MemberExpression && p.object === n && propertyKey(p, () => undefined) === 'catch') return true;
  }
  return false;
}

/** `f()` inside `f`, `this.m()` inside method `m`: a recursive call. */
/** Whether a call re-enters the function it is made in (by name, or as `this.sameMethod()`). */
export function callsItself(call: TSESTree.CallExpression, ctx: FileFacts['ctx']): boolean {
  const callee = unwrap(call.callee);
  if (callee.type === T.Identifier) {
    const local = localFunction(callee, ctx);
    return !!local && contains(local, call);
  }
  if (callee.type !== T.MemberExpression || unwrap(callee.object).type !== T.ThisExpression) return false;
  const name = propertyKey(callee, () => undefined);
  for (let fn = enclosingFunction(call); fn; fn = enclosingFunction(fn)) {
    const holder = fn.parent;
    if ((holder?.type === T.MethodDefinition || holder?.type === T.PropertyDefinition) && holder.value === fn) {
      return name !== undefined && !holder.computed && holder.key.type === T.Identifier && holder.key.name === name;
    }
  }
  return false;
}

/** The first SDK among a helper's operations whose calls reject on 4xx. */
function rejecting(inner: readonly Operation[]): string | undefined {
  return inner.find((o) => o.rejectingSdk)?.rejectingSdk;
}


/**
 * What the retry site itself says of its requests' methods, past what a call shows (`classify`):
 * the second half of deciding whether a call is a write, for requests whose method `classify`
 * left unknown.
 *
 * A request whose method is not known, in retried code whose way to another attempt compares the
 * request's method (`req.method !== 'POST'`): the code sends more than one method, and a write the
 * guard lets through (a PATCH past `!== 'POST'`) is re-sent. The request is an HTTP call whose
 * method is not known, or a call handed the very object whose method is compared (`fetch(req)`
 * with `req.method` compared, whatever its callee's verb says). A guard that keeps every write out
 * leaves the request as it was.
 */
export function withSiteMethods(site: RetrySite, operations: Operation[], ctx: AnalysisContext): Operation[] {
  const methods = site.retriedMethods;
  if (methods?.writes !== true) return site.errorFilter.retriesNoResponse === true ? operations.map(everyMethodOnFailure) : operations;
  // `fetch(req)`, `client.request(req)`: the compared request handed to a sender, whatever its verb says.
  const sendsCompared = (op: Operation) =>
    (op.evidence === 'verb' || op.kind === 'unknown') && REQUEST_SENDERS.test(calleeName(op.node) ?? '') &&
    op.node.arguments.some((a) => a.type === T.Identifier && methods.requests.includes(ctx.evaluator.variableOf(a)!));
  const guarded = (op: Operation) => (op.evidence === 'http' && op.method === undefined && op.kind === 'unknown') || sendsCompared(op);
  return operations.map((op) => (guarded(op) ? { ...op, kind: 'write', evidence: 'http', label: `${calleeLabel(op.label)} (${methods.label})` } : op));
}

/**
 * A request sending its caller's method, compared only to choose a response predicate, under a
 * retry that certainly repeats a failure without a response: a write sent and lost is sent again,
 * whatever the predicate says of responses.
 */
function everyMethodOnFailure(op: Operation): Operation {
  return op.methodPicksFilter && op.kind === 'unknown' && op.method === undefined ? { ...op, kind: 'write', label: `${calleeLabel(op.label)} (${EVERY_METHOD})` } : op;
}

/** `fetch` of `fetch(req)`, `request` of `client.request(req)`. */
function calleeName(call: Operation['node']): string | undefined {
  const c = unwrap(call.callee);
  return c.type === T.Identifier ? c.name : memberName(c);
}

/** `fetch()` of `fetch() (every request, POST included)`. */
function calleeLabel(label: string): string {
  return label.replace(/ \(.*\)$/, '');
}

/** Object types made from another (`Partial<Options>`), never a promise whatever they are made from. */
const SHAPES = new Set(['Partial', 'Required', 'Pick', 'Omit', 'Date', 'RegExp', 'Error', 'URL', 'URLSearchParams', 'Headers', 'Buffer', 'Uint8Array']);
/** Containers: no promise when what they hold is none (`Promise<void>[]` still hands promises back). */
const CONTAINERS = new Set(['Array', 'ReadonlyArray', 'Set', 'ReadonlySet', 'Map', 'ReadonlyMap', 'Record']);

/**
 * A function that is not async and whose written return type is plainly no promise: a keyword
 * type, a literal, an object type without `then`, one of SHAPES, an array, tuple or one of
 * CONTAINERS holding no promise, or a union of those. Without a written type (JavaScript), or with any other (an alias, `Observable<T>`,
 * `any`), it may return one.
 */
function returnsNoPromise(fn: TSESTree.FunctionLike): boolean {
  if (fn.async || fn.generator) return false;
  const type = fn.returnType?.typeAnnotation;
  return !!type && plainlyNoPromise(type);
}

function plainlyNoPromise(type: TSESTree.TypeNode): boolean {
  switch (type.type) {
    case T.TSStringKeyword: case T.TSNumberKeyword: case T.TSBooleanKeyword: case T.TSVoidKeyword:
    case T.TSUndefinedKeyword: case T.TSNullKeyword: case T.TSNeverKeyword: case T.TSBigIntKeyword:
    case T.TSSymbolKeyword: case T.TSLiteralType: case T.TSTypePredicate:
      return true;
    case T.TSArrayType:
      return plainlyNoPromise(type.elementType);
    case T.TSTupleType:
      return type.elementTypes.every((t) => t.type !== T.TSNamedTupleMember && t.type !== T.TSOptionalType && t.type !== T.TSRestType ? plainlyNoPromise(t) : false);
    case T.TSTypeLiteral:
      return !type.members.some((m) => (m.type === T.TSPropertySignature || m.type === T.TSMethodSignature) && m.key.type === T.Identifier && m.key.name === 'then');
    case T.TSUnionType:
      return type.types.every(plainlyNoPromise);
    case T.TSTypeReference: {
      const name = type.typeName.type === T.Identifier ? type.typeName.name : '';
      if (SHAPES.has(name)) return true;
      // Record<K, V> and Map<K, V> hold their last argument; Array<T> and Set<T> their only one.
      const held = type.typeArguments?.params.at(-1);
      return CONTAINERS.has(name) && !!held && plainlyNoPromise(held);
    }
    default:
      return false;
  }
}
