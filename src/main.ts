// The service's entry point: read config, start API and/or worker, and shut down gracefully on signals.
import v8 from 'node:v8';
import closeWithGrace from 'close-with-grace';
import { ConfigError, loadConfig } from './config.js';
import { DatabaseUnreachableError } from './bootstrap.js';
import { DataDirInUseError } from './db/data-dir-lock.js';
import { MigrationError } from './db/migrate.js';
import { errorText } from './log-errors.js';
import { startRuntime } from './runtime.js';

/**
 * After each full collection V8 lets a heap grow by a factor it picks from the allocation rate, up to 4x what is
 * live. Under load (bench concurrent: twenty runs at once) the main thread's old space grew to ~120 MB for 40-65 MB
 * of live objects. A fixed 1.2x keeps it near what is live, for more frequent full collections (mostly concurrent,
 * on helper threads). The flag is process-wide (the database thread's heap too) and read at each collection, so
 * setting it here, once the process runs, still applies. A value given on the command line or in NODE_OPTIONS wins.
 */
const HEAP_GROWING_PERCENT = 20;

/** The signals that stop the service gracefully; a second one while it drains ends it at once (exit 1). */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
/** A repeat of the first signal within this long is the same request (see main). */
const SAME_REQUEST_MS = 1_000;

class ListenError extends Error {
  override name = 'ListenError';
}

function boundHeapGrowth(): void {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => /^--heap[-_]growing[-_]percent/.test(a));
  if (!given) v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/**
 * Whether this start generated the first key. It is printed at once (held back, it would be lost to a signal or a
 * crash before the process listens, and the next start makes none); a boot that then fails says the key stays valid.
 */
let keyCreated = false;

async function main(): Promise<void> {
  boundHeapGrowth();
  const config = loadConfig();
  const starting = startRuntime(config, {
    print: (line) => {
      keyCreated = true;
      process.stdout.write(`${line}\n`);
    },
  });
  // SIGTERM/SIGINT: answer 503 to new requests, let in-flight steps finish, hand back the rest, exit 0. Listened for
  // from the start: a signal while the database initialises or migrates, or once the worker has claimed a run but
  // before the server listens, waits for the start to end and then shuts down as after it (it killed the process,
  // with exit 143, its claimed run left to its lease and the initdb child orphaned).
  let stopping = false;
  let first: { signal: NodeJS.Signals; at: number } | null = null;
  // SIGINT and SIGTERM are ours (below); close-with-grace keeps the other signals, uncaught errors and the deadline.
  const grace = closeWithGrace({ delay: config.SHUTDOWN_GRACE_MS + 5_000, skip: [...STOP_SIGNALS] }, async ({ signal, err }) => {
    stopping = true;
    const started = await starting.catch(() => null);
    if (!started) return;
    if (err) started.logger.error({ err }, 'shutting down after an uncaught error');
    else started.logger.info({ signal: signal ?? first?.signal }, 'shutting down');
    await started.close();
  });
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      if (!first) {
        first = { signal, at: performance.now() };
        void grace.close();
        return;
      }
      // Ctrl-C signals the terminal's whole process group, npm and the service both, and npm passes its own on: the
      // same signal a moment later is the same request, not an impatient second one (it ended every Ctrl-C'd start
      // at once, with exit 1 and its runs left to their leases).
      if (signal === first.signal && performance.now() - first.at < SAME_REQUEST_MS) return;
      process.stderr.write(`second ${signal}, exiting\n`);
      process.exit(1);
    });
  }
  const runtime = await starting;
  if (stopping) return;
  const { app, logger } = runtime;
  // Every role listens: a worker serves /healthz, /readyz and /metrics. With PORT=0 the system picks the port, and
  // the line below says which (`address`).
  const address = await app.listen({ port: config.PORT, host: config.HOST }).catch(async (err: unknown) => {
    // A run the worker claimed meanwhile is handed back; the database closed (and its lock released) before exiting.
    await runtime.close().catch(() => {});
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || code === 'EACCES') {
      throw new ListenError(`cannot listen on ${config.HOST}:${config.PORT} (${code}); every process, a worker too, serves HTTP: give each on a host its own PORT, or PORT=0 for any free one`);
    }
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      throw new ListenError(`cannot listen on ${config.HOST}:${config.PORT} (${code}): HOST names no address of this machine; use an address (0.0.0.0, 127.0.0.1, ::) or a name that resolves to one`);
    }
    throw err;
  });
  logger.info(
    { role: config.PROCESS_ROLE, engine: config.engine, database: runtime.db.kind, embeddings: config.EMBEDDINGS, address },
    'talent-matcher started',
  );
  // A port the system chose is said whatever LOG_LEVEL hides: a plain line, as the first key is.
  if (config.PORT === 0) process.stdout.write(`talent-matcher listening on ${address}\n`);
  // No other process can open the embedded database (its directory is locked): an api process's runs would wait for a
  // worker that cannot come, and a worker would drive a database of its own.
  if (!config.DATABASE_URL && config.PROCESS_ROLE !== 'all') {
    logger.warn({ role: config.PROCESS_ROLE }, `PROCESS_ROLE=${config.PROCESS_ROLE} on the embedded database: no other process can share it, so ${config.PROCESS_ROLE === 'api' ? 'runs will wait for a worker that cannot come' : 'this worker drives a database of its own'}; set DATABASE_URL (docs/operations.md, Scaling out) or PROCESS_ROLE=all`);
  }
}

main().catch((err: unknown) => {
  const keyKept = keyCreated ? ' (the API key this start created, printed above, stays valid)' : '';
  // Boot failures that a person can fix get their message alone, not a stack trace.
  if (
    err instanceof ConfigError ||
    err instanceof DataDirInUseError ||
    err instanceof MigrationError ||
    err instanceof ListenError ||
    err instanceof DatabaseUnreachableError
  ) {
    process.stderr.write(`talent-matcher: ${err.message}${keyKept}\n`);
  } else {
    process.stderr.write(`talent-matcher: failed to start${keyKept}: ${errorText(err, { stack: true })}\n`);
  }
  process.exit(1);
});
