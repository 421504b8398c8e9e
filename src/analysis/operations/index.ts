/**
 * What a retry site repeats: the operations inside its retried function (or sent through its
 * client), whether each is a read or a write, the idempotency key it carries and whether that
 * key survives from one attempt to the next. Computed lazily per site, cached with the model.
 *
 * The parts: `file` (per-file facts and words), `classify` (is this call a write?), `http`,
 * `keys` (idempotency keys), `layers` (clients, nested retries, breakers), `vocabulary`.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { unwrap } from '../ast.js';
import { reportInternalError } from '../internal-error.js';
import type { AnalysisContext, LibraryDescriptor } from '../library.js';
import { functionOf, isFunctionNode } from '../library.js';
import type { Node, RetrySite } from '../model.js';
import type { SafeRetrySettings } from '../settings.js';
import { callsItself, createClassifier, withSiteMethods, type Classifier } from './classify.js';
import { cycleReferences, onCycle } from '../call-cycles.js';
import { createImportedValueReader, createMethodResolver, type OpenModule } from './members.js';
import { resolveImport } from '../wrappers/modules.js';
import { createFileFacts, inside, localFunction, type FileFacts } from './file.js';
import { createHttpReader } from './http.js';
import { createKeyReader } from './keys.js';
import { createLayerReader } from './layers.js';
import { runsOnceOnTheWayOut } from './settled.js';
import type { ClientSetting, Operation, OperationAnalysis, OperationFacts, OperationGroup } from './types.js';

export type * from './types.js';
export { inside } from './file.js';

/** Where the linted file is and how to open the files it imports (absent: nothing is followed across files). */
export interface FollowEnvironment {
  readonly filename?: string | undefined;
  readonly open?: OpenModule | undefined;
  /**
   * For a file opened from the linted one (a hook's query function written elsewhere): the sites of
   * the files it imports, so a client configured in a third file is seen under its calls.
   */
  readonly sitesOf?: ((ctx: AnalysisContext) => readonly RetrySite[]) | undefined;
}

export function createOperationAnalysis(
  ctx: AnalysisContext,
  sites: () => readonly RetrySite[],
  settings: SafeRetrySettings,
  libraries: readonly LibraryDescriptor[],
  follow: FollowEnvironment = {},
): OperationAnalysis {
  const cache = new WeakMap<RetrySite, OperationFacts>();
  // The readers are built on the first question: most files have no retry site, and a rule that
  // finds no site never asks one.
  let readers: ReturnType<typeof createReaders> | undefined;
  const parts = () => (readers ??= createReaders(ctx, sites, settings, libraries, follow, repeatedBy));
  const computing = new Set<RetrySite>();

  function facts(site: RetrySite): OperationFacts {
    let f = cache.get(site);
    if (!f) {
      computing.add(site);
      try {
        f = compute(site);
      } catch (error) {
        // What the site repeats is then unknown: no finding rests on it.
        reportInternalError('operations', ctx.sourceCode, error);
        f = NO_FACTS;
      } finally {
        computing.delete(site);
      }
      cache.set(site, f);
    }
    return f;
  }

  /**
   * What another retry of the file repeats when `fn` is its function or the other function of its
   * cycle (`retryRequest` of makeRequest/retryRequest); undefined for any other function, and for a
   * retry whose operations are being worked out (a retry reached from itself).
   */
  function repeatedBy(fn: TSESTree.FunctionLike): readonly Operation[] | undefined {
    // A retry whose operations are being worked out is reached from itself: the next one, if any.
    const site = (retryOf ??= retriesByFunction())(fn).find((s) => !computing.has(s));
    return site ? facts(site).groups.flatMap((g) => g.operations) : undefined;
  }

  /**
   * The hand-written retry each function belongs to, its own or the other function of its cycle,
   * indexed on the first question (a classifier asks it at every call of a function of the file).
   */
  let retryOf: ((fn: TSESTree.FunctionLike) => readonly RetrySite[]) | undefined;
  function retriesByFunction(): (fn: TSESTree.FunctionLike) => readonly RetrySite[] {
    const byFn = new Map<TSESTree.FunctionLike, RetrySite[]>();
    const add = (fn: TSESTree.FunctionLike, site: RetrySite) => {
      const list = byFn.get(fn);
      if (!list) byFn.set(fn, [site]);
      else if (!list.includes(site)) list.push(site);
    };
    for (const site of sites()) {
      if (site.library !== 'hand-written' || !isFunctionNode(site.node)) continue;
      add(site.node, site);
      for (const r of cycleReferences(ctx, site.node)) add(r.via, site);
    }
    return (fn) => byFn.get(fn) ?? [];
  }

  function compute(site: RetrySite): OperationFacts {
    const { file, http, keys, classifier, layers } = parts();
    const groups: OperationGroup[] = [];
    let fn: TSESTree.FunctionLike | undefined;
    let forwarded: Node | undefined;
    if (site.executions?.length) {
      for (const execution of site.executions) {
        const scope = functionOf(execution.operation, ctx);
        groups.push({
          scope,
          execution,
          engineKey: execution.method === 'write' ? keys.engineKeyOf(execution, scope) : undefined,
          operations: scope ? repeatable(classifier.operationsIn(scope, keys.attemptVariables(site, scope)), scope) : [],
        });
      }
      fn = groups[0]?.scope as TSESTree.FunctionLike | undefined;
    } else if (site.clientLevel) {
      const callable = file.descriptorOf(site.library)?.callableClient === true;
      const operations = layers.callsThroughClient(site).map((c) => classifier.throughClient(c, callable)).filter((op): op is Operation => !!op);
      groups.push({ scope: undefined, operations });
    } else {
      const scope = scopeOf(site);
      if (scope) {
        fn = isFunctionNode(scope) ? scope : undefined;
        let operations = classifier.operationsIn(scope, keys.attemptVariables(site, scope));
        // A call of a helper that builds its request from the arguments: the helper's own site
        // says what its code sends, retries and nests; the call adds only the method it passes.
        if (scope === site.node && scope.type === T.CallExpression && site.library.startsWith('wrapper:')) {
          forwarded = scope;
          // Named by the request the helper sends (`fetch() (POST)`), not by the helper's call again.
          operations = operations.filter((op) => op.methodFromCall).map((op) => ({ ...op, label: innerLabel(op.label) }));
        }
        const shownAt = site.operation && !inside(site.operation, scope) && !inside(site.node, scope) && !inside(scope, site.node) ? site.operation : undefined;
        groups.push({ scope, operations: withSiteMethods(site, repeatable(withoutWayBack(site, operations, file), scope), ctx), shownAt });
      }
      // Functions the retry runs again besides its operation (rxjs projections piped before it).
      for (const projection of site.alsoRepeats ?? []) {
        groups.push({ scope: projection, operations: repeatable(classifier.operationsIn(projection, new Set()), projection) });
      }
    }
    const scopes = groups.map((g) => g.scope).filter((s): s is Node => !!s && s !== forwarded);
    const httpCalls = scopes.flatMap(http.callsIn);
    // SDK calls that reject on 4xx by themselves, made in the retried code or in a helper it calls.
    for (const op of groups.flatMap((g) => (g.scope && g.scope !== forwarded ? g.operations : []))) {
      if (op.rejectingSdk && op.node.type === T.CallExpression && !httpCalls.some((c) => c.node === op.node)) {
        const errorStatus = libraries.find((l) => l.id === op.rejectingSdk)?.operations?.errorStatus;
        httpCalls.push({ node: op.node, client: op.rejectingSdk, throwsOnClientError: true, sdk: true, errorStatus });
      }
    }
    return { fn, httpCalls, groups, nested: scopes.flatMap((s) => layers.nestedIn(site, s)) };
  }

  /** The operations another attempt may perform again: not those made on the way out that cannot fail. */
  function repeatable(operations: Operation[], scope: Node): Operation[] {
    return operations.filter((op) => !runsOnceOnTheWayOut(op.node, scope, ctx));
  }

  function scopeOf(site: RetrySite): Node | undefined {
    const fn = functionOf(site.operation, ctx);
    if (fn) return fn;
    if (site.library === 'hand-written') return site.node;
    const method = site.operation && methodReference(site.operation);
    if (method) return method;
    // An observable resubscribed by rxjs `retry()`: the call that builds it is what repeats
    // (`this.http.post(...)`, `defer(() => axios.post(...))`, `from(fetch(...))`, `next.handle(req)`).
    const source = site.operation ? unwrap(site.operation) : undefined;
    if (source?.type === T.CallExpression && !inside(source, site.node)) return source;
    // A call of a helper that builds the retried request from its arguments (`fetchRetry(url, {
    // method: 'POST' })`, a forwarding helper): the call stands for the request, what it passes
    // for what is sent.
    if (source?.type === T.CallExpression && source === site.node && site.library.startsWith('wrapper:')) return source;
    return undefined;
  }

  /** A method handed over by reference, `this.create` or `this.create.bind(this)`: the method of this file it runs. */
  let resolver: ReturnType<typeof createMethodResolver> | undefined;
  function methodReference(operation: Node): TSESTree.FunctionLike | undefined {
    let n = unwrap(operation);
    if (n.type === T.CallExpression && n.callee.type === T.MemberExpression && !n.callee.computed && n.callee.property.type === T.Identifier && n.callee.property.name === 'bind') n = unwrap(n.callee.object);
    if (n.type !== T.MemberExpression || unwrap(n.object).type !== T.ThisExpression) return undefined;
    const target = (resolver ??= createMethodResolver(ctx, undefined, undefined)).methodOf(n);
    return target?.ctx === ctx ? target.fn : undefined;
  }

  /** Sites by their node, for the calls through a client that are sites of their own. */
  let byNode: Map<Node, RetrySite> | undefined;
  function overriddenByEveryCall(site: RetrySite, setting: ClientSetting): boolean {
    let calls: TSESTree.CallExpression[] | undefined;
    try {
      calls = site.clientLevel ? parts().layers.onlyUses(site) : undefined;
    } catch (error) {
      reportInternalError('client uses', ctx.sourceCode, error);
      return false;
    }
    if (!calls?.length) return false;
    byNode ??= new Map(sites().map((s) => [s.node, s]));
    return calls.every((call) => {
      const own = byNode!.get(call)?.[setting].node;
      return !!own && inside(call, own);
    });
  }

  return {
    facts,
    clientSitesOf: (call) => parts().layers.clientSitesOf(call),
    breakerOf: (site) => parts().layers.breakerOf(site, facts(site).groups),
    overriddenByEveryCall,
  };
}

/**
 * A recursion's ways back (`if (failed) { await res.body.cancel(); await sleep(ms); return again(); }`):
 * what a branch that calls again does before that call is the failure's handling (discarding the
 * body, logging, a repair), run once per failure, not the operation the retry repeats.
 */
function withoutWayBack(site: RetrySite, operations: Operation[], file: FileFacts): Operation[] {
  if (site.library !== 'hand-written' || !isFunctionNode(site.node) || operations.length === 0) return operations;
  const { ctx } = file;
  const handling: { branch: Node; before: number }[] = [];
  for (const call of file.callsIn(site.node)) {
    if (!callsItself(call, ctx) && !onCycle(ctx, call)) continue;
    // The branch taken on the failure: an `if`'s side or a catch clause's body around the call.
    let child: Node = call;
    for (let p: Node | undefined = call.parent; p && p !== site.node; p = p.parent) {
      if ((p.type === T.IfStatement && p.test !== child) || p.type === T.CatchClause) {
        handling.push({ branch: child, before: call.range[0] });
        break;
      }
      child = p;
    }
  }
  if (handling.length === 0) return operations;
  return operations.filter((op) => !handling.some((h) => inside(h.branch, op.node) && op.node.range[1] <= h.before));
}

/** `fetchRetry() (fetch() (POST))`: the part in the outer parentheses, the request a helper's call sends. */
function innerLabel(label: string): string {
  const open = label.indexOf(' (');
  return open > 0 && label.endsWith(')') ? label.slice(open + 2, -1) : label;
}

/** A site whose operations could not be read: nothing is known of what it repeats. */
const NO_FACTS: OperationFacts = { fn: undefined, httpCalls: [], groups: [], nested: [] };

function createReaders(ctx: AnalysisContext, sites: () => readonly RetrySite[], settings: SafeRetrySettings, libraries: readonly LibraryDescriptor[], follow: FollowEnvironment, repeatedBy: (fn: TSESTree.FunctionLike) => readonly Operation[] | undefined) {
  const file = createFileFacts(ctx, settings, libraries);
  // The files opened from here, by path: a method followed into one of them may send its request
  // through a client that file imports (an axios instance created in a third file).
  const paths = new WeakMap<AnalysisContext, string>();
  const open: OpenModule | undefined = follow.open && ((specifier, from) => {
    const other = follow.open!(specifier, from);
    const path = other && !paths.has(other) ? resolveImport(specifier, from) : undefined;
    if (other && path) paths.set(other, path);
    return other;
  });
  const importedValueOf = createImportedValueReader(ctx, follow.filename, open);
  const http = createHttpReader(file, importedValueOf);
  const keys = createKeyReader(file);
  // Another file's methods are classified by a classifier of that file (which follows no further file).
  const foreign = new WeakMap<AnalysisContext, Classifier>();
  const classifierOf = (other: AnalysisContext): Classifier => {
    if (other === ctx) return classifier;
    let c = foreign.get(other);
    if (!c) {
      const otherFile = createFileFacts(other, settings, libraries);
      const otherHttp = createHttpReader(otherFile, createImportedValueReader(other, paths.get(other), follow.open));
      c = createClassifier(otherFile, otherHttp, createKeyReader(otherFile), { resolver: createMethodResolver(other, undefined, undefined), classifierOf: () => c! });
      foreign.set(other, c);
    }
    return c;
  };
  const resolver = createMethodResolver(ctx, follow.filename, open);
  const classifier: Classifier = createClassifier(file, http, keys, { resolver, classifierOf, repeatedBy });
  // A function or method of this file a retried call runs (its own retries nest under the caller's).
  const localCallee = (call: TSESTree.CallExpression): TSESTree.FunctionLike | undefined => {
    const local = localFunction(call.callee, ctx);
    if (local) return local;
    const callee = unwrap(call.callee);
    if (callee.type !== T.MemberExpression) return undefined;
    const object = unwrap(callee.object);
    // Only this file's objects and classes: an imported object's methods are another file's business.
    if (object.type !== T.ThisExpression && (object.type !== T.Identifier || ctx.imports.resolve(object))) return undefined;
    const target = resolver.methodOf(call.callee);
    return target?.ctx === ctx ? target.fn : undefined;
  };
  const layers = createLayerReader(file, sites, classifier, http, localCallee, follow.sitesOf && { value: importedValueOf, sites: follow.sitesOf });
  return { file, http, keys, classifier, layers };
}
