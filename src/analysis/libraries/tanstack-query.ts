/**
 * TanStack Query (react-query 3, @tanstack/*-query 4 and 5) and tRPC's `queryClientConfig`.
 *
 * Read from TanStack/query at v5.102.0 (packages/query-core/src/retryer.ts, query.ts,
 * mutation.ts), the same in v4.36.2 and v3 (src/core/retryer.ts):
 * - `retry` is `failureCount < retry` for a number (retries, not attempts), `true` forever, or
 *   `(failureCount, error) => boolean` called with 0 after the first failure. Queries default to
 *   `retry ?? 3` in the browser (0 on the server since v5), mutations to `retry ?? 0`.
 * - `retryDelay` is a number or `(failureCount, error) => ms`; the default is
 *   `Math.min(1000 * 2 ** failureCount, 30000)`: 1 s, 2 s, 4 s ... capped at 30 s, no randomness.
 * - Every error is retried unless `retry` is a function that looks at it; a mutation retried is
 *   the same write sent again.
 *
 * A hook that writes `retry` is a site of its own (`useQuery`, `useMutation`, ...); a hook that
 * writes nothing takes the QueryClient's defaults, which live where the client is built (often
 * another file), so it is not one. `new QueryClient(...)` is judged for its `defaultOptions`,
 * the library's own defaults included when `queries.retry` is not written.
 *
 * Across files (`query-defaults.ts` finds the project's one QueryClient and its hook files): a hook
 * that writes `retry` but no `retryDelay` waits as the defaults say, and defaults that retry every
 * error are judged by what the hooks taking them send (a query function whose client rejects on
 * 4xx). A project with several QueryClients, or defaults changed at run time, stays unknown.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor, LibraryUse } from '../library.js';
import { alwaysTrue, argument, callOf, functionOf, isFunctionNode, labelOf, newOf } from '../library.js';
import { relative } from 'node:path';
import type { DefaultsNested, DefaultsUse, DelaySchedule, ErrorFilter, Node, RetrySite, Setting } from '../model.js';
import type { OptionValue, OptionsView } from '../options.js';
import { NO_DELAY, UNKNOWN_SCHEDULE, customSchedule, geometricSchedule } from '../schedule.js';
import { UNKNOWN, isStaticFunction } from '../eval/values.js';
import { staticPropertyName, unwrap } from '../ast.js';
import { readDelayFunction, scheduleOfReading } from './delay-function.js';
import { NO_FILTER, customFilter, optionsTarget, site } from './shared.js';
import { functionSchedule, type LibraryFixes } from '../fix-plan.js';
import { queryProject, type QueryProject } from '../query-defaults.js';
import { calleeText } from '../operations/file.js';
import type { OperationFacts } from '../operations/types.js';

export const TANSTACK_MODULES = [
  '@tanstack/react-query', '@tanstack/vue-query', '@tanstack/solid-query', '@tanstack/svelte-query',
  '@tanstack/angular-query-experimental', '@tanstack/query-core', 'react-query',
];
const QUERY_HOOKS = new Set(['useQuery', 'useInfiniteQuery', 'useSuspenseQuery', 'useSuspenseInfiniteQuery', 'createQuery', 'createInfiniteQuery', 'injectQuery', 'injectInfiniteQuery']);
const MUTATION_HOOKS = new Set(['useMutation', 'createMutation', 'injectMutation']);
const QUERY_DEFAULT_RETRIES = 3;
const DEFAULT_DELAY = { initialMs: 1000, multiplier: 2, maxMs: 30_000 };

/**
 * `retry` counts retries; a changed wait is `retryDelay` as full jitter of `failureCount` (0 before
 * the first retry). A `retry` function (a filter, or a bound of its own) is never replaced by a count.
 */
const COUNT_AND_DELAY = functionSchedule({
  attempts: { path: ['retry'], counts: 'retries' },
  delay: (body) => ({ path: ['retryDelay'], text: `(failureCount) => ${body('failureCount')}` }),
});
const TANSTACK_FIXES: LibraryFixes = {
  schedule: {
    ...COUNT_AND_DELAY,
    write(plan, changed, site, ctx) {
      if (changed.has('attempts') && site.errorFilter.kind !== 'none') return undefined;
      return COUNT_AND_DELAY.write(plan, changed, site, ctx);
    },
  },
};

export const tanstackQuery: LibraryDescriptor = {
  id: 'tanstack-query',
  modules: TANSTACK_MODULES,
  fixes: TANSTACK_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      if (QUERY_HOOKS.has(use.path) || MUTATION_HOOKS.has(use.path)) {
        const s = hookSite(use, MUTATION_HOOKS.has(use.path) ? 'mutation' : 'query', ctx);
        if (s) sites.push(s);
      } else if (use.path === 'QueryClient') {
        const call = newOf(use);
        if (call) sites.push(...clientSites(argument(call, 0), call, use.expression, 'tanstack-query', ctx));
      }
    }
    return sites;
  },
};

/**
 * tRPC's Next.js and React helpers build their QueryClient from `queryClientConfig`:
 * `createTRPCNext({ config() { return { links, queryClientConfig: { defaultOptions } } } })`.
 * Every tRPC procedure call is an HTTP request whose 4xx responses reject with a
 * TRPCClientError, so a `retry` that does not look at the error retries them.
 */
export const trpcQuery: LibraryDescriptor = {
  id: 'trpc-query',
  modules: ['@trpc/next', '@trpc/react-query', '@trpc/react'],
  fixes: TANSTACK_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      if (!['createTRPCNext', 'withTRPC', 'createTRPCReact', 'createReactQueryHooks'].includes(use.path)) continue;
      const call = callOf(use);
      if (!call) continue;
      const view = ctx.options(argument(call, 0));
      const config = view.get('config');
      const fn = functionOf(config.valueNode, ctx) ?? methodOf(view.object, 'config');
      const returned = fn && returnedObject(fn);
      if (!returned) continue;
      const clientConfig = ctx.options(returned).get('queryClientConfig');
      if (!clientConfig.property) continue;
      sites.push(...clientSites(clientConfig.valueNode, call, use.expression, 'trpc-query', ctx));
    }
    return sites;
  },
};

type Kind = 'query' | 'mutation';

function hookSite(use: LibraryUse, kind: Kind, ctx: AnalysisContext): RetrySite | undefined {
  const call = callOf(use);
  if (!call) return undefined;
  const { options, operation, index } = hookArguments(call, kind, ctx);
  if (!options || options.state !== 'object') return undefined;
  const retry = options.get('retry');
  if (!retry.property) return undefined;
  const attempts = readRetry(retry, ctx);
  if (attempts.attempts.value === 1) return undefined;
  const retryDelay = options.get('retryDelay');
  const taken = !retryDelay.property && retryDelay.value === undefined ? takenDelay(ctx, kind) : undefined;
  const delay = taken?.delay ?? readRetryDelay(retryDelay, 'hook', ctx);
  const label = `${labelOf(use.expression, ctx.sourceCode)}()`;
  return site({
    library: 'tanstack-query',
    label: taken ? `${label} (its retryDelay from the QueryClient defaults in ${taken.file})` : label,
    ...(taken ? { defaultsFrom: { file: taken.file, settings: ['retryDelay'] } } : {}),
    node: call,
    reportNode: use.expression,
    attempts: attempts.attempts,
    errorFilter: attempts.filter,
    delay: delay.schedule,
    jitter: delay.jitter,
    operation,
    options: optionsTarget(options, call, index),
    fixes: tanstackFixes(),
  });
}

/**
 * The options object and the function a hook runs: `useQuery({ queryKey, queryFn, retry })`,
 * v3/v4's `useQuery(key, fn, options)` and `useMutation(fn, options)`, v3's `useMutation(key, fn, options)`.
 */
function hookArguments(call: TSESTree.CallExpression, kind: Kind, ctx: AnalysisContext): { options?: OptionsView; operation?: Node; index: number } {
  const fnKey = kind === 'query' ? 'queryFn' : 'mutationFn';
  for (let i = 0; i < Math.min(call.arguments.length, 3); i++) {
    const arg = argument(call, i);
    if (!arg) return { index: i };
    const resolved = ctx.evaluator.resolve(arg);
    if (resolved.type !== T.ObjectExpression) continue;
    const options = ctx.options(arg);
    // The positional forms put the function before the options.
    const before = i > 0 ? argument(call, i - 1) : undefined;
    const positional = before && functionOf(before, ctx) ? before : undefined;
    return { options, operation: options.get(fnKey).valueNode ?? positional, index: i };
  }
  return { index: 0 };
}

/** `new QueryClient({ defaultOptions: { queries, mutations } })`: one site per group that retries. */
function clientSites(configNode: Node | undefined, call: TSESTree.CallExpression | TSESTree.NewExpression, reportNode: Node, library: string, ctx: AnalysisContext): RetrySite[] {
  const config = ctx.options(configNode);
  if (config.state === 'unknown') return [];
  const defaults = config.sub('defaultOptions');
  if (defaults.state === 'unknown') return [];
  const out: RetrySite[] = [];
  for (const kind of ['query', 'mutation'] as const) {
    const key = kind === 'query' ? 'queries' : 'mutations';
    const group = defaults.sub(key);
    if (group.state === 'unknown') continue;
    const retry = group.get('retry');
    // Mutations do not retry unless told to; queries retry 3 times unless told otherwise.
    if (!retry.property && (kind === 'mutation' || retry.value !== undefined)) continue;
    const attempts = retry.property ? readRetry(retry, ctx) : { attempts: { value: QUERY_DEFAULT_RETRIES + 1 }, filter: NO_FILTER };
    if (attempts.attempts.value === 1) continue;
    const delay = readRetryDelay(group.get('retryDelay'), 'client', ctx);
    const groupProperty = defaults.get(key).property;
    let filter = attempts.filter;
    // tRPC: every operation is HTTP and a 4xx rejects, so a filter-less retry retries 4xx.
    if (library === 'trpc-query' && filter.kind === 'none' && retry.property) filter = { ...filter, retriesEverything: retry.property, node: retry.property };
    out.push(site({
      library,
      label: `${labelOf(reportNode, ctx.sourceCode)}() ${key}`,
      // The group, not the `new` expression: a QueryClient is no retrying HTTP client for
      // calls such as `queryClient.invalidateQueries()`.
      node: groupProperty ?? call,
      reportNode: retry.property ?? groupProperty ?? reportNode,
      attempts: attempts.attempts,
      errorFilter: filter,
      delay: delay.schedule,
      jitter: delay.jitter,
      clientLevel: true,
      // Every mutation is a write (its whole point), sent again on each retry: a default that
      // retries mutations re-sends whatever writes the app makes, keyed or not.
      ...(kind === 'mutation' && retry.property ? { retriesWrites: { value: true, node: retry.property } } : {}),
      ...(retry.property ? {} : { implicit: true }),
      // Every error retried: what the hooks taking these defaults send decides whether 4xx are.
      ...(library === 'tanstack-query' ? { defaultsTakenBy: once(() => defaultsUser(ctx, kind)), defaultsNestedBy: once(() => defaultsNested(ctx, kind)) } : {}),
      options: group.object ? { object: group.object } : undefined,
      fixes: tanstackFixes(),
    }));
  }
  return out;
}

function tanstackFixes() {
  return {
    attempts: (total: number) => [{ path: ['retry'], text: String(total - 1) }],
    jitter: () => [{ path: ['retryDelay'], text: '(n) => Math.random() * Math.min(1000 * 2 ** n, 30000)' }],
  };
}

/** `retry`: a count of retries, `true` (forever), `false`, or `(failureCount, error) => boolean`. */
function readRetry(retry: OptionValue, ctx: AnalysisContext): { attempts: Setting<number>; filter: ErrorFilter } {
  const node = retry.property;
  const v = retry.value;
  if (typeof v === 'number') return { attempts: { value: v > 0 ? (v === Infinity ? Infinity : Math.floor(v) + 1) : 1, node }, filter: { ...NO_FILTER, node } };
  if (v === true) return { attempts: { value: Infinity, node }, filter: { ...NO_FILTER, node } };
  if (v === false || v === null) return { attempts: { value: 1, node }, filter: NO_FILTER };
  const fn = isStaticFunction(v) ? functionOf(retry.valueNode, ctx) : undefined;
  if (!fn) return { attempts: { value: UNKNOWN, node }, filter: customFilter(node) };
  if (alwaysTrue(fn, ctx)) return { attempts: { value: Infinity, node }, filter: { kind: 'none', clientErrors: [], retriesEverything: node, node } };
  const bound = failureCountBound(fn, ctx);
  const looksAtError = fn.params.length > 1 && usesParameter(fn, 1, ctx);
  return {
    attempts: bound ? { value: bound.value, node } : { value: UNKNOWN, node },
    filter: looksAtError || !bound ? customFilter(node) : { ...NO_FILTER, node },
  };
}

/**
 * `retryDelay`. Where a hook writes none, the wait comes from its QueryClient's defaults,
 * usually set in another file: the library default is assumed for its shape (exponential, no
 * randomness, which a client default rarely changes) but its length is left unknown.
 */
function readRetryDelay(option: OptionValue, where: 'hook' | 'client', ctx: AnalysisContext): { schedule: DelaySchedule; jitter: Setting<boolean> } {
  const node = option.property;
  if (!node && option.value === undefined) {
    if (where === 'hook') return { schedule: customSchedule('exponential', () => UNKNOWN, { multiplier: 2 }), jitter: { value: false } };
    return { schedule: geometricSchedule({ growth: 'exponential', ...DEFAULT_DELAY }), jitter: { value: false } };
  }
  if (typeof option.value === 'number') {
    if (option.value <= 0) return { schedule: { ...NO_DELAY, node }, jitter: { value: false, node } };
    return { schedule: geometricSchedule({ growth: 'constant', initialMs: option.value, multiplier: 1, node }), jitter: { value: false, node } };
  }
  const reading = readDelayFunction(option.valueNode, ctx, ['n', undefined], { argumentFor: (n) => n - 1 });
  if (!reading) return { schedule: { ...UNKNOWN_SCHEDULE, node }, jitter: { value: UNKNOWN, node } };
  return { schedule: scheduleOfReading(reading, node), jitter: { value: reading.jitter, node } };
}

/**
 * `(failureCount) => failureCount < 2` (or `{ return failureCount < 2 && ... }`): failureCount is
 * 0 after the first failure, so `< N` allows N retries, N + 1 calls.
 */
function failureCountBound(fn: TSESTree.FunctionLike, ctx: AnalysisContext): { value: number } | undefined {
  const param = fn.params[0];
  if (param?.type !== T.Identifier || !fn.body) return undefined;
  let expr: Node | undefined = fn.body;
  if (fn.body.type === T.BlockStatement) {
    const only = fn.body.body.length === 1 ? fn.body.body[0] : undefined;
    expr = only?.type === T.ReturnStatement ? only.argument ?? undefined : undefined;
  }
  const terms: Node[] = [];
  const collect = (n: Node) => {
    const u = unwrap(n);
    if (u.type === T.LogicalExpression && u.operator === '&&') { collect(u.left); collect(u.right); } else terms.push(u);
  };
  if (expr) collect(expr);
  let calls: number | undefined;
  for (const t of terms) {
    if (t.type !== T.BinaryExpression || t.left.type === T.PrivateIdentifier) continue;
    const flipped: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };
    let op: string = t.operator;
    let other: Node;
    if (t.left.type === T.Identifier && t.left.name === param.name) other = t.right;
    else if (t.right.type === T.Identifier && t.right.name === param.name) { other = t.left; op = flipped[op] ?? op; } else continue;
    const n = ctx.evaluator.number(other);
    if (n === UNKNOWN) continue;
    const total = op === '<' ? Math.max(0, Math.ceil(n)) + 1 : op === '<=' ? Math.max(0, Math.floor(n) + 1) + 1 : undefined;
    if (total !== undefined) calls = calls === undefined ? total : Math.min(calls, total);
  }
  return calls === undefined ? undefined : { value: calls };
}

/** Whether the function reads its `index`-th parameter anywhere in its body. */
function usesParameter(fn: TSESTree.FunctionLike, index: number, ctx: AnalysisContext): boolean {
  const param = fn.params[index];
  if (!param) return false;
  if (param.type !== T.Identifier) return true; // destructured: it reads something
  const variable = ctx.sourceCode.getDeclaredVariables(fn).find((v) => v.name === param.name);
  return !variable || variable.references.some((r) => r.isRead());
}

function methodOf(object: TSESTree.ObjectExpression | undefined, key: string): TSESTree.FunctionLike | undefined {
  for (const p of object?.properties ?? []) {
    if (p.type === T.Property && staticPropertyName(p) === key && isFunctionNode(p.value)) return p.value;
  }
  return undefined;
}

/** The object literal a function returns when it has a single `return {...}` (or an expression body). */
function returnedObject(fn: TSESTree.FunctionLike): Node | undefined {
  if (!fn.body) return undefined;
  if (fn.body.type !== T.BlockStatement) return unwrap(fn.body).type === T.ObjectExpression ? fn.body : undefined;
  const returns = fn.body.body.filter((s): s is TSESTree.ReturnStatement => s.type === T.ReturnStatement);
  const only = returns.length === 1 ? returns[0]!.argument : undefined;
  return only && unwrap(only).type === T.ObjectExpression ? only : undefined;
}

/** The hook files of a project read at most for a use of its defaults. */
const MAX_HOOK_FILES = 60;

function once<V>(fn: () => V): () => V {
  let done = false;
  let value: V;
  return () => {
    if (!done) { value = fn(); done = true; }
    return value;
  };
}

/**
 * The project's one QueryClient's defaults for queries or mutations, read in the file that builds
 * it; undefined when the project cannot be read or does not have exactly one.
 */
function projectDefaults(ctx: AnalysisContext, kind: Kind): { group: OptionsView; ctx: AnalysisContext; file: string } | undefined {
  if (!ctx.project || !ctx.file) return undefined;
  const project = queryProject(ctx.file);
  if (!project || project.overridden || project.clients.length !== 1) return undefined;
  const file = project.clients[0]!;
  // A file that builds a QueryClient the walk left out (a test's own) may hand its hooks that one.
  if (file !== ctx.file && clientConstructions(ctx).length > 0) return undefined;
  const other = file === ctx.file ? ctx : ctx.project.open(file);
  const calls = other ? clientConstructions(other) : [];
  if (!other || calls.length !== 1) return undefined;
  const config = other.options(argument(calls[0]!, 0));
  if (config.state === 'unknown') return undefined;
  const defaults = config.sub('defaultOptions');
  if (defaults.state === 'unknown') return undefined;
  const group = defaults.sub(kind === 'query' ? 'queries' : 'mutations');
  if (group.state === 'unknown') return undefined;
  return { group, ctx: other, file: relative(project.root, file) };
}

/** `new QueryClient(...)` of TanStack Query in a file. */
function clientConstructions(ctx: AnalysisContext): TSESTree.NewExpression[] {
  const out: TSESTree.NewExpression[] = [];
  for (const b of ctx.imports.bindings) {
    if (!TANSTACK_MODULES.includes(b.module) || b.path !== 'QueryClient') continue;
    for (const ref of b.variable.references) {
      const p = ref.identifier.parent;
      if (p?.type === T.NewExpression && p.callee === ref.identifier) out.push(p);
    }
  }
  return out;
}

/**
 * The wait of a hook that writes `retry` and no `retryDelay`: the project's QueryClient defaults'
 * (the library's own when they write none), without a node (it is written in another file).
 */
function takenDelay(ctx: AnalysisContext, kind: Kind): { delay: { schedule: DelaySchedule; jitter: Setting<boolean> }; file: string } | undefined {
  const defaults = projectDefaults(ctx, kind);
  if (!defaults) return undefined;
  const read = readRetryDelay(defaults.group.get('retryDelay'), 'client', defaults.ctx);
  if (read.schedule.growth === UNKNOWN) return undefined;
  return { delay: { schedule: { ...read.schedule, node: undefined }, jitter: { value: read.jitter.value } }, file: defaults.file };
}

/**
 * For the defaults of the project's one QueryClient, built in `ctx`'s file: the first hook of the
 * project that takes them (it writes no `retry`) and sends a request rejecting on 4xx.
 */
function defaultsUser(ctx: AnalysisContext, kind: Kind): DefaultsUse | undefined {
  return perProject(ctx, `hook-request:${kind}`, (project) => {
    for (const use of hookUses(ctx, project, kind)) {
      const http = use.facts().httpCalls.find((c) => c.throwsOnClientError);
      if (http) return { hook: use.hook, call: `${calleeText(http.node.callee) ?? '…'}()`, at: use.at };
    }
    return undefined;
  });
}

/**
 * For the defaults of the project's one QueryClient, built in `ctx`'s file: the first hook of the
 * project that takes them and whose query function sends through a client that retries on its
 * own (an imported ky or axios instance configured with retries in a third file).
 */
function defaultsNested(ctx: AnalysisContext, kind: Kind): DefaultsNested | undefined {
  return perProject(ctx, `hook-nested:${kind}`, (project) => {
    for (const use of hookUses(ctx, project, kind)) {
      const inner = use.facts().nested.find((n) => n.attempts > 1);
      if (inner) return { hook: use.hook, at: use.at, label: inner.label, attempts: inner.attempts };
    }
    return undefined;
  });
}

/** An answer about the hooks taking the defaults of `ctx`'s QueryClient, once per walk of the project. */
function perProject<R>(ctx: AnalysisContext, key: string, answer: (project: QueryProject) => R | undefined): R | undefined {
  const project = ctx.project && ctx.file ? queryProject(ctx.file) : undefined;
  if (!project || project.overridden || project.clients.length !== 1 || project.clients[0] !== ctx.file) return undefined;
  if (clientConstructions(ctx).length !== 1) return undefined;
  // What the hooks send does not depend on the client's file: asked once per walk of the project.
  return remembered(project, key, () => answer(project));
}

/** `compute`'s answer, kept under `key` for the life of this walk of the project. */
function remembered<R>(project: QueryProject, key: string, compute: () => R): R {
  if (!project.answers.has(key)) project.answers.set(key, compute());
  return project.answers.get(key) as R;
}

/** Each hook of the project taking the defaults, in file order, with what its query function repeats (read on demand). */
function* hookUses(ctx: AnalysisContext, project: QueryProject, kind: Kind): Generator<{ hook: string; at: string; facts: () => OperationFacts }> {
  for (const file of project.hookFiles.slice(0, MAX_HOOK_FILES)) {
    const other = file === ctx.file ? ctx : ctx.project!.open(file);
    if (!other) continue;
    for (const hook of hooksTakingDefaults(other, kind)) {
      // A query function imported from a third file is read there (`queryFn: fetchShortLinks`).
      const id = unwrap(hook.operation);
      const imported = id.type === T.Identifier ? other.importedValue?.(id) : undefined;
      const fn = imported ? functionOf(imported.node, imported.ctx) : undefined;
      const where = fn ? { ctx: imported!.ctx, node: fn as Node, operation: fn as Node } : { ctx: other, node: hook.call as Node, operation: hook.operation };
      const probe = site({
        library: 'tanstack-query', label: hook.label, node: where.node, reportNode: where.node,
        attempts: { value: UNKNOWN }, errorFilter: NO_FILTER, delay: UNKNOWN_SCHEDULE, jitter: { value: UNKNOWN }, operation: where.operation,
      });
      const at = `${relative(project.root, file)}:${hook.call.loc.start.line}`;
      // Asked by each question about the defaults (4xx, nested layers): read once per walk.
      const key = `hook-facts:${kind}:${at}:${hook.call.range[0]}`;
      yield { hook: hook.label, at, facts: () => remembered(project, key, () => ctx.project!.facts(where.ctx, probe)) };
    }
  }
}

/** The hook calls of a file that write no `retry` (they take the defaults), with the function each runs. */
function hooksTakingDefaults(ctx: AnalysisContext, kind: Kind): { call: TSESTree.CallExpression; label: string; operation: Node }[] {
  const hooks = kind === 'query' ? QUERY_HOOKS : MUTATION_HOOKS;
  const out: { call: TSESTree.CallExpression; label: string; operation: Node }[] = [];
  for (const b of ctx.imports.bindings) {
    if (!TANSTACK_MODULES.includes(b.module) || !hooks.has(b.path)) continue;
    for (const ref of b.variable.references) {
      const call = ref.identifier.parent;
      if (call?.type !== T.CallExpression || call.callee !== ref.identifier) continue;
      const { options, operation, index } = hookArguments(call, kind, ctx);
      let runs: Node | undefined = operation;
      if (options) {
        const retry = options.get('retry');
        // Its own retry, one that may be (an unknown spread), or a QueryClient of its own passed after the options.
        if (options.state !== 'object' || retry.property || retry.value !== undefined || call.arguments.length > index + 1) continue;
      } else {
        // `useQuery(key, fn)`, `useMutation(fn)`: the positional forms without options.
        const last = call.arguments.length <= 2 ? argument(call, call.arguments.length - 1) : undefined;
        runs = last && functionOf(last, ctx) ? last : undefined;
      }
      if (runs) out.push({ call, label: `${b.path}()`, operation: runs });
    }
  }
  return out.sort((a, b) => a.call.range[0] - b.call.range[0]);
}
