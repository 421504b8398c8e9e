/**
 * Unary and binary operators on the evaluator's values, and the one fact about the environment a
 * file runs in that the evaluator assumes: it runs in production, not under a test runner
 * (`process.env.NODE_ENV === 'test'` is false, `process.env.JEST_WORKER_ID` is unset), so code
 * that picks a configuration for its own tests is read by the one its users get.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { environmentRead, unwrap } from '../ast.js';
import { numericBinary, parseNumber } from './builtins.js';
import type { Env } from './environment.js';
import type { Evaluator } from './evaluator.js';
import { RESPONSE, UNKNOWN, continuousRange, equals, isInterval, isPrimitive, isStaticFunction, range, toInterval, truth, type Value } from './values.js';

type Node = TSESTree.Node;

/** Operators that turn an operand of `undefined` into NaN. */
const ARITHMETIC: ReadonlySet<string> = new Set(['+', '-', '*', '/', '%', '**']);

/** Variables only a test runner sets: unset in production. */
const TEST_RUNNER_FLAGS: ReadonlySet<string> = new Set(['JEST_WORKER_ID', 'VITEST', 'VITEST_WORKER_ID', 'VITEST_POOL_ID', 'MOCHA_WORKER_ID', 'AVA_PATH']);

export function unaryValue(ev: Evaluator, node: TSESTree.UnaryExpression, env: Env, depth: number): Value {
  if (node.operator === 'void') return undefined;
  const v = ev.eval(node.argument, env, depth);
  switch (node.operator) {
    case '!': {
      const t = truth(v);
      return t === UNKNOWN ? UNKNOWN : !t;
    }
    case '-': {
      const i = toInterval(v);
      return i ? range(-i.hi, -i.lo) : UNKNOWN;
    }
    case '+':
      return parseNumber('Number', v);
    case 'typeof':
      // An error the operation constructed (`Env.thrown`) is an object.
      return v === RESPONSE && env.thrown ? 'object' : typeOfValue(v);
    default:
      return UNKNOWN;
  }
}

export function binaryValue(ev: Evaluator, node: TSESTree.BinaryExpression, env: Env, depth: number): Value {
  if (node.left.type === T.PrivateIdentifier) return UNKNOWN;
  const op = node.operator;
  const equality = op === '===' || op === '==' || op === '!==' || op === '!=';
  if (equality && (isTestEnvironmentCheck(ev, node.left, node.right) || isTestEnvironmentCheck(ev, node.right, node.left))) return op.startsWith('!');
  if (op === '+') {
    const between = randomBetween(ev, node, env, depth);
    if (between !== undefined) return between;
  }
  if (op === 'instanceof') return instanceOf(ev, node, env, depth);
  const a = ev.eval(node.left, env, depth);
  const b = ev.eval(node.right, env, depth);
  if (equality) {
    const eq = equals(a, b, op.length === 2);
    if (eq === UNKNOWN) return UNKNOWN;
    return op.startsWith('!') ? !eq : eq;
  }
  if (op === '+' && (typeof a === 'string' || typeof b === 'string')) {
    return isPrimitive(a) && isPrimitive(b) ? String(a) + String(b) : UNKNOWN;
  }
  const x = toInterval(a);
  const y = toInterval(b);
  if (x && y) return numericBinary(op, x, y);
  // `undefined - 5`, `500 * 2 ** (opts.maxRetries - n)` with the option absent: NaN, as JavaScript has it.
  return ARITHMETIC.has(op) && (a === undefined || x) && (b === undefined || y) ? NaN : UNKNOWN;
}

/**
 * `t * (max - min) + min` (either order) with `t` in [0, 1], `Math.random()` as a rule: a value
 * between min and max, `(1 - t) * min + t * max`. Read term by term, the two readings of `min`
 * would widen the range each time (a delay that doubles its jittered self grows far faster than it
 * does); read as a whole, it is within the hull of the two. Undefined when it is not that shape.
 */
function randomBetween(ev: Evaluator, node: TSESTree.BinaryExpression, env: Env, depth: number): Value | undefined {
  const text = (n: Node) => ev.sourceCode.getText(n);
  for (const [product, addend] of [[node.left, node.right], [node.right, node.left]] as const) {
    const p = unwrap(product as Node);
    if (p.type !== T.BinaryExpression || p.operator !== '*') continue;
    for (const [factor, span] of [[p.left, p.right], [p.right, p.left]] as const) {
      const d = unwrap(span as Node);
      if (d.type !== T.BinaryExpression || d.operator !== '-' || text(d.right) !== text(addend as Node)) continue;
      const t = toInterval(ev.eval(factor as Node, env, depth));
      if (!t || t.lo < 0 || t.hi > 1) return undefined;
      const lo = toInterval(ev.eval(d.right, env, depth));
      const hi = toInterval(ev.eval(d.left, env, depth));
      if (!lo || !hi) return undefined;
      const from = Math.min(lo.lo, hi.lo);
      const to = Math.max(lo.hi, hi.hi);
      // With both ends known numbers, a continuous t gives a continuous value between them.
      return t.continuous && lo.lo === lo.hi && hi.lo === hi.hi ? continuousRange(from, to) : range(from, to);
    }
  }
  return undefined;
}

/** `process.env.X` (or `process.env['X']`) with the global `process`: the variable's name. */
function envVariable(ev: Evaluator, node: Node): string | undefined {
  const read = environmentRead(node, (id) => ev.shadowed(id));
  return read?.source === 'process' ? read.name : undefined;
}

/** `process.env.NODE_ENV === 'test'` (either side): a test-mode check, false in production. */
function isTestEnvironmentCheck(ev: Evaluator, envSide: Node, other: Node): boolean {
  return envVariable(ev, envSide) === 'NODE_ENV' && ev.evaluate(other) === 'test';
}

/** `process.env.JEST_WORKER_ID` and the like: set only by a test runner, so unset (undefined) in production. */
export function testRunnerFlag(ev: Evaluator, node: TSESTree.MemberExpression): boolean {
  const name = envVariable(ev, node);
  return name !== undefined && TEST_RUNNER_FLAGS.has(name);
}

/** The objects that hold the program's global variables. */
const GLOBAL_OBJECTS: ReadonlySet<string> = new Set(['global', 'globalThis']);

/**
 * `global.TEST_RETRY_DELAY`, `globalThis['TEST_…']` (a key read in `env`, such as a parameter of an
 * inlined `getGlobal(key, fallback)`): a global a test sets to speed the code up, so unset
 * (undefined) in production, as a test runner's own variables are.
 */
export function testHookGlobal(ev: Evaluator, node: TSESTree.MemberExpression, env: Env, depth: number): boolean {
  const object = unwrap(node.object);
  if (object.type !== T.Identifier || !GLOBAL_OBJECTS.has(object.name) || ev.shadowed(object)) return false;
  const key = node.computed ? ev.eval(node.property, env, depth) : node.property.type === T.Identifier ? node.property.name : undefined;
  return typeof key === 'string' && key.startsWith('TEST_');
}

/** Built-in error classes: where a chain of `extends` ends, when it is followed to its end. */
const BUILTIN_ERRORS: ReadonlySet<string> = new Set(['Error', 'TypeError', 'RangeError', 'SyntaxError', 'ReferenceError', 'EvalError', 'URIError', 'AggregateError']);

/**
 * `err instanceof C` for the failure asked about, when the environment knows the class it was
 * constructed with (`Env.thrown`): true when that class is C or extends it, false when its chain
 * of `extends` (followed in its own file) ends in a built-in error without meeting C; C is a
 * class of the file reading it, or a built-in error. UNKNOWN otherwise (an imported class, a chain
 * through another file).
 */
function instanceOf(ev: Evaluator, node: TSESTree.BinaryExpression, env: Env, depth: number): Value {
  if (!env.thrown || ev.eval(node.left, env, depth) !== RESPONSE) return UNKNOWN;
  const target = classRef(ev, node.right);
  if (!target) return UNKNOWN;
  let cls: TSESTree.ClassDeclaration | TSESTree.ClassExpression | undefined = env.thrown.node;
  const home = env.thrown.evaluator;
  for (let guard = 0; cls && guard < 8; guard++) {
    if (typeof target !== 'string') {
      if (cls === target.node) return true;
      // Two readings of one file may hold the same class as two nodes: a name met is not decided.
      if (target.evaluator !== home && cls.id?.name === target.node.id?.name) return UNKNOWN;
    }
    if (!cls.superClass) return typeof target === 'string' ? UNKNOWN : false;
    const next = classRef(home, cls.superClass);
    if (typeof next === 'string') return typeof target === 'string' ? (next === target || target === 'Error' ? true : UNKNOWN) : false;
    cls = next?.evaluator === home ? next.node : undefined;
  }
  return UNKNOWN;
}

/** A class a name refers to: one declared in the evaluator's file, or a built-in error by name. */
function classRef(ev: Evaluator, raw: Node): { node: TSESTree.ClassDeclaration | TSESTree.ClassExpression; evaluator: Evaluator } | string | undefined {
  const n = unwrap(raw);
  if (n.type !== T.Identifier) return undefined;
  const defs = ev.variableOf(n)?.defs ?? [];
  if (defs.length === 0) return BUILTIN_ERRORS.has(n.name) ? n.name : undefined;
  const def = defs.length === 1 ? defs[0]! : undefined;
  return def?.type === 'ClassName' ? { node: def.node as TSESTree.ClassDeclaration, evaluator: ev } : undefined;
}

/** `typeof v` for a value whose kind is known (a number range is a number); UNKNOWN otherwise. */
function typeOfValue(v: Value): Value {
  if (v === undefined) return 'undefined';
  if (v === null) return 'object';
  if (typeof v === 'number' || isInterval(v)) return 'number';
  if (typeof v === 'string' || typeof v === 'boolean') return typeof v;
  if (isStaticFunction(v)) return 'function';
  return UNKNOWN;
}
