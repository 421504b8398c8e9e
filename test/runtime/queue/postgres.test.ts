import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTaskQueue, postgresSchemaSql, postgresStore, TaskQueueError } from '../../../src/runtime/index.js';
import { startPostgres, type PgServer } from './pg-harness.js';

let server: PgServer;
let pool: pg.Pool;
let connectionString: string;

beforeAll(async () => {
  server = await startPostgres();
  ({ pool, connectionString } = await server.newDatabase());
});
afterAll(async () => {
  await server?.stop();
});

const quiet = { onError: () => undefined };

describe('postgresStore', () => {
  it('enqueues inside the caller\'s transaction: rolled back with it, committed with it', async () => {
    const store = postgresStore({ pool, table: 'tx_tasks' });
    const q = createTaskQueue({ store, ...quiet, handlers: { 'order.confirm': () => undefined } });
    await q.migrate();
    await pool.query('CREATE TABLE orders (id int PRIMARY KEY)');
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('INSERT INTO orders VALUES (1)');
      await q.enqueue('order.confirm', { orderId: 1 }, { client, idempotencyKey: 'order-1' });
      expect(await q.stats()).toMatchObject({ pending: 0 }); // not visible outside the transaction yet
      await client.query('ROLLBACK');
      expect(await q.stats()).toMatchObject({ pending: 0 });

      await client.query('BEGIN');
      await client.query('INSERT INTO orders VALUES (1)');
      const { taskId } = await q.enqueue('order.confirm', { orderId: 1 }, { client, idempotencyKey: 'order-1' });
      await client.query('COMMIT');
      expect(await q.getTask(taskId)).toMatchObject({ status: 'pending', idempotencyKey: 'order-1' });
    } finally {
      client.release();
    }
    await expect(q.enqueue('order.confirm', {}, { client: {} as never })).rejects.toBeInstanceOf(TaskQueueError);
  });

  it('wakes idle workers through LISTEN/NOTIFY, long before the next poll', async () => {
    const table = 'notify_tasks';
    const worker = createTaskQueue({
      store: postgresStore({ pool, table }),
      ...quiet,
      pollIntervalMs: 600_000,
      handlers: { ping: (p: { n: number }) => void got(p.n) },
    });
    let got!: (n: number) => void;
    const received = new Promise<number>((r) => (got = r));
    worker.start();
    await new Promise((r) => setTimeout(r, 300)); // let the first (empty) claim and LISTEN happen
    // Enqueue through another pool, as another process would.
    const other = new pg.Pool({ connectionString: connectionString, max: 1 });
    const producer = createTaskQueue({ store: postgresStore({ pool: other, table }), ...quiet, handlers: {}, enqueueOnlyKinds: ['ping'] });
    await producer.enqueue('ping', { n: 42 });
    expect(await received).toBe(42);
    await worker.stop();
    await other.end();
  });

  it('skips rows another transaction has locked instead of waiting for them (SKIP LOCKED), in claim and claimAndComplete', async () => {
    const table = 'skip_tasks';
    // A claim that waited for the lock would fail with lock_timeout instead of hanging the test.
    const impatient = new pg.Pool({ connectionString, max: 2, options: '-c lock_timeout=3000' });
    impatient.on('error', () => undefined);
    const store = postgresStore({ pool: impatient, table });
    const q = createTaskQueue({ store, ...quiet, handlers: { k: () => undefined } });
    const at = Date.now() - 60_000;
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await q.enqueue('k', i, { runAt: at + i })).taskId);
    const locker = await pool.connect();
    try {
      await locker.query('BEGIN');
      // The first due task, held as a concurrent claim (or anything else) would hold it.
      await locker.query(`SELECT id FROM ${table} WHERE id = $1 FOR UPDATE`, [ids[0]]);
      const req = { workerId: 'A', kinds: ['k'], leaseMs: 60_000, now: undefined };
      const first = await store.claim({ ...req, limit: 2, token: 'tok-1' });
      expect(first.map((t) => t.id)).toEqual([ids[1], ids[2]]);
      const step = await store.claimAndComplete!({ ...req, limit: 10, token: 'tok-2', complete: [{ id: ids[1]!, token: 'tok-1' }] });
      expect([...step.completed]).toEqual([ids[1]]);
      expect(step.claimed.map((t) => t.id)).toEqual([ids[3]]);
      await locker.query('COMMIT');
      const last = await store.claim({ ...req, limit: 10, token: 'tok-3' });
      expect(last.map((t) => t.id)).toEqual([ids[0]]);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      locker.release();
      await impatient.end();
    }
  });

  it('computes the next attempt with the database clock in the failing UPDATE', async () => {
    const table = 'clock_tasks';
    const q = createTaskQueue({ store: postgresStore({ pool, table }), ...quiet, baseDelayMs: 1000, jitter: 0.2, handlers: { f: () => { throw new Error('503'); } } });
    const { taskId } = await q.enqueue('f', {});
    await q.runOnce();
    const { rows } = await pool.query(`SELECT extract(epoch FROM next_attempt_at - now()) * 1000 AS ms, status FROM ${table} WHERE id = $1`, [taskId]);
    expect(rows[0].status).toBe('pending');
    // 2 s (attempt 1) minus up to 20 % jitter, minus the few ms since the UPDATE.
    expect(Number(rows[0].ms)).toBeGreaterThan(1500);
    expect(Number(rows[0].ms)).toBeLessThanOrEqual(2000);
  });

  it('keeps every task when the database drops its connections mid-claim', async () => {
    const table = 'drop_tasks';
    await pool.query('CREATE TABLE drop_done (key text PRIMARY KEY, runs int NOT NULL)');
    const errors: string[] = [];
    const N = 300;
    let completed!: () => void;
    const allDone = new Promise<void>((r) => (completed = r));
    const q = createTaskQueue({
      store: postgresStore({ pool, table }),
      onError: (e) => void errors.push(String(e)),
      pollIntervalMs: 20,
      baseDelayMs: 5,
      jitter: 0,
      maxAttempts: 50,
      concurrency: 4,
      batchSize: 5,
      handlers: {
        rec: async (_p, ctx) => {
          await pool.query('INSERT INTO drop_done VALUES ($1, 1) ON CONFLICT (key) DO UPDATE SET runs = drop_done.runs + 1', [ctx.idempotencyKey]);
        },
      },
    });
    await q.enqueueMany(Array.from({ length: N }, (_, i) => ({ kind: 'rec', payload: {}, idempotencyKey: `d-${i}` })));
    const admin = new pg.Client({ connectionString: connectionString });
    await admin.connect();
    q.start();
    const poll = setInterval(async () => {
      if ((await q.stats().catch(() => undefined))?.completed === N) completed();
    }, 100);
    for (let i = 0; i < 6; i++) {
      await new Promise((r) => setTimeout(r, 80));
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    }
    await allDone;
    clearInterval(poll);
    await q.stop();
    await admin.end();
    const { rows } = await pool.query('SELECT count(*)::int AS keys FROM drop_done');
    expect(rows[0].keys).toBe(N);
    expect(await q.stats()).toEqual({ pending: 0, running: 0, completed: N, failed: 0 });
    expect(errors.length).toBeGreaterThan(0); // the outage was real and reported, not thrown
  }, 60_000);

  it('upgrades a version-1 table: a key index that skips keyless tasks, a purge index of completed tasks only', async () => {
    const table = 'v1_tasks';
    // The table as version 1 of the schema created it, with a task already in it.
    await pool.query(`CREATE TABLE ${table} (
  id uuid PRIMARY KEY, kind text NOT NULL, payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  idempotency_key text UNIQUE, attempts integer NOT NULL DEFAULT 0, max_attempts integer NOT NULL CHECK (max_attempts >= 1),
  next_attempt_at timestamptz NOT NULL, last_error text, locked_at timestamptz, locked_by text, lease_token text,
  alerted_at timestamptz, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);
CREATE INDEX ${table}_due_idx ON ${table} (next_attempt_at, id) WHERE status IN ('pending', 'running');
CREATE INDEX ${table}_alert_idx ON ${table} (next_attempt_at) WHERE status = 'failed' AND alerted_at IS NULL;
CREATE INDEX ${table}_status_updated_idx ON ${table} (status, updated_at);
CREATE TABLE ${table}_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
INSERT INTO ${table}_migrations (version) VALUES (1);
INSERT INTO ${table} (id, kind, payload, idempotency_key, max_attempts, next_attempt_at, created_at, updated_at)
  VALUES ('01900000-0000-7000-8000-000000000001', 'k', '{}', 'order-1', 10, now(), now(), now());`);
    const q = createTaskQueue({ store: postgresStore({ pool, table }), ...quiet, handlers: { k: () => undefined } });
    await q.migrate();
    const indexes = (await pool.query(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = $1 ORDER BY indexname`, [table])).rows;
    expect(indexes.map((i) => i.indexname)).toEqual([`${table}_alert_idx`, `${table}_completed_idx`, `${table}_due_idx`, `${table}_key_idx`, `${table}_pkey`]);
    expect(indexes.find((i) => i.indexname === `${table}_key_idx`)?.indexdef).toMatch(/UNIQUE.*WHERE \(idempotency_key IS NOT NULL\)/);
    expect(indexes.find((i) => i.indexname === `${table}_completed_idx`)?.indexdef).toMatch(/WHERE \(status = 'completed'::text\)/);
    // The key still deduplicates, against the task that was there before the upgrade too.
    expect(await q.enqueue('k', {}, { idempotencyKey: 'order-1' })).toEqual({ taskId: '01900000-0000-7000-8000-000000000001', created: false });
    const again = await q.enqueue('k', {}, { idempotencyKey: 'order-2' });
    expect(await q.enqueue('k', {}, { idempotencyKey: 'order-2' })).toEqual({ taskId: again.taskId, created: false });
    expect(await q.runOnce()).toBe(2);
    expect(await q.purgeCompleted({ olderThanMs: 0 })).toBe(2);
  });

  it('works without prepared statements, for poolers that do not keep them', async () => {
    const table = 'unprepared_tasks';
    // One connection, so the check below sees the session every statement ran in.
    const single = new pg.Pool({ connectionString, max: 1 });
    try {
      const q = createTaskQueue({ store: postgresStore({ pool: single, table, preparedStatements: false }), ...quiet, handlers: { k: () => undefined } });
      await q.enqueueMany(Array.from({ length: 30 }, (_, i) => ({ kind: 'k', payload: i })));
      while ((await q.runOnce()) > 0);
      expect(await q.stats()).toMatchObject({ completed: 30 });
      const named = await single.query(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'safe_retry_%'`);
      expect(named.rows[0].n).toBe(0);
    } finally {
      await single.end();
    }
  });

  it('runs a busy worker on two connections: one listening, one for claims and completions', async () => {
    const table = 'conn_tasks';
    const N = 600;
    const workerPool = new pg.Pool({ connectionString, max: 12 });
    workerPool.on('error', () => undefined);
    let opened = 0;
    workerPool.on('connect', () => void opened++);
    let ran = 0;
    let allRan!: () => void;
    const finished = new Promise<void>((r) => (allRan = r));
    const producer = createTaskQueue({ store: postgresStore({ pool, table }), ...quiet, handlers: {}, enqueueOnlyKinds: ['k'] });
    await producer.enqueueMany(Array.from({ length: N }, (_, i) => ({ kind: 'k', payload: i })));
    const q = createTaskQueue({
      store: postgresStore({ pool: workerPool, table }),
      ...quiet,
      concurrency: 10,
      batchSize: 50,
      pollIntervalMs: 50,
      handlers: { k: async () => void (++ran === N && allRan()) },
    });
    try {
      q.start();
      await finished;
      await vi.waitFor(async () => expect(await producer.stats()).toMatchObject({ completed: N }), { timeout: 20_000, interval: 50 });
      await q.stop();
      // Completions that finish while a claim is in flight wait for it instead of opening a
      // connection of their own; the one-time ANALYZE runs on the claim's connection too.
      expect(opened).toBeLessThanOrEqual(2);
    } finally {
      await workerPool.end();
    }
  });

  it('completes under lease tokens of any text, also ones an array literal would have to quote', async () => {
    const table = 'token_tasks';
    const store = postgresStore({ pool, table });
    const q = createTaskQueue({ store, ...quiet, handlers: { k: () => undefined } });
    const a = (await q.enqueue('k', 1)).taskId;
    const b = (await q.enqueue('k', 2)).taskId;
    const c = (await q.enqueue('k', 3)).taskId;
    const req = { workerId: 'w', kinds: ['k'], leaseMs: 60_000, now: undefined };
    const odd = 'tok, "quoted" {braces} \\ back';
    expect((await store.claim({ ...req, limit: 1, token: odd })).map((t) => t.id)).toEqual([a]);
    expect((await store.claim({ ...req, limit: 1, token: 'plain-token' })).map((t) => t.id)).toEqual([b]);
    // Unquoted in an array literal, NULL would be a null, not the text.
    expect((await store.claim({ ...req, limit: 1, token: 'NULL' })).map((t) => t.id)).toEqual([c]);
    // A wrong token completes nothing; the right ones complete, in one statement with mixed tokens.
    expect([...(await store.complete({ tasks: [{ id: a, token: 'tok' }, { id: c, token: '' }], now: undefined }))]).toEqual([]);
    const done = await store.complete({ tasks: [{ id: a, token: odd }, { id: b, token: 'plain-token' }], now: undefined });
    expect([...done].sort()).toEqual([a, b].sort());
    expect([...(await store.complete({ tasks: [{ id: c, token: 'NULL' }], now: undefined }))]).toEqual([c]);
    expect(await q.stats()).toMatchObject({ completed: 3, running: 0 });
  });

  it('analyses a never-analysed table once it finds a backlog, so claims walk the due index', async () => {
    const table = 'fresh_tasks';
    const q = createTaskQueue({ store: postgresStore({ pool, table }), ...quiet, batchSize: 10, handlers: { k: () => undefined } });
    await q.enqueueMany(Array.from({ length: 200 }, (_, i) => ({ kind: 'k', payload: i })));
    const analysed = async () => (await pool.query(`SELECT last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL AS done FROM pg_stat_user_tables WHERE relname = $1`, [table])).rows[0]?.done === true;
    expect(await analysed()).toBe(false);
    await q.runOnce();
    await vi.waitFor(async () => expect(await analysed()).toBe(true), { timeout: 20_000, interval: 100 });
  });

  it('publishes its schema as SQL and rejects table names that are not plain identifiers', () => {
    expect(postgresSchemaSql({ table: 'jobs', schema: 'app' })).toContain('CREATE TABLE IF NOT EXISTS "app"."jobs"');
    expect(() => postgresStore({ pool, table: 'x; DROP TABLE y' })).toThrow(/plain SQL identifier/);
    expect(() => postgresStore({} as never)).toThrow(/needs a pg Pool/);
  });
});

describe('postgresStore claim plan', () => {
  it('serves the claim from the partial due index, without a sort', async () => {
    const table = 'plan_tasks';
    const q = createTaskQueue({ store: postgresStore({ pool, table }), ...quiet, handlers: { k: () => undefined } });
    await q.enqueueMany(Array.from({ length: 2000 }, (_, i) => ({ kind: 'k', payload: i })));
    await q.runOnce();
    await pool.query(`ANALYZE ${table}`);
    const { rows } = await pool.query(`EXPLAIN SELECT id FROM ${table} WHERE status IN ('pending', 'running') AND next_attempt_at <= now() AND kind = ANY('{k}'::text[])
ORDER BY next_attempt_at, id LIMIT 50 FOR UPDATE SKIP LOCKED`);
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain(`${table}_due_idx`);
    expect(plan).not.toMatch(/\bSort\b/);
  });
});
