// Hybrid retrieval: pgvector cosine search (exact over small pools, the HNSW index per query over large ones) plus
// full-text search, fused by reciprocal rank.
import { sendOnce, type Database, type StatementSender } from '../db/database.js';
import { vectorLiteral } from '../candidates/candidate-store.js';
import { currentCopiesFor } from '../candidates/rescrub.js';
import type { EmbedOptions, Embedder } from '../embeddings/embedder.js';
import type { SearchFilters } from '../matching/domain.js';
import { filterSql, readsScrubbedCopies } from './filters.js';
import { createTermRarity } from './term-rarity.js';

export interface SearchRequest {
  orgId: string;
  queries: string[];
  filters: SearchFilters;
  excludeIds: string[];
  limit: number;
  /**
   * The run the search is for (an AgentCallContext fits): the queries' embedding is charged to its ledger rows and
   * budget, and stops with its signal and deadline. Without it the embedding is the organisation's.
   */
  call?: Pick<EmbedOptions, 'signal' | 'runId' | 'budget' | 'deadline' | 'logger'>;
  /**
   * How the search's statements are sent (a worker's sends them again while the database is away and the run's
   * lease lasts; see src/runs/while-leased.ts). The embedding is not among them: a model call is not repeated for a
   * statement that failed after it. Without it, once.
   */
  read?: StatementSender;
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
  // CREATE INDEX IF NOT EXISTS takes its lock before it looks: at every start, writes to the embeddings queued behind
  // any transaction open on them. An index that is there is seen without a lock.
  const there = await db.query<{ there: boolean }>('SELECT to_regclass($1) IS NOT NULL AS there', [name]);
  if (there.rows[0]?.there) return;
  await db.withTransaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(7242413)');
    await tx.query(
      `CREATE INDEX IF NOT EXISTS ${name} ON candidate_embeddings USING hnsw (${expr} vector_cosine_ops)
       WHERE model = '${model.replace(/'/g, "''")}'`,
    );
  }, { maintenance: true });
}

/**
 * Pools up to this many candidates are searched exactly: one scan of the embeddings computes every query's distance
 * and each query takes its nearest from it, in one statement with no settings and so no transaction. Larger pools
 * search per query through the model's HNSW index, which needs ef_search and iterative scans set for the statement.
 * On the embedded database a search took 27 ms exact against 32 ms per query at 2,000 candidates, 62 against 46 ms at
 * 5,000 (docs/benchmarks.md, retrieval statement); the exact lists are at least as good as the index's.
 */
export const EXACT_SCAN_MAX_POOL = 2500;

export function createSearch(deps: { db: Database; embedder: Embedder; exactScanMaxPool?: number }) {
  const { db, embedder } = deps;
  const dim = embedder.dimension;
  const exactScanMaxPool = deps.exactScanMaxPool ?? EXACT_SCAN_MAX_POOL;
  const rarity = createTermRarity(db);
  // A literal, not a parameter: the planner must see it to use the model's partial HNSW index.
  const modelLiteral = `'${embedder.model.replace(/'/g, "''")}'`;

  /**
   * Every query's vector list and full-text list in one statement: on the embedded database each statement is a
   * round trip through the socket server, and a retrieval sits between two model calls of the run.
   * Rows come back per list (qi, kind) with the value each list is ordered by; the caller orders them again.
   */
  function listsStatement(req: SearchRequest, vectors: number[][], tsqueries: Array<string | null>, fetch: number, exact: boolean) {
    const values: unknown[] = [req.orgId, req.excludeIds, fetch];
    const filters = filterSql(req.filters, values);
    const param = (v: unknown) => `$${values.push(v)}`;
    // The filters are on candidates; without any, the embeddings alone answer (an erased candidate's embeddings go
    // with it, by cascade), and joining a table of whole resumes was most of a vector list's time.
    const embeddings = filters
      ? `candidate_embeddings e JOIN candidates c ON c.id = e.candidate_id AND c.org_id = $1`
      : 'candidate_embeddings e';
    const fromEmbeddings = `FROM ${embeddings}
       WHERE e.model = ${modelLiteral} AND e.org_id = $1 AND NOT (e.candidate_id = ANY($2::uuid[])) ${filters}`;
    const distance = (v: string) => `e.embedding::vector(${dim}) <=> ${v}`;
    const vs = vectors.map((vector) => `${param(vectorLiteral(vector))}::vector(${dim})`);
    const ctes: string[] = [];
    const lists: string[] = [];
    if (exact) {
      // Reading a row costs more than a distance: one scan for every query, then each query's nearest of it.
      ctes.push(`v AS MATERIALIZED (SELECT e.candidate_id AS id, ${vs.map((v, qi) => `${distance(v)} AS d${qi}`).join(', ')}
       ${fromEmbeddings})`);
      // With its ties: candidates as near as the last one kept (the same text) are all kept, not those whose random
      // ids happen to sort first (nor those the table's physical order gives first).
      vs.forEach((_, qi) => lists.push(capped(`SELECT ${qi} AS qi, 'v' AS kind, id, d${qi} AS value FROM v ORDER BY d${qi} FETCH FIRST ($3) ROWS WITH TIES`)));
    } else {
      // ORDER BY the indexed expression itself, per query: the form the planner can answer from the HNSW index.
      vs.forEach((v, qi) => lists.push(capped(`SELECT ${qi} AS qi, 'v' AS kind, e.candidate_id AS id, ${distance(v)} AS value
       ${fromEmbeddings} ORDER BY ${distance(v)} FETCH FIRST ($3) ROWS WITH TIES`)));
    }
    // Full-text lists are exact at any size: one pass over the rows matching any query ranks each by the queries it
    // matches, so a row is read (and its resume's words tested) once, not once per query.
    const texts = tsqueries.flatMap((t, qi) => (t ? [{ qi, tsquery: `to_tsquery('simple', ${param(t)})` }] : []));
    if (texts.length) {
      ctes.push(`t AS MATERIALIZED (SELECT c.id, ${texts.map(({ qi }) => `CASE WHEN c.search_tsv @@ q${qi} THEN ts_rank_cd(c.search_tsv, q${qi}, 1) END AS r${qi}`).join(', ')}
       FROM candidates c, (SELECT ${texts.map(({ qi, tsquery }) => `${tsquery} AS q${qi}`).join(', ')}) q
       WHERE c.org_id = $1 AND c.search_tsv @@ (${texts.map(({ qi }) => `q${qi}`).join(' || ')}) AND NOT (c.id = ANY($2::uuid[])) ${filters})`);
      // ts_rank_cd is a float4: many rows tie (a hundred of them at one value is common), and which of them made the
      // list was decided by their random ids. Ties are kept whole, as in the vector lists.
      texts.forEach(({ qi }) => lists.push(capped(`SELECT ${qi}, 't', id, r${qi} FROM t WHERE r${qi} IS NOT NULL ORDER BY r${qi} DESC FETCH FIRST ($3) ROWS WITH TIES`)));
    }
    return { text: `${ctes.length ? `WITH ${ctes.join(',\n')}\n` : ''}${lists.join('\nUNION ALL\n')}`, values };
  }

  type ListRow = { qi: number; kind: 'v' | 't'; id: string; value: number };

  /**
   * A list with its ties, but no more than four times the fetch: a pool of thousands with one text (title-only imports)
   * ties them all, and the list would be the whole pool.
   */
  function capped(list: string): string {
    return `(SELECT * FROM (${list}) l LIMIT 4 * $3)`;
  }

  return {
    /**
     * Loads what an organisation's searches need (its term statistics) if it is not loaded yet, without waiting:
     * called when a run starts, so that the load runs while the run waits on its first model call.
     */
    warm(orgId: string): void {
      rarity.poolSize(orgId).catch(() => {});
    },
    async search(req: SearchRequest): Promise<SearchHit[]> {
      const queries = req.queries.filter((q) => q.trim().length > 0);
      if (!queries.length || req.limit < 1) return [];
      const call = req.call;
      const read = req.read ?? sendOnce;
      // Stale rows match no skill or location filter: the organisation's are rewritten first, while the queries embed.
      const current = readsScrubbedCopies(req.filters) ? currentCopiesFor(db, req.orgId) : undefined;
      // The queries' words are read while they embed (a model's embedding takes far longer than that statement), and
      // the term statistics and the pool's size before the lists: the embedded server runs one statement at a time.
      // Both are settled before the search fails on either: an embedding the endpoint still works on is paid for, and
      // the run must not end (or be handed back) before its ledger row is written, as the reranker's batches.
      const wordsRead = read(() => rarity.tsqueries(req.orgId, queries));
      const embedding = embedder.embed(queries, {
        orgId: req.orgId,
        ...(call ? { signal: call.signal, runId: call.runId, budget: call.budget, deadline: call.deadline, logger: call.logger } : {}),
      });
      const [embedded, words] = await Promise.allSettled([embedding, wordsRead]);
      if (embedded.status === 'rejected') throw embedded.reason;
      if (words.status === 'rejected') throw words.reason;
      const [vectors, tsqueries] = [embedded.value, words.value];
      // Each list fetches more than the limit so fusion has something to agree on.
      const fetch = Math.min(1000, Math.max(req.limit * 2, 50));
      const exact = (await read(() => rarity.poolSize(req.orgId))) <= exactScanMaxPool;
      await current;
      const statement = listsStatement(req, vectors, tsqueries, fetch, exact);
      const rows = exact
        ? (await read(() => db.query<ListRow>(statement.text, statement.values))).rows
        : await read(() => db.withTransaction(async (tx) => {
            // Iterative index scans keep filtered searches from starving; ef_search must cover the fetch. One round trip.
            await tx.query(`SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(fetch, 40))}`);
            return (await tx.query<ListRow>(statement.text, statement.values)).rows;
          }));
      const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
      const hits = new Map<string, SearchHit>();
      const hit = (id: string) => {
        let h = hits.get(id);
        if (!h) hits.set(id, (h = { id, fusedScore: 0, vectorRank: null, textRank: null, distance: null }));
        return h;
      };
      // Lists are fused in query order, vector list before text list, as they always were: float sums depend on it.
      // Rows that tie in a list share its rank (1, 2, 2, 4): equally relevant candidates get equal shares, where
      // positions among them, decided by their random ids, gave the same candidates in two organisations (or in a
      // database loaded again) different shortlists.
      for (let qi = 0; qi < queries.length; qi++) {
        // relaxed_order may return rows slightly out of order: sort before ranking.
        const vrows = rows.filter((r) => r.qi === qi && r.kind === 'v').sort((a, b) => a.value - b.value || byId(a, b));
        rankTies(vrows).forEach((rank, i) => {
          const row = vrows[i]!;
          const h = hit(row.id);
          h.fusedScore += 1 / (RRF_K + rank);
          h.vectorRank = Math.min(h.vectorRank ?? Infinity, rank);
          h.distance = Math.min(h.distance ?? Infinity, row.value);
        });
        const trows = rows.filter((r) => r.qi === qi && r.kind === 't').sort((a, b) => b.value - a.value || byId(a, b));
        rankTies(trows).forEach((rank, i) => {
          const h = hit(trows[i]!.id);
          h.fusedScore += TEXT_WEIGHT / (RRF_K + rank);
          h.textRank = Math.min(h.textRank ?? Infinity, rank);
        });
      }
      return [...hits.values()].sort((a, b) => b.fusedScore - a.fusedScore || (a.id < b.id ? -1 : 1)).slice(0, req.limit);
    },
  };
}

/** Each sorted row's 1-based rank, rows of equal value sharing the rank of the first of them (1, 2, 2, 4). */
export function rankTies(sorted: ReadonlyArray<{ value: number }>): number[] {
  const ranks: number[] = [];
  sorted.forEach((row, i) => ranks.push(i > 0 && row.value === sorted[i - 1]!.value ? ranks[i - 1]! : i + 1));
  return ranks;
}

export type Search = ReturnType<typeof createSearch>;
