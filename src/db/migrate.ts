// Applies migrations/NNN_name.sql in order, each in its own transaction, recorded in schema_migrations.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sqlState, type Database, type Queryable } from './database.js';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));
// Any constant works; it only has to be the same in every process that migrates.
const MIGRATION_LOCK = 7_242_411;

/**
 * Texts a migration had when some commits applied it, before it was edited (a mistake not to repeat: add a migration
 * instead; test/db/migrate.test.ts pins every text). A database that recorded one of them is accepted, and migration
 * 017 brings its schema to what the present texts give.
 */
const SUPERSEDED: Readonly<Record<number, readonly string[]>> = {
  10: ['7da48ee679a29ea04b5d2773c9ce247fcc0cbc29adb7c01bc6f7aedad2464e36'],
  15: ['f0d0d7093d2ad356c345c7df8b58a57789932a9c3c03c905310b8252c3fb4ae9'],
};

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d+_.+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (file) => {
      const sql = await readFile(path.join(dir, file), 'utf8');
      return {
        version: Number.parseInt(file, 10),
        name: file.replace(/\.sql$/, ''),
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      };
    }),
  );
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** Safe when several processes boot at once: each migration takes a transaction-scoped advisory lock. */
export async function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const database = await assertPgvectorAvailable(db);
  const applied: string[] = [];
  for (const m of await readMigrations(dir)) {
    const didApply = await db.withTransaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await ensureMigrationsTable(tx);
      const done = await tx.query<{ checksum: string }>('SELECT checksum FROM schema_migrations WHERE version = $1', [m.version]);
      if (done.rows[0]) {
        const recorded = done.rows[0].checksum;
        if (recorded !== m.checksum && !SUPERSEDED[m.version]?.includes(recorded)) {
          throw new MigrationError(`migration ${m.name} was edited after it was applied; add a new migration instead`);
        }
        return false;
      }
      await tx.query(m.sql).catch((err: unknown) => {
        throw refusedPrivilege(err, m, database) ?? err;
      });
      await tx.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [m.version, m.name, m.checksum]);
      return true;
    }, { maintenance: true });
    if (didApply) applied.push(m.name);
  }
  return applied;
}

async function ensureMigrationsTable(tx: Queryable): Promise<void> {
  await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now())`);
}

/** How many migrations the database records as applied (0 before the first): /readyz compares it with the release's. */
export async function appliedMigrationCount(db: Queryable): Promise<number> {
  const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations').catch((err: unknown) => {
    // 42P01: no schema_migrations table yet. A fault (the database away, the pool full) is the caller's to name.
    if (sqlState(err) === '42P01') return { rows: [{ n: 0 }] };
    throw err;
  });
  return r.rows[0]?.n ?? 0;
}

/** True when every migration in dir is recorded as applied. */
export async function migrationsApplied(db: Queryable, expected: number): Promise<boolean> {
  return (await appliedMigrationCount(db).catch(() => 0)) >= expected;
}

// SQLSTATE 42501: the role may not do what the migration does.
const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * A migration the role of DATABASE_URL may not apply, as what to do about it. pgvector is not a trusted extension:
 * CREATE EXTENSION vector needs a superuser (or a managed service's admin role), which a production role seldom is.
 */
function refusedPrivilege(err: unknown, m: Migration, database: string): MigrationError | undefined {
  if (sqlState(err) !== INSUFFICIENT_PRIVILEGE) return undefined;
  const why = err instanceof Error ? err.message : String(err);
  const quoted = `"${database.replaceAll('"', '""')}"`;
  if (/extension "vector"/.test(why)) {
    return new MigrationError(
      `migration ${m.name}: ${why}: the role DATABASE_URL names may not create the vector extension. Have a superuser ` +
        `run CREATE EXTENSION vector; in database ${quoted} once, then start again (docs/operations.md, Scaling out).`,
    );
  }
  return new MigrationError(
    `migration ${m.name}: ${why}: the role DATABASE_URL names must own database ${quoted}, or may create in its schema, ` +
      'to apply migrations (docs/operations.md, Scaling out).',
  );
}

/** Stops before any migration on a server without pgvector; the current database's name otherwise. */
async function assertPgvectorAvailable(db: Database): Promise<string> {
  const r = await db.query<{ n: number; database: string }>(
    "SELECT (SELECT count(*)::int FROM pg_available_extensions WHERE name = 'vector') AS n, current_database() AS database",
  );
  if ((r.rows[0]?.n ?? 0) === 0) {
    throw new MigrationError(
      'the PostgreSQL server at DATABASE_URL has no pgvector extension. Install it ' +
        '(Debian/Ubuntu: apt-get install postgresql-<major>-pgvector; Docker: use the pgvector/pgvector image; ' +
        'see https://github.com/pgvector/pgvector#installation), or unset DATABASE_URL to use the embedded database.',
    );
  }
  return r.rows[0]!.database;
}
