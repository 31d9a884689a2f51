// A copy of what an organisation's candidates held is not used after the organisation's next erasure: the erasure count
// is read before the copy's data, and a use that has read a larger count waits for a copy loaded after it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoizeUntilErased } from '../../src/cache/erasure-epoch.js';
import type { Queryable } from '../../src/db/database.js';

const ORG = '00000000-0000-4000-8000-000000000001';

/** A database whose only table is the organisation's erasure count, and a load whose data a test can hold back. */
function fixture() {
  const state = { erasures: 0, countReads: 0, loads: 0, data: 'before' };
  let gate: Promise<void> = Promise.resolve();
  const db: Queryable = {
    async query(text) {
      assert.match(text, /SELECT erasures FROM organisations WHERE id = \$1/);
      state.countReads++;
      return { rows: [{ erasures: state.erasures }] as never[], rowCount: 1 };
    },
  };
  const memo = memoizeUntilErased(db, 60_000, 15 * 60_000, async () => {
    state.loads++;
    const data = state.data; // read at the start, as a statement's snapshot is
    await gate;
    return data;
  });
  return {
    state,
    memo,
    /** Loads wait until release(); resolves once a load has started (it has read the count by then). */
    hold() {
      let release!: () => void;
      gate = new Promise((r) => (release = r));
      const started = state.loads;
      return {
        release: () => {
          gate = Promise.resolve();
          release();
        },
        loadStarted: async () => {
          while (state.loads === started) await new Promise((r) => setImmediate(r));
        },
      };
    },
    erase(data: string) {
      state.data = data;
      state.erasures++;
    },
  };
}

test('the copy is used while no erasure has come, with one read of the count per use', async () => {
  const f = fixture();
  assert.equal(await f.memo.current(ORG), 'before');
  assert.equal(await f.memo.current(ORG), 'before');
  assert.equal(f.state.loads, 1);
  assert.equal(f.state.countReads, 3, 'one for the load, one per use');
});

test('after an erasure the next use waits for a new copy, though the old one is well within its time', async () => {
  const f = fixture();
  assert.equal(await f.memo.current(ORG), 'before');
  f.erase('after');
  assert.equal(await f.memo.current(ORG), 'after');
  assert.equal(f.state.loads, 2);
  assert.equal(await f.memo.asOf(ORG, 1), 'after', 'a count read by the caller is enough');
  assert.equal(f.state.loads, 2);
});

test('a copy whose load began before an erasure is not taken by a use that began after it', async () => {
  const f = fixture();
  const held = f.hold();
  const early = f.memo.current(ORG);
  await held.loadStarted(); // the load has read the count (0) and its data
  f.erase('after');
  const late = f.memo.current(ORG);
  held.release();
  assert.equal(await late, 'after');
  assert.equal(await early, 'before', 'the use that began before the erasure gets the copy read before it');
  assert.equal(await f.memo.current(ORG), 'after');
  assert.equal(f.state.loads, 2, 'the load under way, and one after the erasure');
});

test('uses that see the same erasure share one new copy', async () => {
  const f = fixture();
  await f.memo.current(ORG);
  f.erase('after');
  const uses = await Promise.all([f.memo.current(ORG), f.memo.current(ORG), f.memo.asOf(ORG, 1)]);
  assert.deepEqual(uses, ['after', 'after', 'after']);
  assert.equal(f.state.loads, 2);
});

test('remembered answers from memory without reading the count', async () => {
  const f = fixture();
  await f.memo.current(ORG);
  const reads = f.state.countReads;
  f.erase('after');
  assert.equal(await f.memo.remembered(ORG), 'before');
  assert.equal(f.state.countReads, reads);
});
