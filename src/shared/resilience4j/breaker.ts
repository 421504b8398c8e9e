/**
 * What a Resilience4j circuit-breaker block configures, as the starter builds it: every property is
 * taken from the nearest block of its chain (the instance builds on its base's CircuitBreakerConfig),
 * CircuitBreakerConfig's defaults fill the rest.
 */
import type { Block, Resilience4jTree } from './read.js';
import { UNKNOWN, type Maybe } from './source.js';

/** CircuitBreakerConfig's defaults. */
export const BREAKER_DEFAULTS = { failureRate: 50, minimumCalls: 100, windowSize: 100, countBased: true, openMs: 60_000, halfOpenCalls: 10 } as const;

export interface BreakerSettings<P> {
  readonly block: Block<P>;
  /** Percent. */
  readonly failureRate: Maybe<number>;
  readonly minimumCalls: Maybe<number>;
  readonly windowSize: Maybe<number>;
  readonly countBased: Maybe<boolean>;
  readonly openMs: Maybe<number>;
  readonly halfOpenCalls: Maybe<number>;
}

export function breakerSettings<P>(tree: Resilience4jTree<P>, block: Block<P>): BreakerSettings<P> {
  const chain = tree.chainOf(block);
  const get = <T>(name: string, fallback: T): Maybe<T> => {
    for (const b of chain.blocks) {
      const prop = b.props.get(name);
      if (prop !== undefined) return prop.value as Maybe<T>;
    }
    return chain.complete ? fallback : UNKNOWN;
  };
  // buildConfig refuses both open-state schedules on one block (IllegalStateException).
  const exp = block.props.get('enableexponentialbackoff');
  const rnd = block.props.get('enablerandomizedwait');
  if (exp?.value === true && rnd?.value === true) tree.problems.add('openStateBoth', rnd.path, rnd.at);
  const type = get<string>('slidingwindowtype', 'COUNT_BASED');
  return {
    block,
    failureRate: get('failureratethreshold', BREAKER_DEFAULTS.failureRate),
    minimumCalls: get('minimumnumberofcalls', BREAKER_DEFAULTS.minimumCalls),
    windowSize: get('slidingwindowsize', BREAKER_DEFAULTS.windowSize),
    countBased: type === UNKNOWN ? UNKNOWN : type === 'COUNT_BASED',
    openMs: get('waitdurationinopenstate', BREAKER_DEFAULTS.openMs),
    halfOpenCalls: get('permittednumberofcallsinhalfopenstate', BREAKER_DEFAULTS.halfOpenCalls),
  };
}
