// Listing runs (GET /v1/matching-runs): newest first, filtered by status, paged by cursor without a gap or a repeat.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';

let rt: TestRuntime;
/** The runs, oldest first; the second and fourth cancelled, the others queued (no worker runs them). */
const ids: string[] = [];

before(async () => {
  rt = await startTestRuntime({ PROCESS_ROLE: 'api' });
  for (let i = 0; i < 5; i++) {
    const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE } });
    assert.equal(res.statusCode, 202, res.body);
    ids.push(res.json().id);
  }
  // Creation times a second apart, in the order created: "newest first" has one answer, whatever the clock's grain.
  for (const [i, id] of ids.entries()) {
    await rt.db.query("UPDATE matching_runs SET created_at = now() - $2::int * interval '1 second' WHERE id = $1", [id, ids.length - i]);
  }
  for (const id of [ids[1], ids[3]]) {
    assert.equal((await rt.app!.inject({ method: 'POST', url: `/v1/matching-runs/${id}/cancel`, headers: rt.auth() })).statusCode, 202);
  }
});
after(() => rt.close());

async function list(query: string) {
  const res = await rt.app!.inject({ url: `/v1/matching-runs?${query}`, headers: rt.auth() });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { items: Array<{ id: string; status: string }>; nextCursor: string | null };
}

test('runs are listed newest first, and a status filter keeps that status only', async () => {
  assert.deepEqual((await list('limit=100')).items.map((r) => r.id), [...ids].reverse());
  assert.deepEqual((await list('status=cancelled')).items.map((r) => [r.id, r.status]), [
    [ids[3], 'cancelled'],
    [ids[1], 'cancelled'],
  ]);
  assert.deepEqual((await list('status=queued')).items.map((r) => [r.id, r.status]), [
    [ids[4], 'queued'],
    [ids[2], 'queued'],
    [ids[0], 'queued'],
  ]);
  assert.deepEqual((await list('status=succeeded')).items, []);
});

test('pages of two walk the same list, newest first, without a gap or a repeat; a filter holds across pages', async () => {
  const walk = async (filter: string) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const page = await list(`limit=2${filter}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.ok(page.items.length <= 2);
      seen.push(...page.items.map((r) => r.id));
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    return seen;
  };
  assert.deepEqual(await walk(''), [...ids].reverse());
  assert.deepEqual(await walk('&status=queued'), [ids[4], ids[2], ids[0]]);
});
