/**
 * A transaction re-run when the database reports a conflict it rolled back (a serialization
 * failure, a deadlock): judged for its count only, never for waits, jitter, time or writes. A retry
 * that also takes other failures is a retry like any other.
 */
import { describe, expect, it } from 'vitest';
import { lint } from '../helpers/model.js';

const rulesAt = (code: string) => lint(code).map((f) => `${f.line} ${f.rule}`).sort();

describe('transaction re-runs on a database conflict', () => {
  it('leaves a Prisma $transaction re-run on P2034 unjudged but for its count', () => {
    const code = `import { Prisma, PrismaClient } from '@prisma/client';
      const prisma = new PrismaClient();
      export const inTx = <T>(work: (tx: Prisma.TransactionClient) => Promise<T>, left = 3): Promise<T> =>
        prisma.$transaction(work, { isolationLevel: 'Serializable' }).catch((e) => {
          if (e instanceof Prisma.PrismaClientKnownRequestError && ['P2034', 'P2028'].includes(e.code) && left > 0) return inTx(work, left - 1);
          throw e;
        });
    `;
    expect(rulesAt(code)).toEqual([]);
    // Unbounded, it is still reported: nothing stops a conflict that keeps coming back.
    expect(rulesAt(code.replace(' && left > 0', ''))).toEqual(['5 max-retry-attempts']);
  });

  it('reads a loop that rethrows everything but a PostgreSQL serialization failure or deadlock', () => {
    const code = `export async function transfer(pool: Pool, from: string, amount: number) {
        for (let attempt = 0; attempt < 4; attempt++) {
          try {
            return await pool.query('UPDATE accounts SET balance = balance - $1 WHERE id = $2', [amount, from]);
          } catch (e) {
            if (e.code !== '40001' && e.code !== '40P01') throw e;
          }
        }
      }
    `;
    expect(rulesAt(code)).toEqual([]);
    expect(rulesAt(code.replace('attempt < 4', 'attempt < 9'))).toEqual(['2 max-retry-attempts']);
  });

  it('judges a retry that also takes a failure of the dependency as a retry', () => {
    const code = `export async function record(pool: Pool, id: string) {
        for (let attempt = 0; attempt < 3; attempt++) {
          try {
            return await pool.query('INSERT INTO charges (id) VALUES ($1)', [id]);
          } catch (e) {
            if (e.code !== '40001' && e.code !== 'ECONNRESET') throw e;
          }
        }
      }
    `;
    expect(rulesAt(code)).toEqual(['2 require-exponential-backoff', '2 require-jitter']);
  });

  it('reads a library retry whose predicate accepts conflict codes only', () => {
    const code = `import pRetry from 'p-retry';
      export const transfer = (run: () => Promise<void>) => pRetry(run, { retries: 3, shouldRetry: (e) => e.code === 'P2034' });
      export const other = (run: () => Promise<void>) => pRetry(run, { retries: 3, shouldRetry: (e) => e.code === 'P2034' || e.code === 'ECONNRESET' });
    `;
    // The first is a re-run (only the legacy import is reported); the second retries a failure of the connection too.
    expect(rulesAt(code)).toEqual(['1 no-legacy-retry', '3 max-retry-duration', '3 require-jitter']);
  });
});
