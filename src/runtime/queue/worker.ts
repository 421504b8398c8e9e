import { randomUUID } from 'node:crypto';
import { NonRetryableTaskError, TaskQueueError } from './errors.js';
import { HandlerTimer, InFlight, runHandler } from './lease.js';
import type { QueueSettings } from './options.js';
import { createCompleter, settleCompletions, withRetries } from './outcomes.js';
import type { ClaimedTask, TaskStore } from './types.js';
import { backoffDelayMs, describeError, sleep } from './util.js';

export interface Worker {
  start(): void;
  stop(options?: { timeoutMs?: number }): Promise<void>;
  runOnce(): Promise<number>;
  /** Claims at once instead of at the next poll. */
  wake(): void;
}

/**
 * The worker side of a task queue: the claim loop, the local buffer and the concurrency slots,
 * lease renewal, recording outcomes and delivering FAILED alerts.
 */
export function createWorker(settings: QueueSettings, migrate: () => Promise<void>): Worker {
  const { store, handlers, pollIntervalMs, batchSize, concurrency, baseDelayMs, maxDelayMs, jitter, leaseMs } = settings;
  const { stopTimeoutMs, handlerTimeoutMs, onFailed, workerId, kinds, meter, now, safeOnError } = settings;
  let running = false;
  let loopDone: Promise<void> | undefined;
  let unsubscribe: (() => Promise<void>) | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  const inflight = new Map<string, InFlight>();
  const buffer: ClaimedTask[] = [];
  let active = 0;
  // Refill the local buffer before it runs dry, so the next claim overlaps the running tasks.
  const lowWater = Math.min(concurrency, batchSize);
  let wakeResolve: (() => void) | undefined;
  let wakePending = false;
  let backlog = false;
  let alertsWanted = false;
  let lastAlertSweep = 0;

  const wake = () => {
    wakePending = true;
    wakeResolve?.();
  };

  function waitForWake(ms: number): Promise<void> {
    if (wakePending) {
      wakePending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeResolve = undefined;
        wakePending = false;
        resolve();
      }
      wakeResolve = done;
    });
  }

  const handlerTimer = new HandlerTimer(handlerTimeoutMs);
  let claiming: Promise<unknown> | undefined;
  const completer = createCompleter({ store, now, safeOnError, claimWanted, claiming: () => claiming });

  async function recordFailure(task: ClaimedTask, error: string, terminal: boolean): Promise<void> {
    const delayMs = backoffDelayMs(task.attempts, { baseDelayMs, maxDelayMs, jitter });
    const status = await withRetries('recording a failed attempt', () =>
      store.fail({ id: task.id, token: task.leaseToken, error, delayMs, terminal, now: now() }),
    safeOnError);
    meter?.failed(task.kind, status === 'failed');
    if (status === null) {
      safeOnError(new Error(`task ${task.id} (${task.kind}) failed after its lease was lost; the new owner decides its fate`), 'fail');
    } else if (status === 'failed' && onFailed) {
      alertsWanted = true;
      wake();
    }
  }

  /**
   * The slot is freed as soon as the handler settles: the concurrency limit is about handlers,
   * and the outcome's write (batched with others) need not hold a slot. The lease stays held until
   * the write lands.
   */
  async function execute(task: ClaimedTask, lease: InFlight): Promise<void> {
    if (task.attempts > task.maxAttempts) {
      // The previous owner took the last attempt and never reported back (crash, or stalled past
      // its lease). Running it again would exceed the bound.
      await recordFailure(task, `attempt ${task.maxAttempts} of ${task.maxAttempts} never reported back (worker crashed or lost its lease); no attempts left. Previous error: ${task.lastError ?? 'none'}`, true);
      return;
    }
    const handler = handlers[task.kind];
    if (!handler) {
      await recordFailure(task, `no handler for task kind "${task.kind}" in worker ${workerId}`, true);
      return;
    }
    const outcome = await runHandler(handler, task, lease, handlerTimer, safeOnError);
    freeSlot(lease);
    if (outcome !== undefined) {
      await recordFailure(task, describeError(outcome.error), outcome.error instanceof NonRetryableTaskError);
      return;
    }
    const ok = await completer.complete(task.id, task.leaseToken);
    if (ok) meter?.completed(task.kind);
    if (!ok) {
      safeOnError(new Error(`task ${task.id} (${task.kind}) finished after its lease was lost; another worker may have run it too`), 'complete');
    }
  }

  function hold(task: ClaimedTask): InFlight {
    const entry = new InFlight(task.id, task.leaseToken);
    inflight.set(task.id, entry);
    buffer.push(task);
    ensureHeartbeat();
    return entry;
  }

  function freeSlot(entry: InFlight): void {
    if (!entry.slot) return;
    entry.slot = false;
    active--;
    pump();
    if ((backlog && buffer.length < lowWater) || alertsWanted) wake();
  }

  /** One task from slot to settled: one async function, no promise chain per task. */
  async function run(task: ClaimedTask, entry: InFlight): Promise<void> {
    try {
      await execute(task, entry);
    } catch (error) {
      safeOnError(error, `task ${task.id} (${task.kind})`);
    } finally {
      freeSlot(entry);
      if (inflight.get(task.id) === entry) inflight.delete(task.id);
      entry.settle();
      if (alertsWanted) wake();
    }
  }

  function pump(): void {
    while (active < concurrency && buffer.length > 0) {
      const task = buffer.shift() as ClaimedTask;
      const entry = inflight.get(task.id);
      if (!entry) continue;
      active++;
      entry.slot = true;
      void run(task, entry);
    }
  }

  function ensureHeartbeat() {
    if (heartbeat) return;
    heartbeat = setInterval(() => {
      if (inflight.size === 0) return;
      const leases = [...inflight.values()].map((e) => ({ id: e.id, token: e.token }));
      store.extendLeases({ leases, leaseMs, now: now() }).then(
        (kept) => {
          for (const l of leases) {
            const e = inflight.get(l.id);
            if (e && e.token === l.token && !kept.has(l.id)) {
              e.abort(new Error(`lease on task ${l.id} was lost; another worker may run it now`));
            }
          }
        },
        (error: unknown) => safeOnError(error, 'extending leases'),
      );
    }, Math.max(50, Math.floor(leaseMs / 3)));
    heartbeat.unref?.();
  }

  async function claimBatch(limit: number): Promise<InFlight[]> {
    await migrate();
    const req = { workerId, kinds, limit, leaseMs, token: randomUUID(), now: now() };
    const taken = store.claimAndComplete ? completer.take() : [];
    let tasks: ClaimedTask[];
    if (taken.length === 0) {
      const claim = store.claim(req);
      claiming = claim;
      try {
        tasks = await claim;
      } finally {
        claiming = undefined;
      }
    } else {
      let result: { claimed: ClaimedTask[]; completed: Set<string> };
      const claim = (store.claimAndComplete as NonNullable<TaskStore['claimAndComplete']>)({ ...req, complete: taken });
      claiming = claim;
      try {
        result = await claim;
      } catch (error) {
        // The completions were not recorded: send them alone, with the usual retries.
        for (const c of taken) void completer.complete(c.id, c.token).then(c.resolve, c.reject);
        throw error;
      } finally {
        claiming = undefined;
      }
      settleCompletions(taken, result);
      tasks = result.claimed;
    }
    backlog = tasks.length === limit;
    const entries = tasks.map(hold);
    pump();
    return entries;
  }

  /** Gives back claimed tasks that never started, so they need not wait for their lease. */
  async function releaseBuffered(): Promise<void> {
    const unstarted = buffer.splice(0);
    if (unstarted.length === 0) return;
    try {
      await store.release({ tasks: unstarted.map((t) => ({ id: t.id, token: t.leaseToken })), now: now() });
    } catch (error) {
      safeOnError(error, 'releasing unstarted tasks (they come back when their lease expires)');
    }
    for (const t of unstarted) {
      inflight.get(t.id)?.settle();
      inflight.delete(t.id);
    }
  }

  async function sweepAlerts(): Promise<void> {
    if (!onFailed) return;
    alertsWanted = false;
    lastAlertSweep = Date.now();
    for (;;) {
      const token = randomUUID();
      const due = await store.claimAlerts({ limit: batchSize, leaseMs, token, now: now() });
      for (const task of due) {
        const { leaseToken: _, ...visible } = task;
        try {
          await onFailed({ ...visible, alertedAt: null });
        } catch (error) {
          // Left claimed: it is offered again once the alert lease runs out.
          safeOnError(error, `onFailed for task ${task.id}`);
          continue;
        }
        await withRetries('recording an alert', () => store.markAlerted({ id: task.id, token, now: now() }), safeOnError);
      }
      if (due.length < batchSize) return;
    }
  }

  async function loop(): Promise<void> {
    let errorDelay = 0;
    while (running) {
      try {
        if (!unsubscribe && store.subscribe) {
          await migrate();
          unsubscribe = await store.subscribe(wake, (error) => safeOnError(error, 'LISTEN connection'));
        }
        if (buffer.length < lowWater) await claimBatch(batchSize - buffer.length);
        if (onFailed && (alertsWanted || Date.now() - lastAlertSweep >= pollIntervalMs)) await sweepAlerts();
        errorDelay = 0;
      } catch (error) {
        safeOnError(error, 'polling');
        backlog = false;
        // Completions that were waiting for this claim go on their own.
        void completer.flush();
        errorDelay = Math.min(Math.max(errorDelay * 2, 250), pollIntervalMs);
        await sleep(errorDelay);
        continue;
      }
      if (!running) break;
      if (claimWanted()) {
        // Let several finished tasks free their slots before the next claim.
        await new Promise((r) => setImmediate(r));
        continue;
      }
      // No claim soon: completions waiting for one go on their own.
      await completer.flush();
      await waitForWake(pollIntervalMs);
    }
    await completer.flush();
  }

  /** The loop claims again as soon as it can: completions can wait for that claim. */
  function claimWanted(): boolean {
    return running && backlog && buffer.length < lowWater;
  }

  return {
    wake,

    start() {
      if (running) return;
      if (kinds.length === 0) throw new TaskQueueError('INVALID_OPTION', 'start() needs at least one handler; this queue can only enqueue');
      running = true;
      wakePending = true;
      loopDone = loop();
    },

    async stop(opts: { timeoutMs?: number } = {}) {
      const timeoutMs = opts.timeoutMs ?? stopTimeoutMs;
      if (running) {
        running = false;
        wake();
        await loopDone;
      }
      const unsub = unsubscribe;
      unsubscribe = undefined;
      await unsub?.().catch((error: unknown) => safeOnError(error, 'UNLISTEN'));
      await releaseBuffered();
      const pending = [...inflight.values()];
      if (pending.length > 0) {
        let timer: NodeJS.Timeout | undefined;
        const timedOut = await Promise.race([
          Promise.allSettled(pending.map((e) => e.done)).then(() => false),
          new Promise<boolean>((r) => (timer = setTimeout(() => r(true), timeoutMs))),
        ]);
        clearTimeout(timer);
        if (timedOut) {
          // Their rows stay RUNNING under a lease that is no longer renewed: another worker takes
          // them when it expires. Releasing them now would let two copies run at once.
          for (const e of inflight.values()) e.abort(new TaskQueueError('STOPPED', 'queue stopped before this task finished'));
        }
      }
      // Stopped means no more renewals, also for handlers still running past the timeout.
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = undefined;
    },

    async runOnce() {
      const started = await claimBatch(batchSize);
      await Promise.all(started.map((e) => e.done));
      await sweepAlerts();
      if (inflight.size === 0 && heartbeat && !running) {
        clearInterval(heartbeat);
        heartbeat = undefined;
      }
      return started.length;
    },
  };
}
