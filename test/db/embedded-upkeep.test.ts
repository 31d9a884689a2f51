import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { openDatabase, type Database, type Queryable } from '../../src/db/database.js';
import { checkpointIfWalExceeds, keepEmbeddedUp, vacuumWhereDead, WAL_CHECKPOINT_BYTES } from '../../src/db/embedded-upkeep.js';
import { migratedDump } from '../support/database.js';

// The embedded database always: the upkeep is the embedded database's (a server checkpoints and vacuums by itself). Its
// own upkeep looks only when a test asks (a look of its own between two statements of a test would change what it reads).
async function embedded(opts: { upkeepIntervalMs?: number } = { upkeepIntervalMs: 3_600_000 }): Promise<Database> {
  return openDatabase({ dataDir: 'memory://', poolMax: 2, loadDataDir: await migratedDump(), ...opts });
}

const SEGMENT = 16 * 1024 * 1024;

const sinceCheckpoint = async (db: Database) =>
  (await db.query<{ bytes: number }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::bigint AS bytes FROM pg_control_checkpoint()')).rows[0]!.bytes;
const walFiles = async (db: Database) =>
  (await db.query<{ n: number; bytes: number }>('SELECT count(*)::int AS n, coalesce(sum(size), 0)::bigint AS bytes FROM pg_ls_waldir()')).rows[0]!;

/** Writes `segments` segments' worth of log: each switch ends the current segment, and a row starts the next. */
async function writeLog(db: Database, segments: number): Promise<void> {
  await db.query('CREATE TABLE IF NOT EXISTS wal_filler (v int)');
  for (let i = 0; i < segments; i++) {
    await db.query('SELECT pg_switch_wal()');
    await db.query('INSERT INTO wal_filler VALUES ($1)', [i]);
  }
}

test('a checkpoint is asked for only once two segments of log were written since the last one, and leaves at most max_wal_size of segments', async () => {
  const db = await embedded();
  try {
    await db.query('CHECKPOINT');
    await db.query('CREATE TABLE little (v int)');
    await db.query('INSERT INTO little SELECT generate_series(1, 1000)');
    assert.ok((await sinceCheckpoint(db)) < WAL_CHECKPOINT_BYTES);
    assert.equal(await checkpointIfWalExceeds(db), false);
    assert.ok((await sinceCheckpoint(db)) > 0, 'no checkpoint was made below the threshold');

    // A backlog, as a process that ran before the keeper existed, or between two looks at a bulk load, leaves.
    await writeLog(db, 10);
    assert.ok((await walFiles(db)).n >= 10);
    assert.ok((await sinceCheckpoint(db)) >= WAL_CHECKPOINT_BYTES);
    assert.equal(await checkpointIfWalExceeds(db), true);
    assert.ok((await sinceCheckpoint(db)) < SEGMENT, 'the checkpoint moved the redo point to the current segment');
    // PostgreSQL keeps up to max_wal_size of passed segments for recycling (1 GB by default: all ten would stay).
    const files = await walFiles(db);
    assert.ok(files.bytes <= 64 * 1024 * 1024, `pg_wal holds ${files.n} segments (${files.bytes} bytes)`);
  } finally {
    await db.close();
  }
});

test('the embedded database keeps its write-ahead log bounded while it runs: segments are recycled, not accumulated', async () => {
  const db = await embedded({ upkeepIntervalMs: 20 });
  try {
    // Without checkpoints every segment stays (PGlite's single-user backend makes none by itself): 12 segments
    // written would leave ~14 files. The keeper checkpoints behind the writes, and max_wal_size bounds what is kept.
    for (let round = 0; round < 4; round++) {
      await writeLog(db, 3);
      const deadline = Date.now() + 5_000;
      while ((await sinceCheckpoint(db)) >= WAL_CHECKPOINT_BYTES && Date.now() < deadline) await sleep(20);
      assert.ok((await sinceCheckpoint(db)) < WAL_CHECKPOINT_BYTES, `round ${round}: the keeper checkpointed`);
    }
    const files = await walFiles(db);
    assert.ok(files.bytes <= 64 * 1024 * 1024 + SEGMENT, `pg_wal holds ${files.n} segments (${files.bytes} bytes)`);
  } finally {
    await db.close();
  }
});

/** The statistics a single-user backend reports when idle, reported now (they feed vacuumWhereDead). */
async function flushStats(db: Database): Promise<void> {
  await db.query('SELECT pg_stat_force_next_flush()');
  await db.query('SELECT 1');
}

const tableBytes = async (db: Database, table: string) =>
  (await db.query<{ bytes: number }>('SELECT pg_total_relation_size($1::regclass)::bigint AS bytes', [table])).rows[0]!.bytes;

/** Rewrites every row's 40 KB TOASTed value, as a run's checkpoints rewrite its context: the old chunks die. */
async function rewrite(db: Database, round: number): Promise<void> {
  await db.query(`UPDATE contexts SET body = (SELECT string_agg(md5(($1::int * 1000 + g)::text || id), '') FROM generate_series(1, 1250) g)`, [round]);
}

test('tables whose dead rows or dead TOAST chunks passed the threshold are vacuumed, and their space is used again', async () => {
  const db = await embedded();
  try {
    await db.query('CREATE TABLE contexts (id int PRIMARY KEY, body text)');
    await db.query('ALTER TABLE contexts ALTER COLUMN body SET STORAGE EXTERNAL');
    await db.query('INSERT INTO contexts SELECT g, NULL FROM generate_series(1, 20) g');
    await rewrite(db, 0);
    await flushStats(db);
    const first = await tableBytes(db, 'contexts');
    for (let round = 1; round <= 6; round++) {
      await rewrite(db, round);
      await flushStats(db);
      assert.ok((await vacuumWhereDead(db)).includes('public.contexts'), `round ${round}: 20 rows of ~20 dead chunks each were vacuumed`);
    }
    // Without the vacuums every rewrite adds its 800 KB of chunks: seven times the first size.
    const last = await tableBytes(db, 'contexts');
    assert.ok(last < first * 2.5, `the table grew from ${first} to ${last} bytes`);

    // Below the threshold nothing is vacuumed: a few dead rows are not worth a pass.
    await db.query('UPDATE contexts SET body = body WHERE id <= 2');
    await flushStats(db);
    assert.deepEqual(await vacuumWhereDead(db), []);
  } finally {
    await db.close();
  }
});

test('stopping the upkeep during a vacuum waits for that one and starts no other: a shutdown is not held by the tables still due', async () => {
  // A database answering by hand: two tables due, the first vacuum answered only when the test says so.
  const sent: string[] = [];
  let answerFirst!: () => void;
  const firstAnswered = new Promise<void>((resolve) => (answerFirst = resolve));
  let firstSent!: () => void;
  const firstVacuum = new Promise<void>((resolve) => (firstSent = resolve));
  const db: Queryable = {
    async query<R>(text: string) {
      sent.push(text);
      if (text.includes('pg_control_checkpoint')) return { rows: [{ bytes: 0 }] as R[], rowCount: 1 };
      if (text.includes('pg_stat_all_tables')) return { rows: [{ name: 'public.a' }, { name: 'public.b' }] as R[], rowCount: 2 };
      if (text === 'VACUUM (ANALYZE) public.a') {
        firstSent();
        await firstAnswered;
      }
      return { rows: [], rowCount: 0 };
    },
  };
  const upkeep = keepEmbeddedUp(db, { intervalMs: 1 });
  // The upkeep's timer does not keep a process alive, and nothing else here may: without this the test's process can
  // end while it waits for that timer ("Promise resolution is still pending but the event loop has already resolved").
  const alive = setInterval(() => {}, 1000);
  await firstVacuum.finally(() => clearInterval(alive));
  const stopped = upkeep.stop();
  answerFirst();
  await stopped;
  assert.deepEqual(sent.filter((q) => q.startsWith('VACUUM')), ['VACUUM (ANALYZE) public.a']);
});

test('the upkeep reports a failed look, the look that works again, and the work it did: a failure is not swallowed', async () => {
  // A database that fails its first two looks (the disk full, say), then has a checkpoint and a table due.
  let looks = 0;
  const db: Queryable = {
    async query<R>(text: string) {
      if (text.includes('pg_control_checkpoint') && ++looks <= 2) throw new Error('could not write to file "pg_wal/xlogtemp": No space left on device');
      if (text.includes('pg_control_checkpoint')) return { rows: [{ bytes: WAL_CHECKPOINT_BYTES }] as R[], rowCount: 1 };
      if (text.includes('pg_stat_all_tables')) return { rows: (looks === 3 ? [{ name: 'public.matching_runs' }] : []) as R[], rowCount: 1 };
      return { rows: [], rowCount: 0 };
    },
  };
  const reports: unknown[] = [];
  const upkeep = keepEmbeddedUp(db, {
    intervalMs: 1,
    failed: (err) => reports.push(['failed', (err as Error).message]),
    succeeded: () => reports.push('succeeded'),
    did: (work) => reports.push(['did', work]),
  });
  while (looks < 4) await sleep(2);
  await upkeep.stop();
  assert.deepEqual(reports.slice(0, 5), [
    ['failed', 'could not write to file "pg_wal/xlogtemp": No space left on device'],
    ['failed', 'could not write to file "pg_wal/xlogtemp": No space left on device'],
    ['did', { checkpoint: true, vacuumed: ['public.matching_runs'] }],
    'succeeded',
    ['did', { checkpoint: true, vacuumed: [] }],
  ]);
});

test('a table with an HNSW index is left alone: vacuuming it would hold the database for seconds to minutes', async () => {
  const db = await embedded();
  try {
    await db.query('CREATE TABLE vecs (id int PRIMARY KEY, v vector(3))');
    await db.query('CREATE INDEX vecs_hnsw ON vecs USING hnsw (v vector_l2_ops)');
    await db.query('INSERT INTO vecs SELECT g, ARRAY[g, 1, 1]::vector FROM generate_series(1, 200) g');
    await db.query('UPDATE vecs SET v = ARRAY[id, 2, 2]::vector');
    await db.query('CREATE TABLE plain (id int PRIMARY KEY, n int)');
    await db.query('INSERT INTO plain SELECT g, 0 FROM generate_series(1, 200) g');
    await db.query('UPDATE plain SET n = 1');
    await flushStats(db);
    // Both passed the threshold; only the one without an HNSW index is vacuumed.
    assert.deepEqual(await vacuumWhereDead(db), ['public.plain']);
  } finally {
    await db.close();
  }
});
