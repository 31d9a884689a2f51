// Candidate ingestion with the endpoint's embeddings: bad input is refused before any model work, and an endpoint
// that fails answers its own named problem, with nothing written.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fakeReply, startFakeLlmServer, type FakeLlmServer } from '../support/fake-llm-server.js';
import { candidate } from '../support/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';

let fake: FakeLlmServer;
let rt: TestRuntime;
before(async () => {
  fake = await startFakeLlmServer();
  rt = await startTestRuntime({
    PROCESS_ROLE: 'api',
    LLM_BASE_URL: fake.url,
    LLM_MODEL: 'fake-chat',
    EMBEDDINGS: 'llm',
    LLM_EMBEDDING_MODEL: 'fake-embed',
    LLM_MAX_RETRIES: '1',
  });
});
after(async () => {
  await rt.close();
  await fake.close();
});

const TABLES = ['candidates', 'candidate_embeddings', 'model_calls'];
async function counts(): Promise<Record<string, number>> {
  // Embedding calls' ledger rows are written by the journal, within ~150 ms of the call.
  await rt.services.journal.flush();
  const r = await rt.db.query<Record<string, number>>(`SELECT ${TABLES.map((t) => `(SELECT count(*)::int FROM ${t}) AS ${t}`).join(', ')}`);
  return r.rows[0]!;
}
const embeddingRequests = () => fake.requests.filter((r) => r.path === '/v1/embeddings').length;
const upsert = (candidates: unknown[]) => rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates } });

test('item 7 of 10 with a yearsExperience a real cannot hold: 400 at its path, before any embedding call or ledger row', async () => {
  const before = await counts();
  const sent = embeddingRequests();
  const batch = Array.from({ length: 10 }, (_, i) => candidate(`u-${i}`, i === 6 ? { yearsExperience: 1e-320 } : {}));
  const res = await upsert(batch);
  assert.equal(res.statusCode, 400, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const paths = (res.json().errors ?? []).map((e: { path: string }) => e.path);
  assert.deepEqual(paths, ['body.candidates.6.yearsExperience'], 'the error names the item and the field');
  assert.equal(embeddingRequests(), sent, 'no model was asked to embed a batch that cannot be stored');
  assert.deepEqual(await counts(), before, 'no candidate, vector or ledger row');

  // The smallest values a real holds are stored; zero is zero.
  const fine = await upsert([candidate('u-small', { yearsExperience: 1e-44 }), candidate('u-zero', { yearsExperience: 0 })]);
  assert.equal(fine.statusCode, 200, fine.body);
});

test('the embedding endpoint failing after our retries: a 502 model_call_failed problem, no candidate or vector written', async () => {
  const before = await counts();
  // LLM_MAX_RETRIES=1: two attempts, both refused.
  fake.script(fakeReply.serverError(503), fakeReply.serverError(503));
  const res = await upsert([candidate('down-1'), candidate('down-2')]);
  assert.equal(res.statusCode, 502, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = res.json();
  assert.equal(body.type, 'https://talent-matcher.dev/problems/model_call_failed');
  assert.equal(body.status, 502);
  assert.doesNotMatch(body.detail, /server had an error|fake-embed/, 'the provider’s own words stay in the log');
  const after = await counts();
  assert.equal(after.candidates, before.candidates, 'no candidate');
  assert.equal(after.candidate_embeddings, before.candidate_embeddings, 'no vector');
  assert.equal(after.model_calls, before.model_calls! + 2, 'each failed attempt is on the ledger, as every attempt is');

  // The endpoint is back: the same batch goes through.
  assert.equal((await upsert([candidate('down-1'), candidate('down-2')])).statusCode, 200);
});
