import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createErasedAmong } from '../../src/candidates/erased-among.js';
import type { Queryable } from '../../src/db/database.js';

/** A database whose candidates are `present`, answering each read when the test says. */
function fakeDb(present: Set<string>) {
  const reads: Array<{ ids: string[]; answer: () => void }> = [];
  const db: Queryable = {
    query: async <R>(_text: string, values?: unknown[]) => {
      const ids = values![0] as string[];
      // What is present when the read runs, as a statement sees it.
      const snapshot = ids.filter((id) => present.has(id));
      await new Promise<void>((resolve) => reads.push({ ids, answer: resolve }));
      return { rows: snapshot.map((id) => ({ id })) as R[], rowCount: snapshot.length };
    },
  };
  return { db, reads };
}

const tick = () => new Promise((r) => setImmediate(r));

test('requests asked together share one read; one asked while a read runs waits for the next, which sees what changed', async () => {
  const present = new Set(['a', 'b', 'c']);
  const { db, reads } = fakeDb(present);
  const erasedAmong = createErasedAmong(db);
  const first = erasedAmong(['a']);
  const second = erasedAmong(['b', 'c']);
  await tick();
  assert.deepEqual(reads.map((r) => r.ids), [['a', 'b', 'c']], 'one read for both');
  // Erased after that read began: a request asked now must not be answered by it.
  present.delete('c');
  const third = erasedAmong(['c']);
  const fourth = erasedAmong(['a']);
  await tick();
  assert.equal(reads.length, 1, 'the next read waits for the one in flight');
  reads[0]!.answer();
  assert.deepEqual(await first, []);
  assert.deepEqual(await second, [], 'as of the read it joined');
  await tick();
  assert.deepEqual(reads[1]!.ids, ['c', 'a'], 'one read for the requests asked meanwhile');
  reads[1]!.answer();
  assert.deepEqual(await third, ['c']);
  assert.deepEqual(await fourth, []);
  assert.deepEqual(await erasedAmong([]), [], 'no ids, no read');
  assert.equal(reads.length, 2);
});

test('a read that fails fails its requests only: the next read is made', async () => {
  let fail = true;
  const erasedAmong = createErasedAmong({
    query: async <R>() => {
      if (fail) throw new Error('connection lost');
      return { rows: [{ id: 'a' }] as R[], rowCount: 1 };
    },
  });
  await assert.rejects(erasedAmong(['a']), /connection lost/);
  fail = false;
  assert.deepEqual(await erasedAmong(['a', 'b']), ['b']);
});
