import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../../helpers/model.js';

const rules = (findings: { rule: string }[]) => [...new Set(findings.map((f) => f.rule))].sort();

describe('kafkajs descriptor', () => {
  it('judges a client built without retry by the defaults: 6 calls, 300 ms doubling with ±20%, about 20 s', () => {
    const code = `
      import { Kafka } from 'kafkajs';
      export const kafka = new Kafka({ clientId: 'app', brokers: ['b:9092'] });
    `;
    const [site] = analyse(code);
    expect(site).toMatchObject({ library: 'kafkajs', attempts: 6, growth: 'exponential', jitter: true, clientLevel: true });
    expect(site!.worstCaseMs).toBeGreaterThan(15_000);
    expect(rules(lint(code))).toEqual(['max-retry-attempts', 'max-retry-duration']);
  });

  it('reads a producer retry merged over the client retry', () => {
    const code = `
      import { Kafka } from 'kafkajs';
      const kafka = new Kafka({ brokers: ['b:9092'], retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 } });
      const producer = kafka.producer({ retry: { maxRetryTime: 7, multiplier: 2 } });
      export async function emit(value: string) {
        await producer.send({ topic: 't', messages: [{ value }] });
      }
    `;
    const sites = analyse(code);
    expect(sites[0]).toMatchObject({ attempts: 3, jitter: true });
    // The producer's retry is merged over the client's: 3 calls, then every wait is the 7 ms cap.
    expect(sites[1]).toMatchObject({ label: 'kafka.producer()', attempts: 3, growth: 'constant', jitter: false });
    const findings = lint(code);
    expect(findings).toContainEqual(expect.objectContaining({ rule: 'require-exponential-backoff', line: 4 }));
  });

  it('stays silent on a compliant idempotent producer and on unknown options', () => {
    const code = `
      import { Kafka } from 'kafkajs';
      const kafka = new Kafka({ brokers: ['b:9092'], retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 2000 } });
      const producer = kafka.producer({ idempotent: true, retry: { retries: 3 } });
      export const send = (value: string) => producer.send({ topic: 't', messages: [{ value }] });
    `;
    expect(lint(code)).toEqual([]);
    expect(analyse(`import { Kafka } from 'kafkajs'; new Kafka(config);`)).toEqual([]);
  });
});
