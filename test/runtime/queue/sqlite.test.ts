import { mkdtempSync, rmSync, existsSync, cpSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTaskQueue, sqliteSchemaSql, sqliteStore } from '../../../src/runtime/index.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'safe-retry-sqlite-only-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('sqliteStore', () => {
  it('opens the file in WAL mode with a busy timeout', async () => {
    const store = sqliteStore({ filename: join(dir, 'wal.db'), busyTimeoutMs: 1234 });
    expect(store.database.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.database.pragma('busy_timeout', { simple: true })).toBe(1234);
    expect(store.database.pragma('synchronous', { simple: true })).toBe(2); // FULL
    await store.close();
  });

  it('accepts an already opened better-sqlite3 database and leaves it open', async () => {
    const db = new Database(join(dir, 'mine.db'));
    const store = sqliteStore({ database: db });
    const q = createTaskQueue({ store, handlers: { k: () => undefined } });
    await q.enqueue('k', { a: 1 });
    expect(await q.runOnce()).toBe(1);
    await store.close();
    expect(db.open).toBe(true);
    expect(db.prepare('SELECT status FROM safe_retry_tasks').all()).toEqual([{ status: 'completed' }]);
    db.close();
  });

  it('refuses databases that cannot be a durable, shareable queue', () => {
    expect(() => sqliteStore({ filename: ':memory:' })).toThrow(expect.objectContaining({ code: 'SQLITE_UNSAFE_MODE' }));
    expect(() => sqliteStore({ database: new Database(':memory:') })).toThrow(/in-memory/);
    const path = join(dir, 'ro.db');
    new Database(path).close();
    expect(() => sqliteStore({ database: new Database(path, { readonly: true }) })).toThrow(/readonly/);
    const excl = new Database(join(dir, 'excl-conn.db'));
    excl.pragma('locking_mode = EXCLUSIVE');
    expect(() => sqliteStore({ database: excl })).toThrow(/locking_mode=EXCLUSIVE/);
    excl.close();
    expect(() => sqliteStore({} as never)).toThrow(/exactly one of/);
  });

  it('holds the file exclusively in exclusive mode and removes its lock file on close', async () => {
    const filename = join(dir, 'solo.db');
    const solo = sqliteStore({ filename, mode: 'exclusive' });
    expect(solo.lockFile && existsSync(solo.lockFile)).toBe(true);
    expect(() => sqliteStore({ filename })).toThrow(/held in exclusive mode by process/);
    const q = createTaskQueue({ store: solo, handlers: { k: () => undefined } });
    await q.enqueue('k', null);
    expect(await q.runOnce()).toBe(1);
    await solo.close();
    expect(existsSync(`${filename}.safe-retry.lock`)).toBe(false);
    const again = sqliteStore({ filename });
    await again.close();
  });

  it('reports a database busy beyond the timeout through onError and carries on', async () => {
    const filename = join(dir, 'busy.db');
    const errors: unknown[] = [];
    const store = sqliteStore({ filename, busyTimeoutMs: 30 });
    let done!: () => void;
    const ran = new Promise<void>((r) => (done = r));
    const q = createTaskQueue({ store, pollIntervalMs: 20, onError: (e) => void errors.push(e), handlers: { k: () => done() } });
    await q.enqueue('k', {});
    const blocker = new Database(filename);
    blocker.exec('BEGIN IMMEDIATE');
    q.start();
    await new Promise((r) => setTimeout(r, 150));
    blocker.exec('COMMIT');
    blocker.close();
    await ran;
    await q.stop();
    await store.close();
    expect(errors.some((e) => String((e as { code?: string }).code).startsWith('SQLITE_BUSY'))).toBe(true);
  });

  it('names the missing peer dependency when better-sqlite3 cannot be loaded', () => {
    // Compile the queue outside the project, where better-sqlite3 does not resolve.
    const out = mkdtempSync(join(tmpdir(), 'safe-retry-nodriver-'));
    const root = resolve(import.meta.dirname, '../../..');
    try {
      execFileSync(process.execPath, [
        join(root, 'node_modules/typescript/bin/tsc'), '--ignoreConfig', '--outDir', out, '--rootDir', join(root, 'src'),
        '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--lib', 'es2023',
        '--skipLibCheck', '--types', 'node', join(root, 'src/runtime/queue/index.ts'),
      ], { stdio: 'pipe' });
    } catch {
      // emits despite type errors elsewhere
    }
    cpSync(join(root, 'src/runtime/handoff.ts'), join(out, 'unused.ts')); // keep the folder non-empty on failure
    writeFileSync(join(out, 'package.json'), '{"type":"module"}');
    const script = `import { sqliteStore } from ${JSON.stringify(join(out, 'runtime/queue/index.js'))};
try { sqliteStore({ filename: ${JSON.stringify(join(dir, 'x.db'))} }); } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }`;
    const res = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: out }).toString());
    rmSync(out, { recursive: true, force: true });
    expect(res.code).toBe('MISSING_DRIVER');
    expect(res.message).toContain('"better-sqlite3"');
  }, 30_000);

  it('publishes its schema as SQL', () => {
    const sql = sqliteSchemaSql();
    expect(sql).toContain('CREATE TABLE IF NOT EXISTS "safe_retry_tasks"');
    expect(sql).toContain('ON "safe_retry_tasks" (next_attempt_at, id) WHERE status IN (\'pending\', \'running\')');
  });

  it('has a partial index that serves the claim without sorting', async () => {
    const store = sqliteStore({ filename: join(dir, 'plan.db') });
    await store.migrate();
    const plan = store.database
      .prepare(`EXPLAIN QUERY PLAN SELECT id FROM safe_retry_tasks INDEXED BY safe_retry_tasks_due_idx WHERE status IN ('pending', 'running') AND next_attempt_at <= 0 ORDER BY next_attempt_at, id LIMIT 5`)
      .all()
      .map((r: any) => r.detail)
      .join('\n');
    expect(plan).toContain('safe_retry_tasks_due_idx');
    expect(plan).not.toContain('TEMP B-TREE');
    await store.close();
  });
});
