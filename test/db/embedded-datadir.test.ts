import assert from 'node:assert/strict';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.js';

test('a new data directory on disk is initialised (initdb in a child process), serves, and keeps its data across a restart', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'tm-embedded-'));
  try {
    const first = await openDatabase({ dataDir: dir, poolMax: 1 });
    try {
      await access(path.join(dir, 'pgdata', 'PG_VERSION'));
      await first.query('CREATE TABLE kept (v text)');
      await first.query("INSERT INTO kept VALUES ('across restarts')");
    } finally {
      await first.close();
    }
    const again = await openDatabase({ dataDir: dir, poolMax: 1 });
    try {
      const { rows } = await again.query<{ v: string }>('SELECT v FROM kept');
      assert.deepEqual(rows, [{ v: 'across restarts' }]);
    } finally {
      await again.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
