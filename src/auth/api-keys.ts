// API keys per organisation: generated once, stored as a SHA-256 hash, verified in constant time.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { RecentCache } from '../cache/recent-cache.js';
import type { Database, Queryable } from '../db/database.js';

export interface Caller {
  orgId: string;
  keyId: string;
  keyPrefix: string;
}

// Key format: tm_<prefix>_<secret>. The prefix is a public handle (for lookup and revocation);
// only the hash of the whole key is stored.
const KEY_PATTERN = /^tm_([a-z0-9]{10})_[A-Za-z0-9_-]{20,}$/;

// Generated keys are 45 characters; a bootstrap key is whatever the operator chose (the boot warns when short).
// Anything longer than any key that can be registered is refused before it is hashed.
const MAX_KEY_LENGTH = 200;
const plausible = (key: string) => key.length > 0 && key.length <= MAX_KEY_LENGTH;

function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function generateApiKey(): { key: string; prefix: string } {
  const prefix = randomBytes(8).toString('hex').slice(0, 10);
  return { key: `tm_${prefix}_${randomBytes(24).toString('base64url')}`, prefix };
}

/** Bootstrap keys may be any string a person chose; their prefix is derived from the hash. */
export function prefixOf(key: string): string {
  return KEY_PATTERN.exec(key)?.[1] ?? hashKey(key).slice(0, 10);
}

export interface ApiKeyStoreOptions {
  /**
   * How long a verified key is trusted without reading api_keys again (0: read on every request). A key
   * revoked through this process stops working at once; one revoked by another process (another replica,
   * the CLI against a shared PostgreSQL) within this time.
   */
  cacheTtlMs?: number;
  /** Epoch ms: the clock that ages cached verifications (Date.now by default). */
  now?: () => number;
}

/**
 * `db`: the Database, or a transaction's Queryable (bootstrap registers its key inside its own). Given the Database,
 * each registration is a transaction of its own; given a transaction, it is part of the caller's.
 */
export function createApiKeyStore(db: Queryable | Database, opts: ApiKeyStoreOptions = {}) {
  // Keyed by the key's hash, like the table: the raw key is not kept past the request.
  const verified = new RecentCache<Caller>({ ttlMs: opts.cacheTtlMs ?? 0, maxEntries: 10_000, now: opts.now });
  // A verification that read api_keys before a revocation here must not cache what it read.
  let revocations = 0;

  async function ensureOrganisation(q: Queryable, name: string): Promise<string> {
    const r = await q.query<{ id: string }>(
      `INSERT INTO organisations (name) VALUES ($1)
       ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id`,
      [name],
    );
    return r.rows[0]!.id;
  }

  /**
   * The organisation and its key in one transaction: a key insert that fails (a prefix taken, the database going
   * away) must not leave behind an organisation the operator never got a key for.
   */
  async function register(orgName: string, key: string): Promise<{ prefix: string; orgId: string }> {
    const write = async (tx: Queryable) => {
      const orgId = await ensureOrganisation(tx, orgName);
      const prefix = prefixOf(key);
      await tx.query('INSERT INTO api_keys (org_id, prefix, key_hash) VALUES ($1, $2, $3)', [orgId, prefix, hashKey(key)]);
      return { prefix, orgId };
    };
    return 'withTransaction' in db ? db.withTransaction(write) : write(db);
  }

  return {
    ensureOrganisation: (name: string): Promise<string> => ensureOrganisation(db, name),

    /** Creates the organisation if needed and a new key; the key itself is shown only here. */
    async create(orgName: string): Promise<{ key: string; prefix: string; orgId: string }> {
      const { key } = generateApiKey();
      return { key, ...(await register(orgName, key)) };
    },

    register,

    async revoke(prefix: string): Promise<boolean> {
      const r = await db.query('UPDATE api_keys SET revoked_at = now() WHERE prefix = $1 AND revoked_at IS NULL', [prefix]);
      revocations++;
      verified.deleteWhere((caller) => caller.keyPrefix === prefix);
      return r.rowCount > 0;
    },

    async count(): Promise<number> {
      const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys');
      return r.rows[0]?.n ?? 0;
    },

    /** The caller, if this key's last verification is fresh (see cacheTtlMs); no database read. */
    verifiedRecently(key: string): Caller | undefined {
      if (!verified.enabled || !plausible(key)) return undefined;
      return verified.fresh(hashKey(key));
    },

    /** One indexed read, or none while the key's last verification is fresh (see cacheTtlMs). */
    async verify(key: string): Promise<Caller | null> {
      if (!plausible(key)) return null;
      const keyHash = hashKey(key);
      const cached = verified.fresh(keyHash);
      if (cached) return cached;
      const prefix = prefixOf(key);
      const revocationsBefore = revocations;
      const r = await db.query<{ id: string; org_id: string; key_hash: string }>(
        'SELECT id, org_id, key_hash FROM api_keys WHERE prefix = $1 AND revoked_at IS NULL',
        [prefix],
      );
      const row = r.rows[0];
      if (!row) return null;
      const expected = Buffer.from(row.key_hash, 'hex');
      const actual = Buffer.from(keyHash, 'hex');
      if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
      const caller = { orgId: row.org_id, keyId: row.id, keyPrefix: prefix };
      if (revocations === revocationsBefore) verified.set(keyHash, caller);
      return caller;
    },
  };
}

export type ApiKeyStore = ReturnType<typeof createApiKeyStore>;
