import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../src/db/database.js';
import { migrate, MIGRATIONS_DIR, readMigrations } from '../../src/db/migrate.js';
import { connectionUrl } from '../support/database.js';

// Every migration's text, as deployed databases record it: a migration is never edited once committed (a database
// that applied it refuses to start), a new one is added instead. Add a line for each new migration.
const PINNED: Record<string, string> = {
  '001_init': '11e8b3bb3a3fa8caa2154d05607b44de33784d96aafed3846773d741323f2189',
  '002_millisecond_timestamps': '2a7c58774a979ec8f4aadf8e10945b2bc8ea85aaa59bda20c1c0d8841ba33613',
  '003_trace_candidate_ids': '25220732698dced939efdb5638fe656d505893b48967c036f1f5d24088a7f8f0',
  '004_scrubbed_headline': '758e6bb6466a6c301f803021440d3eaca1f86a2ab211a429af97249a88406753',
  '005_checkpoint_json': '6350b1b2ba8a83e2d26fc15f6c8e26ff1f754284eb72d1310281adbbd2dd7e69',
  '006_embedding_storage_plain': '06242ae2b7ffe203d2d0c1c62d636a53d109fe71d907a646790fe53f9d3f142a',
  '007_search_tsv_storage_main': 'c1663bc75b872f47d0b81ea2e1141797c1a3496ec2a10b240fd49c8d36edb64f',
  '008_checkpoint_storage_external': '089a7b605dab3369af6b0adf1b8c122299027edf7d7952f42789103c474dafac',
  '009_model_calls_tokens_estimated': 'f77faced1f098f93b32c9a9ef6e3a89153368520b0f307ee4347f6a4dadd2b41',
  '010_scrubbed_location_skills': 'bb2d5e40a2bee9a7e91bb64e3e18df3558603e07db96d585c29002a8bb6ab346',
  '011_cost_usd_full_precision': '490bd059adc445b0914b35ec0b6a8a8492c8a65d321330518154285fb8fdf4d2',
  '012_model_calls_entry_id': 'a807c2a66e639aa479f383ff335b3b04df83f85401692046a3cdd26ae7b228f4',
  '013_organisation_erasures': 'd9e1f235e97e06d6067101f77fb76270646025dedb945d75ae43d4ae05d244b8',
  '014_run_last_write': 'b2e1f2872579a966b3b80de69baa5e1a8980ad03d0158d73a9a712f420947e45',
  '015_run_trace_entry_id': '18ac87b66c3c3b783230821b520d8112d1a06a067a8d29804592f745a0134638',
  '016_finished_run_checkpoint': 'fc0e3d629d59e1518f2fa9c53277fcbc4505a544780caa07b48e99eeb2f510f1',
  '017_converge_edited_migrations': '187185235907bc1f9cb932ab03f369f857b95594b5b2afece6fa741ec8df51d0',
  '018_organisation_last_claim': 'b7f244656285ae2e1f43ef2386d127e878d5c38ef17a4e987b24c36d37225d6d',
  '019_run_list_by_status': '4314b52fd9023d56422cbfbbb8fa708d46203955fc869695d8f0da91760e8178',
  '020_candidates_stale_scrub': '9bb7aeb33f3b448a8a67fbc29d3cf0ee5ddd3104ffb828b734c72bcf206377be',
};

test('no migration is edited once committed: each text is the one pinned', async () => {
  const migrations = await readMigrations();
  assert.deepEqual(
    Object.fromEntries(migrations.map((m) => [m.name, m.checksum])),
    PINNED,
    'a migration was edited (add a new one instead), or a new one is not pinned here yet',
  );
});

test("a database migrated with 010's and 015's first texts starts, and ends with the present texts' schema", async () => {
  // The texts those migrations had before they were edited, as some commits applied them.
  const superseded = fileURLToPath(new URL('./superseded-migrations/', import.meta.url));
  const old = mkdtempSync(path.join(tmpdir(), 'tm-old-migrations-'));
  const db = await openDatabase({ dataDir: 'memory://', poolMax: 2 });
  try {
    for (const file of readdirSync(MIGRATIONS_DIR).filter((f) => /^0(0\d|1[0-5])_/.test(f))) copyFileSync(path.join(MIGRATIONS_DIR, file), path.join(old, file));
    for (const file of readdirSync(superseded)) copyFileSync(path.join(superseded, file), path.join(old, file));
    await migrate(db, old);
    assert.equal((await db.query("SELECT 1 FROM pg_indexes WHERE indexname = 'run_trace_entry_id'")).rowCount, 1, 'the first 015 built the index');
    assert.deepEqual(await migrate(db), ['016_finished_run_checkpoint', '017_converge_edited_migrations', '018_organisation_last_claim', '019_run_list_by_status', '020_candidates_stale_scrub']);
    assert.equal((await db.query("SELECT 1 FROM pg_indexes WHERE indexname = 'run_trace_entry_id'")).rowCount, 0);
    assert.equal((await db.query("SELECT 1 FROM information_schema.columns WHERE table_name = 'candidates' AND column_name = 'scrubbed_from_hash'")).rowCount, 1);
  } finally {
    await db.close();
    rmSync(old, { recursive: true, force: true });
  }
});

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
