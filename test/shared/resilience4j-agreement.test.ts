/**
 * One application.yml, two readers that must agree: the linter with the `resilience4j` preset finds
 * nothing in a file exactly when createPolicyRegistry accepts its `resilience4j` section, and what
 * Spring cannot bind is said in the same words on both sides. Each row states the verdict Spring,
 * Resilience4j and the guide give, and both sides are held to it.
 */
import { Linter } from 'eslint';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import plugin from '../../src/index.js';
import { createPolicyRegistry, PolicyConfigError, type PolicyConfigIssue } from '../../src/runtime/index.js';

const CLIENT_4XX = 'org.springframework.web.client.HttpClientErrorException';

/** The guide's typical block (R-RES-RE-2) with jitter and the 4xx exclusion: both sides accept it. */
const GOOD: Record<string, string> = {
  'max-attempts': '3',
  'wait-duration': '500ms',
  'enable-exponential-backoff': 'true',
  'exponential-backoff-multiplier': '2',
  'enable-randomized-wait': 'true',
  'ignore-exceptions': CLIENT_4XX,
};

/** `resilience4j.retry.instances.pay` as GOOD with some keys changed (a null value drops the key). */
function pay(changes: Record<string, string | null> = {}, extra = ''): string {
  const lines = Object.entries({ ...GOOD, ...changes })
    .filter((entry): entry is [string, string] => entry[1] !== null)
    .map(([k, v]) => `        ${k}: ${v}`);
  return `resilience4j:\n  retry:\n    instances:\n      pay:\n${lines.join('\n')}\n${extra}`;
}

const GOOD_DEFAULT = `resilience4j:
  retry:
    configs:
      default:
${Object.entries(GOOD).map(([k, v]) => `        ${k}: ${v}`).join('\n')}
`;

type Verdict = 'accept' | 'reject';

const CASES: ReadonlyArray<readonly [string, string, Verdict]> = [
  // ---- durations, as Spring's DurationStyle reads them ----
  ['the guide\'s block', pay(), 'accept'],
  ['wait-duration: 1s', pay({ 'wait-duration': '1s' }), 'accept'],
  ['wait-duration: PT0.5S (ISO-8601)', pay({ 'wait-duration': 'PT0.5S' }), 'accept'],
  ['wait-duration: pt0.5s (ISO-8601 is case-insensitive)', pay({ 'wait-duration': 'pt0.5s' }), 'accept'],
  ['wait-duration: P0DT0.5S', pay({ 'wait-duration': 'P0DT0.5S' }), 'accept'],
  ['wait-duration: 500 (bare number: milliseconds)', pay({ 'wait-duration': '500' }), 'accept'],
  ['wait-duration: "500" (quoted)', pay({ 'wait-duration': '"500"' }), 'accept'],
  ['wait-duration: 500MS (units are case-insensitive)', pay({ 'wait-duration': '500MS' }), 'accept'],
  ['wait-duration: 500000us', pay({ 'wait-duration': '500000us' }), 'accept'],
  ['wait-duration: 0.2s (no fractions with units)', pay({ 'wait-duration': '0.2s' }), 'reject'],
  ['wait-duration: 1.5m', pay({ 'wait-duration': '1.5m' }), 'reject'],
  ['wait-duration: 1.5 (a YAML float is a Double)', pay({ 'wait-duration': '1.5' }), 'reject'],
  ['wait-duration: 500 ms (a space)', pay({ 'wait-duration': '500 ms' }), 'reject'],
  ['wait-duration: 5x (no such unit)', pay({ 'wait-duration': '5x' }), 'reject'],
  ['wait-duration: 1w (no weeks)', pay({ 'wait-duration': '1w' }), 'reject'],
  ['wait-duration: soon', pay({ 'wait-duration': 'soon' }), 'reject'],
  ['wait-duration: PT (no time part)', pay({ 'wait-duration': 'PT' }), 'reject'],
  ['wait-duration: P1DT (a T with nothing after it)', pay({ 'wait-duration': 'P1DT' }), 'reject'],
  ['wait-duration: -500ms (negative)', pay({ 'wait-duration': '-500ms' }), 'reject'],
  ['wait-duration: PT-0.5S (negative)', pay({ 'wait-duration': 'PT-0.5S' }), 'reject'],
  ['wait-duration: 0ms with exponential backoff (IntervalFunction needs 1 ms)', pay({ 'wait-duration': '0ms' }), 'reject'],
  ['wait-duration: 400us with exponential backoff (0 ms once truncated)', pay({ 'wait-duration': '400us' }), 'reject'],
  ['wait-duration: [500ms] (a list)', pay({ 'wait-duration': '[500ms]' }), 'reject'],
  ['wait-duration: 3d (far past 5 s)', pay({ 'wait-duration': '3d' }), 'reject'],
  ['exponential-max-wait-duration: 2x', pay({ 'exponential-max-wait-duration': '2x' }), 'reject'],
  ['exponential-max-wait-duration: 1s (with the multiplier and factor it needs)', pay({ 'exponential-max-wait-duration': '1s', 'randomized-wait-factor': '0.5' }), 'accept'],
  ['exponential-max-wait-duration without randomized-wait-factor (Resilience4j drops the cap)', pay({ 'exponential-max-wait-duration': '1s' }), 'reject'],
  ['exponential-max-wait-duration: 400ms (below the first wait: no growth)', pay({ 'exponential-max-wait-duration': '400ms', 'randomized-wait-factor': '0.5' }), 'reject'],
  ['exponential-max-wait-duration without exponential-backoff-multiplier (Resilience4j drops the cap)', pay({ 'exponential-backoff-multiplier': null, 'exponential-max-wait-duration': '1s' }), 'reject'],
  ['randomized-wait-factor without exponential-backoff-multiplier (Resilience4j drops it)', pay({ 'exponential-backoff-multiplier': null, 'randomized-wait-factor': '0.2' }), 'reject'],

  // ---- booleans ----
  ['enable-randomized-wait: yes', pay({ 'enable-randomized-wait': 'yes' }), 'accept'],
  ['enable-randomized-wait: on', pay({ 'enable-randomized-wait': 'on' }), 'accept'],
  ['enable-randomized-wait: "TRUE"', pay({ 'enable-randomized-wait': '"TRUE"' }), 'accept'],
  ['enable-randomized-wait: "1" (a string)', pay({ 'enable-randomized-wait': '"1"' }), 'accept'],
  ['enable-randomized-wait: 1 (a number: Spring has no converter)', pay({ 'enable-randomized-wait': '1' }), 'reject'],
  ['enable-randomized-wait: maybe', pay({ 'enable-randomized-wait': 'maybe' }), 'reject'],
  ['enable-randomized-wait: false', pay({ 'enable-randomized-wait': 'false' }), 'reject'],
  ['enable-randomized-wait not set', pay({ 'enable-randomized-wait': null }), 'reject'],
  ['enable-exponential-backoff: false', pay({ 'enable-exponential-backoff': 'false' }), 'reject'],
  ['enable-exponential-backoff not set', pay({ 'enable-exponential-backoff': null }), 'reject'],

  // ---- numbers ----
  ['max-attempts: "3" (a string)', pay({ 'max-attempts': '"3"' }), 'accept'],
  ['max-attempts: 3.0 (Spring binds 3)', pay({ 'max-attempts': '3.0' }), 'accept'],
  ['max-attempts: 0x3', pay({ 'max-attempts': '0x3' }), 'accept'],
  ['max-attempts: 3.5 (Spring cuts it to 3)', pay({ 'max-attempts': '3.5' }), 'reject'],
  ['max-attempts: "3.5"', pay({ 'max-attempts': '"3.5"' }), 'reject'],
  ['max-attempts: three', pay({ 'max-attempts': 'three' }), 'reject'],
  ['max-attempts: 0 (Resilience4j refuses it)', pay({ 'max-attempts': '0' }), 'reject'],
  ['max-attempts: -1', pay({ 'max-attempts': '-1' }), 'reject'],
  ['max-attempts: 6 (over the guide\'s 5)', pay({ 'max-attempts': '6' }), 'reject'],
  ['max-attempts: 5 at 500 ms x2 (11 s of waits)', pay({ 'max-attempts': '5' }), 'reject'],
  ['max-attempts: 5 at 100 ms x1.5', pay({ 'max-attempts': '5', 'wait-duration': '100ms', 'exponential-backoff-multiplier': '1.5' }), 'accept'],
  ['max-attempts: 1 with nothing else (no retry at all)', 'resilience4j.retry.instances.pay.max-attempts: 1\n', 'accept'],
  ['max-attempts: 2 with a fixed wait (one wait cannot grow, but needs jitter)', pay({ 'max-attempts': '2', 'enable-exponential-backoff': 'false', 'enable-randomized-wait': null }), 'reject'],
  ['max-attempts: 2 with a randomized fixed wait', pay({ 'max-attempts': '2', 'enable-exponential-backoff': 'false' }), 'accept'],
  ['max-attempts: 2 with no wait at all', pay({ 'max-attempts': '2', 'wait-duration': '0ms', 'enable-exponential-backoff': 'false', 'enable-randomized-wait': null }), 'reject'],
  ['exponential-backoff-multiplier: 1', pay({ 'exponential-backoff-multiplier': '1' }), 'reject'],
  ['exponential-backoff-multiplier: 0.5', pay({ 'exponential-backoff-multiplier': '0.5' }), 'reject'],
  ['exponential-backoff-multiplier: 0 (Resilience4j refuses it)', pay({ 'exponential-backoff-multiplier': '0' }), 'reject'],
  ['exponential-backoff-multiplier: "2.0"', pay({ 'exponential-backoff-multiplier': '"2.0"' }), 'accept'],
  ['randomized-wait-factor: 0.99', pay({ 'randomized-wait-factor': '0.99' }), 'accept'],
  ['randomized-wait-factor: 0 (no randomness)', pay({ 'randomized-wait-factor': '0' }), 'reject'],
  ['randomized-wait-factor: 1 (Resilience4j wants [0, 1))', pay({ 'randomized-wait-factor': '1' }), 'reject'],
  ['event-consumer-buffer-size: 0 (Resilience4j refuses it)', pay({ 'event-consumer-buffer-size': '0' }), 'reject'],

  // ---- exception lists and 4xx ----
  ['retry-exceptions: IOException, ignore-exceptions: the 4xx class', pay({ 'retry-exceptions': '[java.io.IOException]' }), 'accept'],
  ['ignore-exceptions[0] written key by key', pay({ 'ignore-exceptions': null, [`ignore-exceptions[0]`]: CLIENT_4XX }), 'accept'],
  ['ignore-exceptions not set: every exception retried, 4xx included', pay({ 'ignore-exceptions': null }), 'reject'],
  ['ignore-exceptions that stops no 4xx', pay({ 'ignore-exceptions': '[com.example.BusinessException]' }), 'reject'],
  ['retry-exceptions lists HttpClientErrorException (comma-separated)', pay({ 'ignore-exceptions': null, 'retry-exceptions': `java.io.IOException, ${CLIENT_4XX}` }), 'reject'],
  ['retry-exceptions: RuntimeException, nothing ignored', pay({ 'ignore-exceptions': null, 'retry-exceptions': '[java.lang.RuntimeException]' }), 'reject'],
  ['retry-exceptions: HttpClientErrorException$NotFound under an ignore of its family', pay({ 'retry-exceptions': `[${CLIENT_4XX}$NotFound]` }), 'accept'],
  ['WebClient: its response exception ignored', pay({ 'ignore-exceptions': 'org.springframework.web.reactive.function.client.WebClientResponseException' }), 'accept'],
  ['a retry-exception-predicate decides', pay({ 'ignore-exceptions': null, 'retry-exception-predicate': 'com.example.RetryOnServerErrors' }), 'accept'],

  // ---- base-config, configs and instances ----
  ['an instance on configs.default', `${GOOD_DEFAULT}    instances:\n      pay:\n        base-config: default\n`, 'accept'],
  ['an instance inheriting configs.default without naming it', `${GOOD_DEFAULT}    instances:\n      pay:\n        max-attempts: 2\n`, 'accept'],
  ['a chain: instance -> slow -> default', `${GOOD_DEFAULT}      slow:\n        base-config: default\n        wait-duration: 200ms\n    instances:\n      pay:\n        base-config: slow\n`, 'accept'],
  ['a bad value in an unused config', `${GOOD_DEFAULT}      slow:\n        max-attempts: 9\n`, 'reject'],
  ['a base-config loop', `${GOOD_DEFAULT}      a:\n        base-config: b\n      b:\n        base-config: a\n    instances:\n      pay:\n        base-config: a\n`, 'reject'],
  ['a base-config that names no config of the file', `${GOOD_DEFAULT}    instances:\n      pay:\n        base-config: defualt\n`, 'reject'],
  ['a switch on an instance without its own wait-duration does nothing', `${GOOD_DEFAULT.replace('enable-randomized-wait: true', 'enable-randomized-wait: false')}    instances:\n      pay:\n        enable-randomized-wait: true\n`, 'reject'],
  ['enable-exponential-backoff: false on an instance without its own wait-duration (Spring keeps the base\'s waits)', `${GOOD_DEFAULT}    instances:\n      pay:\n        base-config: default\n        enable-exponential-backoff: false\n`, 'reject'],
  ['an instance with its own wait-duration builds its waits from the inherited switches', `${GOOD_DEFAULT}    instances:\n      pay:\n        wait-duration: 200ms\n`, 'accept'],
  ['switches with no wait-duration anywhere (a fixed 500 ms)', pay({ 'wait-duration': null }), 'reject'],
  ['the legacy backends key', pay().replace('instances:', 'backends:'), 'accept'],
  ['one name under instances and backends', `${pay()}    backends:\n      pay:\n        max-attempts: 2\n`, 'reject'],
  ['anchors and << merge keys', `x-retry: &retry\n${Object.entries(GOOD).map(([k, v]) => `  ${k}: ${v}`).join('\n')}\nresilience4j.retry.instances.pay:\n  <<: *retry\n  max-attempts: 2\n`, 'accept'],
  ['fully dotted keys', Object.entries(GOOD).map(([k, v]) => `resilience4j.retry.instances.pay.${k}: ${v}`).join('\n') + '\n', 'accept'],
  ['camelCase property names', pay().replace('max-attempts', 'maxAttempts').replace('wait-duration', 'waitDuration'), 'accept'],
  ['one property twice (dotted and nested)', `${pay()}resilience4j.retry.instances.pay.max-attempts: 2\n`, 'reject'],
  ['one property twice (two spellings)', pay({ maxAttempts: '2' }), 'reject'],

  // ---- keys ----
  ['a misspelt key (wait-duraton)', pay({ 'wait-duraton': '1s' }), 'reject'],
  ['a misspelt group (instanses)', pay().replace('instances:', 'instanses:'), 'reject'],
  ['a misspelt module (circuitbraker)', `${pay()}  circuitbraker:\n    instances:\n      pay:\n        failure-rate-threshold: 50\n`, 'reject'],
  ['max-retry-attempts, which Resilience4j 2 no longer reads', pay({ 'max-attempts': null, 'max-retry-attempts': '3' }), 'reject'],
  ['interval-bi-function (a Java class)', pay({ 'interval-bi-function': 'com.example.Backoff' }), 'reject'],
  ['keys that do nothing in Node (bulkhead, aspect order, fail-after-max-attempts)', `${pay({ 'fail-after-max-attempts': 'true' })}    retry-aspect-order: 1\n  bulkhead:\n    instances:\n      pay:\n        max-concurrent-calls: 10\n`, 'accept'],

  // ---- time limiter and circuit breaker ----
  ['a TimeLimiter of 800 ms per attempt (4.65 s in all)', `${pay()}  timelimiter:\n    instances:\n      pay:\n        timeout-duration: 800ms\n`, 'accept'],
  ['a TimeLimiter of 2 s per attempt (over 5 s)', `${pay()}  timelimiter:\n    instances:\n      pay:\n        timeout-duration: 2s\n`, 'reject'],
  ['a TimeLimiter on its 1 s default (5.25 s in all)', `${pay()}  timelimiter:\n    instances:\n      pay:\n        cancel-running-future: true\n`, 'reject'],
  ['a TimeLimiter of 0 (every attempt times out)', `${pay()}  timelimiter:\n    instances:\n      pay:\n        timeout-duration: 0s\n`, 'reject'],
  ['a TimeLimiter timeout of "soon"', `${pay()}  timelimiter:\n    configs:\n      default:\n        timeout-duration: soon\n`, 'reject'],
  ['a circuit breaker of the same name', `${pay()}  circuitbreaker:\n    instances:\n      pay:\n        failure-rate-threshold: 50\n        sliding-window-type: count-based\n        wait-duration-in-open-state: 10s\n`, 'accept'],
  ['failure-rate-threshold: 0', `${pay()}  circuitbreaker:\n    instances:\n      pay:\n        failure-rate-threshold: 0\n`, 'reject'],
  ['failure-rate-threshold: 101', `${pay()}  circuitbreaker:\n    instances:\n      pay:\n        failure-rate-threshold: 101\n`, 'reject'],
  ['failure-rate-threshold: 0.5 (a percentage, at least 1)', `${pay()}  circuitbreaker:\n    instances:\n      pay:\n        failure-rate-threshold: 0.5\n`, 'reject'],
  ['sliding-window-type: SLIDING', `${pay()}  circuitbreaker:\n    instances:\n      pay:\n        sliding-window-type: SLIDING\n`, 'reject'],
  ['wait-duration-in-open-state: 0', `${pay()}  circuitbreaker:\n    instances:\n      pay:\n        wait-duration-in-open-state: 0\n`, 'reject'],
  ['minimum-number-of-calls: 0', `${pay()}  circuitbreaker:\n    instances:\n      pay:\n        minimum-number-of-calls: 0\n`, 'reject'],
  ['both open-state schedules on one breaker', `${pay()}  circuitbreaker:\n    instances:\n      pay:\n        enable-exponential-backoff: true\n        enable-randomized-wait: true\n`, 'reject'],
  ['a breaker base-config that names no config', `${pay()}  circuitbreaker:\n    configs:\n      shared:\n        failure-rate-threshold: 50\n    instances:\n      pay:\n        base-config: sharde\n`, 'reject'],
];

interface Finding {
  rule: string;
  message: string;
}

function lint(yaml: string): Finding[] {
  const messages = new Linter({ configType: 'flat' }).verify(yaml, [plugin.configs.resilience4j as Linter.Config], 'src/main/resources/application.yml');
  for (const m of messages) if (m.fatal) throw new Error(`parse error: ${m.message}`);
  return messages.map((m) => ({ rule: (m.ruleId ?? '').replace('safe-retry/', ''), message: m.message }));
}

/** The file's `resilience4j` section, dotted top-level keys included, as a careful loader passes it. */
function section(yaml: string): Record<string, unknown> {
  const doc = parse(yaml, { merge: true }) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(doc).filter(([key]) => key === 'resilience4j' || key.startsWith('resilience4j.')));
}

function register(yaml: string): PolicyConfigIssue[] {
  try {
    createPolicyRegistry(section(yaml), { onWarning: () => {} });
    return [];
  } catch (error) {
    if (!(error instanceof PolicyConfigError)) throw error;
    return [...error.issues];
  }
}

describe('the linter finds nothing exactly when the registry accepts', () => {
  it.each(CASES)('%s', (_name, yaml, verdict) => {
    const findings = lint(yaml);
    const issues = register(yaml);
    const summary = { linter: findings.map((f) => `${f.rule}: ${f.message}`), runtime: issues.map((i) => `${i.path}: ${i.message}`) };
    expect({ linter: findings.length === 0 ? 'accept' : 'reject', runtime: issues.length === 0 ? 'accept' : 'reject' }, JSON.stringify(summary, null, 2)).toEqual({ linter: verdict, runtime: verdict });
  });
});

describe('what Spring cannot bind is said in the same words', () => {
  const line = (i: PolicyConfigIssue) => `${i.path}: ${i.message}${i.rule ? ` (${i.rule})` : ''}`;
  it.each(CASES.filter(([, yaml]) => lint(yaml).some((f) => f.rule === 'valid-resilience4j-config')))('%s', (_name, yaml) => {
    const runtime = register(yaml).map(line);
    for (const finding of lint(yaml).filter((f) => f.rule === 'valid-resilience4j-config')) {
      // The linter cites R-RES-RE-2 where the runtime names no rule (Spring cannot read the value at all).
      const words = finding.message.replace(/ \(R-RES-RE-2\)\.$/, '').replace(/\.$/, '');
      expect(runtime, finding.message).toContain(words);
    }
  });

  it('says "not a duration Spring accepts" for 0.2s on both sides (the issue\'s example)', () => {
    const yaml = pay({ 'wait-duration': '0.2s' });
    const words = 'resilience4j.retry.instances.pay.wait-duration: "0.2s" is not a duration Spring accepts (no fractions with units); write it as 200ms or PT0.2S';
    expect(lint(yaml).map((f) => f.message)).toEqual([`${words} (R-RES-RE-2).`]);
    expect(register(yaml).map(line)).toEqual([words]);
  });
});

describe('where one file cannot tell, and the two readings differ by design', () => {
  it('a whole YAML float (500.0): Spring reads a Double and refuses it, the parsed object holds the number 500', () => {
    const yaml = pay({ 'wait-duration': '500.0' });
    expect(lint(yaml).map((f) => f.message)).toEqual([expect.stringMatching(/500\.0 is not a duration Spring accepts/)]);
    expect(register(yaml)).toEqual([]);
  });

  it('a ${placeholder} is Spring\'s to resolve: the linter cannot judge it, the registry wants it resolved first', () => {
    const yaml = pay({ 'max-attempts': '${RETRY_ATTEMPTS:3}' });
    expect(lint(yaml)).toEqual([]);
    expect(register(yaml).map((i) => i.message)).toEqual([expect.stringMatching(/Spring placeholder/)]);
  });

  it('a base-config from another file: unknown to the linter when this file has no configs, missing for the registry', () => {
    const yaml = 'resilience4j.retry.instances.pay:\n  base-config: shared\n  max-attempts: 2\n';
    expect(lint(yaml)).toEqual([]);
    expect(register(yaml).map((i) => i.path)).toEqual(['resilience4j.retry.instances.pay.base-config']);
  });
});
