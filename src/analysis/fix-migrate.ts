/**
 * The migration off a legacy retry helper (R-RES-RE-X4): every call of the helper in the file
 * rewritten as `createRetryPolicy({...}).read(fn)` on this package's runtime, and the helper's
 * import replaced by the runtime's. Offered only when every call and every option maps; otherwise
 * the reason names what does not.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { AnalysisContext } from './library.js';
import type { OptionEdit, RetrySite } from './model.js';
import type { ModuleUse } from './imports.js';
import type { HttpCall, Operation, OperationAnalysis } from './operations/types.js';
import { KEY_NAME, keySendingEdits, uuidCallee } from './fix-keys.js';
import { contains, findVariable, isFunctionNode, staticPropertyName, unwrap } from './ast.js';
import { nameInUse } from './fix-imports.js';
import { localReference } from './libraries/generic-helpers.js';
import { alwaysTrue, functionOf } from './library.js';
import { MAX_ATTEMPTS, QUEUE_MS } from '../shared/guide-limits.js';

export const RUNTIME_MODULE = 'eslint-plugin-safe-retry/runtime';

/** One call in the runtime's words: the retried function's text and the policy's options. */
export interface MigrationPlan {
  readonly fn: string;
  /** `maxAttempts: 3`, ... */
  readonly options: readonly string[];
  /** `signal: controller.signal`: options of the `read` call itself. */
  readonly callOptions: readonly string[];
  /** The parameterless function whose source `fn` is, when it is one: a write's key is sent inside it. */
  readonly fnNode?: TSESTree.Node | undefined;
}

/** A plan, or why the call cannot be migrated mechanically. */
export type Migration = MigrationPlan | string;

/**
 * How one option of a legacy helper maps onto `createRetryPolicy` (each descriptor's table, read by
 * `migratedOptions`). A known value outside the guide is brought within it (the runtime refuses it):
 * more than MAX_ATTEMPTS attempts becomes MAX_ATTEMPTS, waits that do not grow or do not wait take
 * the runtime's own first wait and factor; an unresolved value is never guessed at.
 */
export type MigrationKey =
  /** `zeroIsUnbounded`: 0 means no bound (@lifeomic/attempt), brought to MAX_ATTEMPTS. */
  | { readonly to: 'maxAttempts'; readonly counts: 'retries' | 'attempts'; readonly zeroIsUnbounded?: boolean }
  /** `zeroIsNone`: 0 means the setting is off (no cap, no timeout), the runtime's default applies. */
  | { readonly to: 'initialDelayMs' | 'multiplier' | 'maxDelayMs' | 'deadlineMs' | 'attemptTimeoutMs'; readonly zeroIsNone?: boolean }
  /** A setting the runtime's own schedule replaces (jitter, growth): any of these values is dropped. */
  | { readonly to: 'dropped'; readonly accepts: 'boolean' | readonly string[] }
  /** Accepted only with this value, which is what the runtime does anyway (`delayFirstAttempt: false`). */
  | { readonly to: 'only'; readonly value: unknown }
  /** An error filter: one that lets everything through gives way to the runtime's classification. */
  | { readonly to: 'filter' }
  | { readonly to: 'signal' };

export type MigrationVocabulary = Readonly<Record<string, MigrationKey>>;

/** node-retry's options, shared by p-retry, async-retry and promise-retry. */
export const NODE_RETRY_MIGRATION: MigrationVocabulary = {
  retries: { to: 'maxAttempts', counts: 'retries' },
  factor: { to: 'multiplier' },
  minTimeout: { to: 'initialDelayMs' },
  maxTimeout: { to: 'maxDelayMs' },
  maxRetryTime: { to: 'deadlineMs' },
  randomize: { to: 'dropped', accepts: 'boolean' },
  forever: { to: 'dropped', accepts: 'boolean' },
  shouldRetry: { to: 'filter' },
  retryIf: { to: 'filter' },
  signal: { to: 'signal' },
};

/**
 * A helper's options in the runtime's words, read through its vocabulary: `retries: 2` becomes
 * `maxAttempts: 3`. Absent options take the runtime's defaults (3 attempts, 500 ms, factor 2,
 * 2 s cap, full jitter, 5 s deadline).
 */
export function migratedOptions(
  argument: TSESTree.Node | undefined,
  ctx: AnalysisContext,
  vocabulary: MigrationVocabulary,
  allowSignal: boolean,
): { options: string[]; callOptions: string[] } | string {
  const options: string[] = [];
  const callOptions: string[] = [];
  if (!argument) return { options, callOptions };
  const object = unwrap(argument);
  if (object.type !== T.ObjectExpression) return 'the options are not an object literal written at the call';
  for (const p of object.properties) {
    if (p.type !== T.Property || p.computed || p.kind !== 'init' || p.method) return `'${ctx.sourceCode.getText(p)}' cannot be read`;
    const key = staticPropertyName(p);
    const spec = key !== undefined && Object.hasOwn(vocabulary, key) ? vocabulary[key] : undefined;
    if (!spec || key === undefined) return `${key ?? ctx.sourceCode.getText(p.key)} has no equivalent in createRetryPolicy`;
    const text = ctx.sourceCode.getText(p.value);
    const value = ctx.evaluator.evaluate(p.value);
    const n = typeof value === 'number' ? value : undefined;
    const literal = p.value.type === T.Literal;
    const off = 'zeroIsNone' in spec && spec.zeroIsNone === true && n === 0;
    switch (spec.to) {
      case 'maxAttempts': {
        if (n === 0 && spec.zeroIsUnbounded) { options.push(`maxAttempts: ${MAX_ATTEMPTS}`); break; }
        const extra = spec.counts === 'retries' ? 1 : 0;
        if (n === undefined || !Number.isInteger(n) || n + extra < 1) return `${key}: ${text} has no equivalent (the runtime makes 1 to ${MAX_ATTEMPTS} attempts)`;
        options.push(`maxAttempts: ${n + extra > MAX_ATTEMPTS ? String(MAX_ATTEMPTS) : literal ? String(n + extra) : extra ? `${text} + 1` : text}`);
        break;
      }
      case 'multiplier':
        if (n === undefined) return `${key}: ${text} cannot be read`;
        if (n > 1) options.push(`multiplier: ${text}`);
        break;
      case 'initialDelayMs':
        if (n === undefined) return `${key}: ${text} cannot be read`;
        if (n > 0) options.push(`initialDelayMs: ${text}`);
        break;
      case 'maxDelayMs':
      case 'attemptTimeoutMs':
        if (off) break;
        if (n === undefined || n <= 0) return `${key}: ${text} cannot be read`;
        if (Number.isFinite(n)) options.push(`${spec.to}: ${text}`);
        break;
      case 'deadlineMs':
        if (off) break;
        if (n === undefined || n <= 0 || (Number.isFinite(n) && n > QUEUE_MS)) return `${key}: ${text} has no equivalent (the runtime's deadline is at most ${QUEUE_MS / 1000} s)`;
        if (Number.isFinite(n)) options.push(`deadlineMs: ${text}`);
        break;
      case 'dropped':
        // The runtime always jitters and always grows its waits.
        if (spec.accepts === 'boolean' ? typeof value !== 'boolean' : typeof value !== 'string' || !spec.accepts.includes(value)) return `${key}: ${text} cannot be read`;
        break;
      case 'only':
        if (value !== spec.value) return `${key}: ${text} has no equivalent in createRetryPolicy`;
        break;
      case 'filter':
        // A filter that lets everything through: the runtime's own classification (network
        // errors, 408, 429, 5xx) is the guide's. Any other filter is the code's to carry over.
        if (!alwaysTrue(functionOf(p.value, ctx), ctx)) return `${key} has no equivalent in createRetryPolicy`;
        break;
      case 'signal':
        if (!allowSignal) return `signal has no equivalent here`;
        callOptions.push(p.shorthand ? 'signal' : `signal: ${text}`);
        break;
    }
  }
  return { options, callOptions };
}

/** node-retry's options (p-retry, async-retry, promise-retry) in the runtime's words. */
export function nodeRetryOptions(argument: TSESTree.Node | undefined, ctx: AnalysisContext, allowSignal: boolean): { options: string[]; callOptions: string[] } | string {
  return migratedOptions(argument, ctx, NODE_RETRY_MIGRATION, allowSignal);
}

/** The retried function written inline without parameters (the runtime passes its own context). */
export function parameterlessFunction(node: TSESTree.Node | undefined, ctx: AnalysisContext, library: string): { fn: string } | string {
  const fn = node && unwrap(node);
  if (!fn || (fn.type !== T.ArrowFunctionExpression && fn.type !== T.FunctionExpression)) return `the retried function is not written at the ${library} call`;
  if (fn.params.length > 0) return `the retried function takes ${library}'s own parameters (${fn.params.map((p) => ctx.sourceCode.getText(p)).join(', ')})`;
  return { fn: ctx.sourceCode.getText(fn) };
}

/** A call `helper(fn, options)` of a node-retry heir, migrated when both parts map. */
export function nodeRetryCall(
  fnNode: TSESTree.Node | undefined,
  optionsNode: TSESTree.Node | undefined,
  ctx: AnalysisContext,
  library: string,
  allowSignal = false,
): Migration {
  return optionsCall(fnNode, optionsNode, ctx, library, NODE_RETRY_MIGRATION, allowSignal);
}

/** A call `helper(fn, options)` whose options the library's vocabulary maps. */
export function optionsCall(
  fnNode: TSESTree.Node | undefined,
  optionsNode: TSESTree.Node | undefined,
  ctx: AnalysisContext,
  library: string,
  vocabulary: MigrationVocabulary,
  allowSignal = false,
): Migration {
  const fn = parameterlessFunction(fnNode, ctx, library);
  if (typeof fn === 'string') return fn;
  const options = migratedOptions(optionsNode, ctx, vocabulary, allowSignal);
  return typeof options === 'string' ? options : { fn: fn.fn, fnNode: unwrap(fnNode!), ...options };
}

/**
 * A library's migration from its option table: `label` names the one call shape migrated
 * (`backOff()`: `backOff(fn, options)`); any other use of the helper says so.
 */
export function tableMigration(label: string, library: string, vocabulary: MigrationVocabulary): (site: RetrySite, ctx: AnalysisContext) => Migration {
  return (site, ctx) => {
    if (site.label !== label || site.node.type !== T.CallExpression || site.node.arguments.length > 2) return `only ${label.slice(0, -2)}(fn, options) calls are migrated`;
    return optionsCall(site.node.arguments[0], site.node.arguments[1], ctx, library, vocabulary);
  };
}

export interface MigrationInput {
  readonly use: ModuleUse;
  readonly sites: readonly RetrySite[];
  readonly migrate: (site: RetrySite, ctx: AnalysisContext) => Migration;
  readonly operations: OperationAnalysis;
}

/** Every call through the import migrated and the import replaced, or the reason it cannot be. */
export function migrationEdits(input: MigrationInput, ctx: AnalysisContext): OptionEdit[] | string {
  const { use, sites } = input;
  const statement = importStatement(use);
  if (!statement) return 'the import is not a plain import or require statement';
  const bindings = ctx.imports.bindings.filter((b) => b.node === use.node);
  const edits: OptionEdit[] = [];
  const existing = localReference(ctx, [RUNTIME_MODULE], 'createRetryPolicy');
  if (!existing && nameInUse(ctx, 'createRetryPolicy')) return "the file already uses the name 'createRetryPolicy'";
  const name = existing ?? 'createRetryPolicy';
  for (const binding of bindings) {
    for (const ref of binding.variable.references) {
      if (ref.init) continue;
      const site = sites.find((s) => contains(s.reportNode, ref.identifier) && s.node.type === T.CallExpression);
      const plan = site ? input.migrate(site, ctx) : undefined;
      if (typeof plan === 'string') return `${plan} (line ${ref.identifier.loc.start.line})`;
      if (!site || !plan || unwrap(site.reportNode) !== ref.identifier) return `'${binding.variable.name}' is used on line ${ref.identifier.loc.start.line} other than as a call to migrate`;
      const facts = input.operations.facts(site);
      const writes = facts.groups.flatMap((g) => g.operations.filter((o) => o.kind === 'write'));
      const write = writes.length ? writeCall(plan, writes, facts.httpCalls, ctx) : undefined;
      if (typeof write === 'string') return `the call on line ${site.node.loc.start.line} repeats a write, ${write}`;
      const options = plan.options.length ? `{ ${plan.options.join(', ')} }` : '';
      const callOptions = plan.callOptions.length ? `, { ${plan.callOptions.join(', ')} }` : '';
      const text = write
        ? `${name}(${options}).write({ idempotencyKey: ${write.key} }, ${write.fn}${callOptions})`
        : `${name}(${options}).read(${plan.fn}${callOptions})`;
      edits.push({ path: [], range: site.node.range, text, label: `${site.label} -> ${name}().${write ? 'write' : 'read'}()` });
    }
  }
  // An import nothing calls goes; one whose calls moved to the runtime becomes the runtime's.
  const replacement = existing || edits.length === 0 ? '' : statement.type === T.ImportDeclaration
    ? `import { createRetryPolicy } from '${RUNTIME_MODULE}';`
    : `const { createRetryPolicy } = require('${RUNTIME_MODULE}');`;
  edits.push({ path: [], range: statement.range, text: replacement, label: `import from ${RUNTIME_MODULE}` });
  return edits;
}

/**
 * A write moved to `policy.write({ idempotencyKey }, fn)`: the key the code already sends, when it
 * is the same on every attempt and readable where the retry starts; otherwise a key created once per
 * call of the policy (`crypto.randomUUID()`) handed to the function, which sends it the way its
 * client takes it (fix-keys.ts). Why not, when neither can be written.
 */
function writeCall(plan: MigrationPlan, writes: readonly Operation[], httpCalls: readonly HttpCall[], ctx: AnalysisContext): { key: string; fn: string } | string {
  const cannot = 'which needs an idempotency key only the code can choose (policy.write)';
  if (writes.length !== 1) return cannot;
  const op = writes[0]!;
  const fnNode = plan.fnNode;
  if (op.key) {
    // The code's own key, kept: it must be the same on every attempt and readable outside the function.
    const readable = op.key.stability !== 'fresh' && fnNode && declaredOutside(op.key.value, fnNode, ctx);
    return readable ? { key: ctx.sourceCode.getText(op.key.value), fn: plan.fn } : cannot;
  }
  if (!fnNode || !isFunctionNode(fnNode) || fnNode.params.length > 0) return cannot;
  const send = keySendingEdits(op, httpCalls, ctx);
  const uuid = send && uuidCallee(ctx);
  const open = ctx.sourceCode.getFirstToken(fnNode, { filter: (t) => t.value === '(' });
  if (!send || !uuid || !open || send.some((e) => !e.range || e.range[0] < fnNode.range[0] || e.range[1] > fnNode.range[1])) return cannot;
  const edits = [...send, { path: [], range: [open.range[1], open.range[1]] as const, text: `{ ${KEY_NAME} }` }];
  return { key: `${uuid}()`, fn: applyWithin(ctx.sourceCode.getText(fnNode), fnNode.range[0], edits) };
}

/** Whether `node` (a name or a member chain on one) reads a binding declared outside `fn` and never reassigned. */
function declaredOutside(node: TSESTree.Node, fn: TSESTree.Node, ctx: AnalysisContext): boolean {
  let root = unwrap(node);
  while (root.type === T.MemberExpression && !root.computed) root = unwrap(root.object);
  if (root.type !== T.Identifier) return false;
  const variable = findVariable(ctx.sourceCode.getScope(root), root.name);
  const def = variable?.defs[0]?.name;
  // Never assigned after its declaration: the same value on every attempt.
  if (!def || variable.references.some((r) => r.isWrite() && !r.init)) return false;
  return !(def.range[0] >= fn.range[0] && def.range[1] <= fn.range[1]);
}

/** `text` (which starts at `offset` in the file) with range edits inside it applied. */
export function applyWithin(text: string, offset: number, edits: ReadonlyArray<{ readonly range?: readonly [number, number] | undefined; readonly text: string }>): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.range![0] - a.range![0])) {
    out = out.slice(0, e.range![0] - offset) + e.text + out.slice(e.range![1] - offset);
  }
  return out;
}

/** `import x from 'm'` or `const x = require('m')` standing alone, which the migration replaces. */
function importStatement(use: ModuleUse): TSESTree.Node | undefined {
  if (use.node.type === T.ImportDeclaration) return use.node;
  const declarator = use.node.parent;
  if (declarator?.type !== T.VariableDeclarator || declarator.init !== use.node) return undefined;
  const declaration = declarator.parent;
  if (declaration?.type !== T.VariableDeclaration || declaration.declarations.length !== 1) return undefined;
  return declaration.parent?.type === T.Program ? declaration : undefined;
}
