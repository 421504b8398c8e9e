/**
 * Which retry sites each rule judges: one policy, one row per aspect of a retry, instead of each
 * rule deciding for itself. Rules ask the model: `model.sitesFor('jitter')`.
 *
 * Durable engines (Temporal activities, BullMQ jobs) are the guide's answer for work that must
 * eventually succeed (R-RES-RE-5), not in-memory retries. They are judged by R-RES-RE-5's own
 * terms, a bounded count of attempts and exponential backoff, and never by the in-memory ones: the
 * 5 s budget of R-RES-RE-4, jitter where the engine has no setting for it, a circuit breaker.
 */
import type { LibraryDescriptor } from './library.js';
import type { HelperFinding, RetrySite } from './model.js';
import type { ClientSetting } from './operations/types.js';

export type Aspect = 'attempts' | 'duration' | 'backoff' | 'jitter' | 'breaker' | 'writes' | 'keys' | 'client-errors' | 'nested';

export interface AspectPolicy {
  /**
   * Durable engines: `judged`, `never`, or `if-engine-has-setting` (judged only when the engine can
   * do what is asked, e.g. BullMQ's backoff `jitter`; Temporal has none).
   */
  readonly durable: 'judged' | 'never' | 'if-engine-has-setting';
  /** Sites that exist only because a library retries by default (a plain `got(url)`, an SDK client). */
  readonly implicit: boolean;
  /** Client-level retries (a configured client or instance: every call through it). */
  readonly clientLevel: boolean;
  /**
   * Calls of the team's own retry helper: `in-helper` when the finding belongs to the helper's code
   * (its numbers and defaults, reported once where the helper is written), `at-call` otherwise.
   */
  readonly helper: 'in-helper' | 'at-call';
  /**
   * "Repair, then try again" (a site with `repair`): not a transient-failure retry (a look-alike in
   * the labelling guide), so judged for what it may still be: a write sent again, with or without
   * a stable key, and a loop nothing bounds (a refresh that keeps failing calls forever). Its
   * pauses, time, breaker and the 4xx its repair answers are not judged.
   */
  readonly repair: boolean;
  /**
   * A transaction re-run on a conflict the database rolled back (a site with `conflictRerun`): no
   * transient-failure retry and nothing written twice, so judged only for a count nothing bounds
   * or that exceeds the guide's. Its pauses, time, jitter, writes and breaker are not judged.
   */
  readonly conflictRerun: boolean;
  /**
   * A persistent connection re-established after it dropped (a site with `connection:
   * 'reconnection'`): `written` when judged where a strategy is written (never on the library's
   * defaults), `never` for what belongs to request retries (a count, a time budget, a breaker:
   * a client that gives up reconnecting is broken, not safe).
   */
  readonly reconnection: 'written' | 'never';
  /**
   * The requests queued on such a connection (`connection: 'queued-request'`): judged for their
   * count and time only; the waits are the reconnection's, judged there once.
   */
  readonly queuedRequest: boolean;
  /**
   * The client settings this aspect judges, so that each is judged once: a client whose every call
   * writes one of them itself (the client used only in its file, only by calls) is not judged at
   * its construction, where its defaults apply to no request; a call that takes all of them from
   * its client's options is left to the client's site.
   */
  readonly clientSettings?: readonly ClientSetting[];
}

export const SELECTION: Readonly<Record<Aspect, AspectPolicy>> = {
  // R-RES-RE-3 in memory; R-RES-RE-5's bounded count for durable engines.
  attempts: { durable: 'judged', implicit: true, clientLevel: true, helper: 'in-helper', conflictRerun: true, repair: true, reconnection: 'never', queuedRequest: true, clientSettings: ['attempts'] },
  // R-RES-RE-4: time spent retrying in memory; a durable engine holds no worker between attempts.
  duration: { durable: 'never', implicit: true, clientLevel: true, helper: 'in-helper', conflictRerun: false, repair: false, reconnection: 'never', queuedRequest: true, clientSettings: ['attempts', 'delay'] },
  // R-RES-RE-2/X3 in memory, R-RES-RE-5's exponential next attempt for durable engines.
  backoff: { durable: 'judged', implicit: true, clientLevel: true, helper: 'in-helper', conflictRerun: false, repair: false, reconnection: 'written', queuedRequest: false, clientSettings: ['delay'] },
  // R-RES-RE-X3's jitter: only where the engine has a setting for it.
  jitter: { durable: 'if-engine-has-setting', implicit: true, clientLevel: true, helper: 'in-helper', conflictRerun: false, repair: false, reconnection: 'written', queuedRequest: false, clientSettings: ['jitter'] },
  // R-RES-CB-1: asked of retries someone wrote, not of library defaults nor durable engines.
  breaker: { durable: 'never', implicit: false, clientLevel: true, helper: 'in-helper', conflictRerun: false, repair: false, reconnection: 'never', queuedRequest: false },
  // R-RES-RE-1/X1: an unkeyed write repeated by an in-memory retry.
  writes: { durable: 'never', implicit: true, clientLevel: true, helper: 'at-call', conflictRerun: false, repair: true, reconnection: 'never', queuedRequest: true },
  keys: { durable: 'judged', implicit: true, clientLevel: true, helper: 'at-call', conflictRerun: false, repair: true, reconnection: 'never', queuedRequest: true },
  'client-errors': { durable: 'judged', implicit: true, clientLevel: true, helper: 'at-call', conflictRerun: false, repair: false, reconnection: 'never', queuedRequest: true },
  nested: { durable: 'judged', implicit: true, clientLevel: true, helper: 'at-call', conflictRerun: false, repair: false, reconnection: 'never', queuedRequest: true },
};

/** The sites `aspect`'s rule judges. A site that makes a single call is not a retry for any aspect. */
export function selectSites(
  sites: readonly RetrySite[],
  aspect: Aspect,
  descriptorOf: (id: string) => LibraryDescriptor | undefined,
  overriddenByEveryCall: (site: RetrySite, setting: ClientSetting) => boolean = () => false,
): RetrySite[] {
  const policy = SELECTION[aspect];
  return sites.filter((site) => {
    if (site.attempts.value === 1) return false;
    if (site.kind === 'durable') {
      if (policy.durable === 'never') return false;
      if (policy.durable === 'if-engine-has-setting' && !descriptorOf(site.library)?.engine?.jitterSetting) return false;
    }
    if (site.implicit && !policy.implicit) return false;
    if (site.clientLevel && !policy.clientLevel) return false;
    if (policy.helper === 'in-helper' && site.fromHelper?.has(aspect as HelperFinding)) return false;
    if (site.repair && !policy.repair) return false;
    if (site.conflictRerun && !policy.conflictRerun) return false;
    if (site.connection === 'reconnection' && (policy.reconnection === 'never' || site.implicit)) return false;
    if (site.connection === 'queued-request' && !policy.queuedRequest) return false;
    const settings = policy.clientSettings;
    if (settings && (site.clientLevel ? settings.some((s) => overriddenByEveryCall(site, s)) : settings.every((s) => site[s].inherited))) return false;
    return true;
  });
}

/** `model.sitesFor`: each aspect's list built on the first question and kept with the model. */
export function siteSelection(
  sites: readonly RetrySite[],
  libraries: readonly LibraryDescriptor[],
  overriddenByEveryCall?: (site: RetrySite, setting: ClientSetting) => boolean,
): (aspect: Aspect) => readonly RetrySite[] {
  const lists = new Map<Aspect, RetrySite[]>();
  let byId: Map<string, LibraryDescriptor> | undefined;
  const descriptorOf = (id: string) => (byId ??= new Map(libraries.map((l) => [l.id, l]))).get(id);
  return (aspect) => {
    let list = lists.get(aspect);
    if (!list) lists.set(aspect, (list = selectSites(sites, aspect, descriptorOf, overriddenByEveryCall)));
    return list;
  };
}
