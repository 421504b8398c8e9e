/** Turns a descriptor's OptionEdits into editor fixes on the site's options object. */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import type { OptionEdit, RetrySite } from './model.js';
import { lookupProperty, unwrap } from './ast.js';

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
  if (!edits || edits.length === 0 || !site.options) return undefined;
  const plans: Array<(fixer: Fixer) => Fix> = [];
  const { object, call, argumentIndex } = site.options;
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
      plans.push(appendArgument(call, nested(edit.path, edit.text), sourceCode));
      continue;
    }
    const plan = planInObject(object, edit.path, edit.text, scopeOf, sourceCode);
    if (!plan) return undefined;
    plans.push(plan);
  }
  return (fixer) => plans.map((p) => p(fixer));
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
  return edits.map((e) => `${e.path.length ? e.path[e.path.length - 1] : 'argument'}: ${e.text}`).join(', ');
}
