// A clean database per test file: a migrated PGlite dump, built once and cached, loaded in about a second.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate, readMigrations } from '../../src/db/migrate.js';

const CACHE_DIR = fileURLToPath(new URL('../../.test-cache/', import.meta.url));

async function dumpPath(): Promise<string> {
  const migrations = await readMigrations();
  const hash = createHash('sha256')
    .update(migrations.map((m) => m.checksum).join(','))
    .digest('hex')
    .slice(0, 16);
  return path.join(CACHE_DIR, `migrated-${hash}.tar`);
}

/** The migrated database as a dumpDataDir() tarball, built on first use. */
export async function migratedDump(): Promise<Blob> {
  const file = await dumpPath();
  try {
    return new Blob([await readFile(file)]);
  } catch {
    const db = await openDatabase({ dataDir: 'memory://', poolMax: 2 });
    try {
      await migrate(db);
      const dump = await db.embedded!.dumpDataDir('none');
      await mkdir(CACHE_DIR, { recursive: true });
      // Two test processes may build it at once: write aside, then rename atomically.
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, Buffer.from(await dump.arrayBuffer()));
      await rename(tmp, file);
      return dump;
    } finally {
      await db.close();
    }
  }
}

/** A fresh, migrated, empty embedded database. */
export async function createTestDatabase(opts: { poolMax?: number; connectionTimeoutMs?: number; embeddedMaxConnections?: number } = {}): Promise<Database> {
  return openDatabase({
    dataDir: 'memory://',
    poolMax: opts.poolMax ?? 5,
    loadDataDir: await migratedDump(),
    ...(opts.connectionTimeoutMs ? { connectionTimeoutMs: opts.connectionTimeoutMs } : {}),
    ...(opts.embeddedMaxConnections ? { embeddedMaxConnections: opts.embeddedMaxConnections } : {}),
  });
}

/** A connection string other processes can use to reach a test database's embedded server. */
export function socketUrl(db: Database): string {
  return `postgres://postgres@localhost/postgres?host=${encodeURIComponent(db.embedded!.socketDir)}`;
}
