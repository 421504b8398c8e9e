// A queue worker in its own process, driven by the process tests.
// Config comes as JSON in WORKER_CONFIG; the runtime module URL in SAFE_RETRY_RUNTIME.
const cfg = JSON.parse(process.env.WORKER_CONFIG);
const runtime = await import(process.env.SAFE_RETRY_RUNTIME);

let store;
let record;
let pool;
if (cfg.store === 'postgres') {
  const { default: pg } = await import('pg');
  pool = new pg.Pool({ connectionString: cfg.connectionString, max: cfg.poolSize ?? 4 });
  pool.on('error', () => undefined);
  store = runtime.postgresStore({ pool, table: cfg.table });
  record = async (table, key) => {
    await pool.query(`INSERT INTO ${table} (key, runs) VALUES ($1, 1) ON CONFLICT (key) DO UPDATE SET runs = ${table}.runs + 1`, [key]);
  };
} else {
  store = runtime.sqliteStore({ filename: cfg.filename, busyTimeoutMs: 20_000 });
  const db = store.database;
  record = async (table, key) => {
    db.prepare(`INSERT INTO ${table} (key, runs) VALUES (?, 1) ON CONFLICT (key) DO UPDATE SET runs = runs + 1`).run(key);
  };
}

const queue = runtime.createTaskQueue({
  store,
  pollIntervalMs: cfg.pollIntervalMs ?? 200,
  concurrency: cfg.concurrency ?? 8,
  batchSize: cfg.batchSize ?? 50,
  leaseMs: cfg.leaseMs ?? 60_000,
  onError: (error, where) => process.send?.({ type: 'error', where, message: String(error?.stack ?? error) }),
  handlers: {
    // Records the key of every run; a second run of the same task shows up as runs = 2.
    record: async (payload, ctx) => {
      await record('done', ctx.idempotencyKey ?? ctx.taskId);
    },
    // Records its start, tells the parent, then hangs (until the parent kills this process) on the
    // first run; completes on a later one.
    hang: async (payload, ctx) => {
      await record('starts', `${ctx.idempotencyKey}:${ctx.attempt}`);
      if (ctx.attempt === 1) {
        process.send?.({ type: 'started', attempt: ctx.attempt });
        await new Promise(() => undefined);
      }
      await record('done', ctx.idempotencyKey);
    },
  },
});

process.on('message', async (msg) => {
  if (msg?.type === 'stop') {
    await queue.stop({ timeoutMs: 5000 });
    await store.close();
    await pool?.end();
    process.send?.({ type: 'stopped' }, () => process.exit(0));
  }
});

await queue.migrate();
queue.start();
process.send?.({ type: 'ready' });
