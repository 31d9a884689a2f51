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

  /**
   * Every query's vector list and full-text list in one statement: on the embedded database each statement is a
   * round trip through the socket server, and a retrieval sits between two model calls of the run.
   * Rows come back per list (qi, kind) with the value each list is ordered by; the caller orders them again.
   */
  async function lists(tx: Queryable, req: SearchRequest, vectors: number[][], tsqueries: Array<string | null>, fetch: number) {
    const values: unknown[] = [req.orgId, req.excludeIds, fetch];
    const filters = filterSql(req.filters, values);
    const param = (v: unknown) => `$${values.push(v)}`;
    // The filters are on candidates; without any, the embeddings alone answer (an erased candidate's embeddings go
    // with it, by cascade), and joining a table of whole resumes was most of a vector list's time.
    const embeddings = filters
      ? `candidate_embeddings e JOIN candidates c ON c.id = e.candidate_id AND c.org_id = $1`
      : 'candidate_embeddings e';
    const parts = vectors.flatMap((vector, qi) => {
      const v = `${param(vectorLiteral(vector))}::vector(${dim})`;
      const vectorPart = `(SELECT ${qi} AS qi, 'v' AS kind, e.candidate_id AS id, e.embedding::vector(${dim}) <=> ${v} AS value
         FROM ${embeddings}
         WHERE e.model = ${modelLiteral} AND e.org_id = $1 AND NOT (e.candidate_id = ANY($2::uuid[])) ${filters}
         ORDER BY e.embedding::vector(${dim}) <=> ${v} LIMIT $3)`;
      const tsquery = tsqueries[qi];
      if (!tsquery) return [vectorPart];
      const textPart = `(SELECT ${qi}, 't', c.id, ts_rank_cd(c.search_tsv, q, 1)
         FROM candidates c, to_tsquery('simple', ${param(tsquery)}) q
         WHERE c.org_id = $1 AND c.search_tsv @@ q AND NOT (c.id = ANY($2::uuid[])) ${filters}
         ORDER BY ts_rank_cd(c.search_tsv, q, 1) DESC, c.id LIMIT $3)`;
      return [vectorPart, textPart];
    });
    const r = await tx.query<{ qi: number; kind: 'v' | 't'; id: string; value: number }>(parts.join('\nUNION ALL\n'), values);
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
      const tsqueries = await rarity.tsqueries(req.orgId, queries);
      const rows = await db.withTransaction(async (tx) => {
        // Iterative index scans keep filtered searches from starving; ef_search must cover the fetch. One round trip.
        await tx.query(`SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(fetch, 40))}`);
        return lists(tx, req, vectors, tsqueries, fetch);
      });
      const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
      const hits = new Map<string, SearchHit>();
      const hit = (id: string) => {
        let h = hits.get(id);
        if (!h) hits.set(id, (h = { id, fusedScore: 0, vectorRank: null, textRank: null, distance: null }));
        return h;
      };
      // Lists are fused in query order, vector list before text list, as they always were: float sums depend on it.
      for (let qi = 0; qi < queries.length; qi++) {
        // relaxed_order may return rows slightly out of order: sort before ranking.
        const vrows = rows.filter((r) => r.qi === qi && r.kind === 'v').sort((a, b) => a.value - b.value || byId(a, b));
        vrows.forEach((row, i) => {
          const h = hit(row.id);
          h.fusedScore += 1 / (RRF_K + i + 1);
          h.vectorRank = Math.min(h.vectorRank ?? Infinity, i + 1);
          h.distance = Math.min(h.distance ?? Infinity, row.value);
        });
        // The order the statement used: rank, best first, then id.
        const trows = rows.filter((r) => r.qi === qi && r.kind === 't').sort((a, b) => b.value - a.value || byId(a, b));
        trows.forEach((row, i) => {
          const h = hit(row.id);
          h.fusedScore += TEXT_WEIGHT / (RRF_K + i + 1);
          h.textRank = Math.min(h.textRank ?? Infinity, i + 1);
        });
      }
      return [...hits.values()].sort((a, b) => b.fusedScore - a.fusedScore || (a.id < b.id ? -1 : 1)).slice(0, req.limit);
    },
  };
}

export type Search = ReturnType<typeof createSearch>;
