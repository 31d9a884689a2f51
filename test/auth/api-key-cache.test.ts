// The verified-key cache: fewer reads of api_keys, never a revoked key kept alive past the documented bound.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKeyStore } from '../../src/auth/api-keys.js';
import type { Database, Queryable } from '../../src/db/database.js';
import { createTestDatabase } from '../support/database.js';

let db: Database;
before(async () => {
  db = await createTestDatabase({ poolMax: 2 });
});
after(() => db.close());

/** The database, with a count of reads of api_keys and an optional hold on them. */
function watched() {
  let reads = 0;
  let hold: { reached: () => void; until: Promise<void> } | null = null;
  const queryable: Queryable = {
    async query(text, values) {
      if (/FROM api_keys WHERE prefix/.test(text)) {
        reads++;
        const result = await db.query(text, values);
        if (hold) {
          hold.reached();
          await hold.until;
        }
        return result as never;
      }
      return db.query(text, values);
    },
  };
  return {
    queryable,
    reads: () => reads,
    /** Holds the next reads once they have their rows: `held` resolves when one has. */
    holdReads(): { held: Promise<void>; release: () => void } {
      let reached!: () => void;
      let release!: () => void;
      const held = new Promise<void>((r) => (reached = r));
      hold = { reached, until: new Promise((r) => (release = r)) };
      return {
        held,
        release: () => {
          hold = null;
          release();
        },
      };
    },
  };
}

test('a verified key is trusted for the cache time without reading api_keys again', async () => {
  const w = watched();
  const keys = createApiKeyStore(w.queryable, { cacheTtlMs: 60_000 });
  const { key, orgId } = await keys.create('cache-hits');
  for (let i = 0; i < 5; i++) assert.equal((await keys.verify(key))?.orgId, orgId);
  assert.equal(w.reads(), 1);
  assert.equal(await keys.verify(`${key}x`), null, 'a different key is not a hit');
  assert.equal(w.reads(), 2, 'unknown keys are read every time, never cached');
});

test('a revocation through the same store takes effect on the next verification', async () => {
  const keys = createApiKeyStore(db, { cacheTtlMs: 60_000 });
  const { key, prefix } = await keys.create('cache-revoke');
  assert.ok(await keys.verify(key));
  assert.equal(await keys.revoke(prefix), true);
  assert.equal(await keys.verify(key), null);
});

test('a verification that read the key before a revocation does not cache it', async () => {
  const w = watched();
  const keys = createApiKeyStore(w.queryable, { cacheTtlMs: 60_000 });
  const { key, prefix } = await keys.create('cache-race');
  const { held, release } = w.holdReads();
  const inFlight = keys.verify(key);
  await held; // it has read the key: a fixed pause could end before the read did, and the revocation come first
  assert.equal(await keys.revoke(prefix), true);
  release();
  assert.ok(await inFlight, 'it read the key while it was valid');
  assert.equal(await keys.verify(key), null, 'but did not keep it past the revocation');
});

test('a revocation by another process takes effect within the cache time', async () => {
  let now = 0;
  const here = createApiKeyStore(db, { cacheTtlMs: 300, now: () => now });
  const elsewhere = createApiKeyStore(db);
  const { key, prefix } = await here.create('cache-elsewhere');
  assert.ok(await here.verify(key));
  assert.equal(await elsewhere.revoke(prefix), true);
  now = 299;
  assert.ok(await here.verify(key), 'still trusted within the cache time: the documented bound');
  now = 300;
  assert.equal(await here.verify(key), null, 'not a millisecond past it');
});

test('with a cache time of 0 every verification reads api_keys', async () => {
  const w = watched();
  const keys = createApiKeyStore(w.queryable, { cacheTtlMs: 0 });
  const { key } = await keys.create('cache-off');
  for (let i = 0; i < 3; i++) assert.ok(await keys.verify(key));
  assert.equal(w.reads(), 3);
});
