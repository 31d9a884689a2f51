// A clean database per test file: a migrated PGlite dump, built once and cached, loaded in about a second; or, when
// TEST_DATABASE_URL is set, a fresh copy of a migrated database on that PostgreSQL server (test/support/postgres.ts).
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import { createPostgresTestDatabase, TEST_DATABASE_URL } from './postgres.js';

const CACHE_DIR = fileURLToPath(new URL('../../.test-cache/', import.meta.url));

async function dumpPath(): Promise<string> {
  const migrations = await readMigrations();
  const hash = createHash('sha256')
    .update(migrations.map((m) => m.checksum).join(','))
    .digest('hex')
    .slice(0, 16);
  return path.join(CACHE_DIR, `migrated-${hash}.tar`);
}

/** The migrated database as a dumpDataDir() tarball's bytes, built on first use. */
export async function migratedDump(): Promise<Uint8Array> {
  const file = await dumpPath();
  try {
    return await readFile(file);
  } catch {
    const db = await openDatabase({ dataDir: 'memory://', poolMax: 2 });
    try {
      await migrate(db);
      const dump = await db.embedded!.dumpDataDir('none');
      await mkdir(CACHE_DIR, { recursive: true });
      // Two test processes may build it at once: write aside, then rename atomically.
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, dump);
      await rename(tmp, file);
      return dump;
    } finally {
      await db.close();
    }
  }
}

/** The connection strings of the PostgreSQL test databases, which other processes can use to reach them. */
const urls = new WeakMap<Database, string>();

export function rememberUrl(db: Database, url: string): void {
  urls.set(db, url);
}

/** A fresh, migrated, empty database: embedded, or on the TEST_DATABASE_URL server (dropped when closed). */
export async function createTestDatabase(opts: { poolMax?: number; connectionTimeoutMs?: number; embeddedMaxConnections?: number } = {}): Promise<Database> {
  const poolMax = opts.poolMax ?? 5;
  const timeout = opts.connectionTimeoutMs ? { connectionTimeoutMs: opts.connectionTimeoutMs } : {};
  if (TEST_DATABASE_URL) {
    const made = await createPostgresTestDatabase();
    const db = await openDatabase({ databaseUrl: made.url, dataDir: 'unused', poolMax, ...timeout });
    const dropping: Database = {
      ...db,
      async close() {
        await db.close();
        await made.drop();
      },
    };
    rememberUrl(dropping, made.url);
    return dropping;
  }
  const db = await openDatabase({
    dataDir: 'memory://',
    poolMax,
    loadDataDir: await migratedDump(),
    ...timeout,
    ...(opts.embeddedMaxConnections ? { embeddedMaxConnections: opts.embeddedMaxConnections } : {}),
  });
  return db;
}

/** A connection string other processes can use to reach a test database (the embedded one over its socket). */
export function connectionUrl(db: Database): string {
  if (db.embedded) return `postgres://postgres@localhost/postgres?host=${encodeURIComponent(db.embedded.socketDir)}`;
  const url = urls.get(db);
  if (!url) throw new Error('connectionUrl: a PostgreSQL database not made by createTestDatabase() or startTestRuntime()');
  return url;
}
