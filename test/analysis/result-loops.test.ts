/**
 * Loops that retry on a returned error (`{ data } | { error }` results, as Supabase, openapi-fetch
 * or a team's own Result type give them) rather than a thrown one, and the look-alikes that go on
 * after a success (pagination, polling) and stay silent.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { clearModuleCache } from '../../src/analysis/wrappers/index.js';
import { analyse, lint } from '../helpers/model.js';
import { temporaryProjects } from '../helpers/project.js';
import { lintAt } from '../helpers/lint-at.js';

const handWritten = (code: string) => analyse(code).filter((s) => s.library === 'hand-written');
const rulesAt = (code: string) => lint(code).map((f) => `${f.line} ${f.rule}`).sort();

const SLEEP = 'const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));';

describe('loops that retry on a returned error', () => {
  it('reads `if (!result.error) return result` in a while (true) as an unbounded retry of every failure', () => {
    const code = `${SLEEP}
      export async function submit(order: Order) {
        while (true) {
          const result = await createInvoice(order);
          if (!result.error) return result;
          await sleep(2000);
        }
      }
    `;
    expect(handWritten(code)).toMatchObject([{ label: 'while loop', attempts: Infinity, growth: 'constant', initialMs: 2000, jitter: false, filter: 'none', operation: 'createInvoice(order)' }]);
    // A returned error is no HTTP status: retrying every one is not read as retried 4xx.
    expect(rulesAt(code)).toEqual(['3 max-retry-attempts', '3 max-retry-duration', '4 no-unsafe-write-retry', '6 require-exponential-backoff', '6 require-jitter']);
  });

  it('reads a destructured `{ data, error }` with a bound and a status test on the error', () => {
    const code = `${SLEEP}
      export async function send(client: Api, body: Body) {
        for (let attempt = 1; attempt <= 4; attempt++) {
          const { data, error } = await client.post('/messages', body);
          if (!error) return data;
          if (error.status === 401 || error.status === 403) throw error;
          await sleep(250 * 2 ** attempt);
        }
        throw new Error('gave up');
      }
    `;
    const [site] = handWritten(code);
    expect(site).toMatchObject({ attempts: 4, growth: 'exponential', multiplier: 2, jitter: false, filter: 'statuses' });
    expect(site!.clientErrors).toEqual(['4xx other than 401, 403']);
    expect(rulesAt(code)).toContain('6 no-retry-on-client-error');
  });

  it('reads a do...while on the error part and an error renamed in the pattern', () => {
    const code = `${SLEEP}
      export async function load(id: string) {
        let tries = 0;
        let failure;
        do {
          const { data, error: e } = await fetchUser(id);
          failure = e;
          if (!e) return data;
          tries++;
          await sleep(100 * tries);
        } while (tries < 3);
        throw failure;
      }
    `;
    expect(handWritten(code)).toMatchObject([{ label: 'do...while loop', attempts: 3, growth: 'linear' }]);
  });

  it('stays silent on a pagination loop that tests each page for an error', () => {
    expect(handWritten(`
      export async function all() {
        const rows = [];
        let cursor: string | undefined;
        while (true) {
          const { data, error } = await listPage(cursor);
          if (error) throw error;
          rows.push(...data.items);
          cursor = data.next;
          if (!cursor) return rows;
        }
      }
    `)).toEqual([]);
  });

  it('stays silent on polling until a state is ready, and on a walk over items', () => {
    expect(handWritten(`${SLEEP}
      export async function waitFor(id: string) {
        while (true) {
          const result = await getJob(id);
          if (result.error) throw result.error;
          if (result.data.state === 'done') return result.data;
          await sleep(1000);
        }
      }
      export async function uploadAll(files: File[]) {
        for (let i = 0; i < files.length; i++) {
          const { error } = await upload(files[i]);
          if (error) console.error(error);
        }
      }
      export async function firstFree(ids: string[]) {
        for (const id of ids) {
          const res = await reserve(id);
          if (!res.error) return res;
        }
      }
    `)).toEqual([]);
  });

  it('stays silent on a loop that stops at the first error and a result never awaited in the loop', () => {
    expect(handWritten(`
      export async function drain(queue: Queue) {
        while (true) {
          const { data, error } = await queue.pop();
          if (error) break;
          await handle(data);
        }
      }
      export function check(values: string[]) {
        let i = 0;
        while (i < values.length) {
          const parsed = schema.safeParse(values[i]);
          if (!parsed.error) return parsed.data;
          i++;
        }
      }
    `)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

/** Writes a small project to a temporary folder; returns absolute paths by relative name. */
const project = temporaryProjects('safe-retry-results-');


describe('a Result-returning retry helper in another file', () => {
  beforeEach(() => clearModuleCache());

  const HELPER = `
    const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
    export async function retryResult<T>(fn: () => Promise<{ data?: T; error?: Error }>, tries = 3) {
      for (let attempt = 1; ; attempt++) {
        const result = await fn();
        if (!result.error || attempt >= tries) return result;
        await wait(500 * attempt);
      }
    }
  `;

  it('makes each call a retry of the operation it is given; the helper\'s own waits are judged in the helper', () => {
    const at = project({ 'src/retry.ts': HELPER, 'src/app.ts': '' });
    const findings = lintAt(`
      import { retryResult } from './retry';
      export const save = (order: Order) => retryResult(() => createOrder(order), 8);
      export const read = (id: string) => retryResult(() => getOrder(id));
    `, at('src/app.ts'));
    expect(findings).toEqual(['3 max-retry-attempts', '3 max-retry-duration', '3 no-unsafe-write-retry']);
    expect(lintAt(HELPER, at('src/retry.ts'))).toEqual(['7 require-exponential-backoff', '7 require-jitter']);
  });
});
