// A PostgreSQL a test can take away and bring back: a migrated PGlite served over a unix socket by pglite-socket, in
// the test's own process, whose server stops (every connection closed, as a restart closes them) and starts again.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { extendedProtocolAware } from '../../src/db/extended-protocol.js';
import { oneReadBlob } from '../../src/db/one-read-blob.js';
import { migratedDump } from './database.js';

export interface RestartableDatabase {
  /** DATABASE_URL for the service: the server is reached as a PostgreSQL server, not as the embedded database. */
  url: string;
  /** Closes the server and every connection to it; the data stays. */
  stop(): Promise<void>;
  /** Serves the same data again, on the same socket. */
  start(): Promise<void>;
  /** SQL straight on the database, bypassing the socket (to look at what the service wrote while it was away). */
  pglite: PGlite;
  close(): Promise<void>;
}

export async function startRestartableDatabase(): Promise<RestartableDatabase> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tm-restartable-'));
  const pglite = await PGlite.create({ loadDataDir: oneReadBlob(new Uint8Array(await migratedDump()).buffer), extensions: { vector } });
  const shared = extendedProtocolAware(pglite, { ms: 0 });
  let server: PGLiteSocketServer | null = null;
  const start = async () => {
    server = new PGLiteSocketServer({ db: shared, path: path.join(dir, '.s.PGSQL.5432'), maxConnections: 50 });
    await server.start();
  };
  const stop = async () => {
    await server?.stop();
    server = null;
  };
  await start();
  return {
    url: `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir)}`,
    start,
    stop,
    pglite,
    async close() {
      await stop();
      await pglite.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
