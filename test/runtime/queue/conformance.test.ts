import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRetryPolicy,
  createTaskQueue,
  Deferred,
  NonRetryableTaskError,
  TaskQueueError,
  type FailedTask,
  type TaskQueueOptions,
  type TaskHandlers,
} from '../../../src/runtime/index.js';
import { postgresFixture, sqliteFixture, type StoreFixture, type StoreHandle } from './fixtures.js';

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);

function fakeClock(start = T0) {
  let t = start;
  return { now: () => t, set: (v: number) => (t = v), advance: (ms: number) => (t += ms) };
}

const quiet = { onError: () => undefined };

describe.each([sqliteFixture(), postgresFixture()])('task queue conformance: $name', (fx: StoreFixture) => {
  beforeAll(() => fx.setup());
  afterAll(() => fx.teardown());

  function queue<H extends TaskHandlers>(h: StoreHandle, opts: Omit<TaskQueueOptions<H>, 'store'>, store = h.store) {
    return createTaskQueue({ store, ...quiet, ...opts });
  }

  it('claims due tasks and completes them, passing payload, key and attempt', async () => {
    const h = await fx.make();
    const seen: unknown[] = [];
    const q = queue(h, { handlers: { 'order.confirm': async (p: { orderId: number }, ctx) => void seen.push({ p, key: ctx.idempotencyKey, attempt: ctx.attempt, id: ctx.taskId }) } });
    const a = await q.enqueue('order.confirm', { orderId: 1 }, { idempotencyKey: 'order-1:confirm' });
    const b = await q.enqueue('order.confirm', { orderId: 2 });
    expect(a.created && b.created).toBe(true);
    expect(await q.runOnce()).toBe(2);
    expect(seen).toEqual([
      { p: { orderId: 1 }, key: 'order-1:confirm', attempt: 1, id: a.taskId },
      { p: { orderId: 2 }, key: undefined, attempt: 1, id: b.taskId },
    ]);
    expect(await q.stats()).toEqual({ pending: 0, running: 0, completed: 2, failed: 0 });
    const task = await q.getTask(a.taskId);
    expect(task).toMatchObject({ status: 'completed', attempts: 1, lockedBy: null, idempotencyKey: 'order-1:confirm', payload: { orderId: 1 } });
    expect(await q.runOnce()).toBe(0);
  });

  it('does not run a task before runAt', async () => {
    const h = await fx.make();
    const clock = fakeClock();
    let runs = 0;
    const q = queue(h, { clock: clock.now, handlers: { k: () => void runs++ } });
    await q.enqueue('k', null, { runAt: T0 + 5000 });
    expect(await q.runOnce()).toBe(0);
    clock.set(T0 + 5000);
    expect(await q.runOnce()).toBe(1);
    expect(runs).toBe(1);
  });

  it('backs off 2, 4, 8 s, then marks FAILED after maxAttempts and alerts exactly once', async () => {
    const h = await fx.make();
    const clock = fakeClock();
    const failed: FailedTask[] = [];
    let calls = 0;
    const q = queue(h, {
      clock: clock.now,
      maxAttempts: 4,
      baseDelayMs: 1000,
      jitter: 0,
      onFailed: (t) => void failed.push(t),
      handlers: {
        flaky: () => {
          calls++;
          throw new Error(`upstream 503 #${calls}`);
        },
      },
    });
    const { taskId } = await q.enqueue('flaky', { x: 1 }, { idempotencyKey: 'flaky-1' });
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(await q.runOnce()).toBe(1);
      const t = await q.getTask(taskId);
      expect(t).toMatchObject({ status: 'pending', attempts: attempt, lastError: expect.stringContaining(`upstream 503 #${attempt}`) });
      const wait = t!.nextAttemptAt.getTime() - clock.now();
      waits.push(wait);
      clock.advance(wait - 1);
      expect(await q.runOnce()).toBe(0); // not due 1 ms early
      clock.advance(1);
    }
    expect(waits).toEqual([2000, 4000, 8000]);
    expect(await q.runOnce()).toBe(1);
    const t = await q.getTask(taskId);
    expect(t).toMatchObject({ status: 'failed', attempts: 4, lastError: expect.stringContaining('upstream 503 #4') });
    expect(t!.alertedAt).toBeInstanceOf(Date);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ id: taskId, kind: 'flaky', idempotencyKey: 'flaky-1', status: 'failed', attempts: 4 });
    // Later sweeps, by this or another worker, do not alert again.
    clock.advance(3_600_000);
    await q.runOnce();
    const other = queue(h, { clock: clock.now, onFailed: (x) => void failed.push(x), handlers: { flaky: () => undefined } }, h.another());
    await other.runOnce();
    expect(failed).toHaveLength(1);
    expect(calls).toBe(4);
  });

  it('jitters each wait downwards within the configured fraction', async () => {
    const h = await fx.make();
    const clock = fakeClock();
    const q = queue(h, { clock: clock.now, concurrency: 10, baseDelayMs: 1000, jitter: 0.5, handlers: { f: () => Promise.reject(new Error('x')) } });
    const ids = await q.enqueueMany(Array.from({ length: 10 }, () => ({ kind: 'f', payload: {} })));
    await q.runOnce();
    const waits = await Promise.all(ids.map(async ({ taskId }) => (await q.getTask(taskId))!.nextAttemptAt.getTime() - T0));
    for (const w of waits) expect(w).toBeGreaterThanOrEqual(1000), expect(w).toBeLessThanOrEqual(2000);
    expect(new Set(waits).size).toBeGreaterThan(1);
  });

  it('deduplicates enqueues by idempotency key', async () => {
    const h = await fx.make();
    const q = queue(h, { handlers: { a: () => undefined, b: () => undefined } });
    const first = await q.enqueue('a', { v: 1 }, { idempotencyKey: 'same' });
    const second = await q.enqueue('a', { v: 2 }, { idempotencyKey: 'same' });
    expect(second).toEqual({ taskId: first.taskId, created: false });
    const many = await q.enqueueMany([
      { kind: 'a', payload: 1, idempotencyKey: 'batch' },
      { kind: 'a', payload: 2, idempotencyKey: 'batch' },
      { kind: 'a', payload: 3, idempotencyKey: 'same' },
    ]);
    expect(many.map((m) => m.created)).toEqual([true, false, false]);
    expect(many[1]!.taskId).toBe(many[0]!.taskId);
    expect(many[2]!.taskId).toBe(first.taskId);
    await expect(q.enqueue('b', {}, { idempotencyKey: 'same' })).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_CONFLICT' });
    await q.runOnce();
    // Still deduplicated after completion: the key names an operation that already happened.
    expect((await q.enqueue('a', {}, { idempotencyKey: 'same' })).created).toBe(false);
    expect(await q.stats()).toMatchObject({ completed: 2, pending: 0 });
  });

  it('enqueues batches without keys, and batches mixing keyed and keyless tasks', async () => {
    const h = await fx.make();
    const q = queue(h, { handlers: { a: () => undefined } });
    const plain = await q.enqueueMany([{ kind: 'a', payload: 1 }, { kind: 'a', payload: 1 }]);
    expect(plain.map((m) => m.created)).toEqual([true, true]);
    expect(plain[0]!.taskId).not.toBe(plain[1]!.taskId);
    const keyed = await q.enqueue('a', 2, { idempotencyKey: 'k' });
    const mixed = await q.enqueueMany([
      { kind: 'a', payload: 3 },
      { kind: 'a', payload: 4, idempotencyKey: 'k' },
      { kind: 'a', payload: 5, idempotencyKey: 'fresh' },
      { kind: 'a', payload: 6 },
    ]);
    expect(mixed.map((m) => m.created)).toEqual([true, false, true, true]);
    expect(mixed[1]!.taskId).toBe(keyed.taskId);
    expect(await q.stats()).toMatchObject({ pending: 6 });
  });

  it('sends a NonRetryableTaskError straight to FAILED', async () => {
    const h = await fx.make();
    const failed: FailedTask[] = [];
    const q = queue(h, {
      onFailed: (t) => void failed.push(t),
      handlers: { v: () => { throw new NonRetryableTaskError('422: amount must be positive'); } },
    });
    const { taskId } = await q.enqueue('v', { amount: -1 });
    await q.runOnce();
    expect(await q.getTask(taskId)).toMatchObject({ status: 'failed', attempts: 1, lastError: expect.stringContaining('422: amount must be positive') });
    expect(failed.map((f) => f.id)).toEqual([taskId]);
  });

  it('records a non-Error throw readably', async () => {
    const h = await fx.make();
    const q = queue(h, { handlers: { n: () => { throw { status: 503, body: 'busy' }; }, s: () => Promise.reject('plain string'), u: () => { throw undefined; } } });
    const ids = await q.enqueueMany([{ kind: 'n', payload: 0 }, { kind: 's', payload: 0 }, { kind: 'u', payload: 0 }]);
    await q.runOnce();
    const errs = await Promise.all(ids.map(async (i) => (await q.getTask(i.taskId))!.lastError));
    expect(errs).toEqual([
      'non-Error thrown (object): {"status":503,"body":"busy"}',
      'non-Error thrown (string): "plain string"',
      'non-Error thrown (undefined): undefined',
    ]);
  });

  it('rejects unknown kinds and payloads that are not JSON, enqueueing nothing', async () => {
    const h = await fx.make();
    const q = queue(h, { handlers: { a: () => undefined }, enqueueOnlyKinds: ['elsewhere'] });
    await expect(q.enqueue('typo' as 'a', {})).rejects.toMatchObject({ code: 'UNKNOWN_KIND', message: expect.stringContaining('"typo"') });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(q.enqueue('a', cyclic)).rejects.toMatchObject({ code: 'PAYLOAD_NOT_JSON' });
    await expect(q.enqueue('a', { n: 10n })).rejects.toMatchObject({ code: 'PAYLOAD_NOT_JSON' });
    await expect(q.enqueue('a', undefined)).rejects.toBeInstanceOf(TaskQueueError);
    await expect(q.enqueueMany([{ kind: 'a', payload: 1 }, { kind: 'a', payload: () => 1 }])).rejects.toMatchObject({ code: 'PAYLOAD_NOT_JSON' });
    expect(await q.stats()).toEqual({ pending: 0, running: 0, completed: 0, failed: 0 });
    // A kind run by another service is accepted, and this worker does not claim it.
    await q.enqueue('elsewhere', { ok: true });
    expect(await q.runOnce()).toBe(0);
    expect(await q.stats()).toMatchObject({ pending: 1 });
  });

  it('refuses, naming the path, any payload JSON would silently change, and accepts what it carries whole', async () => {
    const h = await fx.make();
    const seen: unknown[] = [];
    const q = queue(h, { handlers: { a: (p: unknown) => void seen.push(p) } });
    class Money {
      constructor(readonly cents: number) {}
    }
    const cyclic: Record<string, unknown> = { items: [] };
    (cyclic.items as unknown[]).push({ back: cyclic });
    const refused: [unknown, string][] = [
      [{ f: () => 1 }, 'payload.f'],
      [{ at: new Date(0) }, 'payload.at'],
      [{ list: [1, undefined] }, 'payload.list[1]'],
      [{ list: [1, , 3] }, 'payload.list[1]'],
      [cyclic, 'payload.items[0].back'],
      [{ n: NaN }, 'payload.n'],
      [{ n: -Infinity }, 'payload.n'],
      [{ big: 10n }, 'payload.big'],
      [{ m: new Map([['a', 1]]) }, 'payload.m'],
      [{ s: new Set([1]) }, 'payload.s'],
      [{ amount: new Money(5) }, 'payload.amount'],
      [{ 'order id': { s: Symbol('x') } }, 'payload["order id"].s'],
      [{ [Symbol('hidden')]: 1 }, 'payload'],
      [{ note: 'a\u0000b' }, 'payload.note'],
      [{ note: 'x\ud800' }, 'payload.note'],
      [Buffer.from('hi'), 'payload'],
      [undefined, 'payload'],
    ];
    for (const [payload, path] of refused) {
      const error = await q.enqueue('a', payload).then(() => undefined, (e: unknown) => e);
      expect(error, `payload at ${path}`).toBeInstanceOf(TaskQueueError);
      expect(error).toMatchObject({ code: 'PAYLOAD_NOT_JSON', path });
      expect((error as Error).message).toContain(path);
    }
    expect(await q.stats()).toEqual({ pending: 0, running: 0, completed: 0, failed: 0 });
    // What JSON carries whole goes through unchanged; an undefined property comes back absent.
    const shared = { sku: 'A-1' };
    const whole = { a: [shared, shared], nested: { n: -1.5, t: true, z: null, s: 'é😀' }, empty: {}, none: Object.assign(Object.create(null), { k: 1 }) };
    await q.enqueue('a', whole);
    await q.enqueue('a', { kept: 1, dropped: undefined });
    expect(await q.runOnce()).toBe(2);
    expect(seen).toEqual([{ a: [{ sku: 'A-1' }, { sku: 'A-1' }], nested: { n: -1.5, t: true, z: null, s: 'é😀' }, empty: {}, none: { k: 1 } }, { kept: 1 }]);
  });

  it('checks the lease token: a worker that lost its lease cannot overwrite the new owner', async () => {
    const h = await fx.make();
    const clock = fakeClock();
    const q = queue(h, { clock: clock.now, handlers: { k: () => undefined } });
    const { taskId } = await q.enqueue('k', {});
    const now = () => new Date(clock.now());
    const [a] = await h.store.claim({ workerId: 'A', kinds: ['k'], limit: 10, leaseMs: 1000, token: 'tok-a', now: now() });
    expect(a).toMatchObject({ id: taskId, attempts: 1, lockedBy: 'A', leaseToken: 'tok-a', status: 'running' });
    expect(await h.store.claim({ workerId: 'B', kinds: ['k'], limit: 10, leaseMs: 1000, token: 'tok-b', now: now() })).toEqual([]);
    clock.advance(1001);
    const [b] = await h.store.claim({ workerId: 'B', kinds: ['k'], limit: 10, leaseMs: 1000, token: 'tok-b', now: now() });
    expect(b).toMatchObject({ id: taskId, attempts: 2, lockedBy: 'B' });
    expect([...(await h.store.complete({ tasks: [{ id: taskId, token: 'tok-a' }], now: now() }))]).toEqual([]);
    expect(await h.store.fail({ id: taskId, token: 'tok-a', error: 'late', delayMs: 0, terminal: true, now: now() })).toBeNull();
    expect([...(await h.store.extendLeases({ leases: [{ id: taskId, token: 'tok-a' }], leaseMs: 1000, now: now() }))]).toEqual([]);
    expect([...(await h.store.complete({ tasks: [{ id: taskId, token: 'tok-b' }], now: now() }))]).toEqual([taskId]);
    expect(await q.getTask(taskId)).toMatchObject({ status: 'completed', lastError: null });
  });

  it('fails a task whose final attempt never reported back, without running it again', async () => {
    const h = await fx.make();
    const clock = fakeClock();
    const failed: FailedTask[] = [];
    let runs = 0;
    const q = queue(h, { clock: clock.now, maxAttempts: 1, leaseMs: 1000, onFailed: (t) => void failed.push(t), handlers: { k: () => void runs++ } });
    const { taskId } = await q.enqueue('k', {});
    await q.migrate();
    await h.store.claim({ workerId: 'crashed', kinds: ['k'], limit: 1, leaseMs: 1000, token: 'dead', now: new Date(clock.now()) });
    clock.advance(1000);
    expect(await q.runOnce()).toBe(1);
    expect(runs).toBe(0);
    expect(await q.getTask(taskId)).toMatchObject({ status: 'failed', attempts: 2, lastError: expect.stringContaining('never reported back') });
    expect(failed).toHaveLength(1);
  });

  it('lists failed tasks, redrives one, and purges completed tasks past a retention', async () => {
    const h = await fx.make();
    const clock = fakeClock();
    let fix = false;
    const q = queue(h, {
      clock: clock.now,
      handlers: { p: () => { if (!fix) throw new NonRetryableTaskError('bad'); }, ok: () => undefined },
    });
    const bad = await q.enqueue('p', { n: 1 });
    await q.enqueue('ok', { n: 2 });
    await q.runOnce();
    const list = await q.listFailed();
    expect(list.map((t) => t.id)).toEqual([bad.taskId]);
    expect(await q.listFailed({ kind: 'ok' })).toEqual([]);
    fix = true;
    expect(await q.redrive(bad.taskId)).toBe(true);
    expect(await q.redrive(bad.taskId)).toBe(false); // only FAILED tasks
    expect(await q.redrive('00000000-0000-7000-8000-000000000000')).toBe(false);
    expect(await q.getTask(bad.taskId)).toMatchObject({ status: 'pending', attempts: 0, lastError: expect.stringContaining('bad') });
    await q.runOnce();
    expect(await q.stats()).toMatchObject({ completed: 2, failed: 0 });
    clock.advance(10_000);
    await q.enqueue('ok', { n: 3 });
    await q.runOnce();
    expect(await q.purgeCompleted({ olderThanMs: 5_000 })).toBe(2);
    expect(await q.stats()).toMatchObject({ completed: 1 });
  });

  it('keeps tasks across a restart (new store instance on the same data)', async () => {
    const h = await fx.make();
    const q1 = queue(h, { handlers: { k: () => undefined } });
    const { taskId } = await q1.enqueue('k', { keep: 'me' }, { idempotencyKey: 'persist-1' });
    await h.store.close();
    const store2 = h.another();
    const seen: unknown[] = [];
    const q2 = queue(h, { handlers: { k: (p, ctx) => void seen.push([p, ctx.idempotencyKey, ctx.taskId]) } }, store2);
    expect(await q2.runOnce()).toBe(1);
    expect(seen).toEqual([[{ keep: 'me' }, 'persist-1', taskId]]);
  });

  it('runs onFailed again after the alert lease when it threw, and then never again', async () => {
    const h = await fx.make();
    const clock = fakeClock();
    let alerts = 0;
    const q = queue(h, {
      clock: clock.now,
      leaseMs: 1000,
      onFailed: () => {
        alerts++;
        if (alerts === 1) throw new Error('pager down');
      },
      handlers: { k: () => { throw new NonRetryableTaskError('no'); } },
    });
    const { taskId } = await q.enqueue('k', {});
    await q.runOnce();
    expect(alerts).toBe(1);
    expect((await q.getTask(taskId))!.alertedAt).toBeNull();
    await q.runOnce();
    expect(alerts).toBe(1); // alert lease still held
    clock.advance(1000);
    await q.runOnce();
    expect(alerts).toBe(2);
    clock.advance(10_000);
    await q.runOnce();
    expect(alerts).toBe(2);
    expect((await q.getTask(taskId))!.alertedAt).toBeInstanceOf(Date);
  });

  it('delivers the alert of a task that reached FAILED in a process that died before alerting', async () => {
    const h = await fx.make();
    const q1 = queue(h, { handlers: { k: () => { throw new NonRetryableTaskError('no'); } } }); // no onFailed: like a crash right after fail()
    await q1.enqueue('k', {});
    await q1.runOnce();
    const alerts: FailedTask[] = [];
    const q2 = queue(h, { onFailed: (t) => void alerts.push(t), handlers: { k: () => undefined } }, h.another());
    await q2.runOnce();
    await q2.runOnce();
    expect(alerts).toHaveLength(1);
  });

  it('stops gracefully: in-flight work finishes, unstarted claims go back, nothing new is claimed', async () => {
    const h = await fx.make();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const startedP = new Promise<void>((r) => (started = r));
    const done: number[] = [];
    const q = queue(h, {
      pollIntervalMs: 20,
      concurrency: 1,
      batchSize: 5,
      handlers: {
        slow: async (p: { n: number }) => {
          started();
          await gate;
          done.push(p.n);
        },
      },
    });
    await q.enqueueMany([1, 2, 3].map((n) => ({ kind: 'slow', payload: { n } })));
    q.start();
    await startedP; // task 1 runs; 2 and 3 were claimed with it and wait in the local buffer
    expect(await q.stats()).toMatchObject({ running: 3 });
    const stopping = q.stop();
    await q.enqueue('slow', { n: 4 });
    await new Promise((r) => setTimeout(r, 100));
    release();
    await stopping;
    expect(done).toEqual([1]);
    expect(await q.stats()).toMatchObject({ completed: 1, pending: 3, running: 0 });
    const pending = (await h.sql("SELECT attempts FROM safe_retry_tasks WHERE status = 'pending'"));
    expect(pending.map((r: { attempts: number }) => r.attempts)).toEqual([0, 0, 0]);
  });

  it('aborts the signal of a handler still running when stop() times out, leaving it to the lease', async () => {
    const h = await fx.make();
    let signal: AbortSignal | undefined;
    let started!: () => void;
    const startedP = new Promise<void>((r) => (started = r));
    const q = queue(h, {
      pollIntervalMs: 20,
      handlers: {
        stuck: (_p, ctx) => {
          signal = ctx.signal;
          started();
          return new Promise(() => undefined);
        },
      },
    });
    const { taskId } = await q.enqueue('stuck', {});
    q.start();
    await startedP;
    await q.stop({ timeoutMs: 50 });
    expect(signal?.aborted).toBe(true);
    expect(await q.getTask(taskId)).toMatchObject({ status: 'running' });
  });

  it('times out a handler that never settles: signal aborted, attempt failed with HANDLER_TIMEOUT, lease given up', async () => {
    const h = await fx.make();
    const clock = fakeClock();
    const errors: unknown[] = [];
    let signal: AbortSignal | undefined;
    let finishLate!: () => void;
    const q = queue(h, {
      clock: clock.now,
      maxAttempts: 2,
      baseDelayMs: 1000,
      jitter: 0,
      handlerTimeoutMs: 50,
      onError: (e) => void errors.push(e),
      handlers: {
        hang: (_p, ctx) => {
          signal = ctx.signal;
          // Ignores its signal; settles much later, after the queue gave up on it.
          return new Promise<void>((resolve) => (finishLate = resolve));
        },
      },
    });
    const { taskId } = await q.enqueue('hang', {});
    // runOnce returns although the handler never settled.
    expect(await q.runOnce()).toBe(1);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toMatchObject({ code: 'HANDLER_TIMEOUT' });
    const t = await q.getTask(taskId);
    expect(t).toMatchObject({ status: 'pending', attempts: 1, lockedBy: null, lastError: expect.stringContaining('HANDLER_TIMEOUT') });
    expect(t!.lastError).toContain('did not settle within handlerTimeoutMs (50 ms)');
    expect(t!.nextAttemptAt.getTime()).toBe(T0 + 2000);
    // The late outcome changes nothing and is reported.
    finishLate();
    await new Promise((r) => setTimeout(r, 10));
    expect((await q.getTask(taskId))!.status).toBe('pending');
    expect(errors.some((e) => String((e as Error).message).includes('settled after its timeout'))).toBe(true);
    // The last attempt timing out ends in FAILED like any other failure.
    clock.advance(2000);
    expect(await q.runOnce()).toBe(1);
    expect(await q.getTask(taskId)).toMatchObject({ status: 'failed', attempts: 2, lastError: expect.stringContaining('HANDLER_TIMEOUT') });
  });

  it('times out each hanging handler among many quick ones, the quick ones completing', async () => {
    const h = await fx.make();
    const clock = fakeClock();
    const q = queue(h, {
      clock: clock.now,
      concurrency: 5,
      batchSize: 200,
      handlerTimeoutMs: 80,
      handlers: {
        // Hangs for its first attempt only; the quick ones settle on the next turn.
        k: (p: { hang: boolean }, ctx) => (p.hang && ctx.attempt === 1 ? new Promise<void>(() => undefined) : Promise.resolve()),
      },
    });
    const items = Array.from({ length: 150 }, (_, i) => ({ kind: 'k' as const, payload: { hang: i === 3 || i === 100 } }));
    const ids = (await q.enqueueMany(items)).map((o) => o.taskId);
    // One shared timer: the quick handlers that settled after the first hanging one started do not
    // delay or lose the second one's timeout.
    expect(await q.runOnce()).toBe(150);
    expect(await q.stats()).toEqual({ pending: 2, running: 0, completed: 148, failed: 0 });
    for (const i of [3, 100]) {
      expect(await q.getTask(ids[i]!)).toMatchObject({ status: 'pending', attempts: 1, lastError: expect.stringContaining('HANDLER_TIMEOUT') });
    }
    clock.advance(60_000);
    expect(await q.runOnce()).toBe(2);
    expect(await q.stats()).toEqual({ pending: 0, running: 0, completed: 150, failed: 0 });
  });

  it('completes and claims in one step when the store can, keeping the lease token check', async () => {
    const h = await fx.make();
    if (!h.store.claimAndComplete) throw new Error(`${fx.name} store should offer claimAndComplete`);
    const clock = fakeClock();
    const q = queue(h, { clock: clock.now, handlers: { k: () => undefined } });
    const [a, b] = await q.enqueueMany([{ kind: 'k', payload: 1 }, { kind: 'k', payload: 2 }]);
    const now = () => new Date(clock.now());
    const first = await h.store.claim({ workerId: 'A', kinds: ['k'], limit: 2, leaseMs: 1000, token: 'tok-a', now: now() });
    expect(first.map((x) => x.id)).toEqual([a!.taskId, b!.taskId]);
    // A's lease on both expires; B takes the first one over.
    clock.advance(1001);
    const taken = await h.store.claim({ workerId: 'B', kinds: ['k'], limit: 1, leaseMs: 1000, token: 'tok-b', now: now() });
    expect(taken.map((x) => x.id)).toEqual([a!.taskId]);
    const c = await q.enqueue('k', 3);
    // A completes both with its old token while claiming: only b (lease expired but not taken) is
    // completed, never claimed again in the same step; c is claimed.
    const step = await h.store.claimAndComplete({
      workerId: 'A', kinds: ['k'], limit: 10, leaseMs: 1000, token: 'tok-a2', now: now(),
      complete: [{ id: a!.taskId, token: 'tok-a' }, { id: b!.taskId, token: 'tok-a' }],
    });
    expect([...step.completed]).toEqual([b!.taskId]);
    expect(step.claimed.map((x) => x.id)).toEqual([c.taskId]);
    expect(step.claimed[0]).toMatchObject({ status: 'running', attempts: 1, lockedBy: 'A', leaseToken: 'tok-a2', payload: 3, alertedAt: null });
    expect(step.claimed[0]!.nextAttemptAt.getTime()).toBe(step.claimed[0]!.lockedAt!.getTime() + 1000);
    expect(await q.getTask(a!.taskId)).toMatchObject({ status: 'running', lockedBy: 'B' });
    expect(await q.getTask(b!.taskId)).toMatchObject({ status: 'completed' });
    // Nothing to complete and nothing due: both sets empty.
    const idle = await h.store.claimAndComplete({ workerId: 'A', kinds: ['k'], limit: 10, leaseMs: 1000, token: 'tok-a3', now: now(), complete: [] });
    expect(idle).toEqual({ claimed: [], completed: new Set() });
  });

  it('runs continuously after start(), waking up for new work', async () => {
    const h = await fx.make();
    const seen: number[] = [];
    let all!: () => void;
    const allP = new Promise<void>((r) => (all = r));
    const q = queue(h, {
      pollIntervalMs: 50,
      concurrency: 4,
      batchSize: 3,
      handlers: { k: (p: number) => { seen.push(p); if (seen.length === 40) all(); } },
    });
    q.start();
    await q.enqueueMany(Array.from({ length: 20 }, (_, i) => ({ kind: 'k', payload: i })));
    await new Promise((r) => setTimeout(r, 30));
    await q.enqueueMany(Array.from({ length: 20 }, (_, i) => ({ kind: 'k', payload: 20 + i })));
    await allP;
    await q.stop();
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  it('migrates concurrently from several store instances', async () => {
    const h = await fx.make();
    const stores = [h.store, h.another(), h.another(), h.another()];
    await Promise.all(stores.map((s) => s.migrate()));
    await Promise.all(stores.map((s) => s.migrate()));
    expect(await h.sql('SELECT count(*) AS n FROM safe_retry_tasks')).toEqual([{ n: fx.name === 'postgres' ? '0' : 0 }]);
  });

  it('hands off with the same idempotency key, and refuses a not-retryable give-up', async () => {
    const h = await fx.make();
    const clock = fakeClock();
    const seen: unknown[] = [];
    const q = queue(h, { clock: clock.now, baseDelayMs: 1000, handlers: { 'order.confirm': (p: { orderId: number }, ctx) => void seen.push([p, ctx.idempotencyKey]) } });
    const handoff = q.handoff('order.confirm', { orderId: 7 });
    const { taskId } = await handoff({ idempotencyKey: 'order-7:confirm', reason: 'attempts', error: new Error('HTTP 503'), attempts: 3 });
    expect(await q.getTask(taskId)).toMatchObject({
      status: 'pending',
      idempotencyKey: 'order-7:confirm',
      lastError: expect.stringMatching(/after 3 attempt\(s\), reason "attempts": Error: HTTP 503/),
    });
    // A second give-up of the same operation lands on the same task.
    expect((await handoff({ idempotencyKey: 'order-7:confirm', reason: 'deadline', error: 'x', attempts: 2 })).taskId).toBe(taskId);
    expect(await q.runOnce()).toBe(0); // first queue attempt waits 2 * baseDelayMs
    clock.advance(2000);
    expect(await q.runOnce()).toBe(1);
    expect(seen).toEqual([[{ orderId: 7 }, 'order-7:confirm']]);
    await expect(handoff({ idempotencyKey: 'k2', reason: 'not-retryable', error: new Error('400'), attempts: 1 })).rejects.toMatchObject({ code: 'NOT_HANDED_OFF' });
    expect(() => q.handoff('order.confirm', { orderId: 1n } as never)).toThrow(/JSON/);
  });

  it('takes over from the retry policy: give-up enqueues with the same key, the handler later receives it', async () => {
    const h = await fx.make();
    const keys: (string | undefined)[] = [];
    const q = queue(h, { handlers: { 'order.confirm': (_p: { orderId: number }, ctx) => void keys.push(ctx.idempotencyKey) } });
    const policy = createRetryPolicy({ maxAttempts: 2, initialDelayMs: 1, deadlineMs: 1000 });
    const attemptKeys: string[] = [];
    const result = await policy.write({ idempotencyKey: 'order-42:confirm', handoff: q.handoff('order.confirm', { orderId: 42 }, { delayMs: 0 }) }, async (ctx) => {
      attemptKeys.push(ctx.idempotencyKey);
      throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    });
    expect(result).toBeInstanceOf(Deferred);
    const deferred = result as Deferred;
    expect(deferred.idempotencyKey).toBe('order-42:confirm');
    expect(attemptKeys).toEqual(['order-42:confirm', 'order-42:confirm']);
    expect(await q.getTask(deferred.taskId)).toMatchObject({ idempotencyKey: 'order-42:confirm', kind: 'order.confirm', payload: { orderId: 42 } });
    expect(await q.runOnce()).toBe(1);
    expect(keys).toEqual(['order-42:confirm']);
    // A read carries no key; its task has none either (reads are safe to repeat, nothing to dedupe).
    const read = await policy.read(async () => { throw Object.assign(new Error('reset'), { code: 'ECONNRESET' }); }, { handoff: q.handoff('order.confirm', { orderId: 43 }, { delayMs: 0 }) });
    expect(read).toBeInstanceOf(Deferred);
    expect(await q.getTask((read as Deferred).taskId)).toMatchObject({ idempotencyKey: null });
  });
});
