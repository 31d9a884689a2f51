import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { staleIdsQuery } from '../../src/candidates/rescrub.js';
import type { Database } from '../../src/db/database.js';
import { createTestDatabase } from '../support/database.js';

let db: Database;
before(async () => {
  db = await createTestDatabase();
});
after(() => db.close());

const FIRST = '00000000-0000-0000-0000-000000000000';

// Every process looks for stale rows at its start and every ten minutes: on a large pool a look that reads the table
// costs a second or more per million rows (docs/benchmarks.md). The planner must be able to read the indexes alone;
// with sequential scans switched off, a plan that still reads the table means the statement no longer matches them.
// (An organisation's look, made before its filtered searches until the process's first pass has ended, is left to the
// planner: on an empty table it cannot tell the organisation's index from these.)
test("the look for stale rows is served by migration 020's indexes", async () => {
  const plan = await db.withTransaction(async (tx) => {
    await tx.query('SET LOCAL enable_seqscan = off');
    await tx.query('SET LOCAL enable_bitmapscan = off');
    const { text, values } = staleIdsQuery(20, FIRST);
    const r = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
    return r.rows.map((row) => row['QUERY PLAN']).join('\n');
  });
  assert.match(plan, /Index (Only )?Scan using candidates_scrub_version on candidates/, plan);
  assert.match(plan, /Index (Only )?Scan using candidates_scrubbed_from_other on candidates/, plan);
  assert.doesNotMatch(plan, /Seq Scan on candidates|candidates_pkey/, plan);
});
