import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext, LibraryDescriptor, LibraryUse } from '../library.js';
import { alwaysTrue, argument, callOf, functionOf } from '../library.js';
import type { ClientErrorInclusion, DelaySchedule, ErrorFilter, Node, RetrySite, Setting, SiteFixes } from '../model.js';
import type { OptionsView } from '../options.js';
import { NO_DELAY, customSchedule, totalAttempts } from '../schedule.js';
import { UNKNOWN, isKnown, type Maybe } from '../eval/values.js';
import { findVariable, staticPropertyName, unwrap } from '../ast.js';
import { clientErrorRange, predicateClientErrors, writesRetried } from './http-shared.js';
import { LIBRARY_FILTER, NO_TIMEOUT, orUnknown, site } from './shared.js';
import { keyedSchedule, type LibraryFixes } from '../fix-plan.js';
import { dropClientErrorEntries } from '../fix-filters.js';

const MODULE = 'retry-axios';

/** Suggestions in this library's words (fixes.ts reads this facet). */
const RETRY_AXIOS_FIXES: LibraryFixes = {
  // 4xx entries taken out of the written status list (fix-filters.ts).
  clientErrors: dropClientErrorEntries,
  schedule: keyedSchedule({
    attempts: { path: ['retry'], counts: 'retries' },
    initialMs: ['retryDelay'],
    maxMs: ['maxRetryDelay'],
    jitter: { path: ['jitter'], text: "'full'" },
    // Exponential is ((2^n - 1) / 2) x retryDelay, below the planned retryDelay x 2^(n-1).
    exponential: { path: ['backoffType'], text: "'exponential'" },
    jitterBound: { factor: 1 },
  }),
};

/**
 * retry-axios (v4): `rax.attach(instance?)` installs the interceptor; the policy is `raxConfig`,
 * on `instance.defaults.raxConfig = {...}`, in `axios.create({ raxConfig })`, or on a request's
 * config. Defaults: 3 retries, exponential ((2^n − 1) / 2) × retryDelay (100), no jitter, statuses
 * [[100,199],[429,429],[500,599]].
 */
export const retryAxios: LibraryDescriptor = {
  id: MODULE,
  modules: [MODULE],
  fixes: RETRY_AXIOS_FIXES,
  find(uses, ctx) {
    const configs = findConfigs(ctx);
    const claimed = new Set<RaxConfig>();
    const sites: RetrySite[] = [];
    for (const use of uses) {
      const call = callOf(use);
      if (!call || use.path !== 'attach') continue;
      const instance = argument(call, 0);
      const config = configs.find((c) => !c.perRequest && sameInstance(c.instance, instance, ctx));
      if (config) claimed.add(config);
      sites.push(buildSite(ctx, {
        label: `${labelOf(use, ctx)}()`,
        node: call,
        reportNode: use.expression,
        config,
        clientLevel: true,
        operation: instance,
      }));
    }
    for (const config of configs) {
      if (claimed.has(config)) continue;
      sites.push(buildSite(ctx, {
        label: 'raxConfig',
        node: config.site,
        reportNode: config.key,
        config,
        clientLevel: !config.perRequest,
        operation: config.instance ?? config.site,
      }));
    }
    return sites;
  },
};

function labelOf(use: LibraryUse, ctx: AnalysisContext): string {
  const text = ctx.sourceCode.getText(use.expression);
  return text.length > 30 ? 'attach' : text;
}

interface RaxConfig {
  /** The object literal (or expression) holding the retry settings. */
  readonly value: Node;
  /** Where to point for the config as a whole. */
  readonly key: Node;
  /** The call or assignment that carries the config. */
  readonly site: Node;
  /** The axios instance whose defaults it sets; undefined for the global axios. */
  readonly instance?: Node | undefined;
  readonly perRequest: boolean;
  /** The request config around `raxConfig`, for its axios `timeout`. */
  readonly requestConfig?: TSESTree.ObjectExpression | undefined;
}

/** Every `raxConfig` written in the file: instance defaults, `axios.create(...)` and request configs. */
function findConfigs(ctx: AnalysisContext): RaxConfig[] {
  const out: RaxConfig[] = [];
  for (const a of ctx.nodesOfType(T.AssignmentExpression)) {
    // instance.defaults.raxConfig = {...}
    const left = a.left;
    if (a.operator !== '=' || left.type !== T.MemberExpression || keyOf(left) !== 'raxConfig') continue;
    const defaults = unwrap(left.object);
    if (defaults.type !== T.MemberExpression || keyOf(defaults) !== 'defaults') continue;
    out.push({ value: a.right, key: left, site: a, instance: unwrap(defaults.object), perRequest: false });
  }
  for (const p of ctx.nodesOfType(T.Property)) {
    if (p.parent?.type !== T.ObjectExpression || staticPropertyName(p) !== 'raxConfig' || p.kind !== 'init') continue;
    const holder = p.parent;
    const owner = holder.parent;
    // axios.create({ raxConfig }): the instance's defaults; anything else is one request's config.
    if (owner?.type === T.CallExpression && owner.arguments[0] === holder && isAxiosCreate(owner, ctx)) {
      out.push({ value: p.value, key: p.key, site: owner, instance: owner, perRequest: false, requestConfig: holder });
      continue;
    }
    const call = owner?.type === T.CallExpression ? owner : holder;
    out.push({ value: p.value, key: p.key, site: call, perRequest: true, requestConfig: holder });
  }
  return out;
}

function keyOf(m: TSESTree.MemberExpression): string | undefined {
  if (!m.computed) return m.property.type === T.Identifier ? m.property.name : undefined;
  return m.property.type === T.Literal ? String(m.property.value) : undefined;
}

function isAxiosCreate(call: TSESTree.CallExpression, ctx: AnalysisContext): boolean {
  const ref = ctx.imports.resolve(call.callee);
  return !!ref && ref.module === 'axios' && ref.path === 'create';
}

/**
 * Whether a config's instance is the one `attach` received: the same variable, the `create()`
 * call that variable holds, or both the global axios (no argument / the axios import).
 */
function sameInstance(configInstance: Node | undefined, attached: Node | undefined, ctx: AnalysisContext): boolean {
  const isGlobal = (n: Node | undefined) => {
    if (!n) return true;
    const ref = ctx.imports.resolve(n);
    return !!ref && ref.module === 'axios' && (ref.path === 'default' || ref.path === 'module');
  };
  if (isGlobal(attached)) return isGlobal(configInstance);
  if (!configInstance || !attached) return false;
  const a = unwrap(attached);
  const c = unwrap(configInstance);
  if (a.type === T.Identifier && c.type === T.Identifier) {
    const va = findVariable(ctx.evaluator.scopeOf(a), a.name);
    const vc = findVariable(ctx.evaluator.scopeOf(c), c.name);
    // Two undeclared names are the same global.
    return va === vc && (!!va || a.name === c.name);
  }
  return ctx.evaluator.resolve(a) === ctx.evaluator.resolve(c);
}

interface SiteSpec {
  label: string;
  node: Node;
  reportNode: Node;
  config: RaxConfig | undefined;
  clientLevel: boolean;
  operation: Node | undefined;
}

function buildSite(ctx: AnalysisContext, spec: SiteSpec): RetrySite {
  const view = ctx.options(spec.config?.value);
  const backoff = readBackoff(view);
  const timeout = spec.config?.requestConfig ? ctx.options(spec.config.requestConfig).number('timeout', undefined) : NO_TIMEOUT;
  return site({
    library: MODULE,
    label: spec.label,
    retriesWrites: writesRetried(view.get('httpMethodsToRetry'), ['GET', 'HEAD', 'PUT', 'OPTIONS', 'DELETE']),
    node: spec.node,
    reportNode: spec.reportNode,
    attempts: totalAttempts(view.number('retry', 3), 'retries'),
    delay: backoff.schedule,
    jitter: backoff.jitter,
    errorFilter: readFilter(view, ctx),
    attemptTimeoutMs: timeout.value === 0 ? NO_TIMEOUT : timeout,
    clientLevel: spec.clientLevel,
    operation: spec.operation,
    // Without a written raxConfig there is no object to edit (it would be a new statement).
    ...(view.object ? { options: { object: view.object }, fixes: raxFixes(view) } : {}),
  });
}

function raxFixes(view: OptionsView): SiteFixes {
  const delay = view.number('retryDelay', 100).value;
  return {
    attempts: (total) => [{ path: ['retry'], text: String(Math.max(0, total - 1)) }],
    exponential: () => [
      { path: ['backoffType'], text: "'exponential'" },
      // ((2^n − 1) / 2) × 1000 gives 500 ms, 1.5 s: the guide's first wait.
      ...(typeof delay === 'number' && delay <= 0 ? [{ path: ['retryDelay'], text: '1000' }] : []),
    ],
    jitter: () => [{ path: ['jitter'], text: "'full'" }],
  };
}

function readBackoff(view: OptionsView): { schedule: DelaySchedule; jitter: Setting<boolean> } {
  const typeOption = view.get('backoffType');
  const type: Maybe<string | undefined> = !typeOption.property && typeOption.value === undefined ? 'exponential'
    : typeof typeOption.value === 'string' ? typeOption.value
    : typeOption.value === undefined ? 'exponential' : UNKNOWN;
  const delaySetting = view.number('retryDelay', 100);
  const delay = orUnknown(delaySetting.value);
  const cap = orUnknown(view.number('maxRetryDelay', Infinity).value);
  const node = typeOption.property ?? delaySetting.node ?? view.object;
  const jitterOption = view.get('jitter');
  const jitterNode = jitterOption.property;
  const capped = (v: number): Maybe<number> => (isKnown(cap) ? Math.min(v, cap) : UNKNOWN);
  if (type === 'static') {
    if (isKnown(delay) && delay <= 0) return { schedule: { ...NO_DELAY, node }, jitter: { value: false, node: jitterNode } };
    return {
      schedule: customSchedule('constant', () => (isKnown(delay) ? capped(delay) : UNKNOWN), { initialMs: delay, multiplier: 1, maxMs: cap, node }),
      jitter: { value: false, node: jitterNode },
    };
  }
  if (type === 'linear') {
    // v4 ignores retryDelay here: n × 1000.
    return {
      schedule: customSchedule('linear', (n) => capped(n * 1000), { initialMs: 1000, maxMs: cap, node }),
      jitter: { value: false, node: jitterNode },
    };
  }
  if (type !== 'exponential') return { schedule: customSchedule(UNKNOWN, () => UNKNOWN, { node }), jitter: { value: UNKNOWN, node: jitterNode } };
  const jitterValue = jitterOption.value;
  const jitter: Maybe<boolean> = !jitterNode && jitterValue === undefined ? false
    : jitterValue === 'full' || jitterValue === 'equal' ? true
    : jitterValue === 'none' || jitterValue === undefined ? false : UNKNOWN;
  if (isKnown(delay) && delay <= 0) return { schedule: { ...NO_DELAY, node }, jitter: { value: false, node: jitterNode } };
  return {
    // Full and equal jitter both stay at or below the computed delay.
    schedule: customSchedule('exponential', (n) => (isKnown(delay) ? capped(((2 ** n - 1) / 2) * delay) : UNKNOWN), {
      initialMs: isKnown(delay) ? delay / 2 : UNKNOWN,
      multiplier: 2,
      maxMs: cap,
      node,
    }),
    jitter: { value: jitter, node: jitterNode },
  };
}

function readFilter(view: OptionsView, ctx: AnalysisContext): ErrorFilter {
  const should = view.get('shouldRetry');
  if (should.property || should.value !== undefined) {
    const fn = functionOf(should.valueNode, ctx);
    if (fn && alwaysTrue(fn, ctx)) return { kind: 'none', clientErrors: [], retriesEverything: should.property, node: should.property };
    return { kind: 'custom', clientErrors: fn ? predicateClientErrors(fn, ctx, {}) : [], node: should.property };
  }
  const codes = view.get('statusCodesToRetry');
  if (!codes.property && codes.value === undefined) return view.state === 'unknown' ? { kind: 'custom', clientErrors: [] } : LIBRARY_FILTER;
  const list = codes.valueNode ? ctx.evaluator.resolve(codes.valueNode) : undefined;
  if (list?.type !== T.ArrayExpression) return { kind: 'custom', clientErrors: [], node: codes.property };
  const clientErrors: ClientErrorInclusion[] = [];
  for (const entry of list.elements) {
    if (!entry || entry.type === T.SpreadElement) continue;
    const range = ctx.evaluator.evaluate(entry);
    if (!Array.isArray(range) || range.length < 2) continue;
    const [lo, hi] = range as unknown[];
    if (typeof lo !== 'number' || typeof hi !== 'number') continue;
    const text = clientErrorRange(lo, hi, {});
    if (text) clientErrors.push({ status: text, node: entry });
  }
  return { kind: 'statuses', clientErrors, node: codes.property };
}
