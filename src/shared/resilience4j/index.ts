/**
 * One reader of Resilience4j's Spring Boot configuration for the linter and the runtime.
 *
 * The caller flattens whatever it parsed (a YAML AST, a plain object, dotted keys) into properties
 * under `resilience4j`; the reader binds them as Spring Boot and Resilience4j would, and answers
 * with the problems that stop Spring (or that the Node runtime cannot honour), the keys that do
 * nothing in Node, and what each retry and circuit-breaker block does. The linter reports the
 * problems and judges each retry block with its rules; the runtime refuses the config on any
 * problem, or on anything `judgeRetry` finds, and builds its policies from the same settings.
 *
 * Pure: no import outside src/shared.
 */
import type { ConfigProblem } from './messages.js';
import { breakerSettings, type BreakerSettings } from './breaker.js';
import { Resilience4jTree, type ReadOptions } from './read.js';
import { retrySettings, type RetrySettings } from './retry.js';
import type { ConfigProperty } from './source.js';

export interface Resilience4jConfig<P> {
  /** What Spring cannot bind or start with, or the Node runtime cannot apply; in order of discovery. */
  readonly problems: readonly ConfigProblem<P>[];
  /** Valid keys that do nothing in the Node runtime. */
  readonly warnings: readonly ConfigProblem<P>[];
  /** Every retry block, configs and instances, in the order written. */
  readonly retry: readonly RetrySettings<P>[];
  /** Every circuit-breaker block, configs and instances. */
  readonly breakers: readonly BreakerSettings<P>[];
}

export function readResilience4j<P>(properties: Iterable<ConfigProperty<P>>, options: ReadOptions): Resilience4jConfig<P> {
  const tree = new Resilience4jTree(properties, options);
  const retry: RetrySettings<P>[] = [];
  const breakers: BreakerSettings<P>[] = [];
  for (const block of tree.blocks) {
    if (block.module.name === 'retry') retry.push(retrySettings(tree, block));
    else if (block.module.name === 'circuitbreaker') breakers.push(breakerSettings(tree, block));
    // A time limiter's chain is resolved for its problems, even when no retry instance shares its name.
    else tree.chainOf(block);
  }
  return { problems: tree.problems.list, warnings: tree.warnings.list, retry, breakers };
}

export { judgeRetry } from './guide.js';
export { problem, problemLine, type ConfigProblem, type GuideRule, type MessageCode } from './messages.js';
export { BREAKER_DEFAULTS, type BreakerSettings } from './breaker.js';
export { RETRY_DEFAULTS, TIME_LIMITER_DEFAULT_MS, type Cause, type Growth, type RetrySettings, type Schedule } from './retry.js';
export type { Block, Item, Prop, ReadOptions } from './read.js';
export { hintFor, isNear } from './read.js';
export { durationText } from './values.js';
export { UNKNOWN, describe, formatMs, isKnown, joinPath, pathOf, uniform, type ConfigProperty, type KeySegment, type ListItem, type Maybe, type PropertyValue, type Scalar } from './source.js';
