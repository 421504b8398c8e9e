import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { LibraryDescriptor, LibraryUse } from '../library.js';
import { callOf, labelOf, newOf } from '../library.js';
import { isDefaultPath } from '../imports.js';
import type { DelaySchedule, Node, RetrySite } from '../model.js';
import type { OptionsView } from '../options.js';
import { UNKNOWN_SCHEDULE, customSchedule, geometricSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown, type Maybe } from '../eval/values.js';
import { LIBRARY_FILTER, NO_TIMEOUT, optionsTarget, orUnknown, site } from './shared.js';
import { implicitWhen, optionsArgument, writesNone, written } from './sdk-shared.js';
import { SITE_COUNT_SCHEDULE, type LibraryFixes } from '../fix-plan.js';

/** `defaultRetryCount` of `AWS.Service`; DynamoDB overrides it with 10 and its delay base with 50 ms. */
const DEFAULT_RETRIES = 3;
const DYNAMODB_RETRIES = 10;
const DEFAULT_BASE = 100;
const DYNAMODB_BASE = 50;

/** Classes exported by `aws-sdk` that are not services and take no retry configuration. */
const NOT_SERVICES = new Set([
  'Endpoint', 'HttpRequest', 'HttpResponse', 'HttpClient', 'Request', 'Response', 'Service', 'EventListeners',
  'SequentialExecutor', 'MetadataService', 'ParamValidator', 'Signers', 'Token', 'TokenProviderChain',
  'SSOTokenProvider', 'StaticTokenProvider', 'ResourceWaiter', 'IniLoader', 'Model', 'XML', 'JSON', 'CredentialProviderChain',
]);

/** Suggestions in this library's words: its own count edit (the schedule is the library's). */
const AWS_V2_FIXES: LibraryFixes = { schedule: SITE_COUNT_SCHEDULE };

/**
 * AWS SDK v2 (`aws-sdk`, end of support 2025-09-08): `new AWS.S3({ maxRetries,
 * retryDelayOptions: { base, customBackoff } })`, `new AWS.DynamoDB.DocumentClient(opts)`,
 * `require('aws-sdk/clients/s3')`, and the global `AWS.config.update({...})`, `new AWS.Config()`
 * and `AWS.config.maxRetries = n`. `maxRetries` counts retries (3 by default, 10 for DynamoDB);
 * the delay is full jitter, random × 2^i × base (100 ms, DynamoDB 50 ms), with no cap.
 */
export const awsSdkV2: LibraryDescriptor = {
  id: 'aws-sdk-v2',
  modules: ['aws-sdk', 'aws-sdk/global'],
  fixes: AWS_V2_FIXES,
  matchModule: (m) => m.startsWith('aws-sdk/clients/'),
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const service = serviceOf(use);
      if (service) {
        const call = service.global ? callOf(use) ?? newOf(use) : newOf(use);
        if (!call) continue;
        const view = optionsArgument(call, 0, ctx);
        // `AWS.config.update({ region })` says nothing about retries; services keep their defaults.
        if (service.global && view.state !== 'unknown' && !written(view, 'maxRetries') && !written(view, 'retryDelayOptions')) continue;
        sites.push(configSite(use, call, view, service.dynamo, ctx.sourceCode));
        continue;
      }
      // AWS.config.maxRetries = 10
      const assignment = use.expression.parent;
      if (use.path === 'config.maxRetries' && assignment?.type === T.AssignmentExpression && assignment.left === use.expression &&
        assignment.operator === '=') {
        const value = ctx.evaluator.number(assignment.right);
        sites.push(site({
          library: 'aws-sdk-v2',
          label: 'AWS.config',
          node: assignment,
          reportNode: use.expression,
          attempts: totalAttempts({ value, node: assignment }, 'retries'),
          delay: schedule(DEFAULT_BASE, undefined),
          jitter: { value: true },
          errorFilter: LIBRARY_FILTER,
          clientLevel: true,
          operation: assignment,
        }));
      }
    }
    return sites;

    function configSite(
      use: LibraryUse, call: TSESTree.CallExpression | TSESTree.NewExpression, view: OptionsView,
      dynamo: boolean, sourceCode: typeof ctx.sourceCode,
    ): RetrySite {
      const retries = view.number('maxRetries', dynamo ? DYNAMODB_RETRIES : DEFAULT_RETRIES);
      const delayView = view.sub('retryDelayOptions');
      const custom = delayView.get('customBackoff');
      const hasCustom = !!custom.property || custom.value !== undefined;
      const base = delayView.number('base', dynamo ? DYNAMODB_BASE : DEFAULT_BASE);
      const timeout = view.sub('httpOptions').number('timeout', undefined);
      const label = labelOf(use.expression, sourceCode);
      return site({
        library: 'aws-sdk-v2',
        label: call.type === T.NewExpression ? `new ${label}()` : `${label}()`,
        node: call,
        reportNode: use.expression,
        attempts: totalAttempts(retries, 'retries'),
        delay: custom.value === UNKNOWN && !custom.property ? UNKNOWN_SCHEDULE
          : hasCustom ? customSchedule('custom', () => UNKNOWN, { node: custom.property })
          : schedule(orUnknown(base.value), base.node ?? view.get('retryDelayOptions').property),
        jitter: hasCustom ? { value: UNKNOWN, node: custom.property } : { value: true },
        errorFilter: LIBRARY_FILTER,
        attemptTimeoutMs: timeout.node ? (timeout.value === 0 ? { value: undefined, node: timeout.node } : timeout) : NO_TIMEOUT,
        ...implicitWhen(writesNone(view, ['maxRetries', 'retryDelayOptions'])),
        clientLevel: true,
        operation: call,
        options: optionsTarget(view, call, 0),
        fixes: {
          attempts: (total) => [{ path: ['maxRetries'], text: String(total - 1) }],
        },
      });
    }
  },
};

/** random × 2^i × base with i from 0: full jitter under an uncapped exponential ceiling. */
function schedule(base: Maybe<number>, node: Node | undefined): DelaySchedule {
  return geometricSchedule({
    growth: isKnown(base) && base <= 0 ? 'none' : 'exponential',
    initialMs: base,
    multiplier: 2,
    maxMs: Infinity,
    node,
  });
}

/** Which uses construct or configure a service: `{ dynamo }` picks DynamoDB's own defaults. */
function serviceOf(use: LibraryUse): { dynamo: boolean; global: boolean } | undefined {
  if (use.module.startsWith('aws-sdk/clients/')) {
    const dynamo = use.module === 'aws-sdk/clients/dynamodb';
    if (dynamo && (use.path === 'DocumentClient' || use.path === 'DynamoDB.DocumentClient')) return { dynamo, global: false };
    return isDefaultPath(use.path) ? { dynamo, global: false } : undefined;
  }
  if (use.path === 'config.update') return { dynamo: false, global: true };
  if (use.path === 'Config') return { dynamo: false, global: false };
  if (use.path === 'DynamoDB.DocumentClient') return { dynamo: true, global: false };
  if (use.path.includes('.') || !/^[A-Z]/.test(use.path) || NOT_SERVICES.has(use.path) || /Credentials$/.test(use.path)) return undefined;
  return { dynamo: use.path === 'DynamoDB', global: false };
}
