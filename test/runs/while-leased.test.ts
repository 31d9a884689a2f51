// The worker's writes for a run it holds, tried again through a database outage only while the run is still its own:
// by default only when the database certainly did not apply them, a run's writes (leasedWrites) whatever became of
// them, each with its one id; its reads, whatever became of them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { databaseOutage } from '../../src/db/database.js';
import { DatabaseFaultError } from '../../src/errors.js';
import { pino } from 'pino';
import { LeaseLostError } from '../../src/runs/run-writes.js';
import { leasedWrites, whileLeased } from '../../src/runs/while-leased.js';

// As pg and Node report them (see test/db/database-faults.test.ts for the real ones).
const syscallError = (code: string, syscall: string) => Object.assign(new Error(`${syscall} ${code}`), { code, syscall });
const refused = () => new DatabaseFaultError('database_unavailable', syscallError('ENOENT', 'connect'));
// Written to a connection the server had already closed (a pooled one, just after a restart): nothing of it was read.
const writtenToAClosedConnection = () => new DatabaseFaultError('database_unavailable', syscallError('EPIPE', 'write'));
const shuttingDown = () => {
  const err = new pg.DatabaseError('terminating connection due to administrator command', 0, 'error');
  err.code = '57P01';
  return new DatabaseFaultError('database_unavailable', err);
};
const poolWait = () => new DatabaseFaultError('database_busy', new Error('timeout exceeded when trying to connect'));
const leased = () => ({ abortReason: null, leaseUntil: Date.now() + 60_000 });

test('a write the database was away or busy for, and did not apply, is tried again until it is written', async () => {
  for (const fault of [refused, writtenToAClosedConnection, shuttingDown, poolWait]) {
    let calls = 0;
    const written = await whileLeased(leased(), async () => {
      if (++calls < 3) throw fault();
      return 'written';
    });
    assert.equal(written, 'written');
    assert.equal(calls, 3, fault.name);
  }
});

test('a write whose connection was lost after it was sent is not sent again: it may have committed', async () => {
  const lostAfterSending = [
    new DatabaseFaultError('database_unavailable', syscallError('ECONNRESET', 'read')),
    new DatabaseFaultError('database_unavailable', new Error('Connection terminated unexpectedly')),
    new DatabaseFaultError('database_timeout', new Error('Query read timeout')),
  ];
  for (const err of lostAfterSending) {
    let calls = 0;
    await assert.rejects(
      whileLeased(leased(), async () => {
        calls++;
        throw err;
      }),
      (e) => e === err,
    );
    assert.equal(calls, 1, String(err.cause));
  }
});

test('it gives up once the lease would run out, once the run was given up, and at once on any other error', async () => {
  let calls = 0;
  const failing = async () => {
    calls++;
    throw refused();
  };
  // The lease ends before the next try: the run is left to be claimed when it has run out.
  await assert.rejects(whileLeased({ abortReason: null, leaseUntil: 1_400 }, failing, { now: () => 1_000 }), DatabaseFaultError);
  assert.equal(calls, 1);
  // Shut down, or the heartbeat found the lease lost or run out: nothing more is written for the run.
  for (const abortReason of ['shutdown', 'lease_lost', 'lease_expired'] as const) {
    calls = 0;
    await assert.rejects(whileLeased({ abortReason, leaseUntil: Date.now() + 60_000 }, failing), DatabaseFaultError);
    assert.equal(calls, 1, abortReason);
  }
  // A statement the server timed out is the attempt's failure, as before: the run is retried by a new claim.
  for (const other of [new DatabaseFaultError('database_timeout', new Error('canceling statement')), new Error('a bug, not an outage')]) {
    calls = 0;
    await assert.rejects(
      whileLeased(leased(), async () => {
        calls++;
        throw other;
      }),
      (e) => e === other,
    );
    assert.equal(calls, 1, other.message);
  }
});

test('a read is sent again after any outage, its connection lost after it was sent included, but not after a timeout or another error', async () => {
  const lostAfterSending = [
    new DatabaseFaultError('database_unavailable', syscallError('ECONNRESET', 'read')),
    new DatabaseFaultError('database_unavailable', new Error('Connection terminated unexpectedly')),
  ];
  for (const fault of [refused, writtenToAClosedConnection, shuttingDown, poolWait, ...lostAfterSending.map((e) => () => e)]) {
    let calls = 0;
    const read = await whileLeased(leased(), async () => {
      if (++calls < 2) throw fault();
      return 'read';
    }, { again: databaseOutage });
    assert.equal(read, 'read');
    assert.equal(calls, 2, String(fault().cause));
  }
  for (const other of [new DatabaseFaultError('database_timeout', new Error('Query read timeout')), new DatabaseFaultError('database_conflict', new Error('deadlock detected')), new Error('a bug')]) {
    let calls = 0;
    await assert.rejects(
      whileLeased(leased(), async () => {
        calls++;
        throw other;
      }, { again: databaseOutage }),
      (e) => e === other,
    );
    assert.equal(calls, 1, other.message);
  }
  // As a write's, only while the lease lasts.
  await assert.rejects(whileLeased({ abortReason: null, leaseUntil: 1_400 }, async () => { throw refused(); }, { now: () => 1_000, again: databaseOutage }), DatabaseFaultError);
});

test('a run’s write is sent again after any outage, its connection lost after it was sent included, with one id however often it is sent', async () => {
  const lostAfterSending = [
    new DatabaseFaultError('database_unavailable', syscallError('ECONNRESET', 'read')),
    new DatabaseFaultError('database_unavailable', new Error('Connection terminated unexpectedly')),
  ];
  let leaseLost = 0;
  const write = leasedWrites(leased(), pino({ level: 'silent' }), () => leaseLost++);
  const ids: string[] = [];
  const written = await write(async (writeId) => {
    ids.push(writeId);
    if (ids.length <= lostAfterSending.length) throw lostAfterSending[ids.length - 1];
    return 'written';
  });
  assert.equal(written, 'written');
  assert.equal(ids.length, 3);
  assert.equal(new Set(ids).size, 1, 'one id for every send of the write');
  assert.match(ids[0]!, /^[0-9a-f-]{36}$/);
  const next: string[] = [];
  await write(async (writeId) => void next.push(writeId));
  assert.notEqual(next[0], ids[0], 'another write, another id');
  // Not a timeout (the statement may still be running), nor a refusal for a lost lease, which is reported at once.
  for (const err of [new DatabaseFaultError('database_timeout', new Error('Query read timeout')), new LeaseLostError('lost the lease')]) {
    let calls = 0;
    await assert.rejects(
      write(async () => {
        calls++;
        throw err;
      }),
      (e) => e === err,
    );
    assert.equal(calls, 1, err.message);
  }
  assert.equal(leaseLost, 1);
});
