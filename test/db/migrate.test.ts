import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.js';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import { connectionUrl } from '../support/database.js';

test('concurrent boots apply every migration exactly once', async () => {
  // One embedded server, several independent pools reaching it over the wire, as separate processes would.
  const server = await openDatabase({ dataDir: 'memory://', poolMax: 2 });
  const url = connectionUrl(server);
  const clients = await Promise.all([1, 2, 3].map(() => openDatabase({ databaseUrl: url, dataDir: 'unused', poolMax: 2 })));
  try {
    const applied = await Promise.all(clients.map((db) => migrate(db)));
    const expected = (await readMigrations()).map((m) => m.name);
    assert.deepEqual(applied.flat().sort(), expected.sort(), 'each migration applied by exactly one process');
    const rows = await server.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    assert.equal(rows.rows.length, expected.length);
    assert.deepEqual(await migrate(server), [], 'a later boot applies nothing');
  } finally {
    await Promise.all(clients.map((db) => db.close()));
    await server.close();
  }
});

test('an edited applied migration stops the boot', async () => {
  const db = await openDatabase({ dataDir: 'memory://', poolMax: 2 });
  try {
    await migrate(db);
    await db.query("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1");
    await assert.rejects(migrate(db), /edited after it was applied/);
  } finally {
    await db.close();
  }
});

test('a PostgreSQL without pgvector stops the boot with how to install it, before any migration', async () => {
  // A server whose catalogue has no vector extension; a transaction (a migration) must not even be begun.
  const statements: string[] = [];
  const bare = {
    query: async (text: string) => (statements.push(text), { rows: [{ n: 0 }], rowCount: 1 }),
    withTransaction: async () => assert.fail('a migration was begun on a server without pgvector'),
  } as unknown as Parameters<typeof migrate>[0];
  await assert.rejects(migrate(bare), /has no pgvector extension\. Install it \(Debian\/Ubuntu: apt-get install postgresql-<major>-pgvector; Docker: use the pgvector\/pgvector image/);
  assert.ok(statements.length > 0 && statements.every((q) => /pg_available_extensions/.test(q)), statements.join('\n'));
});
