/**
 * A library retry whose retried function stops the retry by throwing the library's abort error
 * (p-retry's `throw new AbortError(err)`): what the function ends with at each status is its filter.
 *
 * The function is run statement by statement for one status at a time (the awaited results and
 * the caught errors carry it, as in a hand-written retry): each `if` whose test is known takes its
 * branch, an unknown one both; a `throw` ends it with an abort (`new AbortError(...)`), with the
 * caught error as it came (`throw error`), or with another error (`new SomeError(...)` of a built-in
 * error class, or of a class whose `extends` chain, followed into the file it is imported from,
 * ends in one), which the library retries; a `return` ends it with a result. A `try` runs its block, and its `catch` for
 * what the block throws and for an awaited call in it that rejects; in the catch, `err instanceof
 * AbortError` is known for the error it was handed. A status is retried when every way ends in
 * another error, and certainly not when none does; otherwise it is not known. An awaited call may
 * reject at any status (whether it does is its client's), so it adds an error end where it stands.
 * A statement it does not read (a loop or a `switch` holding a throw or a return, a `finally`, a
 * throw of a class it cannot follow) leaves the status unknown.
 *
 * The function whose work is retried may be handed on: `() => queue.add(async () => ...)` runs the
 * inner function, whose rejection is the call's.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import { AST_NODE_TYPES as T } from '@typescript-eslint/types';
import { contains, isFunctionNode, unwrap, walk as walkTree, type Variable } from '../ast.js';
import type { ThrownClass } from '../eval/environment.js';
import { UNKNOWN, truth, type Unknown } from '../eval/values.js';
import type { AnalysisContext } from '../library.js';
import type { ErrorFilter, Node } from '../model.js';
import { attemptEnv, evaluateAt, type HandWritten, type Region } from './attempts.js';
import { failureVariables } from './callback-filter.js';
import { FAILURES, readFilter } from './filter.js';

type Fn = TSESTree.FunctionLike;

/**
 * How a way through the function ends: an abort, another error (retried; `error#n` when the run
 * numbers the classes it throws, `thrownClasses`: one constructed of class n of the file), a
 * result, or falling off its end.
 */
type End = 'abort' | 'error' | `error#${number}` | 'return' | 'normal';
type Failure = Exclude<End, 'return' | 'normal'>;

function isError(e: End): boolean {
  return e === 'error' || e.startsWith('error#');
}

/** Ends of a run, or UNKNOWN when a statement on the way is not read. */
type Ends = Set<End> | Unknown;

interface Run {
  readonly hw: HandWritten;
  readonly region: Region;
  readonly status: number;
  /** Whether a constructor (read in a file's context) is the library's abort error. */
  readonly isAbort: (callee: Node, ctx: AnalysisContext) => boolean;
  /** The error a catch clause was handed (its parameter) and what it is. */
  readonly caught?: { readonly param: Variable; readonly end: Failure } | undefined;
  /** The end of `throw new C(...)` of an error class C (thrownClasses numbers the file's classes); 'error' otherwise. */
  readonly errorEnd?: ((callee: Node) => Failure) | undefined;
  /** The `throw` that ends a way with another error first, for the report. */
  readonly seen: { error?: Node | undefined };
  /** What does not depend on the status, read once for all of them. */
  readonly facts: Facts;
}

/** An `x instanceof AbortError` test in a condition, with the variable `x` names. */
interface AbortTest {
  readonly node: Node;
  readonly variable: Variable | undefined;
}

/**
 * The facts of the function's code that are the same at every status (whether a statement awaits
 * or leaves, what a thrown class is, which `instanceof` tests ask about the abort error), read
 * once per node: the function is run for each of some 200 statuses.
 */
class Facts {
  private readonly awaitsMemo = new Map<Node, boolean>();
  private readonly leavesMemo = new Map<Node, boolean>();
  private readonly classMemo = new Map<Node, 'abort' | 'error' | Unknown>();
  private readonly abortTestsMemo = new Map<Node, readonly AbortTest[]>();

  constructor(
    private readonly ctx: AnalysisContext,
    private readonly isAbort: (callee: Node, ctx: AnalysisContext) => boolean,
  ) {}

  /** Whether code awaits a call (outside nested functions): a rejection a catch, or the retry, receives. */
  awaits(node: Node): boolean {
    return memo(this.awaitsMemo, node, () => holds(node, (n) => n.type === T.AwaitExpression));
  }

  /** Whether a statement holds a throw or a return of this function (not of a nested one). */
  leaves(node: Node): boolean {
    return memo(this.leavesMemo, node, () => holds(node, (n) => n.type === T.ThrowStatement || n.type === T.ReturnStatement));
  }

  /** What `new C(...)` throws (errorClass). */
  errorClass(callee: Node): 'abort' | 'error' | Unknown {
    return memo(this.classMemo, callee, () => errorClass(this.ctx, callee, this.isAbort, 0));
  }

  /** The `x instanceof AbortError` tests in a condition. */
  abortTests(test: Node): readonly AbortTest[] {
    return memo(this.abortTestsMemo, test, () => {
      const out: AbortTest[] = [];
      walkTree(test, (n) => {
        if (n.type !== T.BinaryExpression || n.operator !== 'instanceof') return;
        const left = unwrap(n.left);
        if (left.type === T.Identifier && this.isAbort(n.right, this.ctx)) out.push({ node: n, variable: this.ctx.evaluator.variableOf(left) });
      }, { skipFunctions: true });
      return out;
    });
  }
}

function memo<V>(map: Map<Node, V>, key: Node, compute: () => V): V {
  if (map.has(key)) return map.get(key)!;
  const v = compute();
  map.set(key, v);
  return v;
}

/** Whether some node of `root` (outside nested functions) is one `is` accepts. */
function holds(root: Node, is: (n: Node) => boolean): boolean {
  let found = false;
  walkTree(root, (n) => {
    if (!found && is(n)) found = true;
  }, { skipFunctions: true });
  return found;
}

/**
 * The filter of a retried function that throws `abort` errors to stop (`isAbort` says which
 * constructor is one); undefined when the function is not written here.
 */
export function abortFilter(ctx: AnalysisContext, fn: Fn, isAbort: (callee: Node, ctx: AnalysisContext) => boolean): ErrorFilter | undefined {
  const work = handedOn(fn) ?? fn;
  const body = work.body;
  if (!body || body.type !== T.BlockStatement) return undefined;
  const hw: HandWritten = { ctx, evaluator: ctx.evaluator };
  const region: Region = { kind: 'loop', root: work, vars: new Map(), roots: failureVariables(hw, work) };
  const seen: Run['seen'] = {};
  const facts = new Facts(ctx, isAbort);
  const retriedAt = (status: number): boolean | Unknown => {
    const ends = runBlock({ hw, region, status, isAbort, seen, facts }, body.body);
    if (ends === UNKNOWN) return UNKNOWN;
    if ([...ends].every(isError)) return true;
    return [...ends].some(isError) ? UNKNOWN : false;
  };
  // Every status asked first, so that `seen` holds the throw to report at.
  const answers = new Map<number, boolean | Unknown>();
  for (const s of FAILURES) answers.set(s, retriedAt(s));
  // A status answered "retried" is one at which every way through the function rejects.
  return readFilter((s) => answers.get(s) ?? retriedAt(s), guardOf(seen.error, work) ?? work, true);
}

const NEVER_ABORT = (): boolean => false;

/** What one status's failures of a function are: the classes they are constructed with (undefined: one not known). */
export type ThrownAt = (status: number) => readonly (ThrownClass | undefined)[] | Unknown;

const thrownMemo = new WeakMap<Fn, ThrownAt>();

/**
 * The classes a retried function's failures are constructed with, status by status: it is run as
 * for an abort filter (an `if` on the status takes its branch, a `try` hands its catch what its
 * block throws and what an awaited call in it rejects with), and each way that ends in
 * `throw new C(...)` of a class declared in the function's file names C; a rethrow keeps the
 * class it caught; an awaited call that rejects, or a class of another file, is a failure of a
 * class not known (undefined). UNKNOWN where the run cannot read a statement. Cached per function.
 */
export function thrownClasses(ctx: AnalysisContext, fn: Fn): ThrownAt {
  const hit = thrownMemo.get(fn);
  if (hit) return hit;
  const work = handedOn(fn) ?? fn;
  const body = work.body;
  const hw: HandWritten = { ctx, evaluator: ctx.evaluator };
  const region: Region = { kind: 'loop', root: work, vars: new Map(), roots: failureVariables(hw, work) };
  const facts = new Facts(ctx, NEVER_ABORT);
  const classes: ThrownClass[] = [];
  const errorEnd = (callee: Node): Failure => {
    const c = unwrap(callee);
    const def = c.type === T.Identifier ? ctx.evaluator.variableOf(c)?.defs : undefined;
    const cls = def?.length === 1 && def[0]!.type === 'ClassName' ? (def[0]!.node as TSESTree.ClassDeclaration) : undefined;
    if (!cls) return 'error';
    let i = classes.findIndex((k) => k.node === cls);
    if (i < 0) i = classes.push({ node: cls, evaluator: ctx.evaluator }) - 1;
    return `error#${i}`;
  };
  const answers = new Map<number, readonly (ThrownClass | undefined)[] | Unknown>();
  const at: ThrownAt = (status) => {
    if (answers.has(status)) return answers.get(status)!;
    let out: readonly (ThrownClass | undefined)[] | Unknown = UNKNOWN;
    if (body && body.type === T.BlockStatement) {
      const ends = runBlock({ hw, region, status, isAbort: NEVER_ABORT, seen: {}, facts, errorEnd }, body.body);
      if (ends !== UNKNOWN) out = [...new Set([...ends].filter(isError).map((e) => (e === 'error' ? undefined : classes[Number(e.slice(6))])))];
    }
    answers.set(status, out);
    return out;
  };
  thrownMemo.set(fn, at);
  return at;
}

/** Whether `fn` constructs the abort error or a class of the project extending it (`class Fatal extends AbortError`). */
export function constructsAbort(ctx: AnalysisContext, fn: Node, isAbort: (callee: Node, ctx: AnalysisContext) => boolean): boolean {
  return ctx.nodesOfType(T.NewExpression).some((n) => contains(fn, n) && errorClass(ctx, n.callee, isAbort, 0) === 'abort');
}

/** The test of the `if` a throw is written under (where the statuses are chosen), else the throw. */
function guardOf(st: Node | undefined, work: Fn): Node | undefined {
  for (let n = st?.parent; n && n !== work; n = n.parent) if (n.type === T.IfStatement) return n.test;
  return st;
}

/** `() => queue.add(async () => { ... })`: the one function a call the retried function returns runs. */
function handedOn(fn: Fn): Fn | undefined {
  let result: Node | undefined;
  if (fn.body?.type === T.BlockStatement) {
    const only = fn.body.body.length === 1 ? fn.body.body[0] : undefined;
    result = only?.type === T.ReturnStatement && only.argument ? only.argument : undefined;
  } else result = fn.body ?? undefined;
  let call = result && unwrap(result);
  if (call?.type === T.AwaitExpression) call = unwrap(call.argument);
  if (call?.type !== T.CallExpression) return undefined;
  const fns = call.arguments.filter((a) => isFunctionNode(unwrap(a as Node)));
  return fns.length === 1 ? (unwrap(fns[0] as Node) as Fn) : undefined;
}

function runBlock(run: Run, statements: readonly Node[]): Ends {
  const ends = new Set<End>();
  let going = true;
  for (const st of statements) {
    if (!going) break;
    const here = runStatement(run, st);
    if (here === UNKNOWN) return UNKNOWN;
    going = here.has('normal');
    for (const e of here) if (e !== 'normal') ends.add(e);
  }
  if (going) ends.add('normal');
  return ends;
}

/** A statement's ends, with a rejection of a call it awaits (a client may reject at any status). */
function runStatement(run: Run, st: Node): Ends {
  const ends = ownEnds(run, st);
  if (ends === UNKNOWN || st.type === T.BlockStatement || st.type === T.TryStatement || st.type === T.IfStatement) return ends;
  return run.facts.awaits(st) ? new Set([...ends, 'error']) : ends;
}

function ownEnds(run: Run, st: Node): Ends {
  switch (st.type) {
    case T.BlockStatement:
      return runBlock(run, st.body);
    case T.ReturnStatement:
      return new Set(['return']);
    case T.ThrowStatement:
      return thrown(run, st);
    case T.IfStatement: {
      if (run.facts.awaits(st.test)) return UNKNOWN;
      const t = test(run, st.test);
      const take = (branch: Node | null | undefined): Ends => (branch ? runStatement(run, branch) : new Set(['normal']));
      if (t === true) return take(st.consequent);
      if (t === false) return take(st.alternate);
      const a = take(st.consequent);
      const b = take(st.alternate);
      return a === UNKNOWN || b === UNKNOWN ? UNKNOWN : new Set([...a, ...b]);
    }
    case T.TryStatement:
      return tryStatement(run, st);
    default:
      // A statement that cannot end the function (no throw or return outside nested functions) goes on.
      return run.facts.leaves(st) ? UNKNOWN : new Set(['normal']);
  }
}

function thrown(run: Run, st: TSESTree.ThrowStatement): Ends {
  const arg = unwrap(st.argument);
  if (arg.type === T.NewExpression) {
    const kind = run.facts.errorClass(arg.callee);
    if (kind === UNKNOWN) return UNKNOWN;
    if (kind === 'error') run.seen.error ??= st;
    return new Set([kind === 'error' && run.errorEnd ? run.errorEnd(arg.callee) : kind]);
  }
  if (arg.type === T.Identifier && run.caught && run.hw.evaluator.variableOf(arg) === run.caught.param) {
    if (isError(run.caught.end)) run.seen.error ??= st;
    return new Set([run.caught.end]);
  }
  return UNKNOWN;
}

/** Built-in errors, none of which is a library's abort error. */
const BUILTIN_ERRORS = /^(?:Error|TypeError|RangeError|SyntaxError|ReferenceError|EvalError|URIError|AggregateError)$/;

/**
 * What `new C(...)` throws: the abort error (or a class extending it), another error (a built-in,
 * or a class of the project whose chain of `extends` ends in one, followed into the file it is
 * imported from), or UNKNOWN (a class it cannot follow, which may extend the abort error).
 */
function errorClass(ctx: AnalysisContext, callee: Node, isAbort: (callee: Node, ctx: AnalysisContext) => boolean, depth: number): 'abort' | 'error' | Unknown {
  if (isAbort(callee, ctx)) return 'abort';
  const c = unwrap(callee);
  if (c.type !== T.Identifier || depth > 6) return UNKNOWN;
  const variable = ctx.evaluator.variableOf(c);
  const def = variable?.defs.length === 1 ? variable.defs[0] : undefined;
  if (!def) return BUILTIN_ERRORS.test(c.name) && !variable?.defs.length ? 'error' : UNKNOWN;
  if (def.type === 'ClassName') {
    const cls = def.node as TSESTree.ClassDeclaration;
    return cls.superClass ? errorClass(ctx, cls.superClass, isAbort, depth + 1) : 'error';
  }
  if (def.type !== 'ImportBinding') return UNKNOWN;
  const imported = ctx.importedValue?.(c);
  const cls = imported && unwrap(imported.node);
  if (cls?.type !== T.ClassDeclaration && cls?.type !== T.ClassExpression) return UNKNOWN;
  return cls.superClass ? errorClass(imported!.ctx, cls.superClass, isAbort, depth + 1) : 'error';
}

function tryStatement(run: Run, st: TSESTree.TryStatement): Ends {
  if (st.finalizer) return UNKNOWN;
  const inner = runBlock({ ...run, caught: run.caught }, st.block.body);
  if (inner === UNKNOWN) return UNKNOWN;
  const handler = st.handler;
  if (!handler) return inner;
  const out = new Set<End>([...inner].filter((e) => e !== 'abort' && !isError(e)));
  // What reaches the catch: the block's throws, and a rejection of an awaited call in it.
  const handed = new Set<Failure>([...inner].filter((e): e is Failure => e === 'abort' || isError(e)));
  if (run.facts.awaits(st.block)) handed.add('error');
  const param = handler.param?.type === T.Identifier ? run.hw.ctx.sourceCode.getDeclaredVariables(handler).find((v) => v.name === (handler.param as TSESTree.Identifier).name) : undefined;
  if (handler.param && !param) return UNKNOWN;
  for (const end of handed) {
    const ends = runBlock({ ...run, caught: param ? { param, end } : undefined }, handler.body.body);
    if (ends === UNKNOWN) return UNKNOWN;
    for (const e of ends) out.add(e);
  }
  return out;
}

/** A test at the run's status; `err instanceof AbortError` on the caught error is what the error is. */
function test(run: Run, node: Node): boolean | Unknown {
  const mask = new Map<Node, boolean>();
  if (run.caught) {
    for (const t of run.facts.abortTests(node)) if (t.variable === run.caught.param) mask.set(t.node, run.caught.end === 'abort');
  }
  const env = attemptEnv(run.hw, run.region, 1, { status: run.status, mask: mask.size ? mask : undefined });
  const t = truth(evaluateAt(run.hw, node, env));
  return t === UNKNOWN ? UNKNOWN : t;
}
