/**
 * Idempotency keys: where a call carries one, and whether its value survives from one attempt to
 * the next (`stable`), is made anew on every attempt (`fresh`), or cannot be told (`unknown`).
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { isFunctionNode } from '../library.js';
import type { Execution, Node, RetrySite } from '../model.js';
import { findVariable, staticPropertyName, unwrap } from '../ast.js';
import { inside, type FileFacts } from './file.js';
import type { IdempotencyKey, Variable } from './types.js';

/** Generators whose every call returns a new value. */
const FRESH_EXPORTS: Record<string, readonly string[]> = {
  crypto: ['randomUUID', 'randomBytes', 'randomInt', 'getRandomValues'],
  uuid: ['v1', 'v4', 'v6', 'v7', 'default'],
  nanoid: ['nanoid', 'default'],
  'nanoid/non-secure': ['nanoid'],
  ulid: ['ulid', 'monotonicFactory', 'default'],
  ulidx: ['ulid'],
  cuid: ['default', 'module'],
  '@paralleldrive/cuid2': ['createId'],
  'short-uuid': ['generate'],
  hyperid: ['default', 'module'],
  'eslint-plugin-safe-retry/runtime': ['idempotencyKey.random'],
};
const FRESH_GLOBALS = new Set(['Date.now', 'performance.now', 'Math.random', 'crypto.randomUUID', 'crypto.getRandomValues', 'process.hrtime', 'process.hrtime.bigint']);

type Freshness = Pick<IdempotencyKey, 'stability' | 'freshSource'>;

export interface KeyReader {
  /**
   * The key a call carries in its arguments (headers, body, SDK request options). `body` is the
   * argument that is the request's body when the client says so: a `headers` object in it is data.
   */
  keyOf(call: TSESTree.CallExpression, attemptVars: Set<Variable>, scope: Node | undefined, body?: number): IdempotencyKey | undefined;
  /** The key given to the retry engine itself (the runtime's `write({ idempotencyKey }, fn)`). */
  engineKeyOf(execution: Execution, scope: Node | undefined): IdempotencyKey | undefined;
  /** A key a helper reads from its parameter takes its stability from the argument passed in. */
  mapKeyToCall(key: IdempotencyKey, fn: TSESTree.FunctionLike, call: TSESTree.CallExpression, attemptVars: Set<Variable>, scope: Node | undefined): IdempotencyKey;
  /** Variables whose value differs on every attempt: the attempt-number parameter, loop counters. */
  attemptVariables(site: RetrySite, scope: Node): Set<Variable>;
}

export function createKeyReader(file: FileFacts): KeyReader {
  const { ctx } = file;
  const variableOf = (id: TSESTree.Identifier) => findVariable(ctx.evaluator.scopeOf(id), id.name);

  function keyOf(call: TSESTree.CallExpression, attemptVars: Set<Variable>, scope: Node | undefined, body?: number): IdempotencyKey | undefined {
    const seen = new Set<Node>();
    let found: { property: Node; value: Node } | undefined;
    for (const [i, arg] of call.arguments.entries()) {
      found = findKeyProperty([arg], 0, seen, i === body);
      if (found) break;
    }
    if (!found) return undefined;
    return { node: found.property, value: found.value, ...freshness(found.value, attemptVars, scope) };
  }

  function findKeyProperty(nodes: readonly Node[], depth: number, seen: Set<Node>, inBody = false): { property: Node; value: Node } | undefined {
    if (depth > 6) return undefined;
    const keyNames = file.words().keyNames;
    for (const raw of nodes) {
      const node = unwrap(raw);
      if (seen.has(node)) continue;
      seen.add(node);
      let found: { property: Node; value: Node } | undefined;
      switch (node.type) {
        case T.ObjectExpression:
          for (const p of node.properties) {
            if (p.type === T.SpreadElement) {
              found = findKeyProperty([p.argument], depth + 1, seen, inBody);
            } else {
              const name = staticPropertyName(p);
              if (name !== undefined && keyNames.has(name.toLowerCase()) && p.kind === 'init') return { property: p, value: p.value as Node };
              // `post(url, { headers: { 'Idempotency-Key': k } })` through axios sends that object as JSON.
              if (inBody && name?.toLowerCase() === 'headers') continue;
              if (!isFunctionNode(p.value as Node)) found = findKeyProperty([p.value as Node], depth + 1, seen, inBody);
            }
            if (found) return found;
          }
          break;
        case T.Identifier: {
          const resolved = ctx.evaluator.resolve(node);
          if (resolved !== node) found = findKeyProperty([resolved], depth + 1, seen, inBody);
          break;
        }
        case T.CallExpression:
        case T.NewExpression:
          // JSON.stringify({ idempotency_key }), new Headers({...}), new PutCommand({ ClientToken }).
          // headers.set('Idempotency-Key', key) is handled by the caller's statements, not here.
          found = findKeyProperty(node.arguments.filter((a) => a.type !== T.SpreadElement) as Node[], depth + 1, seen);
          break;
        case T.ArrayExpression:
          // [['Idempotency-Key', key]] as a headers init.
          for (const el of node.elements) {
            const e = el && unwrap(el);
            if (e?.type === T.ArrayExpression && e.elements.length === 2 && e.elements[0] && e.elements[1]) {
              const name = ctx.evaluator.evaluate(e.elements[0]);
              if (typeof name === 'string' && keyNames.has(name.toLowerCase())) return { property: e, value: e.elements[1] as Node };
            }
          }
          break;
        default:
          break;
      }
      if (found) return found;
    }
    return undefined;
  }

  /**
   * Whether a key expression gets a new value on every attempt. Only provable sources count:
   * random/time generators and the attempt counter, reached through locals and string building.
   */
  function freshness(raw: Node, attemptVars: Set<Variable>, scope: Node | undefined): Freshness {
    // Calls through a retrying client: the client re-sends the request it was given, key included.
    if (!scope) return { stability: 'stable' };
    // Evaluated outside the retried code (the runtime's write options): once per call, not per attempt.
    if (!inside(scope, raw)) return { stability: 'stable' };
    const fresh = freshSourceOf(raw, attemptVars, scope, 0, new Set());
    return fresh ? { stability: 'fresh', freshSource: fresh } : { stability: 'unknown' };
  }

  function freshSourceOf(raw: Node, attemptVars: Set<Variable>, scope: Node, depth: number, seen: Set<Node>): Node | undefined {
    if (depth > 12 || seen.has(raw)) return undefined;
    seen.add(raw);
    const node = unwrap(raw);
    const recurse = (n: Node | null | undefined) => (n ? freshSourceOf(n, attemptVars, scope, depth + 1, seen) : undefined);
    const first = (list: readonly (Node | null | undefined)[]) => {
      for (const n of list) {
        const r = recurse(n);
        if (r) return r;
      }
      return undefined;
    };
    switch (node.type) {
      case T.CallExpression: {
        if (isFreshGenerator(node.callee)) return node;
        // uuid v3/v5 and other derivations are fresh only if fed something fresh.
        const callee = unwrap(node.callee);
        return first(node.arguments) ?? (callee.type === T.MemberExpression ? recurse(callee.object) : undefined);
      }
      case T.NewExpression: {
        const callee = unwrap(node.callee);
        if (callee.type === T.Identifier && callee.name === 'Date' && node.arguments.length === 0 && !variableOf(callee)?.defs.length) return node;
        return first(node.arguments);
      }
      case T.TemplateLiteral:
        return first(node.expressions);
      case T.BinaryExpression:
        return recurse(node.left as Node) ?? recurse(node.right);
      case T.LogicalExpression:
        return recurse(node.left) ?? recurse(node.right);
      case T.ConditionalExpression:
        return recurse(node.consequent) ?? recurse(node.alternate);
      case T.MemberExpression:
        return recurse(node.object);
      case T.AwaitExpression:
        return recurse(node.argument);
      case T.Identifier:
        return freshIdentifier(node, attemptVars, scope, recurse);
      default:
        return undefined;
    }
  }

  function freshIdentifier(node: TSESTree.Identifier, attemptVars: Set<Variable>, scope: Node, recurse: (n: Node | null | undefined) => Node | undefined): Node | undefined {
    const v = variableOf(node);
    if (!v) return undefined;
    if (attemptVars.has(v)) return node;
    // A binding made inside the retried code (or assigned there) is re-made on every attempt.
    for (const def of v.defs) {
      if (def.type !== 'Variable') continue;
      const decl = def.node as TSESTree.VariableDeclarator;
      if (!inside(scope, decl)) continue;
      if (decl.init && (decl.id.type === T.Identifier || decl.id.type === T.ObjectPattern)) {
        const r = recurse(decl.init);
        if (r) return r;
      }
    }
    for (const ref of v.references) {
      if (!ref.isWrite() || !ref.writeExpr || !inside(scope, ref.identifier as Node)) continue;
      const r = recurse(ref.writeExpr as Node);
      if (r) return r;
    }
    return undefined;
  }

  function isFreshGenerator(calleeRaw: Node): boolean {
    const callee = unwrap(calleeRaw);
    const ref = ctx.imports.resolve(callee);
    if (ref) {
      const names = FRESH_EXPORTS[ref.module];
      return !!names && (names.includes(ref.path) || names.includes(ref.path.split('.').pop() ?? ''));
    }
    const name = ctx.evaluator.qualifiedName(callee);
    if (!name || !FRESH_GLOBALS.has(name)) return false;
    const root = name.split('.')[0]!;
    return !findVariable(ctx.evaluator.scopeOf(callee), root)?.defs.length;
  }

  function mapKeyToCall(key: IdempotencyKey, fn: TSESTree.FunctionLike, call: TSESTree.CallExpression, attemptVars: Set<Variable>, scope: Node | undefined): IdempotencyKey {
    if (key.stability === 'fresh') return key;
    const value = unwrap(key.value);
    if (value.type !== T.Identifier) return key;
    const index = fn.params.findIndex((p) => p.type === T.Identifier && p.name === value.name);
    const arg = index >= 0 ? call.arguments[index] : undefined;
    if (!arg || arg.type === T.SpreadElement) return key;
    return { node: key.node, value: arg, ...freshness(arg, attemptVars, scope) };
  }

  function engineKeyOf(execution: Execution, scope: Node | undefined): IdempotencyKey | undefined {
    const found = ctx.options(execution.options).get('idempotencyKey');
    if (!found.property || !found.valueNode) return undefined;
    return { node: found.property, value: found.valueNode, ...freshness(found.valueNode, new Set(), scope) };
  }

  function attemptVariables(site: RetrySite, scope: Node): Set<Variable> {
    const out = new Set<Variable>();
    const add = (id: TSESTree.Identifier) => {
      const v = variableOf(id);
      if (v) out.add(v);
    };
    const param = file.descriptorOf(site.library)?.attemptParameter;
    if (param && isFunctionNode(scope)) {
      const p = scope.params[param.index];
      const target = p?.type === T.AssignmentPattern ? p.left : p;
      if (target?.type === T.Identifier && !param.property) add(target);
      else if (target?.type === T.ObjectPattern && param.property) {
        for (const prop of target.properties) {
          if (prop.type !== T.Property || staticPropertyName(prop) !== param.property) continue;
          const value = prop.value.type === T.AssignmentPattern ? prop.value.left : prop.value;
          if (value.type === T.Identifier) add(value);
        }
      }
    }
    if (site.library === 'hand-written') {
      // Counters: anything the loop (or the recursion) updates from one attempt to the next.
      for (const kind of [T.UpdateExpression, T.AssignmentExpression] as const) {
        for (const n of ctx.nodesOfType(kind)) {
          if (!inside(scope, n)) continue;
          const target = n.type === T.UpdateExpression ? n.argument : n.left;
          if (target.type === T.Identifier) add(target);
        }
      }
      if (scope.type === T.ForStatement && scope.init?.type === T.VariableDeclaration) {
        for (const d of scope.init.declarations) if (d.id.type === T.Identifier) add(d.id);
      }
      if (isFunctionNode(scope)) for (const p of scope.params) if (p.type === T.Identifier) add(p);
    }
    return out;
  }

  return { keyOf, engineKeyOf, mapKeyToCall, attemptVariables };
}
