/**
 * The migration off a legacy retry helper (R-RES-RE-X4): every call of the helper in the file
 * rewritten as `createRetryPolicy({...}).read(fn)` on this package's runtime, and the helper's
 * import replaced by the runtime's. Offered only when every call and every option maps; otherwise
 * the reason names what does not.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import type { AnalysisContext } from './library.js';
import type { OptionEdit, RetrySite } from './model.js';
import type { ModuleUse } from './imports.js';
import type { OperationAnalysis } from './operations/types.js';
import { contains, staticPropertyName, unwrap } from './ast.js';
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
}

/** A plan, or why the call cannot be migrated mechanically. */
export type Migration = MigrationPlan | string;

/**
 * node-retry's options (shared by p-retry, async-retry and promise-retry) in the runtime's words:
 * `retries` counts retries and `maxAttempts` counts calls, so 2 becomes 3. Absent options take the
 * runtime's defaults (3 attempts, 500 ms, factor 2, 2 s cap, full jitter, 5 s deadline).
 */
export function nodeRetryOptions(
  argument: TSESTree.Node | undefined,
  ctx: AnalysisContext,
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
    const text = ctx.sourceCode.getText(p.value);
    const value = ctx.evaluator.evaluate(p.value);
    const n = typeof value === 'number' ? value : undefined;
    const literal = p.value.type === T.Literal;
    switch (key) {
      // A known value outside the guide is brought within it (the runtime refuses it): more than
      // MAX_ATTEMPTS attempts becomes MAX_ATTEMPTS, waits that do not grow or do not wait take the
      // runtime's own first wait and factor. An unresolved value is never guessed at.
      case 'retries':
        if (n === undefined || !Number.isInteger(n) || n + 1 < 1) return `retries: ${text} has no equivalent (the runtime makes 1 to ${MAX_ATTEMPTS} attempts)`;
        options.push(`maxAttempts: ${n + 1 > MAX_ATTEMPTS ? String(MAX_ATTEMPTS) : literal ? String(n + 1) : `${text} + 1`}`);
        break;
      case 'factor':
        if (n === undefined) return `factor: ${text} cannot be read`;
        if (n > 1) options.push(`multiplier: ${text}`);
        break;
      case 'minTimeout':
        if (n === undefined) return `minTimeout: ${text} cannot be read`;
        if (n > 0) options.push(`initialDelayMs: ${text}`);
        break;
      case 'maxTimeout':
        if (n === undefined || n <= 0) return `maxTimeout: ${text} cannot be read`;
        if (Number.isFinite(n)) options.push(`maxDelayMs: ${text}`);
        break;
      case 'maxRetryTime':
        if (n === undefined || n <= 0 || (Number.isFinite(n) && n > QUEUE_MS)) return `maxRetryTime: ${text} has no equivalent (the runtime's deadline is at most ${QUEUE_MS / 1000} s)`;
        if (Number.isFinite(n)) options.push(`deadlineMs: ${text}`);
        break;
      case 'randomize':
        // The runtime always jitters its waits.
        if (typeof value !== 'boolean') return `randomize: ${text} cannot be read`;
        break;
      case 'forever':
        if (typeof value !== 'boolean') return `forever: ${text} cannot be read`;
        break;
      case 'shouldRetry':
      case 'retryIf':
        // A filter that lets everything through: the runtime's own classification (network
        // errors, 408, 429, 5xx) is the guide's. Any other filter is the code's to carry over.
        if (!alwaysTrue(functionOf(p.value, ctx), ctx)) return `${key} has no equivalent in createRetryPolicy`;
        break;
      case 'signal':
        if (!allowSignal) return `signal has no equivalent here`;
        callOptions.push(p.shorthand ? 'signal' : `signal: ${text}`);
        break;
      default:
        return `${key ?? ctx.sourceCode.getText(p.key)} has no equivalent in createRetryPolicy`;
    }
  }
  return { options, callOptions };
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
  const fn = parameterlessFunction(fnNode, ctx, library);
  if (typeof fn === 'string') return fn;
  const options = nodeRetryOptions(optionsNode, ctx, allowSignal);
  return typeof options === 'string' ? options : { fn: fn.fn, ...options };
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
      const writes = input.operations.facts(site).groups.some((g) => g.operations.some((o) => o.kind === 'write'));
      if (writes) return `the call on line ${site.node.loc.start.line} repeats a write, which needs an idempotency key only the code can choose (policy.write)`;
      const options = plan.options.length ? `{ ${plan.options.join(', ')} }` : '';
      const callOptions = plan.callOptions.length ? `, { ${plan.callOptions.join(', ')} }` : '';
      edits.push({ path: [], range: site.node.range, text: `${name}(${options}).read(${plan.fn}${callOptions})`, label: `${site.label} -> ${name}().read()` });
    }
  }
  // An import nothing calls goes; one whose calls moved to the runtime becomes the runtime's.
  const replacement = existing || edits.length === 0 ? '' : statement.type === T.ImportDeclaration
    ? `import { createRetryPolicy } from '${RUNTIME_MODULE}';`
    : `const { createRetryPolicy } = require('${RUNTIME_MODULE}');`;
  edits.push({ path: [], range: statement.range, text: replacement, label: `import from ${RUNTIME_MODULE}` });
  return edits;
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
