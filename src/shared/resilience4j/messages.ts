/**
 * One message table for every problem the Resilience4j reader finds. The runtime's
 * PolicyConfigError prints `<key path>: <message> (<rule>)`; the linter's
 * `valid-resilience4j-config` rule reports the same key path and the same words.
 */
import { MAX_ATTEMPTS, QUEUE_MS } from '../guide-limits.js';

/** Guide rules a problem can break; binding problems break none (Spring cannot read the value at all). */
export type GuideRule = 'R-RES-RE-3' | 'R-RES-RE-4' | 'R-RES-RE-X2' | 'R-RES-RE-X3';

type Data = Readonly<Record<string, string | number>>;
interface Entry {
  readonly text: (data: Data) => string;
  readonly rule?: GuideRule;
}

const SPRING_DURATION = 'write 500ms, 2s, 1m or an ISO-8601 duration such as PT0.5S';

const table = {
  // ---- the shape of the key tree ----
  notBlock: { text: (d) => `must be a block of keys, got ${d['got']}` },
  invalidKey: { text: () => 'is not a valid key (empty segment or unbalanced brackets)' },
  notSingle: { text: (d) => `must be a single value, got ${d['got']}` },
  setTwice: { text: (d) => (d['other'] ? `is set twice (also as ${d['other']})` : 'is set twice (nested and as a dotted key, or in two spellings)') },
  valueAndKeys: { text: (d) => `holds a value and also keys below it (${d['below']})` },
  definedTwice: { text: () => 'is defined twice (under instances and under the legacy backends)' },
  unknownKey: { text: (d) => `is not a known key (${d['hint']}); a misspelt limit must not be silently ignored` },
  mergeKey: { text: () => 'is a YAML merge key the parser left unresolved; parse with merge keys on (yaml: parse(text, { merge: true }))' },
  renamed: { text: (d) => `is the old name of ${d['to']}, which Resilience4j 2 no longer reads (Spring ignores it); write ${d['to']}` },
  notSupported: { text: (d) => `is not supported: ${d['note']}`, rule: 'R-RES-RE-X3' },

  // ---- warnings: valid for Spring, nothing for the Node runtime ----
  otherModule: { text: () => 'is not applied by the Node runtime (it builds retries, circuit breakers and attempt timeouts)' },
  springOnly: { text: () => 'has no effect in the Node runtime (Spring only; for metrics see enableMetrics())' },
  noEffect: { text: (d) => `has no effect in the Node runtime: ${d['note']}` },

  // ---- values, as Spring Boot converts them ----
  placeholder: { text: (d) => `is a Spring placeholder (${d['value']}); resolve placeholders before passing the config, e.g. from process.env` },
  notDuration: { text: (d) => `${d['value']} is not a duration Spring accepts; ${SPRING_DURATION}` },
  fractionDuration: { text: (d) => `${d['value']} is not a duration Spring accepts (no fractions with units); write it as ${d['hint']}` },
  unitDuration: { text: (d) => `${d['value']} is not a duration Spring accepts (units are ns, us, ms, s, m, h and d); ${SPRING_DURATION}` },
  numberDuration: { text: (d) => `${d['value']} is not a duration Spring accepts (a bare number is whole milliseconds); ${SPRING_DURATION}` },
  durationType: { text: (d) => `must be a duration such as 500ms, 2s or PT0.5S, got ${d['got']}` },
  notBoolean: { text: (d) => `must be true or false, got ${d['got']}${d['number'] ? ' (Spring does not read a number as a boolean)' : ''}` },
  notNumber: { text: (d) => `must be a number, got ${d['got']}` },
  notWhole: { text: (d) => (d['cut'] !== undefined ? `is ${d['value']}, which Spring silently cuts to ${d['cut']}; write a whole number` : `must be a whole number, got ${d['value']}`) },
  notEnum: { text: (d) => `must be ${d['allowed']}, got ${d['got']}` },
  notName: { text: (d) => `must name a config under resilience4j.${d['module']}.configs, got ${d['got']}` },
  notText: { text: (d) => `must be text, got ${d['got']}` },

  // ---- what Resilience4j refuses at startup ----
  outOfRange: { text: (d) => `is ${d['value']}, which Resilience4j refuses at startup: ${d['range']}` },
  missingBase: { text: (d) => `names '${d['name']}', which is not a config under resilience4j.${d['module']}.configs (Spring fails to start on this too)` },
  baseLoop: { text: (d) => `base-config chain loops back to '${d['name']}' (Spring fails to start on this too)` },
  intervalNeedsWait: {
    text: () => 'is 0, which Resilience4j refuses for exponential or randomized waits (they need at least 1 ms); retrying at once is no backoff at all',
    rule: 'R-RES-RE-X3',
  },
  capNeedsWait: { text: () => 'is 0, which Resilience4j refuses as the cap of exponential waits (at least 1 ms)' },
  openStateBoth: { text: () => 'is true together with enable-exponential-backoff, which Resilience4j refuses at startup for the open state; keep one of them' },

  // ---- what Spring accepts but silently ignores ----
  dropped: {
    text: (d) => `has no effect: Resilience4j applies it only when ${d['needs']} is set too (for this block the waits are ${d['actual']}); set ${d['needs']}`,
    rule: 'R-RES-RE-X3',
  },

  // ---- what the runtime cannot apply ----
  timeoutZero: { text: () => 'is 0: every attempt would time out at once' },

  // ---- the guide's limits (the runtime's judgement; the linter's rules say the same) ----
  tooManyAttempts: {
    text: (d) => `is ${d['n']}; attempts (the first call included) must be 1..${MAX_ATTEMPTS}, and more than ${MAX_ATTEMPTS} belongs in a task queue`,
    rule: 'R-RES-RE-3',
  },
  noBackoff: { text: () => 'is 0: Resilience4j then retries at once, with no backoff at all', rule: 'R-RES-RE-X3' },
  backoffNotSet: {
    text: () => 'is not set, so Resilience4j waits the same time before every retry; set enable-exponential-backoff: true',
    rule: 'R-RES-RE-X3',
  },
  backoffOff: { text: () => 'turns exponential backoff off; constant waits hit a recovering dependency in step', rule: 'R-RES-RE-X3' },
  noIntervalFunction: {
    text: () =>
      'is not set anywhere in the chain, so Resilience4j installs no interval function: enable-exponential-backoff and enable-randomized-wait do nothing and every wait is a fixed 500 ms; set wait-duration',
    rule: 'R-RES-RE-X3',
  },
  switchIgnored: {
    text: (d) =>
      `does nothing here: this block has no wait-duration of its own, and Resilience4j builds the waits where wait-duration is written (${d['source']}); set wait-duration here too, or move this setting there`,
    rule: 'R-RES-RE-X3',
  },
  multiplierFlat: { text: (d) => `is ${d['m']}; it must be above 1, or the waits do not grow (constant or shrinking backoff)`, rule: 'R-RES-RE-X3' },
  capBelowWait: { text: (d) => `(${d['cap']}) is not above wait-duration (${d['wait']}), so the waits could not grow`, rule: 'R-RES-RE-X3' },
  jitterNotSet: {
    text: () => 'is not set, so every client waits exactly the same time and they come back together; set enable-randomized-wait: true',
    rule: 'R-RES-RE-X3',
  },
  jitterOff: { text: () => 'turns jitter off; without randomness all clients come back in step', rule: 'R-RES-RE-X3' },
  factorZero: { text: () => 'is 0, which leaves no randomness in the waits', rule: 'R-RES-RE-X3' },
  tooLong: {
    text: (d) =>
      `can spend up to ${d['worst']} retrying in memory (${d['parts']}), above ${d['max']}; lower max-attempts, wait-duration or exponential-max-wait-duration, or move the work to a task queue${Number(d['worstMs']) > QUEUE_MS ? ' polled by a database-driven scheduler (R-RES-RE-5)' : ''}`,
    rule: 'R-RES-RE-4',
  },
  retriesClientError: {
    text: (d) =>
      `retries HTTP ${d['status']}, a client error that fails the same way on every attempt; Spring retries it as this file says (the Node runtime never retries 4xx). Retry only network errors, 408, 429 and 5xx`,
    rule: 'R-RES-RE-X2',
  },
  retriesEverything: {
    text: (d) =>
      `${d['written'] ? 'stops no 4xx' : 'is not set'}, so Resilience4j retries every exception, 4xx client errors included (the Node runtime never retries 4xx); ignore your client's 4xx exception (org.springframework.web.client.HttpClientErrorException, WebClientResponseException or FeignException$FeignClientException)`,
    rule: 'R-RES-RE-X2',
  },
} satisfies Record<string, Entry>;

export type MessageCode = keyof typeof table;
const MESSAGES: Record<MessageCode, Entry> = table;

export interface ConfigProblem<P> {
  readonly code: MessageCode;
  /** The key path, e.g. `resilience4j.retry.instances.sber.max-attempts`. */
  readonly path: string;
  readonly message: string;
  readonly rule?: GuideRule | undefined;
  /** Where it is written; undefined when the problem is about a key that is not written. */
  readonly at: P | undefined;
}

export function problem<P>(code: MessageCode, path: string, at: P | undefined, data: Data = {}): ConfigProblem<P> {
  const entry = MESSAGES[code];
  return { code, path, at, message: entry.text(data), ...(entry.rule ? { rule: entry.rule } : {}) };
}

/** A problem as one line, the way PolicyConfigError prints it and the linter reports it. */
export function problemLine(p: Pick<ConfigProblem<unknown>, 'path' | 'message' | 'rule'>): string {
  return `${p.path}: ${p.message}${p.rule ? ` (${p.rule})` : ''}`;
}
