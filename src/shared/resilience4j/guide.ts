/**
 * A Resilience4j retry judged against the guide's limits, the way the plugin's rules judge the
 * same block as a retry site: max-retry-attempts, require-exponential-backoff, require-jitter,
 * max-retry-duration and no-retry-on-client-error, with the same exemptions (one attempt has no
 * waits; two attempts have one wait, which cannot grow but must exist and be randomised). The runtime refuses what
 * this finds; a table-driven test holds it to the rules' verdict on the same file.
 */
import { IN_MEMORY_MS, MAX_ATTEMPTS } from '../guide-limits.js';
import { problem, type ConfigProblem } from './messages.js';
import type { Cause, RetrySettings } from './retry.js';
import { formatMs, isKnown, joinPath } from './source.js';

export function judgeRetry<P>(s: RetrySettings<P>): ConfigProblem<P>[] {
  const out: ConfigProblem<P>[] = [];
  const add = (c: Cause<P>) => out.push(problem(c.code, c.path, c.at, c.data));
  const { attempts, block } = s;
  if (isKnown(attempts) && attempts > MAX_ATTEMPTS) {
    out.push(problem('tooManyAttempts', s.attemptsProp?.path ?? joinPath(block.path, 'max-attempts'), s.attemptsProp?.at, { n: attempts }));
  }
  if (attempts === 1) return out;

  const rejectedGrowth = s.growth === 'none' || (s.growth === 'constant' && attempts !== 2);
  if (rejectedGrowth && s.growthCause) add(s.growthCause);
  // Waits need jitter, a single fixed wait too (every client that failed together comes back at the
  // same instant); when the waits do not grow either, say both, so one edit fixes the block.
  if (s.jitter === false && s.jitterCause && (s.growth === 'exponential' || s.growth === 'constant' || rejectedGrowth)) add(s.jitterCause);

  // Over the attempt bound, the time follows from the attempts: one problem, one edit.
  const worst = isKnown(attempts) && attempts > MAX_ATTEMPTS ? 0 : s.worstCaseMs();
  if (isKnown(worst) && worst > IN_MEMORY_MS) {
    const timeout = s.timeout !== undefined && isKnown(s.timeout.ms) && s.timeout.ms > 0 ? s.timeout : undefined;
    const waits = worst - (timeout && isKnown(attempts) ? attempts * (timeout.ms as number) : 0);
    const parts = `waits up to ${formatMs(waits)}${timeout && isKnown(attempts) ? ` plus ${attempts} attempts x ${formatMs(timeout.ms as number)} (${timeout.path})` : ''}`;
    out.push(problem('tooLong', block.path, block.at, { worst: formatMs(worst), parts, max: formatMs(IN_MEMORY_MS), worstMs: worst }));
  }

  for (const { status, item } of s.errors.clientErrors) out.push(problem('retriesClientError', item.path, item.at, { status }));
  if (s.errors.clientErrors.length === 0 && s.errors.retriesEverything) {
    const ignore = s.errors.retriesEverything.ignore;
    out.push(problem('retriesEverything', ignore?.path ?? joinPath(block.path, 'ignore-exceptions'), ignore?.at ?? block.at, ignore ? { written: 1 } : {}));
  }
  return out;
}
