import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createErasedAmong, createPresenceReads } from '../../src/candidates/erased-among.js';
import { createErasureGuard } from '../../src/candidates/erasure-guard.js';
import type { Queryable } from '../../src/db/database.js';

/** A database of `present` candidates and an erasure count, answering each read when the test says (or at once). */
function fakeDb(present: Set<string>, opts: { held?: boolean } = {}) {
  const reads: Array<{ kind: 'ids' | 'count'; ids: string[]; answer: () => void }> = [];
  const state = { erasures: 0 };
  const db: Queryable = {
    query: async <R>(text: string, values?: unknown[]) => {
      const count = /FROM organisations/.test(text);
      const ids = count ? [] : (values![0] as string[]);
      // What is there when the read runs, as a statement sees it.
      const rows = count ? [{ erasures: state.erasures }] : ids.filter((id) => present.has(id)).map((id) => ({ id }));
      await new Promise<void>((resolve) => {
        reads.push({ kind: count ? 'count' : 'ids', ids, answer: resolve });
        if (!opts.held) resolve();
      });
      return { rows: rows as R[], rowCount: rows.length };
    },
  };
  const erase = (id: string) => {
    present.delete(id);
    state.erasures++;
  };
  return { db, reads, erase };
}

const tick = () => new Promise((r) => setImmediate(r));

test('presence reads: requests asked together share one read; one asked while a read runs waits for the next, which sees what changed', async () => {
  const present = new Set(['a', 'b', 'c']);
  const { db, reads } = fakeDb(present, { held: true });
  const read = createPresenceReads(db);
  const first = read(['a']);
  const second = read(['b', 'c']);
  await tick();
  assert.deepEqual(reads.map((r) => r.ids), [['a', 'b', 'c']], 'one read for both');
  // Erased after that read began: a request asked now must not be answered by it.
  present.delete('c');
  const third = read(['c']);
  const fourth = read(['a']);
  await tick();
  assert.equal(reads.length, 1, 'the next read waits for the one in flight');
  reads[0]!.answer();
  assert.deepEqual((await first).found, ['a']);
  assert.deepEqual((await second).found, ['b', 'c'], 'as of the read it joined');
  await tick();
  assert.deepEqual(reads[1]!.ids, ['c', 'a'], 'one read for the requests asked meanwhile');
  reads[1]!.answer();
  assert.deepEqual((await third).found, []);
  assert.deepEqual((await fourth).found, ['a']);
  assert.deepEqual((await read([])).found, [], 'no ids, no read');
  assert.equal(reads.length, 2);
});

test('a presence read that fails fails its requests only: the next read is made', async () => {
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

test('the guard answers from the erasure count while it has not moved since the candidates were read, and reads them one by one once it has', async () => {
  let clock = 1_000;
  const { db, reads, erase } = fakeDb(new Set(['a', 'b', 'c']));
  const guard = createErasureGuard(db, { now: () => clock, freshMs: 500 });
  // The organisation's first request: its candidates are read one by one, and its count beside them.
  assert.deepEqual(await guard.erasedAmong('org', ['x']), ['x']);
  assert.deepEqual(reads.map((r) => r.kind).sort(), ['count', 'ids']);
  // A step reads texts after that count: its requests, even seconds later, need only a fresh count.
  clock += 10;
  guard.present(['a', 'b'], clock);
  clock += 300;
  reads.length = 0;
  assert.deepEqual(await guard.erasedAmong('org', ['a']), [], 'the count is fresh (300 ms): no read waited for');
  assert.deepEqual(reads.map((r) => r.kind), ['count'], 'but one older than 150 ms is read again in the background');
  await tick();
  clock += 3_000;
  reads.length = 0;
  assert.deepEqual(await guard.erasedAmong('org', ['a', 'b']), []);
  assert.deepEqual(reads.map((r) => r.kind), ['count'], 'a stale count is read again, and nothing else');
  // An erasure moves the count: the next request reads its candidates.
  erase('b');
  clock += 1_000;
  reads.length = 0;
  assert.deepEqual(await guard.erasedAmong('org', ['a', 'b']), ['b']);
  assert.deepEqual(reads.map((r) => r.kind), ['count', 'ids']);
  // Found there by that read: later requests are answered from the count again.
  clock += 100;
  reads.length = 0;
  assert.deepEqual(await guard.erasedAmong('org', ['a']), []);
  assert.equal(reads.length, 0);
  // A candidate never read (no texts, no check) is read one by one.
  assert.deepEqual(await guard.erasedAmong('org', ['c']), []);
  assert.deepEqual(reads.map((r) => r.kind), ['ids']);
});

/** A guard whose organisation's count was read, and candidates a and b then read at 1,010 ms. */
async function guardAfterTexts() {
  const clock = { now: 1_000 };
  const db = fakeDb(new Set(['a', 'b']));
  const guard = createErasureGuard(db.db, { now: () => clock.now, freshMs: 500 });
  await guard.erasedAmong('org', ['a']);
  clock.now += 10;
  guard.present(['a', 'b'], clock.now);
  return { clock, guard, ...db };
}

test('the guard never trusts a count read before the candidates were last seen to cover an erasure after it', async () => {
  const { clock, guard, reads, erase } = await guardAfterTexts();
  // Erased after its text was read, within the count's freshness: the count read now sees it.
  erase('a');
  clock.now += 600;
  reads.length = 0;
  assert.deepEqual(await guard.erasedAmong('org', ['a', 'b']), ['a']);
  assert.deepEqual(reads.map((r) => r.kind), ['count', 'ids']);
});

test("an erasure in this process is seen at once: no count read before it answers a request", async () => {
  const { clock, guard, reads, erase } = await guardAfterTexts();
  clock.now += 50;
  // Erased here (DELETE answered by this process): the count read 50 ms ago is fresh, and no longer the answer.
  erase('a');
  guard.erased('org');
  reads.length = 0;
  assert.deepEqual(await guard.erasedAmong('org', ['a', 'b']), ['a']);
  assert.deepEqual(reads.map((r) => r.kind), ['count', 'ids']);
});

test("a step that says it is about to read texts has the count read first: its requests wait for no read", async () => {
  let clock = 1_000;
  const { db, reads } = fakeDb(new Set(['a', 'b']));
  const guard = createErasureGuard(db, { now: () => clock, freshMs: 500 });
  await guard.erasedAmong('org', ['a']);
  clock += 5_000;
  reads.length = 0;
  // The count, long stale, is read before the texts (sent first, answered first).
  guard.reading('org');
  await tick();
  clock += 1;
  guard.present(['a', 'b'], clock);
  clock += 20;
  assert.deepEqual(await guard.erasedAmong('org', ['a', 'b']), []);
  assert.deepEqual(reads.map((r) => r.kind), ['count'], 'the one read made before the texts');
  guard.reading('org');
  assert.equal(reads.length, 1, 'a count read within 150 ms is not read again');
});
