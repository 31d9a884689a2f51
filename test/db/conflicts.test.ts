// Work the server rolls back for a conflict with concurrent work (a deadlock, 40P01; a serialization failure, 40001)
// is done again from its start, and only a conflict on every attempt is a fault: a named 503, never a 500 or a run's
// failed attempt. The first tests raise the server's answer as PostgreSQL sends it, so they hold on either database;
// the last makes two transactions really deadlock, which only a server that runs them at once can.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CONFLICT_ATTEMPTS, type Database } from '../../src/db/database.js';
import { DatabaseFaultError } from '../../src/errors.js';
import { createTestDatabase } from '../support/database.js';
import { TEST_DATABASE_URL } from '../support/postgres.js';
import { waitFor } from '../support/runtime.js';

let db: Database;
before(async () => {
  db = await createTestDatabase();
  // Raises `code` while the sequence's next value is at most n: nextval is not rolled back, so it counts attempts.
  await db.query(`CREATE FUNCTION conflict_first(seq regclass, n int, code text) RETURNS bigint LANGUAGE plpgsql AS $$
    BEGIN
      IF nextval(seq) <= n THEN RAISE EXCEPTION 'deadlock detected' USING ERRCODE = code; END IF;
      RETURN currval(seq);
    END $$`);
  await db.query('CREATE TABLE written (note text NOT NULL)');
});
after(() => db.close());

async function sequence(name: string): Promise<string> {
  await db.query(`CREATE SEQUENCE ${name}`);
  return name;
}

test('a statement rolled back for a deadlock or a serialization failure is sent again until it passes', async () => {
  for (const code of ['40P01', '40001']) {
    const seq = await sequence(`statement_${code}`);
    const r = await db.query<{ attempt: number }>('SELECT conflict_first($1, 2, $2) AS attempt', [seq, code]);
    assert.equal(r.rows[0]!.attempt, 3, `${code}: the third attempt answered`);
  }
});

test('a transaction rolled back for a conflict runs again from its start, and only its last attempt is kept', async () => {
  const seq = await sequence('transaction_40P01');
  let runs = 0;
  const answer = await db.withTransaction(async (tx) => {
    runs++;
    await tx.query("INSERT INTO written (note) VALUES ('once')");
    return (await tx.query<{ attempt: number }>('SELECT conflict_first($1, 2, $2) AS attempt', [seq, '40P01'])).rows[0]!.attempt;
  });
  assert.equal(answer, 3);
  assert.equal(runs, 3, 'the function ran once per attempt');
  assert.deepEqual((await db.query('SELECT note FROM written')).rows, [{ note: 'once' }], 'the rolled-back attempts wrote nothing');
});

test('a conflict on every attempt is a named 503 database_conflict, after a bounded number of attempts', async () => {
  const seq = await sequence('always');
  let runs = 0;
  const err = await db
    .withTransaction(async (tx) => {
      runs++;
      await tx.query('SELECT conflict_first($1, 1000, $2)', [seq, '40P01']);
    })
    .catch((e: unknown) => e);
  assert.ok(err instanceof DatabaseFaultError, `a named fault, not ${String(err)}`);
  assert.equal(err.fault, 'database_conflict');
  assert.equal(err.status, 503);
  assert.equal(err.name, 'DatabaseConflictError');
  assert.doesNotMatch(err.message, /deadlock detected|conflict_first/, 'the message is ours; the driver error is the cause');
  assert.equal(runs, CONFLICT_ATTEMPTS);
  const single = await db.query('SELECT conflict_first($1, 1000, $2)', [seq, '40001']).catch((e: unknown) => e);
  assert.ok(single instanceof DatabaseFaultError && single.fault === 'database_conflict');
  // A constraint violation is not a conflict to retry: it is the caller's, at once.
  const runsBefore = runs;
  const unique = await db
    .withTransaction(async (tx) => {
      runs++;
      await tx.query('SELECT conflict_first($1, 1000, $2)', [seq, '23505']);
    })
    .catch((e: unknown) => e);
  assert.ok(!(unique instanceof DatabaseFaultError));
  assert.equal(runs, runsBefore + 1);
});

const skip = TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set: the embedded database runs one transaction at a time and cannot deadlock';

test('two transactions that lock two rows in opposite orders: the server aborts one, and both end done', { skip }, async () => {
  await db.query('CREATE TABLE pair (id int PRIMARY KEY, n int NOT NULL)');
  await db.query('INSERT INTO pair VALUES (1, 0), (2, 0)');
  let firstRuns = 0;
  let secondRuns = 0;
  let holdsTwo!: () => void;
  const twoHeld = new Promise<void>((resolve) => (holdsTwo = resolve));
  const first = db.withTransaction(async (tx) => {
    firstRuns++;
    await tx.query('UPDATE pair SET n = n + 1 WHERE id = 2');
    if (firstRuns === 1) {
      holdsTwo();
      // The second transaction holds row 1 and waits for row 2: asking for row 1 now closes the circle.
      await waitFor(async () => (await waiting()) >= 1 || null, 10_000, 'the second transaction waiting for row 2');
    }
    await tx.query('UPDATE pair SET n = n + 1 WHERE id = 1');
  });
  await twoHeld;
  // One statement that locks row 1 and then row 2 (a sequential scan of a new table meets them in that order).
  const second = db.withTransaction(async (tx) => {
    secondRuns++;
    await tx.query('UPDATE pair SET n = n + 10 WHERE id IN (1, 2)');
  });
  await Promise.all([first, second]);
  assert.equal(firstRuns + secondRuns, 3, 'one of them was aborted for the deadlock and ran again');
  assert.deepEqual((await db.query('SELECT id, n FROM pair ORDER BY id')).rows, [
    { id: 1, n: 11 },
    { id: 2, n: 11 },
  ]);
});

/** Backends of this database waiting for a lock. */
async function waiting(): Promise<number> {
  const r = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
  );
  return r.rows[0]!.n;
}
