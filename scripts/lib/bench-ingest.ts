// Ingestion throughput: synthetic candidates through the candidate service in batches of 500, local embeddings.
import { embeddingText, prepareCandidate } from '../../src/candidates/candidate-service.js';
import { ensureVectorIndex, vectorIndexFor } from '../../src/retrieval/search.js';
import { INGEST_BATCH, openRuntime } from './runtime.js';
import { heading, table } from './stats.js';
import { syntheticCandidates } from './synthetic.js';

export async function benchIngest(opts: { count: number }): Promise<void> {
  const inputs = syntheticCandidates(opts.count);
  const rt = await openRuntime({ PROCESS_ROLE: 'api' });
  try {
    heading(`ingest: ${opts.count} synthetic candidates, batches of ${INGEST_BATCH}, embedder ${rt.services.embedder.model}`);
    const batchSeconds: number[] = [];
    const started = performance.now();
    for (let i = 0; i < inputs.length; i += INGEST_BATCH) {
      const t = performance.now();
      await rt.services.candidates.upsert(rt.orgId, inputs.slice(i, i + INGEST_BATCH));
      batchSeconds.push((performance.now() - t) / 1000);
    }
    const total = (performance.now() - started) / 1000;

    // The same work split by phase, measured apart from the upserts (the write phase is the remainder).
    const t0 = performance.now();
    const prepared = inputs.map(prepareCandidate);
    const t1 = performance.now();
    await rt.services.embedder.embed(prepared.map(embeddingText));
    const t2 = performance.now();
    const prepareS = (t1 - t0) / 1000;
    const embedS = (t2 - t1) / 1000;

    // Re-sending unchanged candidates: hashed and skipped, nothing embedded or written.
    const t3 = performance.now();
    for (let i = 0; i < inputs.length; i += INGEST_BATCH) await rt.services.candidates.upsert(rt.orgId, inputs.slice(i, i + INGEST_BATCH));
    const unchangedS = (performance.now() - t3) / 1000;

    // Where the write time goes: the same upserts into a fresh database without the HNSW index, then one CREATE INDEX.
    const bare = await openRuntime({ PROCESS_ROLE: 'api' });
    let noIndexS = 0;
    let buildS = 0;
    try {
      const { name } = vectorIndexFor(bare.services.embedder.model, bare.services.embedder.dimension);
      await bare.db.query(`DROP INDEX ${name}`);
      const t4 = performance.now();
      for (let i = 0; i < inputs.length; i += INGEST_BATCH) await bare.services.candidates.upsert(bare.orgId, inputs.slice(i, i + INGEST_BATCH));
      const t5 = performance.now();
      await ensureVectorIndex(bare.db, bare.services.embedder.model, bare.services.embedder.dimension);
      noIndexS = (t5 - t4) / 1000;
      buildS = (performance.now() - t5) / 1000;
    } finally {
      await bare.close();
    }

    const rate = (s: number) => opts.count / s;
    console.log(table(['measure', 'seconds', 'candidates/s'], [
      ['upsert, new candidates (end to end)', total, rate(total)],
      ['  first batch', batchSeconds[0]!, INGEST_BATCH / batchSeconds[0]!],
      ['  last batch', batchSeconds.at(-1)!, INGEST_BATCH / batchSeconds.at(-1)!],
      ['  phase: prepare (scrub, skills, hash)', prepareS, rate(prepareS)],
      ['  phase: embed (local-hash-v1)', embedS, rate(embedS)],
      ['  phase: write (rows, vectors, HNSW, GIN)', Math.max(0, total - prepareS - embedS), rate(Math.max(1e-9, total - prepareS - embedS))],
      ['upsert, unchanged (skipped by hash)', unchangedS, rate(unchangedS)],
      ['upsert, new, without the HNSW index', noIndexS, rate(noIndexS)],
      ['  then CREATE INDEX (HNSW bulk build)', buildS, rate(buildS)],
    ]));
    console.log('\ntargets: none set for ingestion; figures are for comparison between versions.');
  } finally {
    await rt.close();
  }
}
