// SQL for the candidates table and their embeddings; the organisation is in every WHERE clause.
import type { Database } from '../db/database.js';
import type { Keyset } from '../http/pagination.js';
import { erasuresColumn } from '../cache/erasure-epoch.js';
import { iso } from '../http/schemas.js';
import type { CandidateView, SearchFilters } from '../matching/domain.js';
import { filterSql, readsScrubbedCopies } from '../retrieval/filters.js';
import { SCRUB_RULES_VERSION } from '../text/scrubber.js';
import type { Candidate, CandidateSummary } from './candidate-schemas.js';
import { scrubRow, type RawScrubRow } from './candidate-service.js';
import { readExisting, writeCandidates } from './candidate-upserts.js';
import { currentCopiesFor } from './rescrub.js';
import { scrubbedCopiesStale, staleSql } from './scrub-staleness.js';

/** A candidate ready to store: raw fields plus everything derived from them. */
export interface PreparedCandidate {
  externalId: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  headline: string | null;
  location: string | null;
  yearsExperience: number | null;
  skills: string[];
  /** The keys of the scrubbed skills, which skill filters match (skillKeysOf). */
  skillKeys: string[];
  resume: string;
  scrubbedText: string;
  /** The headline as agents, the index and logs may see it. */
  scrubbedHeadline: string | null;
  /** The location and the skills as agents, embeddings, logs and the trace may see them. */
  scrubbedLocation: string | null;
  scrubbedSkills: string[];
  /** The scrubber rules (SCRUB_RULES_VERSION) the scrubbed copies were made with. */
  scrubVersion: number;
  contentHash: string;
}

interface CandidateRow {
  id: string;
  external_id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  headline: string | null;
  location: string | null;
  years_experience: number | null;
  skills: string[];
  resume: string;
  embedding_model: string | null;
  created_at: Date;
  updated_at: Date;
}

function rowToCandidate(r: CandidateRow): Candidate {
  return { ...rowToSummary(r), resume: r.resume };
}

function rowToSummary(r: Omit<CandidateRow, 'resume'>): CandidateSummary {
  return {
    id: r.id,
    externalId: r.external_id,
    name: r.name,
    email: r.email,
    phone: r.phone,
    headline: r.headline,
    location: r.location,
    yearsExperience: r.years_experience,
    skills: r.skills,
    embeddingModel: r.embedding_model,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

// A list leaves the resume out: a page of long resumes was megabytes read and parsed for an answer without them.
const SUMMARY_COLUMNS = `c.id, c.external_id, c.name, c.email, c.phone, c.headline, c.location, c.years_experience,
  c.skills, c.created_at, c.updated_at,
  (SELECT string_agg(e.model, ',') FROM candidate_embeddings e WHERE e.candidate_id = c.id) AS embedding_model`;
const CANDIDATE_COLUMNS = `${SUMMARY_COLUMNS}, c.resume`;

export function vectorLiteral(v: number[]): string {
  return `[${v.join(',')}]`;
}

export function createCandidateStore(db: Database) {
  /**
   * The views, and the organisation's erasure count as the same statement saw it (null when it found none): the
   * candidates were there as of that count (src/candidates/erasure-guard.ts).
   */
  async function viewsWithErasures(orgId: string, ids: string[], opts: { maxChars?: number } = {}): Promise<{ views: CandidateView[]; erasures: number | null }> {
    // The whole text is read and cut here: on the embedded database left() in SQL cost more than sending all of it
    // (measured at 60-260 resumes: 20-38 % more database time), as it walks the text character by character.
    // Only scrubbed copies are read: the raw location and skills are the owner's, never an agent's.
    const r = await db.query<ViewRow & { erasures: number }>(
      `SELECT id, scrubbed_headline AS headline, scrubbed_location AS location, years_experience, scrubbed_skills AS skills,
              scrubbed_text, scrub_version, scrubbed_from_hash, content_hash, ${erasuresColumn('$1')} AS erasures FROM candidates
       WHERE org_id = $1 AND id = ANY($2::uuid[])`,
      [orgId, ids],
    );
    const rows = await rescrubStale(db, orgId, r.rows);
    const maxChars = opts.maxChars === undefined ? undefined : Math.max(0, Math.floor(opts.maxChars));
    const views = rows.map((row) => ({
      id: row.id,
      headline: row.headline,
      location: row.location,
      yearsExperience: row.years_experience,
      skills: row.skills,
      text: maxChars === undefined ? row.scrubbed_text : codePointPrefix(row.scrubbed_text, maxChars),
    }));
    return { views, erasures: r.rows[0]?.erasures ?? null };
  }

  return {
    /**
     * The stored candidates of these external ids, and what an upload may keep of them (candidate-upserts.ts). A row
     * whose scrubbed copies are stale has no current hash: sent again, it is written (and embedded) again.
     */
    existingHashes: (orgId: string, externalIds: string[], uploaded?: { hashes: ReadonlyMap<string, string>; model: string }) =>
      readExisting(db, orgId, externalIds, uploaded),
    upsert: writeCandidates,

    async get(orgId: string, id: string): Promise<Candidate | null> {
      const r = await db.query<CandidateRow>(`SELECT ${CANDIDATE_COLUMNS} FROM candidates c WHERE c.org_id = $1 AND c.id = $2`, [orgId, id]);
      return r.rows[0] ? rowToCandidate(r.rows[0]) : null;
    },

    async list(orgId: string, limit: number, after: Keyset | null): Promise<CandidateSummary[]> {
      const r = await db.query<Omit<CandidateRow, 'resume'>>(
        `SELECT ${SUMMARY_COLUMNS} FROM candidates c
         WHERE c.org_id = $1 AND ($2::timestamptz IS NULL OR (c.created_at, c.id) < ($2::timestamptz, $3::uuid))
         ORDER BY c.created_at DESC, c.id DESC LIMIT $4`,
        [orgId, after?.createdAt ?? null, after?.id ?? null, limit],
      );
      return r.rows.map(rowToSummary);
    },

    /**
     * Erasure: the row (raw PII, text, vectors) goes; finished shortlists keep only the id and the
     * scores; audit-trail rows that carried the candidate's scrubbed text are redacted. An unscored entry's reason
     * goes too, from the entry and its event: a model's answer that did not parse was quoted in it.
     */
    async erase(orgId: string, id: string): Promise<boolean> {
      return db.withTransaction(async (tx) => {
        const r = await tx.query('DELETE FROM candidates WHERE org_id = $1 AND id = $2', [orgId, id]);
        if (r.rowCount === 0) return false;
        await tx.query(
          `UPDATE shortlist_entries s SET external_id = NULL, name = NULL, rationale = NULL, evidence = '[]'::jsonb, reason = NULL
           FROM matching_runs m WHERE s.run_id = m.id AND m.org_id = $1 AND s.candidate_id = $2`,
          [orgId, id],
        );
        // Every candidate.unscored event has its entry (one statement writes both): the entries find the runs.
        await tx.query(
          `UPDATE run_events e SET data = e.data - 'reason'
           FROM matching_runs m WHERE e.run_id = m.id AND m.org_id = $1
             AND m.id IN (SELECT run_id FROM shortlist_entries WHERE candidate_id = $2)
             AND e.type = 'candidate.unscored' AND e.data ->> 'candidateId' = $2::text AND e.data ? 'reason'`,
          [orgId, id],
        );
        // The runs' answers changed: a new version is a new ETag, so no client or cache keeps the erased text. Their
        // rows are locked in id order, as a heartbeat and the journal lock several runs: read through the organisation's
        // index they came newest first, and a worker renewing two of them waited for one this held, and it for the other.
        await tx.query(
          `UPDATE matching_runs SET version = version + 1
           WHERE id IN (SELECT id FROM matching_runs WHERE org_id = $1 AND id IN (SELECT run_id FROM shortlist_entries WHERE candidate_id = $2)
                        ORDER BY id FOR NO KEY UPDATE)`,
          [orgId, id],
        );
        await tx.query(
          // A rerank batch's exchange names its candidates in data->'candidateIds' (migration 003 indexes it).
          `UPDATE run_trace SET data = jsonb_build_object('erased', true)
           WHERE org_id = $1 AND (candidate_id = $2 OR (kind = 'model.exchange' AND data -> 'candidateIds' ? $2::text))`,
          [orgId, id],
        );
        // Last, so erasures of one organisation wait on each other only for this row's moment: what other processes
        // remember of the pool is read anew at its next use (src/cache/erasure-epoch.ts).
        await tx.query('UPDATE organisations SET erasures = erasures + 1 WHERE id = $1', [orgId]);
        return true;
      });
    },

    /** maxChars: only the start of each resume (at least that many UTF-16 units, or all of it), for readers of excerpts. */
    async views(orgId: string, ids: string[], opts: { maxChars?: number } = {}): Promise<CandidateView[]> {
      return (await viewsWithErasures(orgId, ids, opts)).views;
    },

    viewsWithErasures,

    /** External ids and names, for shortlist entries (never sent to a model). */
    async identities(orgId: string, ids: string[]): Promise<Map<string, { externalId: string; name: string | null }>> {
      const r = await db.query<{ id: string; external_id: string; name: string | null }>(
        'SELECT id, external_id, name FROM candidates WHERE org_id = $1 AND id = ANY($2::uuid[])',
        [orgId, ids],
      );
      return new Map(r.rows.map((row) => [row.id, { externalId: row.external_id, name: row.name }]));
    },

    async countMatching(orgId: string, filters: SearchFilters): Promise<number> {
      // Right after an upgrade the organisation's rows may be stale, which such a filter cannot match: rewrite them first.
      if (readsScrubbedCopies(filters)) await currentCopiesFor(db, orgId);
      const values: unknown[] = [orgId];
      const r = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM candidates c WHERE c.org_id = $1 ${filterSql(filters, values)}`,
        values,
      );
      return r.rows[0]?.n ?? 0;
    },

    /**
     * What the query expander may offer a model: the scrubbed skills (a skill that was an email is not there). Rows
     * older rules scrubbed are rewritten first, as for a filter: their copies may hold what the current rules remove.
     */
    async skillVocabulary(orgId: string): Promise<Array<{ skill: string; count: number }>> {
      await currentCopiesFor(db, orgId);
      // Rows still stale (a process of the previous release wrote them after this one's backfill) are left out, as
      // the filters leave them out: their skills may have been scrubbed by older rules.
      const r = await db.query<{ skill: string; count: number }>(
        // Candidates, not rows of skills: one candidate's skill written three ways that scrub alike counts once.
        `SELECT s.skill, count(DISTINCT c.id)::int AS count FROM candidates c, unnest(c.scrubbed_skills) AS s(skill)
         WHERE c.org_id = $1 AND NOT ${staleSql(2)} GROUP BY s.skill ORDER BY count DESC, s.skill LIMIT 1000`,
        [orgId, SCRUB_RULES_VERSION],
      );
      return r.rows;
    },
  };
}

export type CandidateStore = ReturnType<typeof createCandidateStore>;

interface ViewRow {
  id: string;
  headline: string | null;
  location: string | null;
  years_experience: number | null;
  skills: string[];
  scrubbed_text: string;
  scrub_version: number;
  scrubbed_from_hash: string | null;
  content_hash: string;
}

/**
 * Rows whose scrubbed copies are stale (scrubbedCopiesStale) are scrubbed again from their raw fields before an
 * agent sees them: the time before the background backfill (rescrub.ts) reaches them, and rows a process of the
 * release before migration 010 wrote meanwhile.
 */
async function rescrubStale(db: Database, orgId: string, rows: ViewRow[]): Promise<ViewRow[]> {
  const stale = rows.filter(scrubbedCopiesStale);
  if (stale.length === 0) return rows;
  const raw = await db.query<RawScrubRow>(
    `SELECT id, name, email, phone, headline, location, skills, resume FROM candidates WHERE org_id = $1 AND id = ANY($2::uuid[])`,
    [orgId, stale.map((row) => row.id)],
  );
  const fresh = new Map(raw.rows.map((c) => [c.id, scrubRow(c)]));
  // A stale row not read again was erased in between: it drops out, as an erased candidate does, rather than reach
  // an agent as the older rules scrubbed it.
  const staleIds = new Set(stale.map((row) => row.id));
  return rows.flatMap((row) => {
    const f = fresh.get(row.id);
    if (!f) return staleIds.has(row.id) ? [] : [row];
    return [{ ...row, headline: f.scrubbedHeadline, location: f.scrubbedLocation, skills: f.scrubbedSkills, scrubbed_text: f.scrubbedText, scrub_version: f.scrubVersion }];
  });
}

/**
 * The first n code points of text, as PostgreSQL's left(text, n) gives them: a code point outside the BMP is two
 * UTF-16 units, so the result holds at least n units (or all of the text).
 */
export function codePointPrefix(text: string, n: number): string {
  if (text.length <= n) return text;
  let i = 0;
  for (let count = 0; count < n && i < text.length; count++) {
    const unit = text.charCodeAt(i);
    i += unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length ? 2 : 1;
  }
  return text.slice(0, i);
}
