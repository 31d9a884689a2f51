// The only module that imports pg: one pool per process, lent out as query() and withTransaction().
import pg from 'pg';
import { DatabaseFaultError, type DatabaseFault } from '../errors.js';
import { startEmbedded, type EmbeddedServer } from './embedded.js';
import { keepEmbeddedUp, type UpkeepReports } from './embedded-upkeep.js';

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface Queryable {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
}

export interface Database extends Queryable {
  readonly kind: 'embedded' | 'postgres';
  /**
   * Runs fn inside BEGIN/COMMIT on one connection; rolls back on throw. Never await a model inside. `maintenance`:
   * no statement or lock timeout (migrations and index builds may rightly take minutes, or wait for another process's).
   * A transaction the server rolled back for a deadlock or a serialization failure is run again, fn included, from
   * its start (see againOnConflict): fn must only send statements, not act outside the database.
   */
  withTransaction<T>(fn: (tx: Queryable) => Promise<T>, opts?: { maintenance?: boolean }): Promise<T>;
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
  /** The bytes of a dumpDataDir() tarball the embedded database starts from (tests). */
  loadDataDir?: Uint8Array;
  /** Connections the embedded server accepts (other processes may share it over the socket). */
  embeddedMaxConnections?: number;
  /**
   * PostgreSQL (databaseUrl) only: the server cancels a statement running longer (0: never), or waiting longer for
   * a lock. The embedded database cannot cancel a statement (PGlite ignores statement_timeout), so none is set there.
   */
  statementTimeoutMs?: number;
  lockTimeoutMs?: number;
  /**
   * PostgreSQL only: every statement and transaction runs as a maintenance transaction does, with both timeouts set to
   * 0 for it (SET LOCAL), whatever the database's role sets: the CLI's commands, which a person watches.
   */
  withoutTimeouts?: boolean;
  /** An idle pooled connection failed (the server restarted or went away): the pool drops it and opens another. */
  onIdleError?: (err: Error) => void;
  /** The server rolled work back for a conflict (a deadlock), and it is about to run again (attempt: the one that failed). */
  onConflict?: (err: unknown, attempt: number) => void;
  /** Embedded only: how often its upkeep looks for a checkpoint or a vacuum to make (embedded-upkeep.ts; tests shorten it). */
  upkeepIntervalMs?: number;
  /** Embedded only: what its upkeep reports (a failed look, the first one that works again, the work it did). */
  upkeep?: UpkeepReports;
}

// Counts and sums come back as numbers, not strings: they are small enough here.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (v: string) => (v === null ? null : Number(v));
    return pg.types.getTypeParser(oid, format);
  },
};

// How long a statement may go unanswered beyond the server's own statement timeout before the client gives it up: only
// a server that vanished without closing the connection (a partition, a dead host) leaves a statement unanswered.
const CLIENT_TIMEOUT_MARGIN_MS = 5_000;
// setTimeout's longest delay: what a maintenance statement passes to have no client-side timeout (pg reads 0 as unset).
const NO_CLIENT_TIMEOUT = 2_147_483_647;

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  let embedded: EmbeddedServer | null = null;
  let poolConfig: pg.PoolConfig;
  let sessionSettings: string | null = null;
  if (opts.databaseUrl) {
    const statementTimeoutMs = opts.statementTimeoutMs ?? 0;
    const lockTimeoutMs = opts.lockTimeoutMs ?? 0;
    poolConfig = {
      connectionString: opts.databaseUrl,
      // A dead peer is found by the kernel on an idle connection too, not only when a statement goes unanswered.
      keepAlive: true,
      ...(statementTimeoutMs > 0 ? { query_timeout: statementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS } : {}),
    };
    // Set per connection once it is open, not as startup parameters, which a pooler such as PgBouncer refuses (in its
    // transaction mode a session SET reaches one server connection only: docs/operations.md says to set them on the role).
    if (statementTimeoutMs > 0 || lockTimeoutMs > 0) {
      sessionSettings = `SET statement_timeout = ${statementTimeoutMs}; SET lock_timeout = ${lockTimeoutMs}`;
    }
  } else {
    embedded = await startEmbedded({
      dataDir: opts.dataDir,
      maxConnections: opts.embeddedMaxConnections ?? opts.poolMax + 8,
      ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
    });
    // ssl false: otherwise pg reads PGSSLMODE, which a machine may set for some other server (user and database are
    // given, so PGUSER and PGDATABASE are not read either).
    poolConfig = { host: embedded.socketDir, port: embedded.port, user: 'postgres', database: 'postgres', ssl: false };
  }
  const settings = sessionSettings;
  const untimed = opts.withoutTimeouts === true && !embedded;
  const pool = new pg.Pool({
    ...poolConfig,
    max: opts.poolMax,
    connectionTimeoutMillis: opts.connectionTimeoutMs ?? 10_000,
    idleTimeoutMillis: 30_000,
    types,
    ...(settings ? { onConnect: async (client: pg.ClientBase) => void (await client.query(settings)) } : {}),
  });
  // An idle client's socket error must not crash the process; the pool replaces the client.
  pool.on('error', (err) => opts.onIdleError?.(err));

  const toResult = <R>(r: pg.QueryResult): QueryResult<R> => ({ rows: r.rows as R[], rowCount: r.rowCount ?? 0 });

  const database: Database = {
    kind: embedded ? 'embedded' : 'postgres',
    embedded,
    async query<R>(text: string, values?: unknown[]) {
      if (untimed) return againOnConflict(opts.onConflict, () => transaction((tx) => tx.query<R>(text, values), { maintenance: true }));
      // A statement of its own is its own transaction: one the server rolled back for a conflict is sent again.
      return againOnConflict(opts.onConflict, async () => {
        try {
          return toResult<R>(await pool.query(text, values as unknown[]));
        } catch (err) {
          throw named(err);
        }
      });
    },
    withTransaction<T>(fn: (tx: Queryable) => Promise<T>, txOpts: { maintenance?: boolean } = {}): Promise<T> {
      return againOnConflict(opts.onConflict, () => transaction(fn, untimed ? { ...txOpts, maintenance: true } : txOpts));
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async close() {
      await upkeep?.stop();
      await pool.end();
      await embedded?.stop();
    },
  };
  // A PostgreSQL server checkpoints and vacuums by itself; the embedded database's single-user backend does neither.
  const upkeep = embedded ? keepEmbeddedUp(database, { ...opts.upkeep, ...(opts.upkeepIntervalMs ? { intervalMs: opts.upkeepIntervalMs } : {}) }) : null;
  return database;

  async function transaction<T>(fn: (tx: Queryable) => Promise<T>, txOpts: { maintenance?: boolean }): Promise<T> {
    const client = await pool.connect().catch((err: unknown) => {
      throw named(err);
    });
    // A checked-out client has none of the pool's listeners: a connection lost between two statements (a server
    // restart) is emitted as 'error', which with no listener ends the process.
    let lost: unknown;
    const onError = (err: Error) => (lost ??= err);
    client.on('error', onError);
    // pg reads a statement's own query_timeout (its types do not name it).
    const send = (text: string, values?: unknown[]): Promise<pg.QueryResult> =>
      client.query(txOpts.maintenance ? ({ text, values, query_timeout: NO_CLIENT_TIMEOUT } as pg.QueryConfig) : { text, values: values as unknown[] });
    let reusable = true;
    try {
      await send('BEGIN');
      // Also when the service sets none itself: the database's role may (docs/operations.md advises it behind PgBouncer),
      // and a migration, an index build or a CLI command of minutes was cancelled by the role's 30 s.
      if (txOpts.maintenance && !embedded) await send('SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0');
      const tx: Queryable = {
        query: async <R>(text: string, values?: unknown[]) => {
          try {
            return toResult<R>(await send(text, values));
          } catch (err) {
            throw named(err);
          }
        },
      };
      const result = await fn(tx);
      await send('COMMIT');
      return result;
    } catch (err) {
      // A connection lost, or a statement the client gave up on (still running there), cannot roll back: closing
      // it ends the transaction on the server.
      if (lost !== undefined || connectionBroken(err)) reusable = false;
      else await client.query('ROLLBACK').catch(() => (reusable = false));
      throw named(err);
    } finally {
      client.off('error', onError);
      client.release(reusable ? undefined : new Error('connection closed after a fault'));
    }
  }
}

/**
 * Runs work (a whole transaction, or one statement) again from its start when the server rolled it back for a conflict
 * with a concurrent one: a deadlock (40P01: PostgreSQL aborts one of two transactions that wait on each other's locks)
 * or a serialization failure (40001). Nothing of the rolled-back attempt was kept, and the other transaction has gone
 * on, so the next attempt usually passes; after CONFLICT_ATTEMPTS the conflict is the named fault database_conflict.
 * The work must not have done anything outside the database that a second run repeats (none of ours does: each
 * transaction's function only sends statements and returns, or throws, what they answered).
 */
async function againOnConflict<T>(onConflict: DatabaseOptions['onConflict'], work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= CONFLICT_ATTEMPTS || databaseFault(err) !== 'database_conflict') throw err;
      onConflict?.(err, attempt);
      // A short pause, different for each of the transactions that met, so they do not meet again in the same steps.
      await new Promise((resolve) => setTimeout(resolve, attempt * (5 + Math.random() * 20)));
    }
  }
}

// How many times a transaction the server rolled back for a conflict is tried in all.
export const CONFLICT_ATTEMPTS = 4;

// Class 08: connection exceptions; 57P01-57P03: the server shutting down (a restart) or starting up; 53300: too many
// connections; 25006: a read-only transaction (a connection a failover left on the old primary, now a standby: it is
// discarded). Not the other resource errors (53100 disk full, 53200 out of memory): they may belong to one statement
// (a sort's temporary files, a large search), which sent again while a lease lasts would fail the same way forever.
const UNAVAILABLE_SQLSTATE = /^(08|57P0[1-3]$|53300$|25006$)/;
// 57014: a statement cancelled (statement_timeout); 55P03: lock_timeout.
const TIMEOUT_SQLSTATES = new Set(['57014', '55P03']);
// 40P01: deadlock detected; 40001: serialization failure. The server rolled the transaction back (againOnConflict).
const CONFLICT_SQLSTATES = new Set(['40P01', '40001']);
// 53100: disk full; 53200: out of memory; 53400: a configured limit passed. Named for the client (a 503 that says so,
// not an unexplained 500), but no outage: a run does not wait them out (see UNAVAILABLE_SQLSTATE).
const RESOURCE_SQLSTATES = new Set(['53100', '53200', '53400']);
// What Node's sockets answer when the server is not there or went away.
const UNAVAILABLE_SYSCALL_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EPIPE', 'ENOENT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
// pg's and pg-pool's own words (they carry no code): a connection lost or never made, or a pool closed at shutdown.
const UNAVAILABLE_MESSAGE = /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end|timeout expired$)/;
// pg-pool: no pooled connection became free within connectionTimeoutMillis.
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';
// pg: a statement unanswered past query_timeout (the server's own timeout should have ended it first).
const CLIENT_READ_TIMEOUT = 'Query read timeout';

/**
 * How a caller's statements are sent: once (sendOnce), or again while the database is away (a run's, which holds a
 * lease: src/runs/while-leased.ts).
 */
export type StatementSender = <T>(statement: () => Promise<T>) => Promise<T>;
export const sendOnce: StatementSender = (statement) => statement();

/** Which named fault a database error is, if it is one (a failed constraint or a bad value is not: the caller's). */
export function databaseFault(err: unknown): DatabaseFault | undefined {
  if (err instanceof DatabaseFaultError) return err.fault;
  if (err instanceof pg.DatabaseError) {
    if (TIMEOUT_SQLSTATES.has(err.code ?? '')) return 'database_timeout';
    if (CONFLICT_SQLSTATES.has(err.code ?? '')) return 'database_conflict';
    if (RESOURCE_SQLSTATES.has(err.code ?? '')) return 'database_out_of_resources';
    return UNAVAILABLE_SQLSTATE.test(err.code ?? '') ? 'database_unavailable' : undefined;
  }
  if (!(err instanceof Error)) return undefined;
  if (err.message === POOL_WAIT_TIMEOUT) return 'database_busy';
  if (err.message === CLIENT_READ_TIMEOUT) return 'database_timeout';
  const code = (err as NodeJS.ErrnoException).code;
  if ((code && UNAVAILABLE_SYSCALL_CODES.has(code)) || UNAVAILABLE_MESSAGE.test(err.message)) return 'database_unavailable';
  return undefined;
}

// pg's and pg-pool's words for a statement never sent: no connection came (a connect timeout, a pool closed), or the
// client refused it before writing it (it had already lost its connection).
const NOT_SENT_MESSAGE = /^(timeout expired|Connection terminated due to connection timeout|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|Cannot use a pool after calling end)$/;

/**
 * The database was away or busy: a fault that passes if waited out (the journal's batches, a run's reads). Whether
 * the statement may be sent again is the caller's question: a read's may (nothing of it stays), a write's only if it
 * certainly did not apply (unappliedOutage).
 */
export function databaseOutage(err: unknown): boolean {
  const fault = databaseFault(err);
  return fault === 'database_unavailable' || fault === 'database_busy';
}

/**
 * Whether a statement failed because the database was away or busy and certainly took no effect, so that sending it
 * again cannot apply it twice: it never left (no connection could be opened, or none came free: database_busy), its
 * write failed (write EPIPE: the server had already closed the connection, as in a restart; pg sends a statement's
 * messages in one write, and a statement is committed only once its last one, Sync, is read), or the server answered
 * with an error, which ends the statement's transaction (a restart's 57P01). A connection lost after the statement
 * was written, with no answer (read ECONNRESET, 'Connection terminated unexpectedly', a client read timeout), leaves
 * its outcome unknown: it may have committed just before (in a transaction, the statement lost may be its COMMIT).
 */
export function unappliedOutage(err: unknown): boolean {
  const fault = databaseFault(err);
  if (fault === 'database_busy') return true;
  if (fault !== 'database_unavailable') return false;
  const cause = err instanceof DatabaseFaultError ? err.cause : err;
  if (cause instanceof pg.DatabaseError) return true;
  if (!(cause instanceof Error)) return false;
  const { syscall } = cause as NodeJS.ErrnoException;
  return syscall === 'connect' || syscall === 'getaddrinfo' || syscall === 'write' || NOT_SENT_MESSAGE.test(cause.message);
}

/** After this the connection cannot be used again: it was lost, or a statement is still running on it. */
function connectionBroken(err: unknown): boolean {
  const cause = err instanceof DatabaseFaultError ? err.cause : err;
  // A PANIC or FATAL ends the server's session (PostgreSQL) or leaves the embedded database unusable; a ROLLBACK sent
  // after it waits for a ReadyForQuery that never comes, holding its connection for good.
  const severity = (cause as { severity?: unknown } | null)?.severity;
  if (severity === 'PANIC' || severity === 'FATAL') return true;
  return databaseFault(cause) === 'database_unavailable' || (cause instanceof Error && cause.message === CLIENT_READ_TIMEOUT);
}

/** The driver's error as the named fault it is (the driver's error its cause), or unchanged. */
function named(err: unknown): unknown {
  if (err instanceof DatabaseFaultError) return err;
  const fault = databaseFault(err);
  return fault ? new DatabaseFaultError(fault, err) : err;
}

/** The SQLSTATE of a database error, if err is one (or a named fault caused by one). */
export function sqlState(err: unknown): string | undefined {
  const cause = err instanceof DatabaseFaultError ? err.cause : err;
  return cause instanceof pg.DatabaseError ? cause.code : undefined;
}
