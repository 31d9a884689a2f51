// Operator commands: migrate, create-api-key, revoke-api-key (more join as the service grows).
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createApiKeyStore } from './auth/api-keys.js';
import { createEmbedder, openMigratedDatabase } from './bootstrap.js';
import { reembed } from './embeddings/reembed.js';
import { createUsageStore } from './usage/usage-store.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { DataDirInUseError } from './db/embedded.js';
import type { Database } from './db/database.js';
import { MigrationError } from './db/migrate.js';

type Command = (db: Database, args: Record<string, string | undefined>, config: Config) => Promise<void>;

class UsageError extends Error {}

function required(args: Record<string, string | undefined>, name: string): string {
  const v = args[name];
  if (!v) throw new UsageError(`--${name} is required`);
  return v;
}

const COMMANDS: Record<string, { usage: string; run: Command }> = {
  migrate: {
    usage: 'migrate                         apply pending migrations and exit',
    run: async () => {
      process.stdout.write('migrations are up to date\n');
    },
  },
  'create-api-key': {
    usage: 'create-api-key --org NAME       create the organisation if needed and print a new key (last line)',
    run: async (db, args) => {
      const { key, prefix } = await createApiKeyStore(db).create(required(args, 'org'));
      process.stdout.write(`created key with prefix ${prefix} for organisation ${args.org}\n${key}\n`);
    },
  },
  reembed: {
    usage: 'reembed [--batch N]              embed candidates lacking a current vector of the configured model (resumable)',
    run: async (db, args, config) => {
      const batch = Number(args.batch ?? 200);
      if (!Number.isInteger(batch) || batch < 1 || batch > 5000) throw new UsageError('--batch must be a whole number from 1 to 5000');
      const embedder = createEmbedder(config, { usage: createUsageStore(db) });
      const done = await reembed(db, embedder, {
        batch,
        onProgress: (p) => process.stderr.write(`embedded ${p.embedded}, ${p.remaining} to go\n`),
      });
      process.stdout.write(`re-embedded ${done} candidates with ${embedder.model}\n`);
    },
  },
  'revoke-api-key': {
    usage: 'revoke-api-key --prefix PREFIX  revoke a key; it stops working on the next request',
    run: async (db, args) => {
      const prefix = required(args, 'prefix');
      if (!(await createApiKeyStore(db).revoke(prefix))) throw new UsageError(`no active key with prefix ${prefix}`);
      process.stdout.write(`revoked key ${prefix}\n`);
    },
  },
};

function usage(): string {
  return `usage: npm run cli -- <command> [options]\n\n${Object.values(COMMANDS).map((c) => `  ${c.usage}`).join('\n')}\n`;
}

async function main(): Promise<number> {
  const [name, ...rest] = process.argv.slice(2);
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(name ? `unknown command "${name}"\n${usage()}` : usage());
    return 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: { org: { type: 'string' }, prefix: { type: 'string' }, id: { type: 'string' }, role: { type: 'string' }, batch: { type: 'string' }, days: { type: 'string' } },
    strict: true,
  });
  const config = loadConfig();
  // Logs go to stderr so that stdout carries only the command's answer.
  const logger = pino({ level: config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL }, pino.destination(2));
  const db = await openMigratedDatabase(config, logger);
  try {
    await command.run(db, values as Record<string, string | undefined>, config);
    return 0;
  } finally {
    await db.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const known = err instanceof UsageError || err instanceof ConfigError || err instanceof DataDirInUseError || err instanceof MigrationError;
    process.stderr.write(`talent-matcher: ${known ? (err as Error).message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    if (err instanceof UsageError) process.stderr.write(usage());
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
