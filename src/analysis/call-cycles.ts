/**
 * Retries through a cycle of two functions: `makeRequest` hands a failure to `retryRequest`, which
 * waits and calls `makeRequest` again (two methods of a class through `this`, or two functions of
 * the file). The cycle is read as a recursion of the function the failure happens in: the call
 * into the other function stands for the self-call, what the other function passes back is read
 * through its parameters, and its waits are waits of the retry.
 *
 * The calls between functions are indexed once per file: each call of `this.m()` (in a method, or
 * an arrow function inside one) or of a function of the file, from the function it is made in.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { unwrap } from './ast.js';
import { nodeAt } from './node-lookup.js';
import { localFunction } from './eval/functions.js';
import type { AnalysisContext } from './library.js';
import type { Node } from './model.js';

type Fn = TSESTree.FunctionLike;

/** A call from one function to another of the same file or class. */
interface Edge {
  readonly call: TSESTree.CallExpression;
  readonly target: Fn;
  readonly name: string;
}

/** A way back into `fn` through another function. */
export interface CycleReference {
  /** The call in `fn` that leaves for the other function. */
  readonly call: TSESTree.CallExpression;
  /** The other function, its name, and its call back into `fn`. */
  readonly via: Fn;
  readonly viaName: string;
  readonly back: TSESTree.CallExpression;
}

const graphs = new WeakMap<AnalysisContext, Map<Fn, Edge[]>>();

/** The calls in `fn` to another function that calls `fn` again, each with its call back. */
export function cycleReferences(ctx: AnalysisContext, fn: Fn): CycleReference[] {
  const graph = callGraph(ctx);
  const out: CycleReference[] = [];
  for (const e of graph.get(fn) ?? []) {
    if (e.target === fn) continue;
    for (const back of graph.get(e.target) ?? []) {
      if (back.target === fn) out.push({ call: e.call, via: e.target, viaName: e.name, back: back.call });
    }
  }
  return out;
}

const cycleCalls = new WeakMap<AnalysisContext, Set<Node>>();

/**
 * Whether a call goes from one function of a cycle to the other (`this.retryRequest()` in
 * `makeRequest`, `this.makeRequest()` in `retryRequest`): the retry itself, not an operation it
 * repeats nor a new use of a retrying function.
 */
export function onCycle(ctx: AnalysisContext, call: Node): boolean {
  let set = cycleCalls.get(ctx);
  if (!set) {
    set = new Set();
    const graph = callGraph(ctx);
    for (const [from, edges] of graph) {
      for (const e of edges) if (graph.get(e.target)?.some((b) => b.target === from)) set.add(e.call);
    }
    cycleCalls.set(ctx, set);
  }
  return set.has(call);
}

function callGraph(ctx: AnalysisContext): Map<Fn, Edge[]> {
  let graph = graphs.get(ctx);
  if (graph) return graph;
  graph = new Map();
  graphs.set(ctx, graph);
  const units = namedUnits(ctx);
  // A cycle needs two named functions: with fewer, mayCycle says no whatever the text holds.
  if (units.length < 2) return graph;
  const local = new Set(units.filter((u) => !u.method).map((u) => u.name));
  const candidates = candidateCalls(ctx.sourceCode.text, local, new Set(units.map((u) => u.name)));
  // Most files have no two functions that call each other: settled by names and ranges alone.
  if (!mayCycle(units, candidates)) return graph;
  const methods = new WeakMap<TSESTree.ClassBody, Map<string, Fn>>();
  for (const { open } of candidates) {
    const call = nodeAt(ctx.sourceCode, open);
    if (call?.type !== T.CallExpression) continue;
    const callee = unwrap(call.callee);
    let edge: Edge | undefined;
    let from: Fn | undefined;
    if (callee.type === T.MemberExpression && !callee.computed && callee.property.type === T.Identifier && unwrap(callee.object).type === T.ThisExpression) {
      from = thisMethod(call);
      const body = from && (from.parent as TSESTree.MethodDefinition).parent;
      const target = body && methodsOf(methods, body).get(callee.property.name);
      if (target) edge = { call, target, name: callee.property.name };
    } else if (callee.type === T.Identifier && local.has(callee.name)) {
      from = enclosingUnit(call);
      const v = from && ctx.evaluator.variableOf(callee);
      const target = v && localFunction(v);
      if (target) edge = { call, target, name: callee.name };
    }
    if (!edge || !from || edge.target === from) continue;
    let list = graph.get(from);
    if (!list) graph.set(from, (list = []));
    list.push(edge);
  }
  return graph;
}

/** A name followed by `(` in the text: `this.name(` (member) or `name(` for a function of the file. */
interface Candidate {
  readonly open: number;
  readonly name: string;
}

/**
 * The calls that may be edges, found from the text (`this.name(`, and `name(` for the file's
 * function names) rather than from every call of the file: most files have no cycle, and listing
 * every call walks the whole tree. Only a name followed by `(` that passes the test is kept.
 * A member call is kept only when its name is one of the file's named functions (`units`): the
 * edge callGraph would make of it leads to a method, and a method with a name is a unit; any other
 * target (a function wrapped in `as`, a member of another object) has no edge of its own back.
 */
function candidateCalls(text: string, local: ReadonlySet<string>, units: ReadonlySet<string>): Candidate[] {
  const out: Candidate[] = [];
  // From each `(` back over spaces to the name before it: cheaper than a search for names.
  for (let open = text.indexOf('('); open >= 0; open = text.indexOf('(', open + 1)) {
    let end = open;
    while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
    let start = end;
    while (start > 0 && isNameChar(text.charCodeAt(start - 1))) start--;
    if (start === end) continue;
    let before = start;
    while (before > 0 && isSpace(text.charCodeAt(before - 1))) before--;
    const member = text.charCodeAt(before - 1) === 46; /* . */
    // `this` is tested on the characters themselves: every method call of the file comes here.
    if (member && !thisBefore(text, before - 1)) continue;
    const name = text.slice(start, end);
    if (!(member ? units : local).has(name)) continue;
    out.push({ open, name });
  }
  return out;
}

/**
 * Whether the text before the `.` at `dot` ends with `this` and white space, within the 12
 * characters before it, `this` not preceded there by a name character: what `/(?<![\w$])this\s*$/`
 * says of `text.slice(max(0, dot - 12), dot)`, without the slice.
 */
function thisBefore(text: string, dot: number): boolean {
  const lo = Math.max(0, dot - 12);
  let k = dot;
  while (k > lo && isRegExpSpace(text.charCodeAt(k - 1))) k--;
  if (k - 4 < lo || text.charCodeAt(k - 1) !== 115 || text.charCodeAt(k - 2) !== 105 || text.charCodeAt(k - 3) !== 104 || text.charCodeAt(k - 4) !== 116) return false;
  return k - 4 === lo || !isNameChar(text.charCodeAt(k - 5));
}

/** A character `\s` matches. */
function isRegExpSpace(c: number): boolean {
  return c < 128 ? isSpace(c) : /\s/.test(String.fromCharCode(c));
}

/** A function of the file that calls can name: a declaration, a function a variable holds, a method. */
interface Unit {
  readonly name: string;
  readonly start: number;
  readonly end: number;
  readonly method: boolean;
}

/** The file's named functions and methods, in document order. */
function namedUnits(ctx: AnalysisContext): Unit[] {
  const out: Unit[] = [];
  const add = (f: Fn, name: string, method: boolean) => out.push({ name, start: f.range[0], end: f.range[1], method });
  for (const f of ctx.nodesOfType(T.FunctionDeclaration)) if (f.id) add(f, f.id.name, false);
  for (const type of [T.ArrowFunctionExpression, T.FunctionExpression] as const) {
    for (const f of ctx.nodesOfType(type)) {
      const p = f.parent;
      if (p?.type === T.VariableDeclarator && p.init === f && p.id.type === T.Identifier) add(f, p.id.name, false);
      else if (isMethod(f)) add(f, ((p as TSESTree.MethodDefinition).key as TSESTree.Identifier).name, true);
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/**
 * Whether some function calls, anywhere in its range, a name whose function calls it back: a
 * superset of the cycles callGraph finds (it counts a call in a nested function for every
 * function around it, and a method for any function of its name), so false settles the file.
 */
function mayCycle(units: readonly Unit[], candidates: readonly Candidate[]): boolean {
  if (units.length < 2 || candidates.length < 2) return false;
  const edges = new Set<string>();
  const open: Unit[] = [];
  let next = 0;
  for (const c of candidates) {
    while (open.length && open[open.length - 1]!.end <= c.open) open.pop();
    while (next < units.length && units[next]!.start <= c.open) {
      const u = units[next++]!;
      while (open.length && open[open.length - 1]!.end <= u.start) open.pop();
      if (u.end > c.open) open.push(u);
    }
    // Units nest, so the ones still open hold the call; names are joined with a character no name has.
    for (const u of open) {
      if (u.name === c.name) continue;
      if (edges.has(`${c.name}\n${u.name}`)) return true;
      edges.add(`${u.name}\n${c.name}`);
    }
  }
  return false;
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** ASCII letters, digits, `_` and `$`. */
function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36;
}


/** The method whose `this` a call's `this` is: the nearest function that is no arrow, if it is a method. */
function thisMethod(node: Node): Fn | undefined {
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === T.ArrowFunctionExpression) continue;
    if (p.type === T.FunctionExpression) return isMethod(p) ? p : undefined;
    if (p.type === T.FunctionDeclaration || p.type === T.ClassBody || p.type === T.Program) return undefined;
  }
  return undefined;
}

/** The named function a call is made in, through the callbacks inside it. */
function enclosingUnit(node: Node): Fn | undefined {
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === T.FunctionDeclaration) return p;
    if (p.type === T.ArrowFunctionExpression || p.type === T.FunctionExpression) {
      const d = p.parent;
      if (isMethod(p) || (d?.type === T.VariableDeclarator && d.init === p)) return p;
    }
  }
  return undefined;
}

function isMethod(fn: Fn): boolean {
  const m = fn.parent;
  return (m?.type === T.MethodDefinition || m?.type === T.PropertyDefinition) && m.value === fn && !m.computed && m.key.type === T.Identifier;
}

/** A class's methods by name (methods and function-valued fields), read once per class. */
function methodsOf(cache: WeakMap<TSESTree.ClassBody, Map<string, Fn>>, body: Node): Map<string, Fn> {
  if (body.type !== T.ClassBody) return new Map();
  let m = cache.get(body);
  if (m) return m;
  m = new Map();
  for (const member of body.body) {
    if ((member.type !== T.MethodDefinition && member.type !== T.PropertyDefinition) || member.computed || member.key.type !== T.Identifier) continue;
    const value = member.value && unwrap(member.value);
    if (value?.type === T.FunctionExpression || value?.type === T.ArrowFunctionExpression) {
      // Two members of one name (overloads, a getter and a setter): not one function to follow.
      m.set(member.key.name, m.has(member.key.name) ? (undefined as unknown as Fn) : value);
    }
  }
  for (const [k, v] of m) if (!v) m.delete(k);
  cache.set(body, m);
  return m;
}
