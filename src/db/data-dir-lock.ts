// PGlite is one process's database: a second process opening the same files would corrupt them. A lock file holding
// the owner's pid (and, on Linux, when that process started) guards the data directory; a lock left by a process that
// is gone is taken over, also when another process has since been given its pid.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, open, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
}

export const LOCK_FILE = 'talent-matcher.lock';

/**
 * The data directories this process holds. The lock file alone cannot tell this process from an earlier one that
 * had the same pid: in a container the service is pid 1 at every start, so a lock naming our pid that we do not
 * hold was left by a killed predecessor.
 */
const held = new Set<string>();

/** Locks dataDir for this process; resolves to the release. Throws DataDirInUseError while another process holds it. */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const dir = path.resolve(dataDir);
  const lockPath = path.join(dir, LOCK_FILE);
  if (held.has(dir)) throw inUse(dataDir, process.pid);
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await createWithPid(lockPath)) {
      held.add(dir);
      return async () => {
        held.delete(dir);
        await unlink(lockPath).catch(() => {});
      };
    }
    const owner = await ownerOf(lockPath);
    if (owner === undefined) continue; // released meanwhile: try again
    if (isRunning(owner)) throw inUse(dataDir, owner.pid);
    await removeStale(lockPath, owner);
  }
  throw new DataDirInUseError(`could not lock ${dataDir}: its lock file ${lockPath} keeps changing`);
}

function inUse(dataDir: string, owner: number): DataDirInUseError {
  return new DataDirInUseError(
    `the embedded database in ${dataDir} is in use by process ${owner}; ` +
      'stop that process first, or point DATABASE_URL at a shared PostgreSQL',
  );
}

/**
 * Creates the file with our pid in it, at once: the pid is written to a file of our own, which is then linked under
 * the lock's name (a link fails if the name exists). Created empty and written afterwards, a lock another starter
 * read in between twice looked left empty by a crash and was taken over while its owner was starting. False if the
 * file exists. Where hard links are not to be had, the file is created exclusively and then written.
 */
async function createWithPid(file: string): Promise<boolean> {
  const own = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  await writeFile(own, OWN_IDENTITY, { flag: 'wx' });
  try {
    await link(own, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (!NO_HARD_LINKS.has(code ?? '')) throw err;
  } finally {
    await unlink(own).catch(() => {});
  }
  return createThenWrite(file);
}

// What link() answers on a file system without hard links.
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

async function createThenWrite(file: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    await handle.writeFile(OWN_IDENTITY);
  } catch (err) {
    await handle.close();
    await unlink(file).catch(() => {});
    throw err;
  }
  await handle.close();
  return true;
}

/** Who a lock file names: a pid, and when that process started if the writer could tell (see startOf). */
interface Owner {
  pid: number;
  started: string | null;
}

/**
 * When a process started, as the kernel tells it: the boot's id and the start time in clock ticks (/proc/PID/stat,
 * field 22). Two processes given one pid in turn differ in it. Null where /proc is not to be read (not Linux).
 */
export function startOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name, in parentheses, may hold spaces and parentheses itself: fields are counted after the last.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = fields[19];
    return ticks ? `${BOOT_ID}:${ticks}` : null;
  } catch {
    return null;
  }
}

const BOOT_ID = (() => {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'boot';
  }
})();

/** What this process writes in a lock: its pid, and when it started. */
const OWN_IDENTITY = [process.pid, startOf(process.pid)].filter((x) => x !== null).join(' ');

/**
 * Who a lock file names; undefined if there is no such file; pid 0 if it names none. Where the file is created
 * before the pid is written into it (no hard links), an empty one is read again after a moment before it counts as
 * left empty by a crash. A lock of an earlier release holds the pid alone.
 */
async function ownerOf(file: string): Promise<Owner | undefined> {
  for (let read = 0; ; read++) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const [pidText, started] = text.trim().split(/\s+/);
    const pid = Number.parseInt(pidText ?? '', 10);
    if (Number.isInteger(pid) && pid > 0) return { pid, started: started ?? null };
    if (read > 0) return { pid: 0, started: null };
    await sleep(50);
  }
}

/** Whether a process with this pid exists (one we may not signal counts: it is someone's). */
export function processExists(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Another process holds what names it: its pid is alive, and (where the lock says when its owner started) is the same
 * process, not one given the pid since. One naming our own pid was left by a predecessor (see `held`).
 */
function isRunning(owner: Owner): boolean {
  if (owner.pid === process.pid || !processExists(owner.pid)) return false;
  if (owner.started === null) return true;
  const now = startOf(owner.pid);
  return now === null || now === owner.started;
}

/**
 * Removes a lock whose owner is gone, unless it changed meanwhile. Processes that found the same stale lock at once
 * would otherwise each remove it and create their own, one of them removing the lock another had just taken, and
 * both would open the files. A guard file makes takeovers take turns, each checking inside that the lock is still
 * the stale one. A guard is held for a few file operations; one whose process is gone was left by a kill in between.
 */
async function removeStale(lockPath: string, staleOwner: Owner): Promise<void> {
  const guard = `${lockPath}.takeover`;
  if (!(await createWithPid(guard))) {
    const guardOwner = await ownerOf(guard);
    if (guardOwner !== undefined && isRunning(guardOwner)) await sleep(10);
    else if (guardOwner !== undefined) await unlink(guard).catch(() => {});
    return;
  }
  try {
    const now = await ownerOf(lockPath);
    if (now !== undefined && now.pid === staleOwner.pid && now.started === staleOwner.started) await unlink(lockPath);
  } finally {
    await unlink(guard).catch(() => {});
  }
}
