/**
 * A retry helper read as called with one call's arguments (`withRetry(fn, { retries: 10 })`):
 * its parameters take the values the call passes, down destructuring patterns, with the
 * helper's own defaults where the call passes nothing.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { patternKey, type Variable } from '../ast.js';
import { UNKNOWN, type DataValue, type Value } from '../eval/values.js';
import type { Node } from '../model.js';
import type { AttemptEnv, HandWritten } from './attempts.js';

/**
 * One call of a helper whose body is a hand-written retry: the helper's parameters take these
 * values instead of their defaults (an empty list means "called with nothing": the defaults).
 */
export interface BoundCall {
  readonly fn: TSESTree.FunctionLike;
  /** Plain data read at the call, or values read in the code around it (an object literal with its environment). */
  readonly args: readonly (DataValue | Value)[];
  /**
   * No call at all: the helper read for its defaults. A parameter with no default and not
   * optional is then unknown (every caller passes it), not the `undefined` a call that leaves
   * it out would give.
   */
  readonly asDefaults?: boolean | undefined;
  /**
   * The function that returned this helper, bound to the arguments of the call that made it
   * (`const retry = makeRetry({ retries: 10 })`): its parameters are read from there.
   */
  readonly outer?: BoundCall | undefined;
}

/** The bound call (the helper's, or an enclosing factory's) whose parameter a variable is. */
function boundCallOf(bound: BoundCall | undefined, variable: Variable): BoundCall | undefined {
  const def = variable.defs[0];
  if (variable.defs.length !== 1 || def?.type !== 'Parameter') return undefined;
  for (let b = bound; b; b = b.outer) if (def.node === b.fn) return b;
  return undefined;
}

/** A parameter of the bound helper or of the factory that made it (or a name destructured from one). */
export function isBoundParameter(bound: BoundCall | undefined, variable: Variable): boolean {
  return !!boundCallOf(bound, variable);
}

type Step = { readonly key: string } | { readonly index: number } | { readonly fallback: Node };

/** The value a bound helper's parameter takes at the call (`{ retries = 3 } = {}` read down its path). */
export function boundParameter(hw: HandWritten, name: Node, env: AttemptEnv, variable?: Variable): Value {
  const bound = (variable && boundCallOf(hw.bound, variable)) ?? hw.bound!;
  const fn = bound.fn;
  const steps: Step[] = [];
  let n: Node = name;
  for (let guard = 0; guard < 32 && !(fn.params as Node[]).includes(n); guard++) {
    const p: Node | undefined = n.parent;
    if (!p) return UNKNOWN;
    if (p.type === T.AssignmentPattern && p.left === n) steps.push({ fallback: p.right });
    else if (p.type === T.Property && p.value === n && p.parent?.type === T.ObjectPattern) {
      const key = patternKey(p);
      if (key === undefined) return UNKNOWN;
      steps.push({ key });
    } else if (p.type === T.ArrayPattern) steps.push({ index: p.elements.indexOf(n as never) });
    // `constructor(private readonly attempts = 3)`: the parameter property is the parameter.
    else if (p.type !== T.ObjectPattern && p.type !== T.TSParameterProperty) return UNKNOWN;
    n = p;
  }
  const index = (fn.params as Node[]).indexOf(n);
  if (index < 0) return UNKNOWN;
  if (index >= bound.args.length && bound.asDefaults && !steps.some((s) => 'fallback' in s) && isRequired(fn.params[index]!)) return UNKNOWN;
  let v: Value = index < bound.args.length ? bound.args[index] : undefined;
  for (const step of steps.reverse()) {
    if ('fallback' in step) {
      if (v === undefined) v = hw.evaluator.evaluateIn(step.fallback, env);
    } else if (v === undefined || v === null || v === UNKNOWN) {
      v = UNKNOWN;
    } else if ('key' in step) {
      v = hw.evaluator.memberOf(v, step.key, env, 0);
    } else {
      v = Array.isArray(v) ? (step.index < v.length ? (v[step.index] as Value) : undefined) : UNKNOWN;
    }
  }
  return v;
}

/** A parameter every caller must pass: no default, not `?`-optional, not a rest. */
function isRequired(param: TSESTree.Parameter): boolean {
  if (param.type === T.AssignmentPattern || param.type === T.RestElement) return false;
  if (param.type === T.TSParameterProperty) return isRequired(param.parameter);
  return !('optional' in param && param.optional);
}
