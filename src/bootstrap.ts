// Opening the database, migrating, and making sure someone can call the API on a fresh install.
import type { Logger } from 'pino';
import { createApiKeyStore } from './auth/api-keys.js';
import type { Config } from './config.js';
import { databaseFault, openDatabase, sqlState, type Database } from './db/database.js';
import { shownDatabaseUrl } from './db/database-url.js';
import type { UpkeepReports } from './db/embedded-upkeep.js';
import { migrate } from './db/migrate.js';
import { createFailureStreak } from './runs/failure-streak.js';

/** DATABASE_URL names a server this process cannot reach or may not use: the boot stops with this message alone. */
export class DatabaseUnreachableError extends Error {
  override name = 'DatabaseUnreachableError';
}

/**
 * The first statement of a boot failing because of where DATABASE_URL points, as one line a person can act on. The
 * boot does not retry: the first connection is bounded by DB_CONNECTION_TIMEOUT_MS, and an orchestrator restarts a
 * process that exits (compose starts the service once the database is healthy).
 */
function unreachable(err: unknown, url: string): DatabaseUnreachableError | undefined {
  const state = sqlState(err);
  // 28xxx: authentication or authorisation refused; 3D000: no such database.
  const refused = state !== undefined && (state.startsWith('28') || state === '3D000');
  if (!refused && databaseFault(err) !== 'database_unavailable') return undefined;
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const why = cause instanceof Error ? cause.message : String(cause);
  const what = refused ? 'the database refused this service' : 'cannot reach the database';
  return new DatabaseUnreachableError(`${what} at ${shownDatabaseUrl(url)} (DATABASE_URL): ${why}. Check DATABASE_URL and that the server is up.`);
}

/**
 * The embedded database's upkeep in the log. Statements go on when it fails, but pg_wal grows and dead rows stay until
 * it works again, so a failure is a warning: the first of a streak, then one at most every 30 s, and a line when it
 * works again. What it did (a checkpoint, the tables vacuumed) is a debug line.
 */
function embeddedUpkeepReports(logger: Logger): UpkeepReports {
  const streak = createFailureStreak({ log: logger, what: 'embedded database upkeep' });
  return {
    failed: (err) => streak.failed(err),
    succeeded: () => streak.succeeded(),
    did: (work) => logger.debug(work, 'embedded database upkeep'),
  };
}

/** `timeouts: false`: no statement or lock timeout (the CLI's one-shot commands, which a person watches). */
export async function openMigratedDatabase(
  config: Config,
  logger: Logger,
  opts: { loadDataDir?: Uint8Array; timeouts?: boolean; onApplied?: (names: string[]) => void } = {},
): Promise<Database> {
  const timeouts = opts.timeouts ?? true;
  const db = await openDatabase({
    ...(config.DATABASE_URL ? { databaseUrl: config.DATABASE_URL } : {}),
    dataDir: config.DATA_DIR,
    poolMax: config.DB_POOL_MAX,
    connectionTimeoutMs: config.DB_CONNECTION_TIMEOUT_MS,
    statementTimeoutMs: timeouts ? config.DB_STATEMENT_TIMEOUT_MS : 0,
    lockTimeoutMs: timeouts ? config.DB_LOCK_TIMEOUT_MS : 0,
    // Not the database role's either (set there behind PgBouncer): a migration or a prune of minutes must not be cut.
    withoutTimeouts: !timeouts,
    onIdleError: (err) => logger.warn({ err: err.message }, 'an idle database connection failed; the pool opens another when one is needed'),
    // Each one a sign of two kinds of work taking locks in opposite orders: worth a look if it comes often.
    onConflict: (err, attempt) => logger.warn({ err, attempt }, 'the database rolled work back for a conflict with concurrent work (a deadlock); it runs again'),
    ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
    upkeep: embeddedUpkeepReports(logger),
  });
  try {
    const applied = await migrate(db);
    if (applied.length) logger.info({ applied }, 'migrations applied');
    opts.onApplied?.(applied);
    return db;
  } catch (err) {
    await db.close().catch(() => {});
    throw (config.DATABASE_URL && unreachable(err, config.DATABASE_URL)) || err;
  }
}

// Shorter keys are accepted (the operator chose it; API.md sets no length) but can be guessed: the boot says so.
const SHORT_KEY = 20;

/**
 * On first boot: register BOOTSTRAP_API_KEY for organisation "default", or generate a key and
 * print it once on stdout (not through the logger: keys never enter log pipelines).
 */
export async function ensureBootstrapKey(
  db: Database,
  config: Config,
  print: (line: string) => void,
  logger?: Pick<Logger, 'warn' | 'info'>,
): Promise<void> {
  await db.withTransaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(7242412)');
    const keys = createApiKeyStore(tx);
    if ((await keys.count()) > 0) return;
    if (config.BOOTSTRAP_API_KEY) {
      // The prefix is a public handle (revoke-api-key --prefix); a chosen key shows none, it is derived from the hash.
      const { prefix } = await keys.register('default', config.BOOTSTRAP_API_KEY);
      logger?.info({ prefix }, `BOOTSTRAP_API_KEY registered for organisation "default" with prefix ${prefix}`);
      if (config.BOOTSTRAP_API_KEY.length < SHORT_KEY) {
        logger?.warn(`BOOTSTRAP_API_KEY is shorter than ${SHORT_KEY} characters and could be guessed; prefer a generated one (cli create-api-key)`);
      }
      return;
    }
    const { key } = await keys.create('default');
    print(`talent-matcher: no API key existed, so one was created for organisation "default" (shown only now): ${key}`);
  });
}
