// Which candidates are gone, asked just before a model request that carries their text is sent: a step reads its
// candidates' texts once, and its requests may wait seconds for a slot (or back off between attempts) after that.
import type { Queryable } from '../db/database.js';

/**
 * Returns erasedAmong(ids): those of ids no longer in the database. Requests waiting at the same time share one
 * primary-key read. A read that began before a request asked is not its answer (an erasure may have committed after
 * that read began): a request joins the next read, which starts once the one in flight is done, with every id asked
 * meanwhile. An erasure that commits after a request's read began is answered by a request that is already on its way,
 * as one sent a moment before it would be.
 */
export function createErasedAmong(db: Queryable): (ids: readonly string[]) => Promise<string[]> {
  let previous: Promise<unknown> = Promise.resolve();
  let open: { ids: Set<string>; present: Promise<Set<string>> } | null = null;

  function nextRead(): { ids: Set<string>; present: Promise<Set<string>> } {
    const batch = { ids: new Set<string>(), present: Promise.resolve(new Set<string>()) };
    batch.present = previous.then(async () => {
      // From here on a new request joins the read after this one.
      if (open === batch) open = null;
      const r = await db.query<{ id: string }>('SELECT id FROM candidates WHERE id = ANY($1::uuid[])', [[...batch.ids]]);
      return new Set(r.rows.map((row) => row.id));
    });
    previous = batch.present.catch(() => {});
    return batch;
  }

  return async (ids) => {
    if (!ids.length) return [];
    const batch = (open ??= nextRead());
    for (const id of ids) batch.ids.add(id);
    const present = await batch.present;
    return ids.filter((id) => !present.has(id));
  };
}
