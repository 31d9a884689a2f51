// The embedded PostgreSQL: PGlite with pgvector, served over the wire protocol on a private
// unix socket so that the one pg.Pool speaks to it exactly as it would to a real server.
// PGlite (WebAssembly) and its socket server run in a worker thread (embedded-thread.ts): every SQL
// statement executes there, on another core, and this thread only does the pg socket I/O.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { chmod, mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ConfigError, pathProblem } from '../config.js';
import { DataDirInUseError, lockDataDir } from './data-dir-lock.js';
import { createSocketDir } from './socket-dirs.js';
import { threadEntry } from './thread-entry.js';
import type { DumpCompression, ThreadData, ThreadMessage, ThreadRequest } from './embedded-thread.js';

export interface EmbeddedServer extends EventEmitter {
  /** Directory holding the socket; pg connects with host = this directory. */
  socketDir: string;
  port: number;
  /** The database files as a tarball's bytes, for loadDataDir (PGlite's dumpDataDir, run in the database thread). */
  dumpDataDir(compression?: DumpCompression): Promise<Uint8Array>;
  /** Milliseconds the database has spent executing wire-protocol messages (one at a time) since it started. */
  busyMs(): Promise<number>;
  /**
   * Stops the socket server, closes PGlite (a clean shutdown: the files are durable), ends the thread,
   * removes the socket directory and releases the data directory.
   */
  stop(): Promise<void>;
  /**
   * 'error': the database thread ended without stop() (PGlite crashed). Queries fail from then on; with no
   * listener the error is thrown, which ends the process, as a PGlite crash on the main thread would have.
   */
  on(event: 'error', listener: (err: Error) => void): this;
}

export interface EmbeddedOptions {
  dataDir: string;
  /**
   * The bytes of a dumpDataDir() tarball to start from (tests: a migrated database in ~1 s instead of ~5 s). Bytes,
   * not a Blob: Node 20 reads a Blob back in 64 KB chunks, ~0.4 s for the 41 MB of a migrated database.
   */
  loadDataDir?: Uint8Array;
  maxConnections: number;
}

const SOCKET_PORT = 5432;

export async function startEmbedded(opts: EmbeddedOptions): Promise<EmbeddedServer> {
  const inMemory = opts.dataDir.startsWith('memory://');
  let releaseLock = async () => {};
  let pgDataDir: string | undefined;
  if (!inMemory) {
    await privateDir(opts.dataDir);
    releaseLock = await lockDataDir(opts.dataDir).catch((err: unknown) => {
      if (err instanceof DataDirInUseError) throw err;
      throw new ConfigError(`DATA_DIR=${opts.dataDir} cannot hold the database: its lock file: ${pathProblem(err)}`);
    });
    pgDataDir = path.join(opts.dataDir, 'pgdata');
  }
  let socketDir: string | undefined;
  try {
    if (pgDataDir && !opts.loadDataDir) await initDataDirInChildProcess(pgDataDir, opts.dataDir);
    // A private directory per database: a stale socket can never be someone else's (socket-dirs.ts).
    socketDir = await createSocketDir();
    // A copy of the caller's bytes (a Buffer's slice() would share them), which the thread is given: transferred.
    const loadDataDir = opts.loadDataDir ? new Uint8Array(opts.loadDataDir).buffer : undefined;
    const thread = await DatabaseThread.start(
      {
        ...(pgDataDir ? { pgDataDir } : {}),
        ...(loadDataDir ? { loadDataDir } : {}),
        socketPath: path.join(socketDir, `.s.PGSQL.${SOCKET_PORT}`),
        maxConnections: opts.maxConnections,
      },
      loadDataDir ? [loadDataDir] : [],
    ).catch((err: unknown) => {
      // PGlite's own words for a damaged directory ("PGlite failed to initialize properly", "Aborted()") name neither
      // the directory nor what to do.
      if (!pgDataDir || opts.loadDataDir) throw err;
      throw new ConfigError(
        `DATA_DIR=${opts.dataDir} holds a database that cannot be opened (${err instanceof Error ? err.message : String(err)}): ` +
          "check that every file under it belongs to the service's user and is writable (a copy or restore made as root is not), " +
          'and if they are, restore it from a backup; do not start it empty unless its data is to be lost',
      );
    });
    const dir = socketDir;
    return Object.assign(thread, {
      socketDir: dir,
      port: SOCKET_PORT,
      async stop() {
        await thread.shutdown();
        await rm(dir, { recursive: true, force: true });
        await releaseLock();
      },
    });
  } catch (err) {
    if (socketDir) await rm(socketDir, { recursive: true, force: true });
    await releaseLock();
    throw err;
  }
}

/**
 * The worker running embedded-thread.ts (started from thread-entry.ts's URL), and the request/reply messages to it.
 */
class DatabaseThread extends EventEmitter {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private exited = false;
  private stopped: Promise<void> | undefined;
  private lastError: Error | undefined;

  private constructor(private readonly worker: Worker) {
    super();
  }

  static start(data: ThreadData, transfer: ArrayBuffer[]): Promise<DatabaseThread> {
    const worker = spawnThread(data, transfer);
    const thread = new DatabaseThread(worker);
    return new Promise((resolve, reject) => {
      let started = false;
      worker.on('message', (m: ThreadMessage) => {
        if (m.type === 'ready') {
          started = true;
          resolve(thread);
        } else if (m.type === 'failed') {
          // Rejected on exit, so that the data directory is released only once the thread is gone.
          thread.lastError = Object.assign(new Error(m.message), m.stack ? { stack: m.stack } : {});
          void worker.terminate();
        } else {
          const call = thread.pending.get(m.id);
          thread.pending.delete(m.id);
          if (m.ok) call?.resolve(m.value);
          else call?.reject(new Error(m.message));
        }
      });
      worker.on('error', (err) => {
        thread.lastError ??= err;
      });
      worker.on('exit', (code) => {
        thread.exited = true;
        const cause = thread.lastError;
        if (!started) {
          // PGlite failed to start (a corrupt data directory, a bad dump): its own message.
          reject(cause ?? new Error(`the embedded database thread exited with code ${code} before it was ready`));
          return;
        }
        const err = new Error(
          `the embedded database thread exited with code ${code}${cause ? `: ${cause.message}` : ''}`,
          cause ? { cause } : {},
        );
        for (const call of thread.pending.values()) call.reject(err);
        thread.pending.clear();
        if (!thread.stopped) thread.emit('error', err);
      });
    });
  }

  private call(req: Omit<ThreadRequest, 'id'>): Promise<unknown> {
    if (this.exited) return Promise.reject(new Error('the embedded database thread is not running'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...req, id });
    });
  }

  async dumpDataDir(compression?: DumpCompression): Promise<Uint8Array> {
    return new Uint8Array((await this.call({ op: 'dumpDataDir', ...(compression ? { compression } : {}) })) as ArrayBuffer);
  }

  async busyMs(): Promise<number> {
    return (await this.call({ op: 'busyMs' })) as number;
  }

  /** Asks the thread to stop the server and close PGlite, then ends it; once, however often it is called. */
  shutdown(): Promise<void> {
    this.stopped ??= (async () => {
      if (this.exited) return;
      try {
        await this.call({ op: 'stop' });
      } finally {
        await this.worker.terminate();
      }
    })();
    return this.stopped;
  }
}

/**
 * The database thread's young generation is capped at 8 MB (V8's default lets it grow to 3 x 16 MB): the thread
 * keeps little JavaScript alive, only short-lived wire-protocol buffers, and a full young generation is resident.
 * Measured with bench concurrent (twenty runs at once): the other-anonymous share of RSS after the runs went from
 * 138-145 to ~129 MB, peak RSS from 358-381 to 347-354 MB, model calls/s unchanged (119-130).
 */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 8 };

function spawnThread(data: ThreadData, transfer: ArrayBuffer[]): Worker {
  // No execArgv: under tsx the process's --import tsx would load tsx's loader into the thread, which needs none.
  return new Worker(threadEntry(), { workerData: data, transferList: transfer, resourceLimits: THREAD_LIMITS, execArgv: [] });
}

/**
 * The data directory, made private to the service's user as PostgreSQL requires of its own (0700): the database writes
 * its files readable and writable by everyone (its write-ahead log holds every row written, raw resumes and contact
 * details included), and only the directory's mode keeps other local users out. One that exists is made private too;
 * one the service does not own (and so cannot chmod) is left as it is.
 */
async function privateDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPERM') throw err;
    });
  } catch (err) {
    // The operator's to fix, in one line naming the variable: not a stack trace around "EEXIST: mkdir".
    throw new ConfigError(`DATA_DIR=${dir} cannot hold the database: ${pathProblem(err)}`);
  }
}

/**
 * A new data directory is initialised (initdb) by a short-lived child process, and the database thread then opens
 * it as on any restart. initdb in this process left ~100 MB of freed memory resident for the process's lifetime:
 * PGlite runs it in a second WebAssembly instance, and what that instance and its compiled code allocated through
 * malloc is freed in holes that glibc does not give back. Measured with the service idle after a first start: RSS
 * 376-431 MB with initdb in process, 279-296 MB with it in a child (peak 810-850 MB vs ~300 MB); a restart: ~260 MB.
 * initdb writes into a directory beside pgdata, renamed pgdata once complete: an initdb cut short leaves no pgdata,
 * and a pgdata that holds files but no PG_VERSION is a damaged database (a partial restore, a copy that lost a file),
 * which initdb over it would replace with an empty one, so it is refused.
 */
async function initDataDirInChildProcess(pgDataDir: string, dataDir: string): Promise<void> {
  const unusable = (what: string, err: unknown) => new ConfigError(`DATA_DIR=${dataDir} cannot hold the database: ${what}: ${pathProblem(err)}`);
  const version = await stat(path.join(pgDataDir, 'PG_VERSION')).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false;
      throw unusable(`${pgDataDir} cannot be read`, err);
    },
  );
  if (version) return;
  const entries = await readdir(pgDataDir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw unusable(`${pgDataDir} cannot be read`, err);
  });
  if (entries.length > 0) {
    throw new ConfigError(
      `DATA_DIR=${dataDir} holds a damaged database: ${pgDataDir} has ${entries.length} entries but no PG_VERSION (a partial restore, or a copy that lost files); ` +
        'it is not initialised over: restore it from a backup, or move it aside to start empty',
    );
  }
  const making = `${pgDataDir}.initdb`;
  await rm(making, { recursive: true, force: true });
  await mkdir(making, { recursive: true, mode: 0o700 }).catch((err: unknown) => {
    throw unusable(`${making} cannot be made`, err);
  });
  const pglite = import.meta.resolve('@electric-sql/pglite');
  const script = `const { PGlite } = await import(${JSON.stringify(pglite)}); const db = await PGlite.create({ dataDir: process.argv[1] }); await db.close();`;
  // --liftoff-only: the child lives seconds, which V8's background optimisation of PGlite's WebAssembly never pays
  // back (measured: initdb in 4.5-5.3 s and 5.5-6.4 CPU-seconds with it, 5.1-6.5 s and 7.9-10.0 without).
  const child = spawn(process.execPath, ['--liftoff-only', '--input-type=module', '--eval', script, making], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (c) => resolve(c));
  });
  if (code !== 0) throw new Error(`initdb in DATA_DIR=${dataDir} failed (exit ${code}; a full disk or a directory the service cannot write?): ${stderr.trim()}`);
  // An empty pgdata (made by hand, or by a release that initialised in place) gives way to the complete one.
  await rmdir(pgDataDir).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
  await rename(making, pgDataDir);
}
