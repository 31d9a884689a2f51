// Which words of a query are worth a full-text search: the pool's rarest ones, never those most resumes share.
import { erasuresColumn, memoizeUntilErased } from '../cache/erasure-epoch.js';
import type { Queryable } from '../db/database.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface PoolStats {
  pool: number;
  /** Documents per lexeme (english stemming, as in candidates.search_tsv): the most common maxLexemes of them. */
  df: Map<string, number>;
  /**
   * What a lexeme not in df counts as: 0 (no resume has it) when df holds the pool's every lexeme; when it holds only
   * the most common, the fewest documents of any it holds (the lexeme is at least as rare, and may be in some).
   */
  unlisted: number;
}

/**
 * At most this many lexemes are remembered per organisation (the most common ones, which decide what a search
 * leaves out; the rest are rare alike), and at most MAX_ORGANISATIONS organisations' statistics per process: uploads
 * full of made-up words must not grow a process's memory without bound.
 */
const MAX_LEXEMES = 200_000;
const MAX_ORGANISATIONS = 64;
/** Statistics stay fresh at least this many times as long as they took to read: the background reads of every process take at most ~1/30 of a connection per organisation. */
const LOAD_SPACING = 30;

/**
 * Role texts are long; an OR of their words matches nearly every resume ("experience", "team") and
 * ts_rank_cd has no notion of rarity. Keeping only words that at most half the pool contains, rarest
 * first, makes full-text search both sharper and cheaper. Document frequencies come from ts_stat, which reads
 * every resume's words (~50-100 ms of the embedded database at 2,000 candidates, 2.2 s on PostgreSQL at 150,000): they
 * are cached per organisation and, once older than ttlMs (or LOAD_SPACING times as long as they took to read),
 * recomputed in the background while searches go on with the previous ones. Words of candidates added since are searched as the rarest until then. Only an organisation's first search (or
 * one after maxAgeMs without a successful recomputation) waits for them, and the first after an erasure in any
 * process: the erased resume's words must not choose another search's terms (the erasure count rides on the
 * statement that splits the queries into words, so the check costs no round trip).
 */
export function createTermRarity(db: Queryable, opts: { ttlMs?: number; maxAgeMs?: number; maxTerms?: number; maxLexemes?: number } = {}) {
  const ttlMs = opts.ttlMs ?? 60_000;
  const maxAgeMs = opts.maxAgeMs ?? 15 * 60_000;
  const maxTerms = opts.maxTerms ?? 64;
  const maxLexemes = opts.maxLexemes ?? MAX_LEXEMES;
  async function load(orgId: string): Promise<PoolStats> {
    if (!UUID.test(orgId)) throw new Error('organisation id must be a UUID');
    const [stats, count] = await Promise.all([
      db.query<{ word: string; ndoc: number }>('SELECT word, ndoc FROM ts_stat($1) ORDER BY ndoc DESC, word LIMIT $2', [
        `SELECT search_tsv FROM candidates WHERE org_id = '${orgId}'`,
        maxLexemes + 1,
      ]),
      db.query<{ n: number }>('SELECT count(*)::int AS n FROM candidates WHERE org_id = $1', [orgId]),
    ]);
    const rows = stats.rows.slice(0, maxLexemes);
    const unlisted = stats.rows.length > maxLexemes ? (rows.at(-1)?.ndoc ?? 1) : 0;
    return { pool: count.rows[0]?.n ?? 0, df: new Map(rows.map((r) => [r.word, r.ndoc])), unlisted };
  }

  const statsFor = memoizeUntilErased(db, ttlMs, maxAgeMs, load, { maxKeys: MAX_ORGANISATIONS, spacing: LOAD_SPACING });

  function toTsquery(stats: PoolStats, lexemes: string[]): string | null {
    const dfOf = (w: string) => stats.df.get(w) ?? stats.unlisted;
    const known = lexemes.filter((w) => dfOf(w) > 0);
    const byRarity = (a: string, b: string) => dfOf(a) - dfOf(b) || (a < b ? -1 : 1);
    let words = known.filter((w) => dfOf(w) <= stats.pool / 2).sort(byRarity);
    // A tiny pool can make every word "common": then the rarest few still beat none.
    if (!words.length) words = known.sort(byRarity).slice(0, 16);
    // A word no resume had when the statistics were read may be one of candidates uploaded since (they are read
    // again a minute later at most): searched as the rarest, not dropped, so that a search right after an upload
    // finds its words, as a process that read the statistics after it would. One nobody has matches nothing.
    const unseen = lexemes.filter((w) => dfOf(w) === 0).sort();
    words = [...unseen, ...words].slice(0, maxTerms);
    return words.length ? words.map((w) => `'${w.replace(/'/g, "''")}'`).join(' | ') : null;
  }

  return {
    /** Candidates in the organisation's pool, as of the cached statistics (checked against erasures by tsqueries). */
    async poolSize(orgId: string): Promise<number> {
      return (await statsFor.remembered(orgId)).pool;
    },
    /**
     * For each query, an OR tsquery (for to_tsquery('simple', ...)) of its rarest pool words, or null; one statement
     * for all, which also reads the organisation's erasure count: statistics read before an erasure are read again.
     */
    async tsqueries(orgId: string, queries: string[]): Promise<Array<string | null>> {
      if (!queries.length) return [];
      if (!UUID.test(orgId)) throw new Error('organisation id must be a UUID');
      const r = await db.query<{ i: number; lexemes: string[]; erasures: number | null }>(
        `SELECT q.i::int AS i, array_agg(DISTINCT l.lexeme) AS lexemes, ${erasuresColumn('$2')} AS erasures
         FROM unnest($1::text[]) WITH ORDINALITY AS q(text, i), unnest(to_tsvector('english', q.text)) AS l
         GROUP BY q.i`,
        [queries.map((q) => q.slice(0, 50_000)), orgId],
      );
      // No query has a word to search for: no statistics are needed.
      if (!r.rows.length) return queries.map(() => null);
      const stats = await statsFor.asOf(orgId, r.rows[0]!.erasures ?? 0);
      const lexemes = new Map(r.rows.map((row) => [row.i, row.lexemes]));
      return queries.map((_, i) => toTsquery(stats, lexemes.get(i + 1) ?? []));
    },
  };
}
