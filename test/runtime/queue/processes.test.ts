import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTaskQueue, postgresStore, sqliteStore, type TaskStore } from '../../../src/runtime/index.js';
import { startPostgres, type PgServer } from './pg-harness.js';
import { removeCompiledRuntime, runtimeModuleUrl } from './runtime-module.js';

const WORKER = join(import.meta.dirname, 'worker.mjs');

let server: PgServer;
let pool: pg.Pool;
let connectionString: string;
let dir: string;
let runtimeUrl: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  runtimeUrl = runtimeModuleUrl();
  dir = mkdtempSync(join(tmpdir(), 'safe-retry-proc-'));
  server = await startPostgres();
  ({ pool, connectionString } = await server.newDatabase());
});

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  removeCompiledRuntime();
});

interface Worker {
  child: ChildProcess;
  next(type: string, timeoutMs?: number): Promise<any>;
  errors: string[];
  stop(): Promise<void>;
}

function spawnWorker(config: Record<string, unknown>): Worker {
  const child = fork(WORKER, [], {
    env: { ...process.env, WORKER_CONFIG: JSON.stringify(config), SAFE_RETRY_RUNTIME: runtimeUrl },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  const inbox: any[] = [];
  const waiters: { type: string; resolve: (m: any) => void }[] = [];
  const errors: string[] = [];
  child.on('message', (m: any) => {
    if (m.type === 'error') errors.push(`${m.where}: ${m.message}`);
    const i = waiters.findIndex((w) => w.type === m.type);
    if (i >= 0) waiters.splice(i, 1)[0]!.resolve(m);
    else inbox.push(m);
  });
  return {
    child,
    errors,
    next(type, timeoutMs = 20_000) {
      const i = inbox.findIndex((m) => m.type === type);
      if (i >= 0) return Promise.resolve(inbox.splice(i, 1)[0]);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`worker sent no "${type}" within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ type, resolve: (m) => (clearTimeout(timer), resolve(m)) });
        child.once('exit', (code, signal) => reject(new Error(`worker exited (${code ?? signal}) before "${type}"`)));
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.send({ type: 'stop' });
      await exited;
    },
  };
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Target {
  config: Record<string, unknown>;
  store: TaskStore;
  sql(text: string): Promise<any[]>;
}

async function target(kind: 'sqlite' | 'postgres', name: string): Promise<Target> {
  if (kind === 'postgres') {
    const store = postgresStore({ pool, table: name });
    await store.migrate();
    const sql = async (text: string) => (await pool.query(text)).rows;
    for (const t of ['done', 'starts']) await sql(`CREATE TABLE IF NOT EXISTS ${t} (key text PRIMARY KEY, runs integer NOT NULL)`);
    await sql('TRUNCATE done, starts');
    return { config: { store: 'postgres', connectionString, table: name }, store, sql };
  }
  const filename = join(dir, `${name}.db`);
  const store = sqliteStore({ filename });
  await store.migrate();
  const db = store.database;
  const sql = async (text: string) => db.prepare(text).all();
  for (const t of ['done', 'starts']) db.exec(`CREATE TABLE IF NOT EXISTS ${t} (key TEXT PRIMARY KEY, runs INTEGER NOT NULL)`);
  return { config: { store: 'sqlite', filename }, store, sql };
}

describe.each(['sqlite', 'postgres'] as const)('worker processes on %s', (kind) => {
  it('re-runs the task of a worker killed with SIGKILL after its lease, completing it exactly once', async () => {
    const tg = await target(kind, `crash_${kind}`);
    const q = createTaskQueue({ store: tg.store, handlers: { hang: () => undefined } });
    const { taskId } = await q.enqueue('hang', { order: 1 }, { idempotencyKey: 'crash-1' });

    const a = spawnWorker({ ...tg.config, leaseMs: 1000 });
    await a.next('started');
    const dead = new Promise((r) => a.child.once('exit', (_code, signal) => r(signal)));
    a.child.kill('SIGKILL');
    expect(await dead).toBe('SIGKILL');
    expect(await q.getTask(taskId)).toMatchObject({ status: 'running', attempts: 1 });

    const b = spawnWorker({ ...tg.config, leaseMs: 1000 });
    await until(async () => (await q.getTask(taskId))?.status === 'completed', 20_000, 'the task to complete on the second worker');
    await b.stop();
    expect(await q.getTask(taskId)).toMatchObject({ status: 'completed', attempts: 2, lockedBy: null });
    expect(await tg.sql('SELECT key, runs FROM starts ORDER BY key')).toEqual([
      { key: 'crash-1:1', runs: 1 },
      { key: 'crash-1:2', runs: 1 },
    ]);
    expect(await tg.sql('SELECT key, runs FROM done')).toEqual([{ key: 'crash-1', runs: 1 }]);
    expect(b.errors).toEqual([]);
  }, 60_000);

  const N = kind === 'postgres' ? 5000 : 2000;
  it(`drains ${N} tasks with 4 worker processes: zero duplicates, zero losses`, async () => {
    const tg = await target(kind, `drain_${kind}`);
    const q = createTaskQueue({ store: tg.store, handlers: { record: () => undefined } });
    const workers = Array.from({ length: 4 }, () => spawnWorker({ ...tg.config, concurrency: 8, batchSize: 20, pollIntervalMs: 200 }));
    await Promise.all(workers.map((w) => w.next('ready')));
    // Enqueue while the workers are already claiming, in several batches.
    for (let i = 0; i < N; i += 500) {
      await q.enqueueMany(Array.from({ length: Math.min(500, N - i) }, (_, j) => ({ kind: 'record', payload: { n: i + j }, idempotencyKey: `task-${i + j}` })));
    }
    await until(async () => (await q.stats()).completed === N, 90_000, `${N} completed tasks`);
    await Promise.all(workers.map((w) => w.stop()));
    const [row] = await tg.sql('SELECT count(*) AS keys, sum(runs) AS runs, max(runs) AS max_runs FROM done');
    expect({ keys: Number(row.keys), runs: Number(row.runs), maxRuns: Number(row.max_runs) }).toEqual({ keys: N, runs: N, maxRuns: 1 });
    expect(await q.stats()).toEqual({ pending: 0, running: 0, completed: N, failed: 0 });
    for (const w of workers) expect(w.errors).toEqual([]);
  }, 120_000);
});

describe('SQLite: modes that cannot be shared are refused', () => {
  function holder(filename: string, mode: 'shared' | 'exclusive') {
    const child = fork(
      '--input-type=module',
      [],
      { execArgv: ['--input-type=module', '-e', `
        const { sqliteStore } = await import(${JSON.stringify(runtimeUrl)});
        const store = sqliteStore({ filename: ${JSON.stringify(filename)}, mode: ${JSON.stringify(mode)} });
        await store.migrate();
        process.send({ type: 'ready' });
        process.on('message', async () => { await store.close(); process.exit(0); });
      `], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
    );
    children.add(child);
    return {
      child,
      ready: new Promise<void>((resolve, reject) => {
        child.once('message', () => resolve());
        child.once('exit', (code) => reject(new Error(`holder exited with ${code}`)));
      }),
    };
  }

  it('refuses any opener while another process holds the file exclusively, and takes over a dead holder\'s lock', async () => {
    const filename = join(dir, 'exclusive.db');
    const h = holder(filename, 'exclusive');
    await h.ready;
    expect(() => sqliteStore({ filename })).toThrow(expect.objectContaining({ code: 'SQLITE_UNSAFE_MODE', message: expect.stringContaining(`held in exclusive mode by process ${h.child.pid}`) }));
    expect(() => sqliteStore({ filename, mode: 'exclusive' })).toThrow(/held in exclusive mode/);
    const dead = new Promise((r) => h.child.once('exit', r));
    h.child.kill('SIGKILL');
    await dead;
    const store = sqliteStore({ filename, mode: 'exclusive' });
    await store.migrate();
    await store.close();
  }, 30_000);

  it('refuses exclusive mode while another process has the file open in shared mode', async () => {
    const filename = join(dir, 'shared.db');
    const h = holder(filename, 'shared');
    await h.ready;
    expect(() => sqliteStore({ filename, mode: 'exclusive' })).toThrow(expect.objectContaining({ code: 'SQLITE_UNSAFE_MODE', message: expect.stringContaining('open in another process') }));
    const second = sqliteStore({ filename }); // shared + shared is fine
    await second.migrate();
    await second.close();
    h.child.send('close');
    await new Promise((r) => h.child.once('exit', r));
  }, 30_000);
});
