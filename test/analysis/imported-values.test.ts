/**
 * Values defined in another file of the project: an SWR `onErrorRetry` callback exported from a
 * helper module, and a kafkajs client built in a shared library module (reached through a tsconfig
 * path alias and re-exports). Findings land in the file that uses them; what cannot be read stays
 * unknown.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { clearModuleCache, moduleCacheStats } from '../../src/analysis/wrappers/index.js';
import { temporaryProjects } from '../helpers/project.js';
import { lintAt } from '../helpers/lint-at.js';

/** Writes a small project to a temporary folder; returns absolute paths by relative name. */
const project = temporaryProjects('safe-retry-imported-');


const RETRY_CALLBACK = `
export function retryLater(error, key, config, revalidate, { retryCount }) {
  if (error.status === 404) return;
  if (retryCount >= 8) return;
  setTimeout(() => revalidate({ retryCount }), 3000);
}
export function notACallback(error) {
  return String(error);
}
`;

describe('an SWR onErrorRetry callback imported from another file', () => {
  beforeEach(() => clearModuleCache());

  it('is read from its module and judged at the option that passes it', () => {
    const at = project({ 'lib/swr-retry.js': RETRY_CALLBACK, 'pages/list.tsx': '' });
    const findings = lintAt(`
      import useSWR from 'swr';
      import { retryLater } from '../lib/swr-retry';
      export function useList() {
        return useSWR('/api/items', fetcher, { onErrorRetry: retryLater });
      }
    `, at('pages/list.tsx'));
    expect(findings).toEqual([
      '5 max-retry-attempts', '5 max-retry-duration', '5 no-retry-on-client-error', '5 require-exponential-backoff', '5 require-jitter',
    ]);
  });

  it('stays silent where the imported function is no retry option, or cannot be read', () => {
    const at = project({ 'lib/swr-retry.js': RETRY_CALLBACK, 'pages/other.tsx': '' });
    expect(lintAt(`
      import useSWR from 'swr';
      import { notACallback, retryLater } from '../lib/swr-retry';
      import { missing } from '../lib/nowhere';
      export function useOther() {
        const a = useSWR('/api/a', fetcher, { onErrorRetry: missing });
        const b = useSWR('/api/b', fetcher, { onErrorRetry: notACallback });
        const label = [retryLater].map((f) => f.name);
        return { a, b, label };
      }
    `, at('pages/other.tsx'))).toEqual([]);
  });

  it('does not read a namespace import as the default export', () => {
    // `ns` is the module namespace object, not the function exported as default: it is no callback.
    const at = project({ 'lib/swr-retry.js': RETRY_CALLBACK + 'export default retryLater;\n', 'pages/ns.tsx': '' });
    expect(lintAt(`
      import useSWR from 'swr';
      import * as retries from '../lib/swr-retry';
      export function useNs() {
        return useSWR('/api/ns', fetcher, { onErrorRetry: retries });
      }
    `, at('pages/ns.tsx'))).toEqual([]);
    expect(lintAt(`
      import useSWR from 'swr';
      import retryLater from '../lib/swr-retry';
      export function useDefault() {
        return useSWR('/api/default', fetcher, { onErrorRetry: retryLater });
      }
    `, at('pages/ns.tsx'))).toContain('5 require-jitter');
  });
});

const KAFKA_CLIENT = `
import { Kafka } from 'kafkajs';
export const kafkaClient = new Kafka({ clientId: 'svc', brokers: ['b:9092'] });
export const factory = () => new Kafka({ clientId: 'other', brokers: [] });
`;

describe('a kafkajs client built in another file', () => {
  beforeEach(() => clearModuleCache());

  const files = {
    'tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@app/kafka': ['libs/kafka/src/index.ts'] } } }),
    'libs/kafka/src/index.ts': "export * from './lib/';\n",
    'libs/kafka/src/lib/index.ts': "export * from './client';\n",
    'libs/kafka/src/lib/client/index.ts': "export { kafkaClient, factory } from './client';\n",
    'libs/kafka/src/lib/client/client.ts': KAFKA_CLIENT,
    'apps/weather/producer.ts': '',
  };

  it('reads producer() on the imported instance with the construction\'s options, through an alias and re-exports', () => {
    const at = project(files);
    const before = moduleCacheStats().parses;
    const findings = lintAt(`
      import { kafkaClient } from '@app/kafka';
      export const start = async () => {
        const producer = kafkaClient.producer({ retry: { maxRetryTime: 7, multiplier: 2 } });
        await producer.connect();
        return producer;
      };
    `, at('apps/weather/producer.ts'));
    expect(findings).toEqual(['4 no-unsafe-write-retry', '4 max-retry-attempts', '4 require-exponential-backoff', '4 require-jitter'].sort());
    // The alias entry, two re-exporting indexes and the client file: four files, each parsed once.
    expect(moduleCacheStats().parses - before).toBe(4);
  });

  it('stays silent on an idempotent producer within bounds, an instance from a factory, and other methods', () => {
    const at = project(files);
    expect(lintAt(`
      import { kafkaClient, factory } from '@app/kafka';
      export const a = kafkaClient.producer({ idempotent: true, retry: { retries: 3 } });
      export const b = factory().producer({ retry: { retries: 20 } });
      export const c = kafkaClient.consumer({ groupId: 'g' });
      export const d = kafkaClient.admin();
    `, at('apps/weather/producer.ts'))).toEqual([]);
  });

  it('reads producer() spelt with an escape, which the word test on the text lets through', () => {
    const at = project(files);
    expect(lintAt(`
      import { kafkaClient } from '@app/kafka';
      export const p = kafkaClient.\\u0070roducer({ retry: { maxRetryTime: 7, multiplier: 2 } });
    `, at('apps/weather/producer.ts'))).toEqual(['3 no-unsafe-write-retry', '3 max-retry-attempts', '3 require-exponential-backoff', '3 require-jitter'].sort());
  });

  it('opens no other file for a file that calls none of the followed methods', () => {
    const at = project(files);
    const before = moduleCacheStats().parses;
    lintAt(`
      import { kafkaClient } from '@app/kafka';
      export const c = kafkaClient.consumer({ groupId: 'g' });
    `, at('apps/weather/producer.ts'));
    expect(moduleCacheStats().parses).toBe(before);
  });
});

describe('a helper imported from another file that catches every failure itself', () => {
  beforeEach(() => clearModuleCache());

  const LOG = (catchBody: string) => `
export async function sendLog(client, message) {
  let tries = 0;
  let sent = false;
  while (tries < 3 && !sent) {
    try { await client.owner.send(message); sent = true; } catch (error) { ${catchBody} }
    tries++;
  }
  return sent;
}
`;
  const CALLER = `
    import { sendLog } from '../lib/send-log';
    export async function reset(client, id) {
      for (let i = 0; i < 3; i++) {
        try {
          await removeRows(id);
          await sendLog(client, 'reset ' + id);
          return { success: true };
        } catch (e) { await sleep(Math.random() * 500 * 2 ** i); }
      }
    }
  `;

  it('is not a write the retry repeats when it is called on the way out', () => {
    const at = project({ 'lib/send-log.ts': LOG(`console.error('log failed', (error as Error).message);`), 'src/reset.ts': '' });
    expect(lintAt(CALLER, at('src/reset.ts')).filter((f) => f.endsWith('no-unsafe-write-retry'))).toEqual([]);
  });

  it('is one when its catch can fail', () => {
    const at = project({ 'lib/send-log.ts': LOG(`await client.owner.send('log failed');`), 'src/reset.ts': '' });
    expect(lintAt(CALLER, at('src/reset.ts')).filter((f) => f.endsWith('no-unsafe-write-retry'))).toEqual(['7 no-unsafe-write-retry']);
  });
});

const ORDERS_API = `
export function createOrder(o) { return fetch('/orders', { method: 'POST', body: JSON.stringify(o) }); }
export const listOrders = () => fetch('/orders');
export default { createOrder: () => fetch('/orders') };
`;

describe('a member of a namespace import', () => {
  beforeEach(() => clearModuleCache());

  const loop = (call: string) => `
    import * as api from '../lib/orders';
    export async function run(o) {
      for (let i = 0; i < 3; i++) {
        try { return await ${call}; } catch { await new Promise((r) => setTimeout(r, 2 ** i * 100 * Math.random())); }
      }
    }
  `;

  it('is the function exported under that name, not a member of the default export', () => {
    const at = project({ 'lib/orders.js': ORDERS_API, 'jobs/run.ts': '' });
    expect(lintAt(loop('api.createOrder(o)'), at('jobs/run.ts'))).toContain('5 no-unsafe-write-retry');
    expect(lintAt(loop('api.listOrders()'), at('jobs/run.ts'))).not.toContain('5 no-unsafe-write-retry');
  });
});
