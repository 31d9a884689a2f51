// The two halves of hybrid retrieval alone, one query at a time, giving the lists src/retrieval/search.ts gives; vector search also exact.
import { vectorLiteral } from '../../src/candidates/candidate-store.js';
import type { Database } from '../../src/db/database.js';
import type { Embedder } from '../../src/embeddings/embedder.js';
import { createTermRarity } from '../../src/retrieval/term-rarity.js';

export interface SingleSource {
  /** Candidate ids nearest first; `exact` turns index scans off, so the planner sorts every row. */
  vector(orgId: string, vector: number[], limit: number, opts?: { exact?: boolean }): Promise<string[]>;
  /** Candidate ids by ts_rank_cd over the OR query of the text's rarest pool words, best first. */
  text(orgId: string, query: string, limit: number): Promise<string[]>;
}

export function createSingleSource(db: Database, embedder: Embedder): SingleSource {
  const dim = embedder.dimension;
  const model = `'${embedder.model.replace(/'/g, "''")}'`;
  const rarity = createTermRarity(db);
  return {
    async vector(orgId, vector, limit, opts = {}) {
      return db.withTransaction(async (tx) => {
        // As search.ts sets them for a list of this length.
        await tx.query('SET LOCAL hnsw.iterative_scan = relaxed_order');
        await tx.query(`SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(limit, 40))}`);
        if (opts.exact) await tx.query('SET LOCAL enable_indexscan = off');
        const r = await tx.query<{ id: string; distance: number }>(
          `SELECT e.candidate_id AS id, e.embedding::vector(${dim}) <=> $2::vector(${dim}) AS distance
           FROM candidate_embeddings e JOIN candidates c ON c.id = e.candidate_id
           WHERE e.model = ${model} AND e.org_id = $1 AND c.org_id = $1
           ORDER BY e.embedding::vector(${dim}) <=> $2::vector(${dim}) LIMIT $3`,
          [orgId, vectorLiteral(vector), limit],
        );
        return r.rows.sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : 1)).map((row) => row.id);
      });
    },
    async text(orgId, query, limit) {
      const [tsquery] = await rarity.tsqueries(orgId, [query]);
      if (!tsquery) return [];
      const r = await db.query<{ id: string }>(
        `SELECT c.id FROM candidates c, to_tsquery('simple', $2) q
         WHERE c.org_id = $1 AND c.search_tsv @@ q
         ORDER BY ts_rank_cd(c.search_tsv, q, 1) DESC, c.id LIMIT $3`,
        [orgId, tsquery, limit],
      );
      return r.rows.map((row) => row.id);
    },
  };
}

/** The query plan of the vector search, to show which path a measurement took. */
export async function vectorPlan(db: Database, embedder: Embedder, orgId: string, vector: number[], exact: boolean): Promise<string> {
  const dim = embedder.dimension;
  return db.withTransaction(async (tx) => {
    if (exact) await tx.query('SET LOCAL enable_indexscan = off');
    const r = await tx.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT e.candidate_id FROM candidate_embeddings e JOIN candidates c ON c.id = e.candidate_id
       WHERE e.model = '${embedder.model.replace(/'/g, "''")}' AND e.org_id = $1 AND c.org_id = $1
       ORDER BY e.embedding::vector(${dim}) <=> $2::vector(${dim}) LIMIT 50`,
      [orgId, vectorLiteral(vector)],
    );
    return r.rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}
