// The journal while the database is away: ledger and trail rows wait the outage out in memory and are written once
// it is back, each charged once; a process shutting down stops waiting and reports what it could not write.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createJournal } from '../../src/audit/journal.js';
import type { Queryable } from '../../src/db/database.js';
import { GO_ROLE } from '../support/fixtures.js';
import { startRestartableDatabase, type RestartableDatabase } from '../support/restartable-database.js';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/runtime.js';

let server: RestartableDatabase;
let rt: TestRuntime;
let orgId: string;
before(async () => {
  server = await startRestartableDatabase();
  rt = await startTestRuntime({ DATABASE_URL: server.url, PROCESS_ROLE: 'api', DB_CONNECTION_TIMEOUT_MS: '1000' });
  orgId = (await rt.services.apiKeys.verify(rt.apiKey))!.orgId;
});
after(async () => {
  await rt?.close();
  await server?.close();
});

async function newRun(): Promise<string> {
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE } });
  assert.equal(res.statusCode, 202, res.body);
  return (res.json() as { id: string }).id;
}

function journalOver() {
  let failures = 0;
  const lost: string[] = [];
  const db: Queryable = {
    query: <R>(text: string, values?: unknown[]) =>
      rt.db.query<R>(text, values).catch((err: unknown) => {
        failures++;
        throw err;
      }),
  };
  const journal = createJournal({ db, logger: { error: (_obj: unknown, msg?: string) => lost.push(String(msg)) } as never });
  return { journal, lost, failures: () => failures };
}

const call = (runId: string, costUsd: number) => ({
  orgId, runId, agent: 'scorer' as const, model: 'fake-chat', promptTokens: 100, cachedTokens: 0, completionTokens: 20, costUsd, latencyMs: 5, outcome: 'ok' as const, requestId: null, attempt: 1,
});

test('rows recorded while the database is away are written, once, when it is back', async () => {
  const runId = await newRun();
  const { journal, lost, failures } = journalOver();
  await server.stop();
  let flushed: Promise<void>;
  try {
    await journal.record(call(runId, 0.25));
    journal.trace({ runId, orgId }, 'test.during-outage', { n: 1 });
    flushed = journal.flush();
    // More failed writes than a batch's own retries and its row-by-row fallback make (3 + 2): the rows were kept.
    await waitFor(async () => failures() >= 6 || lost.length > 0, 20_000, 'the writes to keep failing');
    assert.deepEqual(lost, []);
  } finally {
    await server.start();
  }
  await flushed;
  assert.deepEqual(lost, []);
  const totals = await rt.db.query<{ llm_calls: number; cost: string }>('SELECT llm_calls, cost_usd::text AS cost FROM matching_runs WHERE id = $1', [runId]);
  assert.equal(totals.rows[0]!.llm_calls, 1);
  assert.equal(Number(totals.rows[0]!.cost), 0.25);
  const ledger = await rt.db.query<{ n: number }>('SELECT count(*)::int AS n FROM model_calls WHERE run_id = $1', [runId]);
  assert.equal(ledger.rows[0]!.n, 1);
  const trail = await rt.db.query<{ n: number }>("SELECT count(*)::int AS n FROM run_trace WHERE run_id = $1 AND kind = 'test.during-outage'", [runId]);
  assert.equal(trail.rows[0]!.n, 1);
});

test('a process shutting down stops waiting: the rows it cannot write are reported lost, and flush ends', async () => {
  const runId = await newRun();
  const { journal, lost, failures } = journalOver();
  await server.stop();
  try {
    await journal.record(call(runId, 0.5));
    const flushed = journal.flush();
    await waitFor(async () => failures() >= 1, 20_000, 'a first failed write');
    journal.stopWaiting();
    await flushed;
    assert.deepEqual(lost, ['ledger write failed']);
  } finally {
    await server.start();
  }
});
