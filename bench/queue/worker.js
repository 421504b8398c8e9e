// One benchmark worker process: runs either this project's queue or graphile-worker with a no-op
// handler that notes (key, enqueue-to-start latency). Config in BENCH_WORKER (JSON).
import { createRequire } from 'node:module';

const cfg = JSON.parse(process.env.BENCH_WORKER);
const keys = [];
const calls = {};
const latencies = [];
const onTask = (payload) => {
  keys.push(payload.k);
  latencies.push(Date.now() - payload.t);
  // Progress for the parent, so that it polls the database only once nearly everything ran.
  if (keys.length % 100 === 0) process.send({ type: 'ran', n: keys.length });
};

let stop;
if (cfg.system === 'graphile') {
  const require = createRequire(import.meta.url);
  const { run, Logger } = require('graphile-worker');
  const runner = await run({
    connectionString: cfg.connectionString,
    concurrency: cfg.concurrency,
    pollInterval: cfg.pollIntervalMs,
    noHandleSignals: true,
    logger: new Logger(() => () => undefined),
    ...(cfg.batched ? { preset: { worker: { localQueue: { size: cfg.batchSize }, completeJobBatchDelay: 0 } } } : {}),
    taskList: { noop: async (payload) => onTask(payload) },
  });
  stop = () => runner.stop();
} else {
  const runtime = await import(process.env.SAFE_RETRY_RUNTIME ?? new URL('../../dist/runtime/index.js', import.meta.url).href);
  let store;
  let pool;
  if (cfg.system === 'postgres') {
    const { default: pg } = await import('pg');
    pool = new pg.Pool({ connectionString: cfg.connectionString, max: cfg.concurrency + 2 });
    pool.on('error', () => undefined);
    store = runtime.postgresStore({ pool });
  } else {
    store = runtime.sqliteStore({ filename: cfg.filename, busyTimeoutMs: 30_000 });
  }
  // Counts the store's round trips (one statement each on PostgreSQL) for the report.
  for (const method of ['claim', 'claimAndComplete', 'complete', 'fail', 'extendLeases', 'release']) {
    const inner = store[method]?.bind(store);
    if (inner) store = { ...store, [method]: (...args) => ((calls[method] = (calls[method] ?? 0) + 1), inner(...args)) };
  }
  const queue = runtime.createTaskQueue({
    store,
    concurrency: cfg.concurrency,
    batchSize: cfg.batchSize,
    pollIntervalMs: cfg.pollIntervalMs,
    onError: (e, where) => console.error(`[bench worker] ${where}:`, e),
    handlers: { noop: async (payload) => onTask(payload) },
  });
  await queue.migrate();
  queue.start();
  stop = async () => {
    await queue.stop();
    await store.close();
    await pool?.end();
  };
}

process.on('message', async (msg) => {
  if (msg === 'stop') {
    await stop();
    process.send({ type: 'done', keys, latencies, calls, cpu: process.cpuUsage(readyCpu) }, () => process.exit(0));
  }
});
const readyCpu = process.cpuUsage();
process.send({ type: 'ready' });
