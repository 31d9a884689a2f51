// Backfill: rows whose scrubbed copies are stale are scrubbed again, in the background, by any number of processes.
import type { Database } from '../db/database.js';
import { SCRUB_RULES_VERSION } from '../text/scrubber.js';
import { embeddingText } from './candidate-service.js';
import { scrubRow, staleSql, type RawScrubRow } from './candidate-store.js';

interface StoredRow extends RawScrubRow {
  content_hash: string;
  scrub_version: number;
  scrubbed_headline: string | null;
  scrubbed_skills: string[];
  scrubbed_text: string;
}

/**
 * Rewrites the scrubbed copies (resume, headline, location, skills) of every stale row, batch by batch in id order.
 * Each batch is claimed with FOR UPDATE SKIP LOCKED in its own transaction: processes started together share the
 * work instead of repeating it, and an upload of the same candidate waits for the batch instead of being overwritten
 * by copies of its old content. The full-text index follows by itself (a generated column). A row whose embedding
 * text changed keeps its vector, still usable for search, but the vector is marked stale, so `cli reembed` embeds
 * it again from the scrubbed text. Until a row is done, agents' reads scrub it on the fly (candidate-store views).
 * Returns how many rows were rewritten; stops between batches once `stopped()` says so.
 */
export async function rescrubCandidates(db: Database, opts: { batch?: number; stopped?: () => boolean } = {}): Promise<number> {
  const batch = opts.batch ?? 50;
  let done = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  while (!opts.stopped?.()) {
    const last = await db.withTransaction(async (tx) => {
      const r = await tx.query<StoredRow>(
        `SELECT id, content_hash, scrub_version, name, email, phone, headline, location, skills, resume,
                scrubbed_headline, scrubbed_skills, scrubbed_text
         FROM candidates c WHERE ${staleSql(1)} AND c.id > $3 ORDER BY c.id LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [SCRUB_RULES_VERSION, batch, after],
      );
      if (r.rows.length === 0) return null;
      const rows = r.rows.map((row) => {
        const f = scrubRow(row);
        // A row from before migration 010 was embedded with its raw skills (it had no scrubbed ones).
        const before = embeddingText({
          scrubbedHeadline: row.scrubbed_headline,
          scrubbedSkills: row.scrub_version === 0 ? row.skills : row.scrubbed_skills,
          scrubbedText: row.scrubbed_text,
        });
        return {
          id: row.id,
          scrubbed_text: f.scrubbedText,
          scrubbed_headline: f.scrubbedHeadline,
          scrubbed_location: f.scrubbedLocation,
          scrubbed_skills: f.scrubbedSkills,
          scrub_version: f.scrubVersion,
          // The row is locked: this is its content now.
          scrubbed_from_hash: row.content_hash,
          embedding_changed: embeddingText(f) !== before,
        };
      });
      await tx.query(
        `UPDATE candidates c SET scrubbed_text = r.scrubbed_text, scrubbed_headline = r.scrubbed_headline,
                scrubbed_location = r.scrubbed_location, scrubbed_skills = ARRAY(SELECT jsonb_array_elements_text(r.scrubbed_skills)),
                scrub_version = r.scrub_version, scrubbed_from_hash = r.scrubbed_from_hash
         FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, scrubbed_text text, scrubbed_headline text, scrubbed_location text,
              scrubbed_skills jsonb, scrub_version int, scrubbed_from_hash text)
         WHERE c.id = r.id`,
        [JSON.stringify(rows)],
      );
      const changed = rows.filter((row) => row.embedding_changed).map((row) => row.id);
      // No candidate's content hash is '': reembed's staleness test (hash differs) now picks these vectors up.
      if (changed.length) await tx.query(`UPDATE candidate_embeddings SET content_hash = '' WHERE candidate_id = ANY($1::uuid[])`, [changed]);
      done += rows.length;
      return r.rows[r.rows.length - 1]!.id;
    });
    if (last === null) break;
    after = last;
  }
  return done;
}
