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
      const rows = count ? [{ erasures: state.erasures }] : ids.filter((id) => present.has(id)).map((id) => ({ id, erasures: state.erasures }));
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
  assert.deepEqual([...(await first).found.keys()], ['a']);
  assert.deepEqual([...(await second).found.keys()], ['b', 'c'], 'as of the read it joined');
  await tick();
  assert.deepEqual(reads[1]!.ids, ['c', 'a'], 'one read for the requests asked meanwhile');
  reads[1]!.answer();
  assert.deepEqual([...(await third).found.keys()], []);
  assert.deepEqual([...(await fourth).found.keys()], ['a']);
  assert.equal((await read([])).found.size, 0, 'no ids, no read');
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
  // A candidate no read found is read one by one.
  assert.deepEqual(await guard.erasedAmong('org', ['x']), ['x']);
  assert.deepEqual(reads.map((r) => r.kind), ['ids']);
  // A step's texts' read found a and b, its statement counting no erasure: its requests, even seconds later, need
  // only a fresh count.
  clock += 10;
  guard.present('org', ['a', 'b'], { at: clock, erasures: 0 });
  clock += 300;
  reads.length = 0;
  assert.deepEqual(await guard.erasedAmong('org', ['a']), [], "the texts' read's count is fresh (300 ms): no read waited for");
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
  // Found there by that read, as of the new count: later requests are answered from the count again.
  clock += 100;
  reads.length = 0;
  assert.deepEqual(await guard.erasedAmong('org', ['a']), []);
  assert.equal(reads.length, 0);
  // A candidate never read (no texts, no check) is read one by one.
  assert.deepEqual(await guard.erasedAmong('org', ['c']), []);
  assert.deepEqual(reads.map((r) => r.kind), ['ids']);
});

/** A guard whose organisation's candidates a and b were found at 1,010 ms by a read that counted no erasure. */
function guardAfterTexts() {
  const clock = { now: 1_010 };
  const db = fakeDb(new Set(['a', 'b']));
  const guard = createErasureGuard(db.db, { now: () => clock.now, freshMs: 500 });
  guard.present('org', ['a', 'b'], { at: clock.now, erasures: 0 });
  return { clock, guard, ...db };
}

test('the guard never trusts a count read before the candidates were last seen to cover an erasure after it', async () => {
  const { clock, guard, reads, erase } = guardAfterTexts();
  // Erased after its text was read, past the count's freshness: the count read now sees it.
  erase('a');
  clock.now += 600;
  reads.length = 0;
  assert.deepEqual(await guard.erasedAmong('org', ['a', 'b']), ['a']);
  assert.deepEqual(reads.map((r) => r.kind), ['count', 'ids']);
});

test("an erasure in this process is seen at once: no count read before it answers a request", async () => {
  const { clock, guard, reads, erase } = guardAfterTexts();
  clock.now += 50;
  // Erased here (DELETE answered by this process): the count read 50 ms ago is fresh, and no longer the answer.
  erase('a');
  guard.erased('org');
  reads.length = 0;
  assert.deepEqual(await guard.erasedAmong('org', ['a', 'b']), ['a']);
  assert.deepEqual(reads.map((r) => r.kind), ['count', 'ids']);
});

test('a count read sent before the texts\' read but run after an erasure vouches for nothing the texts\' read found', async () => {
  // Two statements on two connections can run in another order than sent (a new connection still connecting): the
  // count read sent first runs last, after the erasure, and the texts' read before it found the candidate.
  let clock = 1_000;
  const { db, reads, erase } = fakeDb(new Set(['x', 'y']), { held: true });
  const guard = createErasureGuard(db, { now: () => clock, freshMs: 500 });
  guard.present('org', ['y'], { at: clock, erasures: 0 });
  clock += 200;
  const refreshing = guard.erasedAmong('org', ['y']); // answered from the count; its refresh is sent now, and held
  assert.deepEqual(await refreshing, []);
  clock += 1;
  guard.present('org', ['x'], { at: clock, erasures: 0 }); // the texts' read, sent after the refresh, runs first
  erase('x');
  guard.erased('org');
  reads[0]!.answer(); // the refresh runs now: it counts the erasure
  await tick();
  clock += 100;
  const asked = guard.erasedAmong('org', ['x']);
  await tick();
  for (const r of reads.slice(1)) r.answer();
  await tick();
  for (const r of reads.slice(1)) r.answer();
  assert.deepEqual(await asked, ['x'], 'erased here, answered: never sent');
  clock += 60_000;
  const later = guard.erasedAmong('org', ['x']);
  await tick();
  for (const r of reads) r.answer();
  await tick();
  for (const r of reads) r.answer();
  assert.deepEqual(await later, ['x'], 'and never later');
});
