import * as yamlParser from 'yaml-eslint-parser';
import rule from '../../src/rules/valid-resilience4j-config.js';
import { run } from '../helpers/rule-tester.js';

const yaml = { parser: yamlParser } as never;
const TYPICAL = `resilience4j.retry.instances.payments:
  max-attempts: 3
  wait-duration: 500ms
  enable-exponential-backoff: true
  exponential-backoff-multiplier: 2
  enable-randomized-wait: true
  ignore-exceptions: org.springframework.web.client.HttpClientErrorException
`;

run('valid-resilience4j-config', rule, {
  valid: [
    { code: TYPICAL, filename: 'application.yml', languageOptions: yaml },
    // What only the other rules judge: ten attempts bind fine.
    { code: TYPICAL.replace('max-attempts: 3', 'max-attempts: 10'), filename: 'application.yml', languageOptions: yaml },
    // Spring resolves placeholders from the environment: not this file's to judge.
    { code: TYPICAL.replace('500ms', '${RETRY_WAIT:500ms}'), filename: 'application.yml', languageOptions: yaml },
    // A profile file may name a base-config that application.yml defines.
    { code: 'resilience4j.retry.instances.payments.base-config: shared\n', filename: 'application-prod.yml', languageOptions: yaml },
    // Keys that do nothing in Node are valid for Spring.
    { code: 'resilience4j.bulkhead.instances.payments.max-concurrent-calls: 10\n', filename: 'application.yml', languageOptions: yaml },
    // Code has no Resilience4j configuration.
    `const waitDuration = '0.2s';`,
  ],
  invalid: [
    {
      code: TYPICAL.replace('500ms', '0.2s'),
      filename: 'application.yml',
      languageOptions: yaml,
      errors: [{
        messageId: 'invalid',
        line: 3,
        column: 3,
        endColumn: 22,
        data: {
          key: 'resilience4j.retry.instances.payments.wait-duration',
          problem: '"0.2s" is not a duration Spring accepts (no fractions with units); write it as 200ms or PT0.2S',
        },
      }],
    },
    {
      code: TYPICAL.replace('wait-duration', 'wait-duraton'),
      filename: 'application.yml',
      languageOptions: yaml,
      errors: [{ messageId: 'invalid', line: 3, column: 3, endColumn: 15 }],
    },
    {
      code: TYPICAL.replace('enable-randomized-wait: true', 'enable-randomized-wait: 1'),
      filename: 'application.yml',
      languageOptions: yaml,
      errors: [{ messageId: 'invalid', line: 6, column: 3, endColumn: 28 }],
    },
    {
      // Resilience4j drops the cap: the multiplier is missing.
      code: 'resilience4j.retry.instances.payments:\n  wait-duration: 500ms\n  enable-exponential-backoff: true\n  exponential-max-wait-duration: 2s\n',
      filename: 'application.yml',
      languageOptions: yaml,
      errors: [{ messageId: 'invalidWaits', line: 4, column: 3, endColumn: 36 }],
    },
    {
      code: `resilience4j.retry:
  configs:
    default:
      max-attempts: 3
  instances:
    payments:
      base-config: defualt
`,
      filename: 'application.yml',
      languageOptions: yaml,
      errors: [{ messageId: 'invalid', line: 7, column: 7, endColumn: 27 }],
    },
    {
      // A profile document is judged as an overlay: its own mistakes are reported, once.
      code: `${TYPICAL}---
spring.config.activate.on-profile: prod
resilience4j.retry.instances.payments.max-attempts: 0
`,
      filename: 'application.yml',
      languageOptions: yaml,
      errors: [{ messageId: 'invalid', line: 10, column: 39, endColumn: 54 }],
    },
    {
      code: 'resilience4j:\n  circuitbreaker:\n    instances:\n      payments:\n        failure-rate-threshold: 0.5\n',
      filename: 'application.yml',
      languageOptions: yaml,
      errors: [{ messageId: 'invalid', line: 5, column: 9 }],
    },
  ],
});
