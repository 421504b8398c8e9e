import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, ErrorShape, LibraryDescriptor } from '../library.js';
import { argument, callOf, labelOf, newOf } from '../library.js';
import { isDefaultPath } from '../imports.js';
import type { Node, RetrySite, Setting } from '../model.js';
import type { OperationKind } from '../operations/types.js';
import type { OptionsView } from '../options.js';
import { geometricSchedule, totalAttempts } from '../schedule.js';
import { findVariable, memberRoot, propertyKey, unwrap } from '../ast.js';
import { LIBRARY_FILTER, NO_TIMEOUT, optionsTarget, site } from './shared.js';
import { implicitWhen, optionsArgument, requestOptionCalls, writesNone } from './sdk-shared.js';
import { SITE_COUNT_SCHEDULE, type LibraryFixes } from '../fix-plan.js';

/** `getDefaultMaxNetworkRetries()` on the Node/web platform since v18 (the README still says 1). */
const DEFAULT_RETRIES = 2;

/** Suggestions in this library's words: its own count edit (the schedule is the library's). */
const STRIPE_FIXES: LibraryFixes = { schedule: SITE_COUNT_SCHEDULE };

/**
 * Stripe: `Stripe(key, { maxNetworkRetries, timeout })` or `new Stripe(...)`, and per-request
 * `stripe.charges.create(params, { maxNetworkRetries })`. `maxNetworkRetries` counts retries;
 * waits are min(0.5 s × 2^(n−1), 5 s) × [0.5, 1.0], never below 0.5 s; connection errors, 409,
 * 5xx and `Stripe-Should-Retry` are what it retries. POSTs carry an idempotency key the SDK adds.
 */
export const stripe: LibraryDescriptor = {
  id: 'stripe',
  modules: ['stripe'],
  // `stripe.paymentIntents.create(params, { idempotencyKey })`: the method's verb says what it
  // does, and the SDK adds a new idempotency key to every POST it sends.
  operations: { classify: resourceCallKind, makesOwnKey: true, rejectsOnClientError: true, errorStatus: 'statusCode', errorShapes: stripeErrorShapes() },
  // A client made elsewhere retries by default: one retry since stripe-node 13 (PR 1803), two since
  // 18 (`getDefaultMaxNetworkRetries`); the smaller is what any supported version does.
  builtInRetry: { attempts: 2, retriesWrites: true, label: 'stripe client' },
  fixes: STRIPE_FIXES,
  find(uses, ctx) {
    const sites: RetrySite[] = [];
    for (const use of uses) {
      if (!isDefaultPath(use.path) && use.path !== 'Stripe') continue;
      const call = callOf(use) ?? newOf(use);
      if (!call) continue;
      // The legacy `Stripe(key, '2020-08-27')` passes the API version where options now go.
      const second = argument(call, 1);
      const view = typeof ctx.evaluator.evaluate(second) === 'string' ? ctx.options(undefined) : optionsArgument(call, 1, ctx);
      const label = labelOf(use.expression, ctx.sourceCode);
      sites.push(site({
        library: 'stripe',
        label: call.type === T.NewExpression ? `new ${label}()` : `${label}()`,
        node: call,
        reportNode: use.expression,
        ...readStripeOptions(view),
        ...implicitWhen(writesNone(view, ['maxNetworkRetries'])),
        clientLevel: true,
        operation: call,
        options: optionsTarget(view, call, 1),
        fixes: { attempts: (total) => [{ path: ['maxNetworkRetries'], text: String(total - 1) }] },
      }));
      for (const request of requestOptionCalls(call, 'maxNetworkRetries', ctx)) {
        sites.push(site({
          library: 'stripe',
          label: `${labelOf(request.call.callee, ctx.sourceCode)}()`,
          node: request.call,
          reportNode: request.call.callee,
          ...readStripeOptions(request.view),
          operation: request.call,
          options: optionsTarget(request.view, request.call, request.index),
          fixes: { attempts: (total) => [{ path: ['maxNetworkRetries'], text: String(total - 1) }] },
        }));
      }
    }
    return sites;
  },
};

function readStripeOptions(view: OptionsView) {
  const retries = view.number('maxNetworkRetries', DEFAULT_RETRIES);
  const timeout = view.number('timeout', undefined);
  return {
    attempts: totalAttempts(retries, 'retries'),
    delay: geometricSchedule({ growth: 'exponential', initialMs: 500, multiplier: 2, maxMs: 5000, node: retries.node ?? view.object }),
    jitter: { value: true } as Setting<boolean>,
    errorFilter: LIBRARY_FILTER,
    attemptTimeoutMs: timeout.node ? timeout : NO_TIMEOUT,
  };
}

/**
 * Stripe's errors by the fields a filter tests. stripe-node's src/Error.ts names the class (`type`)
 * after the status: 400 and 404 make a StripeInvalidRequestError (earlier versions: the raw type
 * invalid_request_error, which Stripe sends with 400 and 404), 401 StripeAuthenticationError, 402
 * StripeCardError, 403 StripePermissionError. Codes (`code`) are those of the API's error-codes
 * list: resource_missing and parameter_missing are invalid-request errors (a missing object is a
 * 404 on its own path, a 400 when named in a parameter), card_declined a card error (402).
 */
function stripeErrorShapes(): ErrorShape[] {
  const invalid = [400, 404];
  return [
    { fields: { type: 'StripeInvalidRequestError' }, statuses: invalid },
    { fields: { rawType: 'invalid_request_error' }, statuses: invalid },
    { fields: { code: 'resource_missing' }, statuses: invalid },
    { fields: { code: 'parameter_missing' }, statuses: [400] },
    { fields: { type: 'StripeAuthenticationError' }, statuses: [401] },
    { fields: { type: 'StripeCardError' }, statuses: [402] },
    { fields: { rawType: 'card_error' }, statuses: [402] },
    { fields: { code: 'card_declined' }, statuses: [402] },
    { fields: { type: 'StripePermissionError' }, statuses: [403] },
  ];
}

const STRIPE_WRITE = /^(create|update|confirm|capture|pay|finalize|send|void|cancel|refund|attach|detach|apply|verify|reject|approve|close|reopen|mark|accept|increment|decrement|submit|reverse|expire|resume|pause|del)/;
const STRIPE_READ = /^(retrieve|list|search|preview)/;

/** The kind of a call through a client built by `Stripe(...)` / `new Stripe(...)`. */
function resourceCallKind(call: TSESTree.CallExpression, ctx: AnalysisContext): OperationKind | undefined {
  const callee = unwrap(call.callee);
  if (callee.type !== T.MemberExpression) return undefined;
  const method = propertyKey(callee, () => undefined);
  if (!method) return undefined;
  const root = memberRoot(callee);
  if (root.type !== T.Identifier) return undefined;
  const init = ctx.evaluator.resolve(root);
  const ctor = init.type === T.NewExpression || init.type === T.CallExpression ? ctx.imports.resolve(init.callee) : typeOf(root, ctx);
  if (ctor?.module !== 'stripe') return undefined;
  if (STRIPE_READ.test(method)) return 'read';
  if (method === 'del') return 'idempotent-write';
  return STRIPE_WRITE.test(method) ? 'write' : 'unknown';
}

/**
 * The import a value's declared type names: `(stripe: Stripe) => ...`, `const s: Stripe = ...`
 * (a client handed in by the caller). Only a plain type reference counts.
 */
function typeOf(id: TSESTree.Identifier, ctx: AnalysisContext): ReturnType<AnalysisContext['imports']['resolve']> {
  const variable = findVariable(ctx.evaluator.scopeOf(id), id.name);
  const name = variable?.defs[0]?.name;
  const annotation = name && 'typeAnnotation' in name ? name.typeAnnotation?.typeAnnotation : undefined;
  if (annotation?.type !== T.TSTypeReference || annotation.typeName.type !== T.Identifier) return undefined;
  return ctx.imports.resolve(annotation.typeName);
}
