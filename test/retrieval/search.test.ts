// Hybrid retrieval on a real pgvector index: ranking, exclusion of seen ids, filters that do not starve, and the
// exact one-scan form for small pools giving the same lists as the per-query index form.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKeyStore } from '../../src/auth/api-keys.js';
import { createCandidateService } from '../../src/candidates/candidate-service.js';
import { createCandidateStore } from '../../src/candidates/candidate-store.js';
import type { Database, Queryable } from '../../src/db/database.js';
import { createLocalEmbedder } from '../../src/embeddings/local-embedder.js';
import { filterSql } from '../../src/retrieval/filters.js';
import { createSearch, ensureVectorIndex, type Search, type SearchRequest } from '../../src/retrieval/search.js';
import { createTermRarity } from '../../src/retrieval/term-rarity.js';
import { createTestDatabase } from '../support/database.js';
import { candidate } from '../support/fixtures.js';

let db: Database;
let search: Search;
/** The same search with the pool-size threshold forced each way (the pool here is TOTAL candidates). */
const forms: Record<'exact' | 'indexed', Search> = {} as never;
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
  forms.exact = createSearch({ db, embedder, exactScanMaxPool: TOTAL });
  forms.indexed = createSearch({ db, embedder, exactScanMaxPool: TOTAL - 1 });
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

for (const form of ['exact', 'indexed'] as const) {
  test(`${form} form: a 1%-selective filter still returns limit rows when they exist`, async () => {
    const search = forms[form];
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

  test(`${form} form: seen candidates are never returned again`, async () => {
    const search = forms[form];
    const first = await search.search({ orgId, queries: ['Python Django'], filters: {}, excludeIds: [], limit: 50 });
    const second = await search.search({ orgId, queries: ['Python Django'], filters: {}, excludeIds: first.map((h) => h.id), limit: 50 });
    assert.equal(second.length, 50);
    const seen = new Set(first.map((h) => h.id));
    assert.ok(second.every((h) => !seen.has(h.id)));
  });
}

test('an empty or blank query set retrieves nothing rather than everything', async () => {
  assert.deepEqual(await search.search({ orgId, queries: ['  '], filters: {}, excludeIds: [], limit: 10 }), []);
});

/** The database with every statement recorded; with indexScansOff each transaction first turns index scans off. */
function recorded(inner: Database, opts: { indexScansOff?: boolean } = {}) {
  const log = { statements: [] as string[], transactions: 0 };
  const record = (q: Queryable): Queryable => ({ query: (text, values) => (log.statements.push(text), q.query(text, values)) });
  const spy: Database = {
    ...inner,
    ...record(inner),
    withTransaction: (fn) => {
      log.transactions++;
      return inner.withTransaction(async (tx) => {
        if (opts.indexScansOff) await tx.query('SET LOCAL enable_indexscan = off');
        return fn(record(tx));
      });
    },
  };
  return { db: spy, log };
}

test('a pool up to the threshold is searched in one statement; a larger one through the index, with its settings', async () => {
  const embedder = createLocalEmbedder();
  const req: SearchRequest = { orgId, queries: ['Go Kubernetes', 'Swift iOS'], filters: {}, excludeIds: [], limit: 10 };
  const small = recorded(db);
  const exact = createSearch({ db: small.db, embedder, exactScanMaxPool: TOTAL });
  await exact.search(req); // loads the term statistics
  small.log.statements.length = 0;
  await exact.search(req);
  assert.equal(small.log.transactions, 0);
  assert.equal(small.log.statements.length, 2, 'the query lexemes, then every list');
  assert.doesNotMatch(small.log.statements[1]!, /ORDER BY e\.embedding/, 'no list orders the embeddings table itself');
  const large = recorded(db);
  const indexed = createSearch({ db: large.db, embedder, exactScanMaxPool: TOTAL - 1 });
  await indexed.search(req);
  assert.equal(large.log.transactions, 1);
  assert.match(large.log.statements.join('\n'), /SET LOCAL hnsw\.ef_search = 50/);
  assert.match(large.log.statements.at(-1)!, /ORDER BY e\.embedding::vector\(512\) <=> \$\d+::vector\(512\) FETCH FIRST \(\$3\) ROWS WITH TIES/, 'the indexed expression');
});

test('the queries’ words are read while they embed: a model’s embedding does not wait for that statement, nor it for the embedding', async () => {
  const local = createLocalEmbedder();
  const req: SearchRequest = { orgId, queries: ['Go Kubernetes', 'Swift iOS'], filters: {}, excludeIds: [], limit: 10 };
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const events: string[] = [];
  // An embedding model that answers only when the test says so.
  const slow = { model: local.model, dimension: local.dimension, embed: async (texts: string[]) => (events.push('embedding asked'), await answered, events.push('embedding answered'), local.embed(texts)) };
  const spy: Database = { ...db, query: (text, values) => (events.push(/array_agg\(DISTINCT l\.lexeme\)/.test(text) ? 'words read' : 'other statement'), db.query(text, values)) };
  const searching = createSearch({ db: spy, embedder: slow }).search(req);
  // The statement is sent and answered while the embedding is still out.
  for (let i = 0; i < 200 && !events.includes('words read'); i++) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(events.slice(0, 2).sort(), ['embedding asked', 'words read']);
  assert.ok(!events.includes('embedding answered'));
  answer();
  const [hits, expected] = await Promise.all([searching, createSearch({ db, embedder: local }).search(req)]);
  assert.deepEqual(hits, expected, 'the same hits as a search that embeds first');
});

test('a search whose words read fails still waits for its embedding: the paid call is settled before the run hears of the failure', async () => {
  const local = createLocalEmbedder();
  const req: SearchRequest = { orgId, queries: ['Go Kubernetes'], filters: {}, excludeIds: [], limit: 10 };
  const events: string[] = [];
  // An embedding endpoint still working when the statement fails (with EMBEDDINGS=llm its ledger row comes with its answer).
  const slow = { model: local.model, dimension: local.dimension, embed: async (texts: string[]) => (await new Promise((r) => setTimeout(r, 150)), events.push('embedding answered'), local.embed(texts)) };
  const failing: Database = {
    ...db,
    query: async (text, values) => {
      if (/array_agg\(DISTINCT l\.lexeme\)/.test(text)) {
        events.push('words read failed');
        throw new Error('canceling statement due to statement timeout');
      }
      return db.query(text, values);
    },
  };
  await assert.rejects(createSearch({ db: failing, embedder: slow }).search(req), /statement timeout/);
  events.push('search failed');
  assert.deepEqual(events, ['words read failed', 'embedding answered', 'search failed']);
});

test('the one-scan form returns the lists the per-query form returns when it scans every row, and full-text ranks per query', async () => {
  // The per-query form with index scans off is what it was before the one-scan form, on pools the planner scanned.
  const perQuery = createSearch({ db: recorded(db, { indexScansOff: true }).db, embedder: createLocalEmbedder(), exactScanMaxPool: 0 });
  const seen = (await search.search({ orgId, queries: ['Java Spring Kafka'], filters: {}, excludeIds: [], limit: 40 })).map((h) => h.id);
  const requests: SearchRequest[] = [
    { orgId, queries: ['Go Kubernetes gRPC engineer', 'Python Django payments'], filters: {}, excludeIds: [], limit: 60 },
    { orgId, queries: ['React TypeScript', 'Swift iOS logistics', 'Rust WebAssembly'], filters: {}, excludeIds: seen, limit: 60 },
    { orgId, queries: ['engineer payments', 'Kafka'], filters: { skillsAny: ['Java', 'Rust'], minYears: 3 }, excludeIds: seen, limit: 60 },
    { orgId, queries: ['Lisbon engineer'], filters: { location: 'lisbon' }, excludeIds: [], limit: 60 },
  ];
  for (const req of requests) {
    const hits = await forms.exact.search(req);
    assert.ok(hits.length > 0);
    assert.deepEqual(hits, await perQuery.search(req), req.queries.join(' / '));
  }
  // Each query's full-text list on its own, as the statement used to rank it: a hit's textRank is its best rank in them.
  const req = requests[2]!;
  const values: unknown[] = [orgId, req.excludeIds];
  const filters = filterSql(req.filters, values);
  const tsqueries = await createTermRarity(db).tsqueries(orgId, req.queries);
  const best = new Map<string, number>();
  for (const tsquery of tsqueries) {
    const r = await db.query<{ id: string; value: number }>(
      `SELECT c.id, ts_rank_cd(c.search_tsv, q, 1) AS value FROM candidates c, to_tsquery('simple', $${values.length + 1}) q
       WHERE c.org_id = $1 AND c.search_tsv @@ q AND NOT (c.id = ANY($2::uuid[])) ${filters}
       ORDER BY value DESC FETCH FIRST 120 ROWS WITH TIES`,
      [...values, tsquery],
    );
    // Rows of equal rank share the best of their ranks.
    r.rows.forEach((row, i) => {
      const rank = r.rows.findIndex((other) => other.value === row.value) + 1;
      assert.ok(rank <= i + 1);
      best.set(row.id, Math.min(best.get(row.id) ?? Infinity, rank));
    });
  }
  const hits = await forms.exact.search(req);
  assert.ok(hits.some((h) => h.textRank !== null));
  for (const h of hits) assert.equal(h.textRank, best.get(h.id) ?? null, h.id);
});

test('term statistics keep only the most common lexemes: a rarer one left out is still searched, as rare, and one no resume has, as the rarest', async () => {
  const queries = ['WebAssembly Linux engineer', 'zzyzx-never-written'];
  const full = await createTermRarity(db).tsqueries(orgId, queries);
  // A pool of 2,000 resumes has far more lexemes than 20: "webassembl" (1 % of resumes) is not among the most common.
  const read: number[] = [];
  const spy: Database = {
    ...db,
    query: async <R>(text: string, values?: unknown[]) => {
      const r = await db.query<R>(text, values);
      if (/ts_stat/.test(text)) read.push(r.rows.length);
      return r;
    },
  };
  const truncated = await createTermRarity(spy, { maxLexemes: 20 }).tsqueries(orgId, queries);
  assert.deepEqual(read, [21], 'what is read of the statistics is bounded (one more row says there were more)');
  assert.match(full[0]!, /'webassembl'/);
  assert.match(truncated[0]!, /'webassembl'/, 'still searched');
  assert.equal(truncated[0]!.split(' | ')[0], full[0]!.split(' | ')[0], 'and still first, as the rarest');
  // It may be a word of candidates uploaded since the statistics were read.
  assert.deepEqual(full[1]!.split(' | ').sort(), ["'never'", "'written'", "'zzyzx'", "'zzyzx-never-written'"], 'words no resume had when they were read are searched, as the rarest');
});

test('a search right after an upload finds the new candidates by their words, as a process that read the statistics after it would', async () => {
  const org = await createApiKeyStore(db).ensureOrganisation('uploads-after-a-search');
  const service = createCandidateService({ db, store: createCandidateStore(db), embedder: createLocalEmbedder() });
  await service.upsert(org, Array.from({ length: 20 }, (_, i) => candidate(`u${i}`, { resume: `Engineer ${i} building Java services.` })));
  const query = ['Flimflammer Quuxcraft developer'];
  const rarity = createTermRarity(db);
  await rarity.tsqueries(org, query); // the statistics are read, and kept for a minute
  await service.upsert(org, [
    candidate('quux-1', { resume: 'Flimflammer and Quuxcraft developer for eight years.' }),
    candidate('quux-2', { resume: 'Built Quuxcraft pipelines; flimflammer by trade.' }),
  ]);
  const after = await rarity.tsqueries(org, query);
  assert.match(after[0]!, /'flimflamm'/);
  assert.match(after[0]!, /'quuxcraft'/);
  // The same words a process reading the statistics now would search (in another order: theirs are rarest first).
  const now = await createTermRarity(db).tsqueries(org, query);
  assert.deepEqual(new Set(after[0]!.split(' | ').slice(0, 2)), new Set(now[0]!.split(' | ').slice(0, 2)));
});

test('a list keeps its ties, but not a whole pool of one text: at most four times what it fetches', async () => {
  const org = await createApiKeyStore(db).ensureOrganisation('one-text-pool');
  const service = createCandidateService({ db, store: createCandidateStore(db), embedder: createLocalEmbedder() });
  // Title-only imports: 260 candidates with the same text tie in every list.
  const pool = Array.from({ length: 260 }, (_, i) => candidate(`same${i}`, { resume: 'Java developer', skills: [] }));
  for (let i = 0; i < pool.length; i += 130) await service.upsert(org, pool.slice(i, i + 130));
  const rows: number[] = [];
  const spy: Database = {
    ...db,
    query: async <R>(text: string, values?: unknown[]) => {
      const r = await db.query<R>(text, values);
      if (/WITH TIES/.test(text)) rows.push(r.rows.length);
      return r;
    },
  };
  const hits = await createSearch({ db: spy, embedder: createLocalEmbedder() }).search({ orgId: org, queries: ['Java developer'], filters: {}, excludeIds: [], limit: 10 });
  assert.equal(hits.length, 10);
  // One vector list and one text list, each fetching 50: their ties kept up to 200 rows each, not all 260.
  assert.deepEqual(rows, [400]);
  assert.ok(hits.every((h) => h.vectorRank === 1 && h.textRank === 1), 'tied rows share the first rank');
});
