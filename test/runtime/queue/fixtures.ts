import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { postgresStore, sqliteStore, type TaskStore } from '../../../src/runtime/index.js';
import { startPostgres, type PgServer } from './pg-harness.js';

export interface StoreHandle {
  store: TaskStore;
  /** Another store instance on the same data (a second process, or the same one after a restart). */
  another(): TaskStore;
  /** Runs SQL against the same data; `?` placeholders are rewritten for PostgreSQL. */
  sql(text: string, params?: unknown[]): Promise<any[]>;
}

export interface StoreFixture {
  name: 'sqlite' | 'postgres';
  setup(): Promise<void>;
  teardown(): Promise<void>;
  make(): Promise<StoreHandle>;
}

export function sqliteFixture(): StoreFixture {
  let dir = '';
  let n = 0;
  const opened: TaskStore[] = [];
  return {
    name: 'sqlite',
    async setup() {
      dir = mkdtempSync(join(tmpdir(), 'safe-retry-sqlite-'));
    },
    async teardown() {
      await Promise.allSettled(opened.map((s) => s.close()));
      rmSync(dir, { recursive: true, force: true });
    },
    async make() {
      const filename = join(dir, `q${++n}.db`);
      const open = () => {
        const s = sqliteStore({ filename, busyTimeoutMs: 10_000 });
        opened.push(s);
        return s;
      };
      const store = open();
      const db = (store as ReturnType<typeof sqliteStore>).database;
      return {
        store,
        another: open,
        async sql(text, params = []) {
          const st = db.prepare(text);
          return /^\s*(select|with)|returning/i.test(text) ? st.all(...params) : (st.run(...params), []);
        },
      };
    },
  };
}

export function postgresFixture(): StoreFixture {
  let server: PgServer | undefined;
  let pool: pg.Pool;
  let connectionString = '';
  let n = 0;
  const extraPools: pg.Pool[] = [];
  return {
    name: 'postgres',
    async setup() {
      server = await startPostgres();
      ({ pool, connectionString } = await server.newDatabase());
    },
    async teardown() {
      await Promise.allSettled(extraPools.map((p) => p.end()));
      await server?.stop();
    },
    async make() {
      const table = `tasks_${++n}`;
      const store = postgresStore({ pool, table });
      return {
        store,
        another() {
          const p = new pg.Pool({ connectionString, max: 4 });
          p.on('error', () => undefined);
          extraPools.push(p);
          return postgresStore({ pool: p, table });
        },
        async sql(text, params = []) {
          let i = 0;
          const res = await pool.query(text.replace(/\?/g, () => `$${++i}`).replace(/\bsafe_retry_tasks\b/g, table), params);
          return res.rows;
        },
      };
    },
  };
}
