/**
 * The words that classify operations, in one list each: verbs that read or write, HTTP methods by
 * their semantics, member names that name an HTTP method, and idempotency-key names. The project's
 * settings add to them (`readVerbs`, `writeVerbs`, `readFunctions`, `writeFunctions`,
 * `idempotencyHeaders`).
 */
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import type { Node } from '../model.js';
import type { SafeRetrySettings } from '../settings.js';
import { propertyKey, unwrap } from '../ast.js';
import { METHOD_SHORTCUTS } from '../libraries/http-shared.js';
import type { OperationKind } from './types.js';

/** Names of objects that only log (`console.warn(err)`, `logger.error(e)`, `this.log.debug(...)`): a call on them changes nothing the code reads. */
export const LOGGER_NAME = /^(?:console|logger|log)$/;

const DEFAULT_READ_VERBS = ['get', 'fetch', 'find', 'list', 'read', 'load', 'search', 'query', 'head', 'describe', 'retrieve', 'lookup', 'count', 'exists', 'download', 'resolve', 'check', 'poll', 'select', 'scan', 'peek', 'show'];
const DEFAULT_WRITE_VERBS = ['create', 'send', 'charge', 'pay', 'register', 'submit', 'insert', 'post', 'transfer', 'save', 'upsert', 'publish', 'refund', 'capture', 'book', 'reserve', 'place', 'purchase', 'withdraw', 'deposit', 'enqueue', 'notify', 'email', 'sms', 'increment', 'decrement', 'issue', 'confirm', 'approve', 'dispatch', 'ship', 'order', 'checkout', 'invite', 'mint', 'debit', 'credit', 'patch', 'update'];
/** Verbs of writes that land in the same state however often they are repeated. */
export const IDEMPOTENT_VERBS: ReadonlySet<string> = new Set(['put', 'delete', 'remove', 'set', 'replace', 'del', 'destroy', 'cancel', 'void', 'revoke', 'unsubscribe', 'disable', 'enable']);

/** Names of calls that send a request object they are handed (`fetch(req)`, `client.request(req)`). */
export const REQUEST_SENDERS = /^(?:fetch|request|send|dispatch|execute|perform)$/i;

/** Names whose verb reads like a write but that build local objects or wire events. */
export const NOT_OPERATIONS = /(?:^|\.)(?:create|make|build|new)(?:[A-Z]\w*)?(?:Error|Exception|Hash|Hmac|Cipher|Element|Context|Logger|Signal|Controller|Instance|Buffer|Stream|Reader|Writer|Parser|Proxy|Agent|Pool|Headers|Url|URL|Id|Timer|Timeout|Promise|Deferred|Options|Config)$|Listener$|Handler$/;

const HTTP_READ = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'QUERY']);
const HTTP_IDEMPOTENT = new Set(['PUT', 'DELETE']);

/**
 * Member names that send a request with that method (`client.post(...)`): the HTTP clients'
 * shortcuts, plus `options` and superagent's `del`.
 */
export const HTTP_METHOD_MEMBERS: ReadonlySet<string> = new Set([...METHOD_SHORTCUTS, 'options', 'del']);

/** The upper-cased HTTP method a member name sends (`del` is DELETE). */
export function methodOfMember(name: string): string {
  return name === 'del' ? 'DELETE' : name.toUpperCase();
}

/** Reads, idempotent writes and writes by HTTP semantics; `unknown` when the method is not known. */
export function kindOfMethod(method: string | undefined): OperationKind {
  if (!method) return 'unknown';
  if (HTTP_READ.has(method)) return 'read';
  if (HTTP_IDEMPOTENT.has(method)) return 'idempotent-write';
  return 'write';
}

/** The method that repeats worst among those a request may send: a write over an idempotent write over a read (the first of equals). */
export function worstMethod(methods: readonly string[]): string {
  const rank = (m: string) => ['read', 'idempotent-write', 'write'].indexOf(kindOfMethod(m));
  return methods.reduce((a, b) => (rank(b) > rank(a) ? b : a));
}

const DEFAULT_KEY_NAMES = ['idempotency-key', 'x-idempotency-key', 'idempotency_key', 'idempotencykey', 'clienttoken', 'clientrequesttoken'];

/** The verbs, functions and key names that classify operations: the defaults plus the settings. */
export interface Vocabulary {
  readonly readVerbs: ReadonlySet<string>;
  readonly writeVerbs: ReadonlySet<string>;
  readonly readFunctions: ReadonlySet<string>;
  readonly writeFunctions: ReadonlySet<string>;
  readonly keyNames: ReadonlySet<string>;
}

export function buildVocabulary(settings: SafeRetrySettings): Vocabulary {
  const readVerbs = new Set([...DEFAULT_READ_VERBS, ...(settings.readVerbs ?? [])].map((v) => v.toLowerCase()));
  const writeVerbs = new Set([...DEFAULT_WRITE_VERBS, ...(settings.writeVerbs ?? [])].map((v) => v.toLowerCase()));
  for (const v of settings.readVerbs ?? []) writeVerbs.delete(v.toLowerCase());
  return {
    readVerbs,
    writeVerbs,
    readFunctions: new Set(settings.readFunctions ?? []),
    writeFunctions: new Set(settings.writeFunctions ?? []),
    keyNames: new Set([...DEFAULT_KEY_NAMES, ...(settings.idempotencyHeaders ?? []).map((h) => h.toLowerCase())]),
  };
}

const BUILTIN_OBJECTS = new Set(['console', 'JSON', 'Math', 'Object', 'Array', 'Promise', 'Reflect', 'Number', 'String', 'Date', 'Buffer', 'process', 'Symbol', 'Atomics', 'Intl', 'URL', 'path', 'fs', 'util', 'assert']);
const BUILTIN_METHODS = new Set(['push', 'set', 'add', 'delete', 'get', 'has', 'then', 'catch', 'finally', 'resolve', 'reject', 'append', 'emit', 'send', 'write', 'end', 'json', 'text', 'toString', 'replace', 'update', 'digest', 'remove', 'removeItem', 'setItem', 'getItem', 'setTimeout', 'clear', 'abort', 'fill', 'find', 'includes', 'sort']);

/** The leading verb of a callee name: `createOrder` → `create`, `send_sms` → `send`, `charges.create` → `create`. */
export function verbOf(calleeRaw: Node): string | undefined {
  const callee = unwrap(calleeRaw);
  let name: string | undefined;
  if (callee.type === T.Identifier) {
    // A bare `setX()` is a timer or a local setter (`setTimeout`, `setState`,
    // `setCredentialFeature`), not a remote write.
    if (/^set[A-Z]/.test(callee.name)) return undefined;
    name = callee.name;
  } else if (callee.type === T.MemberExpression) {
    name = propertyKey(callee, () => undefined);
    const base = unwrap(callee.object);
    // Built-ins whose method names look like verbs: Array#push, Map#set, console.log ...
    if (base.type === T.Identifier && BUILTIN_OBJECTS.has(base.name)) return undefined;
    if (name && BUILTIN_METHODS.has(name)) return undefined;
  }
  return name ? verbOfName(name) : undefined;
}

/**
 * The verb a name starts with (`createOrder` -> `create`). A method name is checked against the
 * built-ins' first (methodVerb): a bare function named `send` or `update` keeps its verb.
 */
export function verbOfName(name: string): string | undefined {
  const m = /^_*([a-z]+|[A-Z][a-z]+)/.exec(name);
  return m ? m[1]!.toLowerCase() : undefined;
}

/** The verb of a method's name; none for a built-in's method name (`push`, `send`, `update`). */
export function methodVerb(name: string): string | undefined {
  return BUILTIN_METHODS.has(name) ? undefined : verbOfName(name);
}
