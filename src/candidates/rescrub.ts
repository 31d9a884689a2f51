// Backfill: rows whose scrubbed copies are stale are scrubbed again, in the background, by any number of processes.
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import { SCRUB_RULES_VERSION } from '../text/scrubber.js';
import { embeddingText, scrubRow, skillKeysOf, type RawScrubRow } from './candidate-service.js';
import { staleSql } from './scrub-staleness.js';

interface StoredRow extends RawScrubRow {
  content_hash: string;
  scrub_version: number;
  scrubbed_headline: string | null;
  scrubbed_skills: string[];
  scrubbed_text: string;
  scrubbed_from_hash: string | null;
}

/**
 * Rewrites the scrubbed copies (resume, headline, location, skills, and the skill keys filters match) of every stale row, batch by batch in id order.
 * Each batch is claimed with FOR NO KEY UPDATE SKIP LOCKED in its own transaction: processes started together share
 * the work instead of repeating it, an upload of the same candidate waits for the batch instead of being overwritten
 * by copies of its old content, and the foreign-key checks of embedding writes are not blocked (FOR UPDATE would,
 * and could deadlock with `reembed`). Rows skipped because another transaction held them, or gone stale behind the
 * keyset, are found by another pass; the work ends with a pass that claims nothing. A failed batch (a deadlock, a
 * busy pool) is tried again a few times before the backfill gives up until the next start. The full-text index follows by itself (a generated column). A row whose embedding
 * text changed keeps its vector, still usable for search, but the vector is marked stale, so `cli reembed` embeds
 * it again from the scrubbed text. Until a row is done, agents' reads scrub it on the fly (candidate-store views).
 * Returns how many rows were rewritten; stops between batches once `stopped()` says so.
 */
export async function rescrubCandidates(
  db: Database,
  opts: { batch?: number; stopped?: () => boolean; retryDelayMs?: number; /** Only this organisation's rows. */ orgId?: string } = {},
): Promise<number> {
  // Scrubbing is synchronous work: a small batch keeps the event loop and the rows' locks short.
  const batch = opts.batch ?? 20;
  const retryDelayMs = opts.retryDelayMs ?? 1000;
  const FIRST = '00000000-0000-0000-0000-000000000000';
  let done = 0;
  let after = FIRST;
  let claimedThisPass = 0;
  let failures = 0;
  while (!opts.stopped?.()) {
    let last: { id: string; count: number } | null;
    try {
      last = await claimBatch(db, batch, after, opts.orgId);
      failures = 0;
    } catch (err) {
      // A deadlock, a serialization failure or a busy pool is transient: the same batch is tried again, a few times.
      if (++failures > MAX_RETRIES) throw err;
      await new Promise((r) => setTimeout(r, retryDelayMs * failures));
      continue;
    }
    if (last === null) {
      // Rows another transaction held were skipped, and a row may have gone stale behind the keyset: another pass
      // from the start, until one claims nothing.
      if (claimedThisPass === 0) {
        if (opts.orgId === undefined) caughtUp.add(db);
        break;
      }
      claimedThisPass = 0;
      after = FIRST;
      continue;
    }
    // A batch whose rows other transactions held claims none: the pass goes on after them.
    if (last.count > 0) claimedThisPass++;
    after = last.id;
    done += last.count;
  }
  return done;
}

const MAX_RETRIES = 3;

/**
 * How often a process looks for stale rows again after its start. A process of the previous release that is still
 * running during a rolling upgrade writes rows with its own (older) copies after every new process has started, and
 * such rows match no search filter until they are done. A pass that finds nothing reads two small index ranges
 * (staleIdsQuery), not the candidates.
 */
export const RESCRUB_INTERVAL_MS = 10 * 60_000;

/**
 * The backfill as a process runs it: a pass at once, then one every intervalMs after the previous ended. A pass that
 * fails is logged and the next one carries on. stop() ends the current pass between batches and waits for it.
 */
export function startRescrubber(db: Database, opts: { logger: Pick<Logger, 'info' | 'warn'>; intervalMs?: number }): { stop(): Promise<void> } {
  const intervalMs = opts.intervalMs ?? RESCRUB_INTERVAL_MS;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const pass = async () => {
    try {
      const rows = await rescrubCandidates(db, { stopped: () => stopped });
      if (rows) opts.logger.info({ rows }, 'candidates scrubbed again with the current rules');
    } catch (err) {
      opts.logger.warn({ err }, 'scrubbing candidates again stopped; the next pass carries on');
    }
  };
  const next = (): void => {
    if (stopped) return;
    timer = setTimeout(() => (current = pass().then(next)), intervalMs);
    // A process with nothing else to do ends; the rows wait for the next start.
    timer.unref();
  };
  let current: Promise<void> = pass().then(next);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}

/** Databases whose whole backfill has run to its end in this process: every row was current then. */
const caughtUp = new WeakSet<Database>();
/** An organisation's pass in flight, per database: concurrent filtered reads of one organisation share it. */
const organisationPasses = new WeakMap<Database, Map<string, Promise<void>>>();

/**
 * Before a location or skill filter reads an organisation's scrubbed copies (retrieval/filters.ts): its stale rows are
 * scrubbed again first, as the backfill would, so that a filtered search or an evaluate_filters count right after an
 * upgrade sees the whole pool instead of the rows the backfill has reached (none, at first: a run whose first search
 * found nobody ended 'exhausted' with an empty shortlist). Nothing to do once this process's backfill has run to its
 * end: a row an older release writes after that is done by the next periodic pass (startRescrubber). Rows another
 * transaction holds at that moment are skipped, as the backfill skips them; a failed pass leaves the filter to the rows
 * already current.
 */
export function currentCopiesFor(db: Database, orgId: string): Promise<void> {
  if (caughtUp.has(db)) return Promise.resolve();
  let passes = organisationPasses.get(db);
  if (!passes) organisationPasses.set(db, (passes = new Map()));
  const running = passes.get(orgId);
  if (running) return running;
  const pass = rescrubCandidates(db, { orgId, retryDelayMs: 50 }).then(
    () => {},
    () => {},
  );
  passes.set(orgId, pass);
  void pass.then(() => passes.delete(orgId));
  return pass;
}

/**
 * The statement reading the ids of the first `batch` stale rows after `after`, in id order, through migration 020's
 * indexes: rows of each older scrub_version in id order, and the few whose copies were made from other content. A
 * pass that finds nothing reads two small index ranges instead of the whole table.
 */
export function staleIdsQuery(batch: number, after: string, orgId?: string): { text: string; values: unknown[] } {
  const org = orgId === undefined ? '' : 'AND org_id = $4';
  return {
    text: `SELECT id FROM (
       (SELECT s.id FROM generate_series(0, $1::int - 1) AS v(version)
          CROSS JOIN LATERAL (SELECT id FROM candidates WHERE scrub_version = v.version AND id > $3 ${org} ORDER BY id LIMIT $2) s)
       UNION
       (SELECT id FROM candidates WHERE scrubbed_from_hash IS DISTINCT FROM content_hash AND id > $3 ${org} ORDER BY id LIMIT $2)
     ) stale ORDER BY id LIMIT $2`,
    values: orgId === undefined ? [SCRUB_RULES_VERSION, batch, after] : [SCRUB_RULES_VERSION, batch, after, orgId],
  };
}

/**
 * The first stale rows after `after` (staleIdsQuery), those no other transaction holds claimed, scrubbed and written in
 * one transaction. Returns the last id looked at and how many rows were written (none when others held them all);
 * null when no stale row is left after `after`.
 */
async function claimBatch(db: Database, batch: number, after: string, orgId?: string): Promise<{ id: string; count: number } | null> {
  return db.withTransaction(async (tx) => {
    const { text, values } = staleIdsQuery(batch, after, orgId);
    const ids = (await tx.query<{ id: string }>(text, values)).rows.map((row) => row.id);
    if (ids.length === 0) return null;
    // Locked, a row is tested again as it is now: another process may have done it since it was read.
    const r = await tx.query<StoredRow>(
      `SELECT id, content_hash, scrub_version, scrubbed_from_hash, name, email, phone, headline, location, skills, resume,
              scrubbed_headline, scrubbed_skills, scrubbed_text
       FROM candidates c WHERE c.id = ANY($2::uuid[]) AND ${staleSql(1)}
       ORDER BY c.id FOR NO KEY UPDATE SKIP LOCKED`,
      [SCRUB_RULES_VERSION, ids],
    );
    if (r.rows.length === 0) return { id: ids[ids.length - 1]!, count: 0 };
    const rows = r.rows.map((row) => {
      const f = scrubRow(row);
      // A row from before migration 010, or one a process of that release rewrote, was embedded with its raw skills.
      const before = embeddingText({
        scrubbedHeadline: row.scrubbed_headline,
        scrubbedSkills: row.scrub_version === 0 || row.scrubbed_from_hash !== row.content_hash ? row.skills : row.scrubbed_skills,
        scrubbedText: row.scrubbed_text,
      });
      return {
        id: row.id,
        scrubbed_text: f.scrubbedText,
        scrubbed_headline: f.scrubbedHeadline,
        scrubbed_location: f.scrubbedLocation,
        scrubbed_skills: f.scrubbedSkills,
        skill_keys: skillKeysOf(f.scrubbedSkills),
        scrub_version: f.scrubVersion,
        // The row is locked: this is its content now.
        scrubbed_from_hash: row.content_hash,
        embedding_changed: embeddingText(f) !== before,
      };
    });
    await tx.query(
      `UPDATE candidates c SET scrubbed_text = r.scrubbed_text, scrubbed_headline = r.scrubbed_headline,
              scrubbed_location = r.scrubbed_location, scrubbed_skills = ARRAY(SELECT jsonb_array_elements_text(r.scrubbed_skills)),
              skill_keys = ARRAY(SELECT jsonb_array_elements_text(r.skill_keys)), scrub_version = r.scrub_version, scrubbed_from_hash = r.scrubbed_from_hash
       FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, scrubbed_text text, scrubbed_headline text, scrubbed_location text,
            scrubbed_skills jsonb, skill_keys jsonb, scrub_version int, scrubbed_from_hash text)
       WHERE c.id = r.id`,
      [JSON.stringify(rows)],
    );
    const changed = rows.filter((row) => row.embedding_changed).map((row) => row.id);
    // No candidate's content hash is '': reembed's staleness test (hash differs) now picks these vectors up.
    if (changed.length) await tx.query(`UPDATE candidate_embeddings SET content_hash = '' WHERE candidate_id = ANY($1::uuid[])`, [changed]);
    return { id: ids[ids.length - 1]!, count: rows.length };
  });
}
