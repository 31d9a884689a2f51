// Changing the embedding model needs no SQL: reembed fills the new model's vectors, batch by batch, resumably.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKeyStore } from '../../src/auth/api-keys.js';
import { createCandidateService, embeddingText } from '../../src/candidates/candidate-service.js';
import { createCandidateStore } from '../../src/candidates/candidate-store.js';
import type { Database } from '../../src/db/database.js';
import type { Embedder } from '../../src/embeddings/embedder.js';
import { createLlmEmbedder } from '../../src/embeddings/llm-embedder.js';
import { createLocalEmbedder } from '../../src/embeddings/local-embedder.js';
import { reembed } from '../../src/embeddings/reembed.js';
import { createSearch, ensureVectorIndex } from '../../src/retrieval/search.js';
import { createTestDatabase } from '../support/database.js';
import { fakeReply } from '../support/fake-llm-server.js';
import { backendPool } from '../support/fixtures.js';
import { setupLlm } from '../llm/harness.js';

let db: Database;
let orgId: string;
before(async () => {
  db = await createTestDatabase();
  const old = createLocalEmbedder();
  await ensureVectorIndex(db, old.model, old.dimension);
  orgId = await createApiKeyStore(db).ensureOrganisation('default');
  await createCandidateService({ db, store: createCandidateStore(db), embedder: old }).upsert(orgId, backendPool());
});
after(() => db?.close());

test('an interrupted re-embed resumes where it stopped and never embeds a candidate twice', async () => {
  const next = createLocalEmbedder({ dimension: 1024 });
  const embedded: string[] = [];
  let failAfter = 1;
  const flaky: Embedder = {
    model: next.model,
    dimension: next.dimension,
    async embed(texts, opts) {
      if (failAfter-- <= 0) throw new Error('provider went away');
      embedded.push(...texts);
      return next.embed(texts, opts);
    },
  };
  await assert.rejects(reembed(db, flaky, { batch: 2 }), /provider went away/);
  assert.equal(embedded.length, 2, 'one batch done before the failure');
  failAfter = Infinity;
  const progress: number[] = [];
  // What reads the pool: each batch reads on from the last one's id, and what is left is counted once.
  const statements: string[] = [];
  const query = db.query.bind(db);
  db.query = ((text: string, values?: unknown[]) => (statements.push(text), query(text, values))) as typeof db.query;
  let rest: number;
  try {
    rest = await reembed(db, flaky, { batch: 2, onProgress: (p) => progress.push(p.remaining) });
  } finally {
    db.query = query;
  }
  assert.equal(rest, 4);
  assert.deepEqual(progress, [2, 0]);
  assert.equal(statements.filter((s) => s.includes('count(*)')).length, 1, 'the count of what is left is read once');
  const batches = statements.filter((s) => s.includes('ORDER BY c.id LIMIT'));
  assert.equal(batches.length, 3);
  assert.ok(batches.every((s) => /c\.id > \$\d/.test(s)), 'every batch reads on from the last id');
  // Counted with repeats: a set of the texts would hide a candidate embedded twice.
  assert.equal(new Set(embedded).size, 6, 'every candidate embedded');
  assert.equal(embedded.length, 6, 'and none of them twice');
  assert.equal(progress.at(-1), 0);
  const vectors = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM candidate_embeddings WHERE model = $1', [next.model]);
  assert.equal(vectors.rows[0]!.n, 6);
  assert.equal(await reembed(db, next, { batch: 2 }), 0, 'nothing left to do');
  const hits = await createSearch({ db, embedder: next }).search({ orgId, queries: ['Go Kubernetes'], filters: {}, excludeIds: [], limit: 3 });
  assert.equal(hits.length, 3);
  assert.ok(hits[0]!.vectorRank !== null, 'the new model is searchable');
});

test('re-embedding scrubs stale rows first: no copy made by older rules reaches the embedding model', async () => {
  // A row as older rules left it: an email and a phone the current rules remove, still in its scrubbed copy.
  const row = (await db.query<{ id: string }>('SELECT id FROM candidates ORDER BY id LIMIT 1')).rows[0]!;
  await db.query(
    `UPDATE candidates SET resume = 'Go engineer. Call me at 0171/1234567 or pat.doe@example.org',
       scrubbed_text = 'Go engineer. Call me at 0171/1234567 or pat.doe@example.org', scrub_version = 0 WHERE id = $1`,
    [row.id],
  );
  await db.query('DELETE FROM candidate_embeddings WHERE candidate_id = $1', [row.id]);
  const local = createLocalEmbedder();
  const sent: string[] = [];
  const capturing: Embedder = { model: local.model, dimension: local.dimension, embed: async (texts, opts) => (sent.push(...texts), local.embed(texts, opts)) };
  assert.equal(await reembed(db, capturing, { batch: 10 }), 1);
  assert.equal(sent.length, 1);
  assert.doesNotMatch(sent[0]!, /pat\.doe|1234567/, sent[0]);
});

test('a candidate erased while its batch is embedded gets no vector, and the rest of the batch does', async () => {
  const next = createLocalEmbedder({ dimension: 768 });
  let erased: string | null = null;
  const erasing: Embedder = {
    model: next.model,
    dimension: next.dimension,
    async embed(texts, opts) {
      if (!erased) {
        // An erasure through the API lands while the model works on the first batch.
        erased = (await db.query<{ id: string }>('SELECT id FROM candidates ORDER BY id LIMIT 1')).rows[0]!.id;
        await db.query('DELETE FROM candidates WHERE id = $1', [erased]);
      }
      return next.embed(texts, opts);
    },
  };
  const left = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM candidates')).rows[0]!.n;
  await reembed(db, erasing, { batch: 3 });
  const vectors = await db.query<{ candidate_id: string }>('SELECT candidate_id FROM candidate_embeddings WHERE model = $1', [next.model]);
  assert.equal(vectors.rows.length, left - 1, 'every candidate still there has a vector of the new model');
  assert.ok(!vectors.rows.some((r) => r.candidate_id === erased), 'and the erased one none');
});

test("a batch spanning organisations sends no text of a candidate erased while another organisation's texts were embedded", async () => {
  const otherOrg = await createApiKeyStore(db).ensureOrganisation('other');
  await createCandidateService({ db, store: createCandidateStore(db), embedder: createLocalEmbedder() }).upsert(otherOrg, backendPool('o').map((c) => ({ ...c, resume: `${c.resume} Seen by the Zorblat office.` })));
  const next = createLocalEmbedder({ dimension: 640 });
  const sent: string[][] = [];
  let victim = null as { id: string; text: string } | null;
  const erasing: Embedder = {
    model: next.model,
    dimension: next.dimension,
    async embed(texts, opts) {
      if (!victim) {
        // While the first organisation's group is embedded, a candidate of the batch's other organisation is erased.
        const other = (
          await db.query<{ id: string; scrubbed_headline: string | null; scrubbed_skills: string[]; scrubbed_text: string }>(
            'SELECT id, scrubbed_headline, scrubbed_skills, scrubbed_text FROM candidates WHERE org_id <> $1 ORDER BY id LIMIT 1',
            [opts!.orgId],
          )
        ).rows[0]!;
        victim = { id: other.id, text: embeddingText({ scrubbedHeadline: other.scrubbed_headline, scrubbedSkills: other.scrubbed_skills, scrubbedText: other.scrubbed_text }) };
        await db.query('DELETE FROM candidates WHERE id = $1', [victim.id]);
      }
      // As an embedder that sends the texts somewhere does: the caller's check first (EmbedOptions.beforeSend).
      await opts?.beforeSend?.();
      sent.push(texts);
      return next.embed(texts, opts);
    },
  };
  // One batch holds both organisations' candidates.
  await reembed(db, erasing, { batch: 100 });
  assert.ok(victim);
  assert.equal(sent.length, 2, 'one request per organisation');
  assert.ok(!sent.flat().includes(victim!.text), "the erased candidate's text was not sent");
  const left = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM candidates')).rows[0]!.n;
  const vectors = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM candidate_embeddings WHERE model = $1', [next.model]);
  assert.equal(vectors.rows[0]!.n, left, 'every candidate still there has a vector');
});

test("a candidate erased during an embedding request's back-off is not in the retry; the rest of its group is embedded", async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  const embedder = createLlmEmbedder({ client: h.client, registry: h.registry, settings: h.settings, ledger: h.ledger });
  let victim = null as { id: string; text: string } | null;
  let failed = false;
  h.server.setHandler(async (req) => {
    if (req.path !== '/v1/embeddings' || failed) return undefined;
    // The first request fails; before its answer, one of its candidates is erased: the retry must leave it out.
    failed = true;
    const rows = await db.query<{ id: string; scrubbed_headline: string | null; scrubbed_skills: string[]; scrubbed_text: string }>(
      'SELECT id, scrubbed_headline, scrubbed_skills, scrubbed_text FROM candidates ORDER BY id',
    );
    const texts = rows.rows.map((r) => ({ id: r.id, text: embeddingText({ scrubbedHeadline: r.scrubbed_headline, scrubbedSkills: r.scrubbed_skills, scrubbedText: r.scrubbed_text }) }));
    victim = texts.find((c) => (req.body.input as string[]).includes(c.text))!;
    await db.query('DELETE FROM candidates WHERE id = $1', [victim.id]);
    return fakeReply.serverError(503);
  });
  await reembed(db, embedder, { batch: 1_000 });
  const inputs = h.server.requests.filter((r) => r.path === '/v1/embeddings').map((r) => r.body.input as string[]);
  assert.ok(victim);
  assert.ok(inputs.length >= 2, 'the failed request and the retry');
  assert.ok(!inputs.slice(1).flat().includes(victim!.text), "no request after the erasure carried the erased candidate's text");
  const left = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM candidates')).rows[0]!.n;
  const vectors = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM candidate_embeddings WHERE model = $1', [embedder.model]);
  assert.equal(vectors.rows[0]!.n, left, 'every candidate still there has a vector');
  // The refused attempt was never sent: the ledger has the failed request and the answered ones, nothing for it.
  assert.equal(h.ledger.entries().length, inputs.length);
  assert.deepEqual(h.ledger.entries().map((e) => e.outcome).slice(0, 1), ['error']);
});
