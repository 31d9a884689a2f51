// Keys created and revoked from several places at once (operators' CLI runs, a deployment script retried): on
// PostgreSQL these transactions really run at the same time.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKeyStore } from '../../src/auth/api-keys.js';
import type { Database } from '../../src/db/database.js';
import { createTestDatabase } from '../support/database.js';

let db: Database;
before(async () => {
  db = await createTestDatabase({ poolMax: 12 });
});
after(() => db.close());

test('ten keys created at once for one new organisation: one organisation, ten working keys', async () => {
  const keys = createApiKeyStore(db);
  const made = await Promise.all(Array.from({ length: 10 }, () => keys.create('acme-at-once')));
  assert.equal(new Set(made.map((m) => m.orgId)).size, 1, 'one organisation');
  assert.equal((await db.query<{ n: number }>("SELECT count(*)::int AS n FROM organisations WHERE name = 'acme-at-once'")).rows[0]!.n, 1);
  const callers = await Promise.all(made.map((m) => keys.verify(m.key)));
  assert.ok(callers.every((c, i) => c?.orgId === made[0]!.orgId && c.keyPrefix === made[i]!.prefix));
});

test('one key revoked by ten requests at once: one revocation, and the key refused', async () => {
  const keys = createApiKeyStore(db);
  const { key, prefix } = await keys.create('revoked-at-once');
  assert.ok(await keys.verify(key));
  const revoked = await Promise.all(Array.from({ length: 10 }, () => createApiKeyStore(db).revoke(prefix)));
  assert.deepEqual(revoked.filter(Boolean).length, 1, 'one of them revoked it; the others found it revoked');
  assert.equal(await keys.verify(key), null);
});
