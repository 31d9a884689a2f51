// Candidate ingestion: scrub, normalise skills, hash, embed what changed, then write all-or-nothing.
import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Database } from '../db/database.js';
import type { Embedder } from '../embeddings/embedder.js';
import type { LlmLogger } from '../llm/chat.js';
import { PII_PLACEHOLDERS } from '../text/pii-placeholders.js';
import { escapeRe } from '../text/scrub-names.js';
import { scrub, SCRUB_RULES_VERSION, scrubShowing, type ScrubOptions } from '../text/scrubber.js';
import { extractSkills, isSkillForm, normalizeSkills, skillKey } from '../text/skills.js';
import type { CandidateInput, UpsertStatus } from './candidate-schemas.js';
import type { CandidateStore, PreparedCandidate } from './candidate-store.js';
import { VectorsMovedError, type KeptVector } from './candidate-upserts.js';

/** The raw fields a candidate's scrubbed copies are made from. */
export interface ScrubSource {
  name: string | null;
  email: string | null;
  phone: string | null;
  headline: string | null;
  location: string | null;
  skills: string[];
}

/** Everything of a candidate an agent, an embedding, the index, a log or the trace may see. */
export interface ScrubbedFields {
  scrubbedText: string;
  scrubbedHeadline: string | null;
  scrubbedLocation: string | null;
  scrubbedSkills: string[];
  scrubVersion: number;
}

/** The scrubber told all the candidate's record knows: names, and its own email and phone wherever they are repeated. */
function knownPii(c: Pick<ScrubSource, 'name' | 'email' | 'phone'>): ScrubOptions {
  return { names: c.name ? [c.name] : [], emails: c.email ? [c.email] : [], phones: c.phone ? [c.phone] : [] };
}

/** A skill that was nothing but PII ("jane@x.io" became "[EMAIL]") is no skill: it is dropped, not shown as a placeholder. */
const PLACEHOLDER_RE = new RegExp(PII_PLACEHOLDERS.map(escapeRe).join('|'), 'g');
const onlyPlaceholders = (s: string): boolean => !/[\p{L}\p{N}]/u.test(s.replace(PLACEHOLDER_RE, ''));

/**
 * The scrubbed copies of the short fields; the resume's is given (it is scrubbed first: skills may be read from it), with
 * the names it showed, which are removed from the fields too ("Senior Engineer | Priya Raman" as the headline of a
 * resume headed "Priya Raman"). Short fields are no resume: a location like "Buenos Aires" must not be taken for a
 * header name.
 */
export function scrubFields(c: ScrubSource, resume: ScrubbedResume): ScrubbedFields {
  const known = knownPii(c);
  const withShown = { ...known, names: [...(known.names ?? []), ...resume.shown] };
  const field = { ...withShown, detectNames: false };
  return {
    scrubbedText: resume.text,
    scrubbedHeadline: c.headline === null ? null : scrub(c.headline, withShown),
    scrubbedLocation: c.location === null ? null : scrub(c.location, field),
    // A known skill is no PII, even when the candidate shares its name ("Ruby" Chen knows Ruby).
    // Skills that scrub alike ("Zephyr Portal" and "Zeph\u00ADyr Portal") are one.
    scrubbedSkills: [...new Set(c.skills.map((s) => (isSkillForm(s) ? s : scrub(s, field))).filter((s) => !onlyPlaceholders(s)))],
    scrubVersion: SCRUB_RULES_VERSION,
  };
}

/** A resume's scrubbed text, and the names it showed. */
export interface ScrubbedResume {
  text: string;
  shown: string[];
}

/** The scrubbed resume text, knowing the candidate's own name, email and phone; and the names the text showed. */
export function scrubResume(c: Pick<ScrubSource, 'name' | 'email' | 'phone'>, resume: string): ScrubbedResume {
  return scrubShowing(resume, knownPii(c));
}

/** A stored row's raw fields, as the scrubber needs them. */
export interface RawScrubRow extends ScrubSource {
  id: string;
  resume: string;
}

/** A stored row's scrubbed copies under the current rules: what ingestion would write for it today. */
export function scrubRow(c: RawScrubRow) {
  return scrubFields(c, scrubResume(c, c.resume));
}

/**
 * The keys skill filters match: those of the scrubbed skills, as the vocabulary offers them. A model's filter is counted
 * against them, so keys of the raw skills would let it probe a skill that was an email or a name.
 */
export function skillKeysOf(scrubbedSkills: string[]): string[] {
  return [...new Set(scrubbedSkills.map(skillKey))];
}

export function prepareCandidate(input: CandidateInput): PreparedCandidate {
  const resume = scrubResume({ name: input.name ?? null, email: input.email ?? null, phone: input.phone ?? null }, input.resume);
  const skills = normalizeSkills(input.skills ?? extractSkills(resume.text));
  const fields = {
    externalId: input.externalId,
    name: input.name ?? null,
    email: input.email ?? null,
    phone: input.phone ?? null,
    headline: input.headline ?? null,
    location: input.location ?? null,
    yearsExperience: input.yearsExperience ?? null,
    skills,
    resume: input.resume,
  };
  // Fixed key order makes the hash a function of the content alone.
  const contentHash = createHash('sha256').update(JSON.stringify(fields)).digest('hex');
  const scrubbed = scrubFields(fields, resume);
  return { ...fields, skillKeys: skillKeysOf(scrubbed.scrubbedSkills), contentHash, ...scrubbed };
}

/** How long an upload's scrubbing runs before other work gets a turn of the event loop. */
const PREPARE_SLICE_MS = 10;

/** The text a candidate is embedded from: scrubbed, so no PII ever reaches an embedding model. */
export function embeddingText(c: Pick<ScrubbedFields, 'scrubbedHeadline' | 'scrubbedSkills' | 'scrubbedText'>): string {
  return [c.scrubbedHeadline ?? '', c.scrubbedSkills.join(', '), c.scrubbedText].filter(Boolean).join('\n');
}

export function createCandidateService(deps: { db: Database; store: CandidateStore; embedder: Embedder }) {
  const { db, store, embedder } = deps;
  // PGlite runs no autovacuum, so nothing refreshes the planner's statistics: a pool of 2,000 estimated at
  // 37 rows gets the wrong plans. On the embedded database the pool is analysed again whenever it has
  // changed by a fifth since the last time (PostgreSQL's autovacuum does this by itself).
  const statistics = { rowsAtLastAnalyze: 0, changedSince: 0, running: false };
  function refreshStatistics(changed: number): void {
    if (db.kind !== 'embedded' || changed === 0) return;
    statistics.changedSince += changed;
    if (statistics.running || statistics.changedSince < Math.max(100, statistics.rowsAtLastAnalyze / 5)) return;
    statistics.running = true;
    const counted = statistics.changedSince;
    statistics.changedSince = 0;
    db.query('ANALYZE candidates, candidate_embeddings')
      .then(() => (statistics.rowsAtLastAnalyze += counted))
      // A closing database: the changes count again, so the next write tries again.
      .catch(() => (statistics.changedSince += counted))
      .finally(() => (statistics.running = false));
  }
  return {
    /** `opts.logger`: the request's, so an embedding endpoint's failed attempts are logged with its reqId. */
    async upsert(orgId: string, inputs: CandidateInput[], opts: { logger?: LlmLogger } = {}): Promise<Array<{ externalId: string; id: string; status: UpsertStatus }>> {
      // The last occurrence of a repeated externalId wins, as if the items were sent one by one. Scrubbing takes tens
      // of milliseconds for a long resume (a batch of 500 can take tens of seconds): other requests are served between
      // slices of it, instead of the process answering nothing until the whole batch is scrubbed.
      const byExternalId = new Map<string, PreparedCandidate>();
      let slice = performance.now();
      for (const c of inputs) {
        byExternalId.set(c.externalId, prepareCandidate(c));
        if (performance.now() - slice >= PREPARE_SLICE_MS) {
          await nextTurn();
          slice = performance.now();
        }
      }
      const prepared = [...byExternalId.values()];
      const hashes = new Map(prepared.map((c) => [c.externalId, c.contentHash]));
      const existing = await store.existingHashes(orgId, [...byExternalId.keys()], { hashes, model: embedder.model });
      const changed = prepared.filter((c) => existing.get(c.externalId)?.hash !== c.contentHash);
      const read = new Map([...existing].map(([externalId, row]) => [externalId, row.id]));
      // Embedding happens before the transaction: no connection is held while a model works. A candidate whose
      // embedded text is what its current vector was made from (an ATS sync that changed its email or its years)
      // keeps that vector: embedding it again would be paid for and give the same.
      // Vectors embedded by this upload, by external id: a second write (below) does not pay for them again.
      const fresh = new Map<string, number[]>();
      const write = async (reuse: boolean) => {
        const keptOf = (c: PreparedCandidate): KeptVector | null => {
          const before = existing.get(c.externalId);
          return reuse && before?.embedded != null && before.embedded === embeddingText(c) ? { fromHash: before.hash } : null;
        };
        const kept = changed.map(keptOf);
        const toEmbed = changed.filter((c, i) => kept[i] === null && !fresh.has(c.externalId));
        const embedded = toEmbed.length ? await embedder.embed(toEmbed.map(embeddingText), { orgId, ...(opts.logger ? { logger: opts.logger } : {}) }) : [];
        toEmbed.forEach((c, i) => fresh.set(c.externalId, embedded[i]!));
        const vectors = changed.map((c, i) => kept[i] ?? fresh.get(c.externalId)!);
        return db.withTransaction((tx) => store.upsert(tx, orgId, changed, { model: embedder.model, vectors }, read));
      };
      // Another upload of the same candidate replaced a vector this one meant to keep: written again, all embedded.
      const written = await write(true).catch((err: unknown) => (err instanceof VectorsMovedError ? write(false) : Promise.reject(err)));
      refreshStatistics(changed.length);
      const changedIds = new Set(changed.map((c) => c.externalId));
      return inputs.map(({ externalId }) => {
        const before = existing.get(externalId);
        const row = written.get(externalId);
        // Not created by this write: it was there, or a concurrent upload of the same candidate created it first.
        if (row) return { externalId, id: row.id, status: row.created ? 'created' : 'updated' };
        // Changed and not written: erased while its text was embedded. The update came just before the erasure.
        return { externalId, id: before!.id, status: changedIds.has(externalId) ? 'updated' : 'unchanged' };
      });
    },
  };
}

export type CandidateService = ReturnType<typeof createCandidateService>;
