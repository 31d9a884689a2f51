// An erasure while an upload of the same candidate is under way (its texts are being embedded, which can take a model
// call's time): the upload must not bring the erased candidate back.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { candidate } from '../support/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';

let rt: TestRuntime;
before(async () => {
  rt = await startTestRuntime({ PROCESS_ROLE: 'api' });
});
after(() => rt.close());

async function upsert(candidates: unknown[]) {
  return rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates } });
}

test('a candidate erased while its update is being embedded stays erased; the rest of the batch is written', async (t) => {
  const first = await upsert([candidate('race-1'), candidate('race-2')]);
  assert.equal(first.statusCode, 200, first.body);
  const [erased, kept] = first.json().items.map((i: { id: string }) => i.id) as [string, string];

  // The erasure lands while the upload's changed texts are embedded: after it read the stored rows, before it writes.
  const embedder = rt.services.embedder;
  const embed = embedder.embed.bind(embedder);
  t.after(() => (embedder.embed = embed));
  embedder.embed = async (texts, opts) => {
    const del = await rt.app!.inject({ method: 'DELETE', url: `/v1/candidates/${erased}`, headers: rt.auth() });
    assert.equal(del.statusCode, 204);
    return embed(texts, opts);
  };
  const second = await upsert([
    candidate('race-1', { resume: 'Now a Rust engineer on payment ledgers.' }),
    candidate('race-2', { resume: 'Now a Go engineer on Kubernetes operators.' }),
  ]);
  assert.equal(second.statusCode, 200, second.body);
  // As if the upload came just before the erasure: an update of the candidate the erasure then removed.
  assert.deepEqual(second.json().items, [
    { externalId: 'race-1', id: erased, status: 'updated' },
    { externalId: 'race-2', id: kept, status: 'updated' },
  ]);

  const rows = await rt.db.query<{ external_id: string; resume: string }>("SELECT external_id, resume FROM candidates WHERE external_id LIKE 'race-%' ORDER BY external_id");
  assert.deepEqual(rows.rows, [{ external_id: 'race-2', resume: 'Now a Go engineer on Kubernetes operators.' }], 'no row, under any id, for the erased candidate');
  const vectors = await rt.db.query<{ candidate_id: string }>(
    "SELECT e.candidate_id FROM candidate_embeddings e JOIN candidates c ON c.id = e.candidate_id WHERE c.external_id LIKE 'race-%'",
  );
  assert.deepEqual(vectors.rows, [{ candidate_id: kept }]);
  assert.equal((await rt.app!.inject({ url: `/v1/candidates/${erased}`, headers: rt.auth() })).statusCode, 404);

  // Uploaded again after the erasure, it is a new candidate.
  embedder.embed = embed;
  const again = await upsert([candidate('race-1', { resume: 'Now a Rust engineer on payment ledgers.' })]);
  assert.equal(again.json().items[0].status, 'created');
  assert.notEqual(again.json().items[0].id, erased);
});
