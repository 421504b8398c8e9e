/**
 * examples/policies-from-yaml: the application.yml that configures the Node service is the one the
 * plugin's resilience4j preset lints. Both readings are checked here: the registry accepts it with
 * the limits the file states, and the linter finds nothing in it.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Linter } from 'eslint';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import plugin from '../../src/index.js';
import { createPolicyRegistry, type PolicyConfigIssue } from '../../src/runtime/index.js';

const dir = new URL('../../examples/policies-from-yaml/', import.meta.url);
const yamlText = readFileSync(new URL('application.yml', dir), 'utf8');

describe('examples/policies-from-yaml', () => {
  it('configures the registry from the resilience4j section of application.yml', () => {
    const warnings: PolicyConfigIssue[] = [];
    const registry = createPolicyRegistry({ resilience4j: parse(yamlText).resilience4j }, { onWarning: (w) => warnings.push(w) });
    expect(registry.names).toEqual({ retry: ['payments', 'catalog'], circuitBreaker: ['payments'], budget: [] });
    expect(registry.retry('payments').config).toEqual({
      maxAttempts: 3,
      initialDelayMs: 500,
      multiplier: 2,
      maxDelayMs: 1500,
      jitter: 'randomized',
      randomizationFactor: 0.5,
      deadlineMs: 5000,
      attemptTimeoutMs: 800,
      maxRetryAfterMs: 5000,
    });
    expect(registry.retry('catalog').config).toMatchObject({ maxAttempts: 2, initialDelayMs: 200, attemptTimeoutMs: undefined });
    expect(registry.breaker('payments').state).toBe('closed');
    // The Java exception lists are reported as having no effect here, not silently dropped.
    expect(warnings.map((w) => w.path)).toEqual([
      'resilience4j.retry.configs.default.retry-exceptions',
      'resilience4j.retry.configs.default.ignore-exceptions',
    ]);
  });

  // The resilience4j preset is built alongside this example; until it ships, there is nothing to run.
  const preset = (plugin.configs as Record<string, unknown>)['resilience4j'];
  it.skipIf(preset === undefined)('is clean under the plugin\'s resilience4j preset', () => {
    const messages = new Linter({ configType: 'flat' }).verify(yamlText, [preset as Linter.Config], 'examples/policies-from-yaml/application.yml');
    expect(messages).toEqual([]);
  });

  it('is refused by the linter and the registry alike once a limit is broken', () => {
    const broken = yamlText.replace(/max-attempts: 3\b/, 'max-attempts: 10');
    expect(() => createPolicyRegistry({ resilience4j: parse(broken).resilience4j }, { onWarning: () => {} })).toThrow(
      /resilience4j\.retry\.configs\.default\.max-attempts: is 10; .*\(R-RES-RE-3\)/,
    );
    if (preset === undefined) return;
    const messages = new Linter({ configType: 'flat' }).verify(broken, [preset as Linter.Config], 'examples/policies-from-yaml/application.yml');
    expect(messages.map((m) => m.ruleId)).toContain('safe-retry/max-retry-attempts');
  });

  // Runs the service as a user would, against the built package (npm test builds first).
  it.runIf(existsSync(new URL('../../dist/runtime/registry.js', import.meta.url)))('runs: charges once through a retry, then refuses an update and keeps its limits', async () => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [fileURLToPath(new URL('service.js', dir))], { timeout: 20_000 });
    expect(stdout).toContain('payments: 3 attempts, first wait 500 ms x2, 800 ms per attempt, breaker closed');
    expect(stdout).toContain("charged: { id: 'ch_1' }");
    expect(stdout).toContain('payments still makes 3 attempts');
    expect(stderr).toContain('resilience4j.retry.configs.default.max-attempts: is 10;');
    expect(stderr).toContain('the previous configuration stays in force');
  });
});
