// The private directories that hold the embedded database's unix socket, one per database a process starts. A process
// that is killed cannot remove its own, so each start removes those of processes that are gone.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { processExists } from './data-dir-lock.js';

const PREFIX = 'talent-matcher-pg-';
// The owner's pid is in the name: talent-matcher-pg-<pid>-<random>.
const OWNED = new RegExp(`^${PREFIX}(\\d+)-`);

/**
 * The longest socket path a unix socket takes (sun_path holds 108 bytes with its NUL on Linux, 104 on macOS): a longer
 * one was cut short silently and bound outside its private directory, and left behind at exit.
 */
const MAX_SOCKET_PATH = 103;
/** The socket file's name in its directory, with the random part mkdtemp adds to the directory's. */
const SOCKET_NAME_LENGTH = '/XXXXXX/.s.PGSQL.5432'.length;

/**
 * A new socket directory named after this process, once the directories of processes that are gone are removed. Under
 * the system's temporary directory, or under /tmp when that one's path leaves no room for the socket's.
 */
export async function createSocketDir(parent = tmpdir()): Promise<string> {
  const base = path.join(parent, `${PREFIX}${process.pid}-`);
  if (Buffer.byteLength(base) + SOCKET_NAME_LENGTH > MAX_SOCKET_PATH && parent !== '/tmp') return createSocketDir('/tmp');
  await removeStaleSocketDirs(parent);
  return mkdtemp(base);
}

/**
 * Removes the socket directories whose process is gone. Never this process's own (it may run several databases, as
 * tests do), nor one whose pid is alive or not ours to signal; a pid reused since only keeps a directory a while longer.
 */
export async function removeStaleSocketDirs(parent = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(parent).catch(() => [])) {
    const pid = Number(OWNED.exec(name)?.[1] ?? NaN);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || processExists(pid)) continue;
    await rm(path.join(parent, name), { recursive: true, force: true }).catch(() => {});
    removed.push(name);
  }
  return removed;
}
