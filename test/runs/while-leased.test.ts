// The worker's writes for a run it holds, tried again through a database outage only while the run is still its own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DatabaseFaultError } from '../../src/errors.js';
import { whileLeased } from '../../src/runs/while-leased.js';

const away = () => new DatabaseFaultError('database_unavailable', new Error('connect ENOENT'));

test('a write failing on a database fault is tried again until it is written', async () => {
  let calls = 0;
  const run = { abortReason: null, leaseUntil: Date.now() + 60_000 };
  const written = await whileLeased(run, async () => {
    if (++calls < 3) throw away();
    return 'written';
  });
  assert.equal(written, 'written');
  assert.equal(calls, 3);
});

test('it gives up once the lease would run out, once the run was given up, and at once on any other error', async () => {
  let calls = 0;
  const failing = async () => {
    calls++;
    throw away();
  };
  // The lease ends before the next try: the run is left to be claimed when it has run out.
  await assert.rejects(whileLeased({ abortReason: null, leaseUntil: 1_400 }, failing, () => 1_000), DatabaseFaultError);
  assert.equal(calls, 1);
  // Shut down, or the heartbeat found the lease lost or run out: nothing more is written for the run.
  for (const abortReason of ['shutdown', 'lease_lost', 'lease_expired'] as const) {
    calls = 0;
    await assert.rejects(whileLeased({ abortReason, leaseUntil: Date.now() + 60_000 }, failing), DatabaseFaultError);
    assert.equal(calls, 1, abortReason);
  }
  calls = 0;
  const broken = async () => {
    calls++;
    throw new Error('a bug, not an outage');
  };
  await assert.rejects(whileLeased({ abortReason: null, leaseUntil: Date.now() + 60_000 }, broken), /a bug/);
  assert.equal(calls, 1);
});
