// Which candidates are gone, read one by one: for a model request about to carry their text (erasure-guard.ts, when
// the organisation's erasure count cannot answer) and for cli reembed's later groups.
import type { Queryable } from '../db/database.js';

/**
 * Returns read(ids): those of ids still in the database, and when the read that found them was sent. Requests waiting
 * at the same time share one primary-key read. A read that began before a request asked is not its answer (an erasure
 * may have committed after that read began): a request joins the next read, which starts once the one in flight is
 * done, with every id asked meanwhile. An erasure that commits after a request's read began is answered by a request
 * that is already on its way, as one sent a moment before it would be.
 */
export function createPresenceReads(db: Queryable, now: () => number = () => performance.now()) {
  let previous: Promise<unknown> = Promise.resolve();
  type Batch = { ids: Set<string>; result: Promise<{ at: number; present: Set<string> }> };
  let open: Batch | null = null;

  function nextRead(): Batch {
    const batch: Batch = { ids: new Set(), result: Promise.resolve({ at: 0, present: new Set<string>() }) };
    batch.result = previous.then(async () => {
      // From here on a new request joins the read after this one.
      if (open === batch) open = null;
      const at = now();
      const r = await db.query<{ id: string }>('SELECT id FROM candidates WHERE id = ANY($1::uuid[])', [[...batch.ids]]);
      return { at, present: new Set(r.rows.map((row) => row.id)) };
    });
    previous = batch.result.catch(() => {});
    return batch;
  }

  return async (ids: readonly string[]): Promise<{ at: number; found: string[] }> => {
    if (!ids.length) return { at: now(), found: [] };
    const batch = (open ??= nextRead());
    for (const id of ids) batch.ids.add(id);
    const { at, present } = await batch.result;
    return { at, found: ids.filter((id) => present.has(id)) };
  };
}

/** Those of ids no longer in the database, by a read begun after the call (createPresenceReads). */
export function createErasedAmong(db: Queryable): (ids: readonly string[]) => Promise<string[]> {
  const read = createPresenceReads(db);
  return async (ids) => {
    const { found } = await read(ids);
    return ids.filter((id) => !found.includes(id));
  };
}
