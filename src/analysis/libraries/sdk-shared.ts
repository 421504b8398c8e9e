/** Helpers shared by the SDK, GraphQL-client and durable-engine descriptors. */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext } from '../library.js';
import { alwaysTrue, argument, functionOf } from '../library.js';
import type { ErrorFilter, Node, Setting } from '../model.js';
import type { OptionValue, OptionsView } from '../options.js';
import { RESPONSE, UNKNOWN, isStaticFunction, truth, type Maybe, type StaticValue } from '../eval/values.js';
import { FREE, STATIC_ENV, type Env } from '../eval/environment.js';
import { parameterVariable, returnOf } from '../eval/functions.js';
import { contains, enclosingClass } from '../ast.js';

const DURATION_UNITS: Record<string, number> = {
  ms: 1, msec: 1, msecs: 1, millisecond: 1, milliseconds: 1,
  s: 1000, sec: 1000, secs: 1000, second: 1000, seconds: 1000,
  m: 60_000, min: 60_000, mins: 60_000, minute: 60_000, minutes: 60_000,
  h: 3_600_000, hr: 3_600_000, hrs: 3_600_000, hour: 3_600_000, hours: 3_600_000,
  d: 86_400_000, day: 86_400_000, days: 86_400_000,
  w: 604_800_000, week: 604_800_000, weeks: 604_800_000,
  y: 31_557_600_000, yr: 31_557_600_000, yrs: 31_557_600_000, year: 31_557_600_000, years: 31_557_600_000,
};

/**
 * A duration in ms as the `ms` package reads it (Temporal's `Duration`): a number is ms,
 * a string is `'1s'`, `'500 ms'`, `'2 minutes'`, `'1.5h'`; anything else is UNKNOWN.
 */
export function durationMs(value: Maybe<StaticValue>): Maybe<number | undefined> {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? value : UNKNOWN;
  if (typeof value !== 'string') return UNKNOWN;
  const match = /^\s*(-?(?:\d+\.?\d*|\.\d+))\s*([a-z]*)\s*$/i.exec(value);
  if (!match) return UNKNOWN;
  const unit = match[2]!.toLowerCase();
  const factor = unit === '' ? 1 : DURATION_UNITS[unit];
  return factor === undefined ? UNKNOWN : Number(match[1]) * factor;
}

/**
 * A number or a `Provider<number>` written as `() => 3` / `async () => 3` (the AWS SDK accepts
 * both for `maxAttempts`); UNKNOWN for anything else.
 */
export function numberOrProvider(value: Maybe<StaticValue>, ctx: AnalysisContext): Maybe<number | undefined> {
  if (value === undefined || typeof value === 'number') return value;
  if (!isStaticFunction(value)) return UNKNOWN;
  const fn = value.node;
  if (fn.params.length > 0 || !fn.body || fn.body.type === T.BlockStatement) return UNKNOWN;
  const v = ctx.evaluator.evaluate(fn.body);
  return typeof v === 'number' ? v : UNKNOWN;
}

/**
 * The predicate option of a filter (`retryIf`): one that is true for whatever error it is given
 * (`() => true`, `(error) => !!error`) retries everything.
 */
export function predicateFilter(option: OptionValue, ctx: AnalysisContext, otherwise: ErrorFilter): ErrorFilter {
  if (!option.property && option.value === undefined) return otherwise;
  const fn = functionOf(option.valueNode, ctx);
  if (fn && trueForEveryError(fn, ctx)) return { kind: 'none', clientErrors: [], retriesEverything: option.property, node: option.property };
  return { kind: 'custom', clientErrors: [], node: option.property };
}

/**
 * True when a predicate called with an error as its first argument is true whatever the error:
 * `() => true`, `(error) => !!error`, `(e) => Boolean(e)`. An error is an object, so truthy; any
 * property of it stays unknown (`(e) => e && e.networkError` is not known to be true).
 */
export function trueForEveryError(fn: TSESTree.FunctionLike, ctx: AnalysisContext): boolean {
  if (alwaysTrue(fn, ctx)) return true;
  const first = fn.params[0];
  if (first?.type !== T.Identifier) return false;
  const variable = parameterVariable(ctx.sourceCode, fn, first);
  const returned = returnOf(fn);
  if (!variable || !returned || !('expr' in returned)) return false;
  const env: Env = { ...STATIC_ENV, lookup: (v) => (v === variable ? RESPONSE : FREE) };
  return truth(ctx.evaluator.evaluateIn(returned.expr, env)) === true;
}

/**
 * Whether a GraphQL link or exchange that retries every operation kind (Apollo's `RetryLink`,
 * urql's `retryExchange`) re-sends mutations: yes, unless its predicate reads the operation it is
 * given (parameter `operationIndex`), which is how code restricts it to queries. `at` is where the
 * finding goes when no predicate is written (the library's default retries every kind).
 */
export function operationKindsRetried(option: OptionValue, operationIndex: number, ctx: AnalysisContext, at: Node): Setting<boolean> {
  if (!option.property && option.value === undefined) return { value: true, node: at };
  const fn = functionOf(option.valueNode, ctx);
  if (!fn) return { value: UNKNOWN, node: option.property };
  const param = fn.params[operationIndex];
  if (!param) return { value: true, node: option.property ?? at };
  if (param.type !== T.Identifier) return { value: UNKNOWN, node: option.property };
  const variable = parameterVariable(ctx.sourceCode, fn, param);
  if (!variable || variable.references.length > 0) return { value: UNKNOWN, node: option.property };
  return { value: true, node: option.property ?? at };
}

/** Is the option written (or possibly written, behind an unknown spread)? */
export function written(view: OptionsView, key: string): boolean {
  const v = view.get(key);
  return !!v.property || v.value !== undefined;
}

/**
 * Expressions through which code reaches the instance a `new`/call creates: the references of
 * `const client = new X()`, or `this.client` inside the class for a field or a `this.client =`
 * assignment (the usual shape in services). Aliases beyond that are not followed.
 */
export function instanceReferences(creation: Node, ctx: AnalysisContext): Node[] {
  let node: Node = creation;
  while (node.parent && (node.parent.type === T.TSAsExpression || node.parent.type === T.TSNonNullExpression ||
    node.parent.type === T.TSSatisfiesExpression || node.parent.type === T.AwaitExpression)) node = node.parent;
  const parent = node.parent;
  if (!parent) return [];
  if (parent.type === T.VariableDeclarator && parent.init === node && parent.id.type === T.Identifier) {
    const variable = ctx.sourceCode.getDeclaredVariables(parent)[0];
    return (variable?.references ?? []).filter((r) => !r.init && r.isRead()).map((r) => r.identifier as Node);
  }
  if (parent.type === T.PropertyDefinition && parent.value === node) {
    const name = memberName(parent.key, parent.computed);
    const owner = enclosingClass(parent);
    return name && owner ? thisMembers(owner, name, ctx) : [];
  }
  if (parent.type === T.AssignmentExpression && parent.right === node && parent.left.type === T.MemberExpression &&
    parent.left.object.type === T.ThisExpression) {
    const name = memberName(parent.left.property, parent.left.computed);
    const owner = enclosingClass(parent);
    return name && owner ? thisMembers(owner, name, ctx).filter((m) => m !== parent.left) : [];
  }
  return [];
}

/**
 * References to a value typed with an imported class (`constructor(@InjectQueue('q') private
 * queue: Queue)`, `private readonly queue: Queue`, `(queue: Queue) => ...`): the type reference
 * `use` points at the `Queue` identifier inside the annotation.
 */
export function typedReferences(typeName: Node, ctx: AnalysisContext): Node[] {
  const ref = typeName.parent;
  if (ref?.type !== T.TSTypeReference || ref.typeName !== typeName) return [];
  const annotation = ref.parent;
  if (annotation?.type !== T.TSTypeAnnotation) return [];
  const holder = annotation.parent;
  if (!holder) return [];
  if (holder.type === T.Identifier) {
    const owner = holder.parent;
    if (owner?.type === T.TSParameterProperty) {
      const cls = enclosingClass(owner);
      return cls ? thisMembers(cls, holder.name, ctx) : [];
    }
    const variable = ctx.sourceCode.getDeclaredVariables(owner?.type === T.VariableDeclarator ? owner : (owner ?? holder))
      .find((v) => v.name === holder.name) ?? ctx.evaluator.scopeOf(holder).set.get(holder.name);
    return (variable?.references ?? []).filter((r) => !r.init && r.isRead()).map((r) => r.identifier as Node);
  }
  if (holder.type === T.PropertyDefinition) {
    const name = memberName(holder.key, holder.computed);
    const cls = enclosingClass(holder);
    return name && cls ? thisMembers(cls, name, ctx) : [];
  }
  return [];
}

function memberName(key: Node, computed: boolean): string | undefined {
  if (computed) return key.type === T.Literal && typeof key.value === 'string' ? key.value : undefined;
  if (key.type === T.Identifier) return key.name;
  if (key.type === T.PrivateIdentifier) return `#${key.name}`;
  return undefined;
}

function thisMembers(owner: Node, name: string, ctx: AnalysisContext): Node[] {
  const out: Node[] = [];
  for (const m of ctx.nodesOfType(T.MemberExpression)) {
    if (m.object.type !== T.ThisExpression || !contains(owner, m)) continue;
    const key = m.property.type === T.PrivateIdentifier ? `#${m.property.name}` : memberName(m.property, m.computed);
    if (key !== name) continue;
    // `this.x = ...` is the definition, not a use.
    if (m.parent?.type === T.AssignmentExpression && m.parent.left === m) continue;
    out.push(m);
  }
  return out;
}

/**
 * Method calls made through an instance reference: `stripe.charges.create(...)` gives the call
 * with the member path `['charges', 'create']`.
 */
export function methodCalls(reference: Node): { call: TSESTree.CallExpression; path: string[] } | undefined {
  const path: string[] = [];
  let expr: Node = reference;
  while (expr.parent?.type === T.MemberExpression && expr.parent.object === expr) {
    const name = memberName(expr.parent.property, expr.parent.computed);
    if (name === undefined) return undefined;
    path.push(name);
    expr = expr.parent;
  }
  const call = expr.parent;
  if (path.length === 0 || call?.type !== T.CallExpression || call.callee !== expr) return undefined;
  return { call, path };
}

/**
 * Per-request retry options on an SDK client's methods (`stripe.charges.create(params,
 * { maxNetworkRetries: 5 })`, `openai.chat.completions.create(body, { maxRetries: 0 })`): each
 * call through the client's references whose object argument writes `key`.
 */
export function requestOptionCalls(
  creation: Node,
  key: string,
  ctx: AnalysisContext,
): Array<{ call: TSESTree.CallExpression; view: OptionsView; index: number; path: string[] }> {
  const out: Array<{ call: TSESTree.CallExpression; view: OptionsView; index: number; path: string[] }> = [];
  for (const ref of instanceReferences(creation, ctx)) {
    const method = methodCalls(ref);
    if (!method || method.path.length < 2) continue;
    for (let i = method.call.arguments.length - 1; i >= 0; i--) {
      const arg = method.call.arguments[i]!;
      if (arg.type === T.SpreadElement) break;
      const view = ctx.options(arg);
      if (view.state === 'object' && view.get(key).property) {
        out.push({ call: method.call, view, index: i, path: method.path });
        break;
      }
    }
  }
  return out;
}

/**
 * The options view of argument `i`; after a spread argument the position is unknown, so the
 * view is unknown rather than absent (an absent one would wrongly mean "library defaults").
 */
export function optionsArgument(call: TSESTree.CallExpression | TSESTree.NewExpression, i: number, ctx: AnalysisContext): OptionsView {
  const spread = call.arguments.slice(0, i + 1).find((a) => a.type === T.SpreadElement);
  return ctx.options(spread ?? argument(call, i));
}

/**
 * Marks a site that exists only because the library retries by default (`new S3Client({})`,
 * `new Stripe(key)`): no retry configuration was written. Spread into `site({...})`.
 */
export function implicitWhen(noRetryOptionWritten: boolean): { implicit?: boolean } {
  return noRetryOptionWritten ? { implicit: true } : {};
}

/** True when the options are known and none of `keys` is (or may be) written. */
export function writesNone(view: OptionsView, keys: readonly string[]): boolean {
  return view.state !== 'unknown' && keys.every((k) => !written(view, k));
}
