// Uploads of the same candidates at the same moment, as an ATS sync run from two places (or retried after a lost
// answer) sends them, in whatever order each sender lists them. On PostgreSQL their transactions really run at once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { candidate } from '../support/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';

let rt: TestRuntime;
before(async () => {
  // Enough connections that every upload's transaction is open at once.
  rt = await startTestRuntime({ PROCESS_ROLE: 'api', DB_POOL_MAX: '20', RATE_LIMIT_WRITES_PER_MINUTE: '100000' });
});
after(() => rt.close());

type Item = { externalId: string; id: string; status: string };

/** `senders` uploads of the same external ids at once, every other one listing them in reverse, each with its own text. */
async function uploadsAtOnce(externalIds: string[], senders: number, text: (sender: number) => string): Promise<Item[][]> {
  const answers = await Promise.all(
    Array.from({ length: senders }, (_, k) => {
      const order = k % 2 ? [...externalIds].reverse() : externalIds;
      return rt.app!.inject({
        method: 'POST',
        url: '/v1/candidates',
        headers: rt.auth(),
        payload: { candidates: order.map((id) => candidate(id, { resume: `${text(k)} (${id})` })) },
      });
    }),
  );
  for (const res of answers) assert.equal(res.statusCode, 200, res.body);
  return answers.map((res) => res.json().items as Item[]);
}

function conflictsLogged(): number {
  return rt.logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('the database rolled work back for a conflict')).length;
}

test('eight uploads of the same thirty new candidates at once, in opposite orders: all written, each created once', async () => {
  const ids = Array.from({ length: 30 }, (_, i) => `sync-${String(i).padStart(2, '0')}`);
  const conflictsBefore = conflictsLogged();
  const answers = await uploadsAtOnce(ids, 8, (k) => `Go engineer on payment systems, sender ${k}`);

  const stored = await rt.db.query<{ external_id: string; id: string }>("SELECT external_id, id FROM candidates WHERE external_id LIKE 'sync-%'");
  assert.equal(stored.rows.length, 30, 'one row per external id');
  const idOf = new Map(stored.rows.map((r) => [r.external_id, r.id]));
  for (const externalId of ids) {
    const items = answers.map((a) => a.find((i) => i.externalId === externalId)!);
    assert.ok(items.every((i) => i.id === idOf.get(externalId)), `${externalId}: every answer names the one row`);
    // One upload made the row; the others, whichever came after it, changed it: none may claim to have created it too.
    assert.deepEqual(items.map((i) => i.status).sort(), ['created', ...Array<string>(7).fill('updated')], externalId);
  }
  const vectors = await rt.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM candidate_embeddings e JOIN candidates c ON c.id = e.candidate_id WHERE c.external_id LIKE 'sync-%'",
  );
  assert.equal(vectors.rows[0]!.n, 30, 'one vector each');
  // The uploads take the rows' locks in one order whatever order they list them in: no deadlock to retry.
  assert.equal(conflictsLogged(), conflictsBefore);
});

test('eight updates of the same candidates at once, in opposite orders, with new ones among them: all written', async () => {
  const existing = Array.from({ length: 20 }, (_, i) => `sync-${String(i).padStart(2, '0')}`);
  const added = Array.from({ length: 10 }, (_, i) => `more-${i}`);
  const ids = existing.flatMap((id, i) => (i % 2 ? [id, added[i >> 1]!] : [id]));
  const conflictsBefore = conflictsLogged();
  const answers = await uploadsAtOnce(ids, 8, (k) => `Rust engineer on ledgers, sender ${k}`);
  for (const answer of answers) {
    assert.ok(answer.filter((i) => i.externalId.startsWith('sync-')).every((i) => i.status === 'updated'));
  }
  for (const externalId of added) {
    assert.deepEqual(answers.map((a) => a.find((i) => i.externalId === externalId)!.status).sort(), ['created', ...Array<string>(7).fill('updated')]);
  }
  // The last writer's text, whole: a row's fields and its vector come from one upload.
  const rows = await rt.db.query<{ resume: string; hash_matches: boolean }>(
    `SELECT c.resume, e.content_hash = c.content_hash AS hash_matches FROM candidates c JOIN candidate_embeddings e ON e.candidate_id = c.id
     WHERE c.external_id = ANY($1::text[])`,
    [ids],
  );
  assert.equal(rows.rows.length, 30);
  for (const row of rows.rows) {
    assert.match(row.resume, /^Rust engineer on ledgers, sender \d/);
    assert.ok(row.hash_matches, 'the vector is of the text stored');
  }
  assert.equal(conflictsLogged(), conflictsBefore);
});
