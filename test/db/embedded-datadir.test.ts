import assert from 'node:assert/strict';
import { access, chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
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


test('a pgdata with files but no PG_VERSION is refused, not initialised over; an initdb cut short is made again; a damaged one is named', async () => {
  const parent = await mkdtemp(path.join(tmpdir(), 'tm-embedded-'));
  const dir = path.join(parent, 'data');
  const pgdata = path.join(dir, 'pgdata');
  try {
    // What an initdb cut short by a crash leaves: its half-made directory, and an empty pgdata made by hand.
    await mkdir(path.join(`${pgdata}.initdb`, 'base'), { recursive: true });
    await writeFile(path.join(`${pgdata}.initdb`, 'base', 'half'), 'x');
    await mkdir(pgdata);
    const first = await openDatabase({ dataDir: dir, poolMax: 1 });
    try {
      await first.query('CREATE TABLE kept (v text)');
      await first.query("INSERT INTO kept VALUES ('still here')");
    } finally {
      await first.close();
    }
    await assert.rejects(access(`${pgdata}.initdb`), 'made complete, then renamed pgdata');

    // A copy that lost PG_VERSION: refused, naming DATA_DIR, and left as it was.
    const version = await readFile(path.join(pgdata, 'PG_VERSION'));
    await rm(path.join(pgdata, 'PG_VERSION'));
    const before = (await readdir(pgdata, { recursive: true })).length;
    await assert.rejects(openDatabase({ dataDir: dir, poolMax: 1 }), (err: Error) => {
      assert.equal(err.name, 'ConfigError');
      assert.match(err.message, /^DATA_DIR=.* holds a damaged database: .*no PG_VERSION.*restore it from a backup/);
      return true;
    });
    assert.equal((await readdir(pgdata, { recursive: true })).length, before, 'nothing written over it');
    await writeFile(path.join(pgdata, 'PG_VERSION'), version);
    const restored = await openDatabase({ dataDir: dir, poolMax: 1 });
    try {
      assert.deepEqual((await restored.query<{ v: string }>('SELECT v FROM kept')).rows, [{ v: 'still here' }]);
    } finally {
      await restored.close();
    }

    // A control file written over: PGlite's "failed to initialize" becomes one line naming DATA_DIR and what to do.
    await writeFile(path.join(pgdata, 'global', 'pg_control'), Buffer.alloc(8192));
    await assert.rejects(openDatabase({ dataDir: dir, poolMax: 1 }), (err: Error) => {
      assert.equal(err.name, 'ConfigError');
      assert.match(err.message, /^DATA_DIR=.* holds a database that cannot be opened \(.+\): check that every file under it belongs to the service's user.*restore it from a backup/);
      return true;
    });
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});
