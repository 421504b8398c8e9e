/**
 * Retries by an axios response interceptor: a handler registered with
 * `instance.interceptors.response.use(onFulfilled, onRejected)` that re-sends the failed request's
 * config (`error.config`, `response.config`) through the instance, directly, after a delay
 * promise (`delay(ms).then(() => instance(config))`) or from a timer
 * (`setTimeout(() => resolve(axios(config)), ms)`). The re-sent request passes through the handler
 * again, so the handler is a recursion whose state is kept on the config: a count stored there
 * (`config.attempts = doneAttempts + 1`) and read back into a local (`const doneAttempts =
 * config.attempts || 1`) is the attempt counter. A re-send that nothing counts (a token refresh
 * under a `config._retry` flag) has no counter; the flag is a constraint like any other.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { constInitializer, contains, isFunctionNode, memberName, memberRoot, readsMethod, staticPropertyName, unwrap, type Variable } from '../ast.js';
import { localFunction } from '../eval/functions.js';
import { UNKNOWN } from '../eval/values.js';
import type { Node, RetrySite } from '../model.js';
import { attemptEnv, rootEnv, valueAt, type HandWritten, type Region, type StateVariable } from './attempts.js';
import { methodName, walkExpression } from './control-flow.js';
import { isFilterCondition, retriesFailuresOnly } from './filter.js';
import { buildSite, type Constraint, type Shape } from './site.js';
import { isGlobalTimeout, plainSleep, sleepOf, type Sleep } from './sleeps.js';
import { configArgument, optionIn, timeoutFacet } from './request-timeouts.js';
import { thisClass } from '../eval/fields.js';

type Fn = TSESTree.FunctionLike;

const INTERCEPTOR_USE = /\binterceptors\s*\.\s*response\s*\.\s*use\b/;

/** The re-sending response interceptors of a file. */
export function interceptorSites(hw: HandWritten, guard: <R>(f: () => R | undefined) => R | undefined): RetrySite[] {
  // INTERCEPTOR_USE holds the word literally: a substring search settles most files before the regex
  // (whose leading `\b` makes it try every position).
  const text = hw.ctx.sourceCode.text;
  if (!text.includes('interceptors') || !INTERCEPTOR_USE.test(text)) return [];
  const sites: RetrySite[] = [];
  for (const call of hw.ctx.nodesOfType(T.CallExpression)) {
    if (!isResponseUse(call)) continue;
    const response = unwrap((unwrap(call.callee) as TSESTree.MemberExpression).object) as TSESTree.MemberExpression;
    const instance = unwrap((unwrap(response.object) as TSESTree.MemberExpression).object);
    for (const [i, arg] of call.arguments.slice(0, 2).entries()) {
      for (const { handler, reader } of handlersOf(hw, arg as Node)) {
        const s = guard(() => handlerSite(reader, handler, instance, i === 0));
        if (s) sites.push(s);
      }
    }
  }
  return sites;
}

/** `x.interceptors.response.use(...)`. */
function isResponseUse(call: TSESTree.CallExpression): boolean {
  const callee = unwrap(call.callee);
  if (callee.type !== T.MemberExpression || memberName(callee) !== 'use') return false;
  const response = unwrap(callee.object);
  if (response.type !== T.MemberExpression || memberName(response) !== 'response') return false;
  const interceptors = unwrap(response.object);
  return interceptors.type === T.MemberExpression && memberName(interceptors) === 'interceptors';
}

/**
 * The handler functions an argument of `use()` stands for: a function, a local one by name, or the
 * functions a local factory returns. A handler a factory returns is read with the factory's
 * parameters bound to the arguments of that call (`getHandler(this.axios, { maxRetries: this.maxRetries })`),
 * read in the code around it.
 */
function handlersOf(hw: HandWritten, arg: Node): { handler: Fn; reader: HandWritten }[] {
  const n = unwrap(arg);
  if (isFunctionNode(n)) return [{ handler: n, reader: hw }];
  if (n.type === T.Identifier) {
    const v = hw.evaluator.variableOf(n);
    const fn = v && localFunction(v);
    return fn ? [{ handler: fn, reader: hw }] : [];
  }
  if (n.type === T.CallExpression && unwrap(n.callee).type === T.Identifier) {
    const v = hw.evaluator.variableOf(unwrap(n.callee) as TSESTree.Identifier);
    const factory = v && localFunction(v);
    if (!factory) return [];
    const spread = n.arguments.some((a) => a.type === T.SpreadElement);
    const args = n.arguments.map((a) => (spread ? UNKNOWN : hw.evaluator.evaluateIn(a, rootEnv(hw))));
    const reader: HandWritten = { ...hw, bound: { fn: factory, args, outer: hw.bound } };
    return returnedFunctions(factory).map((handler) => ({ handler, reader }));
  }
  return [];
}

function returnedFunctions(factory: Fn): Fn[] {
  const body = factory.body;
  if (!body) return [];
  if (body.type !== T.BlockStatement) return isFunctionNode(unwrap(body)) ? [unwrap(body) as Fn] : [];
  const out: Fn[] = [];
  for (const st of body.body) {
    if (st.type === T.ReturnStatement && st.argument && isFunctionNode(unwrap(st.argument))) out.push(unwrap(st.argument) as Fn);
  }
  return out;
}

/** The variables holding the handled request's config: `const { config } = error`, `const config = res.config`. */
interface Handled {
  readonly param: Variable;
  readonly configs: Set<Variable>;
  readonly roots: Set<Variable>;
}

function handled(hw: HandWritten, handler: Fn): Handled | undefined {
  const p = handler.params[0];
  if (p?.type !== T.Identifier) return undefined;
  const param = hw.ctx.sourceCode.scopeManager?.getDeclaredVariables(handler).find((v) => v.defs.some((d) => d.name === p));
  if (!param) return undefined;
  const configs = new Set<Variable>();
  const roots = new Set<Variable>([param]);
  for (const ref of param.references) {
    const id = ref.identifier as Node;
    const parent = id.parent;
    // const { config, response } = error
    if (parent?.type === T.VariableDeclarator && parent.init === id && parent.id.type === T.ObjectPattern) {
      for (const prop of parent.id.properties) {
        if (prop.type !== T.Property || prop.computed || prop.key.type !== T.Identifier || prop.value.type !== T.Identifier) continue;
        const v = declared(hw, parent, prop.value.name);
        if (!v) continue;
        if (prop.key.name === 'config') configs.add(v);
        if (prop.key.name === 'response') roots.add(v);
      }
    }
    // const config = error.config
    if (parent?.type === T.MemberExpression && parent.object === id && !parent.computed) {
      const key = memberName(parent);
      const d = parent.parent;
      if (d?.type === T.VariableDeclarator && d.init === parent && d.id.type === T.Identifier) {
        const v = declared(hw, d, d.id.name);
        if (v && key === 'config') configs.add(v);
        if (v && key === 'response') roots.add(v);
      }
    }
  }
  return { param, configs, roots };
}

function declared(hw: HandWritten, d: TSESTree.VariableDeclarator, name: string): Variable | undefined {
  return hw.ctx.sourceCode.scopeManager?.getDeclaredVariables(d).find((v) => v.name === name);
}

/** Whether `n` is the handled request's config: `error.config` or a variable holding it. */
function isConfig(hw: HandWritten, h: Handled, raw: Node): boolean {
  const n = unwrap(raw);
  if (n.type === T.Identifier) {
    const v = hw.evaluator.variableOf(n);
    return !!v && h.configs.has(v);
  }
  if (n.type === T.MemberExpression && !n.computed && memberName(n) === 'config') {
    const o = unwrap(n.object);
    return o.type === T.Identifier && hw.evaluator.variableOf(o) === h.param;
  }
  return false;
}

/**
 * Whether a callee sends a request through the intercepted instance: the instance itself
 * (`instance(config)`, `instance.request(config)`), or a parameter of a function around the handler
 * (a factory given the instance, `getHandler(axios, opts)`).
 */
function sendsThrough(hw: HandWritten, callee: Node, instance: Node, handler: Fn): boolean {
  let c = unwrap(callee);
  if (c.type === T.MemberExpression && memberName(c) === 'request') c = unwrap(c.object);
  const text = (n: Node) => hw.ctx.sourceCode.getText(n).replace(/\s+/g, '');
  if (text(c) === text(instance)) return true;
  if (c.type !== T.Identifier) return false;
  const v = hw.evaluator.variableOf(c);
  const def = v?.defs.length === 1 ? v.defs[0] : undefined;
  return def?.type === 'Parameter' && !contains(handler, def.name as Node);
}

function handlerSite(hw: HandWritten, handler: Fn, instance: Node, fulfilled: boolean): RetrySite | undefined {
  const h = handled(hw, handler);
  if (!h || !handler.body) return undefined;
  const resends: TSESTree.CallExpression[] = [];
  for (const call of hw.ctx.nodesOfType(T.CallExpression)) {
    if (!contains(handler.body, call) || call.arguments.length !== 1) continue;
    if (!isConfig(hw, h, call.arguments[0] as Node) || !sendsThrough(hw, call.callee, instance, handler)) continue;
    resends.push(call);
  }
  // One way back: several re-sends (a refresh path beside a retry path) are not read.
  if (resends.length !== 1) return undefined;
  const resend = resends[0]!;
  const path = pathTo(hw, handler, resend);
  if (!path) return undefined;
  // Without a count on the config, a re-send is no retry read here: the usual one is "refresh the
  // token, then re-send once" under a flag (`config._retry = true`), a repair, not a retry.
  const counter = carriedCounter(hw, handler, h);
  const member = counter ? undefined : memberCounter(hw, handler, h);
  if (!counter && !member) return undefined;
  const region: Region = counter
    ? { kind: 'recursion', root: handler, vars: new Map([[counter.variable, counter]]), roots: h.roots }
    : { kind: 'recursion', root: handler, vars: new Map(), fields: new Map([[member!.variable, new Map([[member!.key, member!.state]])]]), roots: h.roots };
  // A response handler sees successes too: a re-send on a 2xx (202 Accepted, polling) is no retry.
  if (fulfilled && !retriesFailuresOnly(hw, region, path.constraints.filter((c) => isFilterCondition(hw, c.test, region)))) return undefined;
  const shape: Shape = { region, operation: resend, constraints: path.constraints, throwGuards: [], sleeps: path.sleeps, opPos: handler.range[0] };
  const callee = unwrap(resend.callee);
  const reportNode = callee.type === T.MemberExpression ? callee.property : callee;
  const built = buildSite(hw, shape, { node: handler, reportNode, label: 'response interceptor re-send' });
  const timeout = built.attemptTimeoutMs.value === undefined ? senderTimeout(hw, instance) : undefined;
  // The interceptor re-sends every request made through the instance, whatever its method, unless
  // the handler looks at the method.
  // A rejection handler with no condition on the failure re-sends whatever axios rejects: every
  // non-2xx response (4xx included) unless the instance changes `validateStatus`.
  const unfiltered = !fulfilled && built.errorFilter.kind === 'none' && !built.errorFilter.retriesEverything && rejectsClientErrors(hw, instance);
  const errorFilter = unfiltered ? { ...built.errorFilter, retriesEverything: reportNode } : built.errorFilter;
  return { ...built, errorFilter, ...(timeout && { attemptTimeoutMs: timeout }), clientLevel: true, operation: instance, retriesWrites: readsMethod(hw.ctx.nodesOfType(T.MemberExpression), handler, (o) => isConfig(hw, h, o)) ? undefined : { value: true, node: reportNode } };
}

/**
 * The per-request timeout of the requests this file sends through the intercepted instance
 * (`this.axios(options)` with `options.timeout`, read with the code's defaults): a re-send carries
 * the config of the request that failed, so its timeout is that request's. Requests elsewhere may
 * set another or none; the longest read here is one the retry certainly meets, so its worst case
 * is at least the retry's with that timeout. Instances named by `this` count in their own class only.
 */
function senderTimeout(hw: HandWritten, instance: Node): { value: number; node: Node } | undefined {
  const facet = timeoutFacet(hw.ctx, 'axios');
  if (!facet) return undefined;
  const text = (n: Node) => hw.ctx.sourceCode.getText(n).replace(/\s+/g, '');
  const want = text(instance);
  const owner = ownerOf(instance);
  const env = rootEnv(hw);
  let best: { value: number; node: Node } | undefined;
  for (const call of hw.ctx.nodesOfType(T.CallExpression)) {
    const callee = unwrap(call.callee);
    const direct = text(callee) === want;
    const member = !direct && callee.type === T.MemberExpression ? memberName(callee) : undefined;
    const client = direct ? callee : member !== undefined ? unwrap((callee as TSESTree.MemberExpression).object) : undefined;
    if (!client || text(client) !== want || ownerOf(client) !== owner) continue;
    const config = configArgument(call, facet, member);
    const found = config && optionIn(hw.evaluator, config, facet.timeoutOption, call, env);
    if (!found || found === 'none') continue;
    const ms = hw.evaluator.evaluateIn(found.expr, env);
    if (typeof ms === 'number' && Number.isFinite(ms) && ms > 0 && (!best || ms > best.value)) best = { value: ms, node: found.expr };
  }
  return best;
}

/**
 * Whether the intercepted instance rejects on 4xx as axios does by default: the axios export itself,
 * or a const of the file made by `axios.create()` whose options (a literal without spreads) leave
 * `validateStatus` alone. Anything else (a parameter, `this.axios`) is not known.
 */
function rejectsClientErrors(hw: HandWritten, instance: Node): boolean {
  const n = unwrap(instance);
  if (n.type !== T.Identifier) return false;
  const own = hw.ctx.imports.resolve(n);
  if (own) return own.module === 'axios' && own.path === 'default';
  const init = constInitializer(hw.evaluator.variableOf(n));
  const made = init && unwrap(init);
  if (made?.type !== T.CallExpression || made.arguments.length > 1) return false;
  const callee = unwrap(made.callee);
  if (callee.type !== T.MemberExpression || memberName(callee) !== 'create') return false;
  const root = unwrap(callee.object);
  const ref = root.type === T.Identifier ? hw.ctx.imports.resolve(root) : undefined;
  if (ref?.module !== 'axios' || ref.path !== 'default') return false;
  // What the axios descriptor says stops the rejections (`validateStatus`), written nowhere in the options.
  const facet = hw.ctx.httpFacetOf?.('axios');
  if (!facet?.throwsOnClientError) return false;
  const options = made.arguments[0] && unwrap(made.arguments[0]);
  if (!options) return true;
  const stops = facet.nonThrowingOptions ?? [];
  return options.type === T.ObjectExpression && options.properties.every((p) => {
    const key = p.type === T.Property ? staticPropertyName(p) : undefined;
    return key !== undefined && !stops.includes(key);
  });
}

/** The class whose `this` a `this.x` chain starts at (undefined for other expressions). */
function ownerOf(n: Node): Node | undefined {
  const root = memberRoot(n);
  return root.type === T.ThisExpression ? thisClass(root) : undefined;
}

/** The conditions and waits between the handler's start and the re-send. */
function pathTo(hw: HandWritten, handler: Fn, resend: TSESTree.CallExpression): { constraints: Constraint[]; sleeps: Sleep[] } | undefined {
  const constraints: Constraint[] = [];
  const sleeps: Sleep[] = [];
  let child: Node = resend;
  for (let n: Node | undefined = resend.parent; n && n !== handler; child = n, n = n.parent) {
    if (isFunctionNode(n)) {
      // The re-send runs in a callback: of a timer, of `.then` on a delay, of `new Promise`.
      const owner: Node | undefined = n.parent;
      if (owner?.type === T.CallExpression && owner.arguments[0] === n && isGlobalTimeout(hw, owner)) {
        sleeps.push(plainSleep(owner.arguments[1] ?? owner, owner.arguments[1] as Node | undefined, owner));
      } else if (owner?.type === T.CallExpression && owner.arguments[0] === n && methodName(owner) === 'then') {
        const s = sleepOf(hw, (unwrap(owner.callee) as TSESTree.MemberExpression).object);
        if (!s) return undefined;
        sleeps.push(s);
      } else if (!(owner?.type === T.NewExpression && owner.arguments[0] === n)) {
        return undefined;
      }
      continue;
    }
    if (n.type === T.IfStatement && child !== n.test) constraints.push({ test: n.test, want: child === n.consequent, next: false });
    if (n.type === T.ConditionalExpression && child !== n.test) constraints.push({ test: n.test, want: child === n.consequent, next: false });
    if (n.type === T.BlockStatement) {
      for (const st of n.body) {
        if (st === child) break;
        if (st.type === T.IfStatement && !st.alternate && leaves(st.consequent)) constraints.push({ test: st.test, want: false, next: false });
        if (st.type === T.ExpressionStatement && unwrap(st.expression).type === T.AwaitExpression) {
          const s = sleepOf(hw, (unwrap(st.expression) as TSESTree.AwaitExpression).argument);
          if (s) sleeps.push(s);
        }
      }
    }
  }
  return { constraints, sleeps };
}

function leaves(st: Node): boolean {
  if (st.type === T.ReturnStatement || st.type === T.ThrowStatement) return true;
  if (st.type !== T.BlockStatement) return false;
  const last = st.body[st.body.length - 1];
  return !!last && (last.type === T.ReturnStatement || last.type === T.ThrowStatement);
}

/**
 * The attempt counter kept on the config: the one key the handler writes on it
 * (`config.attempts = doneAttempts + 1`), read back into a const (`const doneAttempts =
 * config.attempts || 1`). The const is the state variable, its value at each attempt read through
 * what the attempt before stored.
 */
function carriedCounter(hw: HandWritten, handler: Fn, h: Handled): StateVariable | undefined {
  const writes: { variable: Variable; key: string; write: Node }[] = [];
  for (const a of hw.ctx.nodesOfType(T.AssignmentExpression)) {
    if (!contains(handler, a) || a.operator !== '=' || a.left.type !== T.MemberExpression || a.left.computed) continue;
    const o = unwrap(a.left.object);
    const key = memberName(a.left);
    const v = o.type === T.Identifier ? hw.evaluator.variableOf(o) : undefined;
    if (v && key && h.configs.has(v)) writes.push({ variable: v, key, write: a.right });
  }
  if (writes.length !== 1) return undefined;
  const carrier = writes[0]!;
  // The const that reads the key back.
  for (const d of hw.ctx.nodesOfType(T.VariableDeclarator)) {
    if (!contains(handler, d) || !d.init || d.id.type !== T.Identifier || !readsKey(hw, d.init, carrier)) continue;
    if (d.parent?.type !== T.VariableDeclaration || d.parent.kind !== 'const') continue;
    const variable = declared(hw, d, d.id.name);
    if (!variable) continue;
    const state: StateVariable = { variable, init: { expr: d.init }, carrier, memo: new Map() };
    return { ...state, step: constantStep(hw, state) };
  }
  return undefined;
}

/**
 * A count kept on the config and read there, with no local for it (the common form):
 * `config.__retryCount = config.__retryCount || 0; if (config.__retryCount >= 3) return
 * Promise.reject(error); config.__retryCount += 1;`. One key of the config is written in the
 * handler by one step (`+= 1`, `++`, `= (config.n ?? 0) + 1`) and at most one start before it
 * (`= config.n || 0`, `??=`, `||=`): the key is a field of the config moved once per re-send, its
 * value at the first attempt the start's (undefined without one).
 */
function memberCounter(hw: HandWritten, handler: Fn, h: Handled): { variable: Variable; key: string; state: StateVariable } | undefined {
  const writes: { variable: Variable; key: string; write: TSESTree.AssignmentExpression | TSESTree.UpdateExpression }[] = [];
  const target = (n: Node): { variable: Variable; key: string } | undefined => {
    if (n.type !== T.MemberExpression || n.computed) return undefined;
    const o = unwrap(n.object);
    const key = memberName(n);
    const v = o.type === T.Identifier ? hw.evaluator.variableOf(o) : undefined;
    return v && key && h.configs.has(v) ? { variable: v, key } : undefined;
  };
  for (const type of [T.AssignmentExpression, T.UpdateExpression] as const) {
    for (const w of hw.ctx.nodesOfType(type)) {
      if (!contains(handler, w)) continue;
      const t = target(unwrap(w.type === T.AssignmentExpression ? w.left : w.argument));
      if (t) writes.push({ ...t, write: w });
    }
  }
  if (writes.length === 0 || writes.length > 2 || writes.some((w) => w.variable !== writes[0]!.variable || w.key !== writes[0]!.key)) return undefined;
  const { variable, key } = writes[0]!;
  const reads = (n: Node) => target(unwrap(n))?.key === key;
  // The start: `= config.n || 0` / `= config.n ?? 0`, `||= 0`, `??= 0`.
  const startOf = (w: TSESTree.AssignmentExpression | TSESTree.UpdateExpression): number | undefined => {
    if (w.type !== T.AssignmentExpression) return undefined;
    const r = unwrap(w.right);
    if ((w.operator === '||=' || w.operator === '??=') && r.type === T.Literal && typeof r.value === 'number') return r.value;
    if (w.operator === '=' && r.type === T.LogicalExpression && r.operator !== '&&' && reads(r.left) && unwrap(r.right).type === T.Literal) {
      const c = (unwrap(r.right) as TSESTree.Literal).value;
      return typeof c === 'number' ? c : undefined;
    }
    return undefined;
  };
  const ordered = writes.map((w) => w.write).sort((a, b) => a.range[0] - b.range[0]);
  const start = ordered.length === 2 ? startOf(ordered[0]!) : undefined;
  if (ordered.length === 2 && start === undefined) return undefined;
  const step = ordered[ordered.length - 1]!;
  if (startOf(step) !== undefined) return undefined;
  const state: StateVariable = { variable, init: { expr: undefined, value: start }, write: step, memo: new Map() };
  return { variable, key, state };
}

function readsKey(hw: HandWritten, expr: Node, carrier: { variable: Variable; key: string }): boolean {
  let found = false;
  walkExpression(expr, (n) => {
    if (found || n.type !== T.MemberExpression || n.computed || memberName(n) !== carrier.key) return;
    const o = unwrap(n.object);
    if (o.type === T.Identifier && hw.evaluator.variableOf(o) === carrier.variable) found = true;
  });
  return found;
}

/** The constant change of a carried counter over its first attempts, when it is one. */
function constantStep(hw: HandWritten, state: StateVariable): number | undefined {
  const region: Region = { kind: 'recursion', root: state.variable.defs[0]!.node as Node, vars: new Map([[state.variable, state]]), roots: new Set() };
  const values = [1, 2, 3].map((k) => valueAt(hw, state, attemptEnv(hw, region, k), -1));
  state.memo.clear();
  if (!values.every((v): v is number => typeof v === 'number')) return undefined;
  const step = values[1]! - values[0]!;
  return step !== 0 && values[2]! - values[1]! === step ? step : undefined;
}
