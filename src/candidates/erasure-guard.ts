// Whether candidates are still there, asked just before a model request that carries their text is sent: a step reads
// its candidates' texts once, and its requests may wait seconds for a slot (or back off between attempts) after that.
// An erased candidate's text must not reach a model once its erasure has been answered; asking the database for every
// request cost each model slot a statement's wait, so most answers come from the organisation's erasure count instead.
import type { Queryable } from '../db/database.js';
import { createPresenceReads } from './erased-among.js';

/**
 * How old the newest read of an organisation's erasure count may be for a request to be sent on it: a request is not
 * sent once an erasure of its candidate committed more than this long before (docs/operations.md, Backups and erasure).
 */
export const FRESH_MS = 500;
// A use of a count older than this reads it again in the background, so a steady flow of requests never waits for one.
const REFRESH_MS = 150;
// How long a candidate read stays useful: a request waiting longer than this asks for its candidates one by one.
const PRESENT_MS = 15 * 60_000;
const MAX_PRESENT = 100_000;

export interface ErasureGuard {
  /**
   * Candidates a read found, and the organisation's erasure count that read's own statement saw (erasuresColumn): there
   * as of that count. The read was sent at `at` (this guard's clock), so the count is also a count read then.
   */
  present(orgId: string, ids: readonly string[], read: { at: number; erasures: number }): void;
  /** Those of ids erased: not sent to a model. */
  erasedAmong(orgId: string, ids: readonly string[]): Promise<string[]>;
  /** An erasure of the organisation's committed in this process: no count read before now answers a request. */
  erased(orgId: string): void;
}

interface OrgCounts {
  latest: CountRead | null;
  reading: Promise<CountRead> | null;
  /** An erasure in this process: reads sent before this answer no request. */
  notBefore: number;
}

interface CountRead {
  /** When the read was sent: what it counted had committed before then. */
  at: number;
  count: number;
}

/**
 * A request's candidates were there as of the organisation's erasure count n (the statement that found them counted
 * n); a count read sent within FRESH_MS (and after this process's last erasure of the organisation) that is still n
 * says none was erased since, but within those FRESH_MS. The count and the candidates come from one statement, one
 * snapshot: two statements could run in another order than sent (a pool's new connection still connecting), and a
 * count read sent before the texts but run after an erasure would vouch for a candidate the texts' read found before
 * it. Otherwise (a candidate not read, or the count moved) the candidates are read one by one, with their count, by a
 * read that begins after the request asked (shared by the requests asking at the same time).
 */
export function createErasureGuard(db: Queryable, opts: { now?: () => number; freshMs?: number } = {}): ErasureGuard {
  const now = opts.now ?? (() => performance.now());
  const freshMs = opts.freshMs ?? FRESH_MS;
  // Per candidate: the erasure count as of the read that last found it, and when that read was sent.
  const presentAs = new Map<string, CountRead>();
  // Per organisation: the erasure count's latest read.
  const counts = new Map<string, OrgCounts>();
  const countsOf = (orgId: string): OrgCounts => {
    let org = counts.get(orgId);
    if (!org) counts.set(orgId, (org = { latest: null, reading: null, notBefore: -Infinity }));
    return org;
  };
  const perId = createPresenceReads(db, now);

  /**
   * A count read sent at `read.at`. Reads may be answered out of the order they were sent in, and counts only grow: the
   * count as of the later send is at least the larger count either read found.
   */
  function counted(orgId: string, read: CountRead): void {
    const org = countsOf(orgId);
    org.latest = org.latest === null ? read : { at: Math.max(org.latest.at, read.at), count: Math.max(org.latest.count, read.count) };
  }

  function present(orgId: string, ids: readonly string[], read: { at: number; erasures: number }): void {
    const seen = { at: read.at, count: read.erasures };
    counted(orgId, seen);
    for (const id of ids) {
      presentAs.delete(id);
      presentAs.set(id, seen);
    }
    // The oldest first: a Map iterates in insertion order.
    for (const [id, when] of presentAs) {
      if (presentAs.size <= MAX_PRESENT && when.at > now() - PRESENT_MS) break;
      presentAs.delete(id);
    }
  }

  function readCount(orgId: string): Promise<CountRead> {
    const org = countsOf(orgId);
    if (org.reading) return org.reading;
    const at = now();
    org.reading = db
      .query<{ erasures: number }>('SELECT erasures FROM organisations WHERE id = $1', [orgId])
      .then((r) => {
        const read = { at, count: r.rows[0]?.erasures ?? 0 };
        counted(orgId, read);
        return read;
      })
      .finally(() => (org.reading = null));
    return org.reading;
  }

  /** A count read sent within freshMs: the latest (refreshed in the background once REFRESH_MS old), or a new one. */
  async function freshCount(orgId: string): Promise<CountRead> {
    const org = countsOf(orgId);
    const fresh = (read: CountRead | null): read is CountRead => read !== null && read.at >= Math.max(now() - freshMs, org.notBefore);
    if (fresh(org.latest)) {
      if (org.latest.at < now() - REFRESH_MS) readCount(orgId).catch(() => {});
      return org.latest;
    }
    const read = await readCount(orgId);
    // A read in flight that was sent too long ago, or before an erasure here, is not this request's answer.
    return fresh(read) ? read : readCount(orgId);
  }

  async function erasedAmong(orgId: string, ids: readonly string[]): Promise<string[]> {
    if (!ids.length) return [];
    const seen = ids.map((id) => presentAs.get(id)?.count);
    if (seen.every((n) => n !== undefined)) {
      // Counts only grow: a fresh count no larger than the one each candidate was found at is no erasure since.
      const fresh = await freshCount(orgId);
      if (fresh.count <= Math.min(...seen)) return [];
    }
    const { at, found } = await perId(ids);
    // One statement, one organisation: the same count for every candidate it found.
    if (found.size) present(orgId, [...found.keys()], { at, erasures: Math.min(...found.values()) });
    return ids.filter((id) => !found.has(id));
  }

  function erased(orgId: string): void {
    const org = countsOf(orgId);
    org.latest = null;
    org.notBefore = now();
  }

  return { present, erasedAmong, erased };
}
