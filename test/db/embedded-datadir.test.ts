import assert from 'node:assert/strict';
import { access, chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.js';

test('a new data directory on disk is initialised (initdb in a child process), serves, keeps its data across a restart, and is private to the service user', async () => {
  const parent = await mkdtemp(path.join(tmpdir(), 'tm-embedded-'));
  const dir = path.join(parent, 'data');
  const mode = async (p: string) => (await stat(p)).mode & 0o777;
  try {
    const first = await openDatabase({ dataDir: dir, poolMax: 1 });
    try {
      await access(path.join(dir, 'pgdata', 'PG_VERSION'));
      await first.query('CREATE TABLE kept (v text)');
      await first.query("INSERT INTO kept VALUES ('across restarts')");
    } finally {
      await first.close();
    }
    // The database writes its files (the write-ahead log with every row) readable by all: the directory keeps them in.
    assert.deepEqual([await mode(dir), await mode(path.join(dir, 'pgdata'))], [0o700, 0o700]);
    // One that was opened to others is made private again at the next start.
    await chmod(dir, 0o755);
    const again = await openDatabase({ dataDir: dir, poolMax: 1 });
    try {
      assert.equal(await mode(dir), 0o700);
      const { rows } = await again.query<{ v: string }>('SELECT v FROM kept');
      assert.deepEqual(rows, [{ v: 'across restarts' }]);
    } finally {
      await again.close();
    }
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});

