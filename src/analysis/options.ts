/** A read-only, statically evaluated view of an options object, property by property. */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { UNKNOWN, isStaticObject, toStatic, type Maybe, type StaticValue } from './eval/values.js';
import type { Env } from './eval/environment.js';
import { isWrittenMember, lookupProperty, staticPropertyName, unwrap } from './ast.js';
import { callerMayOmit, callerOptionsOf, parameterDefault, parameterDefaultApplies } from './eval/functions.js';
import { settingValue, type Evaluator } from './eval/evaluator.js';
import { contextOf } from './library.js';
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
  /**
   * Read from the defaults the options fall back to (`opts ?? DEFAULTS`, lodash's `get(config,
   * path, DEFAULTS)`, spread or passed whole): what a use that configures nothing gets, shown in
   * the defaults, where it is written.
   */
  readonly fallbackDefault?: boolean | undefined;
}

const ABSENT: OptionValue = { value: undefined };
const UNKNOWN_VALUE: OptionValue = { value: UNKNOWN };
/** Left out by the defaults the options fall back to, and written nowhere else. */
const ABSENT_BY_DEFAULT: OptionValue = { value: undefined, fallbackDefault: true };

export class OptionsView {
  /** `absent`: no options passed; `object`: a literal we can read; `unknown`: anything else. */
  readonly state: 'absent' | 'object' | 'unknown';
  readonly object: TSESTree.ObjectExpression | undefined;
  /** The environment the object's values are read in (a class field's: its defaults apply); static when absent. */
  private readonly env: Env | undefined;
  /** The object is the defaults the options fall back to, not the options themselves (`fallbackDefault`). */
  private readonly fallbackObject: TSESTree.ObjectExpression | undefined;

  constructor(
    private readonly evaluator: Evaluator,
    readonly source: Node | undefined,
  ) {
    this.env = undefined;
    this.fallbackObject = undefined;
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
    } else if (!mutated(evaluator, source) && (this.fallbackObject = fallbackDefaults(evaluator, resolved))) {
      this.state = 'object';
      this.object = this.fallbackObject;
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
    const value = this.env ? toStatic(this.evaluator.evaluateIn(found.value, this.env)) : settingValue(this.evaluator, found.value);
    if (!this.env) {
      const fromDefault = this.parameterDefault(found.value, value);
      if (fromDefault) return { ...fromDefault, property: found.property, valueNode: found.value };
    }
    return { value, property: found.property, valueNode: found.value, ...(this.fallbackObject ? { fallbackDefault: true } : {}) };
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
    // Every spread a fallback to defaults that leave the key out, and the key not written: a use
    // that configures nothing does not set it (the library's default applies).
    let onlyFallbacks = true;
    let fallbacks = 0;
    for (let i = object.properties.length - 1; i >= 0; i--) {
      const p = object.properties[i]!;
      if (p.type === T.SpreadElement) {
        // `...(opts ?? DEFAULTS)`: a use that configures nothing gets the defaults' value, or,
        // when they leave the key out, what is written before the spread.
        const defaults = mutated(this.evaluator, p.argument) ? undefined : fallbackDefaults(this.evaluator, this.evaluator.resolve(p.argument));
        if (defaults) {
          const inDefaults = lookupProperty(defaults, key, (n) => this.evaluator.scopeOf(n));
          if (inDefaults.state === 'unknown') return undefined;
          if (inDefaults.state === 'present') return { value: settingValue(this.evaluator, inDefaults.value), property: inDefaults.property, valueNode: inDefaults.value, fallbackDefault: true };
          fallbacks++;
          continue;
        }
        const from = callerOptionsOf(p.argument, (id) => this.evaluator.variableOf(id));
        if (!from || !callerMayOmit(sourceCode, from.fn, from.index, key)) return undefined;
        onlyFallbacks = false;
        continue;
      }
      // A computed key may be this one.
      if (p.computed) onlyFallbacks = false;
      if (p.computed || p.kind !== 'init' || staticPropertyName(p) !== key) continue;
      return { value: settingValue(this.evaluator, p.value as Node), property: p, valueNode: p.value as Node, beforeCallerOptions: true };
    }
    return onlyFallbacks && fallbacks > 0 ? ABSENT_BY_DEFAULT : undefined;
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

/** Modules whose `get(object, path, fallback)` returns the fallback when the path leads to nothing. */
const GETTERS: ReadonlyMap<string, string> = new Map([['lodash', 'get'], ['lodash-es', 'get'], ['lodash/get', 'module'], ['lodash.get', 'module'], ['lodash/get.js', 'module']]);

/**
 * The object literal options fall back to when nothing configures them: the right side of
 * `opts ?? DEFAULTS` or `opts || DEFAULTS`, the third argument of lodash's `get(config, path,
 * DEFAULTS)`. Undefined for anything else, and when the defaults are no object literal the
 * evaluator reaches (`DEFAULTS` a const, an imported constant).
 */
function fallbackDefaults(evaluator: Evaluator, node: Node): TSESTree.ObjectExpression | undefined {
  const n = unwrap(node);
  let fallback: Node | undefined;
  // What the options would be when something configures them must be unknown here: a left side
  // (or a `get`'s object) the evaluator reads is no fallback to judge (`config.retry ?? DEFAULTS`
  // with `config` a literal that has `retry`).
  const configured = (side: Node) => {
    const v = evaluator.evaluate(side);
    return v !== UNKNOWN && v !== undefined && v !== null;
  };
  if (n.type === T.LogicalExpression && (n.operator === '??' || n.operator === '||')) {
    if (!configured(n.left)) fallback = n.right;
  } else if (n.type === T.CallExpression && n.arguments.length === 3 && n.arguments[2]!.type !== T.SpreadElement && n.arguments[0]?.type !== T.SpreadElement) {
    const ref = contextOf(evaluator)?.imports.resolve(unwrap(n.callee));
    const path = ref && GETTERS.get(ref.module);
    if (path && (ref.path === path || (path === 'module' && ref.path === 'default')) && !configured(n.arguments[0] as Node)) fallback = n.arguments[2] as Node;
  }
  if (!fallback) return undefined;
  const resolved = evaluator.resolve(fallback);
  const reached = resolved.type === T.MemberExpression || resolved.type === T.Identifier ? evaluator.evaluate(resolved) : UNKNOWN;
  const object = resolved.type === T.ObjectExpression ? resolved : isStaticObject(reached) && reached.node?.type === T.ObjectExpression && !reached.env ? reached.node : undefined;
  // `opts || {}` writes no defaults: the library's own apply, which is no finding about this code.
  return object && object.properties.length > 0 ? object : undefined;
}

/**
 * Whether the options are changed after they are chosen (`options.randomize = true`,
 * `Object.assign(options, ...)`) through a const on the way to them: what the defaults say is
 * then not what the retry gets.
 */
function mutated(evaluator: Evaluator, node: Node): boolean {
  let n = unwrap(node);
  for (let depth = 0; n.type === T.Identifier && depth < 8; depth++) {
    const v = evaluator.variableOf(n);
    if (!v) return false;
    for (const r of v.references) {
      const id = r.identifier as Node;
      const parent = id.parent;
      if (parent?.type === T.MemberExpression && parent.object === id && isWrittenMember(parent)) return true;
      if (parent?.type === T.CallExpression && parent.arguments[0] === id && evaluator.qualifiedName(parent.callee) === 'Object.assign') return true;
    }
    const def = v.defs.length === 1 ? v.defs[0] : undefined;
    const init = def?.type === 'Variable' && def.node.type === T.VariableDeclarator && def.node.id === def.name ? def.node.init : null;
    if (!init) return false;
    n = unwrap(init as Node);
  }
  return false;
}
