import type { StoreNow, TaskStore } from './types.js';
import { sleep } from './util.js';

export async function withRetries<T>(what: string, fn: () => Promise<T>, safeOnError: (error: unknown, where: string) => void): Promise<T> {
  // A blip while recording an outcome should not cost a re-run; a long outage still ends in the
  // lease expiring and the task running again (at-least-once, which is why it carries a key).
  const waits = [100, 500, 2000];
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (error) {
      if (i >= waits.length) throw error;
      safeOnError(error, `${what} (retrying)`);
      // Jittered, so workers that lost the database together do not come back together.
      await sleep((waits[i] ?? 0) * (0.5 + Math.random()));
    }
  }
}

export type Completion = { id: string; token: string; resolve: (ok: boolean) => void; reject: (e: unknown) => void };

export interface Completer {
  /** Records the task as completed under its lease token; resolves false when the lease was lost. */
  complete(id: string, token: string): Promise<boolean>;
  /** For the next claim: the completions waiting now. */
  take(): Completion[];
  /** Sends the waiting completions on their own. */
  flush(): Promise<void>;
}

/**
 * Completions that arrive in the same turn of the event loop share one statement (one commit,
 * one fsync): with short handlers, per-task commits are what limits throughput. When the worker
 * is about to claim again anyway, they ride on that claim instead (`claimAndComplete`).
 */
export function createCompleter(deps: {
  store: TaskStore;
  now: () => StoreNow;
  safeOnError: (error: unknown, where: string) => void;
  /** True while the worker's loop is about to claim again (it takes the batch along). */
  claimWanted: () => boolean;
  /** The worker's claim in flight, if any. */
  claiming: () => Promise<unknown> | undefined;
}): Completer {
  const { store, now, safeOnError, claimWanted, claiming } = deps;
  let batch: Completion[] = [];
  let scheduled = false;
  const flush = async () => {
    scheduled = false;
    const inFlight = claiming();
    if (inFlight !== undefined && batch.length > 0) {
      // Sent alongside the claim, the batch would need a second connection (on PostgreSQL, a
      // backend to start and statements to plan again). After it, the next claim may take it.
      await inFlight.then(() => undefined, () => undefined);
      if (claimWanted()) return;
    }
    if (batch.length === 0) return;
    const current = batch;
    batch = [];
    try {
      const done = await withRetries('completing tasks', () => store.complete({ tasks: current, now: now() }), safeOnError);
      for (const c of current) c.resolve(done.has(c.id));
    } catch (error) {
      for (const c of current) c.reject(error);
    }
  };
  return {
    complete(id: string, token: string): Promise<boolean> {
      return new Promise((resolve, reject) => {
        batch.push({ id, token, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(() => {
            // The loop is claiming again: it takes this batch along (it flushes when it stops).
            if (claimWanted()) scheduled = false;
            else void flush();
          });
        }
      });
    },
    /** For the next claim: the completions waiting now. */
    take(): Completion[] {
      const current = batch;
      batch = [];
      return current;
    },
    flush,
  };
}

/** A claim that carried completions tells each one how it went. */
export function settleCompletions(taken: Completion[], result: { completed: Set<string> } | { error: unknown }): void {
  for (const c of taken) {
    if ('error' in result) c.reject(result.error);
    else c.resolve(result.completed.has(c.id));
  }
}
