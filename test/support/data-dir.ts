// A migrated data directory on disk, for a child service whose test is not about the first boot: a copy of one built
// once from the migrated dump and cached. A new data directory costs the child an initdb and every migration (~7 s of
// CPU); a copy is a file copy, and the child's boot opens it as on any restart.
import { createHash } from 'node:crypto';
import { access, cp, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../src/db/database.js';
import { readMigrations } from '../../src/db/migrate.js';
import { migratedDump } from './database.js';

const CACHE_DIR = fileURLToPath(new URL('../../.test-cache/', import.meta.url));

async function templateDir(): Promise<string> {
  const checksums = (await readMigrations()).map((m) => m.checksum).join(',');
  const dir = path.join(CACHE_DIR, `datadir-${createHash('sha256').update(checksums).digest('hex').slice(0, 16)}`);
  if (await access(path.join(dir, 'pgdata', 'PG_VERSION')).then(() => true, () => false)) return dir;
  await mkdir(CACHE_DIR, { recursive: true });
  // Two test processes may build it at once: each builds its own, the first rename wins.
  const building = await mkdtemp(`${dir}.building-`);
  try {
    const db = await openDatabase({ dataDir: building, poolMax: 1, loadDataDir: await migratedDump() });
    await db.close();
    await rename(building, dir).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    });
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return dir;
}

/** A new directory holding a migrated, empty database (no organisation, no key); the caller removes it. */
export async function migratedDataDir(prefix = 'tm-migrated-'): Promise<string> {
  const template = await templateDir();
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  await cp(template, dir, { recursive: true });
  return dir;
}
