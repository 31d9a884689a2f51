// The journal: a batch's ledger and trail rows go in one statement, and a row that cannot be written loses only itself.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createJournal } from '../../src/audit/journal.js';
import type { Queryable } from '../../src/db/database.js';
import { GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';

let rt: TestRuntime;
let orgId: string;

before(async () => {
  rt = await startTestRuntime({ PROCESS_ROLE: 'api' });
  orgId = (await rt.services.apiKeys.verify(rt.apiKey))!.orgId;
});
after(async () => rt.close());

async function newRun(): Promise<string> {
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE } });
  assert.equal(res.statusCode, 202, res.body);
  return (res.json() as { id: string }).id;
}

function journalOver() {
  const statements: string[] = [];
  const lost: string[] = [];
  const db: Queryable = {
    query: (text, values) => {
      statements.push(text);
      return rt.db.query(text, values);
    },
  };
  const journal = createJournal({ db, logger: { error: (_obj: unknown, msg?: string) => lost.push(String(msg)) } as never });
  return { journal, statements, lost };
}

const call = (runId: string, costUsd: number) => ({
  orgId, runId, agent: 'scorer' as const, model: 'fake-chat', promptTokens: 100, cachedTokens: 0, completionTokens: 20, costUsd, latencyMs: 5, outcome: 'ok' as const, requestId: null, attempt: 1,
});

test("a batch's ledger and trail rows are written in one statement, the run's totals moved once, the trail in order", async () => {
  const runId = await newRun();
  const { journal, statements, lost } = journalOver();
  const run = { runId, orgId };
  await journal.record(call(runId, 0.25));
  journal.trace(run, 'test.first', { n: 1 });
  await journal.record(call(runId, 0.5));
  journal.trace(run, 'test.second', () => ({ n: 2 }));
  journal.trace(run, 'test.third', { n: 3 });
  await journal.flush();
  assert.equal(statements.length, 1, statements.join('\n---\n'));
  assert.deepEqual(lost, []);
  const totals = await rt.db.query<{ llm_calls: number; cost: string }>('SELECT llm_calls, cost_usd::text AS cost FROM matching_runs WHERE id = $1', [runId]);
  assert.equal(totals.rows[0]!.llm_calls, 2);
  assert.equal(Number(totals.rows[0]!.cost), 0.75);
  const trail = await rt.db.query<{ kind: string; n: number }>(
    "SELECT kind, (data->>'n')::int AS n FROM run_trace WHERE run_id = $1 AND kind LIKE 'test.%' ORDER BY id",
    [runId],
  );
  assert.deepEqual(trail.rows, [{ kind: 'test.first', n: 1 }, { kind: 'test.second', n: 2 }, { kind: 'test.third', n: 3 }]);
  assert.equal(journal.backlog, 0);
});

test('a trail row that cannot be written loses only itself: the ledger rows of its batch are written, and the loss is logged', async () => {
  const runId = await newRun();
  const { journal, lost } = journalOver();
  await journal.record(call(runId, 0.125));
  journal.trace({ runId, orgId }, 'test.broken', () => {
    throw new Error('cannot serialise');
  });
  journal.trace({ runId, orgId }, 'test.fine', { ok: true });
  await journal.flush();
  assert.deepEqual(lost, ['audit trail write failed']);
  const calls = await rt.db.query<{ n: number }>('SELECT count(*)::int AS n FROM model_calls WHERE run_id = $1', [runId]);
  assert.equal(calls.rows[0]!.n, 1);
  const kinds = await rt.db.query<{ kind: string }>("SELECT kind FROM run_trace WHERE run_id = $1 AND kind LIKE 'test.%'", [runId]);
  assert.deepEqual(kinds.rows.map((r) => r.kind), ['test.fine']);
});

test('ledger rows alone and trail rows alone are written as before', async () => {
  const runId = await newRun();
  const { journal, statements } = journalOver();
  await journal.record(call(runId, 0.5));
  await journal.flush();
  journal.trace({ runId, orgId }, 'test.alone', { n: 1 });
  await journal.flush();
  assert.equal(statements.length, 2);
  assert.match(statements[0]!, /INSERT INTO model_calls/);
  assert.doesNotMatch(statements[0]!, /run_trace/);
  // The trail's rows alone, after the key-share lock of the candidates they name (none here).
  assert.match(statements[1]!, /^WITH live AS \(SELECT id FROM candidates .* FOR KEY SHARE\) INSERT INTO run_trace/s);
  assert.doesNotMatch(statements[1]!, /model_calls/);
});

test('a batch written whose answer was lost (the connection dropped after the commit) is not written twice when retried, ledger or trail', async () => {
  const runId = await newRun();
  let dropped = false;
  const db: Queryable = {
    query: async <R>(text: string, values?: unknown[]) => {
      const result = await rt.db.query<R>(text, values);
      if (!dropped && /INSERT INTO model_calls/.test(text)) {
        dropped = true;
        // What pg reports when the socket closes after the server committed and before its answer arrived.
        throw new Error('Connection terminated unexpectedly');
      }
      return result;
    },
  };
  const lost: unknown[] = [];
  const journal = createJournal({ db, logger: { error: (obj: unknown) => lost.push(obj) } as never });
  await journal.record(call(runId, 0.25));
  await journal.record(call(runId, 0.5));
  journal.trace({ runId, orgId }, 'model.exchange', { agent: 'scorer', candidateIds: [] });
  journal.trace({ runId, orgId }, 'step.finished', { iteration: 1 });
  await journal.flush();
  assert.ok(dropped);
  assert.deepEqual(lost, [], 'the retry succeeded');
  const trail = await rt.db.query<{ kind: string }>('SELECT kind FROM run_trace WHERE run_id = $1 ORDER BY id', [runId]);
  assert.deepEqual(trail.rows.map((r) => r.kind), ['model.exchange', 'step.finished'], 'each trail row once');
  const ledger = await rt.db.query<{ n: number; cost: number }>('SELECT count(*)::int AS n, sum(cost_usd) AS cost FROM model_calls WHERE run_id = $1', [runId]);
  assert.deepEqual(ledger.rows[0], { n: 2, cost: 0.75 }, 'each call once in the ledger');
  const totals = await rt.db.query<{ llm_calls: number; cost_usd: number }>('SELECT llm_calls, cost_usd FROM matching_runs WHERE id = $1', [runId]);
  assert.deepEqual(totals.rows[0], { llm_calls: 2, cost_usd: 0.75 }, 'and once in the run’s usage');
});
