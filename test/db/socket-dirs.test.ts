// A killed process leaves its socket directory behind; the next start removes it, and only it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createSocketDir, removeStaleSocketDirs } from '../../src/db/socket-dirs.js';

/** A child process, alive until it is killed. */
function sleeper() {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  return { pid: child.pid!, stop: () => new Promise<void>((resolve) => child.once('exit', () => resolve()).kill('SIGKILL')) };
}

test('the socket directories of processes that are gone are removed; this process’s, a live one’s and others stay', async (t) => {
  const parent = await mkdtemp(path.join(tmpdir(), 'socket-dirs-test-'));
  t.after(() => rm(parent, { recursive: true, force: true }));
  const gone = sleeper();
  const goneName = `talent-matcher-pg-${gone.pid}-aaaaaa`;
  await gone.stop();
  const alive = sleeper();
  t.after(alive.stop);
  const kept = [`talent-matcher-pg-${process.pid}-bbbbbb`, `talent-matcher-pg-${alive.pid}-cccccc`, 'talent-matcher-pg-dddddd', 'unrelated-123-x'];
  for (const name of [goneName, ...kept]) await mkdir(path.join(parent, name, 'sub'), { recursive: true });

  assert.deepEqual(await removeStaleSocketDirs(parent), [goneName]);
  assert.deepEqual((await readdir(parent)).sort(), [...kept].sort());

  const created = await createSocketDir(parent);
  assert.match(path.basename(created), new RegExp(`^talent-matcher-pg-${process.pid}-`));
});

test('a temporary directory whose path leaves no room for the socket’s gives way to /tmp', async (t) => {
  const parent = path.join(tmpdir(), 'a-temporary-directory-with-a-very-long-name-'.repeat(2));
  await mkdir(parent, { recursive: true });
  t.after(() => rm(parent, { recursive: true, force: true }));
  const created = await createSocketDir(parent);
  t.after(() => rm(created, { recursive: true, force: true }));
  assert.equal(path.dirname(created), '/tmp');
  assert.ok(Buffer.byteLength(path.join(created, '.s.PGSQL.5432')) <= 103);
});
