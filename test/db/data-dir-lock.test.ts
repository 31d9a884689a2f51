// The lock that keeps a second process off the embedded database's files.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { DataDirInUseError, LOCK_FILE, lockDataDir, startOf } from '../../src/db/data-dir-lock.js';

/** What this process writes in a lock: its pid, and when it started (on Linux). */
const OWN = [process.pid, startOf(process.pid)].filter((x) => x !== null).join(' ');

let root: string;
before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tm-lock-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

test('held by this process: a second lock is refused until the first is released', async () => {
  const dir = await mkdtemp(path.join(root, 'own-'));
  const release = await lockDataDir(dir);
  assert.equal(await readFile(path.join(dir, LOCK_FILE), 'utf8'), OWN);
  await assert.rejects(lockDataDir(dir), DataDirInUseError);
  await release();
  await (await lockDataDir(dir))();
});

test('a lock naming a running process is refused with its pid; one naming a process that is gone is taken over', async () => {
  const dir = await mkdtemp(path.join(root, 'other-'));
  await writeFile(path.join(dir, LOCK_FILE), String(process.ppid));
  await assert.rejects(lockDataDir(dir), new RegExp(`in use by process ${process.ppid}`));
  for (const stale of [String(await deadPid()), '']) {
    await writeFile(path.join(dir, LOCK_FILE), stale);
    const release = await lockDataDir(dir);
    assert.equal(await readFile(path.join(dir, LOCK_FILE), 'utf8'), OWN);
    await release();
  }
});

test('a lock naming a live pid that another process has been given since (an unclean reboot, a crash) is taken over', { skip: startOf(process.pid) === null && 'no /proc here' }, async () => {
  const dir = await mkdtemp(path.join(root, 'reused-'));
  // The parent is alive; the lock says its owner started at another time, so the parent is not its owner.
  await writeFile(path.join(dir, LOCK_FILE), `${process.ppid} ${startOf(process.ppid)}0`);
  await (await lockDataDir(dir))();
  // Named with when the parent really started, the lock is the parent's.
  await writeFile(path.join(dir, LOCK_FILE), `${process.ppid} ${startOf(process.ppid)}`);
  await assert.rejects(lockDataDir(dir), new RegExp(`in use by process ${process.ppid}`));
});

// In a container the service is pid 1 at every start: a killed one's lock names the pid its successor has.
test('a lock naming our own pid that this process does not hold was left by an earlier process: taken over', async () => {
  const dir = await mkdtemp(path.join(root, 'pid1-'));
  await writeFile(path.join(dir, LOCK_FILE), String(process.pid));
  await (await lockDataDir(dir))();
});

// Each racer waits for the start time on stdin, then tries one data directory per round, 40 ms apart, and keeps
// what it got until the parent closes its stdin, once every racer has reported: a lock taken in a round is held while
// the others try, however late a loaded machine runs them (a racer that exited on a timer of its own could leave a
// lock behind it, dead, for a late one to take over).
const RACER = `
const { lockDataDir } = await import(process.argv[1]);
const dirs = JSON.parse(process.argv[2]);
process.stdout.write('ready\\n');
const stdin = process.stdin[Symbol.asyncIterator]();
let input = '';
while (!input.includes('\\n')) input += (await stdin.next()).value ?? '\\n';
const at = Number(input.trim());
const got = [];
for (const [round, dir] of dirs.entries()) {
  while (Date.now() < at + round * 40) {}
  got.push(await lockDataDir(dir).then(() => true, (err) => (err.name === 'DataDirInUseError' ? false : String(err))));
}
process.stdout.write(JSON.stringify(got) + '\\n');
while (!(await stdin.next()).done) {}
process.exit(0);
`;

test('processes that find the same stale lock at once: exactly one of them takes it over', async () => {
  const rounds = 10;
  const dirs: string[] = [];
  for (let i = 0; i < rounds; i++) {
    const dir = await mkdtemp(path.join(root, `race-${i}-`));
    await writeFile(path.join(dir, LOCK_FILE), String(await deadPid()));
    dirs.push(dir);
  }
  const module = new URL('../../src/db/data-dir-lock.ts', import.meta.url).href;
  const racers = Array.from({ length: 8 }, () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', RACER, module, JSON.stringify(dirs)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const line = (n: number) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          const lines = out.split('\n');
          if (lines.length > n + 1) resolve(lines[n]!);
        };
        child.stdout.on('data', check);
        check();
        void exited.then((code) => reject(new Error(`racer exited ${code}: ${out}`)));
      });
    return { child, ready: line(0), result: line(1).then((l) => JSON.parse(l) as boolean[]), exited };
  });
  await Promise.all(racers.map((r) => r.ready));
  const at = Date.now() + 100;
  for (const r of racers) r.child.stdin.write(`${at}\n`);
  // Every racer has tried every round before any lets go of what it took.
  const results = await Promise.all(racers.map((r) => r.result));
  for (const r of racers) r.child.stdin.end();
  assert.deepEqual(await Promise.all(racers.map((r) => r.exited)), racers.map(() => 0));
  for (let round = 0; round < rounds; round++) {
    const holders = results.filter((got) => got[round] === true).length;
    assert.equal(holders, 1, `round ${round}: ${JSON.stringify(results.map((got) => got[round]))}`);
  }
});

test('the lock is made with its pid already in it (linked from a file of our own), and leaves nothing else behind', async () => {
  const dir = await mkdtemp(path.join(root, 'whole-'));
  const release = await lockDataDir(dir);
  assert.equal(await readFile(path.join(dir, LOCK_FILE), 'utf8'), OWN);
  assert.deepEqual(await readdir(dir), [LOCK_FILE], 'the file it was linked from is gone');
  await release();
  assert.deepEqual(await readdir(dir), []);
});
