// The API when its database misbehaves: a named 503 problem document (no SQL, no driver words), readiness that says
// so, and service again by itself once the database is back.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startRestartableDatabase, type RestartableDatabase } from '../support/restartable-database.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';

let server: RestartableDatabase;
let rt: TestRuntime;
before(async () => {
  server = await startRestartableDatabase();
  // A PostgreSQL server to this service (DATABASE_URL), as a restart or a failover reaches it; one connection, so
  // that a held one exhausts the pool.
  rt = await startTestRuntime({ DATABASE_URL: server.url, PROCESS_ROLE: 'api', DB_POOL_MAX: '1', DB_CONNECTION_TIMEOUT_MS: '1000' });
});
after(async () => {
  await rt?.close();
  await server?.close();
});

function assertNamedProblem(res: { statusCode: number; headers: Record<string, unknown>; body: string }, code: string) {
  assert.equal(res.statusCode, 503, res.body);
  assert.match(String(res.headers['content-type']), /application\/problem\+json/);
  assert.equal(res.headers['retry-after'], '5');
  const body = JSON.parse(res.body) as { type: string; status: number; detail: string };
  assert.equal(body.type, `https://talent-matcher.dev/problems/${code}`);
  assert.equal(body.status, 503);
  // Nothing of the statement, the driver or the server's words.
  assert.doesNotMatch(res.body, /SELECT|INSERT|roles_|raise_sqlstate|canceling|Connection terminated|ENOENT|ECONNREFUSED|\.s\.PGSQL|\/tmp\//i);
}

test('the database gone: requests answer 503 database_unavailable, /readyz 503, and both recover when it is back', async () => {
  assert.equal((await rt.app!.inject({ url: '/v1/roles', headers: rt.auth() })).statusCode, 200);
  await server.stop();
  try {
    assertNamedProblem(await rt.app!.inject({ url: '/v1/roles', headers: rt.auth() }), 'database_unavailable');
    const write = await rt.app!.inject({ method: 'POST', url: '/v1/roles', headers: rt.auth(), payload: { title: 'Backend engineer', description: 'Go and Postgres.' } });
    assertNamedProblem(write, 'database_unavailable');
    const ready = await rt.app!.inject({ url: '/readyz' });
    assert.equal(ready.statusCode, 503);
    assert.equal(ready.json().type, 'https://talent-matcher.dev/problems/not_ready');
    // What an operator reads on an unhealthy container: the cause, not a list of possible ones.
    assert.match(ready.json().detail, /^The database cannot be reached/);
    assert.doesNotMatch(ready.json().detail, /migrations/);
    assert.equal((await rt.app!.inject({ url: '/healthz' })).statusCode, 200, 'the process itself is up');
    assert.ok(rt.logs.some((l) => l.msg === 'database fault' && l.fault === 'database_unavailable'), 'the cause is logged');
  } finally {
    await server.start();
  }
  assert.equal((await rt.app!.inject({ url: '/readyz' })).statusCode, 200);
  assert.equal((await rt.app!.inject({ url: '/v1/roles', headers: rt.auth() })).statusCode, 200);
  const created = await rt.app!.inject({ method: 'POST', url: '/v1/roles', headers: rt.auth(), payload: { title: 'Backend engineer', description: 'Go and Postgres.' } });
  assert.equal(created.statusCode, 201);
});

/**
 * A role posted while the database answers every insert into roles with this SQLSTATE and message (a trigger, as
 * PGlite can neither time a statement out nor fill a disk on cue): the answer, and whether the roles stayed as they were.
 */
async function postRoleWhileRaising(sqlstate: string, message: string) {
  await server.pglite.exec(`
    CREATE FUNCTION raise_sqlstate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION '${message}' USING ERRCODE = '${sqlstate}'; END $$;
    CREATE TRIGGER roles_raise BEFORE INSERT ON roles FOR EACH ROW EXECUTE FUNCTION raise_sqlstate();`);
  try {
    const count = async () => (await server.pglite.query<{ n: number }>('SELECT count(*)::int AS n FROM roles')).rows[0]!.n;
    const before = await count();
    const res = await rt.app!.inject({ method: 'POST', url: '/v1/roles', headers: rt.auth(), payload: { title: 'Data engineer', description: 'Spark.' } });
    return { res, unchanged: (await count()) === before };
  } finally {
    await server.pglite.exec('DROP TRIGGER roles_raise ON roles; DROP FUNCTION raise_sqlstate()');
  }
}

test('a statement the database cancels for its timeout answers 503 database_timeout and writes nothing', async () => {
  // PostgreSQL's answer to a statement past statement_timeout (SQLSTATE 57014).
  const { res, unchanged } = await postRoleWhileRaising('57014', 'canceling statement due to statement timeout');
  assertNamedProblem(res, 'database_timeout');
  assert.ok(unchanged);
  assert.ok(rt.logs.some((l) => l.msg === 'database fault' && l.fault === 'database_timeout'));
});

test('a database out of disk space answers 503 database_out_of_resources (not an unexplained 500) and writes nothing', async () => {
  // What a full disk answers a write that must extend a table (SQLSTATE 53100).
  const { res, unchanged } = await postRoleWhileRaising('53100', 'could not extend file "base/5/16400": No space left on device');
  assertNamedProblem(res, 'database_out_of_resources');
  assert.equal(res.json().detail, 'The database ran out of disk space or memory for the work; nothing of it was kept; retry later.');
  assert.doesNotMatch(res.body, /No space left|base\/5/);
  assert.ok(unchanged);
});

test('no pooled connection free within DB_CONNECTION_TIMEOUT_MS answers 503 database_busy', async () => {
  let release!: () => void;
  // The pool's one connection, held.
  const held = rt.db.withTransaction(() => new Promise<void>((resolve) => (release = resolve)));
  try {
    assertNamedProblem(await rt.app!.inject({ url: '/v1/roles', headers: rt.auth() }), 'database_busy');
    // The database answers: /readyz is not ready because the pool is full, and says so (it said "unreachable").
    const ready = await rt.app!.inject({ url: '/readyz' });
    assert.equal(ready.statusCode, 503);
    assert.match(ready.json().detail, /^No pooled database connection came free within DB_CONNECTION_TIMEOUT_MS: .*DB_POOL_MAX/);
  } finally {
    release();
    await held;
  }
  assert.equal((await rt.app!.inject({ url: '/v1/roles', headers: rt.auth() })).statusCode, 200);
});

test('/readyz names migrations missing from the database, how many, and what applies them', async () => {
  const last = (await server.pglite.query<{ version: number; name: string; checksum: string }>(
    'SELECT version, name, checksum FROM schema_migrations ORDER BY version DESC LIMIT 1',
  )).rows[0]!;
  const total = (await server.pglite.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations')).rows[0]!.n;
  // A database restored from a backup older than the release: its last migration is not recorded.
  await server.pglite.query('DELETE FROM schema_migrations WHERE version = $1', [last.version]);
  try {
    const ready = await rt.app!.inject({ url: '/readyz' });
    assert.equal(ready.statusCode, 503);
    assert.equal(ready.json().detail, `${total - 1} of the ${total} migrations of this release are applied: run migrate (node dist/cli.js migrate), or restart the process.`);
  } finally {
    await server.pglite.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [last.version, last.name, last.checksum]);
  }
  assert.equal((await rt.app!.inject({ url: '/readyz' })).statusCode, 200);
});
