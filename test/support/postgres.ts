// The test suite on a real PostgreSQL with pgvector: when TEST_DATABASE_URL names a server, every test database is a
// fresh copy of a migrated template database there (CREATE DATABASE … TEMPLATE, a fraction of a second), dropped when
// the test closes it. Unset, tests use the embedded database (test/support/database.ts).
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/database.js';

/** A server URL whose database the test user can connect to, and that user may create databases (see docs/testing.md). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || null;

export interface PostgresTestDatabase {
  /** The connection string of this test's own database. */
  url: string;
  drop(): Promise<void>;
}

function urlFor(server: string, database: string): string {
  const url = new URL(server);
  url.pathname = `/${database}`;
  return url.toString();
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function withAdmin<T>(server: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function exists(client: pg.Client, name: string): Promise<boolean> {
  const r = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  return r.rowCount === 1;
}

const templates = new Map<string, Promise<string>>();

/**
 * The migrated template, named after the migrations' checksums, so a changed migration makes a new one. Built once per
 * server: several test processes may race to build it, each in a database of its own renamed into place when done.
 */
function migratedTemplate(server: string): Promise<string> {
  const known = templates.get(server);
  if (known) return known;
  const template = (async () => {
    const migrations = await readMigrations();
    const hash = createHash('sha256').update(migrations.map((m) => m.checksum).join(',')).digest('hex').slice(0, 16);
    const name = `tm_template_${hash}`;
    if (await withAdmin(server, (c) => exists(c, name))) return name;
    const building = `${name}_${process.pid}_${randomBytes(3).toString('hex')}`;
    await withAdmin(server, (c) => c.query(`CREATE DATABASE ${quoted(building)}`));
    const db = await openDatabase({ databaseUrl: urlFor(server, building), dataDir: 'unused', poolMax: 2 });
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
    await withAdmin(server, async (c) => {
      try {
        await c.query(`ALTER DATABASE ${quoted(building)} RENAME TO ${quoted(name)}`);
      } catch (err) {
        // Another process renamed its copy first: use that one.
        if ((err as { code?: string }).code !== '42P04') throw err;
        await c.query(`DROP DATABASE IF EXISTS ${quoted(building)}`);
      }
    });
    return name;
  })();
  templates.set(server, template);
  template.catch(() => templates.delete(server));
  return template;
}

let made = 0;

/** A fresh, migrated, empty database on the TEST_DATABASE_URL server; `{ migrated: false }`: not even migrated. */
export function createPostgresTestDatabase(opts: { migrated?: boolean } = {}): Promise<PostgresTestDatabase> {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
  return createPostgresDatabase(TEST_DATABASE_URL, opts);
}

/** A fresh database on `server` (a connection string), a copy of the migrated template unless `migrated: false`. */
export async function createPostgresDatabase(server: string, opts: { migrated?: boolean; prefix?: string } = {}): Promise<PostgresTestDatabase> {
  const source = opts.migrated === false ? 'template1' : await migratedTemplate(server);
  const name = `${opts.prefix ?? 'tm_test'}_${process.pid}_${++made}_${randomBytes(3).toString('hex')}`;
  await withAdmin(server, async (c) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await c.query(`CREATE DATABASE ${quoted(name)} TEMPLATE ${quoted(source)}`);
        return;
      } catch (err) {
        // "source database is being accessed by other users": a copy of it starting at the same moment.
        if ((err as { code?: string }).code !== '55006' || attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  });
  let dropped = false;
  return {
    url: urlFor(server, name),
    async drop() {
      if (dropped) return;
      dropped = true;
      await withAdmin(server, (c) => c.query(`DROP DATABASE IF EXISTS ${quoted(name)} WITH (FORCE)`));
    },
  };
}
