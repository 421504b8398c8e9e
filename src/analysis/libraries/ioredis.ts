/**
 * ioredis: `new Redis(options)` reconnects a lost connection on the schedule its `retryStrategy`
 * returns, and the commands waiting on it are re-sent once it is back.
 *
 * Read from redis/ioredis at v5.9.3 and v6.0.0 (lib/redis/RedisOptions.ts for the defaults,
 * lib/redis/event_handler.ts `closeHandler` for how they are used):
 * - `retryStrategy(times)`, `times` counting reconnections from 1; a number is the wait before the
 *   next one, anything else (null, undefined) ends reconnecting, and so does a `retryStrategy`
 *   that is not a function (`null`). The default never stops: v5 waits min(times x 50, 2000) ms
 *   (linear, no randomness), v6 min(50 x 2^(times-1), 5000) ms plus 0-199 ms of jitter.
 * - `maxRetriesPerRequest` (default 20; `null`: no limit): when the reconnection count reaches a
 *   multiple of maxRetriesPerRequest + 1, the commands waiting are rejected (and all of them when
 *   the strategy gives up). A caller's command so waits through at most maxRetriesPerRequest
 *   reconnection waits.
 * - `connectTimeout` (10 s) bounds each connection attempt but is not counted: it is spent only
 *   when the host does not answer, and a refused connection fails at once.
 * Which major version a project uses is not read, so where the defaults differ (the default
 * strategy's shape and jitter) they are unknown; its waits are bounded by the smaller of the two.
 *
 * Two kinds of site (`connection` in the model):
 * - the reconnection (`retryStrategy`, `sentinelRetryStrategy`, `clusterRetryStrategy`): a
 *   long-lived connection re-established for as long as the client lives, not a retry of a request.
 *   A client that stops reconnecting is broken, so it is judged only for its schedule (backoff,
 *   jitter), and only where a strategy is written: the defaults are the library's design, `implicit`.
 * - the commands queued on it (`maxRetriesPerRequest`): a request retry, judged for its count and
 *   time only where the caller wrote a number. The default 20 is the library's; `null` is what
 *   BullMQ requires of a worker's connection (a blocking command waits for the connection to come
 *   back, the queue's design), so neither is a site.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { functionOf, labelOf, newOf } from '../library.js';
import { isDefaultPath } from '../imports.js';
import { unwrap } from '../ast.js';
import type { Growth, Node, RetrySite, Setting } from '../model.js';
import type { OptionsView } from '../options.js';
import { customSchedule } from '../schedule.js';
import { UNKNOWN, isKnown, type Maybe } from '../eval/values.js';
import { LIBRARY_FILTER, optionsTarget, site } from './shared.js';
import { implicitWhen, optionsArgument } from './sdk-shared.js';
import { callsUntilStoppedAtAll, numericExpression, readDelayFunction, returnedValues, scheduleOfReading, type FailureDecision } from './delay-function.js';

/** The default strategy's wait before reconnection `n`, the smaller of v5's and v6's. */
function defaultWait(n: number): number {
  const v5 = Math.min(n * 50, 2000);
  const v6 = Math.min(50 * 2 ** (n - 1), 5000);
  return Math.min(v5, v6);
}

/** A strategy the library applies when none is written: never stops, waits `wait(times)`. */
function defaultStrategy(growth: Maybe<Growth>, wait: (n: number) => number, jitter: Maybe<boolean>): StrategyRead {
  const delay = customSchedule(growth, wait, { initialMs: wait(1), multiplier: UNKNOWN, maxMs: UNKNOWN });
  return { attempts: { value: Infinity }, delay, jitter: { value: jitter } };
}

const REDIS_DEFAULT = defaultStrategy(UNKNOWN, defaultWait, UNKNOWN);
/** `sentinelRetryStrategy`, the same in v5 and v6: min(times x 10, 1000) ms, never stops. */
const SENTINEL_DEFAULT = defaultStrategy('linear', (n) => Math.min(n * 10, 1000), false);
/** `clusterRetryStrategy`, the same in v5 and v6 (lib/cluster/ClusterOptions.ts): min(100 + times x 2, 2000) ms. */
const CLUSTER_DEFAULT = defaultStrategy('linear', (n) => Math.min(100 + n * 2, 2000), false);

export const ioredis: LibraryDescriptor = {
  id: 'ioredis',
  modules: ['ioredis'],
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = newOf(use);
      if (!call) continue;
      if (isDefaultPath(use.path) || use.path === 'Redis') sites.push(...redisSites(call, use.expression, ctx));
      else if (use.path === 'Cluster') {
        const s = clusterSite(call, use.expression, ctx);
        if (s) sites.push(s);
      }
    }
    return sites;
  },
};

/**
 * `new Cluster(nodes, { clusterRetryStrategy })`: reconnecting the cluster as a whole. Commands
 * wait in its offline queue until it is back or the strategy gives up: no per-request count is read.
 */
function clusterSite(call: TSESTree.NewExpression, callee: Node, ctx: AnalysisContext): RetrySite | undefined {
  const options = optionsArgument(call, 1, ctx);
  if (options.state === 'unknown') return undefined;
  const strategy = options.get('clusterRetryStrategy');
  if (strategy.value === UNKNOWN && !strategy.valueNode) return undefined;
  const read = readStrategy(strategy, ctx, CLUSTER_DEFAULT);
  return site({
    library: 'ioredis',
    label: `new ${labelOf(callee, ctx.sourceCode)}()'s reconnection`,
    node: call,
    reportNode: callee,
    ...read,
    errorFilter: LIBRARY_FILTER,
    clientLevel: true,
    connection: 'reconnection',
    ...implicitWhen(isDefault(strategy)),
    options: optionsTarget(options, call, 1),
  });
}

/**
 * `new Redis()`, `new Redis(port, host, options)`, `new Redis(url, options)`, `new Redis(options)`:
 * its reconnection and, with `sentinels`, the resolution of the master through them, which
 * (lib/connectors/SentinelConnector/index.ts) tries every sentinel, then waits
 * `sentinelRetryStrategy(times)` and starts over until it returns no number.
 */
function redisSites(call: TSESTree.NewExpression, callee: Node, ctx: AnalysisContext): RetrySite[] {
  const index = optionsIndex(call, ctx);
  if (index === undefined) return [];
  const options = index < 0 ? ctx.options(undefined) : optionsArgument(call, index, ctx);
  if (options.state === 'unknown') return [];
  const sites: RetrySite[] = [];
  const name = labelOf(callee, ctx.sourceCode);
  const common = { library: 'ioredis', node: call, reportNode: callee, errorFilter: LIBRARY_FILTER, clientLevel: true,
    options: optionsTarget(options, call, index < 0 ? call.arguments.length : index) };
  const strategy = options.get('retryStrategy');
  if (strategy.value !== UNKNOWN || strategy.valueNode) {
    const read = readStrategy(strategy, ctx, REDIS_DEFAULT);
    sites.push(site({ ...common, label: `new ${name}()'s reconnection`, ...read, connection: 'reconnection', ...implicitWhen(isDefault(strategy)) }));
    const queued = queuedCommands(options.get('maxRetriesPerRequest'), read);
    if (queued) sites.push(site({ ...common, label: `new ${name}()'s command retry`, ...queued }));
  }
  const sentinels = options.get('sentinels');
  const sentinelStrategy = options.get('sentinelRetryStrategy');
  if (sentinels.property && sentinels.value !== null && (sentinelStrategy.value !== UNKNOWN || sentinelStrategy.valueNode)) {
    const read = readStrategy(sentinelStrategy, ctx, SENTINEL_DEFAULT);
    // Commands queued while the master is being resolved wait as long as it takes.
    sites.push(site({ ...common, label: `new ${name}()'s sentinel resolution`, ...read, connection: 'reconnection',
      ...(sentinelStrategy.property ? {} : { delay: { ...read.delay, node: sentinels.property }, jitter: { ...read.jitter, node: sentinels.property }, attempts: { ...read.attempts, node: sentinels.property } }),
      ...implicitWhen(isDefault(sentinelStrategy)) }));
  }
  return sites;
}

/**
 * Which argument holds the options: the last one when it is not a port or a URL; -1 when there are
 * none (a port, a host, a URL only); undefined when that cannot be told.
 */
function optionsIndex(call: TSESTree.NewExpression, ctx: AnalysisContext): number | undefined {
  const args = call.arguments;
  if (args.length === 0) return -1;
  if (args.some((a) => a.type === T.SpreadElement)) return undefined;
  const last = args[args.length - 1]!;
  const value = ctx.evaluator.evaluate(last);
  if (typeof value === 'string' || typeof value === 'number' || isPortOrUrl(ctx.evaluator.resolve(last))) return -1;
  return args.length - 1;
}

/** A number, a string, a template, or `process.env.X` (a string when set), also before `??` or `||`. */
function isPortOrUrl(node: Node): boolean {
  const n = node.type === T.LogicalExpression ? unwrap(node.left) : unwrap(node);
  if (n.type === T.Literal) return typeof n.value === 'number' || typeof n.value === 'string';
  if (n.type === T.TemplateLiteral) return true;
  return n.type === T.MemberExpression && n.object.type === T.MemberExpression &&
    n.object.object.type === T.Identifier && n.object.object.name === 'process' &&
    n.object.property.type === T.Identifier && n.object.property.name === 'env';
}

type StrategyRead = Pick<RetrySite, 'attempts' | 'delay' | 'jitter'>;

/** The reconnection schedule: the default one, none (`null`), or the function written. */
function readStrategy(option: ReturnType<OptionsView['get']>, ctx: AnalysisContext, fallback: StrategyRead): StrategyRead {
  // Options are filled with lodash `defaults` (lib/Redis.ts): a property set to undefined takes the default too.
  if (option.value === undefined) return fallback;
  const node = option.property;
  const fn = functionOf(option.valueNode, ctx);
  // `retryStrategy: null` (or any value that is not a function): it never reconnects.
  if (!fn) return option.value === UNKNOWN ? unknownRead(node) : { attempts: { value: 1, node }, delay: { ...customSchedule('none', () => 0), node }, jitter: { value: false, node } };
  // What a helper returns may be nothing: only returns that are either a number or no number are read.
  const returned = returnedValues(fn, true);
  if (!returned?.every((e) => endsReconnecting(e, ctx) || numericExpression(e, ctx))) return unknownRead(node);
  const how: FailureDecision = { errorIndex: -1, countIndex: 0, firstCount: 1, isStop: (e) => endsReconnecting(e, ctx), voidStops: true };
  const calls = callsUntilStoppedAtAll(fn, ctx, how);
  const reading = readDelayFunction(fn, ctx, ['n'], { unwrapReturn: (e) => (endsReconnecting(e, ctx) ? 'ignore' : e), voidStops: true });
  const attempts: Setting<number> = { value: calls ?? UNKNOWN, node };
  if (!reading) return { ...unknownRead(node), attempts };
  return { attempts, delay: scheduleOfReading(reading, node), jitter: { value: reading.jitter, node } };
}

function unknownRead(node: Node | undefined): StrategyRead {
  return { attempts: { value: UNKNOWN, node }, delay: { ...customSchedule(UNKNOWN, () => UNKNOWN), node }, jitter: { value: UNKNOWN, node } };
}

/** A returned value that is no number: `null`, `undefined`, `void 0`, a boolean or string, an Error. */
function endsReconnecting(expr: Node, ctx: AnalysisContext): boolean {
  const e = unwrap(expr);
  if (e.type === T.Literal) return typeof e.value !== 'number';
  if (e.type === T.Identifier && e.name === 'undefined') return true;
  if (e.type === T.UnaryExpression && e.operator === 'void') return true;
  if (e.type === T.NewExpression || e.type === T.TemplateLiteral) return true;
  if (e.type === T.Identifier) {
    const v = ctx.evaluator.evaluate(e);
    return v === null || (v !== UNKNOWN && v === undefined);
  }
  return false;
}

/** No strategy written, or one set to undefined (filled with the default): the library's own design. */
function isDefault(option: ReturnType<OptionsView['get']>): boolean {
  return !option.property || option.value === undefined;
}

/**
 * The commands queued on the connection, where the caller wrote `maxRetriesPerRequest` as a number:
 * the first send and up to that many reconnections waited through, fewer when the strategy gives up
 * sooner (the queue is flushed with an error then). Their waits are the reconnection's.
 */
function queuedCommands(option: ReturnType<OptionsView['get']>, read: StrategyRead): Pick<RetrySite, 'attempts' | 'delay' | 'jitter' | 'connection' | 'fixes'> | undefined {
  const node = option.property;
  const count = option.value;
  if (!node || typeof count !== 'number' || !Number.isInteger(count) || count < 0) return undefined;
  const reconnections = read.attempts.value;
  const attempts: Maybe<number> = !isKnown(reconnections) ? UNKNOWN : Math.min(count + 1, reconnections);
  return {
    attempts: { value: attempts, node },
    delay: read.delay,
    jitter: read.jitter,
    connection: 'queued-request',
    fixes: { attempts: (total) => [{ path: ['maxRetriesPerRequest'], text: String(Math.max(0, total - 1)) }] },
  };
}
