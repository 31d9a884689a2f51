// What a process remembers of the shared database: bounded, stale after a fixed time, failures not kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoizeRefreshing, RecentCache } from '../../src/cache/recent-cache.js';
import { SharedRateLimitStore } from '../../src/http/rate-limit-store.js';

test('an entry is fresh for ttlMs, stale after, and the least recently set goes first when full', () => {
  let now = 0;
  const cache = new RecentCache<number>({ ttlMs: 100, maxEntries: 2, now: () => now });
  cache.set('a', 1);
  cache.set('b', 2);
  assert.equal(cache.fresh('a'), 1);
  now = 100;
  assert.equal(cache.fresh('a'), undefined, 'stale at ttlMs');
  assert.equal(cache.stale('a'), 1, 'but still there to revalidate');
  cache.set('a', 1); // re-confirmed: now the most recent
  cache.set('c', 3);
  assert.equal(cache.stale('b'), undefined, 'b was the least recently set');
  assert.deepEqual([cache.fresh('a'), cache.fresh('c')], [1, 3]);
  cache.deleteWhere((v) => v === 3);
  assert.equal(cache.size, 1);
});

test('an entry and a rate-limit window age by time passed, not by the wall clock: a clock stepped back keeps neither', async () => {
  const cache = new RecentCache<number>({ ttlMs: 50, maxEntries: 2 });
  const limits = new SharedRateLimitStore();
  const incr = () => new Promise<{ current: number; ttl: number }>((resolve, reject) => limits.incr('key', (err, r) => (err ? reject(err) : resolve(r!)), 50));
  cache.set('a', 1);
  assert.equal((await incr()).current, 1);
  assert.equal((await incr()).current, 2);
  const realNow = Date.now;
  // NTP (or an operator) steps the clock back an hour.
  Date.now = () => realNow() - 3_600_000;
  try {
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal(cache.fresh('a'), undefined, 'stale once its time has passed');
    const next = await incr();
    assert.equal(next.current, 1, 'a new window once the last one has passed');
    assert.ok(next.ttl <= 50, `the window's end is ${next.ttl} ms away`);
  } finally {
    Date.now = realNow;
  }
});

test('a cache time of 0 keeps nothing', () => {
  const cache = new RecentCache<number>({ ttlMs: 0, maxEntries: 10 });
  cache.set('a', 1);
  assert.equal(cache.stale('a'), undefined);
  assert.equal(cache.enabled, false);
});

test('memoizeRefreshing answers with the old value while it reloads, keeps it when a reload fails, and waits only for a first or too old value', async (t) => {
  // The clock moves only when the test says so: a pause of the machine must not age an entry past ttlMs.
  t.mock.timers.enable({ apis: ['Date'] });
  const sleep = async (ms: number) => {
    t.mock.timers.tick(ms);
    await new Promise((r) => setImmediate(r));
  };
  let loads = 0;
  let fail = false;
  let gate: Promise<void> = Promise.resolve();
  const get = memoizeRefreshing(
    40,
    1000,
    async (key: string) => {
      const n = ++loads;
      await gate;
      if (fail) throw new Error('down');
      return `${key}:${n}`;
    },
    { now: () => Date.now() },
  );
  let open!: () => void;
  gate = new Promise((r) => (open = r));
  const first = Promise.all([get('x'), get('x')]);
  open();
  assert.deepEqual(await first, ['x:1', 'x:1'], 'one first load, shared and waited for');

  await sleep(50);
  gate = new Promise((r) => (open = r));
  assert.equal(await get('x'), 'x:1', 'stale: answered at once although the reload has not finished');
  assert.equal(await get('x'), 'x:1', 'one reload at a time');
  assert.equal(loads, 2);
  open();
  await sleep(1);
  assert.equal(await get('x'), 'x:2', 'the reloaded value, once it arrived');

  await sleep(50);
  fail = true;
  assert.equal(await get('x'), 'x:2', 'a reload that fails');
  await sleep(1);
  assert.equal(await get('x'), 'x:2', 'keeps the old value');
  assert.equal(loads, 4, 'and the next call after ttlMs tries again');
  fail = false;
  await sleep(1);

  await sleep(1050);
  assert.equal(await get('x'), 'x:5', 'older than maxAgeMs: waited for');

  fail = true;
  await assert.rejects(get('y'), /down/);
  fail = false;
  assert.equal(await get('y'), 'y:7', 'a failed first load is not kept');
});

test('with a size budget, the least recently set entries go until the rest fits; an entry larger than the budget is not kept', () => {
  const cache = new RecentCache<string>({ ttlMs: 1000, maxEntries: 100, maxSize: 10, sizeOf: (v) => v.length });
  cache.set('a', 'xxxx');
  cache.set('b', 'xxxx');
  cache.set('c', 'xxxx');
  assert.equal(cache.stale('a'), undefined, 'a went: 12 > 10');
  assert.deepEqual([cache.stale('b'), cache.stale('c')], ['xxxx', 'xxxx']);
  cache.set('big', 'x'.repeat(11));
  assert.equal(cache.stale('big'), undefined);
  assert.equal(cache.size, 2);
  cache.set('b', 'xx'); // replacing an entry frees its old size
  cache.set('d', 'xxxx');
  assert.deepEqual([cache.stale('b'), cache.stale('c'), cache.stale('d')], ['xx', 'xxxx', 'xxxx']);
});

test('memoizeRefreshing keeps at most maxKeys keys: the least recently asked for is loaded anew', async () => {
  const loads: string[] = [];
  const memo = memoizeRefreshing(60_000, 600_000, async (key) => (loads.push(key), `value of ${key}`), { maxKeys: 2 });
  assert.equal(await memo('a'), 'value of a');
  await memo('b');
  await memo('a'); // a is now the most recently asked for
  await memo('c'); // b goes
  await memo('a');
  await memo('c');
  assert.deepEqual(loads, ['a', 'b', 'c']);
  await memo('b');
  assert.deepEqual(loads, ['a', 'b', 'c', 'b'], 'b was dropped and is loaded again');
  await memo('c');
  assert.deepEqual(loads, ['a', 'b', 'c', 'b'], 'c was kept; a went for b');
  await memo('a');
  assert.deepEqual(loads, ['a', 'b', 'c', 'b', 'a']);
});

test('memoizeRefreshing ages its values by time passed: a wall clock stepped back does not keep them fresh', async (t) => {
  let loads = 0;
  const get = memoizeRefreshing(30, 60_000, async () => ++loads);
  assert.equal(await get('x'), 1);
  const realNow = Date.now;
  Date.now = () => realNow() - 3_600_000; // NTP stepped the clock an hour back
  t.after(() => (Date.now = realNow));
  await new Promise((r) => setTimeout(r, 60));
  await get('x'); // older than ttlMs: served, and reloaded behind
  await new Promise((r) => setImmediate(r));
  assert.equal(loads, 2, 'reloaded once ttlMs had passed');
});

test('memoizeRefreshing with spacing keeps a slow load fresh for that many times as long as it took', async () => {
  let clock = 0;
  let loads = 0;
  const memo = memoizeRefreshing(
    10,
    100_000,
    async (key) => {
      loads++;
      clock += 100; // the load takes 100 ms of the clock
      return key;
    },
    { now: () => clock, spacing: 30 },
  );
  await memo('org');
  assert.equal(loads, 1);
  clock += 2_800; // 2,900 ms after the load began: well past ttlMs, within 30 x 100 ms
  await memo('org');
  assert.equal(loads, 1, 'not reloaded: a load of 100 ms is spaced 3,000 ms apart');
  clock += 200;
  await memo('org');
  assert.equal(loads, 2, 'reloaded in the background once 3,000 ms old');
});

test('memoizeRefreshing with spacing never keeps a value fresh past maxAgeMs: a load of minutes is still reloaded then', async () => {
  let clock = 0;
  let loads = 0;
  const memo = memoizeRefreshing(10, 5_000, async (key) => ((loads++, (clock += 1_000)), key), { now: () => clock, spacing: 30 });
  await memo('org');
  clock += 4_500; // fresh by spacing (30 x 1,000 ms) for longer than maxAgeMs allows
  await memo('org');
  assert.equal(loads, 2, 'past maxAgeMs: reloaded');
});
