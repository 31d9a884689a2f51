// The only module that imports pg: one pool per process, lent out as query() and withTransaction().
import pg from 'pg';
import { startEmbedded, type EmbeddedServer } from './embedded.js';

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface Queryable {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
}

export interface Database extends Queryable {
  readonly kind: 'embedded' | 'postgres';
  /** Runs fn inside BEGIN/COMMIT on one connection; rolls back on throw. Never await a model inside. */
  withTransaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  poolStats(): { total: number; idle: number; waiting: number };
  /** For tests and the wire-protocol sharing of the embedded database. */
  readonly embedded: EmbeddedServer | null;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string;
  dataDir: string;
  poolMax: number;
  /** How long a query may wait for a free connection before failing. */
  connectionTimeoutMs?: number;
  loadDataDir?: Blob;
  /** Connections the embedded server accepts (other processes may share it over the socket). */
  embeddedMaxConnections?: number;
}

// Counts and sums come back as numbers, not strings: they are small enough here.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (v: string) => (v === null ? null : Number(v));
    return pg.types.getTypeParser(oid, format);
  },
};

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  let embedded: EmbeddedServer | null = null;
  let poolConfig: pg.PoolConfig;
  if (opts.databaseUrl) {
    poolConfig = { connectionString: opts.databaseUrl };
  } else {
    embedded = await startEmbedded({
      dataDir: opts.dataDir,
      maxConnections: opts.embeddedMaxConnections ?? opts.poolMax + 8,
      ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
    });
    poolConfig = { host: embedded.socketDir, port: embedded.port, user: 'postgres', database: 'postgres' };
  }
  const pool = new pg.Pool({
    ...poolConfig,
    max: opts.poolMax,
    connectionTimeoutMillis: opts.connectionTimeoutMs ?? 10_000,
    idleTimeoutMillis: 30_000,
    types,
  });
  // An idle client's socket error must not crash the process; the pool replaces the client.
  pool.on('error', () => {});

  const toResult = <R>(r: pg.QueryResult): QueryResult<R> => ({ rows: r.rows as R[], rowCount: r.rowCount ?? 0 });

  return {
    kind: embedded ? 'embedded' : 'postgres',
    embedded,
    async query<R>(text: string, values?: unknown[]) {
      return toResult<R>(await pool.query(text, values as unknown[]));
    },
    async withTransaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const tx: Queryable = {
          query: async <R>(text: string, values?: unknown[]) => toResult<R>(await client.query(text, values as unknown[])),
        };
        const result = await fn(tx);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async close() {
      await pool.end();
      await embedded?.stop();
    },
  };
}

/** The SQLSTATE of a database error, if err is one. */
export function sqlState(err: unknown): string | undefined {
  return err instanceof pg.DatabaseError ? err.code : undefined;
}
