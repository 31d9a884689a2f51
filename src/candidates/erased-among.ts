// Which candidates are gone, read one by one: for a model request about to carry their text (erasure-guard.ts, when
// the organisation's erasure count cannot answer) and for cli reembed's later groups.
import type { Queryable } from '../db/database.js';

/**
 * Returns read(ids): those of ids still in the database, each with its organisation's erasure count as the same
 * statement saw it, and when the read that found them was sent. Requests waiting at the same time share one
 * primary-key read. A read that began before a request asked is not its answer (an erasure may have committed after
 * that read began): a request joins the next read, which starts once the one in flight is done, with every id asked
 * meanwhile. An erasure that commits after a request's read began is answered by a request that is already on its
 * way, as one sent a moment before it would be.
 */
export function createPresenceReads(db: Queryable, now: () => number = () => performance.now()) {
  let previous: Promise<unknown> = Promise.resolve();
  type Batch = { ids: Set<string>; result: Promise<{ at: number; present: Map<string, number> }> };
  let open: Batch | null = null;

  function nextRead(): Batch {
    const batch: Batch = { ids: new Set(), result: Promise.resolve({ at: 0, present: new Map<string, number>() }) };
    batch.result = previous.then(async () => {
      // From here on a new request joins the read after this one.
      if (open === batch) open = null;
      const at = now();
      const r = await db.query<{ id: string; erasures: number }>(
        'SELECT c.id, o.erasures FROM candidates c JOIN organisations o ON o.id = c.org_id WHERE c.id = ANY($1::uuid[])',
        [[...batch.ids]],
      );
      return { at, present: new Map(r.rows.map((row) => [row.id, row.erasures])) };
    });
    previous = batch.result.catch(() => {});
    return batch;
  }

  /** ids found, each with its organisation's erasure count as of the read. */
  return async (ids: readonly string[]): Promise<{ at: number; found: Map<string, number> }> => {
    if (!ids.length) return { at: now(), found: new Map() };
    const batch = (open ??= nextRead());
    for (const id of ids) batch.ids.add(id);
    const { at, present } = await batch.result;
    return { at, found: new Map(ids.flatMap((id) => (present.has(id) ? [[id, present.get(id)!] as const] : []))) };
  };
}

/** Those of ids no longer in the database, by a read begun after the call (createPresenceReads). */
export function createErasedAmong(db: Queryable): (ids: readonly string[]) => Promise<string[]> {
  const read = createPresenceReads(db);
  return async (ids) => {
    const { found } = await read(ids);
    return ids.filter((id) => !found.has(id));
  };
}
