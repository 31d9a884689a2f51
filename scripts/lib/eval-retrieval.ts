// Retrieval quality on the labelled set: where each role's ground-truth resume ranks, per source and fused.
import { createSearch } from '../../src/retrieval/search.js';
import type { Dataset } from './dataset.js';
import { createSingleSource } from './retrieval-sql.js';
import { ingest, openRuntime } from './runtime.js';
import { heading, rankMetrics, reportTargets, table } from './stats.js';

const KS = [1, 5, 10, 50];
/** Ranks beyond this count as misses: fused search returns at most 50 here. */
const DEPTH = 50;
/** What search.ts fetches per list for a limit of 50 (so HNSW runs with the same ef_search). */
const FETCH = 100;
/** BM25 over the pool (the dataset's README): the bar fused retrieval must clear. */
const BM25_MRR = 0.92;

const rankOf = (ids: string[], id: string) => {
  const i = ids.indexOf(id);
  return i >= 0 && i < DEPTH ? i + 1 : null;
};

export async function evalRetrieval(data: Dataset): Promise<void> {
  const rt = await openRuntime({ PROCESS_ROLE: 'api' });
  try {
    const started = performance.now();
    const ids = await ingest(rt, data.resumes.map((r) => ({ externalId: r.id, resume: r.text })));
    console.log(`ingested ${ids.size} resumes in ${((performance.now() - started) / 1000).toFixed(1)} s (batches of 500, embedder ${rt.services.embedder.model})`);
    const search = createSearch({ db: rt.db, embedder: rt.services.embedder });
    const single = createSingleSource(rt.db, rt.services.embedder);
    const ranks = { text: [] as Array<number | null>, vector: [] as Array<number | null>, exact: [] as Array<number | null>, fused: [] as Array<number | null> };
    const misses: string[] = [];
    for (const role of data.roles) {
      const query = `${role.title}\n${role.description}`;
      const truth = ids.get(role.truthId)!;
      const [vector] = await rt.services.embedder.embed([query]);
      const hits = await search.search({ orgId: rt.orgId, queries: [query], filters: {}, excludeIds: [], limit: DEPTH });
      ranks.fused.push(rankOf(hits.map((h) => h.id), truth));
      ranks.vector.push(rankOf(await single.vector(rt.orgId, vector!, FETCH), truth));
      ranks.exact.push(rankOf(await single.vector(rt.orgId, vector!, DEPTH, { exact: true }), truth));
      ranks.text.push(rankOf(await single.text(rt.orgId, query, FETCH), truth));
      const f = ranks.fused.at(-1);
      if (f === null || f === undefined || f > 10) {
        misses.push(`  role ${role.index + 1} "${role.title}": fused ${f ?? '>50'}, full-text ${ranks.text.at(-1) ?? '>50'}, vector ${ranks.vector.at(-1) ?? '>50'}`);
      }
    }
    heading(`retrieval: ${data.roles.length} roles over ${ids.size} resumes (rank of the ground truth; beyond ${DEPTH} = miss)`);
    const rows = (
      [
        ['full-text only (ts_rank_cd, OR query)', ranks.text],
        ['vector only (HNSW, as search runs it)', ranks.vector],
        ['vector only (exact, index off)', ranks.exact],
        ['fused (createSearch().search)', ranks.fused],
      ] as const
    ).map(([name, r]) => {
      const m = rankMetrics([...r], KS);
      return [name, m.mrr, ...KS.map((k) => m.recall.get(k)!)];
    });
    console.log(table(['source', 'MRR', ...KS.map((k) => `R@${k}`)], rows));
    if (misses.length) console.log(`\nroles whose ground truth is not in the fused top 10 (${misses.length}):\n${misses.join('\n')}`);
    const fused = rankMetrics(ranks.fused, KS);
    reportTargets([
      { name: 'fused recall@50', value: fused.recall.get(50)!, op: '>=', target: 0.98 },
      { name: 'fused MRR (BM25 baseline)', value: fused.mrr, op: '>=', target: BM25_MRR },
    ]);
  } finally {
    await rt.close();
  }
}
