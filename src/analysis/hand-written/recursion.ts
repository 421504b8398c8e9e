/**
 * Retries by recursion: a function that calls itself again after a failure (in a catch, a
 * `.catch()`, an error-first callback, or on a failed response), passing its inputs on and only
 * its counters changed (`retries - 1`, `delay * 2`). A function that also calls itself on
 * success (a periodic job, a tree walk, pagination) is not a retry.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, contains, memberName, unwrap, walk, type Variable } from '../ast.js';
import { cycleReferences, type CycleReference } from '../call-cycles.js';
import { readAsResponse, responseArguments } from './status-predicates.js';
import { FIELD_ENV } from '../eval/fields.js';
import { localFunction, parameterVariable } from '../eval/functions.js';
import { UNKNOWN, type Value } from '../eval/values.js';
import type { Node, RetrySite } from '../model.js';
import { initialValue, linearStep, regionWrite, rootEnv, stepOf, type HandWritten, type Region, type StateVariable } from './attempts.js';
import { isCounter, refsCounter, refsMovingCount, refsSteppingCounter } from './bound.js';
import { calleeOf, chainRoot, collectAwaits, methodName, requiredTerms, walkExpression, writeExpression } from './control-flow.js';
import { isFilterCondition, reachable, retriesFailuresOnly } from './filter.js';
import { boundParameter } from './helper-call.js';
import { failureCallbackOf, fieldWrites, nearestFunction, schedulingClosureCall } from './rearm.js';
import { guardOf, operationOf } from './loops.js';
import { closedMethodCallsOutside, methodCallsOutside, thisCallsIn } from './method-calls.js';
import { nullishReset, outsideCallsPassNothing } from './reset-parameter.js';
import { firstArgument, outsideCalls } from './outside-calls.js';
import { buildSite, mergeSites, type Constraint, type Shape } from './site.js';
import { isGlobalTimeout, isSleepCall, mayWait, plainSleep, readsFailure, sleepOf, withOpaqueWait, type Sleep } from './sleeps.js';

type Fn = TSESTree.FunctionLike;

/** The references to a function from inside itself, and the name it goes by. */
export interface SelfReferences {
  readonly name: string;
  readonly refs: readonly Node[];
  readonly variable?: Variable | undefined;
}

/**
 * The recursive retry of `fn`, reported once at its first way back in: the function calls itself,
 * or calls another function of the file (or method of its class) that calls it again. Undefined
 * unless every way back is a retry after a failure; several ways back make one site.
 */
export function recursionSite(hw: HandWritten, fn: Fn, guard: <R>(f: () => R | undefined) => R | undefined): RetrySite | undefined {
  const self = selfReferences(hw, fn);
  const cycles = cycleReferences(hw.ctx, fn);
  if (!self && cycles.length === 0) return undefined;
  const name = self?.name ?? functionName(fn);
  if (name === undefined) return undefined;
  const ways: { pos: number; read: (counted: boolean) => Prepared | undefined; poll?: () => boolean }[] = [];
  for (const ref of self?.refs ?? []) {
    ways.push({ pos: ref.range[0], read: (counted) => selfCallSite(hw, fn, name, selfCall(hw, ref), self?.variable, counted), poll: () => pollsOnSuccess(hw, fn, selfCall(hw, ref)) });
  }
  for (const c of cycles) ways.push({ pos: c.call.range[0], read: (counted) => selfCallSite(hw, fn, name, cycleCall(hw, c), self?.variable ?? functionVariable(hw, fn), counted) });
  ways.sort((a, b) => a.pos - b.pos);
  // Every way back is checked before any site is built: one that is no retry settles the function,
  // and a site's count, schedule and per-status filter are the costly part of reading it.
  let prepared: Prepared[] = [];
  const retries: typeof ways = [];
  let polls = false;
  for (const w of ways) {
    const p = guard(() => w.read(false));
    if (p) {
      prepared.push(p);
      retries.push(w);
    } else if (w.poll && guard(w.poll)) polls = true;
    else return undefined;
  }
  // Beside a poll, the calls again after a failure are a retry only when a count that moves on
  // each call bounds them (`triesLeft - 1` tested by `triesLeft > 1`): a job that reschedules
  // itself whatever happens (a worker's poll loop, the next item of a stack) is no retry.
  if (polls) {
    if (retries.length === 0) return undefined;
    prepared = [];
    for (const w of retries) {
      const p = guard(() => w.read(true));
      if (!p) return undefined;
      prepared.push(p);
    }
  }
  const sites: RetrySite[] = [];
  for (const p of prepared) {
    const s = guard(p);
    if (!s) return undefined;
    sites.push(s);
  }
  return mergeSites(sites);
}

/** A way back found to be a retry, its site built on demand. */
type Prepared = () => RetrySite | undefined;

/**
 * A call again that is no retry but a poll: it follows no failure (no catch, rejection or error
 * callback on the way), and runs only under a condition (`if (!text.includes('isLiveBroadcast') &&
 * triesLeft > 1)` on a page that loaded). The function's calls again after a failure are still its
 * retry and are judged alone; a function that only polls, or calls itself unconditionally on
 * success (a periodic job), is no retry at all.
 */
function pollsOnSuccess(hw: HandWritten, fn: Fn, found: Reentry | undefined): boolean {
  if (!found || found.via) return false;
  const path = failurePath(hw, fn, found.call, [...found.sleeps]);
  if (!path || path.constraints.length === 0) return false;
  return path.failure === undefined || path.failure === 'response' || path.failure === 'result';
}

/** The name a function goes by: its own, the variable it initialises, or its method key. */
function functionName(fn: Fn): string | undefined {
  if ((fn.type === T.FunctionDeclaration || fn.type === T.FunctionExpression) && fn.id) return fn.id.name;
  const p = fn.parent;
  if (p?.type === T.VariableDeclarator && p.init === fn && p.id.type === T.Identifier) return p.id.name;
  if ((p?.type === T.MethodDefinition || p?.type === T.PropertyDefinition) && p.value === fn && !p.computed && p.key.type === T.Identifier) return p.key.name;
  return undefined;
}

/** The variable a function of the file is bound to (none for a method). */
function functionVariable(hw: HandWritten, fn: Fn): Variable | undefined {
  const holder = fn.type === T.FunctionDeclaration ? fn : fn.parent?.type === T.VariableDeclarator ? fn.parent : undefined;
  if (!holder) return undefined;
  try {
    return hw.ctx.sourceCode.scopeManager?.getDeclaredVariables(holder).find((v) => v.defs.length === 1 && (v.defs[0]!.type === 'FunctionName' || v.defs[0]!.type === 'Variable'));
  } catch {
    return undefined;
  }
}

/** The references to a function from inside itself: `f(...)`, `this.f(...)`, `setTimeout(f, ms)`. */
function selfReferences(hw: HandWritten, fn: Fn): SelfReferences | undefined {
  const body = fn.body;
  if (!body) return undefined;
  const p = fn.parent;
  const sourceCode = hw.ctx.sourceCode;
  // A named function's references are the scope analysis's (a few per function, no text search:
  // a search of each body re-reads nested bodies once per enclosing function); a method's calls
  // of itself are found from its body's text (thisCallsIn).
  let variable: Variable | undefined;
  let name: string | undefined;
  const scopes = sourceCode.scopeManager;
  if ((fn.type === T.FunctionDeclaration || fn.type === T.FunctionExpression) && fn.id) {
    name = fn.id.name;
    try { variable = scopes?.getDeclaredVariables(fn).find((v) => v.name === name && v.defs.some((d) => d.type === 'FunctionName')); } catch { variable = undefined; }
  }
  if (!variable && p?.type === T.VariableDeclarator && p.init === fn && p.id.type === T.Identifier) {
    name = p.id.name;
    try { variable = scopes?.getDeclaredVariables(p)[0]; } catch { variable = undefined; }
  }
  if (variable) {
    const refs = variable.references.filter((r) => !r.isWrite() && contains(body, r.identifier as Node)).map((r) => r.identifier as Node);
    return refs.length ? { name: name!, refs, variable } : undefined;
  }
  if ((p?.type === T.MethodDefinition || p?.type === T.PropertyDefinition) && p.value === fn && !p.computed && p.key.type === T.Identifier) {
    const method = p.key.name;
    const refs = thisCallsIn(sourceCode, body, method)!.map((c) => c.callee as Node);
    return refs.length ? { name: method, refs } : undefined;
  }
  return undefined;
}

/** A way back into the function: the call that leads there, and what the next call receives. */
interface Reentry {
  /** Where the site is reported: the callee of the call. */
  readonly ref: Node;
  /** The call in the function that leads back: the self-call, a timer or `.then` it is passed to, the call into a cycle. */
  readonly call: TSESTree.CallExpression;
  /** The arguments the function receives next (read in `via`'s parameters for a cycle). */
  readonly args: readonly Node[];
  /** Waits on the way that are not on the path from the failure to `call` (a timer's, the other function's). */
  readonly sleeps: Sleep[];
  /** The other function of a cycle, called with `call`'s arguments. */
  readonly via?: { readonly fn: Fn; readonly name: string; readonly call: TSESTree.CallExpression } | undefined;
  /** An awaited call in the other function that may wait. */
  readonly opaque?: TSESTree.AwaitExpression | undefined;
}

/** The recursive call a reference makes, what it passes on, and the wait it is scheduled after. */
function selfCall(hw: HandWritten, ref: Node): Reentry | undefined {
  const parent = ref.parent;
  if (parent?.type !== T.CallExpression) return undefined;
  if (parent.callee === ref) return { ref, call: parent, args: parent.arguments as Node[], sleeps: [] };
  if (parent.arguments[0] !== ref) return handedToTimer(hw, ref, parent);
  if (isGlobalTimeout(hw, parent)) {
    const ms = parent.arguments[1];
    return { ref, call: parent, args: parent.arguments.slice(2) as Node[], sleeps: [plainSleep(ms ?? parent, ms, parent)] };
  }
  if (methodName(parent) === 'then') {
    const object = (unwrap(parent.callee) as TSESTree.MemberExpression).object;
    const s = sleepOf(hw, object);
    // `Promise.resolve(n + 1).delay(ms).then(f)`: the value the chain resolves to is f's argument.
    const passed = resolvedValue(object);
    return { ref, call: parent, args: passed ? [passed] : [], sleeps: s ? [s] : [] };
  }
  return handedToTimer(hw, ref, parent);
}

/**
 * The way back through a local function the function is handed to, which re-arms it through a
 * timer: `retryRequest(makeRequest, headers, n)` with
 * `const retryRequest = (requestFn, headers, n) => setTimeout(requestFn, wait(n), headers, n + 1)`.
 * The other function must hand its parameter to `setTimeout` as the only use of it, with no
 * condition or failure of its own on the way; the timer's extra arguments are what the function
 * receives next, read in the other function's parameters.
 */
function handedToTimer(hw: HandWritten, ref: Node, call: TSESTree.CallExpression): Reentry | undefined {
  const k = call.arguments.indexOf(ref as TSESTree.CallExpressionArgument);
  const callee = unwrap(call.callee);
  if (k < 0 || callee.type !== T.Identifier || call.arguments.some((a) => a.type === T.SpreadElement)) return undefined;
  const variable = hw.evaluator.variableOf(callee);
  const g = variable && localFunction(variable);
  const param = g?.params[k];
  if (!g || !variable || param?.type !== T.Identifier || contains(g, ref)) return undefined;
  const p = parameterVariable(hw.ctx.sourceCode, g, param);
  const uses = p?.references.filter((r) => !r.init) ?? [];
  if (uses.length !== 1 || uses[0]!.isWrite()) return undefined;
  const id = uses[0]!.identifier as Node;
  const timer = id.parent;
  if (timer?.type !== T.CallExpression || timer.arguments[0] !== id || !isGlobalTimeout(hw, timer)) return undefined;
  const path = failurePath(hw, g, timer, []);
  if (!path || path.failure || path.constraints.length > 0 || path.predicates) return undefined;
  const args = timer.arguments.slice(2) as Node[];
  if (args.some((a) => a.type === T.SpreadElement)) return undefined;
  const ms = timer.arguments[1];
  const frame = { fn: g, args: call.arguments as Node[] };
  const sleeps = [...path.sleeps, plainSleep(ms ?? timer, ms, timer)].map((s) => ({ ...s, frames: [frame, ...s.frames], pos: call.range[0] }));
  return { ref, call, args, sleeps, via: { fn: g, name: variable.name, call }, opaque: path.opaque };
}

/**
 * The way back through another function: `this.retryRequest(options, n)` whose body waits and
 * calls `this.makeRequest(options, n - 1)`. The other function must always call back (no condition
 * or failure of its own on the way, which would make it a retry of its own); its waits are taken
 * in a frame that binds its parameters to the arguments of the call into it.
 */
function cycleCall(hw: HandWritten, c: CycleReference): Reentry | undefined {
  if ([...c.call.arguments, ...c.back.arguments].some((a) => a.type === T.SpreadElement)) return undefined;
  const path = failurePath(hw, c.via, c.back, []);
  if (!path || path.failure || path.constraints.length > 0 || path.predicates) return undefined;
  const frame = { fn: c.via, args: c.call.arguments as Node[] };
  // The other function's waits run after the call into it, whatever its place in the file.
  const sleeps = path.sleeps.map((s) => ({ ...s, frames: [frame, ...s.frames], pos: c.call.range[0] }));
  const callee = unwrap(c.call.callee);
  const ref = callee.type === T.MemberExpression ? callee.property : callee;
  return { ref, call: c.call, args: c.back.arguments as Node[], sleeps, via: { fn: c.via, name: c.viaName, call: c.call }, opaque: path.opaque };
}

/**
 * The value a promise chain resolves to when it starts from `Promise.resolve(v)` and goes on only
 * through steps that pass the value on (Bluebird's `.delay(ms)`, `.tap(fn)`).
 */
function resolvedValue(chain: Node): Node | undefined {
  let n = unwrap(chain);
  for (let depth = 0; depth < 8 && n.type === T.CallExpression; depth++) {
    const m = methodName(n);
    const callee = unwrap(n.callee);
    if (callee.type !== T.MemberExpression) return undefined;
    if (m === 'resolve' && n.arguments.length === 1 && n.arguments[0]!.type !== T.SpreadElement) return n.arguments[0];
    if (m !== 'delay' && m !== 'tap') return undefined;
    n = unwrap(callee.object);
  }
  return undefined;
}

/** How the failure reaches the self-call, read from the call up to the function. */
interface FailurePath {
  failure?: 'catch' | 'promise' | 'callback' | 'response' | 'result' | undefined;
  operation?: Node | undefined;
  errVar?: Variable | undefined;
  readonly constraints: Constraint[];
  readonly roots: Set<Variable>;
  readonly sleeps: Sleep[];
  /**
   * The first awaited call on the way that is no recognised sleep (a token refresh, a prompt, a
   * helper that may sleep): without a sleep, the wait is unknown, not "none", as in loops.
   */
  opaque?: TSESTree.AwaitExpression;
  /** Bluebird's filtered catch, `.catch(isTransient, handler)`: predicates that choose what is retried. */
  predicates?: Node[];
  /** Every await of the statements before the self-call on the way up (repairs are among those after the operation). */
  readonly awaits: TSESTree.AwaitExpression[];
}

/** `counted`: the way back must test a count that moves by a step on each call (see recursionSite's polls). */
function selfCallSite(hw: HandWritten, fn: Fn, name: string, found: Reentry | undefined, variable: Variable | undefined, counted = false): Prepared | undefined {
  if (!found) return undefined;
  const { call, args, via } = found;
  if (args.some((a) => a.type === T.SpreadElement)) return undefined;
  if (!passesInputsOn(hw, fn, args, via)) return undefined;
  const path = failurePath(hw, fn, call, [...found.sleeps]);
  if (!path) return undefined;
  if (!path.failure) responseFailure(hw, fn, path);
  const { failure, operation, constraints } = path;
  if (!failure || !operation) return undefined;
  // The awaited call whose result failed is the attempt, not a wait on the way back.
  if (path.opaque && contains(path.opaque, operation)) path.opaque = undefined;
  if (unwrap(operation) === call) return undefined;

  const region = recursionRegion(hw, fn, found, variable, path.roots, path.errVar);
  // `parsers[index]` with `index` moving on: failing over to the next input, not retrying.
  if (readsCounterIndex(hw, operation, region)) return undefined;
  // The retry must follow a failure: not on a 2xx response, not on a null error.
  const filters = constraints.filter((c) => isFilterCondition(hw, c.test, region));
  if (failure === 'response') {
    if (!retriesFailuresOnly(hw, region, filters)) return undefined;
  } else if (failure === 'callback') {
    if (reachable(hw, region, constraints, false) !== false) return undefined;
    if (reachable(hw, region, constraints, true) === false) return undefined;
  } else if (failure === 'result') {
    // A falsy result is a failure when a counter bounds the calls again (else it may be polling).
    if (!constraints.some((c) => refsCounter(hw, c.test, region))) return undefined;
  }
  if (counted && !constraints.some((c) => refsMovingCount(hw, c.test, region))) return undefined;
  // A wait before the operation (`if (attempt) await sleep(ms)`, `sleep(d).then(() => op())`)
  // runs at the start of every call: it is the wait before the next attempt.
  return () => {
    const sleeps = [...path.sleeps, ...sleepsBefore(hw, fn, operation, path.sleeps)];
    const shape: Shape = { region, operation, constraints, throwGuards: [], sleeps: withOpaqueWait(sleeps, path.opaque ?? found.opaque), opPos: operation.range[0] };
    const ref = found.ref;
    const reportNode = ref.type === T.MemberExpression ? ref.property : ref;
    const label = via ? `${name}() through ${via.name}()` : `recursive ${name}()`;
    const site = buildSite(hw, shape, { node: fn, reportNode, label });
    const repair = repairOf(hw, path, operation, region);
    const built = repair ? { ...site, repair } : site;
    // A filtered catch retries only what its predicates accept, which is not read: a filter, unknown.
    const predicate = path.predicates?.[0];
    return predicate && built.errorFilter.kind === 'none' ? { ...built, errorFilter: { kind: 'custom', clientErrors: [], node: predicate } } : built;
  };
}

const ERROR_PARAMETER = /^(?:err|error|e|ex|er|exc)$/i;

/** Awaited calls that only tell of the failure (logging, metrics, error reporting): no repair. */
const REPORTING_METHOD = /^(?:log|info|warn|warning|error|debug|trace|fatal|verbose|capture\w*|report\w*|track\w*|record\w*|increment|notify\w*|alert|flush)$/i;
const REPORTING_OBJECT = /^(?:console|log|logger|logging|metrics?|telemetry|sentry|tracer|monitor|analytics|statsd?)$|(?:Logger|Metrics|Tracer|Telemetry)$/;
/** `logError(e)`, `reportFailure(e)`, `trackEvent(...)`: a function of that name tells; `logIn()` does not. */
const REPORTING_FUNCTION = /^(?!log(?:In|On)(?:[A-Z_]|$))(?:log|report|track|capture|notify)(?:[A-Z_]|$)/;

/**
 * "Repair, then try again": no count of attempts bounds the way back (a flag set once may), and on
 * it, after the failed operation, the function awaits a call that fixes the cause before calling
 * again (`otp = await opts.otpPrompt()`, `await tokens.refresh()`, `await issueCertificate()`): no
 * sleep, no reading of the failure itself (`await res.text()`), no logging. Under a count
 * (`retries - 1`, `attempt++`) the same repair is a step of a retry, judged as one.
 */
function repairOf(hw: HandWritten, path: FailurePath, operation: Node, region: Region): Node | undefined {
  if (path.constraints.some((c) => refsSteppingCounter(hw, c.test, region))) return undefined;
  for (const w of [...path.awaits].sort((a, b) => a.range[0] - b.range[0])) {
    if (w.range[0] < operation.range[1] || contains(w, operation)) continue;
    const call = unwrap(w.argument);
    if (call.type !== T.CallExpression || sleepOf(hw, call) || readsFailure(hw, call, region.roots) || reportsOnly(call)) continue;
    return call;
  }
  return undefined;
}

/** `logger.warn(...)`, `this.metrics.increment(...)`, `reportError(e)`: telling of the failure, not fixing it. */
function reportsOnly(call: TSESTree.CallExpression): boolean {
  const callee = calleeOf(call);
  if (callee.type === T.Identifier) return REPORTING_METHOD.test(callee.name) || REPORTING_FUNCTION.test(callee.name);
  const method = memberName(callee);
  if (method === undefined) return false;
  if (REPORTING_METHOD.test(method)) return true;
  const object = unwrap((callee as TSESTree.MemberExpression).object);
  const objectName = object.type === T.Identifier ? object.name : memberName(object);
  return objectName !== undefined && REPORTING_OBJECT.test(objectName);
}

/** Walks from the self-call up to the function: the conditions on the way, the failure it follows, the waits. */
function failurePath(hw: HandWritten, fn: Fn, call: TSESTree.CallExpression, sleeps: Sleep[]): FailurePath | undefined {
  const path: FailurePath = { constraints: [], roots: new Set(), sleeps, awaits: [] };
  const { constraints, roots } = path;
  const paramVar = (p: Node | undefined, f: Fn) => (p?.type === T.Identifier ? parameterVariable(hw.ctx.sourceCode, f, p) : undefined);
  let child: Node = call;
  for (let p: Node | undefined = call.parent; p && p !== fn; child = p, p = p.parent) {
    if (p.type === T.IfStatement || p.type === T.ConditionalExpression) {
      if (child === p.consequent) constraints.push({ test: p.test, want: true, next: false });
      else if (child === p.alternate) constraints.push({ test: p.test, want: false, next: false });
    } else if (p.type === T.LogicalExpression && child === p.right && p.operator !== '??') {
      constraints.push({ test: p.left, want: p.operator === '&&', next: false });
    } else if (p.type === T.BlockStatement || p.type === T.SwitchCase) {
      const body = (p.type === T.SwitchCase ? p.consequent : p.body) as TSESTree.Statement[];
      for (const st of body.slice(0, Math.max(0, body.indexOf(child as TSESTree.Statement)))) {
        path.awaits.push(...collectAwaits(st));
        if (st.type === T.IfStatement) {
          const c = guardOf(st, undefined, Infinity, { kind: 'recursion', root: fn, vars: new Map(), roots });
          if (c) constraints.push({ ...c, next: false });
        } else if (st.type === T.ExpressionStatement || st.type === T.VariableDeclaration) {
          const e = st.type === T.ExpressionStatement ? unwrap(st.expression) : st.declarations[0]?.init ? unwrap(st.declarations[0].init) : undefined;
          const s = e?.type === T.AwaitExpression ? sleepOf(hw, e.argument) : undefined;
          if (s) sleeps.push(s);
          else if (e?.type === T.AwaitExpression && mayWait(hw, e, roots)) path.opaque ??= e;
        }
      }
    } else if (p.type === T.CatchClause && child === p.body) {
      if (!path.failure) {
        path.failure = 'catch';
        const v = paramVar(p.param ?? undefined, fn) ?? (p.param?.type === T.Identifier ? hw.evaluator.variableOf(p.param) : undefined);
        if (v) roots.add(v);
        const tryBlock = (p.parent as TSESTree.TryStatement).block;
        path.operation = operationOf(hw, collectAwaits(tryBlock), tryBlock, call);
      }
    } else if (p.type === T.ArrowFunctionExpression || p.type === T.FunctionExpression || p.type === T.FunctionDeclaration) {
      // `const scheduleRetry = () => setTimeout(() => retry(...), ms)`, called once in the function:
      // the way up goes on from that call.
      const hop = schedulingClosureCall(hw, fn, p);
      // Its timers wait where it is called (after the operation, from the failure path), not where it is written.
      if (hop) { path.sleeps.splice(0, path.sleeps.length, ...path.sleeps.map((s) => ({ ...s, pos: hop.range[0] }))); p = hop; continue; }
      if (p.type === T.FunctionDeclaration) continue;
      const go = callbackStep(hw, p, path, paramVar);
      if (go === 'stop') break;
      if (go === 'fail') return undefined;
    }
  }
  return path;
}

/** A callback between the self-call and the function: a promise handler, a timer, an error-first callback. */
function callbackStep(hw: HandWritten, x: TSESTree.ArrowFunctionExpression | TSESTree.FunctionExpression, path: FailurePath, paramVar: (p: Node | undefined, f: Fn) => Variable | undefined): 'go' | 'stop' | 'fail' {
  const c = x.parent;
  if (c?.type === T.NewExpression && unwrap(c.callee).type === T.Identifier && (unwrap(c.callee) as TSESTree.Identifier).name === 'Promise') return 'go';
  const failureCall = failureCallbackOf(x);
  if (failureCall) {
    if (!path.failure) {
      path.failure = 'promise';
      const v = paramVar(x.params[0], x);
      if (v) path.roots.add(v);
      path.operation = failureCall;
    }
    return 'go';
  }
  if (c?.type !== T.CallExpression) return path.failure ? 'stop' : 'fail';
  const m = methodName(c);
  const callee = unwrap(c.callee);
  const object = callee.type === T.MemberExpression ? callee.object : undefined;
  const follows = (failure: FailurePath['failure'], root: Variable | undefined, operation: Node) => {
    if (path.failure) return;
    path.failure = failure;
    if (root) path.roots.add(root);
    path.operation = operation;
  };
  const last = c.arguments.length - 1;
  if (((m === 'catch' && c.arguments[last] === x) || (m === 'then' && c.arguments[1] === x)) && object) {
    if (!path.failure && m === 'catch' && last > 0) path.predicates = c.arguments.slice(0, last) as Node[];
    follows('promise', paramVar(x.params[0], x), chainRoot(object));
  } else if (m === 'then' && c.arguments[0] === x && object) {
    const s = sleepOf(hw, object);
    if (s) path.sleeps.push(s);
    else follows('response', paramVar(x.params[0], x), chainRoot(object));
  } else if (isGlobalTimeout(hw, c) && c.arguments[0] === x) {
    const ms = c.arguments[1];
    path.sleeps.push(plainSleep(ms ?? c, ms, c));
  } else if (c.arguments[c.arguments.length - 1] === x && x.params[0]?.type === T.Identifier && ERROR_PARAMETER.test(x.params[0].name)) {
    if (!path.failure) {
      path.errVar = paramVar(x.params[0], x);
      follows('callback', path.errVar, c);
    }
  } else {
    return path.failure ? 'stop' : 'fail';
  }
  return 'go';
}

/**
 * A failure read from the result of an awaited call the function made:
 * - `const res = await fetch(u); if (!res.ok && n > 0) return f(n - 1)`: a failed response;
 * - `const res = await send().catch(toError); if (res instanceof Error) return f(n - 1)`: a rejection
 *   turned into a value;
 * - `const ok = await update(); if (!ok && n < 5) return f(n + 1)`: a falsy result (read as a
 *   failure only under a counter, and not of a predicate such as `isReady()`, whose false is an answer).
 */
function responseFailure(hw: HandWritten, fn: Fn, path: FailurePath): void {
  const awaitedCall = (obj: Node) => {
    if (obj.type !== T.Identifier) return undefined;
    const v = hw.evaluator.variableOf(obj);
    const d = v?.defs[0]?.node;
    if (!v || v.defs.length !== 1 || d?.type !== T.VariableDeclarator || !d.init || !contains(fn, d)) return undefined;
    const init = unwrap(d.init);
    if (init.type !== T.AwaitExpression) return undefined;
    const root = chainRoot(init.argument);
    if (root.type !== T.CallExpression || isSleepCall(hw, root)) return undefined;
    return { v, root, caught: methodName(unwrap(init.argument)) === 'catch' };
  };
  const found = (v: Variable, root: Node, failure: NonNullable<FailurePath['failure']>) => {
    path.roots.add(v);
    path.operation ??= root;
    if (path.failure !== 'response') path.failure = failure;
  };
  for (const c of path.constraints) {
    walkExpression(c.test, (n) => {
      // `if (shouldRetry(res, n))`: the response read in a function of the file it is handed to.
      if (n.type === T.CallExpression) {
        for (const arg of responseArguments(hw.evaluator, hw.ctx.sourceCode, n)) {
          const a = awaitedCall(arg);
          if (a) found(a.v, a.root, 'response');
        }
        return;
      }
      if (n.type !== T.MemberExpression || !readAsResponse(n.object)) return;
      const a = awaitedCall(unwrap(n.object));
      if (a) found(a.v, a.root, 'response');
    });
    if (path.failure === 'response') continue;
    for (const t of requiredTerms(c.test, c.want)) {
      const e = unwrap(t.expr);
      if (t.want && e.type === T.BinaryExpression && e.operator === 'instanceof' && isErrorClass(hw, e.right)) {
        const a = awaitedCall(unwrap(e.left));
        if (a?.caught) found(a.v, a.root, 'promise');
      } else if (!t.want && e.type === T.Identifier) {
        const a = awaitedCall(e);
        const callee = a && unwrap((a.root as TSESTree.CallExpression).callee);
        const calleeName = callee?.type === T.Identifier ? callee.name : callee && memberName(callee);
        if (a && !a.caught && !(calleeName && PREDICATE_NAME.test(calleeName))) found(a.v, a.root, 'result');
      }
    }
  }
}

/** `isReady()`, `hasJob()`, `checkStatus()`: a call that answers a question. */
const PREDICATE_NAME = /^(?:is|has|can|should|check|exists|was|does)(?:[A-Z_$]|$)/;

/** `Error`, `globalThis.Error`: the built-in error class. */
function isErrorClass(hw: HandWritten, n: Node): boolean {
  const q = hw.evaluator.qualifiedName(unwrap(n));
  return q === 'Error' || q === 'globalThis.Error';
}

/** Awaited sleeps of the function's own body that run before the operation, besides those already found. */
function sleepsBefore(hw: HandWritten, fn: Fn, operation: Node, found: readonly Sleep[]): Sleep[] {
  if (!fn.body || fn.body.type !== T.BlockStatement) return [];
  const out: Sleep[] = [];
  for (const w of collectAwaits(fn.body)) {
    if (w.range[0] >= operation.range[0]) break;
    const s = sleepOf(hw, w.argument);
    if (s && !found.some((f) => f.pos === s.pos)) out.push(s);
  }
  return out;
}

/** Whether the operation indexes by a counter (`parsers[index]`). */
function readsCounterIndex(hw: HandWritten, operation: Node, region: Region, depth = 0): boolean {
  let hit = false;
  walkExpression(operation, (n) => {
    if (hit) return;
    // `const node = nodes[index]; getInfo(node, ...)`: the element picked by the counter, through a
    // constant of the function read by the operation.
    if (n.type === T.Identifier && depth < 2) {
      const init = constInitializer(hw.evaluator.variableOf(n));
      if (init && contains(region.root, init) && readsCounterIndex(hw, init, region, depth + 1)) hit = true;
      return;
    }
    if (n.type !== T.MemberExpression || !n.computed) return;
    walkExpression(n.property, (x) => {
      if (x.type !== T.Identifier) return;
      const state = region.vars.get(hw.evaluator.variableOf(x)!);
      if (state && isCounter(hw, state)) hit = true;
    });
  });
  return hit;
}

/**
 * A retry calls itself with the same inputs, changing only counters (`retries - 1`,
 * `delay * 2`); `find(path.dirname(dir))` or `f(b, a)` recurse over something else. Through a
 * cycle, the other function's parameters stand for the arguments of the call into it.
 */
function passesInputsOn(hw: HandWritten, fn: Fn, args: readonly Node[], via?: Reentry['via']): boolean {
  const params = fn.params.map((p) => {
    const t = p.type === T.AssignmentPattern ? p.left : p;
    return t.type === T.Identifier ? parameterVariable(hw.ctx.sourceCode, fn, t) : undefined;
  });
  const viaParams = via ? parameterVariables(hw, via.fn) : [];
  const passes = (arg: Node, i: number, through: boolean): boolean => {
    let ok = true;
    walkExpression(arg, (n) => {
      if (!ok) return;
      if (n.type === T.CallExpression) {
        const q = hw.evaluator.qualifiedName(calleeOf(n));
        if (!q || !q.startsWith('Math.')) ok = false;
      } else if (n.type === T.Identifier) {
        const v = hw.evaluator.variableOf(n);
        const j = through && v ? viaParams.indexOf(v) : -1;
        if (j >= 0) {
          const given = via!.call.arguments[j];
          if (given && !passes(given, i, false)) ok = false;
          return;
        }
        const at = v ? params.indexOf(v) : -1;
        if (at >= 0 && at !== i) ok = false;
      }
    });
    return ok;
  };
  return args.every((arg, i) => passes(arg, i, !!via));
}

function parameterVariables(hw: HandWritten, fn: Fn): (Variable | undefined)[] {
  return fn.params.map((p) => {
    const t = p.type === T.AssignmentPattern ? p.left : p;
    return t.type === T.Identifier ? parameterVariable(hw.ctx.sourceCode, fn, t) : undefined;
  });
}

/**
 * The constant change per call of a parameter passed back through a cycle: `retriesRemaining - 1`
 * in the other function, of its parameter given `retriesRemaining` by the call into it.
 */
function stepThrough(hw: HandWritten, via: NonNullable<Reentry['via']>, next: Node, v: Variable): number | undefined {
  const params = parameterVariables(hw, via.fn);
  for (let j = 0; j < params.length; j++) {
    const p = params[j];
    const inner = p ? linearStep(hw, next, p) : undefined;
    if (inner === undefined) continue;
    const given = via.call.arguments[j];
    const outer = given && given.type !== T.SpreadElement ? linearStep(hw, given, v) : undefined;
    return outer === undefined ? undefined : inner + outer;
  }
  return undefined;
}

/** The function's state: its parameters as passed on by the self-call, and counters kept outside it. */
function recursionRegion(hw: HandWritten, fn: Fn, found: Reentry, variable: Variable | undefined, roots: Set<Variable>, errVar: Variable | undefined): Region {
  const { args, via } = found;
  const vars = new Map<Variable, StateVariable>();
  const fields = new Map<Variable, Map<string, StateVariable>>();
  // Through a cycle, the next call's arguments are read in the other function's parameters.
  const frame = via ? { fn: via.fn, args: via.call.arguments as Node[] } : undefined;
  const stepOfNext = (next: Node, v: Variable) => (via ? stepThrough(hw, via, next, v) : linearStep(hw, next, v));
  const external = variable ? outsideCalls(hw, fn, variable, via?.fn) : closedMethodCallsOutside(hw, fn, via?.fn) ?? [];
  fn.params.forEach((p, i) => {
    const target = p.type === T.AssignmentPattern ? p.left : p;
    if (target.type === T.ObjectPattern) {
      optionsParameter(hw, fn, target, args[i], vars, (id) => parameterStart(hw, p, i, external, id), frame, stepOfNext);
      return;
    }
    if (target.type !== T.Identifier) return;
    const v = parameterVariable(hw.ctx.sourceCode, fn, target);
    if (!v) return;
    const next: Node | undefined = args[i] ?? (p.type === T.AssignmentPattern ? p.right : undefined);
    const inner = v.references.filter((r) => r.isWrite() && !r.init && contains(fn, r.identifier as Node));
    const write = inner.length === 0 ? undefined : inner.length === 1 ? writeExpression(inner[0]!.identifier as Node) : 'multi';
    // `if (retriesRemaining == null) retriesRemaining = maxRetries`: filled in on the first call only.
    const reset = write && write !== 'multi' ? nullishReset(fn, v, write) : undefined;
    if (reset) {
      const outside = variable ? external : methodCallsOutside(hw, fn, via?.fn);
      const valueOf = (n: Node) => hw.evaluator.evaluateIn(n, FIELD_ENV);
      const init: StateVariable['init'] = outsideCallsPassNothing(outside, i, reset.passes, valueOf) ? { expr: reset.value } : { expr: undefined, value: UNKNOWN };
      vars.set(v, { variable: v, init, next, nextFrame: frame, step: next ? stepOfNext(next, v) : undefined, memo: new Map() });
      return;
    }
    // `state.backoff = Math.min(max, state.backoff * 2)` before the call again: an object passed
    // on whose fields move between calls. Passed on unchanged, each field written on the way to
    // the call again is state of its own (its first value unknown); the object itself is unknown.
    const moved = write ? undefined : fieldWrites(fn, v);
    if (moved && moved.size > 0) {
      vars.set(v, { variable: v, init: { expr: undefined, value: UNKNOWN }, write: 'multi', memo: new Map() });
      const passedOn = next && unwrap(next).type === T.Identifier && hw.evaluator.variableOf(unwrap(next) as TSESTree.Identifier) === v;
      if (!passedOn || via) return;
      const own = new Map<string, StateVariable>();
      for (const [key, members] of moved) {
        if (key === '') return;
        const onTheWay = members.filter((m) => m.range[1] <= found.call.range[0] && contains(nearestFunction(m) ?? fn, found.call));
        if (onTheWay.length === 0) continue;
        const w = regionWrite(onTheWay, (n) => hw.ctx.sourceCode.getText(n));
        own.set(key, { variable: v, init: { expr: undefined, value: UNKNOWN }, ...w, memo: new Map() });
      }
      fields.set(v, own);
      return;
    }
    const init = parameterStart(hw, p, i, external);
    const step = write ? undefined : next ? stepOfNext(next, v) : undefined;
    vars.set(v, { variable: v, init, write, next, nextFrame: frame, step, memo: new Map() });
  });
  // Counters kept outside the function: `let attempt = 0; const run = () => op().catch(() => { attempt++; ... run() })`.
  const writes: TSESTree.Identifier[] = [];
  if (fn.body) walk(fn.body, (n) => {
    if (n.type === T.UpdateExpression && n.argument.type === T.Identifier) writes.push(n.argument);
    else if (n.type === T.AssignmentExpression && n.left.type === T.Identifier) writes.push(n.left);
  });
  for (const id of writes) {
    const v = hw.evaluator.variableOf(id);
    if (!v || vars.has(v) || v.defs.length !== 1 || contains(fn, v.defs[0]!.name as Node)) continue;
    const inner = v.references.filter((r) => r.isWrite() && !r.init && contains(fn, r.identifier as Node));
    const outsideWrites = v.references.some((r) => r.isWrite() && !r.init && !contains(fn, r.identifier as Node));
    const write = inner.length === 1 ? writeExpression(inner[0]!.identifier as Node) : 'multi';
    vars.set(v, {
      variable: v,
      init: outsideWrites ? { expr: undefined, value: UNKNOWN } : initialValue(hw, v),
      write,
      step: write === 'multi' ? undefined : stepOf(hw, write, v),
      memo: new Map(),
    });
  }
  return { kind: 'recursion', root: fn, vars, roots, errVar, fields };
}

/**
 * `f(messages, { model, delayMs = 0 } = {})` called again as `f(messages, { model, delayMs: delayMs * 2 })`:
 * each name of a destructured options parameter is state, passed on by the property of that name.
 */
function optionsParameter(
  hw: HandWritten, fn: Fn, pattern: TSESTree.ObjectPattern, arg: Node | undefined, vars: Map<Variable, StateVariable>,
  start: (id: TSESTree.Identifier) => StateVariable['init'], nextFrame: StateVariable['nextFrame'], stepOfNext: (next: Node, v: Variable) => number | undefined,
): void {
  const passed = arg && unwrap(arg);
  // An object the self-call builds in a way we cannot read: its names change to values not known.
  const unread = !!passed && (passed.type !== T.ObjectExpression || passed.properties.some((q) => q.type !== T.Property));
  for (const prop of pattern.properties) {
    if (prop.type !== T.Property || prop.computed) continue;
    const key = prop.key.type === T.Identifier ? prop.key.name : undefined;
    const value = prop.value;
    const id = value.type === T.AssignmentPattern ? value.left : value;
    if (key === undefined || id.type !== T.Identifier) continue;
    const v = parameterVariable(hw.ctx.sourceCode, fn, id);
    if (!v) continue;
    let given: Node | undefined;
    for (const q of passed?.type === T.ObjectExpression ? passed.properties : []) {
      if (q.type === T.Property && !q.computed && q.key.type === T.Identifier && q.key.name === key) given = q.value;
    }
    const next: Node | undefined = given ?? (value.type === T.AssignmentPattern ? value.right : undefined);
    if (unread || v.references.some((r) => r.isWrite() && !r.init)) {
      vars.set(v, { variable: v, init: { expr: undefined, value: UNKNOWN }, write: 'multi', memo: new Map() });
      continue;
    }
    if (!next) continue;
    vars.set(v, { variable: v, init: start(id), next, nextFrame, step: stepOfNext(next, v), memo: new Map() });
  }
}

/** A parameter's value on the first call (or, with `id`, a name destructured from it): what every call from outside passes, else its default. */
function parameterStart(hw: HandWritten, p: TSESTree.Parameter, i: number, external: readonly TSESTree.CallExpression[], id?: TSESTree.Identifier): StateVariable['init'] {
  const fallback = p.type === T.AssignmentPattern ? p.right : undefined;
  const target = p.type === T.AssignmentPattern ? p.left : p;
  if (hw.bound && p.parent === hw.bound.fn && (id || target.type === T.Identifier)) {
    return { expr: undefined, value: boundParameter(hw, id ?? target, rootEnv(hw)) };
  }
  const own = id?.parent?.type === T.AssignmentPattern && id.parent.left === id ? id.parent.right : undefined;
  if (external.length === 0) return { expr: id ? own : fallback };
  let node: Node | undefined;
  let value: Value | undefined;
  for (const c of external) {
    if (c.arguments.slice(0, i + 1).some((a) => a.type === T.SpreadElement)) return { expr: undefined, value: UNKNOWN };
    const arg = c.arguments[i] as Node | undefined;
    let v: Value = arg ? firstArgument(hw, c, arg) : fallback ? hw.evaluator.evaluate(fallback) : undefined;
    if (id) {
      const key = (id.parent?.type === T.AssignmentPattern ? id.parent.parent : id.parent) as TSESTree.Property | undefined;
      const name = key?.type === T.Property && key.key.type === T.Identifier ? key.key.name : undefined;
      if (v === undefined || v === null || v === UNKNOWN || name === undefined) v = UNKNOWN;
      else v = hw.evaluator.memberOf(v, name, rootEnv(hw), 0);
      if (v === undefined && own) v = hw.evaluator.evaluate(own);
    }
    if (v === UNKNOWN || (value !== undefined && v !== value)) return { expr: undefined, value: UNKNOWN };
    value = v;
    node ??= id ? undefined : arg ?? fallback;
  }
  return { expr: node, value };
}
