// Start-up backfill: rows whose scrubbed copies were made with older scrubber rules are scrubbed again.
import type { Database } from '../db/database.js';
import { SCRUB_RULES_VERSION } from '../text/scrubber.js';
import { embeddingText } from './candidate-service.js';
import { scrubRow, type RawScrubRow } from './candidate-store.js';

interface StoredRow extends RawScrubRow {
  scrubbed_headline: string | null;
  scrubbed_skills: string[];
  scrubbed_text: string;
}

/**
 * Rewrites the scrubbed copies (resume, headline, location, skills) of every row below SCRUB_RULES_VERSION, batch by
 * batch, each batch committed on its own (an interrupted backfill carries on at the next start). The full-text
 * index follows by itself (a generated column). A row whose embedding text changed keeps its vector, still usable
 * for search, but the vector is marked stale, so `cli reembed` embeds it again from the scrubbed text.
 * Returns how many rows were rewritten.
 */
export async function rescrubCandidates(db: Database, opts: { batch?: number } = {}): Promise<number> {
  const batch = opts.batch ?? 200;
  let done = 0;
  for (;;) {
    const r = await db.query<StoredRow>(
      `SELECT id, name, email, phone, headline, location, skills, resume, scrubbed_headline, scrubbed_skills, scrubbed_text
       FROM candidates WHERE scrub_version < $1 ORDER BY id LIMIT $2`,
      [SCRUB_RULES_VERSION, batch],
    );
    if (r.rows.length === 0) return done;
    const rows = r.rows.map((row) => {
      const f = scrubRow(row);
      const before = embeddingText({ scrubbedHeadline: row.scrubbed_headline, scrubbedSkills: row.scrubbed_skills, scrubbedText: row.scrubbed_text });
      return {
        id: row.id,
        scrubbed_text: f.scrubbedText,
        scrubbed_headline: f.scrubbedHeadline,
        scrubbed_location: f.scrubbedLocation,
        scrubbed_skills: f.scrubbedSkills,
        scrub_version: f.scrubVersion,
        embedding_changed: embeddingText(f) !== before,
      };
    });
    await db.withTransaction(async (tx) => {
      await tx.query(
        `UPDATE candidates c SET scrubbed_text = r.scrubbed_text, scrubbed_headline = r.scrubbed_headline,
                scrubbed_location = r.scrubbed_location, scrubbed_skills = ARRAY(SELECT jsonb_array_elements_text(r.scrubbed_skills)),
                scrub_version = r.scrub_version
         FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, scrubbed_text text, scrubbed_headline text, scrubbed_location text,
              scrubbed_skills jsonb, scrub_version int)
         WHERE c.id = r.id`,
        [JSON.stringify(rows)],
      );
      const changed = rows.filter((row) => row.embedding_changed).map((row) => row.id);
      // No candidate's content hash is '': reembed's staleness test (hash differs) now picks these vectors up.
      if (changed.length) await tx.query(`UPDATE candidate_embeddings SET content_hash = '' WHERE candidate_id = ANY($1::uuid[])`, [changed]);
    });
    done += rows.length;
  }
}
