// The service's entry point: read config, start API and/or worker, and shut down gracefully on signals.
import closeWithGrace from 'close-with-grace';
import { ConfigError, loadConfig } from './config.js';
import { DataDirInUseError } from './db/embedded.js';
import { MigrationError } from './db/migrate.js';
import { startRuntime } from './runtime.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const runtime = await startRuntime(config);
  const { app, logger } = runtime;
  if (app) {
    await app.listen({ port: config.PORT, host: config.HOST });
  }
  logger.info(
    { role: config.PROCESS_ROLE, engine: config.engine, database: runtime.db.kind, embeddings: config.EMBEDDINGS },
    'talent-matcher started',
  );
  // SIGTERM/SIGINT: answer 503 to new requests, let in-flight steps finish, hand back the rest, exit 0.
  closeWithGrace({ delay: config.SHUTDOWN_GRACE_MS + 5_000 }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an uncaught error');
    else logger.info({ signal }, 'shutting down');
    await runtime.close();
  });
}

main().catch((err: unknown) => {
  // Boot failures that a person can fix get their message alone, not a stack trace.
  if (err instanceof ConfigError || err instanceof DataDirInUseError || err instanceof MigrationError) {
    process.stderr.write(`talent-matcher: ${err.message}\n`);
  } else {
    process.stderr.write(`talent-matcher: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
  process.exit(1);
});
