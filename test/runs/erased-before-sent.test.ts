// A candidate erased while a request carrying its text waited (for a model slot, or between two attempts) is not
// sent: DELETE /v1/candidates/:id has answered, and the text must not reach a model after that. The candidate drops
// out of the run, as one erased before its text was read does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CandidateInput } from '../../src/candidates/candidate-schemas.js';
import { fakeReply, startFakeLlmServer, type FakeHandler } from '../support/fake-llm-server.js';
import { candidate, GO_ROLE } from '../support/fixtures.js';
import { startApiWithCandidates, waitFor, type TestRuntime } from '../support/runtime.js';
import { scriptedModel, userText } from '../support/scripted-model.js';
import { startTestWorker } from '../support/worker.js';

// Made-up words, one per resume, so a request is known to carry that resume.
const MARKERS = ['Quorvex', 'Blintaro', 'Zephalon', 'Murdiqua', 'Vexmoria', 'Tralmund'];
const withMarker = (i: number, marker: string): CandidateInput =>
  candidate(`m${i}`, { headline: 'Backend engineer', skills: ['Go', 'Kubernetes'], yearsExperience: 7, resume: `Senior Go backend engineer on Kubernetes with gRPC. Built the ${marker} platform for 7 years.` });

async function scenario(
  pool: CandidateInput[],
  env: Record<string, string>,
  handler: (base: FakeHandler) => FakeHandler,
  during: (ctx: { rt: TestRuntime; erase(marker: string): Promise<void>; erasedAt: () => number }) => Promise<void>,
  params: Record<string, unknown>,
) {
  const server = await startFakeLlmServer();
  server.setHandler(handler(scriptedModel()));
  const rt = await startApiWithCandidates(pool, { MATCH_ENGINE: 'llm', LLM_BASE_URL: server.url, LLM_API_KEY: 'sk-test', LLM_MODEL: 'fake-chat', ...env });
  const worker = startTestWorker(rt, { globalScoreConcurrency: 1 });
  let erasedAt = Infinity;
  const erased: string[] = [];
  try {
    const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, ...params } });
    assert.equal(res.statusCode, 202, res.body);
    await during({
      rt,
      erasedAt: () => erasedAt,
      async erase(marker) {
        const id = (await rt.db.query<{ id: string }>('SELECT id FROM candidates WHERE resume LIKE $1', [`%${marker}%`])).rows[0]!.id;
        erasedAt = Math.min(erasedAt, performance.now());
        const del = await rt.app!.inject({ method: 'DELETE', url: `/v1/candidates/${id}`, headers: rt.auth() });
        assert.equal(del.statusCode, 204);
        erased.push(marker);
      },
    });
    const run = await waitFor(async () => {
      const r = (await rt.app!.inject({ url: `/v1/matching-runs/${res.json().id}`, headers: rt.auth() })).json();
      return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
    }, 30_000, 'the run');
    const late = server.chatRequests().filter((r) => r.receivedAt > erasedAt && erased.some((m) => userText(r).includes(m)));
    // The erased candidates drop out and the attempt goes on: no attempt is spent on a refusal of ours.
    const events = (await rt.app!.inject({ url: `/v1/matching-runs/${res.json().id}/events?limit=100`, headers: rt.auth() })).json().items.map((e: { type: string }) => e.type);
    assert.ok(!events.includes('run.retrying'), events.join(', '));
    return { run, late: late.map((r) => `${r.agent}: ${erased.filter((m) => userText(r).includes(m)).join(', ')}`), requests: server.chatRequests() };
  } finally {
    await worker.stop(2_000);
    await rt.close();
    await server.close();
  }
}

test('scorer requests waiting for a slot when their candidates are erased are not sent, and leave no entry', async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let first: string | null = null;
  const pool = MARKERS.slice(0, 4).map((m, i) => withMarker(i, m));
  const { run, late } = await scenario(
    pool,
    { LLM_MAX_RETRIES: '0' },
    (base) => async (req) => {
      if (req.agent === 'scorer' && first === null) {
        first = MARKERS.find((m) => userText(req).includes(m))!;
        await held;
      }
      return base(req);
    },
    async ({ erase }) => {
      // One scorer slot: the first request is held at the model, the other three wait for the slot.
      await waitFor(async () => first !== null, 20_000, 'the first scorer request');
      for (const m of MARKERS.slice(0, 4)) if (m !== first) await erase(m);
      release();
    },
    { scoreLimit: 4 },
  );
  assert.equal(run.status, 'succeeded', JSON.stringify(run.error));
  assert.deepEqual(late, [], 'no request after the erasures carried an erased resume');
  assert.deepEqual(run.shortlist.map((e: { externalId: string | null }) => e.externalId), ['m' + MARKERS.indexOf(first!)], 'only the candidate still there is on the shortlist');
  assert.equal(run.progress.candidatesScored, 1);
});

test('a retry after its candidate was erased during the back-off is not sent', async () => {
  let failed = false;
  const { run, late, requests } = await scenario(
    [withMarker(0, 'Vexmoria')],
    // The back-off is the server's 1.5 s (a jittered one may be a few milliseconds, and the retry then goes before the
    // erasure, as it may).
    { LLM_MAX_RETRIES: '2', LLM_RETRY_MAX_MS: '5000' },
    (base) => (req) => {
      if (req.agent === 'scorer' && !failed) {
        failed = true;
        return { ...fakeReply.error(503, 'overloaded'), headers: { 'retry-after-ms': '1500' } };
      }
      return base(req);
    },
    async ({ erase }) => {
      await waitFor(async () => failed, 20_000, 'the failed attempt');
      await erase('Vexmoria');
    },
    { scoreLimit: 1 },
  );
  assert.equal(run.status, 'succeeded', JSON.stringify(run.error));
  assert.deepEqual(late, []);
  assert.equal(requests.filter((r) => r.agent === 'scorer').length, 1, 'one attempt, the one before the erasure');
  assert.deepEqual(run.shortlist, []);
  // The refused retry cost nothing and is no ledger row: the one attempt sent is.
  assert.equal(run.usage.llmCalls, requests.length);
});

test('a rerank batch waiting for a slot is sent without the candidates erased meanwhile', async () => {
  // 31 candidates: two rerank batches (of 16 and 15), one model slot, the first held at the model.
  const pool = Array.from({ length: 31 }, (_, i) => withMarker(i, `Marker${String.fromCharCode(65 + (i % 26))}${i}x`));
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let firstBatch: string | null = null;
  let victim = '';
  const { run, late, requests } = await scenario(
    pool,
    { LLM_MAX_RETRIES: '0', LLM_CONCURRENCY: '1' },
    (base) => async (req) => {
      if (req.agent === 'reranker' && firstBatch === null) {
        firstBatch = userText(req);
        await held;
      }
      return base(req);
    },
    async ({ erase }) => {
      await waitFor(async () => firstBatch !== null, 20_000, 'the first rerank batch');
      // A candidate of the other batch: its request waits for the slot.
      victim = pool.map((c) => /Built the (\S+) platform/.exec(c.resume)![1]!).find((m) => !firstBatch!.includes(m))!;
      await erase(victim);
      release();
    },
    { scoreLimit: 2 },
  );
  assert.equal(run.status, 'succeeded', JSON.stringify(run.error));
  assert.deepEqual(late, []);
  const batches = requests.filter((r) => r.agent === 'reranker');
  assert.equal(batches.length, 2, 'the second batch was still sent, without its erased candidate');
  assert.equal([...userText(batches[1]!).matchAll(/## Candidate c\d+/g)].length, 14);
});
