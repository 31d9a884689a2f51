// The answer to GET /v1/matching-runs/:id for finished runs, serialized once and kept in the process.
// A finished run changes only when a candidate on its shortlist is erased, and erasure bumps its version:
// a cached answer is served as is while fresh, then revalidated with the run's version alone (one
// indexed read), and dropped at once when this process erases a candidate of the organisation.
import { RecentCache } from '../cache/recent-cache.js';
import type { RunStatus } from '../runs/run-schemas.js';

export interface FinishedRunAnswer {
  version: number;
  status: RunStatus;
  /** The ETag of this version, made once rather than on every poll. */
  etag: string;
  /** The JSON body, as the route's serializer would have produced it. */
  body: Buffer;
}

export class FinishedRunCache {
  readonly #answers: RecentCache<FinishedRunAnswer & { orgId: string }>;
  /** Erasures seen: an answer read before one must not be kept after it dropped the answers. */
  #erasures = 0;

  /** At most maxEntries answers and maxBytes of bodies (a 500-entry shortlist is about 750 KB). */
  constructor(ttlMs: number, opts: { maxEntries?: number; maxBytes?: number; now?: () => number } = {}) {
    this.#answers = new RecentCache({
      ttlMs,
      maxEntries: opts.maxEntries ?? 1_000,
      maxSize: opts.maxBytes ?? 32 * 1024 * 1024,
      sizeOf: (answer) => answer.body.length,
      now: opts.now,
    });
  }

  /** Served without a database read. */
  fresh(orgId: string, runId: string): FinishedRunAnswer | undefined {
    return this.#answers.fresh(`${orgId}/${runId}`);
  }

  /** Worth serving again if the run's version is still this one. */
  stale(orgId: string, runId: string): FinishedRunAnswer | undefined {
    return this.#answers.stale(`${orgId}/${runId}`);
  }

  /** Taken before the reads that make or confirm an answer, and handed to keep(). */
  epoch(): number {
    return this.#erasures;
  }

  /**
   * Stores or (after a version check) re-confirms an answer, unless an erasure came between the reads (as of
   * `epoch`) and now: the answer may hold what it erased, and the erasure has already dropped what was cached.
   */
  keep(orgId: string, runId: string, answer: FinishedRunAnswer, epoch: number): void {
    if (epoch !== this.#erasures) return;
    this.#answers.set(`${orgId}/${runId}`, { ...answer, orgId });
  }

  forget(orgId: string, runId: string): void {
    this.#answers.delete(`${orgId}/${runId}`);
  }

  /** After an erasure: any of the organisation's shortlists may have named the candidate. */
  forgetOrganisation(orgId: string): void {
    this.#erasures++;
    this.#answers.deleteWhere((answer) => answer.orgId === orgId);
  }
}
