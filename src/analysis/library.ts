/** The contract between the model and the per-library catalogue. */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { LibraryFixes } from './fix-plan.js';
import type { ImportTable, ModuleRef } from './imports.js';
import type { Node, RetrySite, SiteKind } from './model.js';
import { OptionsView } from './options.js';
import type { OperationFacts, OperationKind } from './operations/types.js';
import type { Evaluator } from './eval/evaluator.js';
import { isFunctionNode } from './ast.js';

/** One use of a library binding: `pRetry`, `axiosRetry.exponentialDelay`, `got.extend`. */
export interface LibraryUse extends ModuleRef {
  /** The outermost statically named member expression (or the identifier itself). */
  readonly expression: Node;
}

export interface AnalysisContext {
  readonly sourceCode: Readonly<TSESLint.SourceCode>;
  readonly evaluator: Evaluator;
  readonly imports: ImportTable;
  options(node: Node | undefined): OptionsView;
  /** Every node of one type, from a single lazily built index of the file. */
  nodesOfType<K extends T>(type: K): readonly Extract<TSESTree.Node, { type: K }>[];
  /** The file's absolute path, when known (another file of the project opened to be read). */
  readonly file?: string | undefined;
  /**
   * What an imported name stands for in the project file that exports it (re-exports followed a
   * few hops), read with that file's context; undefined for a package, an unreadable file or a
   * name not exported as a value there. Only the linted file follows imports, and only one file away.
   */
  importedValue?(id: TSESTree.Identifier): ImportedValue | undefined;
  /** The errors the libraries this file imports document (their `operations.errorShapes`). */
  errorShapes?(): readonly ErrorShape[];
  /** The HTTP facet of the library a module belongs to (`axios`), when one describes it. */
  httpFacetOf?(module: string): HttpFacet | undefined;
  /**
   * Other files of the linted file's project, for the few facts that live in configuration another
   * file applies to this one (TanStack Query's QueryClient defaults, `query-defaults.ts`). Only the
   * linted file has it: a file opened through it opens no further file this way.
   */
  readonly project?: ProjectAccess | undefined;
}

/** Reading another file of the linted file's project (parsed like it, cached by version). */
export interface ProjectAccess {
  /** The context of the project file at an absolute path; undefined when it cannot be read or parsed. */
  open(file: string): AnalysisContext | undefined;
  /** What a retry site written in an opened file repeats, read by that file's operation analysis (imports followed from there). */
  facts(ctx: AnalysisContext, site: RetrySite): OperationFacts;
  /**
   * The retry sites of an opened file (its own imports not followed), built once per version of the
   * file: a client configured there (`axiosRetry(api, {...})`, `ky.create({...})`) and used here.
   */
  sites(ctx: AnalysisContext): readonly RetrySite[];
}

const contexts = new WeakMap<Evaluator, AnalysisContext>();

/** Remembers the context an evaluator belongs to (index.ts, as it makes one). */
export function registerContext(ctx: AnalysisContext): void {
  contexts.set(ctx.evaluator, ctx);
}

/** The context of the file an evaluator reads (a function carried in from another file is read with its own). */
export function contextOf(evaluator: Evaluator): AnalysisContext | undefined {
  return contexts.get(evaluator);
}

/**
 * One kind of error a library's calls reject with: fields a filter may test (`code`, `type`) and
 * the HTTP statuses such an error comes with, as the library's source or documentation states
 * them. Only ever evidence that a status IS retried (an error of this shape is one of its
 * failures), never that it is not.
 */
export interface ErrorShape {
  readonly fields: Readonly<Record<string, string>>;
  readonly statuses: readonly number[];
}

/** An expression written in another file of the project, and the context it is read in. */
export interface ImportedValue {
  readonly node: Node;
  readonly ctx: AnalysisContext;
}

export interface LibraryDescriptor {
  /** Stable id, also the module name for single-module libraries. */
  readonly id: string;
  readonly modules: readonly string[];
  /**
   * Globals a framework provides without an import, each standing for one of this library's
   * exports when the file does not declare the name (Nuxt's auto-imported `$fetch` is ofetch's):
   * name -> export path.
   */
  readonly globals?: Readonly<Record<string, string>>;
  /** For families of modules such as `@aws-sdk/client-*`. */
  matchModule?(module: string): boolean;
  /** Durable engines (workflow and job queues) are exempt from the in-memory limits. */
  readonly kind?: SiteKind;
  /**
   * The retry sites written with the library. Absent for a library that does not retry but that
   * the model must still know (an HTTP client, a circuit breaker, a legacy helper): its facets say
   * what.
   */
  find?(uses: readonly LibraryUse[], ctx: AnalysisContext): RetrySite[];
  /**
   * Which parameter of the retried function differs on every attempt (p-retry's attempt number,
   * the runtime's `{ attempt }`): a key derived from it is a new key per attempt.
   */
  readonly attemptParameter?: { readonly index: number; readonly property?: string };

  // ---- What the operation analysis reads about calls made through the library.

  /**
   * The client a client-level site configures is itself callable (`api(url)` sends a request:
   * got, ky, axios, a fetch-retry fetch), so bare calls of it are operations too.
   */
  readonly callableClient?: boolean;

  // ---- Facets: what the rest of the model knows about the library lives here, not in the model.

  /** How the library sends HTTP requests, when it is an HTTP client (read by `operations/http.ts`). */
  readonly http?: HttpFacet;
  /** How to classify the calls of the library's client (read by `operations/classify.ts`). */
  readonly operations?: OperationsFacet;
  /** How a circuit breaker of the library is composed with a retry (read by `operations/layers.ts`). */
  readonly breaker?: BreakerFacet;
  /** The library, or some of its exports, are legacy retry helpers under R-RES-RE-X4 (read by `legacy.ts`). */
  readonly legacy?: LegacyFacet;
  /** The library's client retries every request by itself when nothing configures it (read by `operations/layers.ts`). */
  readonly builtInRetry?: BuiltInRetryFacet;
  /** The library's exported options types: a constant declared with one is a configuration of the library (read by `typed-options.ts`). */
  readonly optionsType?: OptionsTypeFacet;
  /** Clients of the library built in another file of the project and imported (read by `imported-instances.ts`). */
  readonly importedInstances?: ImportedInstancesFacet;

  /** How suggestions write this library's settings (read by `fixes.ts`): one place per library. */
  readonly fixes?: LibraryFixes;

  // ---- Site selection (read by `selection.ts`).

  /** For durable engines: the settings the engine offers, so nothing is asked that it cannot do. */
  readonly engine?: { readonly jitterSetting: boolean };
}

/**
 * A client built in another file (`export const kafka = new Kafka({...})`) and imported where its
 * methods are called (`kafka.producer({ retry })`): the constructors (export paths) whose instances
 * are followed, the methods called on them that make sites, and the reader of those calls. Only a
 * file that calls one of `methods` on an imported name of the project opens another file.
 */
export interface ImportedInstancesFacet {
  readonly constructors: readonly string[];
  readonly methods: readonly string[];
  find(instances: readonly ImportedInstance[], ctx: AnalysisContext): RetrySite[];
}

/** A client built in another file: its construction (read with that file's context) and its references here. */
export interface ImportedInstance {
  /** The export path of the constructor (`Kafka`). */
  readonly path: string;
  readonly construction: TSESTree.NewExpression;
  readonly ctx: AnalysisContext;
  /** Identifiers of this file that name the instance. */
  readonly references: readonly TSESTree.Identifier[];
}

/** How an HTTP client names the method of a request and whether it rejects on 4xx. */
export interface HttpFacet {
  /**
   * How a call names its method:
   * - `fetch`: `f(url, { method })`, GET when the options or their `method` are absent;
   * - `node-http`: `http.request(options)` with the options anywhere in the arguments; `get` sends GET;
   * - `chained`: `agent.post(url).send(body)`, where only the chain's root call is the request, or
   *   `agent(method, url)`;
   * - `members`: `client.post(url)` by the member's name, or the client called with a config
   *   (`axios({ method })`, `client.request(config)`).
   */
  readonly method: 'fetch' | 'node-http' | 'chained' | 'members';
  /**
   * The exports (last segment of the path) that send a request; `default` is the module itself.
   * For `members` and `chained`, method-named members (`post`, `del`) send one too.
   */
  readonly senders: readonly string[];
  /** A global the runtime provides (`fetch`): a call of it, when the file does not declare it, is this client's. */
  readonly global?: string;
  /**
   * The argument index of the body for the members that send one (`post`, `put`, `patch`) when it
   * comes before the config (axios's `post(url, data, config)`): a `headers` object inside it is
   * data sent to the server, not the request's headers.
   */
  readonly bodyArgument?: number;
  /** Whether the promise rejects on a 4xx response by itself. */
  readonly throwsOnClientError: boolean;
  /**
   * For `members` clients: the option of a request's config that ends the request after that many
   * milliseconds (axios's `timeout`; 0 or absent: no limit), read as a per-attempt timeout where a
   * hand-written retry sends the request or an interceptor re-sends it.
   */
  readonly timeoutOption?: string;
  /** Options of a call that turn that off (`validateStatus`, `throwHttpErrors`). */
  readonly nonThrowingOptions?: readonly string[];
  /**
   * The one of those options that is a predicate of the status, true where the response resolves
   * (axios's `validateStatus`): written as a function that is false for some 4xx, the call still
   * rejects on those.
   */
  readonly statusAcceptedOption?: string;
  /**
   * Exported types whose instances are this client (`AxiosInstance`, Angular's `HttpClient`): a
   * class member, a parameter or an `inject()` of that type sends this client's requests.
   */
  readonly types?: readonly string[];
  /** Exported types of a handler that passes every request on (Angular's `HttpHandler`): its `handle(req)` re-sends whatever request it is given. */
  readonly handlerTypes?: readonly string[];
  /**
   * For a client known by its `types` whose members are not named after HTTP methods: the method
   * each member sends (discord.js `channel.send()` posts a message); `manager.member` for a member of
   * one of the client's managers (`client.channels.fetch()`).
   */
  readonly typedMembers?: Readonly<Record<string, string>>;
}

/** How to tell reads from writes among an SDK's calls. */
export interface OperationsFacet {
  /** The kind of `call` when it is a call of this library's client; undefined when it is not one. */
  classify(call: TSESTree.CallExpression, ctx: AnalysisContext): OperationKind | undefined;
  /**
   * The client adds an idempotency key of its own to every write, new on every call (Stripe, the
   * AWS SDK's ClientToken): an outer retry makes a new call, so a new key.
   */
  readonly makesOwnKey?: boolean;
  /**
   * The client's calls reject on a 4xx response with a service error of their own (the AWS SDK's
   * `NoSuchKey`, Stripe's `StripeInvalidRequestError`): a retry that catches everything retries them.
   */
  readonly rejectsOnClientError?: boolean;
  /**
   * Where that service error keeps the HTTP status, as the member chain read after the error
   * (`statusCode` for Stripe, `$metadata?.httpStatusCode` for the AWS SDK v3): what a suggested
   * error filter reads. Without it no filter is suggested for the SDK's calls.
   */
  readonly errorStatus?: string;
  /** Errors the calls reject with, by the fields a filter tests (`code`, `type`), with their statuses. */
  readonly errorShapes?: readonly ErrorShape[];
}

/**
 * A client that retries by itself with its defaults (discord.js through @discordjs/rest, the OpenAI
 * SDK, the AWS SDK): a call of it made inside another retry is a nested retry even where the
 * client's construction is out of sight (a parameter, a class member, an instance made in another
 * file). Where the file builds the client, its site says how it is configured instead.
 */
export interface BuiltInRetryFacet {
  /** Calls per request with the defaults, the first included (the smallest among supported versions). */
  readonly attempts: number;
  /** Whether the default retries re-send non-idempotent requests (POST) too. */
  readonly retriesWrites: boolean;
  /** How messages name the retrying layer: `@discordjs/rest`. */
  readonly label: string;
  /**
   * Only calls through the module's own export retry by default (`ky.get(url)`, ky's default
   * instance): an instance made elsewhere (`api.get(url)` of an imported `ky.create({...})`) may
   * be configured any way there, so it stays unknown.
   */
  readonly moduleCallsOnly?: boolean;
  /**
   * A call of the client known by its shape alone, for clients whose receivers carry no type
   * (`openai.chat.completions.create(...)` on a client passed in); calls recognised by the
   * library's `http` or `operations` facets need none.
   */
  matches?(call: TSESTree.CallExpression, ctx: AnalysisContext): boolean;
}

/**
 * Retry options written as a typed constant (`export const FAST: RetryOptions = { retries: 5 }`),
 * often in a file of policies that calls no retry itself: judged where they are written, by the
 * library's own reading of those options and its defaults.
 */
export interface OptionsTypeFacet {
  /** Exported type names whose values are the library's retry options (`WrapOptions`, `Options`). */
  readonly names: readonly string[];
  /** The site's settings read from an options object of that type. */
  read(view: OptionsView, ctx: AnalysisContext): Pick<RetrySite, 'attempts' | 'delay' | 'jitter' | 'deadlineMs' | 'errorFilter' | 'fixes'>;
}

/** What the breaker finder is asked: the site, the code it retries, and the calls of the file in a range. */
export interface BreakerQuery {
  readonly site: RetrySite;
  /** The retried code (functions, loops); empty for a client-level site. */
  readonly scopes: readonly Node[];
  callsIn(scope: Node): Iterable<TSESTree.CallExpression>;
}

export interface BreakerFacet {
  /** The breaker composed with the site (a call or construction of it), when there is one. */
  find(query: BreakerQuery, ctx: AnalysisContext): Node | undefined;
}

export interface LegacyFacet {
  /** Modules whose every import is a legacy retry helper (`async-retry`, `async/retry`). */
  readonly modules?: readonly string[];
  /** Legacy entry points inside otherwise fine modules: `async.retry`, rxjs `retryWhen`. */
  readonly exports?: Readonly<Record<string, readonly string[]>>;
  /** Added to the message on a legacy export: where the library's own replacement is. */
  readonly hint?: string;
}

/** The call whose callee is exactly this use: `pRetry(...)`, `got.extend(...)`. */
export function callOf(use: LibraryUse): TSESTree.CallExpression | undefined {
  const p = use.expression.parent;
  return p?.type === T.CallExpression && p.callee === use.expression ? p : undefined;
}

export function newOf(use: LibraryUse): TSESTree.NewExpression | undefined {
  const p = use.expression.parent;
  return p?.type === T.NewExpression && p.callee === use.expression ? p : undefined;
}

/** `@Retryable(...)`: the decorator whose expression calls this use. */
export function decoratorOf(use: LibraryUse): { decorator: TSESTree.Decorator; call: TSESTree.CallExpression } | undefined {
  const call = callOf(use);
  const p = call?.parent;
  return call && p?.type === T.Decorator ? { decorator: p, call } : undefined;
}

/** Argument `i` unless it is a spread (whose position then says nothing). */
export function argument(call: TSESTree.CallExpression | TSESTree.NewExpression, i: number): Node | undefined {
  for (let k = 0; k <= i && k < call.arguments.length; k++) if (call.arguments[k]!.type === T.SpreadElement) return undefined;
  return call.arguments[i];
}

/** True when a call passes a spread before or at `i`, so later positions are unknown. */
export function hasSpreadUpTo(call: TSESTree.CallExpression | TSESTree.NewExpression, i: number): boolean {
  for (let k = 0; k <= i && k < call.arguments.length; k++) if (call.arguments[k]!.type === T.SpreadElement) return true;
  return false;
}

export { isFunctionNode, labelOf } from './ast.js';

/** `fn` itself when it is a function literal, or the function a const binding points at. */
export function functionOf(node: Node | undefined, ctx: AnalysisContext): TSESTree.FunctionLike | undefined {
  if (!node) return undefined;
  if (isFunctionNode(node)) return node;
  const v = ctx.evaluator.evaluate(node);
  return typeof v === 'object' && v !== null && 'kind' in v && v.kind === 'function' ? v.node : undefined;
}

/** True when a function always returns `true` (e.g. `() => true`): a filter that lets everything through. */
export function alwaysTrue(fn: TSESTree.FunctionLike | undefined, ctx: AnalysisContext): boolean {
  if (!fn || !fn.body) return false;
  if (fn.body.type !== T.BlockStatement) return ctx.evaluator.evaluate(fn.body) === true;
  const body = fn.body.body;
  if (body.length !== 1) return false;
  const only = body[0]!;
  return only.type === T.ReturnStatement && !!only.argument && ctx.evaluator.evaluate(only.argument) === true;
}

