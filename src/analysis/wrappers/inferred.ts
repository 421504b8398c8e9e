/**
 * Inferred retry helpers: a function whose body is a hand-written retry around a callback
 * parameter (`withRetry(fn, { retries = 3 } = {})` running `fn()` in a loop), or around a call it
 * makes with its parameters (`getJson(url, tries = 3)` retrying `fetch(url)`), is a retry wrapper.
 * Every call to it is a retry site: its operation is the argument passed in, and its numbers are
 * the helper's body read as called with that call's arguments.
 *
 * Who reports what: the helper's own site (its body, read with its defaults) keeps every finding
 * about numbers written in the helper (hard-coded or defaults); a call site carries the same
 * values (so nested retries multiply them) but marks them `fromHelper`, so rules report them once,
 * in the helper. What a call changes through its arguments (`{ retries: 10 }`) is the call's own
 * finding, shown on that argument. What the call retries (writes, keys, nested layers) is judged
 * at the call, where the operation is written.
 */
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { findHandWrittenSites, type BoundCall } from '../hand-written/index.js';
import { functionOf, type AnalysisContext } from '../library.js';
import type { ClientErrorInclusion, DelaySchedule, ErrorFilter, HelperFinding, Node, RetrySite } from '../model.js';
import { contains, isFunctionNode, labelOf, memberRoot, patternKey, staticPropertyName, unwrap, walk } from '../ast.js';
import type { Env } from '../eval/environment.js';
import { settingValue } from '../eval/evaluator.js';
import { UNKNOWN, isDataObject, isStaticFunction, isStaticObject, type DataObject, type DataValue, type Maybe, type Value } from '../eval/values.js';

type Fn = TSESTree.FunctionLike;
type Variable = TSESLint.Scope.Variable;
type ClassNode = TSESTree.ClassDeclaration | TSESTree.ClassExpression;
type Named = { name: string; variable: Variable | undefined; owner?: ClassNode | undefined };

/** Where a parameter value sits in a call: the argument index, then object keys inside it. */
export interface ParamPath {
  readonly index: number;
  readonly keys: readonly string[];
}

export interface WrapperHelper {
  readonly fn: Fn;
  readonly name: string;
  /** The binding the helper is called through in its own file. */
  readonly variable: Variable | undefined;
  /** A method of a class (or an arrow in an instance field): called as `this.name(...)` or on an instance. */
  readonly owner?: ClassNode | undefined;
  /** The hand-written site inside the helper (as first found). */
  readonly site: RetrySite;
  /** `callback`: the retried call is a parameter; `forwarding`: it is built from the parameters. */
  readonly kind: 'callback' | 'forwarding';
  /** For callbacks: which argument (and key inside it) is the retried function. */
  readonly operation?: ParamPath | undefined;
  /** The file the helper is written in. */
  readonly ctx: AnalysisContext;
  /** The helper's own site: its body read as called without arguments (its defaults). */
  defaults(): RetrySite | undefined;
  /** The helper's body read as called with these arguments (cached per distinct arguments). */
  specialise(args: readonly DataValue[]): RetrySite | undefined;
  /** The named function that returns this helper (`makeRetry(opts)` returning `(fn) => ...`). */
  readonly returnedBy?: Fn | undefined;
  /** This helper as one call of `returnedBy` made it: that function's parameters bound to the call's arguments. */
  madeWith?(factoryArgs: readonly DataValue[]): WrapperHelper;
  /**
   * For a factory (a function returning a helper): the helper one of its calls returns. A factory's
   * own calls are no retry sites (`specialise` gives none); calls of what they return are.
   */
  makes?(factoryArgs: readonly DataValue[]): WrapperHelper;
  /** For a helper one factory call made: the factory, and its call's argument nodes by path (`0.retries`). */
  readonly madeAt?: { readonly fn: Fn; readonly nodes: ReadonlyMap<string, Node> } | undefined;
  /**
   * For a method of a class with a constructor: the method as called on an instance built with
   * these arguments (`new RetryHelper(3, 10, 20).execute(fn)`), the fields the constructor sets
   * from its parameters read with them. Its defaults stay the method's own.
   */
  constructedWith?(ctorArgs: readonly DataValue[]): WrapperHelper;
}

const MAX_CALL_CACHE = 64;
/** Nodes visited in one expression a helper reads. */
const EXPRESSION_BUDGET = 5000;

/** The retry helpers of a file, from its hand-written sites. */
export function findWrapperHelpers(ctx: AnalysisContext, handWritten: readonly RetrySite[]): Map<Fn, WrapperHelper> {
  const out = new Map<Fn, WrapperHelper>();
  for (const s of handWritten) {
    if (!s.operation) continue;
    const found = wrapperOf(ctx, s);
    if (!found || out.has(found.fn)) continue;
    out.set(found.fn, makeHelper(ctx, s, found));
  }
  return out;
}

interface Found extends Named {
  fn: Fn;
  kind: 'callback' | 'forwarding';
  operation?: ParamPath | undefined;
  returnedBy?: Fn | undefined;
}

function wrapperOf(ctx: AnalysisContext, s: RetrySite): Found | undefined {
  let op = unwrap(s.operation!);
  if (op.type === T.AwaitExpression) op = unwrap(op.argument);
  if (op.type !== T.CallExpression && op.type !== T.NewExpression) return undefined;
  // `fn()`, `fn.call(this)`, `opts.task()`: the retried call is a parameter of an enclosing function.
  let callee = unwrap(op.callee);
  if (callee.type === T.MemberExpression && !callee.computed && callee.property.type === T.Identifier && ['call', 'apply'].includes(callee.property.name)) {
    callee = unwrap(callee.object);
  }
  const direct = parameterPathOf(ctx, callee);
  if (direct && contains(direct.fn, s.node)) {
    const named = callableName(ctx, direct.fn);
    if (named) return { fn: direct.fn, kind: 'callback', operation: direct.path, ...named };
  }
  // `fetch(url, init)`: the retried call is built from the parameters of an enclosing named function.
  let best: Fn | undefined;
  walk(op, (n) => {
    if (n.type !== T.Identifier) return;
    const v = ctx.evaluator.variableOf(n);
    const def = v?.defs[0];
    if (!def || def.type !== 'Parameter') return;
    const fn = def.node as Fn;
    if (!contains(fn, s.node) || !callableName(ctx, fn)) return;
    if (!best || contains(best, fn)) best = fn;
  }, { budget: EXPRESSION_BUDGET });
  if (!best) return undefined;
  return { fn: best, kind: 'forwarding', ...callableName(ctx, best)! };
}

/** A function's name, or, for the function a named function returns, that function's name with `()`. */
export function callableName(ctx: AnalysisContext, fn: Fn): (Named & { returnedBy?: Fn | undefined }) | undefined {
  const own = nameOf(ctx, fn);
  if (own) return own;
  const factory = returnedBy(fn);
  const named = factory && nameOf(ctx, factory);
  return named ? { name: `${named.name}()`, variable: undefined, returnedBy: factory } : undefined;
}

/** The function that returns `fn` as its result: `(opts) => (fn) => ...`, `function f() { return (fn) => ... }`. */
export function returnedBy(fn: Fn): Fn | undefined {
  const p = fn.parent;
  if (p?.type === T.ArrowFunctionExpression && p.body === fn) return p;
  if (p?.type !== T.ReturnStatement) return undefined;
  for (let q: Node | undefined = p.parent; q; q = q.parent) {
    if (q.type === T.ArrowFunctionExpression || q.type === T.FunctionExpression || q.type === T.FunctionDeclaration) return q;
  }
  return undefined;
}

/** The parameter (and keys into it) an expression reads: `fn` -> {0}, `opts.task` -> {1, [task]}. */
export function parameterPathOf(ctx: AnalysisContext, expr: Node): { fn: Fn; path: ParamPath } | undefined {
  const keys: string[] = [];
  let n = unwrap(expr);
  while (n.type === T.MemberExpression && !n.computed && n.property.type === T.Identifier) {
    keys.unshift(n.property.name);
    n = unwrap(n.object);
  }
  if (n.type !== T.Identifier) return undefined;
  const v = ctx.evaluator.variableOf(n);
  const def = v?.defs[0];
  if (!v || v.defs.length !== 1 || def?.type !== 'Parameter') return undefined;
  const fn = def.node as Fn;
  const at = pathInParams(fn, def.name as Node);
  return at ? { fn, path: { index: at.index, keys: [...at.keys, ...keys] } } : undefined;
}

/** Index of the parameter holding `name`, and the object keys down a destructuring pattern. */
export function pathInParams(fn: Fn, name: Node): ParamPath | undefined {
  const keys: string[] = [];
  let n: Node = name;
  for (let guard = 0; guard < 32; guard++) {
    const i = (fn.params as Node[]).indexOf(n);
    if (i >= 0) return { index: i, keys: keys.reverse() };
    const p: Node | undefined = n.parent;
    if (!p) return undefined;
    if (p.type === T.Property && p.value === n && p.parent?.type === T.ObjectPattern) {
      const key = patternKey(p);
      if (key === undefined) return undefined;
      keys.push(key);
    } else if (p.type === T.ArrayPattern) {
      keys.push(String(p.elements.indexOf(n as never)));
    } else if (!(p.type === T.AssignmentPattern && p.left === n) && p.type !== T.ObjectPattern) {
      return undefined;
    }
    n = p;
  }
  return undefined;
}

/** The name a function is called by: its declaration, the const it is assigned to, or the method or instance field it is. */
export function nameOf(ctx: AnalysisContext, fn: Fn): Named | undefined {
  const sm = ctx.sourceCode.scopeManager;
  try {
    if (fn.type === T.FunctionDeclaration) {
      if (!fn.id) return fn.parent?.type === T.ExportDefaultDeclaration ? { name: 'default', variable: undefined } : undefined;
      const name = fn.id.name;
      return { name, variable: sm?.getDeclaredVariables(fn).find((v) => v.name === name) };
    }
    let holder: Node = fn;
    while (holder.parent && (holder.parent.type === T.TSAsExpression || holder.parent.type === T.TSSatisfiesExpression)) holder = holder.parent;
    const p = holder.parent;
    const method = methodOf(holder);
    if (method) return method;
    if (p?.type === T.VariableDeclarator && p.init === holder && p.id.type === T.Identifier) {
      return { name: p.id.name, variable: sm?.getDeclaredVariables(p)[0] };
    }
    if (p?.type === T.ExportDefaultDeclaration) return { name: 'default', variable: undefined };
    // `module.exports = function retryOnce() {}`, `exports.retry = (fn) => ...`: named by what it is exported as.
    if (p?.type === T.AssignmentExpression && p.right === holder) {
      if (fn.type === T.FunctionExpression && fn.id) return { name: fn.id.name, variable: undefined };
      const left = p.left;
      if (left.type === T.MemberExpression && !left.computed && left.property.type === T.Identifier) {
        return { name: left.property.name === 'exports' ? 'default' : left.property.name, variable: undefined };
      }
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** `async send(url) {...}` or `send = async (url) => {...}` in a class: named by its key, owned by the class (instance members only). */
function methodOf(holder: Node): Named | undefined {
  const p = holder.parent;
  if (p?.type !== T.MethodDefinition && p?.type !== T.PropertyDefinition) return undefined;
  if ((p.type === T.MethodDefinition && p.kind !== 'method') || p.value !== holder || p.static) return undefined;
  const name = p.key.type === T.PrivateIdentifier ? `#${p.key.name}` : staticPropertyName(p);
  const cls = p.parent.parent;
  if (name === undefined || (cls.type !== T.ClassDeclaration && cls.type !== T.ClassExpression)) return undefined;
  return { name, variable: undefined, owner: cls };
}

function makeHelper(ctx: AnalysisContext, s: RetrySite, found: Found, outer?: BoundCall): WrapperHelper {
  let defaults: RetrySite | null | undefined;
  const run = (args: readonly DataValue[], asDefaults = false): RetrySite | null => {
    try {
      const bound: BoundCall = { fn: found.fn, args, asDefaults, outer };
      const sites = findHandWrittenSites(ctx, bound);
      return sites.find((x) => x.node === s.node) ?? null;
    } catch (error) {
      if (process.env['SAFE_RETRY_STRICT_ANALYSIS']) throw error;
      return null;
    }
  };
  const helper: WrapperHelper = {
    ...found,
    site: s,
    ctx,
    defaults() {
      if (defaults === undefined) {
        defaults = run([], true);
        // A required argument left out (a recursion's starting counter that every caller passes)
        // reads as unknown; the site as found, read with what the callers pass, then knows more.
        if (defaults && known(defaults) < known(s)) defaults = s;
      }
      return defaults ?? undefined;
    },
    specialise: cachedByArguments(run),
    madeWith: found.returnedBy ? (factoryArgs) => makeHelper(ctx, s, found, { fn: found.returnedBy!, args: factoryArgs }) : undefined,
  };
  const ctor = !outer && found.owner ? constructorOf(found.owner) : undefined;
  if (!ctor) return helper;
  const made = new Map<string, WrapperHelper>();
  helper.constructedWith = (ctorArgs) => {
    const key = keyOf(ctorArgs);
    let hit = made.get(key);
    if (!hit) {
      // Compared with the method's own defaults, so what the construction changes is the call's finding.
      hit = { ...makeHelper(ctx, s, found, { fn: ctor, args: ctorArgs }), defaults: () => helper.defaults() };
      if (made.size >= MAX_CALL_CACHE) made.delete(made.keys().next().value!);
      made.set(key, hit);
    }
    return hit;
  };
  return helper;
}

/** The constructor a class writes (none: fields come from initialisers alone). */
export function constructorOf(cls: ClassNode): Fn | undefined {
  for (const m of cls.body.body) {
    if (m.type === T.MethodDefinition && m.kind === 'constructor' && m.value.type === T.FunctionExpression && m.value.body) return m.value;
  }
  return undefined;
}

/** `run` remembered per distinct arguments (the most recent MAX_CALL_CACHE of them). */
export function cachedByArguments(run: (args: readonly DataValue[]) => RetrySite | null): (args: readonly DataValue[]) => RetrySite | undefined {
  const calls = new Map<string, RetrySite | null>();
  return (args) => {
    const key = keyOf(args);
    let hit = calls.get(key);
    if (hit === undefined) {
      hit = run(args);
      if (calls.size >= MAX_CALL_CACHE) calls.delete(calls.keys().next().value!);
      calls.set(key, hit);
    }
    return hit ?? undefined;
  };
}

/** How many of a site's numbers are known: the count, the wait's growth, the jitter. */
function known(s: RetrySite): number {
  return [s.attempts.value, s.delay.growth, s.jitter.value].filter((v) => v !== UNKNOWN).length;
}

/** A number per evaluator (per file read), so that functions of two files at the same range key apart. */
const fileNumbers = new WeakMap<object, number>();
let nextFileNumber = 1;
function fileNumber(evaluator: object): number {
  let n = fileNumbers.get(evaluator);
  if (n === undefined) fileNumbers.set(evaluator, (n = nextFileNumber++));
  return n;
}

export function keyOf(args: readonly DataValue[]): string {
  const enc = (v: DataValue): unknown => {
    if (v === UNKNOWN) return { u: 1 };
    if (v === undefined) return { d: 1 };
    if (typeof v === 'number' && !Number.isFinite(v)) return { n: String(v) };
    if (Array.isArray(v)) return (v as DataValue[]).map(enc);
    if (typeof v === 'object' && v !== null && 'kind' in v) return { f: v.node.range, home: v.home ? fileNumber(v.home) : 0 };
    if (typeof v === 'object' && v !== null) {
      const o = v as DataObject;
      return { o: [...o.properties].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, x]) => [k, enc(x)]), open: o.open };
    }
    return v;
  };
  return JSON.stringify(args.map(enc));
}

// ---------------------------------------------------------------------------------------------
// Call sites

/** Plain values of a call's arguments, and the caller's node for each (path `1.retries`). */
export interface ReadArguments {
  readonly values: readonly DataValue[];
  readonly nodes: ReadonlyMap<string, Node>;
}

/** `sameFile`: the helper is written in the caller's file, so a function passed in (a filter) can be read there. */
export function readArguments(call: TSESTree.CallExpression | TSESTree.NewExpression, ctx: AnalysisContext, arity: number, env?: Env, sameFile = false): ReadArguments {
  const values: DataValue[] = [];
  const nodes = new Map<string, Node>();
  for (let i = 0; i < call.arguments.length; i++) {
    const arg = call.arguments[i]!;
    if (arg.type === T.SpreadElement) {
      // Positions from here on are not known.
      while (values.length < Math.max(arity, i + 1)) values.push(UNKNOWN);
      break;
    }
    nodes.set(String(i), arg);
    values.push(readValue(arg, ctx, String(i), nodes, 0, env, sameFile));
  }
  return { values, nodes };
}

/** A value read statically, or in `env` (a helper's parameters bound to what its call passes). */
function valueIn(ctx: AnalysisContext, node: Node, env: Env | undefined): Value {
  return env ? ctx.evaluator.evaluateIn(node, env) : settingValue(ctx.evaluator, node);
}

function readValue(node: Node, ctx: AnalysisContext, path: string, nodes: Map<string, Node>, depth: number, env: Env | undefined, sameFile: boolean): DataValue {
  if (depth > 4) return UNKNOWN;
  let resolved: Node;
  try {
    resolved = ctx.evaluator.resolve(node);
  } catch {
    return UNKNOWN;
  }
  if (resolved.type === T.ObjectExpression) {
    const properties = new Map<string, DataValue>();
    let open = false;
    const add = (object: TSESTree.ObjectExpression, d: number, within: Env | undefined) => {
      for (const p of object.properties) {
        if (p.type === T.SpreadElement) {
          const inner = ctx.evaluator.resolve(p.argument);
          if (inner.type === T.ObjectExpression && d < 4) {
            add(inner, d + 1, within);
            continue;
          }
          // `...this.defaults`, `...overrides`: what the spread holds, when the evaluator knows it.
          const spread = d < 4 ? valueIn(ctx, inner, within) : UNKNOWN;
          if (spread === undefined || spread === null) continue;
          if (isStaticObject(spread) && spread.node) add(spread.node, d + 1, spread.env ?? within);
          else if (isDataObject(spread)) {
            if (spread.open) {
              open = true;
              properties.clear();
            }
            for (const [k, v] of spread.properties) properties.set(k, sameFile ? v : carried(v, ctx));
          } else {
            // Keys written before an unknown spread may be overridden by it.
            open = true;
            properties.clear();
          }
          continue;
        }
        if (p.type !== T.Property) continue;
        const key = !p.computed && p.key.type === T.Identifier ? p.key.name : p.key.type === T.Literal ? String(p.key.value) : undefined;
        if (key === undefined) {
          open = true;
          continue;
        }
        const at = `${path}.${key}`;
        nodes.set(at, p);
        properties.set(key, p.kind === 'init' && !p.method ? readValue(p.value as Node, ctx, at, nodes, depth + 1, within, sameFile) : UNKNOWN);
      }
    };
    add(resolved, 0, env);
    return { properties, open };
  }
  if (resolved.type === T.ArrowFunctionExpression || resolved.type === T.FunctionExpression) return sameFile ? { kind: 'function', node: resolved } : { kind: 'function', node: resolved, home: ctx.evaluator };
  return toData(valueIn(ctx, resolved, env), sameFile, ctx);
}

/** Data read in the caller's file, for a helper of another: each function in it keeps the caller's file as its home. */
function carried(v: DataValue, ctx: AnalysisContext, depth = 0): DataValue {
  if (isStaticFunction(v)) return v.home ? v : { kind: 'function', node: v.node, home: ctx.evaluator };
  if (isDataObject(v) && depth < 4 && [...v.properties.values()].some((x) => typeof x === 'object' && x !== null)) {
    return { properties: new Map([...v.properties].map(([k, x]) => [k, carried(x, ctx, depth + 1)])), open: v.open };
  }
  return v;
}

/**
 * A value as plain data: primitives, arrays of them, data objects, and functions (for a helper of
 * another file, carried with the evaluator of the file they are written in); UNKNOWN otherwise.
 */
function toData(v: Value, sameFile = false, ctx?: AnalysisContext): DataValue {
  if (v === null || v === undefined || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if (isDataObject(v)) return sameFile || !ctx ? v : carried(v, ctx);
  if (isStaticFunction(v)) return sameFile || v.home ? v : ctx ? { kind: 'function', node: v.node, home: ctx.evaluator } : UNKNOWN;
  if (Array.isArray(v)) {
    return v.every((x) => x === null || x === undefined || typeof x === 'number' || typeof x === 'string' || typeof x === 'boolean')
      ? (v as DataValue[])
      : UNKNOWN;
  }
  return UNKNOWN;
}

/**
 * Helpers whose own file calls them: that file reports their defaults (the body read as called
 * with nothing) at the helper. A helper only other files call is reported there as found.
 */
const calledInOwnFile = new WeakSet<WrapperHelper>();

export function markCalledInOwnFile(helper: WrapperHelper): void {
  calledInOwnFile.add(helper);
}

/** A retry site for one call of a helper, or undefined when its body cannot be read for it. */
export function wrapperCallSite(
  helper: WrapperHelper,
  call: TSESTree.CallExpression,
  callee: Node,
  caller: AnalysisContext,
  env?: Env,
): RetrySite | undefined {
  const args = readArguments(call, caller, helper.fn.params.length, env, caller === helper.ctx);
  // What the helper's own file reports for it: each finding goes to the call only when the call
  // changes it, so that one place reports it.
  const own = caller === helper.ctx || calledInOwnFile.has(helper) ? helper.defaults() : helper.site;
  const at = helper.specialise(args.values);
  if (!own || !at) return undefined;
  const fromHelper = new Set<HelperFinding>(['breaker']);
  // Each finding goes to the call only when the call's arguments change what that rule judges.
  const attemptsOwned = !same(at.attempts.value, own.attempts.value);
  const scheduleOwned = !sameSchedule(at.delay, own.delay);
  const growthOwned = at.delay.growth !== own.delay.growth;
  const jitterOwned = !same(at.jitter.value, own.jitter.value) || growthOwned;
  const filterOwned = !sameFilter(at.errorFilter, own.errorFilter);
  if (!attemptsOwned) fromHelper.add('attempts');
  if (!growthOwned) fromHelper.add('backoff');
  if (!jitterOwned) fromHelper.add('jitter');
  if (!attemptsOwned && !scheduleOwned) fromHelper.add('duration');

  // Of the arguments the setting depends on, the one whose removal changes it is the one that sets it.
  const where = (node: Node | undefined, prefer: RegExp, differs: (without: RetrySite) => boolean): Node | undefined => {
    if (!node) return undefined;
    const candidates = callerNodesFor(helper, node, args.nodes, prefer);
    // Set by the factory call that made the helper (`makeRetry({ retries: 10 })`): shown there.
    if (candidates.length === 0 && helper.madeAt) return callerNodesFor({ ...helper, fn: helper.madeAt.fn }, node, helper.madeAt.nodes, prefer)[0]?.node;
    if (candidates.length > 1) {
      for (const c of candidates.slice(0, 4)) {
        const without = helper.specialise(withoutArgument(args.values, c.key));
        if (without && differs(without)) return c.node;
      }
    }
    return candidates[0]?.node;
  };
  const attemptsNode = attemptsOwned ? where(at.attempts.node, ATTEMPT_WORDS, (w) => !same(w.attempts.value, at.attempts.value)) : undefined;
  const delayNode = scheduleOwned ? where(at.delay.node, DELAY_WORDS, (w) => !sameSchedule(w.delay, at.delay)) : undefined;
  const jitterNode = jitterOwned ? where(at.jitter.node, JITTER_WORDS, (w) => !same(w.jitter.value, at.jitter.value)) ?? delayNode : undefined;
  const filterNode = filterOwned
    ? where(at.errorFilter.node ?? at.errorFilter.clientErrors[0]?.node ?? at.errorFilter.retriesEverything, FILTER_WORDS, (w) => !sameFilter(w.errorFilter, at.errorFilter))
    : undefined;

  const delay: DelaySchedule = { ...at.delay, node: delayNode };
  // Filter findings written in the helper stay there; a call that passes its own list owns its entries.
  const read: ErrorFilter = filterOwned
    ? {
      kind: at.errorFilter.kind,
      clientErrors: at.errorFilter.clientErrors.map((c): ClientErrorInclusion => ({ status: c.status, node: filterNode ?? callee, condition: c.condition })),
      retriesEverything: at.errorFilter.retriesEverything ? filterNode ?? callee : undefined,
      node: filterNode,
      retriesNoResponse: at.errorFilter.retriesNoResponse,
    }
    : { kind: at.errorFilter.kind, clientErrors: [], retriesNoResponse: at.errorFilter.retriesNoResponse };
  // A function the call passes from another file is read where the helper asks it (a condition),
  // but not where the helper calls one for its effect (an `onFailedAttempt` that may throw on 4xx):
  // there it may decide what is retried, unknown.
  const errorFilter: ErrorFilter = read.kind === 'none' && caller !== helper.ctx && passesFunction(args, helper, caller) && callsForEffect(helper) ? { kind: 'custom', clientErrors: [] } : read;

  const name = labelOf(callee, caller.sourceCode);
  const passedOperation = helper.operation ? args.nodes.get(pathKey(helper.operation)) : undefined;
  return {
    library: `wrapper:${helper.name}`,
    label: `${name}()`,
    kind: 'in-memory',
    node: call,
    reportNode: callee,
    attempts: { value: at.attempts.value, node: attemptsNode },
    delay,
    jitter: { value: at.jitter.value, node: jitterNode },
    errorFilter,
    deadlineMs: { value: at.deadlineMs.value },
    attemptTimeoutMs: { value: at.attemptTimeoutMs.value },
    // A forwarding helper repeats the call it makes from these arguments: the call stands for it.
    operation: helper.kind === 'callback' ? passedOperation && valueAt(passedOperation) : call,
    clientLevel: false,
    fromHelper,
    ...carriedFlags(at),
  };
}

/**
 * What a call of a helper takes from the helper's site read with the call's arguments (`at`): every
 * key of a site is listed, so a new one does not compile until it is decided here.
 * - `call`: set for the call above (its node, label, settings and where each is written);
 * - `carried`: how the helper's retry behaves, whoever calls it (a loop that stops only when
 *   aborted, a transaction re-run): copied as is;
 * - `dropped`: about the helper's own text (its options literal, fixes, executions, a repair or
 *   breaker written there, defaults its file takes), which the call's site does not have.
 */
const CALL_TAKES: Readonly<Record<keyof RetrySite, 'call' | 'carried' | 'dropped'>> = {
  library: 'call', label: 'call', kind: 'call', node: 'call', reportNode: 'call', attempts: 'call', delay: 'call', jitter: 'call',
  errorFilter: 'call', deadlineMs: 'call', attemptTimeoutMs: 'call', operation: 'call', clientLevel: 'call', fromHelper: 'call',
  stopsOnAbort: 'carried', conflictRerun: 'carried',
  alsoRepeats: 'dropped', implicit: 'dropped', connection: 'dropped', options: 'dropped', fixes: 'dropped', breaker: 'dropped',
  retriesWrites: 'dropped', retriedMethods: 'dropped', executions: 'dropped', repair: 'dropped', defaultsFrom: 'dropped', defaultsTakenBy: 'dropped', defaultsNestedBy: 'dropped',
};
const CARRIED = (Object.keys(CALL_TAKES) as (keyof RetrySite)[]).filter((k) => CALL_TAKES[k] === 'carried');

function carriedFlags(at: RetrySite): Partial<RetrySite> {
  const out: Partial<Record<keyof RetrySite, unknown>> = {};
  for (const k of CARRIED) if (at[k] !== undefined) out[k] = at[k];
  return out as Partial<RetrySite>;
}

/** Whether the call passes a function other than the operation (positionally or as an option). */
function passesFunction(args: ReadArguments, helper: WrapperHelper, caller: AnalysisContext): boolean {
  const operation = helper.operation ? pathKey(helper.operation) : undefined;
  for (const [key, node] of args.nodes) {
    if (key === operation) continue;
    const value = valueAt(node);
    if (value.type === T.ObjectExpression) continue;
    if (value.type === T.ArrowFunctionExpression || value.type === T.FunctionExpression || functionOf(value, caller)) return true;
  }
  return false;
}

const effectCalls = new WeakMap<object, boolean>();

/**
 * Whether the helper calls something that may be a function passed in (a parameter, a name read
 * from one, a member of `this`), other than in a condition (for its
 * effect, `await onFailure({ error })`, or for a value it keeps, outside nested functions, other
 * than its operation): a function passed there may throw to stop the retry, which no condition
 * shows. Calls of globals and imports (`setTimeout`, `console.warn`) are not such calls.
 */
function callsForEffect(helper: WrapperHelper): boolean {
  const hit = effectCalls.get(helper.fn);
  if (hit !== undefined) return hit;
  let found = false;
  walk(helper.fn.body ?? helper.fn, (n) => {
    if (found || n.type !== T.CallExpression || inCondition(n)) return;
    const root = memberRoot(n.callee);
    if (root.type !== T.Identifier) {
      found = root.type === T.ThisExpression;
      return;
    }
    const def = helper.ctx.evaluator.variableOf(root)?.defs[0];
    // A function the file declares (`sleep(ms)`) is no function passed in.
    const declared = def?.type === 'FunctionName' || (def?.type === 'Variable' && !!def.node.init && isFunctionNode(unwrap(def.node.init)));
    if (def && !declared && def.type !== 'ImportBinding' && (def.type !== 'Parameter' || !isOperation(helper, root))) found = true;
  }, { skipFunctions: true });
  effectCalls.set(helper.fn, found);
  return found;
}

/** Whether an expression is part of the test of an `if`, a `?:` or a loop (up to its statement). */
function inCondition(n: Node): boolean {
  for (let at: Node = n; at.parent; at = at.parent) {
    const p: Node = at.parent;
    if ((p.type === T.IfStatement || p.type === T.ConditionalExpression || p.type === T.WhileStatement || p.type === T.DoWhileStatement || p.type === T.ForStatement) && p.test === at) return true;
    if (p.type.endsWith('Statement') || p.type.endsWith('Declaration') || p.type === T.VariableDeclarator) return false;
  }
  return false;
}

/** The helper's operation parameter itself (`fn` of `await fn()`). */
function isOperation(helper: WrapperHelper, id: TSESTree.Identifier): boolean {
  const op = helper.operation;
  if (!op || op.keys.length > 0) return false;
  const param = helper.fn.params[op.index];
  return param?.type === T.Identifier && param.name === id.name;
}

/** A Property stands for its value when it is the operation (`withRetry({ task: () => ... })`). */
function valueAt(node: Node): Node {
  return node.type === T.Property ? node.value as Node : node;
}

function pathKey(p: ParamPath): string {
  return [String(p.index), ...p.keys].join('.');
}

const ATTEMPT_WORDS = /retr|attempt|tries|times|count|max|limit/i;
const DELAY_WORDS = /delay|wait|backoff|interval|factor|base|min|timeout|ms$|sleep/i;
const JITTER_WORDS = /jitter|random/i;
const FILTER_WORDS = /retry|should|when|on|filter|status|codes|if/i;

/**
 * The argument or property of the call that sets what the helper reads at `node`: the parameters
 * `node` depends on (through consts, destructuring, counters), matched to what the call passes.
 */
function callerNodesFor(helper: WrapperHelper, node: Node, passed: ReadonlyMap<string, Node>, prefer: RegExp): { key: string; node: Node }[] {
  const paths = new Map<string, ParamPath>();
  try {
    traceParameters(helper, node, paths, new Set(), 0);
  } catch {
    return [];
  }
  const candidates: { key: string; node: Node; score: number }[] = [];
  for (const [key, p] of paths) {
    // The deepest thing the call writes on the way to that parameter.
    const parts = key.split('.');
    for (let len = parts.length; len >= 1; len--) {
      const k = parts.slice(0, len).join('.');
      const n = passed.get(k);
      if (!n) continue;
      candidates.push({ key: k, node: n, score: (prefer.test(p.keys[p.keys.length - 1] ?? '') ? 2 : 0) + len / 100 });
      break;
    }
    // A whole options object traced: the properties the call writes inside it.
    for (const [k, n] of passed) {
      if (k.startsWith(`${key}.`) && prefer.test(k.slice(k.lastIndexOf('.') + 1))) candidates.push({ key: k, node: n, score: 1.5 });
    }
  }
  candidates.sort((a, b) => b.score - a.score);
  const seen = new Set<string>();
  return candidates.filter((c) => !seen.has(c.key) && !!seen.add(c.key));
}

/** The arguments with one of them (`1.factor`, or a whole argument `2`) left out. */
function withoutArgument(values: readonly DataValue[], key: string): DataValue[] {
  const [first, ...rest] = key.split('.');
  const index = Number(first);
  const drop = (v: DataValue, keys: readonly string[]): DataValue => {
    if (keys.length === 0) return undefined;
    if (!isDataObject(v)) return v;
    const o = v;
    const [k, ...more] = keys;
    if (!o.properties.has(k!)) return v;
    const properties = new Map(o.properties);
    if (more.length === 0) properties.delete(k!);
    else properties.set(k!, drop(o.properties.get(k!), more));
    return { properties, open: o.open };
  };
  return values.map((v, i) => (i === index ? drop(v, rest) : v));
}

function traceParameters(helper: WrapperHelper, node: Node, out: Map<string, ParamPath>, seen: Set<Variable>, depth: number): void {
  if (depth > 6) return;
  const ctx = helper.ctx;
  walk(node, (n) => {
    if (n.type !== T.Identifier) return;
    const parent = n.parent;
    if (parent?.type === T.MemberExpression && parent.property === n && !parent.computed) return;
    if (parent?.type === T.Property && parent.key === n && !parent.computed && parent.value !== n) return;
    const v = ctx.evaluator.variableOf(n);
    if (!v || seen.has(v) || v.defs.length !== 1) return;
    seen.add(v);
    const def = v.defs[0]!;
    if (def.type === 'Parameter' && def.node === helper.fn) {
      const at = pathInParams(helper.fn, def.name as Node);
      if (!at) return;
      const keys = [...at.keys];
      let m: Node = n;
      while (m.parent?.type === T.MemberExpression && m.parent.object === m && !m.parent.computed && m.parent.property.type === T.Identifier) {
        keys.push(m.parent.property.name);
        m = m.parent;
      }
      const p = { index: at.index, keys };
      out.set(pathKey(p), p);
      return;
    }
    if (def.type === 'Variable') {
      const declarator = def.node as TSESTree.VariableDeclarator;
      if (!contains(helper.fn, declarator)) return;
      // `const { retries = 3 } = opts`: the keys down the pattern extend what the initialiser reads.
      const sub = patternKeys(declarator.id, def.name as Node);
      const inner = new Map<string, ParamPath>();
      if (declarator.init) traceParameters(helper, declarator.init, inner, seen, depth + 1);
      for (const p of inner.values()) {
        const q = { index: p.index, keys: [...p.keys, ...sub] };
        out.set(pathKey(q), q);
      }
      // Writes inside the helper (`delay = Math.min(delay * 2, max)`) read more parameters.
      for (const r of v.references) {
        const w = r.identifier.parent;
        if (r.isWrite() && !r.init && w?.type === T.AssignmentExpression && w.left === r.identifier) traceParameters(helper, w.right, out, seen, depth + 1);
      }
    }
  }, { budget: EXPRESSION_BUDGET });
}

function patternKeys(pattern: Node, name: Node): string[] {
  const keys: string[] = [];
  let n: Node = name;
  for (let guard = 0; guard < 32 && n !== pattern; guard++) {
    const p: Node | undefined = n.parent;
    if (!p) return [];
    if (p.type === T.Property && p.value === n && !p.computed && p.key.type === T.Identifier) keys.push(p.key.name);
    n = p;
  }
  return keys.reverse();
}

function same<V>(a: Maybe<V>, b: Maybe<V>): boolean {
  return a === b;
}

function sameSchedule(a: DelaySchedule, b: DelaySchedule): boolean {
  if (a.growth !== b.growth || a.initialMs !== b.initialMs || a.multiplier !== b.multiplier || a.maxMs !== b.maxMs) return false;
  for (let n = 1; n <= 6; n++) if (a.upperBound(n) !== b.upperBound(n)) return false;
  return true;
}

function sameFilter(a: ErrorFilter, b: ErrorFilter): boolean {
  return a.kind === b.kind && !!a.retriesEverything === !!b.retriesEverything &&
    a.clientErrors.map((c) => c.status).join() === b.clientErrors.map((c) => c.status).join();
}
