// The database misbehaving under the pool: every fault is a named DatabaseFaultError, a connection lost under a
// transaction does not end the process, and the pool serves again once the database is back.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { databaseOutage, openDatabase, unappliedOutage, type Database } from '../../src/db/database.js';
import { DatabaseFaultError } from '../../src/errors.js';
import { createTestDatabase } from '../support/database.js';
import { startRestartableDatabase, type RestartableDatabase } from '../support/restartable-database.js';

let server: RestartableDatabase;
before(async () => {
  server = await startRestartableDatabase();
});
after(async () => {
  await server.close();
});

function open(opts: { statementTimeoutMs?: number; lockTimeoutMs?: number; withoutTimeouts?: boolean; onIdleError?: (err: Error) => void } = {}): Promise<Database> {
  return openDatabase({ databaseUrl: server.url, dataDir: 'unused', poolMax: 3, connectionTimeoutMs: 2000, ...opts });
}

async function rejectsWith(p: Promise<unknown>, fault: string): Promise<DatabaseFaultError> {
  const err = await p.then(
    () => assert.fail(`expected ${fault}`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof DatabaseFaultError, `a named fault, not ${String(err)}`);
  assert.equal(err.fault, fault);
  assert.equal(err.status, 503);
  return err;
}

test('the server going away: a transaction in flight fails named, the process lives, idle connections are reported, and the pool recovers', async () => {
  const idleErrors: Error[] = [];
  const db = await open({ onIdleError: (err) => idleErrors.push(err) });
  const uncaught: Error[] = [];
  const onUncaught = (err: Error) => uncaught.push(err);
  // node:test reports an uncaught exception as the test's failure; counted here too, to say which it was.
  process.on('uncaughtException', onUncaught);
  try {
    // Two idle connections in the pool, and one checked out by a transaction that is between two statements.
    await Promise.all([db.query('SELECT 1'), db.query('SELECT 2')]);
    let inside!: () => void;
    const between = new Promise<void>((resolve) => (inside = resolve));
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    const tx = db.withTransaction(async (t) => {
      await t.query('SELECT 1');
      inside();
      await resumed;
      await t.query('SELECT 2');
    });
    await between;
    await server.stop();
    // The connection's end reaches the client while no statement of it is running.
    await new Promise((r) => setTimeout(r, 100));
    resume();
    await rejectsWith(tx, 'database_unavailable');
    await rejectsWith(db.query('SELECT 1'), 'database_unavailable');
    await rejectsWith(db.withTransaction(async (t) => t.query('SELECT 1')), 'database_unavailable');
    assert.deepEqual(uncaught, []);
    assert.ok(idleErrors.length >= 1, 'the idle connections lost are reported');

    await server.start();
    assert.deepEqual((await db.query<{ x: number }>('SELECT 1 AS x')).rows, [{ x: 1 }]);
    assert.equal(await db.withTransaction(async (t) => (await t.query<{ x: number }>('SELECT 2 AS x')).rows[0]!.x), 2);
  } finally {
    process.off('uncaughtException', onUncaught);
    await db.close();
  }
});

test('a statement the server had read when it went away may have been applied; one that found no server was never sent', async () => {
  const db = await open();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let began!: () => void;
  const inside = new Promise<void>((resolve) => (began = resolve));
  try {
    // The server runs one transaction at a time: a statement sent while another connection's is open waits in its queue.
    const tx = db.withTransaction(async (t) => {
      await t.query('SELECT 1');
      began();
      await held;
    });
    tx.catch(() => {});
    await inside;
    const queued = db.query('SELECT 1');
    queued.catch(() => {});
    // The statement reaches the server, which is then stopped before it answers.
    await new Promise((r) => setTimeout(r, 100));
    await server.stop();
    // Its answer was lost, not refused: it may have committed (a run's write is then not sent again).
    const lost = await rejectsWith(queued, 'database_unavailable');
    assert.equal(unappliedOutage(lost), false, String(lost.cause));
    // Nothing to connect to: sending it again is safe (src/runs/while-leased.ts).
    assert.ok(unappliedOutage(await rejectsWith(db.query('SELECT 1'), 'database_unavailable')));
    assert.ok(unappliedOutage(await rejectsWith(db.withTransaction(async (t) => t.query('SELECT 1')), 'database_unavailable')));
  } finally {
    release();
    await server.start();
    await db.close();
  }
});

test('a server that answers read-only (a failover left the connection on a standby) is away; out of disk or memory for one statement is named, and no outage', async () => {
  const db = await open();
  try {
    for (const code of ['53100', '53200']) {
      // Named for a client, as no outage: a run does not wait it out, nor send it again.
      const err = await rejectsWith(db.query(`DO $$ BEGIN RAISE EXCEPTION 'fault' USING ERRCODE = '${code}'; END $$`), 'database_out_of_resources');
      assert.equal(databaseOutage(err), false, `${code}: a statement out of disk or memory is not an outage waited out`);
      assert.equal(unappliedOutage(err), false);
    }
    for (const code of ['25006']) {
      const err = await rejectsWith(db.query(`DO $$ BEGIN RAISE EXCEPTION 'fault' USING ERRCODE = '${code}'; END $$`), 'database_unavailable');
      assert.equal(unappliedOutage(err), true, `${code}: the server refused the statement, so it may be sent again`);
    }
    assert.equal((await db.query<{ n: number }>('SELECT 1 AS n')).rows[0]!.n, 1, 'the pool serves on');
  } finally {
    await db.close();
  }
});

test('a statement the server cancels (statement_timeout, lock_timeout) is a database_timeout, and the connection serves on', async () => {
  const db = await open();
  try {
    // PGlite cannot time a statement out (see below): the server's answer to one is raised as PostgreSQL sends it.
    await db.query(`CREATE OR REPLACE FUNCTION raise_sqlstate(code text) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'canceling statement due to statement timeout' USING ERRCODE = code; END $$`);
    const timedOut = await rejectsWith(db.query("SELECT raise_sqlstate('57014')"), 'database_timeout');
    assert.equal(unappliedOutage(timedOut), false, 'no outage: a run’s attempt fails on it, as before');
    assert.equal(timedOut.name, 'DatabaseTimeoutError');
    assert.doesNotMatch(timedOut.message, /canceling|SELECT|raise_sqlstate/, 'the message is ours; the driver error is the cause');
    await rejectsWith(db.query("SELECT raise_sqlstate('55P03')"), 'database_timeout');
    await rejectsWith(db.withTransaction(async (t) => t.query("SELECT raise_sqlstate('57014')")), 'database_timeout');
    // Rolled back and reused, not closed.
    assert.equal(await db.withTransaction(async (t) => (await t.query<{ x: number }>('SELECT 3 AS x')).rows[0]!.x), 3);
    // A constraint or a bad value stays the driver's error: it is the caller's to name.
    const other = await db.query("SELECT raise_sqlstate('23505')").catch((e: unknown) => e);
    assert.ok(!(other instanceof DatabaseFaultError));
  } finally {
    await db.close();
  }
});

test('PostgreSQL connections carry the statement and lock timeouts; a maintenance transaction has none', async () => {
  const db = await open({ statementTimeoutMs: 1234, lockTimeoutMs: 567 });
  try {
    const show = async (q: { query: Database['query'] }) => ({
      statement: (await q.query<{ statement_timeout: string }>('SHOW statement_timeout')).rows[0]!.statement_timeout,
      lock: (await q.query<{ lock_timeout: string }>('SHOW lock_timeout')).rows[0]!.lock_timeout,
    });
    assert.deepEqual(await show(db), { statement: '1234ms', lock: '567ms' });
    assert.deepEqual(await db.withTransaction((tx) => show(tx), { maintenance: true }), { statement: '0', lock: '0' });
    assert.deepEqual(await show(db), { statement: '1234ms', lock: '567ms' }, 'SET LOCAL ends with its transaction');
  } finally {
    await db.close();
    // One PGlite serves every connection of this file as one session: put its settings back.
    await server.pglite.exec('RESET statement_timeout; RESET lock_timeout');
  }
});

test("a maintenance transaction, and every statement of the CLI's database, has no timeouts even where the database's role sets them", async () => {
  // As `ALTER ROLE ... SET statement_timeout` does behind PgBouncer: the connection starts with the role's timeouts.
  await server.pglite.exec("SET statement_timeout = '30s'; SET lock_timeout = '10s'");
  const show = async (q: { query: Database['query'] }) => (await q.query<{ s: string; l: string }>("SELECT current_setting('statement_timeout') AS s, current_setting('lock_timeout') AS l")).rows[0];
  const db = await open();
  try {
    assert.deepEqual(await show(db), { s: '30s', l: '10s' }, "the role's, as the service sets none");
    assert.deepEqual(await db.withTransaction((tx) => show(tx), { maintenance: true }), { s: '0', l: '0' });
  } finally {
    await db.close();
  }
  // The CLI's database: every statement and transaction without them (a prune-traces of minutes was cancelled at 30 s).
  const cli = await open({ withoutTimeouts: true });
  try {
    assert.deepEqual(await show(cli), { s: '0', l: '0' });
    assert.deepEqual(await cli.withTransaction((tx) => show(tx)), { s: '0', l: '0' });
  } finally {
    await cli.close();
    await server.pglite.exec('RESET statement_timeout; RESET lock_timeout');
  }
});

test('waiting longer than connectionTimeoutMs for a pooled connection is a database_busy', async () => {
  const db = await createTestDatabase({ poolMax: 1, connectionTimeoutMs: 200 });
  // The pool's one connection is opened first: on a loaded machine opening it took longer than the 200 ms, and the
  // transaction below, not the statement after it, was the one that timed out.
  await db.query('SELECT 1');
  let release: (() => void) | undefined;
  let holding!: () => void;
  const holds = new Promise<void>((resolve) => (holding = resolve));
  const held = db.withTransaction(() => {
    holding();
    return new Promise<void>((resolve) => (release = resolve));
  });
  try {
    await Promise.race([holds, held]);
    assert.ok(unappliedOutage(await rejectsWith(db.query('SELECT 1'), 'database_busy')), 'it waited for a connection and was never sent');
    release?.();
    await held;
    assert.deepEqual((await db.query<{ x: number }>('SELECT 1 AS x')).rows, [{ x: 1 }]);
  } finally {
    release?.();
    await held.catch(() => {});
    await db.close();
  }
});

// What holds on the embedded database: PGlite runs one statement at a time in WebAssembly and has no timer to cancel
// one, so DB_STATEMENT_TIMEOUT_MS is not applied there (README). Should PGlite start honouring it, this fails and
// the embedded database can be given the timeout too.
test('PGlite accepts statement_timeout and does not honour it', async () => {
  const pglite = await PGlite.create();
  try {
    await pglite.exec("SET statement_timeout = '50ms'");
    const started = Date.now();
    await pglite.query('SELECT pg_sleep(0.3)');
    assert.ok(Date.now() - started >= 290, 'the statement ran its whole length');
  } finally {
    await pglite.close();
  }
});
