// One benchmark worker process: runs either this project's queue or graphile-worker with a no-op
// handler that notes (key, enqueue-to-start latency). Config in BENCH_WORKER (JSON).
import { readFileSync, readdirSync } from 'node:fs';
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
  const runtime = await import(cfg.runtime ?? process.env.SAFE_RETRY_RUNTIME ?? new URL('../../dist/runtime/index.js', import.meta.url).href);
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

/** CPU ms per thread name (main, V8 helpers, libuv pool) from /proc, for BENCH_THREADS. */
function threadCpu() {
  const out = {};
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const key = tid === String(process.pid) ? 'main' : name;
      out[key] = (out[key] ?? 0) + (Number(f[11]) + Number(f[12])) * 10;
    }
  } catch {
    // no /proc
  }
  return out;
}

process.on('message', async (msg) => {
  if (msg === 'stop') {
    await stop();
    const threads = threadCpu();
    for (const [k, v] of Object.entries(readyThreads)) threads[k] = (threads[k] ?? 0) - v;
    process.send({ type: 'done', keys, latencies, calls, threads, cpu: process.cpuUsage(readyCpu) }, () => process.exit(0));
  }
});
const readyThreads = threadCpu();
const readyCpu = process.cpuUsage();
process.send({ type: 'ready' });
