/**
 * Resilience4j retry configuration in Spring Boot YAML, judged by the same rules through the same
 * model. The configurations are written the way Spring services write them: the guide's own
 * `resilience4j.retry.instances.sber` block, shared configs with base-config, dotted keys,
 * profiles, anchors and TimeLimiter/CircuitBreaker neighbours.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import * as yamlParser from 'yaml-eslint-parser';
import type { TSESLint } from '@typescript-eslint/utils';
import { describe, expect, it } from 'vitest';
import { getRetryModel } from '../../../src/analysis/index.js';
import plugin from '../../../src/index.js';
import { summarise, type SiteSummary } from '../../helpers/model.js';

function analyseYaml(code: string): SiteSummary[] {
  return analyseYamlAs(code, 'application.yml');
}

function analyseYamlAs(code: string, filename: string): SiteSummary[] {
  let out: SiteSummary[] = [];
  const capture = {
    meta: { type: 'problem' as const, schema: [] },
    create(context: TSESLint.RuleContext<string, []>) {
      return { 'Program:exit'() { out = getRetryModel(context).sites.map((s) => summarise(s, context.sourceCode)); } };
    },
  };
  const messages = new Linter({ configType: 'flat' }).verify(code, [
    { files: ['**/*.yml', '**/*.yaml'], plugins: { test: { rules: { capture } } as never }, languageOptions: { parser: yamlParser as never }, rules: { 'test/capture': 'error' } },
  ], filename);
  if (messages.some((m) => m.fatal)) throw new Error(messages[0]!.message);
  return out;
}

interface YamlFinding {
  rule: string;
  messageId: string | undefined;
  line: number;
  text: string;
  message: string;
}

/** Lints like the preset does; `preset` picks the rule levels (`all` includes strict-only rules). */
function lintYaml(code: string, preset: 'resilience4j' | 'all' | Record<string, unknown> = 'resilience4j', filename = 'application.yml'): YamlFinding[] {
  const rules = preset === 'all' ? plugin.configs.all.rules : preset === 'resilience4j' ? plugin.configs.resilience4j.rules : preset;
  const prev = process.env['SAFE_RETRY_STRICT_ANALYSIS'];
  process.env['SAFE_RETRY_STRICT_ANALYSIS'] = '1'; // an internal error must fail the test, not hide
  try {
    const messages = new Linter({ configType: 'flat' }).verify(code, [{ ...plugin.configs.resilience4j, rules } as never], filename);
    const lines = code.split('\n');
    return messages.map((m) => {
      if (m.fatal) throw new Error(`parse error: ${m.message}`);
      const text = m.endLine === m.line ? lines[m.line - 1]!.slice(m.column - 1, (m.endColumn ?? m.column) - 1) : '<multi-line>';
      return { rule: (m.ruleId ?? '').replace('safe-retry/', ''), messageId: m.messageId, line: m.line, text, message: m.message };
    });
  } finally {
    if (prev === undefined) delete process.env['SAFE_RETRY_STRICT_ANALYSIS'];
    else process.env['SAFE_RETRY_STRICT_ANALYSIS'] = prev;
  }
}

const short = (findings: YamlFinding[]) => findings.map((f) => `${f.rule}:${f.messageId} ${f.line} ${f.text}`);

// The guide's typical block (R-RES-RE-2), verbatim.
const GUIDE_TYPICAL = `resilience4j.retry.instances.sber:
  max-attempts: 3
  wait-duration: 500ms
  enable-exponential-backoff: true
  exponential-backoff-multiplier: 2.0
  retry-exceptions:
    - java.io.IOException
    - org.springframework.web.client.HttpServerErrorException
  ignore-exceptions:
    - org.springframework.web.client.HttpClientErrorException
`;

describe('the guide\'s own examples', () => {
  it('reads the typical block: 3 attempts, 500 ms then 1 s, 4xx ignored', () => {
    expect(analyseYaml(GUIDE_TYPICAL)).toEqual([
      expect.objectContaining({
        library: 'resilience4j',
        label: "Resilience4j retry instance 'sber'",
        line: 1,
        attempts: 3,
        attemptsAt: 'max-attempts: 3',
        growth: 'exponential',
        initialMs: 500,
        multiplier: 2,
        jitter: false,
        filter: 'statuses',
        clientErrors: [],
        retriesEverything: false,
        worstCaseMs: 1500, // "500 + 1000 = 1500ms between attempts"
      }),
    ]);
  });

  it('asks only for jitter on the typical block (the second document requires it)', () => {
    expect(short(lintYaml(GUIDE_TYPICAL))).toEqual(['require-jitter:noJitter 4 enable-exponential-backoff: true']);
    expect(lintYaml(GUIDE_TYPICAL)[0]!.message).toBe(
      "Resilience4j retry instance 'sber' backs off without randomness, so every client that failed together retries together and the load peak only moves (R-RES-RE-X3). Add jitter (full jitter is the usual choice).",
    );
  });

  it('reports the guide\'s linear retry and its missing 4xx exclusion', () => {
    const linear = `resilience4j.retry.instances.sber:
  max-attempts: 3
  wait-duration: 500ms
  enable-exponential-backoff: false
`;
    expect(short(lintYaml(linear))).toEqual([
      'no-retry-on-client-error:retriesEverything 1 sber',
      'require-exponential-backoff:constantDelay 4 enable-exponential-backoff: false',
      'require-jitter:noJitter 4 enable-exponential-backoff: false',
    ]);
  });
});

describe('a Spring service with shared configs', () => {
  const service = `spring:
  application:
    name: payments

resilience4j:
  retry:
    configs:
      default:
        max-attempts: 3
        wait-duration: 500ms
        enable-exponential-backoff: true
        exponential-backoff-multiplier: 2
        enable-randomized-wait: true
        randomized-wait-factor: 0.5
        retry-exceptions:
          - java.io.IOException
          - java.util.concurrent.TimeoutException
          - org.springframework.web.client.HttpServerErrorException
        ignore-exceptions:
          - org.springframework.web.client.HttpClientErrorException
      slow:
        base-config: default
        max-attempts: 8
        wait-duration: 2s
    instances:
      ledger:
        base-config: default
      partners:
        base-config: slow
      catalogue:
        wait-duration: 200ms
        retry-exceptions:
          - org.springframework.web.client.RestClientException
      notifications:
        max-attempts: 4
        retry-exceptions: java.io.IOException, org.springframework.web.client.HttpClientErrorException$NotFound
`;

  it('builds a site per config and per instance that sets something of its own', () => {
    const sites = analyseYaml(service);
    expect(sites.map((s) => s.label)).toEqual([
      "Resilience4j retry config 'default'",
      "Resilience4j retry config 'slow'",
      "Resilience4j retry instance 'catalogue'",
      "Resilience4j retry instance 'notifications'",
    ]);
    const [def, slow, catalogue, notifications] = sites;
    expect(def).toMatchObject({ attempts: 3, growth: 'exponential', jitter: true, worstCaseMs: 2250 });
    // slow inherits backoff and jitter from default: 2 s x 2^n, up to 1.5x, over 7 waits.
    expect(slow).toMatchObject({ attempts: 8, attemptsAt: 'max-attempts: 8', initialMs: 2000, multiplier: 2, jitter: true, worstCaseMs: 381_000 });
    // catalogue inherits from configs.default although it names no base-config (Spring does that).
    expect(catalogue).toMatchObject({ attempts: 3, initialMs: 200, growth: 'exponential', jitter: true, clientErrors: [] });
    // $NotFound is under the inherited ignore of HttpClientErrorException, and ignore wins.
    expect(notifications).toMatchObject({ attempts: 4, clientErrors: [], worstCaseMs: 5250 });
  });

  it('reports each problem where it is written', () => {
    expect(short(lintYaml(service))).toEqual([
      'max-retry-duration:needsQueue 21 slow',
      'max-retry-attempts:tooManyAttempts 23 max-attempts: 8',
      // 4 attempts at 500 ms x 2 with up to +50% randomisation: 1.5 x 3.5 s.
      'max-retry-duration:tooLong 34 notifications',
      // catalogue retries RestClientException (4xx included), but the ignore-exceptions it
      // inherits from configs.default stops 4xx: nothing to report.
    ]);
  });
});

describe('inheritance and where it is reported', () => {
  it('reports an inherited value on the config line, for the config and for an instance that overrides something else', () => {
    const code = `resilience4j.retry:
  configs:
    default:
      max-attempts: 10
      wait-duration: 100ms
      enable-exponential-backoff: true
      enable-randomized-wait: true
      ignore-exceptions: [org.springframework.web.client.HttpClientErrorException]
  instances:
    quiet:
      base-config: default
    tuned:
      wait-duration: 50ms
`;
    const attempts = lintYaml(code).filter((f) => f.rule === 'max-retry-attempts');
    expect(attempts.map((f) => [f.line, f.text, f.message.split(' makes')[0]])).toEqual([
      [4, 'max-attempts: 10', "Resilience4j retry config 'default'"],
      [4, 'max-attempts: 10', "Resilience4j retry instance 'tuned'"],
    ]);
  });
});

describe('forms and values', () => {
  it('reads fully dotted keys and squiggles the property through its value', () => {
    const dotted = `resilience4j.retry.instances.inventory.max-attempts: 7
resilience4j.retry.instances.inventory.wait-duration: PT0.5S
resilience4j.retry.instances.inventory.enable-exponential-backoff: true
resilience4j.retry.instances.inventory.enable-randomized-wait: true
resilience4j.retry.instances.inventory.ignore-exceptions[0]: org.springframework.web.client.HttpClientErrorException
`;
    expect(analyseYaml(dotted)).toEqual([expect.objectContaining({ attempts: 7, initialMs: 500, multiplier: 1.5, jitter: true, clientErrors: [] })]);
    expect(short(lintYaml(dotted))).toEqual([
      'max-retry-duration:tooLong 1 inventory',
      'max-retry-attempts:tooManyAttempts 1 max-attempts: 7',
    ]);
  });

  it.each([
    ['500ms', 500],
    ['2s', 2000],
    ['PT0.5S', 500],
    ['PT1M', 60_000],
    ['1500', 1500],
    ['"750ms"', 750],
  ])('reads wait-duration %s as %i ms', (written, ms) => {
    const [site] = analyseYaml(`resilience4j.retry.instances.a:\n  wait-duration: ${written}\n  ignore-exceptions: [org.springframework.web.client.HttpClientErrorException]\n`);
    expect(site!.initialMs).toBe(ms);
  });

  it('treats placeholders and unreadable values as unknown, never as a guess', () => {
    const [site] = analyseYaml(`resilience4j.retry.instances.a:
  max-attempts: \${RETRY_ATTEMPTS:10}
  wait-duration: \${RETRY_WAIT}
  enable-exponential-backoff: true
`);
    expect(site).toMatchObject({ attempts: 'unknown', initialMs: 'unknown', worstCaseMs: 'unknown' });
  });

  it('accepts camelCase and snake_case property names (relaxed binding) and YAML 1.1 booleans', () => {
    const [site] = analyseYaml(`resilience4j:
  retry:
    instances:
      a:
        maxAttempts: 2
        waitDuration: 1s
        enable_exponential_backoff: yes
        enableRandomizedWait: on
        ignoreExceptions: org.springframework.web.client.HttpClientErrorException
`);
    expect(site).toMatchObject({ attempts: 2, initialMs: 1000, growth: 'exponential', jitter: true, clientErrors: [] });
  });

  it('keeps dots inside [bracketed] instance names', () => {
    const sites = analyseYaml('resilience4j.retry.instances[payments.v2].max-attempts: 9\n');
    expect(sites.map((s) => s.label)).toEqual(["Resilience4j retry instance 'payments.v2'"]);
  });

  it('follows anchors, aliases and << merge keys', () => {
    const anchored = `shared: &shared
  max-attempts: 6
  wait-duration: 1s
resilience4j.retry.instances:
  a:
    <<: *shared
    enable-exponential-backoff: true
  b:
    <<: *shared
    max-attempts: 2
`;
    const sites = analyseYaml(anchored);
    expect(sites.map((s) => [s.label, s.attempts, s.growth])).toEqual([
      ["Resilience4j retry instance 'a'", 6, 'exponential'],
      ["Resilience4j retry instance 'b'", 2, 'constant'],
    ]);
  });
});

describe('traps', () => {
  it('enable-exponential-backoff without any wait-duration stays a fixed 500 ms wait', () => {
    // Spring installs the exponential interval function only when a wait-duration is set.
    const trap = `resilience4j.retry.instances.a:
  enable-exponential-backoff: true
  enable-randomized-wait: true
  ignore-exceptions: [org.springframework.web.client.HttpClientErrorException]
`;
    expect(analyseYaml(trap)[0]).toMatchObject({ growth: 'constant', initialMs: 500, jitter: false });
    expect(short(lintYaml(trap))).toEqual(['require-exponential-backoff:constantDelay 2 enable-exponential-backoff: true', 'require-jitter:noJitter 2 enable-exponential-backoff: true']);
  });

  it('max-attempts counts attempts (not retries); 0 is refused at startup by Resilience4j\'s setter', () => {
    expect(analyseYaml('resilience4j.retry.instances.a.max-attempts: 5\n')[0]!.attempts).toBe(5);
    expect(analyseYaml('resilience4j.retry.instances.a.max-attempts: 0\n')[0]!.attempts).toBe('unknown');
    expect(lintYaml('resilience4j.retry.instances.a.max-attempts: 0\n').filter((f) => f.rule === 'valid-resilience4j-config').map((f) => f.message)).toEqual([
      'resilience4j.retry.instances.a.max-attempts: is 0, which Resilience4j refuses at startup: it must be at least 1 (1 attempt means no retry) (R-RES-RE-2).',
    ]);
  });

  it('the default multiplier is 1.5 and the default randomisation factor 0.5', () => {
    const [site] = analyseYaml(`resilience4j.retry.instances.a:
  max-attempts: 4
  wait-duration: 1s
  enable-exponential-backoff: true
  enable-randomized-wait: true
  ignore-exceptions: [org.springframework.web.client.HttpClientErrorException]
`);
    // waits up to 1.5 x (1000 + 1500 + 2250)
    expect(site).toMatchObject({ multiplier: 1.5, jitter: true, worstCaseMs: 7125 });
  });

  it.each([
    ['java.lang.RuntimeException', '4xx (RuntimeException)'],
    ['java.lang.Exception', '4xx (Exception)'],
    ['org.springframework.web.client.HttpStatusCodeException', '4xx (HttpStatusCodeException)'],
    ['org.springframework.web.reactive.function.client.WebClientResponseException', '4xx (WebClientResponseException)'],
    ['org.springframework.web.reactive.function.client.WebClientResponseException$BadRequest', '400 (WebClientResponseException$BadRequest)'],
    ['feign.FeignException', '4xx (FeignException)'],
    ['org.springframework.web.client.HttpClientErrorException.Conflict', '409 (HttpClientErrorException$Conflict)'],
  ])('retry-exceptions with %s retries %s when nothing ignores 4xx', (className, status) => {
    const code = `resilience4j.retry.instances.a:\n  retry-exceptions:\n    - java.io.IOException\n    - ${className}\n`;
    const findings = lintYaml(code).filter((f) => f.rule === 'no-retry-on-client-error');
    expect(findings.map((f) => [f.messageId, f.line, f.text])).toEqual([['retriesClientError', 4, className]]);
    expect(findings[0]!.message).toContain(`retries HTTP ${status}`);
  });

  it('accepts an exclusion for the client in use: WebClient, Feign or a generic retry list with an ignore', () => {
    const cases = [
      '  retry-exceptions: [org.springframework.web.reactive.function.client.WebClientResponseException]\n  ignore-exceptions: [org.springframework.web.reactive.function.client.WebClientResponseException$NotFound, org.springframework.web.reactive.function.client.WebClientResponseException]\n',
      '  ignore-exceptions: [feign.FeignException$FeignClientException]\n',
      '  retry-exceptions: [java.lang.Exception]\n  ignore-exceptions: [org.springframework.web.client.HttpClientErrorException]\n',
      '  retry-exception-predicate: com.example.RetryOnServerErrors\n',
    ];
    for (const body of cases) {
      expect(lintYaml(`resilience4j.retry.instances.a:\n${body}`).filter((f) => f.rule === 'no-retry-on-client-error'), body).toEqual([]);
    }
  });

  it('ignore-exceptions without the 4xx class: everything else, 4xx included, is retried', () => {
    const code = 'resilience4j.retry.instances.a:\n  ignore-exceptions:\n    - com.example.BusinessException\n';
    expect(short(lintYaml(code))).toEqual([
      // RetryConfig's default: a fixed 500 ms wait.
      'require-exponential-backoff:constantDelay 1 a',
      'require-jitter:noJitter 1 a',
      'no-retry-on-client-error:retriesEverything 2 ignore-exceptions',
    ]);
  });
});

describe('profiles and neighbours', () => {
  it('judges a profile file (application-<profile>.yml) only by what it writes', () => {
    const overlay = 'resilience4j.retry.instances.sber.max-attempts: 4\n';
    expect(analyseYamlAs(overlay, 'src/main/resources/application-prod.yml')[0]).toMatchObject({
      attempts: 4, growth: 'unknown', jitter: 'unknown', filter: 'custom', worstCaseMs: 'unknown',
    });
    expect(lintYaml(overlay, 'resilience4j', 'src/main/resources/application-prod.yml')).toEqual([]);
    const explicit = 'resilience4j.retry.instances.sber:\n  max-attempts: 9\n  enable-exponential-backoff: false\n';
    expect(short(lintYaml(explicit, 'resilience4j', 'application-prod.yml'))).toEqual([
      'max-retry-attempts:tooManyAttempts 2 max-attempts: 9',
      'require-exponential-backoff:constantDelay 3 enable-exponential-backoff: false',
    ]);
  });

  it('treats a base-config defined in another file as unknown, not as defaults', () => {
    const code = 'resilience4j.retry.instances.sber:\n  base-config: shared\n  max-attempts: 2\n';
    expect(analyseYaml(code)[0]).toMatchObject({ attempts: 2, growth: 'unknown', filter: 'custom' });
    expect(lintYaml(code)).toEqual([]);
  });

  it('judges a profile document as an overlay on the unconditional ones', () => {
    const profiles = `resilience4j.retry.instances.ledger:
  max-attempts: 3
  wait-duration: 500ms
  enable-exponential-backoff: true
  enable-randomized-wait: true
  ignore-exceptions: [org.springframework.web.client.HttpClientErrorException]
---
spring.config.activate.on-profile: load-test
resilience4j.retry.instances.ledger.max-attempts: 12
`;
    const sites = analyseYaml(profiles);
    expect(sites.map((s) => [s.label, s.line, s.attempts, s.jitter])).toEqual([
      ["Resilience4j retry instance 'ledger'", 1, 3, true],
      ["Resilience4j retry instance 'ledger'", 9, 12, true],
    ]);
    expect(short(lintYaml(profiles))).toEqual([
      'max-retry-duration:needsQueue 9 ledger',
      'max-retry-attempts:tooManyAttempts 9 max-attempts: 12',
    ]);
  });

  it('adds a TimeLimiter of the same name as the per-attempt timeout', () => {
    const code = `resilience4j:
  retry.instances.pricing:
    max-attempts: 3
    wait-duration: 500ms
    enable-exponential-backoff: true
    enable-randomized-wait: true
    ignore-exceptions: [org.springframework.web.client.HttpClientErrorException]
  timelimiter.instances.pricing:
    timeout-duration: 2s
`;
    // 3 x 2 s per attempt + up to 1.5 x (500 + 750) of waits (the guide: "1.5s + 3 x callTimeout").
    expect(analyseYaml(code)[0]).toMatchObject({ attemptTimeoutMs: 2000, worstCaseMs: 7875 });
    expect(short(lintYaml(code))).toEqual(['max-retry-duration:tooLong 2 pricing']);
  });

  it('finds the circuit breaker of the same name (R-RES-CB-1) for the strict rule', () => {
    const withBreaker = `resilience4j:
  circuitbreaker.instances.sber.failure-rate-threshold: 50
  retry.instances.sber:
    wait-duration: 500ms
    enable-exponential-backoff: true
    enable-randomized-wait: true
    ignore-exceptions: [org.springframework.web.client.HttpClientErrorException]
`;
    expect(lintYaml(withBreaker, 'all')).toEqual([]);
    const without = withBreaker.replace('circuitbreaker.instances.sber', 'circuitbreaker.instances.other');
    expect(short(lintYaml(without, 'all'))).toEqual(['require-circuit-breaker:noBreaker 3 sber']);
  });
});

describe('robustness', () => {
  it.each([
    ['an empty file', ''],
    ['comments only', '# nothing here\n'],
    ['an unrelated Spring file', 'server:\n  port: 8080\nspring.datasource.url: jdbc:postgresql://db/app\n'],
    ['a top-level list', '- a\n- b\n'],
    ['odd keys', '? [complex, key]\n: value\n1: one\nnull: ~\nresilience4j: 3\nresilience4j.retry: [1, 2]\nresilience4j.retry.instances: x\n'],
    ['an alias cycle', 'a: &a\n  b: *a\nresilience4j.retry.instances.x:\n  <<: *a\n'],
    ['flow style', '{resilience4j: {retry: {instances: {a: {max-attempts: 9, wait-duration: 100ms}}}}}\n'],
    ['a multi-document file with empty documents', '---\n---\nresilience4j.retry.instances.a.max-attempts: 2\n---\n'],
  ])('never throws on %s with every rule on', (_name, code) => {
    expect(() => lintYaml(code, 'all')).not.toThrow();
  });

  it('flow style still reports where the value is written', () => {
    expect(short(lintYaml('{resilience4j: {retry: {instances: {a: {max-attempts: 9, wait-duration: 100ms}}}}}\n'))).toEqual([
      'no-retry-on-client-error:retriesEverything 1 a',
      'max-retry-attempts:tooManyAttempts 1 max-attempts: 9',
      'require-exponential-backoff:constantDelay 1 wait-duration: 100ms',
      'require-jitter:noJitter 1 wait-duration: 100ms',
    ]);
  });
});

describe('the resilience4j preset', () => {
  it('lints application*.yml and application*.yaml with yaml-eslint-parser and the recommended levels', () => {
    const preset = plugin.configs.resilience4j;
    expect(preset.name).toBe('safe-retry/resilience4j');
    expect(preset.files).toEqual(['**/application*.yml', '**/application*.yaml']);
    expect(preset.rules).toEqual(plugin.configs.recommended.rules);
    expect(preset.plugins['safe-retry']).toBe(plugin);
  });

  it('works next to the README TypeScript setup through the ESLint class', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'safe-retry-yaml-'));
    try {
      mkdirSync(path.join(dir, 'src/main/resources'), { recursive: true });
      writeFileSync(path.join(dir, 'src/main/resources/application.yml'), GUIDE_TYPICAL);
      writeFileSync(path.join(dir, 'src/main/resources/application-prod.yaml'), 'resilience4j.retry.instances.sber.max-attempts: 9\n');
      writeFileSync(path.join(dir, 'docker-compose.yml'), 'services:\n  db:\n    image: postgres\n');
      writeFileSync(path.join(dir, 'client.ts'), "import pRetry from 'p-retry';\nexport const a = () => pRetry(() => fetch('/a'), { retries: 9 });\n");
      const eslint = new ESLint({
        cwd: dir,
        overrideConfigFile: true,
        overrideConfig: [
          ...(tseslint.configs.recommended as Linter.Config[]),
          plugin.configs.recommended as Linter.Config,
          plugin.configs.resilience4j as Linter.Config,
        ],
      });
      const results = await eslint.lintFiles(['.']);
      const found = results
        .flatMap((r) => r.messages.map((m) => `${path.relative(dir, r.filePath)}:${m.line} ${m.ruleId ?? m.message}`))
        .sort();
      expect(found).toEqual([
        'client.ts:1 safe-retry/no-legacy-retry',
        'client.ts:2 safe-retry/max-retry-attempts',
        'client.ts:2 safe-retry/max-retry-duration',
        'client.ts:2 safe-retry/require-jitter',
        // A profile file overlays application.yml: only what it writes is judged.
        'src/main/resources/application-prod.yaml:1 safe-retry/max-retry-attempts',
        'src/main/resources/application.yml:4 safe-retry/require-jitter',
      ]);
      expect(results.some((r) => r.filePath.endsWith('docker-compose.yml'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The `## Resilience4j YAML` section of each rule doc: incorrect blocks report, correct ones do not. */
function yamlExamples(markdown: string): Array<{ kind: 'incorrect' | 'correct'; code: string; line: number }> {
  const out: Array<{ kind: 'incorrect' | 'correct'; code: string; line: number }> = [];
  const lines = markdown.split('\n');
  let section = '';
  let kind: 'incorrect' | 'correct' | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('## ')) { section = line.slice(3).trim(); kind = undefined; continue; }
    if (line.startsWith('### ')) {
      const title = line.slice(4).trim().toLowerCase();
      kind = title.startsWith('incorrect') ? 'incorrect' : title.startsWith('correct') ? 'correct' : undefined;
      continue;
    }
    if (section === 'Resilience4j YAML' && kind && /^```ya?ml\s*$/.test(line)) {
      let end = i + 1;
      while (end < lines.length && !lines[end]!.startsWith('```')) end++;
      out.push({ kind, code: lines.slice(i + 1, end).join('\n') + '\n', line: i + 2 });
      i = end;
    }
  }
  return out;
}

const docsDir = new URL('../../../rules-docs/', import.meta.url);
const yamlDocs = readdirSync(docsDir).filter((f) => f.endsWith('.md')).map((f) => [f.replace(/\.md$/, ''), readFileSync(new URL(f, docsDir), 'utf8')] as const)
  .filter(([, markdown]) => markdown.includes('## Resilience4j YAML'));

describe.each(yamlDocs)('rules-docs/%s.md, Resilience4j YAML', (rule, markdown) => {
  const examples = yamlExamples(markdown);

  it('has incorrect and correct YAML examples', () => {
    expect(examples.some((e) => e.kind === 'incorrect')).toBe(true);
    expect(examples.some((e) => e.kind === 'correct')).toBe(true);
  });

  it.each(examples.map((e) => [`${e.kind} example at line ${e.line}`, e] as const))('%s', (_title, example) => {
    const findings = lintYaml(example.code, { [`safe-retry/${rule}`]: 'error' });
    if (example.kind === 'incorrect') expect(findings.length, example.code).toBeGreaterThan(0);
    else expect(findings, example.code).toEqual([]);
  });
});

it('documents YAML in every rule that judges it', () => {
  expect(yamlDocs.map(([rule]) => rule).sort()).toEqual([
    'max-retry-attempts', 'max-retry-duration', 'no-retry-on-client-error', 'require-circuit-breaker', 'require-exponential-backoff', 'require-jitter',
    'valid-resilience4j-config',
  ]);
});
