// Re-embeds candidates whose vector for the configured model is missing or stale: batched, resumable.
import type { Database } from '../db/database.js';
import { embeddingText } from '../candidates/candidate-service.js';
import { createErasedAmong } from '../candidates/erased-among.js';
import { CandidatesErasedError } from '../llm/errors.js';
import { vectorLiteral } from '../candidates/candidate-store.js';
import { staleSql } from '../candidates/scrub-staleness.js';
import { rescrubCandidates } from '../candidates/rescrub.js';
import { SCRUB_RULES_VERSION } from '../text/scrubber.js';
import { ensureVectorIndex } from '../retrieval/search.js';
import type { Embedder } from './embedder.js';

type Row = { id: string; scrubbed_headline: string | null; scrubbed_skills: string[]; scrubbed_text: string };

/**
 * The texts of an organisation's group of the batch, embedded, each attempt sent only with candidates still there: one
 * erased while an earlier group was embedded, or while this one waited for a slot or a retry, is left out and the rest
 * sent again. Null when none is left.
 */
async function embedPresent<R extends Row>(embedder: Embedder, erasedAmong: (ids: readonly string[]) => Promise<string[]>, orgId: string, read: R[]): Promise<{ group: R[]; vectors: number[][] } | null> {
  let group = read;
  while (group.length > 0) {
    const ids = group.map((r) => r.id);
    const beforeSend = async () => {
      const erased = await erasedAmong(ids);
      if (erased.length) throw new CandidatesErasedError(erased);
    };
    try {
      const texts = group.map((r) => embeddingText({ scrubbedHeadline: r.scrubbed_headline, scrubbedSkills: r.scrubbed_skills, scrubbedText: r.scrubbed_text }));
      return { group, vectors: await embedder.embed(texts, { orgId, beforeSend }) };
    } catch (err) {
      if (!(err instanceof CandidatesErasedError)) throw err;
      const erased = new Set(err.candidateIds);
      group = group.filter((r) => !erased.has(r.id));
    }
  }
  return null;
}

export interface ReembedProgress {
  embedded: number;
  remaining: number;
}

/**
 * Each batch is committed on its own, so an interrupted run loses at most one batch and the next
 * invocation carries on where it stopped (it only picks candidates still lacking a current vector).
 * Batches go through the candidates once, in id order after the last batch's (a scan from the first id for every
 * batch read the rows already done again: quadratic in the pool); what is left is counted once, at the start.
 */
export async function reembed(db: Database, embedder: Embedder, opts: { batch: number; onProgress?: (p: ReembedProgress) => void }): Promise<number> {
  await ensureVectorIndex(db, embedder.model, embedder.dimension);
  // Embeddings are made from scrubbed copies: copies made by older rules (or from older content) are made again
  // first, and a row still stale after that (another process holds it) waits for the next run.
  await rescrubCandidates(db);
  const stale = `NOT EXISTS (SELECT 1 FROM candidate_embeddings e
      WHERE e.candidate_id = c.id AND e.model = $1 AND e.content_hash = c.content_hash) AND NOT ${staleSql(3)}`;
  const total = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM candidates c WHERE ${stale.replace('$1', '$1::text').replace('$3', '$2')}`,
    [embedder.model, SCRUB_RULES_VERSION],
  );
  let embedded = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  const erasedAmong = createErasedAmong(db);
  for (;;) {
    const rows = await db.query<{ id: string; org_id: string; scrubbed_headline: string | null; scrubbed_skills: string[]; scrubbed_text: string; content_hash: string }>(
      `SELECT c.id, c.org_id, c.scrubbed_headline, c.scrubbed_skills, c.scrubbed_text, c.content_hash FROM candidates c
       WHERE c.id > $4 AND ${stale} ORDER BY c.id LIMIT $2`,
      [embedder.model, opts.batch, SCRUB_RULES_VERSION, after],
    );
    if (rows.rows.length === 0) return embedded;
    after = rows.rows.at(-1)!.id;
    // One batch may span organisations; each pays for its own texts.
    const byOrg = new Map<string, typeof rows.rows>();
    for (const r of rows.rows) byOrg.set(r.org_id, [...(byOrg.get(r.org_id) ?? []), r]);
    for (const [orgId, read] of byOrg) {
      const embedded = await embedPresent(embedder, erasedAmong, orgId, read);
      if (!embedded) continue;
      const { group, vectors } = embedded;
      const payload = group.map((r, i) => ({ candidate_id: r.id, content_hash: r.content_hash, embedding: vectorLiteral(vectors[i]!) }));
      // Only for candidates still there with the content that was embedded: one erased while its text was embedded
      // gets no vector (and does not fail the batch's insert), one re-uploaded meanwhile keeps the vector its upload
      // wrote. The key-share lock holds an erasure off until this statement has written.
      await db.query(
        `INSERT INTO candidate_embeddings (candidate_id, org_id, model, content_hash, embedding)
         SELECT r.candidate_id, $1, $2, r.content_hash, r.embedding::vector
         FROM jsonb_to_recordset($3::jsonb) AS r(candidate_id uuid, content_hash text, embedding text)
         JOIN (SELECT id, content_hash FROM candidates WHERE id = ANY($4::uuid[]) ORDER BY id FOR KEY SHARE) c
           ON c.id = r.candidate_id AND c.content_hash = r.content_hash
         ON CONFLICT (candidate_id, model) DO UPDATE SET content_hash = EXCLUDED.content_hash, embedding = EXCLUDED.embedding, created_at = now()`,
        [orgId, embedder.model, JSON.stringify(payload), group.map((r) => r.id)],
      );
    }
    embedded += rows.rows.length;
    // Rows uploaded or edited behind the keyset meanwhile are embedded by their uploads, or by the next run.
    opts.onProgress?.({ embedded, remaining: Math.max(0, (total.rows[0]?.n ?? 0) - embedded) });
  }
}
