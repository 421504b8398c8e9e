import { createRequire } from 'node:module';
import { closeSync, openSync, readFileSync, realpathSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { TaskQueueError } from './errors.js';
import type { ClaimedTask, EnqueueOutcome, NewTaskRow, StoreNow, Task, TaskCounts, TaskStatus, TaskStore } from './types.js';
import { DEFAULT_TABLE } from './postgres.js';
import { checkIdentifier } from './util.js';

/* Minimal structural view of better-sqlite3, so that neither this module nor its .d.ts needs it. */
export interface SqliteStatementLike {
  run(...params: any[]): { changes: number };
  get(...params: any[]): any;
  all(...params: any[]): any[];
}
type ArgsOf<F> = F extends (...args: infer A) => unknown ? A : never;
export interface SqliteTransactionLike<F extends (...params: any[]) => unknown> {
  (...params: ArgsOf<F>): ReturnType<F>;
  immediate(...params: ArgsOf<F>): ReturnType<F>;
}
export interface SqliteDatabaseLike {
  readonly name: string;
  readonly memory: boolean;
  readonly readonly: boolean;
  prepare(sql: string): SqliteStatementLike;
  exec(sql: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<F extends (...params: any[]) => unknown>(fn: F): SqliteTransactionLike<F>;
  close(): unknown;
}

export interface SqliteStoreOptions {
  /** Path of the database file; opened with better-sqlite3 (an optional peer dependency). */
  filename?: string;
  /** Or an already opened better-sqlite3 Database. The store does not close it. */
  database?: SqliteDatabaseLike;
  /** Table name (plain identifier). Default `safe_retry_tasks`. */
  table?: string;
  /** How long a statement waits for another process's write lock. Default 5000 ms. */
  busyTimeoutMs?: number;
  /**
   * `shared` (default): WAL, any number of processes on this host. `exclusive`: one process only,
   * no shared memory, so it also works where WAL's shared memory does not (a network filesystem);
   * every other opener is refused while it holds the file.
   */
  mode?: 'shared' | 'exclusive';
  /** `full` (default) survives power loss; `normal` is faster and survives process crashes only. */
  synchronous?: 'full' | 'normal';
}

/** Filesystems on which WAL's shared-memory index cannot be trusted between processes/hosts. */
const NETWORK_FS = new Set([
  'nfs', 'nfs4', 'cifs', 'smb3', 'smbfs', '9p', 'afs', 'ceph', 'glusterfs', 'fuse.glusterfs', 'lustre', 'gpfs',
  'fuse.sshfs', 'sshfs', 'davfs', 'fuse.s3fs', 'fuse.rclone', 'ncpfs', 'coda',
]);

function filesystemType(path: string): string | undefined {
  let mounts: string;
  try {
    mounts = readFileSync('/proc/self/mounts', 'utf8');
  } catch {
    return undefined; // not Linux: no cheap portable way to ask
  }
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return undefined;
  }
  let best: { point: string; type: string } | undefined;
  for (const line of mounts.split('\n')) {
    const [, rawPoint, type] = line.split(' ');
    if (!rawPoint || !type) continue;
    const point = rawPoint.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    const inside = point === '/' || real === point || real.startsWith(`${point}/`);
    if (inside && (!best || point.length >= best.point.length)) best = { point, type };
  }
  return best?.type;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface LockInfo {
  pid: number;
  host: string;
  mode: 'exclusive';
  since: string;
}

function readLock(path: string): LockInfo | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
  } catch {
    return undefined;
  }
}

/** A lock held by a process that is gone (same host, pid dead) is stale and may be taken over. */
function liveLock(path: string): LockInfo | undefined {
  const info = readLock(path);
  if (!info) return undefined;
  if (info.host === hostname() && !isAlive(info.pid)) return undefined;
  return info;
}

function unsafe(message: string): TaskQueueError {
  return new TaskQueueError('SQLITE_UNSAFE_MODE', message);
}

function loadDriver(): new (filename: string, options?: { timeout?: number }) => SqliteDatabaseLike {
  const require = createRequire(import.meta.url);
  try {
    return require('better-sqlite3');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') {
      throw new TaskQueueError(
        'MISSING_DRIVER',
        'sqliteStore({ filename }) needs the optional peer dependency "better-sqlite3" (npm install better-sqlite3@^12), or pass an opened database as sqliteStore({ database })',
        { cause: error },
      );
    }
    throw error;
  }
}

function schemaSql(table: string): { version: number; sql: string }[] {
  const q = (n: string) => `"${n}"`;
  const t = q(table);
  return [
    {
      version: 1,
      sql: `CREATE TABLE IF NOT EXISTS ${t} (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  idempotency_key TEXT UNIQUE,
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL CHECK (max_attempts >= 1),
  next_attempt_at INTEGER NOT NULL, -- epoch ms, like every time column here
  last_error TEXT,
  locked_at INTEGER,
  locked_by TEXT,
  lease_token TEXT,
  alerted_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS ${q(`${table}_due_idx`)} ON ${t} (next_attempt_at, id) WHERE status IN ('pending', 'running');
CREATE INDEX IF NOT EXISTS ${q(`${table}_alert_idx`)} ON ${t} (next_attempt_at) WHERE status = 'failed' AND alerted_at IS NULL;
CREATE INDEX IF NOT EXISTS ${q(`${table}_status_updated_idx`)} ON ${t} (status, updated_at);`,
    },
  ];
}

/** The schema as SQL, for teams that apply migrations with their own tool. */
export function sqliteSchemaSql(options: { table?: string } = {}): string {
  return schemaSql(checkIdentifier('table', options.table ?? DEFAULT_TABLE)).map((m) => m.sql).join('\n');
}

const ms = (d: Date | null | undefined) => (d == null ? null : d.getTime());
const date = (v: number | null) => (v == null ? null : new Date(v));

function toTask(r: any): Task {
  return {
    id: r.id,
    kind: r.kind,
    payload: JSON.parse(r.payload),
    status: r.status as TaskStatus,
    idempotencyKey: r.idempotency_key ?? null,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    nextAttemptAt: new Date(r.next_attempt_at),
    lastError: r.last_error ?? null,
    lockedAt: date(r.locked_at),
    lockedBy: r.locked_by ?? null,
    alertedAt: date(r.alerted_at),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

/**
 * The embedded store. SQLite has one writer at a time, so every state change is a short write
 * transaction; claims run in BEGIN IMMEDIATE so two processes never pick the same row (SQLite has
 * no SKIP LOCKED: the write lock itself is what serialises claimers).
 */
export function sqliteStore(options: SqliteStoreOptions): TaskStore & { readonly database: SqliteDatabaseLike; readonly lockFile: string | undefined } {
  if (!options || (options.filename === undefined) === (options.database === undefined)) {
    throw new TaskQueueError('INVALID_OPTION', 'sqliteStore needs exactly one of { filename } or { database }');
  }
  const table = checkIdentifier('table', options.table ?? DEFAULT_TABLE);
  const mode = options.mode ?? 'shared';
  if (mode !== 'shared' && mode !== 'exclusive') throw new TaskQueueError('INVALID_OPTION', `sqliteStore mode must be "shared" or "exclusive", got ${String(mode)}`);
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const synchronous = options.synchronous ?? 'full';

  let file: string | undefined;
  if (options.filename !== undefined) {
    if (options.filename === '' || options.filename === ':memory:' || options.filename.startsWith('file::memory:')) {
      throw unsafe('sqliteStore refuses an in-memory database: a durable queue must survive a restart; give it a file');
    }
    file = resolve(options.filename);
  } else {
    const db = options.database as SqliteDatabaseLike;
    if (typeof db.prepare !== 'function' || typeof db.transaction !== 'function') {
      throw new TaskQueueError('INVALID_OPTION', 'sqliteStore({ database }) needs a better-sqlite3 Database');
    }
    if (db.memory) throw unsafe('sqliteStore refuses an in-memory database: a durable queue must survive a restart');
    if (db.readonly) throw unsafe('sqliteStore needs a writable database; this one was opened readonly');
    file = db.name;
  }

  const fsType = filesystemType(dirname(file));
  if (mode === 'shared' && fsType && NETWORK_FS.has(fsType)) {
    throw unsafe(
      `${file} is on a network filesystem (${fsType}). WAL mode, which lets several processes share the queue, relies on shared memory that such filesystems do not provide across processes or hosts. Use mode: 'exclusive' (one process only) or postgresStore.`,
    );
  }

  const lockFile = `${file}.safe-retry.lock`;
  let ownLock = false;
  const refuseExclusiveHolder = (info: LockInfo) =>
    unsafe(`${file} is held in exclusive mode by process ${info.pid} on ${info.host} (since ${info.since}); it cannot be shared. Stop that process, or use mode: 'shared' in every process.`);
  if (mode === 'exclusive') {
    // A local lock file, tried twice around removing a dead process's stale lock: no remote
    // dependency is called, so there is nothing to back off from.
    // eslint-disable-next-line safe-retry/require-exponential-backoff, safe-retry/require-jitter
    for (let tries = 0; ; tries++) {
      try {
        const fd = openSync(lockFile, 'wx');
        writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), mode, since: new Date().toISOString() } satisfies LockInfo));
        closeSync(fd);
        ownLock = true;
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || tries > 0) throw error;
        const info = liveLock(lockFile);
        if (info) throw refuseExclusiveHolder(info);
        unlinkSync(lockFile);
      }
    }
  } else {
    const info = liveLock(lockFile);
    if (info) throw refuseExclusiveHolder(info);
  }
  const releaseLock = () => {
    if (!ownLock) return;
    ownLock = false;
    try {
      if (readLock(lockFile)?.pid === process.pid) unlinkSync(lockFile);
    } catch {
      // best effort: a stale lock of a dead pid is taken over by the next opener anyway
    }
  };

  let opened: SqliteDatabaseLike | undefined;
  const ownsDb = options.database === undefined;
  try {
    const Database = options.database ? undefined : loadDriver();
    opened = options.database ?? new (Database as NonNullable<typeof Database>)(file, { timeout: busyTimeoutMs });
    const db = opened;
    const busy = `busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`;
    db.pragma(busy);
    let journal: string;
    if (mode === 'exclusive') {
      db.pragma('locking_mode = EXCLUSIVE');
      // The exclusive file lock is taken on first write. If another process has the file open,
      // that fails now, with a clear message, instead of at the first claim.
      db.pragma('busy_timeout = 250');
      try {
        journal = String(db.pragma('journal_mode = WAL', { simple: true })).toLowerCase();
        db.exec('BEGIN IMMEDIATE; CREATE TABLE IF NOT EXISTS "safe_retry_probe" (x INTEGER); DROP TABLE "safe_retry_probe"; COMMIT');
      } catch (error) {
        try { db.exec('ROLLBACK'); } catch { /* no transaction open */ }
        if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
          throw unsafe(`${file} is open in another process (or connection); mode 'exclusive' needs to be its only user`);
        }
        throw error;
      }
      db.pragma(busy);
    } else {
      const locking = String(db.pragma('locking_mode', { simple: true }));
      if (locking.toLowerCase() === 'exclusive') {
        throw unsafe(`${file}: this connection uses locking_mode=EXCLUSIVE, which other processes cannot share; use mode: 'exclusive'`);
      }
      journal = String(db.pragma('journal_mode = WAL', { simple: true })).toLowerCase();
    }
    if (journal !== 'wal') {
      throw unsafe(`${file}: could not switch to journal_mode=WAL (got ${journal}); without WAL, readers and the claiming writer block each other and multi-process use is unsafe`);
    }
    db.pragma(`synchronous = ${synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
    // A connection that has read holds its shared lock, so an 'exclusive' opener elsewhere is refused.
    db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get();
  } catch (error) {
    releaseLock();
    if (ownsDb) opened?.close();
    throw error;
  }
  const db: SqliteDatabaseLike = opened;
  const onExit = () => releaseLock();
  if (ownLock) process.once('exit', onExit);

  const t = `"${table}"`;
  const m = `"${table}_migrations"`;
  // Pinned: on a small or unanalysed table the planner prefers the status index and sorts, which
  // turns every claim into a scan of all pending rows.
  const dueIdx = `"${table}_due_idx"`;
  const stmtCache = new Map<string, SqliteStatementLike>();
  const st = (sql: string) => {
    let s = stmtCache.get(sql);
    if (!s) {
      s = db.prepare(sql);
      stmtCache.set(sql, s);
    }
    return s;
  };
  const now = (n: StoreNow) => (n ?? new Date()).getTime();
  let migrated = false;

  const claimTx = db.transaction((p: { now: number; kinds: string; limit: number; worker: string; token: string; lease: number }) =>
    st(`UPDATE ${t} SET status = 'running', attempts = attempts + 1, locked_at = @now, locked_by = @worker, lease_token = @token,
  next_attempt_at = @now + @lease, updated_at = @now
WHERE id IN (
  SELECT id FROM ${t} INDEXED BY ${dueIdx}
  WHERE status IN ('pending', 'running') AND next_attempt_at <= @now AND kind IN (SELECT value FROM json_each(@kinds))
  ORDER BY next_attempt_at, id LIMIT @limit
)
RETURNING *`).all(p),
  );
  const alertTx = db.transaction((p: { now: number; limit: number; token: string; lease: number }) =>
    st(`UPDATE ${t} SET lease_token = @token, next_attempt_at = @now + @lease
WHERE id IN (
  SELECT id FROM ${t} WHERE status = 'failed' AND alerted_at IS NULL AND next_attempt_at <= @now
  ORDER BY next_attempt_at LIMIT @limit
)
RETURNING *`).all(p),
  );
  const enqueueTx = db.transaction((rows: readonly NewTaskRow[], at: number): EnqueueOutcome[] => {
    const ins = st(`INSERT INTO ${t} (id, kind, payload, status, idempotency_key, attempts, max_attempts, next_attempt_at, last_error, created_at, updated_at)
VALUES (?, ?, ?, 'pending', ?, 0, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING`);
    const byKey = st(`SELECT id, kind FROM ${t} WHERE idempotency_key = ?`);
    return rows.map((r) => {
      const res = ins.run(r.id, r.kind, r.payloadJson, r.idempotencyKey, r.maxAttempts, ms(r.runAt) ?? at + r.delayMs, r.lastError, at, at);
      if (res.changes === 1) return { taskId: r.id, created: true };
      const prior = byKey.get(r.idempotencyKey) as { id: string; kind: string } | undefined;
      if (!prior) throw new Error(`enqueue of ${r.kind} inserted nothing and found no task with its key`);
      if (prior.kind !== r.kind) {
        throw new TaskQueueError(
          'IDEMPOTENCY_KEY_CONFLICT',
          `idempotency key ${JSON.stringify(r.idempotencyKey)} already belongs to a task of kind "${prior.kind}", not "${r.kind}": one key must name one operation`,
        );
      }
      return { taskId: prior.id, created: false };
    });
  });
  const completeTx = db.transaction((tasks: readonly { id: string; token: string }[], at: number) => {
    const up = st(`UPDATE ${t} SET status = 'completed', locked_at = NULL, locked_by = NULL, lease_token = NULL, updated_at = ?
WHERE id = ? AND lease_token = ? AND status = 'running'`);
    const done = new Set<string>();
    for (const x of tasks) if (up.run(at, x.id, x.token).changes === 1) done.add(x.id);
    return done;
  });
  // One write transaction (one commit, one fsync) for what finished and what is due next.
  const claimAndCompleteTx = db.transaction(
    (tasks: readonly { id: string; token: string }[], p: { now: number; kinds: string; limit: number; worker: string; token: string; lease: number }) => {
      const completed = completeTx(tasks, p.now);
      return { completed, rows: claimTx(p) };
    },
  );
  const releaseTx = db.transaction((tasks: readonly { id: string; token: string }[], at: number) => {
    const up = st(`UPDATE ${t} SET status = 'pending', attempts = attempts - 1, next_attempt_at = ?, locked_at = NULL, locked_by = NULL,
  lease_token = NULL, updated_at = ? WHERE id = ? AND lease_token = ? AND status = 'running'`);
    let n = 0;
    for (const x of tasks) n += up.run(at, at, x.id, x.token).changes;
    return n;
  });
  const extendTx = db.transaction((leases: readonly { id: string; token: string }[], at: number, lease: number) => {
    const up = st(`UPDATE ${t} SET next_attempt_at = ?, updated_at = ? WHERE id = ? AND lease_token = ? AND status = 'running'`);
    const kept = new Set<string>();
    for (const l of leases) if (up.run(at + lease, at, l.id, l.token).changes === 1) kept.add(l.id);
    return kept;
  });

  return {
    dialect: 'sqlite',
    database: db,
    lockFile: ownLock ? lockFile : undefined,

    async migrate() {
      if (migrated) return;
      // IMMEDIATE takes the write lock before reading the version table, so two processes cannot
      // both decide that a migration is missing.
      db.transaction(() => {
        db.exec(`CREATE TABLE IF NOT EXISTS ${m} (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`);
        const done = new Set((db.prepare(`SELECT version FROM ${m}`).all() as { version: number }[]).map((r) => r.version));
        for (const mig of schemaSql(table)) {
          if (done.has(mig.version)) continue;
          db.exec(mig.sql);
          db.prepare(`INSERT INTO ${m} (version, applied_at) VALUES (?, ?)`).run(mig.version, Date.now());
        }
      }).immediate();
      migrated = true;
    },

    async enqueue(rows, ctx) {
      if (ctx.client !== undefined) {
        throw new TaskQueueError('INVALID_OPTION', 'enqueue({ client }) is for postgresStore; with SQLite the task is written through the store\'s own connection');
      }
      if (rows.length === 0) return [];
      return enqueueTx.immediate(rows, now(ctx.now));
    },

    async claim(req) {
      const rows = claimTx.immediate({ now: now(req.now), kinds: JSON.stringify(req.kinds), limit: req.limit, worker: req.workerId, token: req.token, lease: req.leaseMs });
      return (rows as any[]).map((r) => ({ ...toTask(r), leaseToken: r.lease_token as string }));
    },

    async claimAndComplete(req) {
      const { completed, rows } = claimAndCompleteTx.immediate(req.complete, {
        now: now(req.now), kinds: JSON.stringify(req.kinds), limit: req.limit, worker: req.workerId, token: req.token, lease: req.leaseMs,
      });
      const claimed = (rows as any[]).map((r) => ({ ...toTask(r), leaseToken: r.lease_token as string }));
      return { claimed, completed };
    },

    async complete(req) {
      if (req.tasks.length === 0) return new Set();
      return completeTx.immediate(req.tasks, now(req.now));
    },

    async release(req) {
      if (req.tasks.length === 0) return 0;
      return releaseTx.immediate(req.tasks, now(req.now));
    },

    async fail(req) {
      const at = now(req.now);
      const row = st(`UPDATE ${t} SET
  status = CASE WHEN @terminal OR attempts >= max_attempts THEN 'failed' ELSE 'pending' END,
  next_attempt_at = CASE WHEN @terminal OR attempts >= max_attempts THEN @now ELSE @now + @delay END,
  last_error = @error, locked_at = NULL, locked_by = NULL, lease_token = NULL, updated_at = @now
WHERE id = @id AND lease_token = @token AND status = 'running'
RETURNING status`).get({ id: req.id, token: req.token, error: req.error, terminal: req.terminal ? 1 : 0, delay: req.delayMs, now: at }) as { status: 'pending' | 'failed' } | undefined;
      return row?.status ?? null;
    },

    async extendLeases(req) {
      if (req.leases.length === 0) return new Set();
      return extendTx.immediate(req.leases, now(req.now), req.leaseMs);
    },

    async claimAlerts(req) {
      const rows = alertTx.immediate({ now: now(req.now), limit: req.limit, token: req.token, lease: req.leaseMs });
      return (rows as any[]).map((r) => ({ ...toTask(r), leaseToken: r.lease_token as string }));
    },

    async markAlerted(req) {
      const at = now(req.now);
      return st(`UPDATE ${t} SET alerted_at = ?, lease_token = NULL, updated_at = ? WHERE id = ? AND lease_token = ? AND status = 'failed' AND alerted_at IS NULL`)
        .run(at, at, req.id, req.token).changes === 1;
    },

    async get(id) {
      const r = st(`SELECT * FROM ${t} WHERE id = ?`).get(id);
      return r ? toTask(r) : undefined;
    },

    async list(req) {
      const where: string[] = [];
      const values: unknown[] = [];
      if (req.status) {
        where.push('status = ?');
        values.push(req.status);
      }
      if (req.kind) {
        where.push('kind = ?');
        values.push(req.kind);
      }
      const sql = `SELECT * FROM ${t} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?`;
      return st(sql).all(...values, req.limit, req.offset).map(toTask);
    },

    async redrive(req) {
      const at = now(req.now);
      return st(`UPDATE ${t} SET status = 'pending', attempts = 0, next_attempt_at = ?, alerted_at = NULL,
  locked_at = NULL, locked_by = NULL, lease_token = NULL, updated_at = ? WHERE id = ? AND status = 'failed'`).run(at, at, req.id).changes === 1;
    },

    async purgeCompleted(req) {
      return st(`DELETE FROM ${t} WHERE status = 'completed' AND updated_at < ?`).run(now(req.now) - req.olderThanMs).changes;
    },

    async counts(): Promise<TaskCounts> {
      const out: TaskCounts = { pending: 0, running: 0, completed: 0, failed: 0 };
      for (const r of st(`SELECT status, count(*) AS n FROM ${t} GROUP BY status`).all() as { status: TaskStatus; n: number }[]) out[r.status] = r.n;
      return out;
    },

    async close() {
      if (ownsDb) db.close();
      releaseLock();
      process.removeListener('exit', onExit);
    },
  };
}
