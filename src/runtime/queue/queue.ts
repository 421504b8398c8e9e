import type { HandoffContext } from '../handoff.js';
import { TaskQueueError } from './errors.js';
import { resolveSettings, type EnqueueItem, type TaskHandlers, type TaskQueue, type TaskQueueOptions } from './options.js';
import type { EnqueueOutcome, NewTaskRow } from './types.js';
import { assertInt, describeError, toPayloadJson, uuidv7 } from './util.js';
import { createWorker } from './worker.js';

/**
 * A durable task queue on a store (SQLite or PostgreSQL): enqueueing and hand-offs here, the
 * worker in worker.ts, the options and their checks in options.ts.
 */
export function createTaskQueue<H extends TaskHandlers>(options: TaskQueueOptions<H>): TaskQueue<H> {
  const settings = resolveSettings(options as TaskQueueOptions<TaskHandlers>);
  const { store, workerId, known, maxAttempts, baseDelayMs, now } = settings;

  let migrated: Promise<void> | undefined;
  const migrate = () => {
    migrated ??= store.migrate().catch((error: unknown) => {
      migrated = undefined;
      throw error;
    });
    return migrated;
  };

  function toRow(item: EnqueueItem, extra?: { delayMs?: number; lastError?: string | null }): NewTaskRow {
    const { kind } = item;
    if (typeof kind !== 'string' || !known.has(kind)) {
      throw new TaskQueueError(
        'UNKNOWN_KIND',
        `unknown task kind ${JSON.stringify(kind)}: no handler for it here (known: ${[...known].map((k) => JSON.stringify(k)).join(', ') || 'none'}); add a handler, or list it in enqueueOnlyKinds if another service runs it`,
      );
    }
    const payloadJson = toPayloadJson(kind, item.payload);
    const key = item.idempotencyKey;
    if (key !== undefined && (typeof key !== 'string' || key.length === 0 || key.length > 1000)) {
      throw new TaskQueueError('INVALID_OPTION', `idempotencyKey must be a non-empty string of at most 1000 characters, got ${JSON.stringify(key)}`);
    }
    let runAt: Date | null = null;
    if (item.runAt !== undefined) {
      runAt = item.runAt instanceof Date ? new Date(item.runAt.getTime()) : new Date(item.runAt);
      if (Number.isNaN(runAt.getTime())) throw new TaskQueueError('INVALID_OPTION', `runAt is not a valid time: ${String(item.runAt)}`);
    }
    return {
      id: uuidv7(),
      kind,
      payloadJson,
      idempotencyKey: key ?? null,
      runAt,
      delayMs: extra?.delayMs ?? 0,
      maxAttempts: assertInt('maxAttempts', item.maxAttempts ?? maxAttempts, 1),
      lastError: extra?.lastError ?? null,
    };
  }

  async function insert(rows: NewTaskRow[], client: unknown): Promise<EnqueueOutcome[]> {
    await migrate();
    return store.enqueue(rows, { now: now(), client });
  }

  const worker = createWorker(settings, migrate);
  const { wake } = worker;

  const queue: TaskQueue<H> = {
    store,
    workerId,
    migrate,

    async enqueue(kind, payload, opts = {}) {
      const row = toRow({ kind, payload, idempotencyKey: opts.idempotencyKey, runAt: opts.runAt, maxAttempts: opts.maxAttempts });
      const [out] = await insert([row], opts.client);
      return out as EnqueueOutcome;
    },

    async enqueueMany(items, opts = {}) {
      const rows = items.map((item) => toRow(item));
      return insert(rows, opts.client);
    },

    handoff(kind, payload, opts = {}) {
      const delayMs = assertInt('handoff delayMs', opts.delayMs ?? baseDelayMs * 2, 0);
      // Validate now: a bad payload should surface when the operation is set up, not when it gives up.
      toRow({ kind, payload, maxAttempts: opts.maxAttempts });
      return async (ctx: HandoffContext) => {
        if (ctx.reason === 'not-retryable') {
          throw new TaskQueueError('NOT_HANDED_OFF', `not handing off "${kind}": the error is not retryable (a contract error fails the same way from the queue)`, { cause: ctx.error });
        }
        const row = toRow(
          { kind, payload, idempotencyKey: ctx.idempotencyKey, maxAttempts: opts.maxAttempts },
          { delayMs, lastError: `handed off by the in-memory retry policy after ${ctx.attempts} attempt(s), reason "${ctx.reason}": ${describeError(ctx.error)}` },
        );
        const [out] = await insert([row], undefined);
        return { taskId: (out as EnqueueOutcome).taskId };
      };
    },

    start: () => worker.start(),
    stop: (opts) => worker.stop(opts),
    runOnce: () => worker.runOnce(),

    async stats() {
      await migrate();
      return store.counts();
    },

    async getTask(id) {
      await migrate();
      return store.get(id);
    },

    async listFailed(opts = {}) {
      await migrate();
      return store.list({ status: 'failed', kind: opts.kind, limit: assertInt('limit', opts.limit ?? 100, 1), offset: assertInt('offset', opts.offset ?? 0, 0) });
    },

    async redrive(taskId) {
      await migrate();
      const ok = await store.redrive({ id: taskId, now: now() });
      if (ok) wake();
      return ok;
    },

    async purgeCompleted(opts) {
      await migrate();
      return store.purgeCompleted({ olderThanMs: assertInt('olderThanMs', opts?.olderThanMs, 0), now: now() });
    },
  };
  return queue;
}
