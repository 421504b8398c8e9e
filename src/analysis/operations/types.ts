/** The facts the operation analysis gives rules: what a retry site repeats, its keys and layers. */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import type { Execution, Node, RetrySite } from '../model.js';

export type Variable = TSESLint.Scope.Variable;

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
  /**
   * The id of the SDK that makes its own key per call (Stripe, AWS): an outer retry makes a new
   * call, so a new key.
   */
  readonly autoKey?: string | undefined;
  /**
   * The SDK whose call this is (or, through a helper, one the helper makes) when it rejects on a
   * 4xx response by itself.
   */
  readonly rejectingSdk?: string | undefined;
  /**
   * An HTTP request sending the method its caller passes, which the code compares only to choose a
   * response predicate (`method === 'GET' ? isRetryable : isRefused`): every method is sent, and a
   * retry of failures without a response (`RetrySite.errorFilter.retriesNoResponse`) repeats writes.
   */
  readonly methodPicksFilter?: boolean | undefined;
  /** Set for a request sending every method because its caller passes the method in (MethodParameter). */
  readonly methodParameter?: MethodParameter | undefined;
  /**
   * The method is the one this call passes to a function whose request sends it
   * (`fetchRetry(url, { method: 'POST' })` into `fetch(url, options)`), where the function's own
   * code left it open: what the call adds to what the function's own site says.
   */
  readonly methodFromCall?: boolean | undefined;
}

/**
 * Where the method a request sends comes from when its function's caller chooses it: parameter
 * `index` of `fn`, or the `key` member of the object passed there (`options.method`). A call of
 * that function decides the method again from what it passes.
 */
export interface MethodParameter {
  readonly fn: TSESTree.FunctionLike;
  readonly index: number;
  readonly key?: string | undefined;
}

export interface HttpCall {
  readonly node: TSESTree.CallExpression;
  /** The client's descriptor id (`axios`, `got`, `ky`, `superagent`, `ofetch`), or `fetch` for fetch-like calls. */
  readonly client: string;
  /** True when the call rejects on a 4xx response by itself, or the code throws on `!res.ok`. */
  readonly throwsOnClientError: boolean;
  /** Set for an SDK call (or a helper making one): its error carries the status in the SDK's own shape. */
  readonly sdk?: boolean | undefined;
  /**
   * Where the error the call rejects with keeps the HTTP status, read after the error
   * (`statusCode`, `$metadata?.httpStatusCode`, `status` for the code's own error that carries it);
   * undefined where the shape is not known.
   */
  readonly errorStatus?: string | undefined;
}

export interface OperationGroup {
  /** The retried function, loop or recursive function; undefined for calls through a client. */
  readonly scope: Node | undefined;
  readonly execution?: Execution | undefined;
  /** A key given to the retry engine itself (the runtime's `write({ idempotencyKey })`). */
  readonly engineKey?: IdempotencyKey | undefined;
  readonly operations: readonly Operation[];
  /**
   * Where findings about these operations are shown when they are written elsewhere: the method
   * handed to the retry by reference (`this.wrapWithRetry(this._createClient)`), not its body.
   */
  readonly shownAt?: Node | undefined;
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
  /**
   * Whether a client's setting is in force nowhere: the client is used only in this file, only by
   * calls, and every call writes that setting itself (`fetchRetry(fetch)` whose every call passes
   * `retryDelay`). Its defaults are then judged at no request, and the calls are judged by their own.
   */
  overriddenByEveryCall(site: RetrySite, setting: ClientSetting): boolean;
}

/** The settings a call through a client may write for itself. */
export type ClientSetting = 'attempts' | 'delay' | 'jitter';
