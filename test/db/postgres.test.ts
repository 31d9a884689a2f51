// What only a real PostgreSQL server can show: run with TEST_DATABASE_URL (npm run test:postgres); skipped without it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate, MigrationError, readMigrations } from '../../src/db/migrate.js';
import { DatabaseFaultError } from '../../src/errors.js';
import { createTestDatabase, connectionUrl } from '../support/database.js';
import { createPostgresTestDatabase, TEST_DATABASE_URL } from '../support/postgres.js';

const skip = TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set (npm run test:postgres sets up a server)';

async function open(url: string, opts: { statementTimeoutMs?: number; lockTimeoutMs?: number } = {}): Promise<Database> {
  return openDatabase({ databaseUrl: url, dataDir: 'unused', poolMax: 2, ...opts });
}

test('the suite\'s databases are fresh databases on that server, with pgvector, dropped when closed', { skip }, async () => {
  const db = await createTestDatabase();
  let name: string;
  try {
    assert.equal(db.kind, 'postgres');
    const row = (await db.query<{ name: string; vector: string; version: string }>(
      "SELECT current_database() AS name, (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS vector, version() AS version",
    )).rows[0]!;
    name = row.name;
    assert.match(row.version, /^PostgreSQL \d+/);
    assert.ok(row.vector, 'pgvector is installed in the test database');
    assert.equal((await db.query('SELECT 1 FROM candidates')).rowCount, 0, 'migrated and empty');
  } finally {
    await db.close();
  }
  const admin = await open(TEST_DATABASE_URL!);
  try {
    assert.equal((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount, 0, 'dropped');
  } finally {
    await admin.close();
  }
});

test('concurrent boots on PostgreSQL apply every migration exactly once', { skip }, async () => {
  const made = await createPostgresTestDatabase({ migrated: false });
  const pools = await Promise.all([1, 2, 3].map(() => open(made.url)));
  try {
    const applied = await Promise.all(pools.map((db) => migrate(db)));
    const expected = (await readMigrations()).map((m) => m.name);
    assert.deepEqual(applied.flat().sort(), expected.sort(), 'each migration applied by exactly one pool');
    assert.deepEqual(await migrate(pools[0]!), [], 'a later boot applies nothing');
  } finally {
    await Promise.all(pools.map((db) => db.close()));
    await made.drop();
  }
});

test('a role that may not create the vector extension stops the migration with what to run, and migrates once it exists', { skip }, async () => {
  // A production role owns its database but is no superuser; pgvector is not a trusted extension, so CREATE EXTENSION
  // needs one. The boot stopped with the driver's stack trace and nothing to do about it.
  const made = await createPostgresTestDatabase({ migrated: false });
  const database = new URL(made.url).pathname.slice(1);
  const role = `tm_app_${process.pid}_${randomBytes(3).toString('hex')}`;
  const server = await open(TEST_DATABASE_URL!);
  await server.query(`CREATE ROLE ${role} LOGIN NOSUPERUSER`);
  await server.query(`ALTER DATABASE "${database}" OWNER TO ${role}`);
  const url = new URL(made.url);
  url.username = role;
  url.password = '';
  const app = await open(url.toString());
  try {
    await assert.rejects(migrate(app), (err) => {
      assert.ok(err instanceof MigrationError, String(err));
      assert.match(err.message, /may not create the vector extension/);
      assert.ok(err.message.includes(`CREATE EXTENSION vector; in database "${database}"`), err.message);
      return true;
    });
    const table = await app.query<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t");
    assert.equal(table.rows[0]!.t, null, 'nothing of the failed migration was kept');
    const superuser = await open(made.url);
    await superuser.query('CREATE EXTENSION vector').finally(() => superuser.close());
    const applied = await migrate(app);
    assert.deepEqual(applied, (await readMigrations()).map((m) => m.name), 'the role migrates once the extension exists');
  } finally {
    await app.close();
    await made.drop();
    await server.query(`DROP ROLE ${role}`).finally(() => server.close());
  }
});

test('DB_STATEMENT_TIMEOUT_MS: the server cancels a longer statement, a named timeout, and the pool goes on', { skip }, async () => {
  const db = await createTestDatabase();
  const limited = await open(connectionUrl(db), { statementTimeoutMs: 200 });
  try {
    const started = Date.now();
    await assert.rejects(limited.query('SELECT pg_sleep(5)'), (err) => err instanceof DatabaseFaultError && err.fault === 'database_timeout');
    assert.ok(Date.now() - started < 4_000, 'cancelled by the server, not waited out');
    assert.equal((await limited.query<{ n: number }>('SELECT 1 AS n')).rows[0]!.n, 1);
    // A maintenance transaction (a migration, an index build) has no timeout.
    await limited.withTransaction((tx) => tx.query('SELECT pg_sleep(0.4)'), { maintenance: true });
  } finally {
    await limited.close();
    await db.close();
  }
});

test('DB_LOCK_TIMEOUT_MS: a statement waiting longer for a row lock is cancelled, a named timeout, and rolls back', { skip }, async () => {
  const db = await createTestDatabase();
  const limited = await open(connectionUrl(db), { lockTimeoutMs: 200 });
  try {
    await db.query("INSERT INTO organisations (name) VALUES ('locked')");
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = db.withTransaction(async (tx) => {
      await tx.query("SELECT 1 FROM organisations WHERE name = 'locked' FOR UPDATE");
      locked();
      await held;
    });
    await isLocked;
    // Without a lock timeout the update would wait for the holder: let it go after 3 s so the test fails, not hangs.
    setTimeout(() => release(), 3_000).unref();
    await assert.rejects(
      limited.withTransaction((tx) => tx.query("UPDATE organisations SET name = 'renamed' WHERE name = 'locked'")),
      (err) => err instanceof DatabaseFaultError && err.fault === 'database_timeout',
    );
    release();
    await holder;
    assert.equal((await db.query("SELECT 1 FROM organisations WHERE name = 'locked'")).rowCount, 1, 'nothing of it was kept');
  } finally {
    await limited.close();
    await db.close();
  }
});
