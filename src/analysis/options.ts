/** A read-only, statically evaluated view of an options object, property by property. */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/utils';
import { UNKNOWN, isStaticObject, toStatic, type Maybe, type StaticValue } from './eval/values.js';
import type { Env } from './eval/environment.js';
import { lookupProperty, staticPropertyName, unwrap } from './ast.js';
import { callerMayOmit, callerOptionsOf, parameterDefault, parameterDefaultApplies } from './eval/functions.js';
import type { Evaluator } from './eval/evaluator.js';
import type { Node, Setting } from './model.js';

export interface OptionValue {
  readonly value: Maybe<StaticValue>;
  /** The `key: value` property, when the option is written. */
  readonly property?: TSESTree.Property | undefined;
  readonly valueNode?: Node | undefined;
  /**
   * The parameter default the value comes from (`retries: maxAttempts` with `{ maxAttempts = 5 }`
   * in the enclosing function's parameters), when a call may get it: shown there, where it is written.
   */
  readonly parameterDefault?: TSESTree.AssignmentPattern | undefined;
  /** Written before a spread of the caller's options, which may replace it: what a call passing none gets. */
  readonly beforeCallerOptions?: boolean | undefined;
}

const ABSENT: OptionValue = { value: undefined };
const UNKNOWN_VALUE: OptionValue = { value: UNKNOWN };

export class OptionsView {
  /** `absent`: no options passed; `object`: a literal we can read; `unknown`: anything else. */
  readonly state: 'absent' | 'object' | 'unknown';
  readonly object: TSESTree.ObjectExpression | undefined;
  /** The environment the object's values are read in (a class field's: its defaults apply); static when absent. */
  private readonly env: Env | undefined;

  constructor(
    private readonly evaluator: Evaluator,
    readonly source: Node | undefined,
  ) {
    this.env = undefined;
    if (!source) {
      this.state = 'absent';
      this.object = undefined;
      return;
    }
    const resolved = evaluator.resolve(source);
    // `this.retryConfig`, `CONFIG.retry`: a member whose value is an object literal the evaluator reaches.
    const reached = resolved.type === T.MemberExpression ? evaluator.evaluate(resolved) : UNKNOWN;
    if (isStaticObject(reached) && reached.node) {
      this.state = 'object';
      this.object = reached.node;
      this.env = reached.env;
    } else if (resolved.type === T.ObjectExpression) {
      this.state = 'object';
      this.object = resolved;
    } else if ((resolved.type === T.Identifier && resolved.name === 'undefined') || (resolved.type === T.Literal && resolved.value === null)) {
      this.state = 'absent';
      this.object = undefined;
    } else {
      this.state = 'unknown';
      this.object = undefined;
    }
  }

  get(key: string): OptionValue {
    if (this.state === 'absent') return ABSENT;
    if (!this.object) return UNKNOWN_VALUE;
    const found = lookupProperty(this.object, key, (n) => this.evaluator.scopeOf(n));
    if (found.state === 'absent') return ABSENT;
    if (found.state === 'unknown') return this.env ? UNKNOWN_VALUE : this.beforeCallerOptions(this.object, key) ?? UNKNOWN_VALUE;
    const value = this.env ? toStatic(this.evaluator.evaluateIn(found.value, this.env)) : this.evaluator.evaluate(found.value);
    if (!this.env) {
      const fromDefault = this.parameterDefault(found.value, value);
      if (fromDefault) return { ...fromDefault, property: found.property, valueNode: found.value };
    }
    return { value, property: found.property, valueNode: found.value };
  }

  /**
   * A value that is a parameter's default a call may get (issue 14): the default's value, at the
   * default. Only where the static reading left it unknown or took the default as a fact, so a value
   * a helper's call binds (a specialised reading) stays the call's.
   */
  private parameterDefault(node: Node, value: Maybe<StaticValue>): { value: Maybe<StaticValue>; parameterDefault: TSESTree.AssignmentPattern } | undefined {
    const id = unwrap(node);
    if (id.type !== T.Identifier) return undefined;
    const assignment = parameterDefault(this.evaluator.variableOf(id));
    if (!assignment || !parameterDefaultApplies(this.evaluator.sourceCode, assignment)) return undefined;
    const fallback = this.evaluator.evaluate(assignment.right);
    if (value !== UNKNOWN && value !== fallback) return undefined;
    return fallback === UNKNOWN ? undefined : { value: fallback, parameterDefault: assignment };
  }

  /**
   * `{ retry: { limit: 5 }, ...opts }` with `opts` the caller's options: what the function writes
   * is what a call that passes no such option gets, a default written in code (issue 14: judged
   * where it is written, as a parameter's default is). Only when every spread after the property
   * is the caller's options and some call may leave the key out.
   */
  private beforeCallerOptions(object: TSESTree.ObjectExpression, key: string): OptionValue | undefined {
    const sourceCode = this.evaluator.sourceCode;
    for (let i = object.properties.length - 1; i >= 0; i--) {
      const p = object.properties[i]!;
      if (p.type === T.SpreadElement) {
        const from = callerOptionsOf(p.argument, (id) => this.evaluator.variableOf(id));
        if (!from || !callerMayOmit(sourceCode, from.fn, from.index, key)) return undefined;
        continue;
      }
      if (p.computed || p.kind !== 'init' || staticPropertyName(p) !== key) continue;
      return { value: this.evaluator.evaluate(p.value as Node), property: p, valueNode: p.value as Node, beforeCallerOptions: true };
    }
    return undefined;
  }

  has(key: string): Maybe<boolean> {
    const v = this.get(key);
    if (v.property) return true;
    return v.value === UNKNOWN ? UNKNOWN : false;
  }

  /** The nested options object under `key`. */
  sub(key: string): OptionsView {
    if (this.state === 'absent') return new OptionsView(this.evaluator, undefined);
    const v = this.get(key);
    if (v.value === UNKNOWN && !v.valueNode) return new OptionsView(this.evaluator, this.source && unknownMarker(this.source));
    return new OptionsView(this.evaluator, v.valueNode);
  }

  /** A numeric option: the default when absent, UNKNOWN when not a known number. */
  number(key: string, fallback: number | undefined): Setting<number | undefined> {
    const v = this.get(key);
    if (!v.property && v.value === undefined) return { value: fallback };
    if (typeof v.value === 'number') return { value: v.value, node: v.parameterDefault ?? v.property };
    if (v.value === undefined && v.property) return { value: fallback, node: v.property };
    return { value: UNKNOWN, node: v.property };
  }

  boolean(key: string, fallback: boolean): Setting<boolean> {
    const v = this.get(key);
    if (!v.property && v.value === undefined) return { value: fallback };
    if (typeof v.value === 'boolean') return { value: v.value, node: v.parameterDefault ?? v.property };
    if (v.value === undefined) return { value: fallback, node: v.property };
    return { value: UNKNOWN, node: v.property };
  }

  isObject(key: string): boolean {
    return isStaticObject(this.get(key).value);
  }
}

/** A stand-in node whose resolution is unknown, used when a nested key cannot be read. */
function unknownMarker(node: Node): Node {
  return { ...node, type: T.ThisExpression } as unknown as Node;
}
