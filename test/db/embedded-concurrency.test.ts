// The embedded server shares one PGlite among many connections: concurrent extended-protocol statements
// (Parse, Bind, Execute, Sync) of different connections must never land inside each other's sequence.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Database } from '../../src/db/database.js';
import { createTestDatabase } from '../support/database.js';

let db: Database;
before(async () => {
  // 820 statements queue for ten connections: what is tested is that each gets its own answer, not how soon. On a
  // machine busy with other work the last of them waited past the default 10 s for a connection.
  db = await createTestDatabase({ poolMax: 10, connectionTimeoutMs: 120_000 });
});
after(async () => {
  await db.close();
});

test('ten pooled connections with hundreds of concurrent parameterised statements get their own answers', async () => {
  // Different parameter counts and types: a Bind landing on another connection's unnamed statement fails loudly
  // ("bind message supplies 3 parameters, but prepared statement requires 1") or answers the wrong query.
  const statements = Array.from({ length: 800 }, (_, i) => {
    switch (i % 4) {
      case 3: {
        // Big enough to arrive in several socket reads: the sequence is split across chunks.
        const big = 'x'.repeat(200_000 + i);
        return db.query<{ n: number }>('SELECT length($1::text) AS n', [big]).then((r) => assert.equal(r.rows[0]!.n, 200_000 + i));
      }
      case 0:
        return db.query<{ v: number }>('SELECT $1::int + 1 AS v', [i]).then((r) => assert.equal(r.rows[0]!.v, i + 1));
      case 1:
        return db.query<{ v: string }>('SELECT $1::text || $2::text || $3::text AS v', ['a', String(i), 'z']).then((r) => assert.equal(r.rows[0]!.v, `a${i}z`));
      default:
        return db
          .query<{ n: number }>('SELECT count(*)::int AS n FROM generate_series(1, $1::int) g WHERE g % $2::int = 0', [i, 2])
          .then((r) => assert.equal(r.rows[0]!.n, Math.floor(i / 2)));
    }
  });
  // Transactions interleaved with them keep their own view.
  const transactions = Array.from({ length: 20 }, (_, i) =>
    db.withTransaction(async (tx) => {
      await tx.query('CREATE TEMP TABLE IF NOT EXISTS t (v int) ON COMMIT DELETE ROWS');
      await tx.query('INSERT INTO t SELECT generate_series(1, $1::int)', [i + 1]);
      const r = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM t');
      assert.equal(r.rows[0]!.n, i + 1);
    }),
  );
  await Promise.all([...statements, ...transactions]);
});
