// Hybrid retrieval on a real pgvector index: ranking, exclusion of seen ids, and filters that do not starve.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKeyStore } from '../../src/auth/api-keys.js';
import { createCandidateService } from '../../src/candidates/candidate-service.js';
import { createCandidateStore } from '../../src/candidates/candidate-store.js';
import type { Database } from '../../src/db/database.js';
import { createLocalEmbedder } from '../../src/embeddings/local-embedder.js';
import { createSearch, ensureVectorIndex, type Search } from '../../src/retrieval/search.js';
import { createTestDatabase } from '../support/database.js';
import { candidate } from '../support/fixtures.js';

let db: Database;
let search: Search;
let orgId: string;
const TOTAL = 2000;

const STACKS = [
  ['Java', 'Spring', 'Kafka'],
  ['Python', 'Django', 'PostgreSQL'],
  ['React', 'TypeScript', 'CSS'],
  ['Go', 'Kubernetes', 'gRPC'],
  ['Swift', 'iOS', 'UIKit'],
];

before(async () => {
  db = await createTestDatabase();
  const embedder = createLocalEmbedder();
  await ensureVectorIndex(db, embedder.model, embedder.dimension);
  search = createSearch({ db, embedder });
  orgId = await createApiKeyStore(db).ensureOrganisation('default');
  const service = createCandidateService({ db, store: createCandidateStore(db), embedder });
  const all = Array.from({ length: TOTAL }, (_, i) => {
    // Exactly 1% are Rust engineers in Lisbon: the selective filter's population.
    const rare = i % 100 === 7;
    const stack = rare ? ['Rust', 'WebAssembly', 'Linux'] : STACKS[i % STACKS.length]!;
    return candidate(`r${i}`, {
      skills: stack,
      location: rare ? 'Lisbon, PT' : 'Berlin, DE',
      yearsExperience: i % 15,
      resume: `Engineer ${i} working with ${stack.join(', ')} on ${i % 2 ? 'payments' : 'logistics'} systems.`,
    });
  });
  for (let i = 0; i < all.length; i += 500) await service.upsert(orgId, all.slice(i, i + 500));
});
after(() => db?.close());

test('results are fused by reciprocal rank, best first, each with its per-source evidence', async () => {
  const hits = await search.search({ orgId, queries: ['Go Kubernetes gRPC engineer'], filters: {}, excludeIds: [], limit: 30 });
  assert.equal(hits.length, 30);
  const scores = hits.map((h) => h.fusedScore);
  assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
  const skills = await db.query<{ id: string; skills: string[] }>('SELECT id, skills FROM candidates WHERE id = ANY($1::uuid[])', [hits.slice(0, 10).map((h) => h.id)]);
  assert.ok(skills.rows.every((r) => r.skills.includes('Go')), 'the top ten are Go engineers');
  assert.ok(hits.every((h) => h.vectorRank !== null || h.textRank !== null));
  assert.ok(hits.some((h) => h.vectorRank !== null && h.textRank !== null), 'both sources contribute');
});

test('a 1%-selective filter still returns limit rows when they exist', async () => {
  const hits = await search.search({ orgId, queries: ['Go Kubernetes engineer'], filters: { skillsAll: ['rust'] }, excludeIds: [], limit: 20 });
  assert.equal(hits.length, 20, 'all twenty Rust engineers, although the query is about Go');
  const located = await search.search({ orgId, queries: ['React engineer'], filters: { location: 'lisbon', minYears: 0 }, excludeIds: [], limit: 20 });
  assert.equal(located.length, 20);
  const both = await search.search({ orgId, queries: ['engineer'], filters: { skillsAny: ['WebAssembly', 'Swift'], minYears: 14 }, excludeIds: [], limit: 500 });
  const expected = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM candidates WHERE (skill_keys && ARRAY['webassembly','swift']) AND years_experience >= 14",
  );
  assert.equal(both.length, expected.rows[0]!.n);
});

test('seen candidates are never returned again', async () => {
  const first = await search.search({ orgId, queries: ['Python Django'], filters: {}, excludeIds: [], limit: 50 });
  const second = await search.search({ orgId, queries: ['Python Django'], filters: {}, excludeIds: first.map((h) => h.id), limit: 50 });
  assert.equal(second.length, 50);
  const seen = new Set(first.map((h) => h.id));
  assert.ok(second.every((h) => !seen.has(h.id)));
});

test('an empty or blank query set retrieves nothing rather than everything', async () => {
  assert.deepEqual(await search.search({ orgId, queries: ['  '], filters: {}, excludeIds: [], limit: 10 }), []);
});
