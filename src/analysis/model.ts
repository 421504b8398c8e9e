/**
 * The shared model of a retry site. Library descriptors and the hand-written loop detector
 * produce RetrySite values; rules only read them.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import type { Maybe } from './eval/values.js';
import type { Variable } from './ast.js';

export type Node = TSESTree.Node;

/** A normalised setting: its value (UNKNOWN when not statically known) and where it is written. */
export interface Setting<V> {
  readonly value: Maybe<V>;
  /** The property or argument that sets it; undefined when the library default applies. */
  readonly node?: Node | undefined;
  /**
   * Written in the options of the client a call goes through (`got.extend({ retry })`), not at the
   * call: the client's own site is judged for it there, once, and the call is not judged for it again.
   */
  readonly inherited?: boolean | undefined;
}

export type Growth = 'none' | 'constant' | 'linear' | 'exponential' | 'polynomial' | 'custom';

export interface DelaySchedule {
  /** `none` means retries are immediate (no wait at all). */
  readonly growth: Maybe<Growth>;
  readonly initialMs: Maybe<number>;
  readonly multiplier: Maybe<number>;
  /** Cap on a single wait; Infinity when uncapped. */
  readonly maxMs: Maybe<number>;
  /** Upper bound of the wait before retry `n` (1-based), jitter included; UNKNOWN when unknown. */
  upperBound(n: number): Maybe<number>;
  /**
   * Where `upperBound` is not known (a wait the server sets on some failures, a Retry-After on a
   * 429): the longest wait before retry `n` on failures whose wait is known and that go on to the
   * next attempt (a network error, a 5xx). A lower bound of the worst wait, never above it.
   */
  readonly leastWorst?: ((n: number) => Maybe<number>) | undefined;
  /** Where the backoff is configured (the squiggle for backoff findings). */
  readonly node?: Node | undefined;
  /** Written on the client a call goes through (see Setting.inherited). */
  readonly inherited?: boolean | undefined;
}

export interface ClientErrorInclusion {
  /** e.g. `400`, `404`, `400-499` */
  readonly status: string;
  readonly node: Node;
  /**
   * Retried only where the deployment's configuration says so (`RETRY_404_ENABLED && s === 404`):
   * the condition as written and the environment variables it reads.
   */
  readonly condition?: { readonly text: string; readonly reads: readonly string[] } | undefined;
}

export interface ErrorFilter {
  /**
   * `none`: no filter, every failure is retried;
   * `library-default`: the library's own error classification;
   * `statuses`: an explicit status/error list;
   * `custom`: a predicate or other filter whose meaning is not statically known (counts as a filter).
   */
  readonly kind: 'none' | 'library-default' | 'statuses' | 'custom';
  /** 4xx statuses that the filter retries although they can never succeed on retry. */
  readonly clientErrors: readonly ClientErrorInclusion[];
  /** An explicit "retry everything" (e.g. `retryCondition: () => true`, octokit `doNotRetry: []`). */
  readonly retriesEverything?: Node | undefined;
  /**
   * Only failures the server refused without processing the request are retried (429), never a
   * network error or another status: such a retry cannot repeat a write that took effect.
   */
  readonly refusedOnly?: boolean | undefined;
  /**
   * A failure without a response (a network error, after which a write may have landed) is
   * certainly retried, whatever response predicate the code is given.
   */
  readonly retriesNoResponse?: boolean | undefined;
  readonly node?: Node | undefined;
  /** For a filter read status by status: the 4xx statuses it retries (other than 408 and 429), which `clientErrors` lists as ranges. */
  readonly clientErrorStatuses?: readonly number[] | undefined;
}

/**
 * A retry's own guard on the request's method (`req.method !== 'POST'` on the way to another
 * attempt): whether a non-idempotent write (POST, PATCH) still gets one after a failure it may have
 * taken effect before, and which methods the guard keeps out.
 */
export interface RetriedMethods {
  readonly writes: Maybe<boolean>;
  /** The comparison of the method. */
  readonly node: Node;
  /** For messages: `any method but POST: PATCH retried`. */
  readonly label: string;
  /** The requests whose method is compared (`req` of `req.method`): a call sending one of them sends that method. */
  readonly requests: readonly Variable[];
}

export interface OptionEdit {
  /** Property path inside the site's options object, e.g. `['retry', 'limit']`. */
  readonly path: readonly string[];
  /** Source text of the new value. */
  readonly text: string;
  /** For edits outside an options object (hand-written loops): the source range `text` replaces. */
  readonly range?: readonly [number, number] | undefined;
  /** How the suggestion's menu entry names this edit, when `path: text` would not say it. */
  readonly label?: string | undefined;
  /**
   * A new import declaration (or require) this edit writes, so that two names the same suggestion
   * needs from one module are written as one declaration (`import { retry, timer } from 'rxjs'`).
   */
  readonly declares?: NewDeclaration | undefined;
}

/** `import { names } from 'module';` (or `const { names } = require('module');`), with what comes before and after it. */
export interface NewDeclaration {
  readonly module: string;
  readonly names: readonly string[];
  readonly form: 'import' | 'require';
  /** Placed after a statement (`\n` first) or at the start of the file (`\n` last). */
  readonly after: boolean;
}

/** How to write a setting in the library's own terms; used by suggestions. */
export interface SiteFixes {
  /** Restrict a client-level retry to idempotent requests (axios-retry's `isIdempotentRequestError`). */
  idempotentOnly?(): OptionEdit[] | undefined;
  attempts?(total: number): OptionEdit[] | undefined;
  exponential?(): OptionEdit[] | undefined;
  jitter?(): OptionEdit[] | undefined;
  /** Stop retrying 4xx, for a site without a descriptor of its own (a Resilience4j YAML block). */
  clientErrors?(): OptionEdit[] | undefined;
}

export type SiteKind = 'in-memory' | 'durable';

export interface RetrySite {
  /** Descriptor id (`p-retry`, `cockatiel`, ...) or `hand-written`. */
  readonly library: string;
  /** How the site is written, for messages: `pRetry()`, `axiosRetry()`, `for loop`. */
  readonly label: string;
  readonly kind: SiteKind;
  /** The whole construct: call, `new`, decorator, loop or function. */
  readonly node: Node;
  /** Where a finding about the site as a whole is shown (the callee, decorator, loop keyword). */
  readonly reportNode: Node;
  /** Total calls including the first; Infinity when unbounded. */
  readonly attempts: Setting<number>;
  readonly delay: DelaySchedule;
  readonly jitter: Setting<boolean>;
  readonly errorFilter: ErrorFilter;
  /** Overall deadline in ms covering attempts and waits; undefined when there is none. */
  readonly deadlineMs: Setting<number | undefined>;
  /** Per-attempt timeout in ms; undefined when there is none. */
  readonly attemptTimeoutMs: Setting<number | undefined>;
  /** The function it repeats, or the client/instance it configures. */
  readonly operation?: Node | undefined;
  /**
   * Functions the retry runs again besides its operation: the projections of rxjs flattening
   * operators piped before `retry` (`switchMap(() => this.load(id))`), whose observables it
   * resubscribes.
   */
  readonly alsoRepeats?: readonly TSESTree.FunctionLike[] | undefined;
  /**
   * True when the code wrote no retry configuration and the site exists only because the library
   * retries by default (a plain `got(url)`, `new S3Client({})`): judged for what it does, but not
   * asked to be composed with a breaker.
   */
  readonly implicit?: boolean | undefined;
  /**
   * The retry has no bound of its own and leaves when an abort signal fires (`if (signal.aborted)
   * return`): whoever holds the signal decides when it stops (a user, perhaps a deadline), so the
   * attempts are unbounded and the time is unknown here (`deadlineMs` UNKNOWN).
   */
  readonly stopsOnAbort?: boolean | undefined;
  /** True when the retry is a client's configuration and applies to every call through it. */
  readonly clientLevel: boolean;
  /**
   * A persistent connection's retries (a Redis client, a realtime socket). `reconnection`: the
   * connection itself re-established after it dropped, for as long as the client lives; no request
   * retry, so judged only for its schedule (backoff and jitter: a fleet reconnecting in step is a
   * thundering herd), and only where a strategy is written (`implicit` otherwise: the library's
   * defaults are its reconnection design). `queued-request`: the requests waiting on that
   * connection, re-sent once it is back, with a count the caller wrote; judged for attempts and
   * time, their waits being the reconnection's (whose shape is judged at the reconnection).
   */
  readonly connection?: 'reconnection' | 'queued-request' | undefined;
  /** The options object literal that suggestions may edit, and where to add one if absent. */
  readonly options?: OptionsTarget | undefined;
  readonly fixes?: SiteFixes | undefined;
  /** The circuit breaker the retry is composed with (cockatiel `wrap(retry, breaker)`), when known. */
  readonly breaker?: Node | undefined;
  /**
   * For client-level retries: whether requests with non-idempotent methods (POST, PATCH) are
   * re-sent, and the option that decides it (got's `methods`, axios-retry's `retryCondition`).
   */
  readonly retriesWrites?: Setting<boolean> | undefined;
  /**
   * For a site whose retried code compares the request's method on the way to another attempt: the
   * methods it lets through. A request of that code whose method is not known is a write when the
   * guard lets a write through.
   */
  readonly retriedMethods?: RetriedMethods | undefined;
  /** Calls that run operations through this site when it defines a reusable policy or client. */
  readonly executions?: readonly Execution[] | undefined;
  /**
   * For a call to the team's own retry helper (`withRetry(fn, opts)`): the findings that belong to
   * the helper's own code rather than to this call (its hard-coded numbers and defaults, its lack
   * of a breaker). The values stay set (a nested retry still multiplies them); rules report these
   * once, where the helper is written, instead of at every call.
   */
  readonly fromHelper?: ReadonlySet<HelperFinding> | undefined;
  /**
   * "Repair, then try again": a way back with no count of attempts that awaits a call fixing the
   * cause (a prompt for a one-time password, a token refresh, issuing a missing certificate) before
   * calling again. The awaited repair; no transient-failure retry, so only its writes are judged.
   */
  readonly repair?: Node | undefined;
  /**
   * The retry re-runs a transaction only when the database reports a conflict it rolled back (a
   * serialization failure, a deadlock: `e.code === 'P2034'`, `'40001'`): nothing was written, and the
   * database asks for the re-run. The test that says so; only its count is judged.
   */
  readonly conflictRerun?: Node | undefined;
  /**
   * Settings the site does not write and takes from configuration another file applies to it
   * (a TanStack Query hook's `retryDelay` from the QueryClient's defaults): which, and that file
   * (relative to the project's root).
   */
  readonly defaultsFrom?: { readonly file: string; readonly settings: readonly string[] } | undefined;
  /**
   * For defaults that code in other files takes (a QueryClient's `defaultOptions`): the first such
   * use found that sends an HTTP request rejecting on 4xx. Asked lazily (it reads other files),
   * once, by the rule that judges which errors the defaults retry; undefined when none is found.
   */
  readonly defaultsTakenBy?: (() => DefaultsUse | undefined) | undefined;
  /**
   * For defaults that code in other files takes: the first such use whose retried code sends through
   * a layer that retries on its own (a client configured with retries in yet another file). Asked
   * lazily, once, by no-nested-retry; undefined when none is found.
   */
  readonly defaultsNestedBy?: (() => DefaultsNested | undefined) | undefined;
}

/** A use of a client's defaults in another file whose retried code runs another retry layer. */
export interface DefaultsNested {
  /** `useQuery()` */
  readonly hook: string;
  /** The hook's file relative to the project's root, with its line. */
  readonly at: string;
  /** The inner layer, as the nested-retry facts name it. */
  readonly label: string;
  readonly attempts: number;
}

/** A use of a client's defaults in another file: the hook, the request it sends, and where. */
export interface DefaultsUse {
  /** `useQuery()` */
  readonly hook: string;
  /** The request rejecting on 4xx, or the project's helper sending one (`api.get()`, `users.list()`). */
  readonly call: string;
  /** The hook's file relative to the project's root, with its line: `src/pages/users.ts:12`. */
  readonly at: string;
}

/** What a rule may leave to the helper's own site: one kind of finding per rule. */
export type HelperFinding = 'attempts' | 'duration' | 'backoff' | 'jitter' | 'breaker';

/**
 * A call that runs an operation through a retry defined elsewhere: `policy.read(fn)`,
 * `policy.write({ idempotencyKey }, fn)`, cockatiel's `policy.execute(fn)`.
 */
export interface Execution {
  readonly call: TSESTree.CallExpression;
  readonly operation: Node | undefined;
  /** The per-call options object (the runtime's write options carry the idempotency key). */
  readonly options?: Node | undefined;
  /** `read`, `write`, `execute`: what the call declares about the operation. */
  readonly method: string;
}

export interface OptionsTarget {
  /** The object literal holding the options, when it is written inline or in a local const. */
  readonly object?: TSESTree.ObjectExpression | undefined;
  /** Where a new options argument would go when none is passed (the call), with its index. */
  readonly call?: TSESTree.CallExpression | TSESTree.NewExpression | undefined;
  readonly argumentIndex?: number | undefined;
}
