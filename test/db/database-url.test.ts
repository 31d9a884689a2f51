// DATABASE_URL takes the connection strings pg takes (a unix socket's among them), and no message shows its password.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { DatabaseUnreachableError, openMigratedDatabase } from '../../src/bootstrap.js';
import { ConfigError, loadConfig } from '../../src/config.js';

const SECRET = 's3cret-pw';

test('the forms of connection string pg takes are taken: unix sockets, a socket directory, a password with a space', () => {
  for (const url of [
    'postgres://user@/dbname?host=/var/run/postgresql',
    'postgresql:///dbname?host=/tmp&port=5433',
    'postgres://%2Fvar%2Frun%2Fpostgresql/dbname',
    'socket:/var/run/postgresql?db=dbname',
    '/var/run/postgresql dbname',
    `postgres://user:${SECRET} with space@db.internal:5432/talent?sslmode=disable`,
    'postgres://user@127.0.0.1:5432/talent',
  ]) {
    assert.equal(loadConfig({ DATABASE_URL: url }).DATABASE_URL, url, url);
  }
});

test('what is no PostgreSQL connection string is refused naming the variable, never quoting the password', () => {
  for (const url of ['not a url', 'localhost:5432', `mysql://user:${SECRET}@db/talent`, `http://user:${SECRET}@db/talent`, `postgres://user:${SECRET}@[::1/talent`]) {
    assert.throws(
      () => loadConfig({ DATABASE_URL: url }),
      (err: unknown) => err instanceof ConfigError && /DATABASE_URL: /.test(err.message) && !err.message.includes(SECRET),
      url,
    );
  }
});

async function bootFailure(url: string): Promise<string> {
  const config = loadConfig({ DATABASE_URL: url, DB_CONNECTION_TIMEOUT_MS: '2000' });
  const err = await openMigratedDatabase(config, pino({ level: 'silent' })).then(
    () => assert.fail('the boot should have failed'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof DatabaseUnreachableError, String(err));
  assert.equal(err.message.split('\n').length, 1, 'one line');
  assert.ok(!err.message.includes(SECRET), err.message);
  return err.message;
}

test('a unix socket that nothing listens on stops the boot with one line naming where, without the password', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tm-no-server-'));
  try {
    const message = await bootFailure(`postgres://tm:${SECRET}@/talent?host=${dir}`);
    assert.ok(message.startsWith(`cannot reach the database at postgres://tm:***@/talent?host=${dir} (DATABASE_URL): connect ENOENT ${dir}/.s.PGSQL.5432.`), message);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a password given as a query parameter is hidden too', async () => {
  const message = await bootFailure(`postgres://127.0.0.1:1/talent?user=tm&password=${SECRET}&sslmode=disable`);
  assert.ok(message.startsWith('cannot reach the database at postgres://tm:***@127.0.0.1:1/talent (DATABASE_URL): connect ECONNREFUSED 127.0.0.1:1.'), message);
});
