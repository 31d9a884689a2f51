// Retrieval latency at scale: HNSW against exact vector search (index off), HNSW recall@50, and the whole hybrid search.
import { createSearch, ensureVectorIndex, vectorIndexFor } from '../../src/retrieval/search.js';
import { createSingleSource, vectorPlan } from './retrieval-sql.js';
import { ingest, openRuntime } from './runtime.js';
import { heading, mean, percentile, reportTargets, table } from './stats.js';
import { syntheticCandidates, syntheticQuery } from './synthetic.js';

const K = 50;
/** search.ts fetches max(2 * limit, 50) per list and sets ef_search to the same: for limit 50, 100. */
const FETCH = 100;
const WARMUP = 5;

const planSummary = (plan: string) => (/Index Scan using (\S+)/.exec(plan)?.[0] ?? (/Seq Scan on \S+/.exec(plan)?.[0] ?? plan.split('\n')[0]!));

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

export async function benchRetrieval(opts: { count: number; queries: number }): Promise<void> {
  // No worker: nothing but these queries touches the database.
  const rt = await openRuntime({ PROCESS_ROLE: 'api' });
  try {
    const embedder = rt.services.embedder;
    const { name: index } = vectorIndexFor(embedder.model, embedder.dimension);
    heading(`retrieval: ${opts.count} synthetic candidates, ${opts.queries} queries, top ${K}`);
    // Loading: through the candidate service with the HNSW index dropped, then one CREATE INDEX (a bulk build is
    // about 5x faster than maintaining the graph row by row in PGlite; the graph is built by the same algorithm).
    let t = performance.now();
    await rt.db.query(`DROP INDEX ${index}`);
    await ingest(rt, syntheticCandidates(opts.count));
    const ingestS = (performance.now() - t) / 1000;
    t = performance.now();
    await ensureVectorIndex(rt.db, embedder.model, embedder.dimension);
    await rt.db.query('ANALYZE candidates; ANALYZE candidate_embeddings');
    console.log(`loaded in ${ingestS.toFixed(1)} s + HNSW build ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const single = createSingleSource(rt.db, embedder);
    const search = createSearch({ db: rt.db, embedder });
    const texts = Array.from({ length: opts.queries + WARMUP }, (_, i) => syntheticQuery(i));
    const vectors = await embedder.embed(texts);
    console.log(`plan, HNSW: ${planSummary(await vectorPlan(rt.db, embedder, rt.orgId, vectors[0]!, false))}`);
    console.log(`plan, exact: ${planSummary(await vectorPlan(rt.db, embedder, rt.orgId, vectors[0]!, true))}`);

    const hnswMs: number[] = [];
    const exactMs: number[] = [];
    const textMs: number[] = [];
    const hybridMs: number[] = [];
    const recalls: number[] = [];
    const short: number[] = [];
    for (const [i, vector] of vectors.entries()) {
      const hnsw = await timed(() => single.vector(rt.orgId, vector, FETCH));
      const exact = await timed(() => single.vector(rt.orgId, vector, K, { exact: true }));
      const text = await timed(() => single.text(rt.orgId, texts[i]!, FETCH));
      const hybrid = await timed(() => search.search({ orgId: rt.orgId, queries: [texts[i]!], filters: {}, excludeIds: [], limit: K }));
      if (i < WARMUP) continue;
      hnswMs.push(hnsw.ms);
      exactMs.push(exact.ms);
      textMs.push(text.ms);
      hybridMs.push(hybrid.ms);
      const truth = new Set(exact.value);
      if (hnsw.value.length < K) short.push(hnsw.value.length);
      recalls.push(hnsw.value.slice(0, K).filter((id) => truth.has(id)).length / Math.max(1, truth.size));
    }
    const row = (name: string, ms: number[]) => [name, percentile(ms, 50), percentile(ms, 95), mean(ms)];
    console.log(table(['query (ms)', 'p50', 'p95', 'mean'], [
      row(`vector, HNSW (ef_search ${FETCH}, LIMIT ${FETCH})`, hnswMs),
      row(`vector, exact (index scans off, LIMIT ${K})`, exactMs),
      row(`full-text alone (OR query, ts_rank_cd, LIMIT ${FETCH})`, textMs),
      row('hybrid createSearch().search (embed + vector + full-text + fusion)', hybridMs),
    ]));
    const recall = mean(recalls);
    console.log(`HNSW recall@${K} against exact: mean ${recall.toFixed(3)}, worst query ${Math.min(...recalls).toFixed(2)}; queries where HNSW returned fewer than ${K} rows: ${short.length}${short.length ? ` (${short.join(', ')} rows)` : ''}`);
    console.log('(no targets were set for this benchmark; the two below are proposed)');
    reportTargets([
      { name: `HNSW recall@${K} against exact (proposed)`, value: recall, op: '>=', target: 0.95 },
      { name: 'HNSW p95 / exact p50 (proposed: the index must pay for itself)', value: percentile(hnswMs, 95) / percentile(exactMs, 50), op: '<=', target: 0.5 },
    ]);
  } finally {
    await rt.close();
  }
}
