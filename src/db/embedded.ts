// The embedded PostgreSQL: PGlite with pgvector, served over the wire protocol on a private
// unix socket so that the one pg.Pool speaks to it exactly as it would to a real server.
import { mkdir, mkdtemp, open, readFile, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedServer {
  /** Directory holding the socket; pg connects with host = this directory. */
  socketDir: string;
  port: number;
  pglite: PGlite;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  /** A dumpDataDir() tarball to start from (tests: a migrated database in ~1 s instead of ~5 s). */
  loadDataDir?: Blob;
  maxConnections: number;
}

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
}

const SOCKET_PORT = 5432;

export async function startEmbedded(opts: EmbeddedOptions): Promise<EmbeddedServer> {
  const inMemory = opts.dataDir.startsWith('memory://');
  let releaseLock = async () => {};
  let pgDataDir: string | undefined;
  if (!inMemory) {
    await mkdir(opts.dataDir, { recursive: true });
    releaseLock = await lockDataDir(opts.dataDir);
    pgDataDir = path.join(opts.dataDir, 'pgdata');
  }
  try {
    const pglite = await PGlite.create({
      ...(pgDataDir ? { dataDir: pgDataDir } : {}),
      ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
      extensions: { vector },
    });
    // A private directory per process: a stale socket can never be someone else's.
    const socketDir = await mkdtemp(path.join(tmpdir(), 'talent-matcher-pg-'));
    const server = new PGLiteSocketServer({
      db: extendedProtocolAware(pglite),
      path: path.join(socketDir, `.s.PGSQL.${SOCKET_PORT}`),
      maxConnections: opts.maxConnections,
    });
    await server.start();
    return {
      socketDir,
      port: SOCKET_PORT,
      pglite,
      async stop() {
        await server.stop();
        await pglite.close();
        await rm(socketDir, { recursive: true, force: true });
        await releaseLock();
      },
    };
  } catch (err) {
    await releaseLock();
    throw err;
  }
}

// Wire-protocol message types that end an extended-protocol sequence (Sync), or stand alone (Query, Terminate).
const SEQUENCE_END = new Set(['S'.charCodeAt(0), 'Q'.charCodeAt(0), 'X'.charCodeAt(0)]);
const SEQUENCE_PART = new Set(['P', 'B', 'D', 'E', 'C', 'H', 'F'].map((c) => c.charCodeAt(0)));

/**
 * pglite-socket interleaves messages of different connections one by one, unless PGlite is inside
 * a transaction. The extended protocol (Parse, Bind, Execute ... Sync) is a sequence too: another
 * connection's Parse between our Parse and Bind replaces the unnamed statement ("bind message
 * supplies 5 parameters, but prepared statement requires 1"). So an open sequence is reported as
 * an open transaction, which makes the socket server serve that connection alone until its Sync.
 * A connection that dies mid-sequence is cleaned up by the server's ROLLBACK, which also ends it.
 */
function extendedProtocolAware(pglite: PGlite): PGlite {
  let sequenceOpen = false;
  return new Proxy(pglite, {
    get(target, prop) {
      if (prop === 'isInTransaction') return () => sequenceOpen || target.isInTransaction();
      if (prop === 'execProtocolRawStream') {
        return (message: Uint8Array, opts: Parameters<PGlite['execProtocolRawStream']>[1]) => {
          const type = message[0]!;
          if (SEQUENCE_PART.has(type)) sequenceOpen = true;
          else if (SEQUENCE_END.has(type)) sequenceOpen = false;
          return target.execProtocolRawStream(message, opts);
        };
      }
      if (prop === 'exec') {
        return async (query: string, opts?: Parameters<PGlite['exec']>[1]) => {
          if (/^\s*ROLLBACK\s*$/i.test(query)) {
            sequenceOpen = false;
            if (!target.isInTransaction()) return [];
          }
          return target.exec(query, opts);
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * PGlite is one process's database: a second process opening the same files would corrupt them.
 * A lock file with our pid guards the directory; a lock left by a dead process is taken over.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const lockPath = path.join(dataDir, 'talent-matcher.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return async () => {
        await unlink(lockPath).catch(() => {});
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number.parseInt(await readFile(lockPath, 'utf8').catch(() => ''), 10);
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw new DataDirInUseError(
          `the embedded database in ${dataDir} is in use by process ${owner}; ` +
            'stop that process first, or point DATABASE_URL at a shared PostgreSQL',
        );
      }
      await unlink(lockPath).catch(() => {});
    }
  }
  throw new DataDirInUseError(`could not lock ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
