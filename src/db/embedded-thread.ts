// The embedded database's own thread: PGlite (WebAssembly) and its wire-protocol socket server run here, so that
// SQL executes on another core and the main thread only does pg socket I/O. Started by embedded.ts, nothing else.
import v8 from 'node:v8';
import vm from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { extendedProtocolAware } from './extended-protocol.js';
import { oneReadBlob } from './one-read-blob.js';

export interface ThreadData {
  /** Where PGlite keeps its files; unset: in memory. */
  pgDataDir?: string;
  /** The bytes of a dumpDataDir() tarball to start from (transferred, not copied). */
  loadDataDir?: ArrayBuffer;
  socketPath: string;
  maxConnections: number;
}

export type DumpCompression = 'auto' | 'gzip' | 'none';

export type ThreadRequest =
  | { id: number; op: 'dumpDataDir'; compression?: DumpCompression }
  | { id: number; op: 'busyMs' }
  | { id: number; op: 'stop' };

export type ThreadMessage =
  | { type: 'ready' }
  | { type: 'failed'; message: string; stack?: string }
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; message: string };

/**
 * PostgreSQL's default shared_buffers (128MB) grows PGlite's WebAssembly memory from its 128MB floor to ~190MB at
 * start, and the buffers fill as the database is used; WebAssembly memory never shrinks, so it all stays resident.
 * Measured with pgvector and the migrated dump (2000 rows of vector(512), HNSW, GIN): RSS after start 455 -> 413 MB,
 * after the inserts and an HNSW build 575 -> 430 MB. Pages that miss are read back from the data files, which are
 * in memory (memory://) or in the OS page cache. work_mem, wal_buffers, temp_buffers, maintenance_work_mem and WAL
 * sizes made no difference beyond noise (a few MB); initialMemory cannot go below the module's 128MB.
 */
const MEMORY_PARAMS = ['-c', 'shared_buffers=32MB'];

/**
 * The write-ahead log's segments (16 MB each). A new segment is zero-filled by default, and PGlite's in-memory file
 * system grows a file by 12.5 % per write past its end, copying it each time: the statement that crossed into a new
 * segment waited 23-235 ms for it (median 166 ms, 30 segments, memory://), and in `bench pipeline` one run in two met
 * one (a step's transition of 130-190 ms, idle share 9.4-13.3 % against 7.3-7.9 % without, four alternated pairs).
 * wal_init_zero=off only sets the new file's length. Segments are recycled instead of created once a checkpoint has
 * passed them (embedded-upkeep.ts): max_wal_size bounds how many are kept for that (PostgreSQL keeps up to max_wal_size of
 * log after a checkpoint; 1 GB by default, in memory for a memory:// database), min_wal_size how few.
 */
const WAL_PARAMS = ['-c', 'wal_init_zero=off', '-c', 'max_wal_size=64MB', '-c', 'min_wal_size=32MB'];

const START_PARAMS = [...PGlite.defaultStartParams, ...MEMORY_PARAMS, ...WAL_PARAMS];

/**
 * One full garbage collection, once the database is up. Starting leaves large dead buffers behind: on a new data
 * directory the whole initdb PGlite (its WebAssembly memory), with a dump the tarball's copies. This thread allocates
 * little JavaScript afterwards, so V8 would not collect them for a long time: measured on a first start, RSS stayed
 * at ~800 MB instead of ~430 MB; with a dump in memory, ~525 instead of ~470 MB. There is no gc() without
 * --expose-gc: the flag is set for a moment and gc is taken from a new context, as jest-leak-detector does.
 */
function collectStartupGarbage(): void {
  try {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed) return exposed();
    v8.setFlagsFromString('--expose-gc');
    (vm.runInNewContext('gc') as () => void)();
    v8.setFlagsFromString('--no-expose-gc');
  } catch {
    // Only memory is at stake.
  }
}

async function main(port: NonNullable<typeof parentPort>, data: ThreadData): Promise<void> {
  const post = (message: ThreadMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
  let pglite: PGlite | undefined;
  let server: PGLiteSocketServer | undefined;
  const busy = { ms: 0 };
  let stopping = false;
  // workerData lives as long as the thread: it must not keep the bytes, and neither may the PGlite options.
  const loadDataDir = data.loadDataDir ? oneReadBlob(data.loadDataDir) : undefined;
  delete data.loadDataDir;
  try {
    pglite = await PGlite.create({
      ...(data.pgDataDir ? { dataDir: data.pgDataDir } : {}),
      ...(loadDataDir ? { loadDataDir } : {}),
      extensions: { vector },
      startParams: START_PARAMS,
    });
    // A message PGlite threw on instead of answering leaves it unusable (extended-protocol.ts): the thread reports it
    // as a failure and ends, and the process with it, rather than serve a database whose queue never moves again.
    const onFailure = (err: unknown) => {
      if (stopping) return;
      const e = err instanceof Error ? err : new Error(String(err));
      post({ type: 'failed', message: `the database failed: ${e.message}`, ...(e.stack ? { stack: e.stack } : {}) });
    };
    server = new PGLiteSocketServer({
      db: extendedProtocolAware(pglite, busy, onFailure),
      path: data.socketPath,
      maxConnections: data.maxConnections,
    });
    await server.start();
  } catch (err) {
    await pglite?.close().catch(() => {});
    const e = err instanceof Error ? err : new Error(String(err));
    post({ type: 'failed', message: e.message, ...(e.stack ? { stack: e.stack } : {}) });
    return;
  }
  const db = pglite;
  const socketServer = server;

  port.on('message', (req: ThreadRequest) => {
    const answer = async (): Promise<[unknown, ArrayBuffer[]]> => {
      switch (req.op) {
        case 'busyMs':
          return [busy.ms, []];
        case 'dumpDataDir': {
          const bytes = await (await db.dumpDataDir(req.compression)).arrayBuffer();
          return [bytes, [bytes]];
        }
        case 'stop':
          stopping = true;
          await socketServer.stop();
          await db.close();
          return [null, []];
        default:
          throw new Error(`unknown request ${JSON.stringify((req as { op?: unknown }).op)}`);
      }
    };
    answer().then(
      ([value, transfer]) => post({ type: 'reply', id: req.id, ok: true, value }, transfer),
      (err: unknown) => post({ type: 'reply', id: req.id, ok: false, message: err instanceof Error ? err.message : String(err) }),
    );
  });
  collectStartupGarbage();
  post({ type: 'ready' });
}

if (!parentPort) throw new Error('embedded-thread is a worker_threads entry: start it with startEmbedded()');
await main(parentPort, workerData as ThreadData);
