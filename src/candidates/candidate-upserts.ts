// An upload's read and write of its candidates (candidate-service.ts): which are stored and with what content, and the
// one statement each that writes the changed ones and their vectors. Part of the candidate store (candidate-store.ts).
import type { Queryable } from '../db/database.js';
import { embeddingText } from './candidate-service.js';
import { vectorLiteral, type PreparedCandidate } from './candidate-store.js';
import { scrubbedCopiesStale } from './scrub-staleness.js';

/** A vector an upload keeps: the stored one, made from the same text, under the content hash it was read with. */
export interface KeptVector {
  fromHash: string;
}

/** A vector an upload meant to keep was replaced since it was read: the upload is written again, embedding everything. */
export class VectorsMovedError extends Error {
  override name = 'VectorsMovedError';
}

/**
 * The stored candidates of these external ids: id and content hash ('' when the scrubbed copies are stale, so the
 * candidate is written again). With the hashes an upload computed and an embedding model: for each stored row whose
 * content is not the uploaded one and that has a current vector of that model, the text that vector was made from
 * (`embedded`), so an upload that changed only what is not embedded (an email, the years) keeps the vector.
 */
export async function readExisting(
  db: Queryable,
  orgId: string,
  externalIds: string[],
  uploaded?: { hashes: ReadonlyMap<string, string>; model: string },
): Promise<Map<string, { id: string; hash: string; embedded: string | null }>> {
  const r = await db.query<{
    id: string;
    external_id: string;
    content_hash: string;
    scrub_version: number;
    scrubbed_from_hash: string | null;
    embedded: { headline: string | null; skills: string[]; text: string } | null;
  }>(
    `SELECT c.id, c.external_id, c.content_hash, c.scrub_version, c.scrubbed_from_hash,
            CASE WHEN c.content_hash IS DISTINCT FROM u.hash AND EXISTS (SELECT 1 FROM candidate_embeddings e
                   WHERE e.candidate_id = c.id AND e.model = $4 AND e.content_hash = c.content_hash)
                 THEN jsonb_build_object('headline', c.scrubbed_headline, 'skills', to_jsonb(c.scrubbed_skills), 'text', c.scrubbed_text) END AS embedded
     FROM candidates c LEFT JOIN jsonb_each_text($3::jsonb) AS u(external_id, hash) ON u.external_id = c.external_id
     WHERE c.org_id = $1 AND c.external_id = ANY($2::text[])`,
    [orgId, externalIds, JSON.stringify(Object.fromEntries(uploaded?.hashes ?? [])), uploaded?.model ?? null],
  );
  return new Map(
    r.rows.map((row) => {
      const stale = scrubbedCopiesStale(row);
      const e = row.embedded;
      const embedded = stale || !e || !uploaded ? null : embeddingText({ scrubbedHeadline: e.headline, scrubbedSkills: e.skills, scrubbedText: e.text });
      return [row.external_id, { id: row.id, hash: stale ? '' : row.content_hash, embedded }];
    }),
  );
}

/**
 * Writes changed candidates and their vectors in one statement each; returns, by externalId, the row written and
 * whether this write created it (false: it updated a row, one a concurrent upload may have just created). `read`
 * holds the ids of those that were stored when the caller read them (existingHashes): one erased since is not
 * written, and is not in the result. The upload took effect just before the erasure, which removed it; written
 * by external id, it would have come back under a new id, so a row this write created for an external id that
 * had one when it was read is deleted again at once (no other transaction has seen it). Rows are inserted and
 * locked in external id order, whatever order the caller gave them in, so concurrent uploads of the same
 * candidates take their locks in one order instead of deadlocking; an erasure that comes meanwhile waits for
 * this write and then removes what it wrote.
 */
export async function writeCandidates(
  tx: Queryable,
  orgId: string,
  items: PreparedCandidate[],
  embeddings: { model: string; vectors: Array<number[] | KeptVector> },
  read: ReadonlyMap<string, string> = new Map(),
): Promise<Map<string, { id: string; created: boolean }>> {
  if (items.length === 0) return new Map();
  const rows = items.map((c) => ({
    external_id: c.externalId,
    name: c.name,
    email: c.email,
    phone: c.phone,
    headline: c.headline,
    location: c.location,
    years_experience: c.yearsExperience,
    skills: c.skills,
    skill_keys: c.skillKeys,
    resume: c.resume,
    scrubbed_text: c.scrubbedText,
    scrubbed_headline: c.scrubbedHeadline,
    scrubbed_location: c.scrubbedLocation,
    scrubbed_skills: c.scrubbedSkills,
    scrub_version: c.scrubVersion,
    content_hash: c.contentHash,
  }));
  // scrubbed_from_hash = content_hash: these scrubbed copies were made from this content.
  const written = await tx.query<{ id: string; external_id: string; created: boolean }>(
    `INSERT INTO candidates (org_id, external_id, name, email, phone, headline, location, years_experience,
                             skills, skill_keys, resume, scrubbed_text, scrubbed_headline, scrubbed_location, scrubbed_skills,
                             scrub_version, content_hash, scrubbed_from_hash)
     SELECT $1, r.external_id, r.name, r.email, r.phone, r.headline, r.location, r.years_experience,
            ARRAY(SELECT jsonb_array_elements_text(r.skills)), ARRAY(SELECT jsonb_array_elements_text(r.skill_keys)),
            r.resume, r.scrubbed_text, r.scrubbed_headline, r.scrubbed_location,
            ARRAY(SELECT jsonb_array_elements_text(r.scrubbed_skills)), r.scrub_version, r.content_hash, r.content_hash
     FROM jsonb_to_recordset($2::jsonb) AS r(external_id text, name text, email text, phone text, headline text,
          location text, years_experience real, skills jsonb, skill_keys jsonb, resume text, scrubbed_text text,
          scrubbed_headline text, scrubbed_location text, scrubbed_skills jsonb, scrub_version int, content_hash text)
     ORDER BY r.external_id COLLATE "C"
     ON CONFLICT (org_id, external_id) DO UPDATE SET
       name = EXCLUDED.name, email = EXCLUDED.email, phone = EXCLUDED.phone, headline = EXCLUDED.headline,
       location = EXCLUDED.location, years_experience = EXCLUDED.years_experience, skills = EXCLUDED.skills,
       skill_keys = EXCLUDED.skill_keys, resume = EXCLUDED.resume, scrubbed_text = EXCLUDED.scrubbed_text, scrubbed_headline = EXCLUDED.scrubbed_headline,
       scrubbed_location = EXCLUDED.scrubbed_location, scrubbed_skills = EXCLUDED.scrubbed_skills, scrub_version = EXCLUDED.scrub_version,
       content_hash = EXCLUDED.content_hash, scrubbed_from_hash = EXCLUDED.scrubbed_from_hash, updated_at = now()
     RETURNING id, external_id, xmax = 0 AS created`,
    [orgId, JSON.stringify(rows)],
  );
  // Created, though the caller read a row for its external id: that row was erased since (see above).
  const erased = written.rows.filter((r) => r.created && read.has(r.external_id)).map((r) => r.id);
  if (erased.length) await tx.query('DELETE FROM candidates WHERE id = ANY($1::uuid[])', [erased]);
  const kept = new Map(written.rows.filter((r) => !erased.includes(r.id)).map((r) => [r.external_id, { id: r.id, created: r.created }]));
  const vectors: Array<{ candidate_id: string; content_hash: string; embedding: string }> = [];
  const restamped: Array<{ candidate_id: string; content_hash: string; from_hash: string }> = [];
  items.forEach((c, i) => {
    const row = kept.get(c.externalId);
    const v = embeddings.vectors[i]!;
    if (!row) return;
    if (Array.isArray(v)) vectors.push({ candidate_id: row.id, content_hash: c.contentHash, embedding: vectorLiteral(v) });
    else restamped.push({ candidate_id: row.id, content_hash: c.contentHash, from_hash: v.fromHash });
  });
  // A vector of the same text is kept, stamped with the new content; the upload read it current, and another
  // upload that changed the candidate since has replaced it: then there is no vector to keep, and the caller embeds.
  if (restamped.length) {
    const moved = await tx.query(
      `UPDATE candidate_embeddings e SET content_hash = r.content_hash
       FROM jsonb_to_recordset($2::jsonb) AS r(candidate_id uuid, content_hash text, from_hash text)
       WHERE e.candidate_id = r.candidate_id AND e.model = $1 AND e.content_hash = r.from_hash`,
      [embeddings.model, JSON.stringify(restamped)],
    );
    if ((moved.rowCount ?? 0) < restamped.length) throw new VectorsMovedError();
  }
  const ids = [...vectors, ...restamped].map((v) => v.candidate_id);
  // A changed text makes every stored vector of the candidate stale, whatever its model: all but a kept one go.
  await tx.query('DELETE FROM candidate_embeddings WHERE candidate_id = ANY($1::uuid[]) AND NOT (model = $2 AND candidate_id = ANY($3::uuid[]))', [
    ids,
    embeddings.model,
    restamped.map((r) => r.candidate_id),
  ]);
  await tx.query(
    `INSERT INTO candidate_embeddings (candidate_id, org_id, model, content_hash, embedding)
     SELECT r.candidate_id, $1, $2, r.content_hash, r.embedding::vector
     FROM jsonb_to_recordset($3::jsonb) AS r(candidate_id uuid, content_hash text, embedding text)`,
    [orgId, embeddings.model, JSON.stringify(vectors)],
  );
  return kept;
}
