// Diagnostic: full-text variants (term choice, IDF weighting) and RRF weights against the current hybrid search, on the labelled set.
import type { Dataset } from './dataset.js';
import { createSingleSource } from './retrieval-sql.js';
import { ingest, openRuntime, type ScriptRuntime } from './runtime.js';
import { heading, rankMetrics, table } from './stats.js';

const FETCH = 100;
const DEPTH = 50;
const RRF_K = 60;
const WEIGHTS = [1, 0.5, 0.25];
type Variant = 'first 64 words (current)' | 'all words' | '64 rarest lexemes (df < 50%)' | 'IDF-weighted match sum';
const VARIANTS: Variant[] = ['first 64 words (current)', 'all words', '64 rarest lexemes (df < 50%)', 'IDF-weighted match sum'];

async function lexemes(rt: ScriptRuntime, text: string): Promise<string[]> {
  const r = await rt.db.query<{ lexeme: string }>(`SELECT unnest(tsvector_to_array(to_tsvector('english', $1))) AS lexeme`, [text]);
  return r.rows.map((row) => row.lexeme);
}

async function textList(rt: ScriptRuntime, variant: Variant, query: string, df: Map<string, number>, pool: number): Promise<string[]> {
  const words = [...new Set(query.toLowerCase().match(/[a-z0-9][a-z0-9+#]*/g) ?? [])].map((w) => w.replace(/[^a-z0-9]/g, '')).filter((w) => w.length > 1);
  const rank = async (tsquery: string, config: 'english' | 'simple') =>
    (await rt.db.query<{ id: string }>(
      `SELECT c.id FROM candidates c, to_tsquery('${config}', $2) q WHERE c.org_id = $1 AND c.search_tsv @@ q
       ORDER BY ts_rank_cd(c.search_tsv, q, 1) DESC, c.id LIMIT $3`,
      [rt.orgId, tsquery, FETCH],
    )).rows.map((r) => r.id);
  if (variant === 'first 64 words (current)') return rank(words.slice(0, 64).join(' | '), 'english');
  if (variant === 'all words') return rank(words.join(' | '), 'english');
  const rare = (await lexemes(rt, query)).filter((l) => (df.get(l) ?? 0) > 0 && df.get(l)! < pool / 2).sort((a, b) => df.get(a)! - df.get(b)! || (a < b ? -1 : 1));
  if (!rare.length) return [];
  if (variant === '64 rarest lexemes (df < 50%)') return rank(rare.slice(0, 64).map((l) => `'${l.replace(/'/g, "''")}'`).join(' | '), 'simple');
  const r = await rt.db.query<{ id: string }>(
    `SELECT c.id FROM candidates c,
       LATERAL (SELECT sum(t.w) AS s FROM unnest($2::text[], $3::float8[]) AS t(lex, w) WHERE c.search_tsv @@ to_tsquery('simple', quote_literal(t.lex))) x
     WHERE c.org_id = $1 AND x.s IS NOT NULL ORDER BY x.s DESC, c.id LIMIT $4`,
    [rt.orgId, rare, rare.map((l) => Math.log(pool / df.get(l)!)), FETCH],
  );
  return r.rows.map((row) => row.id);
}

function fuse(vector: string[], text: string[], textWeight: number): string[] {
  const score = new Map<string, number>();
  vector.forEach((id, i) => score.set(id, (score.get(id) ?? 0) + 1 / (RRF_K + i + 1)));
  text.forEach((id, i) => score.set(id, (score.get(id) ?? 0) + textWeight / (RRF_K + i + 1)));
  return [...score].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([id]) => id);
}

const rankOf = (ids: string[], id: string) => {
  const i = ids.indexOf(id);
  return i >= 0 && i < DEPTH ? i + 1 : null;
};

export async function evalFulltext(data: Dataset): Promise<void> {
  const rt = await openRuntime({ PROCESS_ROLE: 'api' });
  try {
    const ids = await ingest(rt, data.resumes.map((r) => ({ externalId: r.id, resume: r.text })));
    const df = new Map((await rt.db.query<{ word: string; ndoc: number }>('SELECT word, ndoc FROM ts_stat($$SELECT search_tsv FROM candidates$$)')).rows.map((r) => [r.word, r.ndoc]));
    const single = createSingleSource(rt.db, rt.services.embedder);
    const vectorLists: string[][] = [];
    const textLists = new Map<Variant, string[][]>(VARIANTS.map((v) => [v, []]));
    const truths: string[] = [];
    for (const role of data.roles) {
      const query = `${role.title}\n${role.description}`;
      truths.push(ids.get(role.truthId)!);
      const [vector] = await rt.services.embedder.embed([query]);
      vectorLists.push(await single.vector(rt.orgId, vector!, FETCH));
      for (const v of VARIANTS) textLists.get(v)!.push(await textList(rt, v, query, df, ids.size));
    }
    heading('full-text variants, alone and fused with the vector list (RRF k = 60, vector weight 1)');
    const metrics = (lists: string[][]) => rankMetrics(lists.map((l, i) => rankOf(l, truths[i]!)), [10, 50]);
    const rows = VARIANTS.map((v) => {
      const lists = textLists.get(v)!;
      const alone = metrics(lists);
      const fused = WEIGHTS.map((w) => metrics(lists.map((l, i) => fuse(vectorLists[i]!, l, w))));
      return [v, alone.mrr, alone.recall.get(10)!, ...fused.map((f) => f.mrr), fused[0]!.recall.get(50)!];
    });
    console.log(table(['full-text variant', 'text MRR', 'text R@10', ...WEIGHTS.map((w) => `fused MRR w=${w}`), 'fused R@50 w=1'], rows));
    console.log(`vector alone: MRR ${metrics(vectorLists).mrr.toFixed(3)}. "first 64 words" at w=1 is what createSearch() does today.`);
  } finally {
    await rt.close();
  }
}
