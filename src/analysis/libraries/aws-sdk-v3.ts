import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { argument, labelOf, newOf } from '../library.js';
import type { DelaySchedule, ErrorFilter, Node, OptionsTarget, RetrySite, Setting, SiteFixes } from '../model.js';
import type { OptionsView } from '../options.js';
import { UNKNOWN_SCHEDULE, customSchedule, geometricSchedule, totalAttempts } from '../schedule.js';
import type { OperationKind } from '../operations/types.js';
import { UNKNOWN, isKnown, isStaticFunction, type Maybe } from '../eval/values.js';
import { propertyKey, unwrap } from '../ast.js';
import { LIBRARY_FILTER, NO_TIMEOUT, customFilter, optionsTarget, orUnknown, site } from './shared.js';
import { implicitWhen, numberOrProvider, optionsArgument, writesNone } from './sdk-shared.js';
import { SITE_COUNT_SCHEDULE, type LibraryFixes } from '../fix-plan.js';

/** `DEFAULT_MAX_ATTEMPTS`, `DEFAULT_RETRY_DELAY_BASE`, `MAXIMUM_RETRY_DELAY` in smithy's util-retry. */
const DEFAULT_MAX_ATTEMPTS = 3;
const DEFAULT_RETRY_DELAY_BASE = 100;
const MAXIMUM_RETRY_DELAY = 20_000;

const STRATEGY_MODULES = ['@smithy/util-retry', '@smithy/core/retry', '@aws-sdk/util-retry', '@aws-sdk/middleware-retry', '@smithy/middleware-retry'];
const STRATEGIES = ['StandardRetryStrategy', 'ConfiguredRetryStrategy', 'AdaptiveRetryStrategy'];
const CLIENT_MODULE = '@aws-sdk/client-';

/** What a retry strategy object says, as a client's `retryStrategy` or on its own. */
interface StrategyRead {
  attempts: Setting<number>;
  delay: DelaySchedule;
  jitter: Setting<boolean>;
  errorFilter: ErrorFilter;
  options?: OptionsTarget;
  fixes?: SiteFixes;
}

/** Suggestions in this library's words: its own count edit (the schedule is the library's). */
const AWS_V3_FIXES: LibraryFixes = { schedule: SITE_COUNT_SCHEDULE };

/**
 * AWS SDK v3 clients: `new S3Client({ maxAttempts, retryMode, retryStrategy })` for any class of
 * an `@aws-sdk/client-*` module whose name ends in `Client` (or is the aggregated service class,
 * `S3`, `DynamoDB`), and the strategies `new StandardRetryStrategy(n | {maxAttempts, baseDelay})`,
 * `new ConfiguredRetryStrategy(n, ms | fn)`, `new AdaptiveRetryStrategy(provider)`. Every count
 * is total attempts (default 3), whatever ConfiguredRetryStrategy's JSDoc says; the standard
 * backoff is full-jitter exponential from 100 ms capped at 20 s; only throttling and transient
 * errors are retried. A `retryStrategy` replaces `maxAttempts`.
 */
export const awsSdkV3: LibraryDescriptor = {
  id: 'aws-sdk-v3',
  modules: STRATEGY_MODULES,
  fixes: AWS_V3_FIXES,
  matchModule: (m) => m.startsWith(CLIENT_MODULE),
  // `client.send(new PutObjectCommand(input))`: the command's name says what it does, and the SDK
  // fills `ClientToken`-style keys itself on every call.
  operations: { classify: commandKind, makesOwnKey: true, rejectsOnClientError: true, errorStatus: '$metadata?.httpStatusCode' },
  // Every command of a client made elsewhere goes through the standard retry strategy: 3 attempts.
  builtInRetry: { attempts: DEFAULT_MAX_ATTEMPTS, retriesWrites: true, label: 'AWS SDK client' },
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    const consumed = new Set<Node>();
    const strategies: Array<{ call: TSESTree.NewExpression; use: (typeof uses)[number] }> = [];
    for (const use of uses) {
      const call = newOf(use);
      if (!call) continue;
      if (STRATEGY_MODULES.includes(use.module)) {
        if (STRATEGIES.includes(use.path)) strategies.push({ call, use });
        continue;
      }
      if (!isClientClass(use.module, use.path)) continue;
      const view = optionsArgument(call, 0, ctx);
      const strategyOption = view.get('retryStrategy');
      let read: StrategyRead;
      if (strategyOption.property || strategyOption.value !== undefined) {
        const target = strategyOption.valueNode && ctx.evaluator.resolve(strategyOption.valueNode);
        const known = target?.type === T.NewExpression ? readStrategy(target, ctx) : undefined;
        if (known && target) consumed.add(target);
        read = known ?? {
          attempts: { value: UNKNOWN, node: strategyOption.property },
          delay: customSchedule(UNKNOWN, () => UNKNOWN, { node: strategyOption.property }),
          jitter: { value: UNKNOWN, node: strategyOption.property },
          errorFilter: customFilter(strategyOption.property),
        };
      } else {
        const max = view.get('maxAttempts');
        read = {
          attempts: totalAttempts({ value: max.property || max.value !== undefined ? numberOrProvider(max.value, ctx) : DEFAULT_MAX_ATTEMPTS, node: max.property }, 'attempts'),
          delay: standardSchedule(DEFAULT_RETRY_DELAY_BASE, view.object),
          jitter: { value: true },
          errorFilter: LIBRARY_FILTER,
          options: optionsTarget(view, call, 0),
          fixes: { attempts: (total) => [{ path: ['maxAttempts'], text: String(total) }] },
        };
      }
      sites.push(site({
        library: 'aws-sdk-v3',
        label: `new ${labelOf(use.expression, ctx.sourceCode)}()`,
        node: call,
        reportNode: use.expression,
        ...read,
        attemptTimeoutMs: requestTimeout(view, ctx),
        ...implicitWhen(writesNone(view, ['maxAttempts', 'retryStrategy', 'retryMode'])),
        clientLevel: true,
        operation: call,
      }));
    }
    // A strategy built here and handed to a client elsewhere is still a retry configuration.
    for (const { call, use } of strategies) {
      if (consumed.has(call)) continue;
      const read = readStrategy(call, ctx);
      if (!read) continue;
      sites.push(site({
        library: 'aws-sdk-v3',
        label: `new ${labelOf(use.expression, ctx.sourceCode)}()`,
        node: call,
        reportNode: use.expression,
        ...read,
        clientLevel: true,
        operation: call,
      }));
    }
    return sites;
  },
};

function isClientClass(module: string, path: string): boolean {
  if (!module.startsWith(CLIENT_MODULE) || path.includes('.') || !/^[A-Z]/.test(path)) return false;
  if (path.endsWith('Client')) return true;
  // The aggregated class is named after the service: client-secrets-manager -> SecretsManager.
  return path.toLowerCase() === module.slice(CLIENT_MODULE.length).replace(/-/g, '');
}

function standardSchedule(base: Maybe<number>, node: Node | undefined): DelaySchedule {
  // floor(random × min(base × 2^i, 20 s)) with i the retry index from 0: full jitter, so the
  // ceiling is the un-jittered value.
  return geometricSchedule({
    growth: isKnown(base) && base <= 0 ? 'none' : 'exponential',
    initialMs: base,
    multiplier: 2,
    maxMs: MAXIMUM_RETRY_DELAY,
    node,
  });
}

function readStrategy(call: TSESTree.NewExpression, ctx: AnalysisContext): StrategyRead | undefined {
  const ref = ctx.imports.resolve(call.callee);
  if (!ref || !STRATEGY_MODULES.includes(ref.module) || !STRATEGIES.includes(ref.path)) return undefined;
  const first = argument(call, 0);
  const firstValue = ctx.evaluator.evaluate(first);
  const countTarget: OptionsTarget = { call, argumentIndex: 0 };
  const countFix: SiteFixes['attempts'] = (total) => [{ path: [], text: String(total) }];

  if (ref.path === 'ConfiguredRetryStrategy') {
    const attempts = totalAttempts({ value: first ? numberOrProvider(firstValue, ctx) : UNKNOWN, node: first }, 'attempts');
    const second = argument(call, 1);
    const backoff = second === undefined && call.arguments.length < 2 ? DEFAULT_RETRY_DELAY_BASE : ctx.evaluator.evaluate(second);
    let delay: DelaySchedule;
    let jitter: Setting<boolean>;
    if (typeof backoff === 'number') {
      // A number is the same wait before every retry, with no randomness.
      delay = geometricSchedule({ growth: backoff <= 0 ? 'none' : 'constant', initialMs: backoff, multiplier: 1, maxMs: Infinity, node: second ?? call });
      jitter = { value: false, node: second };
    } else if (isStaticFunction(backoff)) {
      delay = customSchedule('custom', () => UNKNOWN, { node: second });
      jitter = { value: UNKNOWN, node: second };
    } else {
      delay = customSchedule(UNKNOWN, () => UNKNOWN, { node: second });
      jitter = { value: UNKNOWN, node: second };
    }
    return { attempts, delay, jitter, errorFilter: LIBRARY_FILTER, options: countTarget, fixes: { attempts: countFix } };
  }

  if (ref.path === 'StandardRetryStrategy' && first && (firstValue === UNKNOWN || (typeof firstValue === 'object' && firstValue !== null && !isStaticFunction(firstValue)))) {
    const view = ctx.options(first);
    const max = view.number('maxAttempts', DEFAULT_MAX_ATTEMPTS);
    const baseDelay = view.number('baseDelay', DEFAULT_RETRY_DELAY_BASE);
    const backoff = view.get('backoff');
    // A written `backoff` is the caller's own calculator; an unreadable options object is unknown.
    const custom = !!backoff.property || backoff.value !== undefined;
    const unknown = backoff.value === UNKNOWN && !backoff.property;
    return {
      attempts: totalAttempts(max, 'attempts'),
      delay: unknown ? UNKNOWN_SCHEDULE
        : custom ? customSchedule('custom', () => UNKNOWN, { node: backoff.property })
        : standardSchedule(orUnknown(baseDelay.value), baseDelay.node ?? view.object),
      jitter: unknown || custom ? { value: UNKNOWN, node: backoff.property } : { value: true },
      errorFilter: LIBRARY_FILTER,
      options: optionsTarget(view, call, 0),
      fixes: { attempts: (total) => [{ path: ['maxAttempts'], text: String(total) }] },
    };
  }

  // StandardRetryStrategy(n | provider) and AdaptiveRetryStrategy(provider, options).
  const count = first === undefined ? DEFAULT_MAX_ATTEMPTS : numberOrProvider(firstValue, ctx);
  return {
    attempts: totalAttempts({ value: count, node: first }, 'attempts'),
    delay: standardSchedule(DEFAULT_RETRY_DELAY_BASE, call),
    jitter: { value: true },
    errorFilter: LIBRARY_FILTER,
    options: countTarget,
    fixes: typeof firstValue === 'number' || first === undefined ? { attempts: countFix } : undefined,
  };
}

/** `requestHandler: new NodeHttpHandler({ requestTimeout })` or its plain-object form. */
function requestTimeout(view: OptionsView, ctx: AnalysisContext): Setting<number | undefined> {
  const handler = view.get('requestHandler');
  if (!handler.valueNode) return NO_TIMEOUT;
  const target = unwrap(ctx.evaluator.resolve(handler.valueNode));
  let options: OptionsView;
  if (target.type === T.ObjectExpression) options = ctx.options(target);
  else if (target.type === T.NewExpression) {
    const ref = ctx.imports.resolve(target.callee);
    if (!ref || !/^@(smithy|aws-sdk)\/(node|fetch)-http-handler$/.test(ref.module)) return NO_TIMEOUT;
    options = ctx.options(argument(target, 0));
  } else return NO_TIMEOUT;
  const timeout = options.number('requestTimeout', undefined);
  // 0 means no timeout, as in the handler itself.
  return timeout.value === 0 ? { value: undefined, node: timeout.node } : timeout;
}

const COMMAND_WRITE = /^(Put|Create|Send|Update|Start|Publish|Post|Invoke|Write|Copy|Upload|Complete|Add|Register|Run|Execute|Batch(?!Get)|Transact(?!Get)|Import|Attach|Associate|Modify|Increment|Restore|Tag|Untag|Enable|Disable|Set|Reset|Request|Submit|Send)/;
const COMMAND_IDEMPOTENT = /^(Delete|Remove|Stop|Terminate|Cancel|Abort|Detach|Disassociate|Deregister|Purge)/;
/**
 * Writes that replace a whole resource at an address the input names, so a repeat leaves the
 * same state (HTTP PUT semantics): S3 `PutObject` (and its ACL, tagging, lock settings), the
 * multipart `UploadPart` (same part number overwritten), `CopyObject` onto the same key, bucket
 * and other `Put*Policy`/`Put*Configuration` settings, DynamoDB `PutItem` (replaces the item).
 * Other `Put*` commands append (Kinesis `PutRecord(s)`, EventBridge `PutEvents`, CloudWatch
 * `PutMetricData`/`PutLogEvents`) and stay writes.
 */
const COMMAND_REPLACES = /^(PutObject\w*|UploadPart|CopyObject|PutItem|PutBucket\w*|Put\w*Policy|Put\w*Configuration)$/;
const COMMAND_READ = /^(Get|List|Describe|Query|Scan|Head|Select|BatchGet|TransactGet|Lookup|Search|Check|Validate|Estimate|Preview|Download|Receive|Test)/;

/** The kind of `x.send(new XCommand(...))` (or of a command held in a const) for any `@aws-sdk/` or `@smithy/` command. */
function commandKind(call: TSESTree.CallExpression, ctx: AnalysisContext): OperationKind | undefined {
  const callee = unwrap(call.callee);
  if (callee.type !== T.MemberExpression || propertyKey(callee, () => undefined) !== 'send') return undefined;
  const arg = call.arguments[0] ? unwrap(call.arguments[0]) : undefined;
  const command = arg?.type === T.NewExpression ? arg : arg?.type === T.Identifier ? ctx.evaluator.resolve(arg) : undefined;
  if (command?.type !== T.NewExpression) return undefined;
  const ref = ctx.imports.resolve(command.callee);
  if (!ref || !(ref.module.startsWith('@aws-sdk/') || ref.module.startsWith('@smithy/'))) return undefined;
  const name = ref.path.replace(/Command$/, '');
  if (COMMAND_READ.test(name)) return 'read';
  if (COMMAND_IDEMPOTENT.test(name) || COMMAND_REPLACES.test(name)) return 'idempotent-write';
  return COMMAND_WRITE.test(name) ? 'write' : 'unknown';
}
