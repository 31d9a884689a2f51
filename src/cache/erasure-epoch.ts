// What a process remembers of an organisation's candidates, kept no longer than the organisation's next erasure, in
// every process sharing the database: each copy carries the organisation's erasure count as read before the copy's
// data, and a use that finds the count has grown since reads the candidates again before it answers.
import type { Queryable } from '../db/database.js';
import { memoizeRefreshing } from './recent-cache.js';

/** The organisation's erasures (organisations.erasures, which every erasure's transaction bumps): one primary-key read. */
export async function readErasures(db: Queryable, orgId: string): Promise<number> {
  const r = await db.query<{ erasures: number }>('SELECT erasures FROM organisations WHERE id = $1', [orgId]);
  return r.rows[0]?.erasures ?? 0;
}

/** The same count as a column of a statement a caller runs anyway (`orgParam` is its placeholder for the organisation). */
export function erasuresColumn(orgParam: string): string {
  return `(SELECT erasures FROM organisations WHERE id = ${orgParam}::uuid)`;
}

export interface ErasureBoundMemo<V> {
  /** The value as of the organisation's last erasure or later: one indexed read, then memory unless an erasure came since. */
  current(orgId: string): Promise<V>;
  /** For a caller that read the count itself (erasuresColumn, on a statement it runs anyway): no read of its own. */
  asOf(orgId: string, erasures: number): Promise<V>;
  /** Whatever is remembered, without the check: for figures no erased text reaches (a pool's size). */
  remembered(orgId: string): Promise<V>;
}

/**
 * memoizeRefreshing (reloaded in the background once ttlMs old, waited for once maxAgeMs old) of load(orgId), which
 * reads the organisation's candidates. Uploads reach a copy when it is reloaded, as before; an erasure, in whichever
 * process, at the copy's next use: the count is read before the data, so a copy never claims to be newer than it is,
 * and a use that has read a larger count waits for a load that started after it.
 */
export function memoizeUntilErased<V>(
  db: Queryable,
  ttlMs: number,
  maxAgeMs: number,
  load: (orgId: string) => Promise<V>,
  opts: { maxKeys?: number; spacing?: number } = {},
): ErasureBoundMemo<V> {
  const memo = memoizeRefreshing(ttlMs, maxAgeMs, async (orgId: string) => {
    const erasures = await readErasures(db, orgId);
    return { erasures, value: await load(orgId) };
  }, opts);
  async function asOf(orgId: string, erasures: number): Promise<V> {
    // Ends: a copy dropped here is replaced by a load that starts after `erasures` was read, which counts at least as many.
    for (;;) {
      const pending = memo(orgId);
      const copy = await pending;
      if (copy.erasures >= erasures) return copy.value;
      memo.forget(orgId, pending);
    }
  }
  return {
    current: async (orgId) => asOf(orgId, await readErasures(db, orgId)),
    asOf,
    remembered: async (orgId) => (await memo(orgId)).value,
  };
}
