/**
 * The team's own retry helpers as retry sites: calls to helpers found in this file, and calls to
 * helpers imported from other files of the project (relative imports, workspace packages).
 * See inferred.ts for how a helper is recognised and who reports what.
 */
import { isAbsolute } from 'node:path';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { memberChain } from '../imports.js';
import type { AnalysisContext } from '../library.js';
import type { Node, RetrySite } from '../model.js';
import { contains, memberName } from '../ast.js';
import { thisClass } from '../eval/fields.js';
import { onCycle } from '../call-cycles.js';
import { constructorOf, findWrapperHelpers, markCalledInOwnFile, readArguments, wrapperCallSite, type WrapperHelper } from './inferred.js';
import { composedHelpers, type InnerCall } from './composed.js';
import { fieldMethodCalls, methodCalls } from './methods.js';
import { addFactoryCalls, factoryOf, keepsResult, retrierCalls } from './factories.js';
import { findLibraryHelpers, type Reread } from './library-helpers.js';
import { findExportedHelper, isFollowable, isUnparsed, knownUnresolved, knownWithout, methodExport, peekModule, resolveImport, type AnalyseFile, type ModuleSummary, type ParseEnvironment } from './modules.js';

export { declaredDescriptors } from './declared.js';
export type { Reread } from './library-helpers.js';
export { clearModuleCache, isFollowable, moduleCacheStats, readModule, rememberLinted, resolveImport, FRESH_MS } from './modules.js';

type Fn = TSESTree.FunctionLike;

/** Where the linted file lives and how it was parsed; without a filename nothing is followed. */
export interface FileEnvironment extends ParseEnvironment {
  readonly filename?: string | undefined;
}

export interface WrapperResult {
  /** Retry sites for calls to helpers. */
  readonly sites: RetrySite[];
  /** Helper sites to replace: their body read with the helper's own defaults. */
  readonly replace: ReadonlyMap<RetrySite, RetrySite>;
}

const helpersByContext = new WeakMap<AnalysisContext, ReadonlyMap<Fn, WrapperHelper>>();

/** The helpers found in a file, once its model is built (used when another file imports it). */
export function helpersOf(ctx: AnalysisContext): ReadonlyMap<Fn, WrapperHelper> {
  return helpersByContext.get(ctx) ?? new Map();
}

export function findWrapperSites(
  ctx: AnalysisContext,
  sites: readonly RetrySite[],
  env: FileEnvironment | undefined,
  analyse: AnalyseFile,
  reread?: Reread,
): WrapperResult {
  const out: RetrySite[] = [];
  const replace = new Map<RetrySite, RetrySite>();
  const taken = new Set<Node>(sites.map((s) => s.node));
  const handWritten = sites.filter((s) => s.library === 'hand-written');
  const helpers = handWritten.length ? findWrapperHelpers(ctx, handWritten) : new Map<Fn, WrapperHelper>();
  // Library retries around a call of the enclosing function's parameter (library-helpers.ts).
  if (sites.length > handWritten.length) for (const h of findLibraryHelpers(ctx, sites, reread)) if (!helpers.has(h.fn)) helpers.set(h.fn, h);
  helpersByContext.set(ctx, helpers);

  const inner: InnerCall[] = [];
  const addCall = (helper: WrapperHelper, call: TSESTree.CallExpression, callee: Node): boolean => {
    if (taken.has(call)) return false;
    const s = wrapperCallSite(helper, call, callee, ctx);
    if (!s) return false;
    taken.add(call);
    out.push(s);
    inner.push({ helper, call, callee, site: s });
    return true;
  };
  // A helper's calls in this file; true when one became a site.
  const addLocalCalls = (helper: WrapperHelper): boolean => {
    let called = false;
    for (const ref of helper.variable?.references ?? []) {
      const id = ref.identifier as Node;
      const call = id.parent;
      // A call back from the other function of a cycle is the helper's own retry, not a use of it.
      if (ref.isWrite() || call?.type !== T.CallExpression || call.callee !== id || contains(helper.fn, call) || onCycle(ctx, call)) continue;
      if (addCall(helper, call, id)) called = true;
    }
    for (const { call, callee, construction } of helper.owner ? methodCalls(ctx, helper.owner, helper.name) : []) {
      if (!contains(helper.fn, call) && !onCycle(ctx, call) && addCall(constructed(ctx, helper, construction), call, callee)) called = true;
    }
    return called;
  };

  // Helpers written in this file.
  for (const helper of helpers.values()) {
    // Its own site then speaks for its defaults only; each call speaks for what it passes.
    const called = addLocalCalls(helper);
    if (called) markCalledInOwnFile(helper);
    const own = called ? helper.defaults() : undefined;
    if (own && own !== helper.site) replace.set(helper.site, own);
  }

  // Helpers imported from other files of the project.
  const filename = env?.filename;
  const retries = sites.filter((s) => !s.clientLevel && !s.executions);
  const insideRetry = (call: Node) => retries.some((s) => s.node !== call && contains(s.node, call));
  if (filename && isAbsolute(filename)) {
    const loaded = new Map<string, ModuleSummary | undefined>();
    for (const binding of ctx.imports.bindings) {
      if (!isFollowable(binding.module)) continue;
      // A package name already found to lead to no file of the project (a test runner, a library:
      // resolutions are kept per folder of node_modules and tsconfig paths, so one lookup answers
      // for every folder under the same ones) settles every call through it: findExportedHelper
      // would find nothing for them. Only what is known without a look at the disk is used here.
      if (knownUnresolved(binding.module, filename)) continue;
      // Only imports called with a function argument, or called inside another retry (a helper that
      // retries on its own, such as `sendEmail(to, ...)` looping over the mailer, nests there), are
      // worth a look at another file; that is settled from this file's own tree first, so most
      // imports never cost a resolution.
      // A call whose result is a function later called with a function (`const retry = makeRetry(...)`,
      // `this.retrier = createRetry(opts)`) may be a factory's (factories.ts).
      const through = callsThrough(binding.variable, binding.path).filter((c) => !taken.has(c.call));
      // `new RetryHelper(3, 10, 20).execute(fn)`: a method of an imported class called on an instance built here.
      const owner = exportName(binding.path);
      const built = owner.includes('.') ? [] : instanceCalls(ctx, binding.variable).filter((c) => !taken.has(c.call));
      if (through.length === 0 && built.length === 0) continue;
      // What the call's own text settles first (a function written in it, a call inside a retry);
      // before the names it passes are evaluated, a module an earlier file of the run already
      // found to offer none of the names called settles every call through it.
      const settled = through.some((c) => passesFunctionLiteral(c.call) || insideRetry(c.call)) || built.some((c) => passesFunctionLiteral(c.call));
      if (!settled && knownWithout(binding.module, filename, [...through.map((c) => exportName(c.path)), ...built.map((i) => methodExport(owner, i.method))])) continue;
      const calls = through.filter((c) => passesFunction(c.call, ctx) || insideRetry(c.call) || makesRetrier(c.call, ctx));
      const instances = built.filter((c) => passesFunction(c.call, ctx));
      if (calls.length === 0 && instances.length === 0) continue;
      // resolveImport keeps its own cache of resolutions: no second memo here.
      const file = resolveImport(binding.module, filename);
      if (!file) continue;
      // A module known to offer none of the names called settles every call through it.
      const peeked = peekModule(file);
      if (!peeked) continue;
      if (!isUnparsed(peeked) && peeked.reexports.length === 0 && !calls.some((c) => peeked.helpers.has(exportName(c.path))) &&
        !instances.some((i) => peeked.helpers.has(methodExport(owner, i.method)))) continue;
      for (const c of calls) {
        const helper = findExportedHelper(file, exportName(c.path), env, analyse, loaded);
        if (helper?.makes) addFactoryCalls(ctx, helper, c.call, addCall);
        else if (helper) addCall(helper, c.call, c.callee);
      }
      for (const i of instances) {
        const helper = findExportedHelper(file, methodExport(owner, i.method), env, analyse, loaded);
        if (helper) addCall(constructed(ctx, helper, i.construction), i.call, i.callee);
      }
    }
  }
  // Functions and methods that call a helper with their own parameters are helpers too (composed.ts).
  for (const helper of inner.length ? composedHelpers(ctx, inner, helpers) : []) {
    helpers.set(helper.fn, helper);
    const at = out.indexOf(helper.site);
    const called = addLocalCalls(helper);
    if (called) markCalledInOwnFile(helper);
    const own = called ? helper.defaults() : undefined;
    if (own && at >= 0) out[at] = own;
  }
  // Functions that return a helper are factories: calls of what their calls return are sites (factories.ts).
  for (const helper of [...helpers.values()]) {
    const factory = helper.returnedBy && !helpers.has(helper.returnedBy) ? factoryOf(ctx, helper) : undefined;
    if (!factory) continue;
    helpers.set(factory.fn, factory);
    // A helper composed in the returned function (kafkajs's `createRetriable(configs, ...)` call in
    // it) speaks for the factory's defaults: its arguments read as a call with nothing makes them.
    const at = out.indexOf(helper.site);
    const own = at >= 0 ? factory.defaults() : undefined;
    if (own) out[at] = own;
    for (const ref of factory.variable?.references ?? []) {
      const id = ref.identifier as Node;
      const call = id.parent;
      if (!ref.isWrite() && call?.type === T.CallExpression && call.callee === id && keepsResult(call)) addFactoryCalls(ctx, factory, call, addCall);
    }
  }
  return { sites: out, replace };
}

/**
 * A method helper as called on an instance built with `new Owner(args)`: the constructor's
 * parameters bound to the construction's arguments (read as any helper call's are), shown there.
 */
function constructed(ctx: AnalysisContext, helper: WrapperHelper, construction: TSESTree.NewExpression | undefined): WrapperHelper {
  const ctor = construction && helper.owner ? constructorOf(helper.owner) : undefined;
  if (!construction || !ctor || !helper.constructedWith) return helper;
  const args = readArguments(construction, ctx, ctor.params.length, undefined, ctx === helper.ctx);
  return { ...helper.constructedWith(args.values), madeAt: { fn: ctor, nodes: args.nodes } };
}

/** Whether what a call returns is kept and later called with a function (`const retry = make(); retry(() => ...)`). */
function makesRetrier(call: TSESTree.CallExpression, ctx: AnalysisContext): boolean {
  return keepsResult(call) && retrierCalls(ctx, call).some((r) => passesFunction(r.call, ctx));
}

interface CallThrough {
  readonly call: TSESTree.CallExpression;
  readonly callee: Node;
  readonly path: string;
}

/** Calls through an import binding: `withRetry(...)`, `retry.withRetry(...)`. */
function callsThrough(variable: TSESLint.Scope.Variable, path: string): CallThrough[] {
  const out: CallThrough[] = [];
  for (const ref of variable.references) {
    if (ref.isWrite()) continue;
    const { expression, path: p } = memberChain(ref.identifier as Node, path);
    const call = expression.parent;
    if (call?.type === T.CallExpression && call.callee === expression) out.push({ call, callee: expression, path: p });
  }
  return out;
}

interface InstanceCall {
  readonly call: TSESTree.CallExpression;
  readonly callee: TSESTree.MemberExpression;
  readonly method: string;
  /** Undefined for an instance a dependency injector builds (the class's defaults apply). */
  readonly construction: TSESTree.NewExpression | undefined;
}

type InstancePlace = 'new' | 'argument' | 'type';

/**
 * Where a reference to a class can make or hold an instance: `new C(...)`, a call's first argument
 * (`inject(C)`), a type (`x: C`). Any other reference (most are calls of an import) holds none.
 */
function instancePlace(id: Node): InstancePlace | undefined {
  const p = id.parent;
  if (p?.type === T.NewExpression && p.callee === id) return 'new';
  if (p?.type === T.CallExpression && p.arguments[0] === id) return 'argument';
  return p?.type === T.TSTypeReference ? 'type' : undefined;
}

/**
 * The field of a class of the file a reference to an imported class may fill, by where the name
 * stands: `private retry = new C()` or `inject(C)` (the field's initialiser), `this.retry = new
 * C()`, `constructor(private retry: C)`, or a typed constructor parameter stored at the top of the
 * constructor (`this.retry = retry`). fieldInstance, on each call found, decides.
 */
function fieldKeepingInstance(id: Node, place: InstancePlace): { cls: Node; name: string } | undefined {
  const p = id.parent;
  if (place === 'new' || place === 'argument') {
    const holder = p!.parent;
    if (holder?.type === T.PropertyDefinition && holder.value === p && !holder.static && !holder.computed) {
      const name = holder.key.type === T.PrivateIdentifier ? `#${holder.key.name}` : holder.key.type === T.Identifier ? holder.key.name : undefined;
      const cls = holder.parent?.parent;
      return name !== undefined && cls ? { cls, name } : undefined;
    }
    if (holder?.type === T.AssignmentExpression && holder.right === p && holder.left.type === T.MemberExpression && holder.left.object.type === T.ThisExpression) {
      const cls = thisClass(holder.left.object);
      const name = memberName(holder.left);
      return cls && name !== undefined ? { cls, name } : undefined;
    }
    return undefined;
  }
  // `retry: RetryService` on a constructor parameter.
  const param = p?.parent?.type === T.TSTypeAnnotation ? p.parent.parent : undefined;
  if (param?.type !== T.Identifier) return undefined;
  const property = param.parent?.type === T.TSParameterProperty ? param.parent : undefined;
  const ctor = (property ?? param).parent;
  if (ctor?.type !== T.FunctionExpression || ctor.parent?.type !== T.MethodDefinition || ctor.parent.kind !== 'constructor') return undefined;
  const cls = ctor.parent.parent?.parent;
  if (!cls) return undefined;
  if (property) return { cls, name: param.name };
  for (const st of ctor.body?.body ?? []) {
    const e = st.type === T.ExpressionStatement ? st.expression : undefined;
    if (e?.type === T.AssignmentExpression && e.operator === '=' && e.left.type === T.MemberExpression && e.left.object.type === T.ThisExpression &&
      e.right.type === T.Identifier && e.right.name === param.name) {
      const name = memberName(e.left);
      if (name !== undefined) return { cls, name };
    }
  }
  return undefined;
}

/**
 * Method calls on instances of an imported class built here: `new C(...).m()`, on a const holding
 * `new C(...)`, or on a field of a class of the file holding one (`this.retry.m()`, the field set
 * from `new C(...)`, a constructor parameter typed `C`, or `inject(C)`: fieldInstance).
 */
function instanceCalls(ctx: AnalysisContext, variable: TSESLint.Scope.Variable): readonly InstanceCall[] {
  let out: InstanceCall[] | undefined;
  const add = (c: InstanceCall) => {
    if (!(out ??= []).some((o) => o.call === c.call)) out.push(c);
  };
  const onMember = (object: Node, construction: TSESTree.NewExpression) => {
    const member = object.parent;
    const call = member?.parent;
    const method = member?.type === T.MemberExpression && member.object === object ? memberName(member) : undefined;
    if (method !== undefined && call?.type === T.CallExpression && call.callee === member) (out ??= []).push({ call, callee: member as TSESTree.MemberExpression, method, construction });
  };
  for (const ref of variable.references) {
    if (ref.isWrite()) continue;
    const id = ref.identifier as Node;
    // Most references to an import are calls of it (`withRetry(...)`, `lib.f(...)`): settled here.
    const place = instancePlace(id);
    if (!place) continue;
    const field = fieldKeepingInstance(id, place);
    for (const c of field ? fieldMethodCalls(ctx, field.cls, field.name) : []) {
      if (ctx.evaluator.variableOf(c.held.type) === variable) add({ call: c.call, callee: c.callee, method: c.method, construction: c.held.construction });
    }
    if (place !== 'new') continue;
    const p = id.parent as TSESTree.NewExpression;
    const declarator = p.parent;
    if (declarator?.type === T.VariableDeclarator && declarator.init === p && declarator.id.type === T.Identifier) {
      const held = ctx.sourceCode.scopeManager?.getDeclaredVariables(declarator)[0];
      // A name written again may hold something else when it is called.
      if (!held || held.references.some((r) => r.isWrite() && !r.init)) continue;
      for (const r of held.references) if (!r.init) onMember(r.identifier as Node, p);
    } else {
      onMember(p, p);
    }
  }
  return out ?? NO_INSTANCE_CALLS;
}

const NO_INSTANCE_CALLS: readonly InstanceCall[] = [];

/** `module` (a CommonJS require or namespace) called directly is the default export. */
function exportName(path: string): string {
  return path === 'module' ? 'default' : path;
}

/** A function written in the call: `f(() => ...)`, `f({ task() {...} })`. */
function isFunctionLiteral(a: TSESTree.CallExpressionArgument): boolean {
  if (a.type === T.ArrowFunctionExpression || a.type === T.FunctionExpression) return true;
  return a.type === T.ObjectExpression &&
    a.properties.some((p) => p.type === T.Property && (p.value.type === T.ArrowFunctionExpression || p.value.type === T.FunctionExpression || p.method));
}

/** A function written in the call's arguments, or one handed on with its receiver (`fn.bind(this)`). */
function passesFunctionLiteral(call: TSESTree.CallExpression): boolean {
  return call.arguments.some((a) => isFunctionLiteral(a) ||
    (a.type === T.CallExpression && a.callee.type === T.MemberExpression && !a.callee.computed && a.callee.property.type === T.Identifier && a.callee.property.name === 'bind'));
}

function passesFunction(call: TSESTree.CallExpression, ctx: AnalysisContext): boolean {
  // Function literals first: they settle most calls without evaluating any name.
  if (passesFunctionLiteral(call)) return true;
  return call.arguments.some((a) => {
    if (a.type !== T.Identifier && a.type !== T.MemberExpression) return false;
    // Most arguments are parameters, imports or awaited results: settled without evaluating them.
    if (ctx.evaluator.neverAFunction(a)) return false;
    try {
      const v = ctx.evaluator.evaluate(a);
      return typeof v === 'object' && v !== null && 'kind' in v && v.kind === 'function';
    } catch {
      return false;
    }
  });
}

