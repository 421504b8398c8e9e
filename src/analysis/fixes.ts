/** Turns a descriptor's OptionEdits into editor fixes on the site's options object. */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { UNWRITABLE, planSchedule, type LibraryFixes, type PlanGoal } from './fix-plan.js';
import { handWrittenFixes } from './fix-hand-written.js';
import type { AnalysisContext } from './library.js';
import { LIBRARIES } from './libraries/index.js';
import type { OptionEdit, RetrySite } from './model.js';
import { lookupProperty, unwrap } from './ast.js';
import type { HttpCall, OperationAnalysis } from './operations/types.js';
import type { ImportBinding, ModuleUse } from './imports.js';
import { migrationEdits } from './fix-migrate.js';
import { idempotencyKeyEdits } from './fix-keys.js';
import { carryOwnStatus } from './fix-filters.js';
import { mergeDeclarations } from './fix-imports.js';
import type { Operation } from './operations/types.js';

type Fixer = TSESLint.RuleFixer;
type Fix = TSESLint.RuleFix;

/**
 * A fix function applying every edit, or undefined when any edit cannot be placed safely
 * (options built at run time, spreads that might override, a spread argument list).
 */
export function optionEditsFix(
  site: RetrySite,
  edits: readonly OptionEdit[] | undefined,
  sourceCode: Readonly<TSESLint.SourceCode>,
): ((fixer: Fixer) => Fix[]) | undefined {
  if (!edits || edits.length === 0) return undefined;
  edits = mergeDeclarations(edits);
  const plans: Array<(fixer: Fixer) => Fix> = [];
  // Edits on source ranges (hand-written code, a filter's list, an added import) go as written.
  for (const edit of edits) if (edit.range) plans.push(rangeEdit(edit.range, edit.text));
  const onOptions = edits.filter((e) => !e.range);
  if (onOptions.length > 0) {
    if (!site.options) return undefined;
    const placed = optionPlans(site.options, onOptions, sourceCode);
    if (!placed) return undefined;
    plans.push(...placed);
  }
  return checkedFix(plans);
}

/** Edits on source ranges only (a migration), checked like any other suggestion. */
export function rangeEditsFix(edits: readonly OptionEdit[]): ((fixer: Fixer) => Fix[]) | undefined {
  if (edits.length === 0 || edits.some((e) => !e.range)) return undefined;
  return checkedFix(mergeDeclarations(edits).map((e) => rangeEdit(e.range!, e.text)));
}

function checkedFix(plans: ReadonlyArray<(fixer: Fixer) => Fix>): ((fixer: Fixer) => Fix[]) | undefined {
  const fixes = plans.map((p) => p(EAGER));
  // Two edits of one place cannot be applied together: no suggestion rather than a crash.
  const sorted = [...fixes].sort((a, b) => a.range[0] - b.range[0] || a.range[1] - b.range[1]);
  for (let i = 1; i < sorted.length; i++) if (sorted[i]!.range[0] < sorted[i - 1]!.range[1]) return undefined;
  return () => fixes;
}

function rangeEdit(range: readonly [number, number], text: string): (fixer: Fixer) => Fix {
  return (f) => f.replaceTextRange([range[0], range[1]], text);
}

/** A fixer that builds the fix objects at once, so that overlapping edits are found before reporting. */
const EAGER: Fixer = {
  insertTextAfter: (n, text) => ({ range: [n.range[1], n.range[1]], text }),
  insertTextAfterRange: (r, text) => ({ range: [r[1], r[1]], text }),
  insertTextBefore: (n, text) => ({ range: [n.range[0], n.range[0]], text }),
  insertTextBeforeRange: (r, text) => ({ range: [r[0], r[0]], text }),
  remove: (n) => ({ range: [n.range[0], n.range[1]], text: '' }),
  removeRange: (r) => ({ range: [r[0], r[1]], text: '' }),
  replaceText: (n, text) => ({ range: [n.range[0], n.range[1]], text }),
  replaceTextRange: (r, text) => ({ range: [r[0], r[1]], text }),
};

function optionPlans(
  target: NonNullable<RetrySite['options']>,
  edits: readonly OptionEdit[],
  sourceCode: Readonly<TSESLint.SourceCode>,
): Array<(fixer: Fixer) => Fix> | undefined {
  const plans: Array<(fixer: Fixer) => Fix> = [];
  const { object, call, argumentIndex } = target;
  const scopeOf = (n: TSESTree.Node) => sourceCode.getScope(n);
  for (const edit of edits) {
    if (edit.path.length === 0) {
      if (!call || argumentIndex === undefined) return undefined;
      const arg = call.arguments[argumentIndex];
      if (arg) plans.push((f) => f.replaceText(arg, edit.text));
      else if (call.arguments.length === argumentIndex) plans.push(appendArgument(call, edit.text, sourceCode));
      else return undefined;
      continue;
    }
    if (!object) {
      if (!call || argumentIndex === undefined || call.arguments.length !== argumentIndex) return undefined;
      continue; // gathered into one new options argument below
    }
    const plan = planInObject(object, edit.path, edit.text, scopeOf, sourceCode);
    if (!plan) return undefined;
    plans.push(plan);
  }
  const fresh = object ? [] : edits.filter((e) => e.path.length > 0);
  if (fresh.length && call) plans.push(appendArgument(call, objectText(fresh), sourceCode));
  return plans;
}

/** `{ retries: 2, retry: { limit: 2 } }` from option edits on paths. */
function objectText(edits: readonly OptionEdit[]): string {
  type Tree = Map<string, Tree | string>;
  const root: Tree = new Map();
  for (const e of edits) {
    let at = root;
    e.path.forEach((key, i) => {
      if (i === e.path.length - 1) at.set(key, e.text);
      else {
        const next = at.get(key);
        if (next instanceof Map) at = next;
        else { const t: Tree = new Map(); at.set(key, t); at = t; }
      }
    });
  }
  const print = (t: Tree): string => `{ ${[...t].map(([k, v]) => `${propertyName(k)}: ${typeof v === 'string' ? v : print(v)}`).join(', ')} }`;
  return print(root);
}

function planInObject(
  object: TSESTree.ObjectExpression,
  path: readonly string[],
  text: string,
  scopeOf: (n: TSESTree.Node) => TSESLint.Scope.Scope,
  sourceCode: Readonly<TSESLint.SourceCode>,
): ((fixer: Fixer) => Fix) | undefined {
  const [head, ...rest] = path;
  if (head === undefined) return undefined;
  const found = lookupProperty(object, head, scopeOf);
  if (found.state === 'unknown') return undefined;
  if (found.state === 'absent') return insertProperty(object, `${propertyName(head)}: ${nested(rest, text)}`, sourceCode);
  if (rest.length === 0) {
    const value = found.value;
    // `{ retries }` shorthand: replacing the value alone would leave `{ 2 }`.
    const property = found.property;
    if (property.shorthand) return (f) => f.replaceText(property, `${propertyName(head)}: ${text}`);
    return (f) => f.replaceText(value, text);
  }
  const inner = unwrap(found.value);
  if (inner.type !== T.ObjectExpression) return undefined;
  return planInObject(inner, rest, text, scopeOf, sourceCode);
}

function nested(path: readonly string[], text: string): string {
  let out = text;
  for (let i = path.length - 1; i >= 0; i--) out = `{ ${propertyName(path[i]!)}: ${out} }`;
  return out;
}

function propertyName(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
}

function insertProperty(object: TSESTree.ObjectExpression, text: string, sourceCode: Readonly<TSESLint.SourceCode>): (fixer: Fixer) => Fix {
  const last = object.properties[object.properties.length - 1];
  if (!last) return (f) => f.replaceText(object, `{ ${text} }`);
  const after = sourceCode.getTokenAfter(last);
  if (after && after.value === ',') return (f) => f.insertTextAfter(after, ` ${text},`);
  return (f) => f.insertTextAfter(last, `, ${text}`);
}

function appendArgument(
  call: TSESTree.CallExpression | TSESTree.NewExpression,
  text: string,
  sourceCode: Readonly<TSESLint.SourceCode>,
): (fixer: Fixer) => Fix {
  const last = call.arguments[call.arguments.length - 1];
  if (last) return (f) => f.insertTextAfter(last, `, ${text}`);
  const closing = sourceCode.getLastToken(call);
  return (f) => f.insertTextBefore(closing!, text);
}

/** `retries: 2, factor: 2`: how a suggestion describes its edits in the editor's menu. */
export function describeEdits(edits: readonly OptionEdit[]): string {
  return edits.map((e) => e.label ?? `${e.path.length ? e.path[e.path.length - 1] : 'argument'}: ${e.text}`).join(', ');
}

// ---------------------------------------------------------------------------------------------
// Per-library vocabularies (the `fixes` facet of each descriptor) turned into suggestions.

/** The fix vocabulary of a site's library: its descriptor's facet, or the hand-written loops' own. */
export function libraryFixesOf(site: RetrySite): LibraryFixes | undefined {
  if (site.library === HAND_WRITTEN) return handWrittenFixes;
  return fixesById.get(site.library);
}

const HAND_WRITTEN = 'hand-written';
const fixesById = new Map<string, LibraryFixes>();
for (const d of LIBRARIES) if (d.fixes && !fixesById.has(d.id)) fixesById.set(d.id, d.fixes);

export interface Suggestion {
  readonly edits: readonly OptionEdit[];
  readonly fix: (fixer: Fixer) => Fix[];
  /** The planned waits (`500 ms, 1 s`), when the suggestion writes a schedule. */
  readonly waits?: readonly number[] | undefined;
}

/**
 * One edit that leaves the site's schedule compliant with every schedule rule (attempts, growth,
 * jitter, worst case), in the library's vocabulary; undefined when none can be written safely.
 * Libraries without a schedule vocabulary fall back to the single-setting edit of `fallback`.
 */
export function scheduleSuggestion(
  site: RetrySite,
  goal: PlanGoal,
  model: { readonly context: AnalysisContext },
  fallback?: readonly OptionEdit[] | undefined,
): Suggestion | undefined {
  const vocabulary = libraryFixesOf(site)?.schedule;
  if (vocabulary) {
    const planned = planSchedule(site, vocabulary, goal, model.context);
    if (planned === undefined) return undefined;
    if (planned !== UNWRITABLE) {
      const fix = optionEditsFix(site, planned.edits, model.context.sourceCode);
      if (fix) return { edits: planned.edits, fix, waits: planned.waits };
    }
    // A compliant plan the vocabulary cannot place (a bare count, `async.retry(3, task)`): the
    // descriptor's own single-setting edit, where it has one.
  }
  // Without a vocabulary the result cannot be planned: only an edit that cannot make the waits grow
  // (fewer attempts, jitter on waits that already grow, growth that brings its own jitter, a
  // durable engine exempt from the time budget) is offered.
  if (goal.need === 'backoff' && site.kind !== 'durable' && !fallback?.some((e) => /Math\.random\(\)/.test(e.text))) return undefined;
  const fix = optionEditsFix(site, fallback, model.context.sourceCode);
  return fix && fallback ? { edits: fallback, fix } : undefined;
}

/** An error filter that stops on 4xx, in the library's vocabulary. */
export function clientErrorSuggestion(
  site: RetrySite,
  model: { readonly context: AnalysisContext },
  httpCalls: readonly HttpCall[],
): Suggestion | undefined {
  // fetch code that throws its own error on `!res.ok`: that error made to carry the status first.
  const own = carryOwnStatus(httpCalls, model.context);
  const facet = libraryFixesOf(site)?.clientErrors;
  const edits = facet ? facet(site, model.context, own.calls) : site.fixes?.clientErrors?.();
  return editsSuggestion(site, edits && [...own.edits, ...edits], model.context);
}

/** A key created once before the retry and sent with its one unkeyed write (fix-keys.ts). */
export function keySuggestion(
  site: RetrySite,
  op: Operation,
  model: { readonly context: AnalysisContext; readonly operations: OperationAnalysis },
): Suggestion | undefined {
  const edits = idempotencyKeyEdits(site, op, model.operations.facts(site).httpCalls, model.context);
  const fix = edits && rangeEditsFix(edits);
  return fix && edits ? { edits, fix } : undefined;
}

/** The site's own retries turned off (attempts 1), for an inner layer. */
export function disableSuggestion(site: RetrySite, model: { readonly context: AnalysisContext }): Suggestion | undefined {
  const vocabulary = libraryFixesOf(site);
  const edits = vocabulary?.disable ? vocabulary.disable(site, model.context) : site.fixes?.attempts?.(1);
  return editsSuggestion(site, edits, model.context);
}

function editsSuggestion(site: RetrySite, edits: readonly OptionEdit[] | undefined, ctx: AnalysisContext): Suggestion | undefined {
  const fix = optionEditsFix(site, edits, ctx.sourceCode);
  return fix && edits ? { edits, fix } : undefined;
}

type MigrationModel = { readonly context: AnalysisContext; readonly sites: readonly RetrySite[]; readonly operations: OperationAnalysis };

/**
 * The migration of a legacy helper's import and every call through it onto the runtime; a string
 * says why there is none; undefined when the library has no migration at all.
 */
export function migrationSuggestion(model: MigrationModel, use: ModuleUse): Suggestion | string | undefined {
  const descriptor = LIBRARIES.find((d) => d.fixes?.migrate && d.modules.includes(use.module));
  const migrate = descriptor?.fixes?.migrate;
  if (!descriptor || !migrate) return undefined;
  const sites = model.sites.filter((s) => s.library === descriptor.id);
  return migrationOf(migrationEdits({ use, sites, migrate, operations: model.operations }, model.context));
}

/** A legacy export (rxjs `retryWhen`) replaced at every use by its library's own replacement. */
export function exportMigrationSuggestion(model: MigrationModel, binding: ImportBinding): Suggestion | string | undefined {
  const descriptor = LIBRARIES.find((d) => d.fixes?.migrateExport && d.modules.includes(binding.module));
  const migrate = descriptor?.fixes?.migrateExport;
  if (!descriptor || !migrate) return undefined;
  const sites = model.sites.filter((s) => s.library === descriptor.id);
  return migrationOf(migrate(binding, sites, model.context, (site) => model.operations.facts(site).httpCalls));
}

function migrationOf(edits: OptionEdit[] | string): Suggestion | string {
  if (typeof edits === 'string') return edits;
  const fix = rangeEditsFix(edits);
  return fix ? { edits, fix } : 'a call is nested inside another one';
}
