/**
 * What an evaluation may assume beyond the code itself. Static option reading uses STATIC_ENV:
 * nothing is bound, and an unknown stays unknown (a setting that is a call of a function of the
 * file is then followed at the call, INLINING_ENV). A hand-written retry binds its counters per
 * attempt and the HTTP status per filter question; a delay function binds its parameter to the
 * retry number.
 *
 * The defaults policy (`defaults`): `x ?? d`, `x || d` (a number `d`, `x` not a call) and
 * destructuring or parameter defaults (`{ retries = 3 } = opts`) stand for an `x` that is not
 * known. It is ON where the code is read as it runs on its own (hand-written loops, delay
 * functions: the code's own default is what it does unless told otherwise) and OFF for static
 * option reading (an option value a caller can override is not a fact about this call). One
 * exception holds in both: a destructured parameter's default that no caller can override (a
 * local, unexported function whose every call leaves the member out; functions.ts
 * closedParameterDefault) is what the code does, so static reading uses it too.
 */
import type { TSESTree } from '@typescript-eslint/utils';
import type { Variable } from '../ast.js';
import type { Value } from './values.js';
import type { Evaluator } from './evaluator.js';

type Node = TSESTree.Node;

/** What an evaluation saw: randomness, and a cap it read through (`uncapped`). */
export interface Flags {
  random: boolean;
  cap?: number | undefined;
}

/** Parameters of an inlined function: each bound to an argument read in the caller's environment. */
export interface Frame {
  /** `value`: an argument already read (in another file's evaluator), bound as it is. */
  readonly bindings: ReadonlyMap<Variable, { readonly expr: Node | undefined; readonly env: Env; readonly value?: Value }>;
  readonly outer: Frame | undefined;
}

/** A class declared in a file, read by that file's evaluator. */
export interface ThrownClass {
  readonly node: TSESTree.ClassDeclaration | TSESTree.ClassExpression;
  readonly evaluator: Evaluator;
}

/** Nesting of one evaluation (a const chain, an operator tree, inlined helpers). */
export const MAX_DEPTH = 40;

/** `lookup` found nothing to say about a variable: the code's own binding applies. */
export const FREE: unique symbol = Symbol('free');

export interface Env {
  /** The defaults policy (see above). */
  readonly defaults: boolean;
  /** `Math.random()` is the range [0, 1] (otherwise unknown), and random-named calls are noted in `flags`. */
  readonly randomness: boolean;
  /** Unknown qualified names stay symbolic (`BackOffPolicy.Exponential`): option readers compare them. */
  readonly names: boolean;
  /** Local helpers (`const backoff = (n) => ...`) are evaluated at their calls. */
  readonly inlines: boolean;
  /** Free numeric unknowns read as this number, to see a growth shape whose scale is not known. */
  readonly probe?: number | undefined;
  /** `Math.min(varying, cap)` reads as its varying side; the cap is noted in `flags`. */
  readonly uncapped?: boolean | undefined;
  /**
   * The HTTP status the error or response object carries. Its value is read through `statusOf`
   * (counted, so that a question whose answer never read it is asked once for every status); code
   * may test it directly only for being set, for NO_RESPONSE and for the 2xx range, the classes
   * `sameForFailures` (hand-written/filter.ts) keeps apart.
   */
  readonly status?: number | undefined;
  /**
   * Other fields the error carries with that status (`code: 'resource_missing'`): one error a
   * library documents for it (`ErrorShape`), asked about to learn whether some error of the
   * status is retried. Unset, they are unknown.
   */
  readonly errorFields?: Readonly<Record<string, string>> | undefined;
  /**
   * The class the failure asked about was constructed with (`new HttpError(res)`, which the retried
   * operation throws at this status), with the evaluator of the file it is declared in: decides
   * `err instanceof C`. Unset, what the error is an instance of is not known.
   */
  readonly thrown?: ThrownClass | undefined;
  /** Fixed truth values for parts of a condition. */
  readonly mask?: ReadonlyMap<Node, boolean> | undefined;
  readonly frame?: Frame | undefined;
  readonly flags?: Flags | undefined;
  /**
   * Functions whose parameters `lookup` binds (a helper read at a call, and the constructor of the
   * instance its method is called on): a class field set in such a constructor from its parameters
   * (`this.maxAttempts = maxAttempts`) is read here, with them bound (fields.ts).
   */
  readonly boundFunctions?: ReadonlySet<Node> | undefined;
  /**
   * A binding this environment decides (a loop counter, the retry number); FREE for the code's own.
   * `env` is the environment of the read (this one, or one derived from it with a frame or flags).
   */
  lookup?(variable: Variable, id: TSESTree.Identifier, env: Env, depth: number): Value | typeof FREE;
  /** A field this environment decides (`state.backoff`, moved once per attempt); FREE for the code's own. */
  lookupField?(object: Variable, key: string, node: TSESTree.MemberExpression, env: Env): Value | typeof FREE;
  /** Whether an expression changes between attempts (for `uncapped`). */
  varies?(expr: Node, env: Env): boolean;
  /** The module and export an identifier or member is imported from (`crypto.randomInt`). */
  importOf?(node: Node): { readonly module: string; readonly path: string } | undefined;
}

/**
 * Values a module gives its importers that are written outside the code (node-config's config
 * files): asked before a name's own binding, in every environment. FREE: nothing to say.
 */
export interface ModuleValues {
  /** The value of a variable bound to an import or require. */
  value(variable: Variable): Value | typeof FREE;
  /** The value of a call of an imported function (`config.get('retry.max')`), its arguments read on demand. */
  call(callee: Node, argument: (index: number) => Value): Value | typeof FREE;
}

/** Static evaluation: the code alone. */
export const STATIC_ENV: Env = Object.freeze({ defaults: false, randomness: false, names: true, inlines: false });

/**
 * The code alone, with the file's own functions evaluated at their calls: a written setting (an
 * option, what a call passes to a retry helper: `new RetryHelper(3, getSetting('MIN', 10))`) read as
 * a hand-written loop reads the same call (evaluator.ts settingValue). Not cached per node, so
 * asked only where static reading gave up.
 */
export const INLINING_ENV: Env = Object.freeze({ defaults: false, randomness: false, names: true, inlines: true });

/** The code as it runs on its own: its defaults apply, randomness is a range, local helpers are followed. */
export const RUNNING_ENV: Env = Object.freeze({ defaults: true, randomness: true, names: false, inlines: true });

/** Notes randomness in the environment's flags. */
export function sawRandom(env: Env): void {
  if (env.flags) env.flags.random = true;
}

/** Notes a cap read through in the environment's flags (the lowest wins). */
export function sawCap(env: Env, cap: number): void {
  if (env.flags) env.flags.cap = env.flags.cap === undefined ? cap : Math.min(env.flags.cap, cap);
}

/** The status an environment asks about for a failure that got no response (a network error, a timeout). */
export const NO_RESPONSE = 0;

/**
 * How many times an asked status's value has been read (`statusOf`); only differences matter.
 * `classified` counts the reads whose value only meets numeric constants in a comparison
 * (status-classes.ts), whose constants gather in `constants`: when every read of an answer is
 * classified, a status on the same side of each constant gets the same answer.
 */
export const statusReads = { count: 0, classified: 0, constants: [] as number[], open: 0 };

/** The reads one computation made, to replay when its answer is reused from a memo. */
export interface StatusReadDelta {
  readonly count: number;
  readonly classified: number;
  readonly constants: readonly number[];
}

/** Where a recording of reads starts (`beginReads`). */
export interface ReadMark {
  readonly count: number;
  readonly classified: number;
  readonly at: number;
}

/**
 * Starts recording reads: marks only, no allocation (it runs for every state value computed per
 * attempt). The constants met stay in one list that recordings around this one see too; the list
 * is emptied when the outermost recording ends. Every `beginReads` is ended in a `finally`.
 */
export function beginReads(): ReadMark {
  statusReads.open++;
  return { count: statusReads.count, classified: statusReads.classified, at: statusReads.constants.length };
}

/** Ends a recording begun by `beginReads`: what was read since (constants may repeat). */
export function endReads(mark: ReadMark): StatusReadDelta {
  const constants = statusReads.constants.length > mark.at ? statusReads.constants.slice(mark.at) : NONE;
  if (--statusReads.open <= 0) {
    statusReads.open = 0;
    statusReads.constants.length = 0;
  }
  return { count: statusReads.count - mark.count, classified: statusReads.classified - mark.classified, constants };
}

const NONE: readonly number[] = Object.freeze([]);

/** Counts again the reads a reused answer made when it was computed. */
export function replayReads(delta: StatusReadDelta | undefined): void {
  if (!delta) return;
  statusReads.count += delta.count;
  statusReads.classified += delta.classified;
  for (const c of delta.constants) statusReads.constants.push(c);
}

/** The status an environment asks about, its read counted (see `Env.status`). */
export function statusOf(env: Env): number | undefined {
  statusReads.count++;
  return env.status;
}
