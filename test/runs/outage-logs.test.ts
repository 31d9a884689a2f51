// A database outage is logged by a worker's loops once, then at a bounded rate, then once more when it is over: the
// claim (every WORKER_POLL_MS) and the lease heartbeat (every RUN_HEARTBEAT_MS) fail on every pass while it lasts,
// and a line per pass buried the log (20 lines a second at a 50 ms poll).
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import type { Database } from '../../src/db/database.js';
import { DatabaseFaultError } from '../../src/errors.js';
import { loggerOptions } from '../../src/logger.js';
import { createFailureStreak } from '../../src/runs/failure-streak.js';
import { startWorker, type WorkerDeps } from '../../src/runs/worker.js';
import { waitFor } from '../support/runtime.js';

function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { logger: pino(loggerOptions('debug', { pretty: false }), sink), lines };
}

function refused(): Error {
  const err = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect' });
  return new DatabaseFaultError('database_unavailable', err);
}

/** A database that refuses every statement while `down`, and answers every statement with no rows otherwise. */
function flakyDatabase() {
  const state = { down: true, statements: 0 };
  const query = async () => {
    state.statements++;
    if (state.down) throw refused();
    return { rows: [], rowCount: 0 };
  };
  const db = {
    kind: 'postgres',
    query,
    withTransaction: async (fn: (tx: { query: typeof query }) => Promise<unknown>) => {
      if (state.down) {
        state.statements++;
        throw refused();
      }
      return fn({ query });
    },
    poolStats: () => ({ total: 0, idle: 0, waiting: 0 }),
    embedded: null,
    close: async () => {},
  } as unknown as Database;
  return { db, state };
}

test('a worker whose database is down logs the first failed claim and heartbeat with the fault, not every pass, and one line when they work again', async () => {
  const { logger, lines } = capturedLogger();
  const { db, state } = flakyDatabase();
  const unused = () => {
    throw new Error('no run is claimed in this test');
  };
  const worker = startWorker(
    {
      db,
      logger,
      metrics: {} as WorkerDeps['metrics'],
      journal: { trace: unused, flush: async () => {} },
      candidateStore: {} as WorkerDeps['candidateStore'],
      search: {} as WorkerDeps['search'],
      agentsFor: unused,
      callContextFor: unused,
      isBudgetError: () => false,
    },
    { concurrency: 1, pollMs: 5, leaseMs: 100, heartbeatMs: 20, maxAttempts: 3, deadlineMs: 60_000, globalScoreConcurrency: 1 },
  );
  try {
    // Dozens of polls and heartbeats, all refused.
    await waitFor(async () => state.statements >= 60, 20_000, 'the worker to try the database many times');
    const failing = lines.filter((l) => l.level === 40);
    const claims = failing.filter((l) => String(l.msg).startsWith('claim'));
    const beats = failing.filter((l) => String(l.msg).startsWith('heartbeat'));
    assert.equal(claims.length, 1, `one line for the failing claims, not one a poll: ${claims.length}`);
    assert.equal(beats.length, 1, `one line for the failing heartbeats, not one a beat: ${beats.length}`);
    for (const line of [claims[0]!, beats[0]!]) {
      assert.equal(line.fault, 'database_unavailable');
      assert.equal((line.err as { name: string }).name, 'DatabaseUnavailableError');
    }

    state.down = false;
    await waitFor(async () => lines.some((l) => /^claim works again/.test(String(l.msg))), 20_000, 'the claim to be logged working again');
    await waitFor(async () => lines.some((l) => /^heartbeat works again/.test(String(l.msg))), 20_000, 'the heartbeat to be logged working again');
    const back = lines.find((l) => /^claim works again/.test(String(l.msg)))!;
    assert.equal(back.level, 30);
    assert.ok((back.failures as number) > 1, 'the line counts the failures it ends');
    const settled = state.statements;
    await waitFor(async () => state.statements >= settled + 20, 20_000, 'more polls with the database back');
    assert.equal(lines.filter((l) => /works again/.test(String(l.msg))).length, 2, 'said once each');
  } finally {
    await worker.stop(1_000);
  }
});

test('a failure streak is logged again at most once per interval, with the count of lines not logged', () => {
  const { logger, lines } = capturedLogger();
  let now = 0;
  const streak = createFailureStreak({ log: logger, what: 'claim', reportEveryMs: 30_000, now: () => now });
  for (; now < 95_000; now += 50) streak.failed(refused());
  const warned = lines.filter((l) => l.level === 40);
  // At 0, 30 s, 60 s and 90 s: four lines for 1,900 failures.
  assert.deepEqual(warned.map((l) => l.msg), [
    'claim failed',
    'claim still failing (599 failures since the last line not logged)',
    'claim still failing (599 failures since the last line not logged)',
    'claim still failing (599 failures since the last line not logged)',
  ]);
  assert.deepEqual(warned.slice(1).map((l) => [l.failures, l.notLogged, l.failingForMs]), [[601, 599, 30_000], [1201, 599, 60_000], [1801, 599, 90_000]]);
  streak.succeeded();
  streak.succeeded();
  const back = lines.filter((l) => l.level === 30);
  assert.equal(back.length, 1);
  assert.equal(back[0]!.msg, 'claim works again after 1900 failures');
  // A new outage starts a new streak, logged at once.
  streak.failed(refused());
  assert.equal(lines.at(-1)!.msg, 'claim failed');
});
