/**
 * Retry layers around and under a site: the clients a retry configuration applies to (and the calls
 * sent through them), other retries nested inside the retried code, and the circuit breaker a site
 * is composed with.
 */
import { basename } from 'node:path';
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { BreakerQuery, BuiltInRetryFacet, ImportedValue, LibraryDescriptor } from '../library.js';
import type { Node, RetrySite } from '../model.js';
import { enclosingFunction, findVariable, isFunctionNode, lookupProperty, memberRoot, patternKey, unwrap, walk } from '../ast.js';
import { onCycle } from '../call-cycles.js';
import { callsItself, type Classifier } from './classify.js';
import { runsOnceOnTheWayOut } from './settled.js';
import type { HttpReader } from './http.js';
import { callLabel, inside, type FileFacts } from './file.js';
import type { NestedRetry, OperationGroup, Variable } from './types.js';
import { instanceReferences } from '../libraries/sdk-shared.js';

export interface LayerReader {
  clientSitesOf(call: Node): readonly RetrySite[];
  /** The calls sent through the client a client-level site configures. */
  callsThroughClient(site: RetrySite): TSESTree.CallExpression[];
  /**
   * Those calls when they are the client's only uses: bound to a variable of this file that is not
   * exported and whose every other reference is such a call. Undefined when the client may be used
   * elsewhere (exported, handed on, kept on an instance).
   */
  onlyUses(site: RetrySite): TSESTree.CallExpression[] | undefined;
  nestedIn(site: RetrySite, scope: Node): NestedRetry[];
  breakerOf(site: RetrySite, groups: readonly OperationGroup[]): Node | undefined;
}

/** The function of this file a call runs (`load()`, `this.getAddress(id)`), when it is known. */
export type LocalCallee = (call: TSESTree.CallExpression) => TSESTree.FunctionLike | undefined;

/**
 * How a file's analysis reaches the files it imports: the exported value an imported name stands
 * for, and the sites of the file that value is written in. The linted file's context has both; a
 * file opened for a hook's query function gets them from the project access that opened it.
 */
export interface ImportedSitesAccess {
  readonly value: (id: TSESTree.Identifier) => ImportedValue | undefined;
  readonly sites: (ctx: FileFacts['ctx']) => readonly RetrySite[];
}

export function createLayerReader(file: FileFacts, sites: () => readonly RetrySite[], classifier: Classifier, http: HttpReader, localCallee?: LocalCallee, access?: ImportedSitesAccess): LayerReader {
  const { ctx } = file;
  const reach: ImportedSitesAccess | undefined = ctx.project && ctx.importedValue
    ? { value: (id) => ctx.importedValue!(id), sites: (other) => ctx.project!.sites(other) }
    : access;
  let clientMap: Map<Variable, RetrySite[]> | undefined;
  let memberMap: Map<Node, RetrySite[]> | undefined;
  /** The file name of another file's client sites met here, for messages. */
  const openedIn = new Map<RetrySite, string>();
  const importedClients = new Map<string, readonly RetrySite[]>();
  const importedRetries = new Map<string, readonly RetrySite[]>();
  const breakers = file.libraries.filter((l) => l.breaker);
  const builtIn = file.libraries.filter((l) => l.builtInRetry);
  /** Libraries whose client this file builds: its site says how that client retries, not the defaults. */
  let builtHere: Set<string> | undefined;
  let nodesOfSites: Set<Node> | undefined;
  const siteNodes = () => (nodesOfSites ??= new Set(sites().map((s) => s.node)));

  function clientVariables(): Map<Variable, RetrySite[]> {
    if (clientMap) return clientMap;
    const map = new Map<Variable, RetrySite[]>();
    const add = (v: Variable | undefined, site: RetrySite) => {
      if (!v) return;
      const list = map.get(v) ?? [];
      list.push(site);
      map.set(v, list);
    };
    for (const site of sites()) {
      if (!site.clientLevel || site.executions) continue;
      const parent = site.node.parent;
      if (parent?.type === T.VariableDeclarator && parent.init === site.node && parent.id.type === T.Identifier) {
        add(ctx.sourceCode.getDeclaredVariables(parent)[0], site);
      }
      const target = site.operation && unwrap(site.operation);
      if (target?.type === T.Identifier) add(findVariable(ctx.evaluator.scopeOf(target), target.name), site);
    }
    return (clientMap = map);
  }

  /**
   * Clients kept on the instance (`private s3 = new S3Client()`, `this.web = new WebClient(t)`):
   * each `this.s3` read inside the class, to the client-level sites that build it.
   */
  function clientMembers(): Map<Node, RetrySite[]> {
    if (memberMap) return memberMap;
    const map = new Map<Node, RetrySite[]>();
    for (const site of sites()) {
      if (!site.clientLevel || site.executions || site.node.parent?.type === T.VariableDeclarator) continue;
      for (const ref of instanceReferences(site.node, ctx)) {
        if (ref.type !== T.MemberExpression) continue;
        const list = map.get(ref) ?? [];
        list.push(site);
        map.set(ref, list);
      }
    }
    return (memberMap = map);
  }

  function clientSitesOf(call: Node): readonly RetrySite[] {
    if (call.type !== T.CallExpression) return [];
    let root: Node = unwrap(call.callee);
    while (root.type === T.MemberExpression || root.type === T.CallExpression) {
      // `this.s3.send(...)`: the receiver is a client the class keeps.
      if (root.type === T.MemberExpression && unwrap(root.object).type === T.ThisExpression) {
        return clientMembers().get(root) ?? [];
      }
      root = unwrap(root.type === T.MemberExpression ? root.object : root.callee);
    }
    if (root.type !== T.Identifier) return [];
    const v = findVariable(ctx.evaluator.scopeOf(root), root.name);
    if (!v) return [];
    return clientVariables().get(v) ?? (clientVariables().size ? pickedClients(v, ctx, clientVariables(), localCallee) : []);
  }

  function callsThroughClient(site: RetrySite): TSESTree.CallExpression[] {
    const out: TSESTree.CallExpression[] = [];
    // `api(url)` sends a request only when the client itself is callable (got, ky, a fetch-retry fetch).
    const callable = file.descriptorOf(site.library)?.callableClient === true;
    for (const [v, list] of clientVariables()) {
      if (!list.includes(site)) continue;
      for (const ref of v.references) {
        let n: Node = ref.identifier as Node;
        while (n.parent?.type === T.MemberExpression && n.parent.object === n) n = n.parent;
        if (n.parent?.type === T.CallExpression && n.parent.callee === n && (n !== ref.identifier || callable)) out.push(n.parent);
      }
    }
    // A client kept on the instance (`this.web = new WebClient(token)`, a class field): its uses
    // are `this.web.chat.postMessage(...)` inside the class.
    const parent = site.node.parent;
    if (out.length === 0 && !site.executions && parent?.type !== T.VariableDeclarator) {
      for (const ref of instanceReferences(site.node, ctx)) {
        let n: Node = ref;
        while (n.parent?.type === T.MemberExpression && n.parent.object === n) n = n.parent;
        if (n.parent?.type === T.CallExpression && n.parent.callee === n && (n !== ref || callable)) out.push(n.parent);
      }
    }
    return out;
  }

  function onlyUses(site: RetrySite): TSESTree.CallExpression[] | undefined {
    if (!site.clientLevel || site.executions) return undefined;
    const variables = [...clientVariables()].filter(([, list]) => list.includes(site)).map(([v]) => v);
    if (variables.length !== 1) return undefined;
    const v = variables[0]!;
    const declaration = v.defs[0]?.parent;
    if (v.defs.length !== 1 || declaration?.parent?.type === T.ExportNamedDeclaration) return undefined;
    const calls = callsThroughClient(site);
    const callees = new Set(calls.map((c) => memberRoot(c.callee)));
    for (const ref of v.references) {
      if (ref.init) continue;
      if (!callees.has(ref.identifier as Node)) return undefined;
    }
    return calls;
  }

  function nestedIn(site: RetrySite, scope: Node): NestedRetry[] {
    const out: NestedRetry[] = [];
    const defaults = new Set<BuiltInRetryFacet>();
    const layered = new Set<RetrySite>();
    // Retries a call of a function of the file may run: outside this scope (those inside are counted
    // above), with a count. Most scopes have none, and then no callee is looked up.
    const elsewhere = localCallee ? sites().filter((other) => other !== site && !inside(scope, other.node) && mayRunInside(other)) : [];
    for (const other of sites()) {
      if (other === site || !inside(scope, other.node)) continue;
      const a = layerAttempts(other);
      // A retrying helper called on the way out that cannot fail runs once: nothing multiplies it.
      if (a === undefined || ((other.node.type === T.CallExpression || other.node.type === T.NewExpression) && runsOnceOnTheWayOut(other.node, scope, ctx))) continue;
      out.push({ node: other.reportNode, label: other.label, attempts: a, site: other });
    }
    for (const call of file.callsIn(scope)) {
      const clients = clientLayers(call, scope, defaults);
      out.push(...clients);
      // A call of a function of this file whose body sends through a retrying client (`this.put(key)`
      // where `put` calls `this.s3.send(...)`): that client's retries are a layer under this one.
      if (clients.length === 0 && !siteNodes().has(call)) {
        for (const inner of clientLayersRunBy(call, site, scope, defaults)) {
          if (inner.site && layered.has(inner.site)) continue;
          if (inner.site) layered.add(inner.site);
          out.push({ ...inner, node: call, label: `${callLabel(call, ctx)} (${inner.label})` });
        }
      }
      // A call of a function of this file that retries on its own (`this.getAddress(id)` whose body
      // pipes the request through `retry(3)`): that retry is a layer under this one.
      if (elsewhere.length && !siteNodes().has(call)) {
        for (const inner of retriesRunBy(call, site, scope, elsewhere)) {
          if (layered.has(inner)) continue;
          layered.add(inner);
          out.push({ node: call, label: `${callLabel(call, ctx)} (${inner.label})`, attempts: layerAttempts(inner)!, site: inner });
        }
      }
      // A call of a function another file of the project exports that retries on its own
      // (`updateShard(id)` whose body loops over its PATCH): that retry is a layer under this one.
      if (clients.length === 0 && !siteNodes().has(call)) {
        for (const inner of importedRetriesRunBy(call, scope)) {
          if (layered.has(inner)) continue;
          layered.add(inner);
          out.push({ node: call, label: `${callLabel(call, ctx)} (${inner.label} in ${openedIn.get(inner) ?? 'another file'})`, attempts: layerAttempts(inner)! });
        }
      }
    }
    return out;
  }

  /**
   * The retrying clients a call sends through: a client configured in this file (a variable, or
   * one the class keeps), one configured in another file of the project and imported, or a
   * library's built-in retries by default (once per library per site: `defaults`). A call that is
   * a retry site of its own (`ky.get(url, { retry: 0 })`) is judged by what it writes, elsewhere.
   */
  function clientLayers(call: TSESTree.CallExpression, scope: Node, defaults: Set<BuiltInRetryFacet>): NestedRetry[] {
    const out: NestedRetry[] = [];
    const local = clientSitesOf(call);
    // A client configured in another file of the project and imported here (`api` of `api.ts`,
    // where `axiosRetry(api, {...})` is written): that file's site says how it retries.
    const imported = local.length || siteNodes().has(call) ? [] : importedClientSites(call);
    const foreign = imported.length > 0;
    const clients = foreign ? imported : local;
    // `api.get(url).json()`: the request is `api.get(url)`; the call on its result sends nothing
    // more through the client, so the layer is reported once, at the request.
    const request = clients.length ? innerCall(call) : undefined;
    const sent = request ? clientSitesOf(request) : [];
    for (const client of clients) {
      if (sent.includes(client)) continue;
      if (client.connection === 'reconnection') continue;
      const a = client.attempts.value;
      if (typeof a !== 'number' || a <= 1) continue;
      const op = classifier.classify(call, new Set(), scope, 2);
      // Clients that only retry idempotent methods do not repeat this write; an SDK client's own
      // retries (the AWS SDK's, Stripe's) re-send writes too, as its descriptor says.
      const retriesWrites = client.retriesWrites?.value ?? file.descriptorOf(client.library)?.builtInRetry?.retriesWrites;
      if (op?.kind === 'write' && retriesWrites !== true) continue;
      // Another file's site names its file, and offers no edit here (its nodes are not this file's).
      if (foreign) out.push({ node: call, label: `${callLabel(call, ctx)} (${client.label} in ${openedIn.get(client) ?? 'another file'})`, attempts: a });
      else out.push({ node: call, label: `${callLabel(call, ctx)} (${client.label})`, attempts: a, site: client });
    }
    if (clients.length === 0 && builtIn.length > 0 && !siteNodes().has(call)) {
      const facet = builtInRetryOf(call);
      // One finding per layer: a second call through the same client says nothing new.
      if (facet && !defaults.has(facet) && (facet.retriesWrites || classifier.classify(call, new Set(), scope, 2)?.kind !== 'write')) {
        defaults.add(facet);
        out.push({ node: call, label: `${callLabel(call, ctx)} (${facet.label}, by default)`, attempts: facet.attempts });
      }
    }
    return out;
  }

  /**
   * The client layers a call of a function of this file runs: the retrying clients its body sends
   * through (retriesRunBy's rule for which functions: not the outer retry itself, not on a cycle,
   * not on the way out), and those of the functions of the file it calls in turn, two calls deep.
   */
  function clientLayersRunBy(call: TSESTree.CallExpression, outer: RetrySite, scope: Node, defaults: Set<BuiltInRetryFacet>, depth = 0, seen = new Set<TSESTree.FunctionLike>()): NestedRetry[] {
    const fn = localCallee?.(call);
    if (!fn || seen.has(fn) || inside(fn, outer.node) || inside(outer.node, fn) || callsItself(call, ctx) || onCycle(ctx, call)) return [];
    if (runsOnceOnTheWayOut(call, scope, ctx)) return [];
    seen.add(fn);
    const out: NestedRetry[] = [];
    for (const inner of file.callsIn(fn)) {
      // Only calls that run when the function does (not in a function it only defines or returns).
      if (!runsWith(inner, fn)) continue;
      const found = clientLayers(inner, fn, defaults);
      out.push(...found);
      if (found.length === 0 && depth < 1 && !siteNodes().has(inner)) out.push(...clientLayersRunBy(inner, outer, fn, defaults, depth + 1, seen));
    }
    return out;
  }

  /** The default retries of the client a call goes through, when its construction is not in this file. */
  function builtInRetryOf(call: TSESTree.CallExpression): BuiltInRetryFacet | undefined {
    builtHere ??= new Set(sites().filter((s) => s.clientLevel).map((s) => s.library));
    const usable = (l: LibraryDescriptor) => !builtHere!.has(l.id);
    const request = http.requestOf(call);
    if (request) {
      const library = file.descriptorOf(request.client);
      const facet = library?.builtInRetry;
      if (!library || !facet) return undefined;
      // `ky.get(url)` goes through the module's own default instance whatever instances the file
      // also creates (`ky.create({...})`): their configuration says nothing about it.
      if (facet.moduleCallsOnly) return throughModule(call, library) ? facet : undefined;
      return usable(library) ? facet : undefined;
    }
    for (const library of builtIn) {
      if (!usable(library)) continue;
      const facet = library.builtInRetry!;
      if (facet.matches?.(call, ctx) || library.operations?.classify(call, ctx) !== undefined) return facet;
    }
    return undefined;
  }

  /**
   * The client-level sites of another file of the project that configure the client a call goes
   * through, when its receiver is an imported binding: `export const api = axios.create()` with
   * `axiosRetry(api, ...)` there, `export const kapi = ky.create({ retry })`. Read once per version
   * of that file; what cannot be read is no site.
   */
  function importedClientSites(call: TSESTree.CallExpression): readonly RetrySite[] {
    const root = memberRoot(call.callee);
    return root.type === T.Identifier ? importedSites(root, importedClients, (value) => {
      const declarator = value.node.parent;
      if (declarator?.type !== T.VariableDeclarator || declarator.init !== value.node || declarator.id.type !== T.Identifier) return undefined;
      const variable = value.ctx.sourceCode.scopeManager?.getDeclaredVariables(declarator)[0];
      if (!variable) return undefined;
      return (site) => {
        if (!site.clientLevel || site.executions) return false;
        const target = site.operation && unwrap(site.operation);
        return site.node === value.node || (target?.type === T.Identifier && variable.references.some((r) => r.identifier === target));
      };
    }) : [];
  }

  /**
   * The retries a call of an imported function runs, when another file of the project exports it:
   * that file's sites in the function's body that run with it (retriesRunBy's rule). Only a plain
   * call of the binding (`load(id)`); what cannot be opened or read is no layer.
   */
  function importedRetriesRunBy(call: TSESTree.CallExpression, scope: Node): readonly RetrySite[] {
    const callee = unwrap(call.callee);
    if (callee.type !== T.Identifier || runsOnceOnTheWayOut(call, scope, ctx)) return [];
    return importedSites(callee, importedRetries, (value) => {
      const fn = isFunctionNode(value.node) ? value.node : undefined;
      // The function itself may be the retry (a recursion): calling it from outside runs it.
      return fn && ((other) => inside(fn, other.node) && mayRunInside(other) && (other.node === fn || runsWith(other.node, fn)));
    });
  }

  /**
   * Sites of the project file an imported binding comes from, chosen by `select` (given the
   * exported value, it returns the test of each of that file's sites, or undefined for none).
   * Every call through one binding asks the same: read once per binding per reader, and once per
   * version of that file (ProjectAccess.sites). Each site found is named with its file for messages.
   */
  function importedSites(id: TSESTree.Identifier, cache: Map<string, readonly RetrySite[]>, select: (value: ImportedValue) => ((site: RetrySite) => boolean) | undefined): readonly RetrySite[] {
    if (!reach) return [];
    const ref = ctx.imports.resolve(id);
    if (!ref) return [];
    const key = `${ref.module}\0${ref.path}`;
    let found = cache.get(key);
    if (!found) {
      const value = reach.value(id);
      const keep = value && select(value);
      found = value && keep ? reach.sites(value.ctx).filter(keep) : [];
      if (value?.ctx.file) for (const site of found) openedIn.set(site, basename(value.ctx.file));
      cache.set(key, found);
    }
    return found;
  }

  /**
   * The retries a call of a function of this file runs: sites in its body (not in a function it only
   * defines), with a known count above one, that are not the outer retry itself (a recursion, the
   * other function of a cycle) and not a client it builds (building one sends nothing).
   */
  function retriesRunBy(call: TSESTree.CallExpression, outer: RetrySite, scope: Node, candidates: readonly RetrySite[]): RetrySite[] {
    const fn = localCallee!(call);
    // A function written inside the outer retry has its retries inside it too: counted above.
    if (!fn || inside(fn, outer.node) || inside(outer.node, fn) || callsItself(call, ctx) || onCycle(ctx, call)) return [];
    // A call on the way out that cannot fail runs once, whatever the outer retry does.
    if (runsOnceOnTheWayOut(call, scope, ctx)) return [];
    return candidates.filter((other) => other.node !== fn && inside(fn, other.node) && runsWith(other.node, fn));
  }

  /**
   * The calls a site makes as a layer under another retry: its known count above one. Undefined for
   * a durable engine and for a connection re-established while the client lives (no retry of the
   * calls made through it).
   */
  function layerAttempts(other: RetrySite): number | undefined {
    if (other.kind === 'durable' || other.connection === 'reconnection') return undefined;
    const a = other.attempts.value;
    return typeof a === 'number' && a > 1 ? a : undefined;
  }

  /** A site that is a retry of its own when a function holding it runs: a layer, not a client it builds. */
  function mayRunInside(other: RetrySite): boolean {
    return !other.clientLevel && !other.executions && layerAttempts(other) !== undefined;
  }

  /** Whether code in `fn` runs when `fn` does: no function between them but callbacks handed to a call. */
  function runsWith(node: Node, fn: TSESTree.FunctionLike): boolean {
    // A site that is a function (a recursion) runs when that function is called, not where it is defined.
    for (let f = isFunctionNode(node) ? node : enclosingFunction(node); f && f !== fn; f = enclosingFunction(f)) {
      const p = f.parent;
      if (p?.type !== T.CallExpression || !p.arguments.includes(f as TSESTree.CallExpressionArgument)) return false;
    }
    return true;
  }

  /** The nearest call the callee is made on (`api.get(url)` in `api.get(url).json()`), if any. */
  function innerCall(call: TSESTree.CallExpression): TSESTree.CallExpression | undefined {
    const n = memberRoot(call.callee);
    return n.type === T.CallExpression ? n : undefined;
  }

  /** Whether a call goes through the library's module export itself (`ky.get(url)`, `ky(url)`), not an instance of it. */
  function throughModule(call: TSESTree.CallExpression, library: LibraryDescriptor): boolean {
    const root = memberRoot(call.callee);
    const ref = root.type === T.Identifier ? ctx.imports.resolve(root) : undefined;
    return !!ref && library.modules.includes(ref.module) && (ref.path === 'default' || ref.path === 'module');
  }

  function breakerOf(site: RetrySite, groups: readonly OperationGroup[]): Node | undefined {
    // Composed by the retry library itself (cockatiel `wrap(retry, breaker)`, the runtime's `breaker`).
    if (site.breaker) return site.breaker;
    const query: BreakerQuery = { site, scopes: groups.flatMap((g) => (g.scope ? [g.scope] : [])), callsIn: file.callsIn };
    for (const library of breakers) {
      const found = library.breaker!.find(query, ctx);
      if (found) return found;
    }
    return undefined;
  }

  return { clientSitesOf, callsThroughClient, onlyUses, nestedIn, breakerOf };
}

/**
 * A client a function of the file hands back: `const { client } = getClientAndBucket(to)` where
 * every return is an object literal whose `client` is one of the file's clients
 * (`to === 'INGEST' ? s3IngestClient : s3PublicClient`), or `const s3 = clientFor(region)` whose
 * returns are. Every return must name clients (through `?:`, `??` and `||`): one that does not
 * leaves the receiver unknown (no layer).
 */
function pickedClients(v: Variable, ctx: FileFacts['ctx'], clients: ReadonlyMap<Variable, RetrySite[]>, localCallee: LocalCallee | undefined): RetrySite[] {
  const def = v.defs.length === 1 ? v.defs[0] : undefined;
  const declarator = def?.type === 'Variable' ? (def.node as TSESTree.VariableDeclarator) : undefined;
  const init = declarator?.init && unwrap(declarator.init);
  const call = init?.type === T.AwaitExpression ? unwrap(init.argument) : init;
  if (!declarator || call?.type !== T.CallExpression || v.references.some((r) => r.isWrite() && !r.init)) return [];
  // The key the variable is taken from: none for `const s3 = f()`, `client` for `const { client } = f()`.
  let key: string | undefined;
  if (declarator.id.type === T.ObjectPattern) {
    const property = declarator.id.properties.find((p) => p.type === T.Property && unwrap(p.value as Node) === def!.name);
    key = property?.type === T.Property ? patternKey(property) : undefined;
    if (key === undefined) return [];
  } else if (declarator.id !== def!.name) return [];
  const fn = localCallee?.(call);
  if (!fn?.body) return [];
  const returned: Node[] = [];
  if (fn.body.type !== T.BlockStatement) returned.push(fn.body);
  else walk(fn.body, (n) => { if (n.type === T.ReturnStatement) returned.push(n.argument ?? n); }, { skipFunctions: true });
  const out = new Set<RetrySite>();
  for (const r of returned) {
    let value: Node | undefined = unwrap(r);
    if (key !== undefined) {
      if (value.type !== T.ObjectExpression) return [];
      const found = lookupProperty(value, key, (n) => ctx.evaluator.scopeOf(n));
      value = found.state === 'present' ? found.value : undefined;
    }
    if (!value || !namedClients(value, out, ctx, clients)) return [];
  }
  // One layer whichever client is picked: the one that retries least, what every pick certainly does.
  const counted = [...out].filter((site) => typeof site.attempts.value === 'number');
  if (counted.length !== out.size) return [];
  return counted.length ? [counted.reduce((a, b) => ((b.attempts.value as number) < (a.attempts.value as number) ? b : a))] : [];
}

/** Adds the clients an expression names (`a ? b : c`, `a ?? b`); false when a branch is no client of the file. */
function namedClients(expr: Node, out: Set<RetrySite>, ctx: FileFacts['ctx'], clients: ReadonlyMap<Variable, RetrySite[]>): boolean {
  const e = unwrap(expr);
  if (e.type === T.ConditionalExpression) return namedClients(e.consequent, out, ctx, clients) && namedClients(e.alternate, out, ctx, clients);
  if (e.type === T.LogicalExpression && e.operator !== '&&') return namedClients(e.left, out, ctx, clients) && namedClients(e.right, out, ctx, clients);
  if (e.type !== T.Identifier) return false;
  const v = findVariable(ctx.evaluator.scopeOf(e), e.name);
  const sitesOfIt = v && clients.get(v);
  if (!sitesOfIt) return false;
  for (const site of sitesOfIt) out.add(site);
  return true;
}
