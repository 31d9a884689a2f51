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
   * A step is about to read candidates' texts: the organisation's erasure count is read first, unless read within the
   * last REFRESH_MS, so that the step's requests find a count from before their texts, and a fresh one, waiting for
   * neither (on the embedded database statements run in the order sent).
   */
  reading(orgId: string): void;
  /** Candidates a read found (it was sent at `at`, on this guard's clock): there as of then. */
  present(ids: readonly string[], at: number): void;
  /** Those of ids erased: not sent to a model. */
  erasedAmong(orgId: string, ids: readonly string[]): Promise<string[]>;
  /** An erasure of the organisation's committed in this process: no count read before now answers a request. */
  erased(orgId: string): void;
}

interface OrgCounts {
  /** The count's changes, oldest first: a read that found it unchanged adds nothing but its time to the last. */
  history: CountRead[];
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
 * A request's candidates were there when last read (at t, its texts' read or a check's); the organisation's erasure
 * count as of a read sent at or before t, and as of a read sent within FRESH_MS, are the same: no candidate of the
 * organisation was erased in between, so its candidates are there still. Otherwise (no such reads, or an erasure came
 * since) the candidates are read one by one, by a read that begins after the request asked (shared by the requests
 * asking at the same time), as the guard started with.
 */
export function createErasureGuard(db: Queryable, opts: { now?: () => number; freshMs?: number } = {}): ErasureGuard {
  const now = opts.now ?? (() => performance.now());
  const freshMs = opts.freshMs ?? FRESH_MS;
  const presentAt = new Map<string, number>();
  // Per organisation: the erasure count's reads.
  const counts = new Map<string, OrgCounts>();
  const countsOf = (orgId: string): OrgCounts => {
    let org = counts.get(orgId);
    if (!org) counts.set(orgId, (org = { history: [], latest: null, reading: null, notBefore: -Infinity }));
    return org;
  };
  const perId = createPresenceReads(db, now);

  function present(ids: readonly string[], at: number): void {
    for (const id of ids) {
      presentAt.delete(id);
      presentAt.set(id, at);
    }
    // The oldest first: a Map iterates in insertion order.
    for (const [id, when] of presentAt) {
      if (presentAt.size <= MAX_PRESENT && when > now() - PRESENT_MS) break;
      presentAt.delete(id);
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
        if (org.history.at(-1)?.count !== read.count) org.history.push(read);
        org.history = org.history.filter((h, i) => i === org.history.length - 1 || h.at > now() - PRESENT_MS);
        org.latest = read;
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
    const org = countsOf(orgId);
    const since = Math.min(...ids.map((id) => presentAt.get(id) ?? -Infinity));
    // The count as of the last read sent at or before the candidates were last seen.
    const before = since === -Infinity ? undefined : org.history.findLast((h) => h.at <= since);
    if (before) {
      const fresh = await freshCount(orgId);
      if (fresh.count === before.count) return [];
    } else if (!org.latest) {
      // The organisation's first request: its count is read beside it, for the requests after it.
      readCount(orgId).catch(() => {});
    }
    const { at, found } = await perId(ids);
    present(found, at);
    return ids.filter((id) => !found.includes(id));
  }

  function reading(orgId: string): void {
    const org = countsOf(orgId);
    if (!org.reading && !(org.latest && org.latest.at >= now() - REFRESH_MS && org.latest.at >= org.notBefore)) readCount(orgId).catch(() => {});
  }

  function erased(orgId: string): void {
    const org = countsOf(orgId);
    org.latest = null;
    org.notBefore = now();
  }

  return { reading, present, erasedAmong, erased };
}
