// Hybrid retrieval: pgvector HNSW cosine search per query plus full-text search, fused by reciprocal rank.
import type { Database, Queryable } from '../db/database.js';
import { vectorLiteral } from '../candidates/candidate-store.js';
import type { Embedder } from '../embeddings/embedder.js';
import type { SearchFilters } from '../matching/domain.js';
import { filterSql } from './filters.js';
import { createTermRarity } from './term-rarity.js';

export interface SearchRequest {
  orgId: string;
  queries: string[];
  filters: SearchFilters;
  excludeIds: string[];
  limit: number;
}

export interface SearchHit {
  id: string;
  fusedScore: number;
  /** Best (lowest) rank of the candidate in any query's vector list, 1-based. */
  vectorRank: number | null;
  textRank: number | null;
  /** Best cosine distance to any query. */
  distance: number | null;
}

// The usual RRF constant: damps the head so one list cannot dominate the fusion.
const RRF_K = 60;
// Full-text counts half as much as a vector list: on the labelled set it is the weaker ranker
// (docs/benchmarks.md), and at equal weight it pulled the fused MRR below vectors alone.
const TEXT_WEIGHT = 0.5;

/** Index name and expression for one embedding model; queries must use the same expression to hit it. */
export function vectorIndexFor(model: string, dimension: number) {
  const slug = model.toLowerCase().replace(/[^a-z0-9]+/g, '_').slice(0, 40);
  return { name: `candidate_embeddings_hnsw_${slug}_${dimension}`, expr: `(embedding::vector(${dimension}))` };
}

/** Creates the HNSW index for the configured model if missing (dimension is per model, so it cannot be in a static migration). */
export async function ensureVectorIndex(db: Database, model: string, dimension: number): Promise<void> {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > 2000) throw new Error(`unsupported embedding dimension ${dimension}`);
  const { name, expr } = vectorIndexFor(model, dimension);
  await db.withTransaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(7242413)');
    await tx.query(
      `CREATE INDEX IF NOT EXISTS ${name} ON candidate_embeddings USING hnsw (${expr} vector_cosine_ops)
       WHERE model = '${model.replace(/'/g, "''")}'`,
    );
  });
}

export function createSearch(deps: { db: Database; embedder: Embedder }) {
  const { db, embedder } = deps;
  const dim = embedder.dimension;
  const rarity = createTermRarity(db);
  // A literal, not a parameter: the planner must see it to use the model's partial HNSW index.
  const modelLiteral = `'${embedder.model.replace(/'/g, "''")}'`;

  async function vectorList(tx: Queryable, req: SearchRequest, vector: number[], fetch: number) {
    const values: unknown[] = [req.orgId, vectorLiteral(vector), req.excludeIds, fetch];
    const r = await tx.query<{ id: string; distance: number }>(
      `SELECT e.candidate_id AS id, e.embedding::vector(${dim}) <=> $2::vector(${dim}) AS distance
       FROM candidate_embeddings e JOIN candidates c ON c.id = e.candidate_id
       WHERE e.model = ${modelLiteral} AND e.org_id = $1 AND c.org_id = $1 AND NOT (e.candidate_id = ANY($3::uuid[]))
         ${filterSql(req.filters, values)}
       ORDER BY e.embedding::vector(${dim}) <=> $2::vector(${dim}) LIMIT $4`,
      values,
    );
    return r.rows;
  }

  async function textList(tx: Queryable, req: SearchRequest, tsquery: string, fetch: number) {
    const values: unknown[] = [req.orgId, tsquery, req.excludeIds, fetch];
    const r = await tx.query<{ id: string }>(
      `SELECT c.id FROM candidates c, to_tsquery('simple', $2) q
       WHERE c.org_id = $1 AND c.search_tsv @@ q AND NOT (c.id = ANY($3::uuid[])) ${filterSql(req.filters, values)}
       ORDER BY ts_rank_cd(c.search_tsv, q, 1) DESC, c.id LIMIT $4`,
      values,
    );
    return r.rows;
  }

  return {
    async search(req: SearchRequest): Promise<SearchHit[]> {
      const queries = req.queries.filter((q) => q.trim().length > 0);
      if (!queries.length || req.limit < 1) return [];
      const vectors = await embedder.embed(queries, { orgId: req.orgId });
      // Each list fetches more than the limit so fusion has something to agree on.
      const fetch = Math.min(1000, Math.max(req.limit * 2, 50));
      // Term statistics are read before the transaction: the embedded server runs one at a time.
      const tsqueries = await Promise.all(queries.map((q) => rarity.tsquery(req.orgId, q)));
      const hits = new Map<string, SearchHit>();
      const hit = (id: string) => {
        let h = hits.get(id);
        if (!h) hits.set(id, (h = { id, fusedScore: 0, vectorRank: null, textRank: null, distance: null }));
        return h;
      };
      await db.withTransaction(async (tx) => {
        // Iterative index scans keep filtered searches from starving; ef_search must cover the fetch.
        await tx.query(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
        await tx.query(`SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(fetch, 40))}`);
        for (let qi = 0; qi < queries.length; qi++) {
          const vrows = await vectorList(tx, req, vectors[qi]!, fetch);
          // relaxed_order may return rows slightly out of order: sort before ranking.
          vrows.sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : 1));
          vrows.forEach((row, i) => {
            const h = hit(row.id);
            h.fusedScore += 1 / (RRF_K + i + 1);
            h.vectorRank = Math.min(h.vectorRank ?? Infinity, i + 1);
            h.distance = Math.min(h.distance ?? Infinity, row.distance);
          });
          const tsquery = tsqueries[qi];
          if (!tsquery) continue;
          (await textList(tx, req, tsquery, fetch)).forEach((row, i) => {
            const h = hit(row.id);
            h.fusedScore += TEXT_WEIGHT / (RRF_K + i + 1);
            h.textRank = Math.min(h.textRank ?? Infinity, i + 1);
          });
        }
      });
      return [...hits.values()].sort((a, b) => b.fusedScore - a.fusedScore || (a.id < b.id ? -1 : 1)).slice(0, req.limit);
    },
  };
}

export type Search = ReturnType<typeof createSearch>;
