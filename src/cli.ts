// Operator commands: migrate, create-api-key, revoke-api-key, reembed, prune-traces, replay-run, export-scores.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config.js';
import type { Database } from './db/database.js';
import { loadPinnedRegistry } from './llm/model-registry.js';

// Everything else is imported by the command that needs it, once its options are checked: a usage error is told in
// the time Node takes to start, and a command does not load what another one needs (replay-run the agents and the
// model client, reembed the embedders).

/**
 * Checks its options and returns what it does with the database, which resolves to the exit code (0 when nothing is
 * returned): a usage error is told before the database is opened (no initdb, no wait for the data directory's lock).
 */
type Command = (args: Record<string, string | undefined>, config: Config) => (db: Database) => Promise<number | void>;

class UsageError extends Error {}
/** The command could not do what it was asked (no such key, no such role): one line, exit 1, no usage text. */
class CommandFailed extends Error {}

function required(args: Record<string, string | undefined>, name: string): string {
  const v = args[name];
  if (!v) throw new UsageError(`--${name} is required`);
  return v;
}

/**
 * A whole-number option, or `fallback` when it is absent. Digits only: Number() reads "" and " " as 0, so
 * `prune-traces --days "$UNSET"` pruned every trail, and it reads "0x10" as 16 and "1e3" as 1000.
 */
function wholeNumber(args: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number): number {
  const v = args[name];
  if (v === undefined) return fallback;
  const n = /^\d{1,9}$/.test(v) ? Number(v) : NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return n;
}

/**
 * The prefixes `--prefix` may mean, in order: as create-api-key prints it ("abc123defg"), also when given as the key
 * shows it ("tm_abc123defg", or the key itself: the part between "tm_" and the next "_"); then, for a key an operator
 * chose (BOOTSTRAP_API_KEY), whose prefix is derived from its hash, the prefix of that key given whole.
 */
function keyPrefixes(value: string, prefixOf: (key: string) => string): string[] {
  return [...new Set([/^tm_([a-z0-9]{10})(?:_|$)/.exec(value)?.[1] ?? value, prefixOf(value)])];
}

/** What the database was migrated by when the command opened it (the migrate command reports it). */
let appliedAtOpen: string[] = [];

function uuid(args: Record<string, string | undefined>, name: string): string {
  const v = required(args, name);
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v)) throw new UsageError(`--${name} must be a UUID`);
  return v;
}

/** failureCode: the exit code of a command that could not do its work (1 unless it says otherwise). */
const COMMANDS: Record<string, { usage: string; prepare: Command; failureCode?: number }> = {
  migrate: {
    usage: 'migrate                         apply pending migrations and exit',
    prepare: () => async () => {
      const n = appliedAtOpen.length;
      process.stdout.write(n ? `applied ${n} migration${n === 1 ? '' : 's'}: ${appliedAtOpen.join(', ')}\n` : 'migrations are up to date\n');
    },
  },
  'create-api-key': {
    usage: 'create-api-key --org NAME       create the organisation if needed and print a new key (last line)',
    prepare: (args) => {
      const org = required(args, 'org');
      return async (db) => {
        const { createApiKeyStore } = await import('./auth/api-keys.js');
        // Whether the name is an organisation's already: its new key reads and erases everything the organisation
        // holds, so an operator onboarding a second "Acme" must be told, as must one whose "acme" is not "Acme".
        const before = await db.query<{ exists: boolean; keys: number; candidates: number; alike: string[] }>(
          `SELECT o.id IS NOT NULL AS exists, (SELECT count(*)::int FROM api_keys k WHERE k.org_id = o.id AND k.revoked_at IS NULL) AS keys,
                  (SELECT count(*)::int FROM candidates c WHERE c.org_id = o.id) AS candidates,
                  ARRAY(SELECT name FROM organisations WHERE lower(btrim(name)) = lower(btrim($1)) AND name <> $1 ORDER BY name) AS alike
           FROM (SELECT 1) one LEFT JOIN organisations o ON o.name = $1`,
          [org],
        );
        const { exists, keys, candidates, alike } = before.rows[0]!;
        // One transaction (register, in api-keys.ts): a key insert that fails leaves no organisation without a key.
        const { key, prefix } = await createApiKeyStore(db).create(org);
        const which =
          !exists
            ? 'a new organisation'
            : `the existing organisation (${keys} other active key${keys === 1 ? '' : 's'}, ${candidates} candidate${candidates === 1 ? '' : 's'}; every key of an organisation reaches all of its data)`;
        if (alike.length > 0) {
          process.stderr.write(`note: ${alike.map((n) => JSON.stringify(n)).join(', ')} differ${alike.length === 1 ? 's' : ''} from ${JSON.stringify(org)} only in case or spaces, and ${alike.length === 1 ? 'is' : 'are'} another organisation\n`);
        }
        process.stdout.write(`created key with prefix ${prefix} for organisation ${org}: ${which}\n${key}\n`);
      };
    },
  },
  reembed: {
    usage: 'reembed [--batch N]             embed candidates lacking a current vector of the configured model (resumable)',
    prepare: (args, config) => {
      const batch = wholeNumber(args, 'batch', 200, 1, 5000);
      // The embedding model is checked before the database is opened (and migrated): a misspelt one said so only after.
      if (config.EMBEDDINGS === 'llm') assertEmbeddingModel(config);
      return async (db) => {
        const [{ createEmbedder }, { reembed }, { createUsageStore }] = await Promise.all([
          import('./embeddings/create-embedder.js'),
          import('./embeddings/reembed.js'),
          import('./usage/usage-store.js'),
        ]);
        const embedder = createEmbedder(config, { usage: createUsageStore(db) });
        const done = await reembed(db, embedder, {
          batch,
          onProgress: (p) => process.stderr.write(`embedded ${p.embedded}, ${p.remaining} to go\n`),
        });
        process.stdout.write(`re-embedded ${done} candidates with ${embedder.model}\n`);
      };
    },
  },
  'revoke-api-key': {
    usage: 'revoke-api-key --prefix PREFIX  revoke a key (PREFIX, tm_PREFIX, or a chosen key whole); it stops working within CACHE_TTL_MS (5 s by default) in every running process',
    prepare: (args) => {
      const given = required(args, 'prefix');
      return async (db) => {
        const { createApiKeyStore, prefixOf } = await import('./auth/api-keys.js');
        const keys = createApiKeyStore(db);
        const prefixes = keyPrefixes(given, prefixOf);
        for (const prefix of prefixes) {
          if (await keys.revoke(prefix)) return void process.stdout.write(`revoked key ${prefix}\n`);
        }
        // Revoking twice is what was asked: a retried script succeeds. Named by a prefix, never by what was typed,
        // which may be a chosen key whole.
        const known = await db.query<{ prefix: string }>('SELECT prefix FROM api_keys WHERE prefix = ANY($1) LIMIT 1', [prefixes]);
        if (known.rows[0]) return void process.stdout.write(`key ${known.rows[0].prefix} was already revoked\n`);
        const shown = /^(tm_)?[a-z0-9]{10}$/.test(given) ? prefixes[0] : prefixOf(given);
        throw new CommandFailed(`no key with prefix ${shown}`);
      };
    },
  },
  'prune-traces': {
    usage: 'prune-traces [--days N]         delete audit trails older than N days (default TRACE_RETENTION_DAYS)',
    prepare: (args, config) => {
      // 0 prunes every trail: allowed when typed, never read from an empty or malformed value.
      const days = wholeNumber(args, 'days', config.TRACE_RETENTION_DAYS, 0, 3650);
      return async (db) => {
        const { pruneTraces } = await import('./audit/retention.js');
        const { runs, rows } = await pruneTraces(db, days);
        process.stdout.write(`pruned ${rows} trace rows of ${runs} runs older than ${days} days\n`);
      };
    },
  },
  'replay-run': {
    usage: 'replay-run --id RUN             re-run a recorded run offline against its recorded answers; exit 1 if the shortlist differs',
    // Whatever stopped it (the database in use or away, a trail pruned): "cannot tell" must not read as "different".
    failureCode: 2,
    prepare: (args, config) => {
      const runId = uuid(args, 'id');
      return async (db) => {
        const { replayRun, replayVerdict, ReplayUnavailableError } = await import('./audit/replay.js');
        const report = await replayRun({ db, config, runId }).catch((err: unknown) => {
          if (!(err instanceof ReplayUnavailableError)) throw err;
          process.stderr.write(`talent-matcher: cannot replay: ${err.message}\n`);
          return null;
        });
        // 2, not 1: "cannot tell" must not read as "different".
        if (!report) return 2;
        const verdict = replayVerdict(report);
        process.stdout.write(verdict.stdout);
        process.stderr.write(verdict.stderr);
        return verdict.code;
      };
    },
  },
  'export-scores': {
    usage: 'export-scores --role ID         CSV of the role\'s scored shortlist entries, for bias audits (LL144)',
    prepare: (args) => {
      const roleId = uuid(args, 'role');
      return async (db) => {
        // A mistyped id must not read as a role with no scored candidates.
        if (!(await db.query('SELECT 1 FROM roles WHERE id = $1', [roleId])).rowCount) throw new CommandFailed(`no role ${roleId}`);
        const { exportScoresCsv } = await import('./audit/export-scores.js');
        await written(process.stdout, await exportScoresCsv(db, roleId));
      };
    },
  },
};

/**
 * Resolves once the stream has taken `text` (and what was written before it) from the process: on a pipe, writes are
 * asynchronous, and process.exit drops what is still queued (an export piped into gzip lost most of its rows).
 */
function written(stream: NodeJS.WriteStream, text = ''): Promise<void> {
  return new Promise((resolve, reject) => stream.write(text, (err) => (err ? reject(err) : resolve())));
}

/** Exits once stdout and stderr have taken what was written to them. */
async function exit(code: number): Promise<never> {
  await Promise.all([written(process.stdout), written(process.stderr)]).catch(() => {});
  process.exit(code);
}

let failureCode = 1;

function usage(): string {
  return `usage: npm run cli -- <command> [options]\n\n${Object.values(COMMANDS).map((c) => `  ${c.usage}`).join('\n')}\n`;
}

/** The options of every command; what parseArgs refuses (an unknown option, a missing value) is a usage error. */
function parseOptions(args: string[]) {
  try {
    return parseArgs({
      args,
      options: { org: { type: 'string' }, prefix: { type: 'string' }, id: { type: 'string' }, role: { type: 'string' }, batch: { type: 'string' }, days: { type: 'string' } },
      strict: true,
    });
  } catch (err) {
    // Its errors carry an ERR_PARSE_ARGS_* code and a message that names the option: exit 2 with it, not a stack trace.
    if (String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_')) throw new UsageError((err as Error).message);
    throw err;
  }
}

async function main(): Promise<number> {
  const [name, ...rest] = process.argv.slice(2);
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(name ? `unknown command "${name}"\n${usage()}` : usage());
    return 2;
  }
  failureCode = command.failureCode ?? 1;
  const { values } = parseOptions(rest);
  const config = loadConfig();
  // A database in memory is the process's own: a command would change one that vanishes when it exits.
  if (!config.DATABASE_URL && config.DATA_DIR === 'memory://') {
    throw new UsageError('DATA_DIR=memory:// keeps nothing between processes: point DATA_DIR (or DATABASE_URL) at the service\'s database');
  }
  const action = command.prepare(values as Record<string, string | undefined>, config);
  const [{ pino }, { loggerOptions }, { openMigratedDatabase }] = await Promise.all([import('pino'), import('./logger.js'), import('./bootstrap.js')]);
  // Logs go to stderr so that stdout carries only the command's answer; redacted and with errors serialized as the
  // service's are (src/logger.ts).
  const logger = pino(loggerOptions(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, { pretty: false }), pino.destination(2));
  // No statement timeout: a prune or a re-embedding of a large pool may rightly run long, and a person is watching.
  const db = await openMigratedDatabase(config, logger, { timeouts: false, onApplied: (names) => (appliedAtOpen = names) });
  try {
    return (await action(db)) ?? 0;
  } finally {
    await db.close();
  }
}

/** The configured embedding model is a pinned embedding model, or a ConfigError names LLM_EMBEDDING_MODEL. */
function assertEmbeddingModel(config: Config): void {
  const registry = loadPinnedRegistry(config.MODEL_REGISTRY_PATH);
  if (registry.embedding(config.llm.embeddingModel)) return;
  const known = registry.models.filter((m) => m.kind === 'embedding').map((m) => m.id).join(', ');
  throw new ConfigError(`LLM_EMBEDDING_MODEL: "${config.llm.embeddingModel}" is not a pinned embedding model; pinned in ${config.MODEL_REGISTRY_PATH}: ${known}`);
}

/** The errors whose message says it all: told as one line, without a stack. */
async function knownError(err: unknown): Promise<boolean> {
  if (err instanceof UsageError || err instanceof ConfigError || err instanceof CommandFailed) return true;
  // Loaded already if the error is one of theirs (the database was opened, a model called).
  const [{ DatabaseUnreachableError }, { DataDirInUseError }, { MigrationError }, { ModelCallError }] = await Promise.all([
    import('./bootstrap.js'),
    import('./db/data-dir-lock.js'),
    import('./db/migrate.js'),
    import('./llm/errors.js'),
  ]);
  // A model server's refusal (reembed) says what failed and what to check (its hint): the operator's to fix.
  return err instanceof DataDirInUseError || err instanceof MigrationError || err instanceof DatabaseUnreachableError || err instanceof ModelCallError;
}

main().then(
  (code) => exit(code),
  async (err: unknown) => {
    const known = await knownError(err);
    // Any other error (a database's, a model server's) is printed as a log line would carry it: no quoted values.
    const text = known ? (err as Error).message : (await import('./log-errors.js')).errorText(err, { stack: true });
    process.stderr.write(`talent-matcher: ${text}\n`);
    if (err instanceof UsageError) process.stderr.write(usage());
    await exit(err instanceof UsageError ? 2 : failureCode);
  },
);
