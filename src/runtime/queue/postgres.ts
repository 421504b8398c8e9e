import { createHash } from 'node:crypto';
import { TaskQueueError } from './errors.js';
import type { ClaimedTask, EnqueueOutcome, NewTaskRow, StoreNow, Task, TaskCounts, TaskStatus, TaskStore } from './types.js';
import { checkIdentifier } from './util.js';

/*
 * Minimal structural views of node-postgres, so that this module (and its .d.ts) never needs `pg`
 * installed. A real `pg.Pool` / `pg.PoolClient` / `pg.Client` fits them.
 */
export interface PgQueryResultLike {
  rows: any[];
  rowCount: number | null;
}
export interface PgQueryConfigLike {
  /** Set for a named (prepared) statement. */
  name?: string;
  text: string;
  values?: any[];
}
export interface PgQueryable {
  query(text: string, values?: any[]): Promise<PgQueryResultLike>;
  query(config: PgQueryConfigLike): Promise<PgQueryResultLike>;
}
export interface PgPoolClientLike extends PgQueryable {
  release(destroy?: boolean | Error): void;
  on(event: string, listener: (...args: any[]) => void): unknown;
  removeListener(event: string, listener: (...args: any[]) => void): unknown;
}
export interface PgPoolLike extends PgQueryable {
  connect(): Promise<PgPoolClientLike>;
}

export interface PostgresStoreOptions {
  /** Your pg Pool; the store never closes it. */
  pool: PgPoolLike;
  /** Table name (plain identifier). Default `safe_retry_tasks`. */
  table?: string;
  /** Schema (plain identifier). Default: the connection's search_path. */
  schema?: string;
  /**
   * Named (prepared) statements for the worker's and producer's hot statements: each connection
   * parses and plans them once. Default true. Set false behind a pooler that does not keep them per
   * client, such as PgBouncer in transaction mode before 1.21 (or without max_prepared_statements).
   */
  preparedStatements?: boolean;
}

export const DEFAULT_TABLE = 'safe_retry_tasks';

/** The schema as SQL, for teams that apply migrations with their own tool. */
export function postgresSchemaSql(options: { table?: string; schema?: string } = {}): string {
  return names(options).migrations.map((m) => m.sql).join('\n');
}

function names(options: { table?: string; schema?: string }) {
  const table = checkIdentifier('table', options.table ?? DEFAULT_TABLE);
  const schema = options.schema === undefined ? undefined : checkIdentifier('schema', options.schema);
  const q = (n: string) => `"${n}"`;
  const t = schema ? `${q(schema)}.${q(table)}` : q(table);
  const m = schema ? `${q(schema)}.${q(`${table}_migrations`)}` : q(`${table}_migrations`);
  const migrations = [
    {
      version: 1,
      sql: `CREATE TABLE IF NOT EXISTS ${t} (
  id uuid PRIMARY KEY,
  kind text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  idempotency_key text UNIQUE,
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL CHECK (max_attempts >= 1),
  next_attempt_at timestamptz NOT NULL,
  last_error text,
  locked_at timestamptz,
  locked_by text,
  lease_token text,
  alerted_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- Matches the claim: WHERE status IN (pending, running) AND next_attempt_at <= now ORDER BY next_attempt_at, id.
CREATE INDEX IF NOT EXISTS ${q(`${table}_due_idx`)} ON ${t} (next_attempt_at, id) WHERE status IN ('pending', 'running');
CREATE INDEX IF NOT EXISTS ${q(`${table}_alert_idx`)} ON ${t} (next_attempt_at) WHERE status = 'failed' AND alerted_at IS NULL;
CREATE INDEX IF NOT EXISTS ${q(`${table}_status_updated_idx`)} ON ${t} (status, updated_at);`,
    },
    {
      version: 2,
      // Every claim and completion writes a new row version, and an update that changes an indexed
      // column adds an entry to every index that covers the row. Indexes that cover fewer rows:
      // the key index skips tasks without a key, the purge index covers completed tasks only.
      sql: `DO $migrate$
DECLARE c text;
BEGIN
  SELECT conname INTO c FROM pg_constraint
  WHERE conrelid = '${t.replace(/'/g, "''")}'::regclass AND contype = 'u'
    AND conkey = ARRAY[(SELECT attnum FROM pg_attribute WHERE attrelid = '${t.replace(/'/g, "''")}'::regclass AND attname = 'idempotency_key')]::int2[];
  IF c IS NOT NULL THEN EXECUTE format('ALTER TABLE ${t.replace(/'/g, "''")} DROP CONSTRAINT %I', c); END IF;
END
$migrate$;
CREATE UNIQUE INDEX IF NOT EXISTS ${q(`${table}_key_idx`)} ON ${t} (idempotency_key) WHERE idempotency_key IS NOT NULL;
DROP INDEX IF EXISTS ${schema ? `${q(schema)}.` : ''}${q(`${table}_status_updated_idx`)};
CREATE INDEX IF NOT EXISTS ${q(`${table}_completed_idx`)} ON ${t} (updated_at) WHERE status = 'completed';`,
    },
  ];
  // NOTIFY channels are identifiers too; lower case so LISTEN (which folds case) matches.
  const channel = `${schema ? `${schema}_` : ''}${table}_wake`.toLowerCase().slice(0, 63);
  return { t, m, table, schema, channel, migrations };
}

const COLUMN_NAMES = ['kind', 'payload', 'status', 'idempotency_key', 'attempts', 'max_attempts', 'next_attempt_at', 'last_error',
  'locked_at', 'locked_by', 'lease_token', 'alerted_at', 'created_at', 'updated_at'];
const columns = (alias = '') => [`${alias}id::text AS id`, ...COLUMN_NAMES.map((c) => `${alias}${c}`)].join(', ');
const COLUMNS = columns();

function toTask(r: any): Task {
  return {
    id: r.id,
    kind: r.kind,
    payload: r.payload,
    status: r.status as TaskStatus,
    idempotencyKey: r.idempotency_key ?? null,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    nextAttemptAt: r.next_attempt_at,
    lastError: r.last_error ?? null,
    lockedAt: r.locked_at ?? null,
    lockedBy: r.locked_by ?? null,
    alertedAt: r.alerted_at ?? null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toClaimed(r: any): ClaimedTask {
  return { ...toTask(r), leaseToken: r.lease_token };
}

/** A row of the claim's RETURNING: the columns it wrote are known, only `now()` is the database's. */
function fromClaim(r: any, req: { workerId: string; token: string; leaseMs: number }): ClaimedTask {
  const at = new Date(r.at_ms);
  return {
    id: r.id,
    kind: r.kind,
    payload: r.payload,
    status: 'running',
    idempotencyKey: r.idempotency_key ?? null,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    nextAttemptAt: new Date(r.at_ms + req.leaseMs),
    lastError: r.last_error ?? null,
    lockedAt: at,
    lockedBy: req.workerId,
    // Running tasks are never alerted: alerted_at is set on FAILED tasks and cleared by redrive.
    alertedAt: null,
    createdAt: new Date(r.created_ms),
    updatedAt: at,
    leaseToken: req.token,
  };
}

/** JSON text of one enqueued row, the payload inserted as the JSON it already is. */
function rowJson(r: NewTaskRow): string {
  return `{"id":"${r.id}","kind":${JSON.stringify(r.kind)},"payload":${r.payloadJson},"idempotency_key":${JSON.stringify(r.idempotencyKey)},` +
    `"run_at":${r.runAt === null ? 'null' : `"${r.runAt.toISOString()}"`},"max_attempts":${r.maxAttempts},` +
    `"last_error":${JSON.stringify(r.lastError)},"delay_ms":${r.delayMs}}`;
}

/** Ids that need no quoting in an array literal (UUIDs: hex digits and dashes), comma-separated. */
const ID_LIST = /^[0-9A-Fa-f-]+(?:,[0-9A-Fa-f-]+)*$/;

/**
 * Ids and tokens as two array parameters. Written as array literals here (ids bare, tokens
 * quoted) when nothing in them needs escaping, which is always the case for the worker's own
 * claims, so the driver does not escape element by element; anything else goes as JS arrays for
 * the driver to quote.
 */
function leaseArrays(leases: readonly { id: string; token: string }[]): [string | string[], string | string[]] {
  if (leases.length === 0) return ['{}', '{}'];
  const ids: string[] = new Array(leases.length);
  const tokens: string[] = new Array(leases.length);
  for (let i = 0; i < leases.length; i++) {
    const l = leases[i] as { id: string; token: string };
    ids[i] = l.id;
    tokens[i] = l.token;
  }
  const idText = ids.join(',');
  // Checked before joining: the separator's own quotes would send every batch down the slow path.
  if (!ID_LIST.test(idText) || /["\\]/.test(tokens.join(''))) return [ids, tokens];
  return [`{${idText}}`, `{"${tokens.join('","')}"}`];
}

/**
 * The store for PostgreSQL: tasks live in the application database, so a task can be enqueued in
 * the same transaction as the business write that needs it (pass your client to `enqueue`).
 * Every time decision (due, lease expiry, next attempt) uses the database clock, so workers on
 * hosts with skewed clocks agree.
 */
export function postgresStore(options: PostgresStoreOptions): TaskStore & { readonly channel: string; readonly table: string } {
  if (!options || typeof options.pool?.query !== 'function' || typeof options.pool.connect !== 'function') {
    throw new TaskQueueError('INVALID_OPTION', 'postgresStore({ pool }) needs a pg Pool (from the "pg" package)');
  }
  const pool = options.pool;
  const { t, m, table, channel, migrations } = names(options);
  // `$n::timestamptz` is null unless a test clock is injected; then coalesce falls back to now().
  const NOW = (n: number) => `coalesce($${n}::timestamptz, now())`;
  // The claim returns what it cannot know in advance; the rest of the task it has just written.
  const CLAIMED = `t.id::text AS id, t.kind, t.payload, t.idempotency_key, t.attempts, t.max_attempts, t.last_error,
  (extract(epoch FROM t.created_at) * 1000)::float8 AS created_ms, (extract(epoch FROM ${NOW(1)}) * 1000)::float8 AS at_ms`;
  const DUE = (exclude: string) => `SELECT id FROM ${t}
  WHERE status IN ('pending', 'running') AND next_attempt_at <= ${NOW(1)} AND kind = ANY($2::text[])${exclude}
  ORDER BY next_attempt_at, id
  LIMIT $3
  FOR UPDATE SKIP LOCKED`;
  // By primary key, as an array: joined with \`due\`, the planner may hash-join a scan of the
  // whole table against the few ids a claim takes.
  const TAKE = `UPDATE ${t} AS t SET status = 'running', attempts = t.attempts + 1, locked_at = ${NOW(1)}, locked_by = $4,
  lease_token = $5, next_attempt_at = ${NOW(1)} + $6 * interval '1 millisecond', updated_at = ${NOW(1)}
WHERE t.id = ANY(ARRAY(SELECT id FROM due))`;
  // Running tasks among the ids, each still under the token at the same position. Looked up by
  // position rather than joined with the unnested pairs, which compares every pair with every row.
  const OWN_LEASE = (ids: number, tokens: number) => `t.id = ANY($${ids}::uuid[]) AND t.status = 'running'
  AND t.lease_token = ($${tokens}::text[])[array_position($${ids}::uuid[], t.id)]`;
  const COMPLETE = (ids: number, tokens: number, now: number) => `UPDATE ${t} AS t SET status = 'completed', locked_at = NULL, locked_by = NULL, lease_token = NULL, updated_at = ${NOW(now)}
WHERE ${OWN_LEASE(ids, tokens)}`;
  const ENQUEUE = (onConflict: string, result: string) => `WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb)
    AS x(id uuid, kind text, payload jsonb, idempotency_key text, run_at timestamptz, max_attempts int, last_error text, delay_ms float8)
), ins AS (
  INSERT INTO ${t} (id, kind, payload, status, idempotency_key, attempts, max_attempts, next_attempt_at, last_error, created_at, updated_at)
  SELECT id, kind, coalesce(payload, 'null'::jsonb), 'pending', idempotency_key, 0, max_attempts, coalesce(run_at, ${NOW(2)} + delay_ms * interval '1 millisecond'), last_error, ${NOW(2)}, ${NOW(2)}
  FROM input${onConflict}
  RETURNING id
)
SELECT ${result} FROM ins CROSS JOIN (SELECT pg_notify($3, '')) AS wake`;
  const SQL = {
    // One statement (one round trip, one commit) completes what finished and claims what is due;
    // a claim alone passes no completions, a completion alone a limit of 0 (the LIMIT node then
    // reads nothing). One statement, so each connection parses and plans one, not three.
    // The tasks being completed are excluded from the claim: one statement must not update a row
    // twice, and a lease that expired while its handler ran is still ours to complete.
    // The answer is one row of two texts, the claimed rows as one JSON array and the completed ids
    // comma-separated: the driver then decodes two fields instead of nine per claimed row (its
    // row parsing, cold in a fresh worker, cost more than the JSON.parse that replaces it).
    step: `WITH done AS (
  ${COMPLETE(7, 8, 1)}
  RETURNING t.id
), due AS (
  ${DUE(' AND id <> ALL($7::uuid[])')}
), claimed AS (
  ${TAKE}
  RETURNING ${CLAIMED}
)
SELECT (SELECT json_agg(c)::text FROM claimed AS c) AS claimed, (SELECT string_agg(id::text, ',') FROM done) AS done`,
    release: `UPDATE ${t} AS t SET status = 'pending', attempts = t.attempts - 1, next_attempt_at = ${NOW(3)},
  locked_at = NULL, locked_by = NULL, lease_token = NULL, updated_at = ${NOW(3)}
WHERE ${OWN_LEASE(1, 2)}`,
    fail: `UPDATE ${t} SET
  status = CASE WHEN $4::boolean OR attempts >= max_attempts THEN 'failed' ELSE 'pending' END,
  next_attempt_at = CASE WHEN $4::boolean OR attempts >= max_attempts THEN ${NOW(6)} ELSE ${NOW(6)} + $5 * interval '1 millisecond' END,
  last_error = $3, locked_at = NULL, locked_by = NULL, lease_token = NULL, updated_at = ${NOW(6)}
WHERE id = $1::uuid AND lease_token = $2 AND status = 'running'
RETURNING status`,
    extend: `UPDATE ${t} AS t SET next_attempt_at = ${NOW(4)} + $3 * interval '1 millisecond', updated_at = ${NOW(4)}
WHERE ${OWN_LEASE(1, 2)}
RETURNING t.id::text AS id`,
    claimAlerts: `WITH due AS (
  SELECT id FROM ${t}
  WHERE status = 'failed' AND alerted_at IS NULL AND next_attempt_at <= ${NOW(1)}
  ORDER BY next_attempt_at LIMIT $2
  FOR UPDATE SKIP LOCKED
)
UPDATE ${t} AS t SET lease_token = $3, next_attempt_at = ${NOW(1)} + $4 * interval '1 millisecond'
FROM due WHERE t.id = due.id
RETURNING ${columns('t.')}`,
    markAlerted: `UPDATE ${t} SET alerted_at = ${NOW(3)}, lease_token = NULL, updated_at = ${NOW(3)}
WHERE id = $1::uuid AND lease_token = $2 AND status = 'failed' AND alerted_at IS NULL`,
    // The rows travel as one JSON document: one parameter for the driver to send, instead of one
    // array per column, and the payloads go in as the JSON they already are (a JSON null payload
    // comes out of the record set as SQL NULL, hence the coalesce).
    enqueue: ENQUEUE(`
  ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING`, 'ins.id::text AS id'),
    // Rows without keys cannot conflict: a plain insert skips the speculative insertion that
    // ON CONFLICT costs every row (a probe of the key index, a lock, one more WAL record), and
    // inserts every row or fails, so a count says all there is to say.
    enqueueKeyless: ENQUEUE('', 'count(*)::int AS n'),
    byKeys: `SELECT id::text AS id, kind, idempotency_key FROM ${t} WHERE idempotency_key = ANY($1::text[])`,
    get: `SELECT ${COLUMNS} FROM ${t} WHERE id = $1::uuid`,
    redrive: `UPDATE ${t} SET status = 'pending', attempts = 0, next_attempt_at = ${NOW(2)}, alerted_at = NULL,
  locked_at = NULL, locked_by = NULL, lease_token = NULL, updated_at = ${NOW(2)}
WHERE id = $1::uuid AND status = 'failed'`,
    purge: `DELETE FROM ${t} WHERE status = 'completed' AND updated_at < ${NOW(2)} - $1 * interval '1 millisecond'`,
    counts: `SELECT status, count(*)::int AS n FROM ${t} GROUP BY status`,
  };

  const d = (now: StoreNow) => now ?? null;
  const prepared = options.preparedStatements ?? true;
  // A name per statement text: stores on other tables (or schemas) on the same connection differ.
  const named = (text: string) => ({ name: `safe_retry_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text });
  const HOT = {
    step: named(SQL.step),
    enqueue: named(SQL.enqueue),
    enqueueKeyless: named(SQL.enqueueKeyless),
    fail: named(SQL.fail),
    extend: named(SQL.extend),
  };
  const run = (db: PgQueryable, statement: { name: string; text: string }, values: unknown[]) =>
    prepared ? db.query({ name: statement.name, text: statement.text, values }) : db.query(statement.text, values);

  /*
   * Until a table has been analysed once, the planner knows nothing of how next_attempt_at follows
   * the physical order, and plans the claim as a sort of every due row instead of a walk of the due
   * index: each claim then costs in proportion to the backlog. Autovacuum fixes that within a
   * minute or so; a worker that finds a backlog in a never-analysed table does it at once, once per
   * store. Only the columns the claim filters and sorts on: the whole row (payloads included) costs
   * several times as much. Without the privilege to analyse it nothing happens.
   */
  let analyzeChecked = false;
  // Awaited by the claim that found the backlog, once: run alongside the worker's next statement
  // it would cost the worker a second connection (a backend to start, statements to plan again).
  const tableLiteral = `'${t.replace(/'/g, "''")}'::regclass`;
  const analyzeOnce = async () => {
    if (analyzeChecked) return;
    analyzeChecked = true;
    try {
      // The statistics functions directly: the pg_stat_user_tables view joins half the catalog.
      const res = await pool.query(`SELECT 1 FROM (SELECT ${tableLiteral}::oid AS c) r
WHERE pg_stat_get_last_analyze_time(r.c) IS NULL AND pg_stat_get_last_autoanalyze_time(r.c) IS NULL`);
      if (res.rows.length > 0) await pool.query(`ANALYZE ${t} (status, next_attempt_at, kind)`);
    } catch {
      // Without the privilege to analyse (or a blip) autovacuum does it in its own time.
    }
  };
  const NO_COMPLETIONS: readonly { id: string; token: string }[] = [];
  // An array literal of the kinds: the driver's own array quoting is code a fresh worker runs cold.
  const kindsLiteral = (kinds: readonly string[]): string => `{${kinds.map((k) => `"${k.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
  type StepRequest = { workerId: string; kinds: readonly string[]; limit: number; leaseMs: number; token: string; now: StoreNow };
  async function step(req: StepRequest, complete: readonly { id: string; token: string }[]): Promise<{ claimed: ClaimedTask[]; completed: Set<string> }> {
    const res = await run(pool, HOT.step, [d(req.now), kindsLiteral(req.kinds), req.limit, req.workerId, req.token, req.leaseMs, ...leaseArrays(complete)]);
    const row = res.rows[0] as { claimed: string | null; done: string | null } | undefined;
    // Texts whatever type parsers the application set for json: parsed here.
    const rows: any[] = typeof row?.claimed === 'string' ? JSON.parse(row.claimed) : [];
    const claimed: ClaimedTask[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) claimed[i] = fromClaim(rows[i], req);
    const completed = new Set<string>(typeof row?.done === 'string' ? row.done.split(',') : undefined);
    if (req.limit > 0 && claimed.length === req.limit) await analyzeOnce();
    return { claimed, completed };
  }
  let migrated: Promise<void> | undefined;
  const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

  return {
    dialect: 'postgres',
    channel,
    table,

    migrate() {
      migrated ??= (async () => {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          // Two processes running CREATE TABLE IF NOT EXISTS at once can still collide in the
          // catalog; the transaction-scoped advisory lock serialises them.
          await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`safe-retry-migrate:${t}`]);
          await client.query(`CREATE TABLE IF NOT EXISTS ${m} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
          const done = new Set((await client.query(`SELECT version FROM ${m}`)).rows.map((r) => r.version as number));
          for (const mig of migrations) {
            if (done.has(mig.version)) continue;
            await client.query(mig.sql);
            await client.query(`INSERT INTO ${m} (version) VALUES ($1)`, [mig.version]);
          }
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          migrated = undefined;
          throw error;
        } finally {
          client.release();
        }
      })();
      return migrated;
    },

    async enqueue(rows: readonly NewTaskRow[], ctx: { now: StoreNow; client?: unknown }): Promise<EnqueueOutcome[]> {
      if (rows.length === 0) return [];
      const db = (ctx.client ?? pool) as PgQueryable;
      if (typeof db.query !== 'function') {
        throw new TaskQueueError('INVALID_OPTION', 'enqueue({ client }) needs a pg client (something with .query), e.g. the one your transaction runs on');
      }
      const values = [`[${rows.map(rowJson).join(',')}]`, d(ctx.now), channel];
      if (!rows.some((r) => r.idempotencyKey !== null)) {
        const n = (await run(db, HOT.enqueueKeyless, values)).rows[0]?.n as number | undefined;
        if (n !== rows.length) throw new Error(`enqueue of ${rows.length} tasks without keys inserted ${String(n)}`);
        return rows.map((r) => ({ taskId: r.id, created: true }));
      }
      const inserted = await run(db, HOT.enqueue, values);
      const created = new Set(inserted.rows.map((r) => r.id as string));
      const missingKeys = rows.filter((r) => !created.has(r.id) && r.idempotencyKey !== null).map((r) => r.idempotencyKey as string);
      const existing = new Map<string, { id: string; kind: string }>();
      if (missingKeys.length > 0) {
        for (const r of (await db.query(SQL.byKeys, [missingKeys])).rows) existing.set(r.idempotency_key, { id: r.id, kind: r.kind });
      }
      return rows.map((r) => {
        if (created.has(r.id)) return { taskId: r.id, created: true };
        const prior = r.idempotencyKey === null ? undefined : existing.get(r.idempotencyKey);
        if (!prior) throw new Error(`enqueue of ${r.kind} inserted nothing and found no task with its key (concurrent purge?)`);
        if (prior.kind !== r.kind) {
          throw new TaskQueueError(
            'IDEMPOTENCY_KEY_CONFLICT',
            `idempotency key ${JSON.stringify(r.idempotencyKey)} already belongs to a task of kind "${prior.kind}", not "${r.kind}": one key must name one operation`,
          );
        }
        return { taskId: prior.id, created: false };
      });
    },

    async claim(req) {
      return (await step(req, NO_COMPLETIONS)).claimed;
    },

    async claimAndComplete(req) {
      return step(req, req.complete);
    },

    async complete(req) {
      if (req.tasks.length === 0) return new Set();
      return (await step({ now: req.now, kinds: [], limit: 0, workerId: '', token: '', leaseMs: 0 }, req.tasks)).completed;
    },

    async release(req) {
      if (req.tasks.length === 0) return 0;
      const res = await pool.query(SQL.release, [...leaseArrays(req.tasks), d(req.now)]);
      return res.rowCount ?? 0;
    },

    async fail(req) {
      const res = await run(pool, HOT.fail, [req.id, req.token, req.error, req.terminal, req.delayMs, d(req.now)]);
      return (res.rows[0]?.status as 'pending' | 'failed' | undefined) ?? null;
    },

    async extendLeases(req) {
      if (req.leases.length === 0) return new Set();
      const res = await run(pool, HOT.extend, [...leaseArrays(req.leases), req.leaseMs, d(req.now)]);
      return new Set(res.rows.map((r) => r.id as string));
    },

    async claimAlerts(req) {
      const res = await pool.query(SQL.claimAlerts, [d(req.now), req.limit, req.token, req.leaseMs]);
      return res.rows.map(toClaimed);
    },

    async markAlerted(req) {
      const res = await pool.query(SQL.markAlerted, [req.id, req.token, d(req.now)]);
      return res.rowCount === 1;
    },

    async get(id) {
      if (!UUID_RE.test(id)) return undefined;
      const res = await pool.query(SQL.get, [id]);
      return res.rows[0] ? toTask(res.rows[0]) : undefined;
    },

    async list(req) {
      const where: string[] = [];
      const values: unknown[] = [];
      if (req.status) where.push(`status = $${values.push(req.status)}`);
      if (req.kind) where.push(`kind = $${values.push(req.kind)}`);
      const sql = `SELECT ${COLUMNS} FROM ${t} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
ORDER BY updated_at DESC, id DESC LIMIT $${values.push(req.limit)} OFFSET $${values.push(req.offset)}`;
      return (await pool.query(sql, values)).rows.map(toTask);
    },

    async redrive(req) {
      if (!UUID_RE.test(req.id)) return false;
      const res = await pool.query(SQL.redrive, [req.id, d(req.now)]);
      return res.rowCount === 1;
    },

    async purgeCompleted(req) {
      const res = await pool.query(SQL.purge, [req.olderThanMs, d(req.now)]);
      return res.rowCount ?? 0;
    },

    async counts(): Promise<TaskCounts> {
      const out: TaskCounts = { pending: 0, running: 0, completed: 0, failed: 0 };
      for (const r of (await pool.query(SQL.counts)).rows) out[r.status as TaskStatus] = r.n;
      return out;
    },

    async subscribe(onWake, onError) {
      let client: PgPoolClientLike | undefined;
      let closed = false;
      let retryTimer: NodeJS.Timeout | undefined;
      const onNotification = (msg: { channel?: string }) => {
        if (msg.channel === channel) onWake();
      };
      const onClientError = (error: unknown) => {
        onError(error);
        drop(true);
        scheduleReconnect();
      };
      const drop = (destroy: boolean) => {
        if (!client) return;
        const c = client;
        client = undefined;
        c.removeListener('notification', onNotification);
        c.removeListener('error', onClientError);
        try {
          c.release(destroy);
        } catch {
          // already released by pg after a fatal error
        }
      };
      let delay = 500;
      const scheduleReconnect = () => {
        if (closed || retryTimer) return;
        retryTimer = setTimeout(() => {
          retryTimer = undefined;
          void connect();
        }, delay);
        retryTimer.unref?.();
        delay = Math.min(delay * 2, 30_000);
      };
      const connect = async () => {
        try {
          const c = await pool.connect();
          if (closed) return c.release();
          client = c;
          c.on('notification', onNotification);
          c.on('error', onClientError);
          await c.query(`LISTEN "${channel}"`);
          delay = 500;
          // Tasks enqueued while we were not listening would otherwise wait for the next poll.
          onWake();
        } catch (error) {
          onError(error);
          drop(true);
          scheduleReconnect();
        }
      };
      await connect();
      return async () => {
        closed = true;
        if (retryTimer) clearTimeout(retryTimer);
        const c = client;
        if (c) {
          await c.query(`UNLISTEN "${channel}"`).catch(() => undefined);
          drop(false);
        }
      };
    },

    async close() {
      // The pool belongs to the caller.
    },
  };
}
