// The workflow on the llm engine, through the fake model server: every named exit, re-asks, caps.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fakeReply, startFakeLlmServer, type FakeLlmServer } from '../support/fake-llm-server.js';
import { backendPool, candidate, GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/runtime.js';
import { MIDDLING, scriptedModel } from '../support/scripted-model.js';

let fake: FakeLlmServer;
let rt: TestRuntime;

before(async () => {
  fake = await startFakeLlmServer();
  rt = await startTestRuntime({ MATCH_ENGINE: 'llm', LLM_BASE_URL: fake.url, LLM_MODEL: 'fake-chat', LLM_CONCURRENCY: '3' });
  const pool = [...backendPool(), ...Array.from({ length: 6 }, (_, i) => candidate(`extra-${i}`))];
  assert.equal((await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: pool } })).statusCode, 200);
});
after(async () => {
  await rt.close();
  await fake.close();
});

async function run(body: Record<string, unknown>) {
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, ...body } });
  assert.equal(res.statusCode, 202, res.body);
  const id = res.json().id as string;
  return waitFor(async () => {
    const r = (await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() })).json();
    return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
  }, 60_000, 'the run to finish');
}

function scorerRequests(from: number) {
  return fake.requests.slice(from).filter((r) => r.agent === 'scorer');
}

test('target_reached: enough strong candidates end the run after scoring, without asking the reflector', async () => {
  fake.setHandler(scriptedModel({ subscores: () => ({ hardSkills: 28, domain: 18, seniority: 14, impact: 12, logistics: 9, trajectory: 8 }) }));
  const from = fake.requests.length;
  // Exactly as many strong candidates as the target, each exactly at the threshold (89): reaching both is enough.
  const r = await run({ maxIterations: 3, scoreThreshold: 89, targetStrong: 3, scoreLimit: 3 });
  assert.equal(r.status, 'succeeded');
  assert.equal(r.stop.reason, 'target_reached');
  assert.equal(r.shortlist.length, 3);
  assert.equal(r.stop.iteration, 1);
  assert.equal(r.engine, 'llm');
  assert.ok(r.shortlist.every((e: { totalScore: number }) => e.totalScore === 89), 'the total is our sum of the parts');
  assert.equal(fake.requests.slice(from).filter((q) => q.agent === 'reflector').length, 0);
  assert.ok(r.usage.llmCalls > 0 && r.usage.costUsd > 0);
});

test('reflector: its stop ends the run with the reasoning recorded and logged', async () => {
  fake.setHandler(scriptedModel({ reflect: () => ({ stop: true, reasoning: 'The pool has no more Go engineers.', hints: [] }) }));
  const r = await run({ maxIterations: 3, targetStrong: 50, scoreLimit: 2 });
  assert.equal(r.stop.reason, 'reflector');
  assert.equal(r.stop.reasoning, 'The pool has no more Go engineers.');
  assert.ok(rt.logs.some((l) => l.msg === 'Stopping iterations at 1: The pool has no more Go engineers.' && l.runId === r.id));
});

test('reflector: its reasoning and hints are scrubbed before they reach a log, the run or the next prompt', async () => {
  const email = 'jane.roe.canary@example.org';
  const phone = '+1 (415) 555-0142';
  let reflections = 0;
  fake.setHandler(scriptedModel({
    reflect: () =>
      ++reflections === 1
        ? { stop: false, reasoning: `Few fits yet; the role's contact ${email} may know more.`, hints: [`Go ${email}`, `call ${phone}`] }
        : { stop: true, reasoning: `No more Go engineers; ask ${email} or ${phone}.`, hints: [] },
  }));
  const from = fake.requests.length;
  const r = await run({ maxIterations: 3, targetStrong: 50, scoreLimit: 2 });
  assert.equal(r.stop.reason, 'reflector');
  const leaks = (text: string) => [email, phone, '555-0142'].filter((s) => text.includes(s));
  const runLogs = rt.logs.filter((l) => l.runId === r.id);
  assert.ok(runLogs.some((l) => String(l.msg).startsWith('Stopping iterations at 2: No more Go engineers; ask [EMAIL]')), 'the stop is logged, scrubbed');
  assert.deepEqual(leaks(JSON.stringify(runLogs)), [], 'logs');
  assert.deepEqual(leaks(JSON.stringify(r)), [], 'the run');
  const secondExpansion = fake.requests.slice(from).filter((q) => q.agent === 'queryExpander').at(1);
  assert.match(JSON.stringify(secondExpansion?.body.messages), /<hints>/, 'the hints reached the expander');
  assert.deepEqual(leaks(JSON.stringify(secondExpansion?.body.messages)), [], 'the next prompt');
});

test('an answer holding NUL characters or lone surrogates is stored with them replaced: scored, in the trail, in the ledger', async () => {
  // Neither can be written as it came (PostgreSQL refuses NUL in text and jsonb, a lone surrogate in jsonb): the
  // entries, the trail's record of the answer and a refusal's ledger row would fail, and the scorer be paid again.
  const odd = 'Strong Go work\u0000 at scale \ud83d and \udc00 on call.';
  let refused = false;
  fake.setHandler(scriptedModel({
    override: (req) => {
      if (req.agent !== 'scorer') return undefined;
      if (!refused) {
        refused = true;
        return fakeReply.refusal(`No\u0000 \ud800`);
      }
      const evidence = { hardSkills: [odd], domain: [], seniority: [], impact: [], logistics: [], trajectory: [] };
      return fakeReply.json({ subscores: MIDDLING, rationale: odd, evidence });
    },
  }));
  const r = await run({ maxIterations: 1, scoreLimit: 2 });
  assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
  assert.equal(r.shortlist.length, 2, JSON.stringify(r.shortlist));
  for (const e of r.shortlist) {
    assert.equal(e.rationale, 'Strong Go work\ufffd at scale \ufffd and \ufffd on call.');
    assert.equal(e.evidence[0].quote, e.rationale);
  }
  const count = async (sql: string) => Number((await rt.db.query<{ n: string }>(sql, [r.id])).rows[0]!.n);
  const exchanges = await count("SELECT count(*) AS n FROM run_trace WHERE run_id = $1 AND kind = 'model.exchange'");
  assert.equal(exchanges, await count('SELECT count(*) AS n FROM model_calls WHERE run_id = $1'), 'every model call is in the trail');
  const refusal = "SELECT count(*) AS n FROM run_trace WHERE run_id = $1 AND kind = 'model.exchange' AND data->>'outcome' = 'refused' AND strpos(data::text, chr(65533)) > 0";
  assert.equal(await count(refusal), 1, 'the refusal, replaced');
  const refusals = await rt.db.query<{ outcome: string }>("SELECT outcome FROM model_calls WHERE run_id = $1 AND agent = 'scorer' AND outcome = 'refused'", [r.id]);
  assert.equal(refusals.rows.length, 1, 'the refusal has its ledger row');
  assert.ok(!rt.logs.some((l) => l.msg === 'audit trail write failed' || l.msg === 'ledger write failed'), 'no write failed');
});

test('max_iterations: fresh queries each round, and no candidate is scored twice', async () => {
  fake.setHandler(scriptedModel());
  const from = fake.requests.length;
  const r = await run({ maxIterations: 2, targetStrong: 50, scoreLimit: 3 });
  assert.equal(r.stop.reason, 'max_iterations');
  assert.equal(r.progress.iteration, 2);
  const scored = r.shortlist.map((e: { candidateId: string }) => e.candidateId);
  assert.equal(new Set(scored).size, scored.length);
  assert.equal(scorerRequests(from).length, scored.length, 'one scorer call per candidate, across rounds');
  assert.equal(new Set(r.shortlist.map((e: { iteration: number }) => e.iteration)).size, 2);
  const reflections = fake.requests.slice(from).filter((q) => q.agent === 'reflector').length;
  assert.equal(reflections, 1, 'the first round is reflected on; the last, whose end the cap decides, is not asked for (nor paid)');

  // The timeline in order: the run opens with its first checkpoint, and a round's scoring step is recorded only
  // after every entry of that round (the reflector may start first; the checkpoint waits for the entries).
  const events = (await rt.app!.inject({ url: `/v1/matching-runs/${r.id}/events?limit=100`, headers: rt.auth() })).json().items as Array<{ seq: number; type: string; data: { iteration?: number } }>;
  assert.deepEqual(events.slice(0, 3).map((e) => e.type), ['run.queued', 'run.started', 'iteration.started']);
  assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1), 'no gap in the sequence');
  for (const iteration of [1, 2]) {
    const entries = events.filter((e) => e.type === 'candidate.scored' && e.data.iteration === iteration);
    const step = events.find((e) => e.type === 'candidates.scored' && e.data.iteration === iteration)!;
    assert.ok(entries.length > 0 && entries.every((e) => e.seq < step.seq), `round ${iteration}: entries before the step's checkpoint`);
  }
});

test('exhausted: once retrieval finds nothing new and the backlog is empty, the run says so', async () => {
  fake.setHandler(scriptedModel());
  const r = await run({ maxIterations: 10, targetStrong: 50, scoreLimit: 50 });
  assert.equal(r.stop.reason, 'exhausted');
  assert.equal(r.progress.candidatesScored, 12, 'every candidate of the pool scored once');
});

test('out-of-bounds and missing sub-scores are re-asked, then the candidate is unscored, never given a score', async () => {
  fake.setHandler(
    scriptedModel({
      override: (req) => {
        if (req.agent !== 'scorer') return undefined;
        const { trajectory: _missing, ...rest } = MIDDLING;
        const bad = req.body.messages!.length > 2 ? rest : { ...MIDDLING, hardSkills: 31 };
        return fakeReply.json({ subscores: bad, rationale: 'x', evidence: { hardSkills: [], domain: [], seniority: [], impact: [], logistics: [], trajectory: [] } });
      },
    }),
  );
  const from = fake.requests.length;
  const r = await run({ maxIterations: 1, targetStrong: 50, scoreLimit: 2 });
  assert.equal(r.status, 'succeeded');
  assert.equal(r.shortlist.length, 0, 'no invented score');
  assert.equal(scorerRequests(from).length, 4, 'two candidates, each asked once and re-asked once');
  const events = (await rt.app!.inject({ url: `/v1/matching-runs/${r.id}/events?limit=100`, headers: rt.auth() })).json();
  const unscored = events.items.filter((e: { type: string }) => e.type === 'candidate.unscored');
  assert.equal(unscored.length, 2);
  assert.ok(unscored.every((e: { data: { reason: string } }) => e.data.reason.length > 0));
});

test('budget: a run stops with reason budget, keeps what it scored, and never exceeds its tokens', async () => {
  fake.setHandler(scriptedModel());
  const r = await run({ maxIterations: 3, targetStrong: 50, scoreLimit: 10, budget: { maxTokens: 9000, maxCostUsd: 2 } });
  assert.equal(r.status, 'succeeded');
  assert.equal(r.stop.reason, 'budget');
  assert.ok(r.usage.totalTokens <= 9000, `spent ${r.usage.totalTokens}`);
  const ledger = (await rt.db.query<{ tokens: number }>('SELECT coalesce(sum(prompt_tokens + completion_tokens), 0)::int AS tokens FROM model_calls WHERE run_id = $1', [r.id])).rows[0]!;
  assert.equal(r.usage.totalTokens, ledger.tokens, 'run usage is read back from the ledger');
});

test('the scoring fan-out reaches the process-wide model cap and never exceeds it', async () => {
  const scripted = scriptedModel();
  // Scorers are answered once three requests have been in flight together (or after 5 s): on a slow machine they
  // may arrive further apart than any fixed latency. A cap below 3 never gets there and fails below.
  fake.setHandler(async (req) => {
    if (req.agent === 'scorer') await waitFor(async () => fake.maxInFlight >= 3 || null, 5_000, 'three requests in flight').catch(() => {});
    return scripted(req);
  });
  fake.setLatency(20, 0);
  fake.resetMaxInFlight();
  try {
    await run({ maxIterations: 1, targetStrong: 50, scoreLimit: 8 });
    assert.equal(fake.maxInFlight, 3, 'LLM_CONCURRENCY=3: reached, not exceeded');
  } finally {
    fake.setLatency(0, 0);
  }
});
