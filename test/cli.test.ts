// The operator CLI in a child process: a bad argument is a usage error (exit 2) that changes nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createApiKeyStore } from '../src/auth/api-keys.js';
import { ensureBootstrapKey } from '../src/bootstrap.js';
import type { Config } from '../src/config.js';
import type { Logger } from 'pino';
import { openDatabase } from '../src/db/database.js';
import { migrationsApplied, readMigrations } from '../src/db/migrate.js';
import { migratedDump } from './support/database.js';
import { startTestRuntime } from './support/runtime.js';
import { TS_NODE_ARGS } from './support/node-args.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function cli(args: string[], dataDir: string) {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  return spawnSync(process.execPath, [...TS_NODE_ARGS, 'src/cli.ts', ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
}

test('prune-traces: a --days that is no whole number ("", " ", "0x1") is refused and prunes nothing; an unfinished run keeps its trail', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-cli-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  // A run whose audit trail ended two days ago.
  const rt = await startTestRuntime({ PROCESS_ROLE: 'api', DATA_DIR: dataDir });
  try {
    const run = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: { title: 'Go engineer', description: 'Go services' } } });
    assert.equal(run.statusCode, 202, run.body);
    await rt.db.query(
      `INSERT INTO run_trace (run_id, org_id, at, kind, data) SELECT id, org_id, now() - interval '2 days', 'decision', '{}'::jsonb FROM matching_runs WHERE id = $1`,
      [run.json().id],
    );
  } finally {
    await rt.close();
  }

  // Number() read "" and " " as 0: every trail was pruned.
  for (const days of ['', ' ', '0x1']) {
    const res = cli(['prune-traces', '--days', days], dataDir);
    assert.equal(res.status, 2, `--days ${JSON.stringify(days)}: ${res.stdout}${res.stderr}`);
    assert.match(res.stderr, /--days must be a whole number/);
    assert.equal(res.stdout, '', 'nothing was pruned');
  }
  // The trail is still there, and a run still queued keeps it whatever its age: it goes on writing it.
  const queued = cli(['prune-traces', '--days', '1'], dataDir);
  assert.equal(queued.status, 0, queued.stderr);
  assert.match(queued.stdout, /^pruned 0 trace rows of 0 runs older than 1 days$/m);
  // Finished, a retention of one day prunes it.
  const db = await openDatabase({ dataDir, poolMax: 2 });
  try {
    await db.query("UPDATE matching_runs SET status = 'cancelled', finished_at = now() - interval '2 days'");
  } finally {
    await db.close();
  }
  const res = cli(['prune-traces', '--days', '1'], dataDir);
  assert.equal(res.status, 0, res.stderr);
  assert.match(res.stdout, /^pruned 1 trace rows of 1 runs older than 1 days$/m);
});

test('an unknown option, a missing or malformed option value or a stray argument is a usage error (exit 2) told before the database is opened, not a stack trace', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-cli-'));
  try {
    const cases: Array<[string[], RegExp]> = [
      [['create-api-key', '--orgg', 'acme'], /Unknown option '--orgg'/],
      [['create-api-key', '--org'], /Option '--org <value>' argument missing/],
      [['revoke-api-key', 'tm_abc'], /Unexpected argument 'tm_abc'/],
      [['prune-traces', '--days', '-1'], /argument is ambiguous/],
      // Checked by the command itself, still before the database is opened.
      [['prune-traces', '--days', 'x'], /--days must be a whole number/],
      [['reembed', '--batch', '0'], /--batch must be a whole number/],
      [['replay-run', '--id', 'nope'], /--id must be a UUID/],
      [['export-scores'], /--role is required/],
      [['revoke-api-key'], /--prefix is required/],
    ];
    for (const [args, message] of cases) {
      const res = cli(args, dataDir);
      const what = `${args.join(' ')}: ${res.stderr}`;
      assert.equal(res.status, 2, what);
      assert.match(res.stderr, message, what);
      assert.match(res.stderr, /^usage: npm run cli/m, what);
      assert.doesNotMatch(res.stderr, /^\s+at /m, `${what}: no stack trace`);
      assert.equal(res.stdout, '');
      assert.deepEqual(readdirSync(dataDir), [], `${what}: the database was not even opened`);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('create-api-key writes the organisation and its key in one transaction: a refused key leaves no organisation', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-cli-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const open = async (load: boolean) => openDatabase({ dataDir, poolMax: 2, ...(load ? { loadDataDir: await migratedDump() } : {}) });
  // The key insert fails (as a taken prefix or a lost connection would), after the organisation's insert.
  let db = await open(true);
  await db.query(`CREATE FUNCTION refuse_key() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'key refused'; END $$`);
  await db.query('CREATE TRIGGER refuse_key BEFORE INSERT ON api_keys FOR EACH ROW EXECUTE FUNCTION refuse_key()');
  await db.close();

  const refused = cli(['create-api-key', '--org', 'acme-atomic'], dataDir);
  assert.equal(refused.status, 1, refused.stderr);
  assert.match(refused.stderr, /key refused/);
  assert.equal(refused.stdout, '', 'no key is printed');
  db = await open(false);
  try {
    const orgs = await db.query('SELECT id FROM organisations WHERE name = $1', ['acme-atomic']);
    assert.equal(orgs.rowCount, 0, 'the organisation was rolled back with its key');
    await db.query('DROP TRIGGER refuse_key ON api_keys');
  } finally {
    await db.close();
  }

  // The output contract holds: the new key alone on the last line of stdout, and it works.
  const created = cli(['create-api-key', '--org', 'acme-atomic'], dataDir);
  assert.equal(created.status, 0, created.stderr);
  const key = created.stdout.trimEnd().split('\n').at(-1)!;
  assert.match(key, /^tm_[a-z0-9]{10}_[A-Za-z0-9_-]{20,}$/);
  db = await open(false);
  try {
    const org = (await db.query<{ id: string }>('SELECT id FROM organisations WHERE name = $1', ['acme-atomic'])).rows;
    assert.equal(org.length, 1);
    assert.equal((await createApiKeyStore(db).verify(key))?.orgId, org[0]!.id);
  } finally {
    await db.close();
  }
  assert.match(created.stdout, /^created key with prefix [a-z0-9]{10} for organisation acme-atomic: a new organisation$/m);

  // A name that is an organisation's already: the new key reaches its data, and the operator is told so. One that
  // differs only in case is another organisation, which the operator is also told.
  const again = cli(['create-api-key', '--org', 'acme-atomic'], dataDir);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /^created key with prefix [a-z0-9]{10} for organisation acme-atomic: the existing organisation \(1 other active key, 0 candidates; every key of an organisation reaches all of its data\)$/m);
  const alike = cli(['create-api-key', '--org', 'Acme-Atomic'], dataDir);
  assert.equal(alike.status, 0, alike.stderr);
  assert.match(alike.stdout, /for organisation Acme-Atomic: a new organisation$/m);
  assert.match(alike.stderr, /^note: "acme-atomic" differs from "Acme-Atomic" only in case or spaces, and is another organisation$/m);
});

test('migrate applies every migration to a new data directory and exits; revoke-api-key takes the prefix as printed or as the key shows it', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-cli-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const migrated = cli(['migrate'], dataDir);
  assert.equal(migrated.status, 0, migrated.stderr);
  const names = (await readMigrations()).map((m) => m.name);
  assert.equal(migrated.stdout, `applied ${names.length} migrations: ${names.join(', ')}\n`, 'it says what it applied');
  const again = cli(['migrate'], dataDir);
  assert.equal(again.status, 0, again.stderr);
  assert.equal(again.stdout, 'migrations are up to date\n');
  let db = await openDatabase({ dataDir, poolMax: 2 });
  const chosen = 'an-operator-chose-this-key-0123456789';
  const logged: string[] = [];
  // Keys made in this process (create-api-key's own output is tested above): each CLI process boots the database anew.
  const keys: Array<{ key: string; prefix: string }> = [];
  try {
    assert.equal(await migrationsApplied(db, (await readMigrations()).length), true, 'every migration is applied');
    // A key an operator chose (BOOTSTRAP_API_KEY) shows no prefix: the boot logs it, and revoke-api-key takes the key whole.
    const config = { BOOTSTRAP_API_KEY: chosen } as Config;
    const logger = { warn: () => {}, info: (_o: unknown, msg: string) => void logged.push(msg) } as unknown as Logger;
    await ensureBootstrapKey(db, config, () => assert.fail('a chosen key is not printed'), logger);
    for (const org of ['revoke-a', 'revoke-b']) keys.push(await createApiKeyStore(db).create(org));
  } finally {
    await db.close();
  }
  const bootstrapPrefix = /with prefix (\S+)/.exec(logged.join('\n'))?.[1];
  assert.ok(bootstrapPrefix, `the boot logs the chosen key's prefix: ${logged.join(' | ')}`);
  assert.ok(!logged.join('\n').includes(chosen), 'but never the key');

  // As printed by create-api-key, and as the key shows it ("tm_<prefix>").
  for (const [given, { prefix }] of [[keys[0]!.prefix, keys[0]!], [`tm_${keys[1]!.prefix}`, keys[1]!]] as const) {
    const revoked = cli(['revoke-api-key', '--prefix', given], dataDir);
    assert.equal(revoked.status, 0, `${given}: ${revoked.stderr}`);
    assert.equal(revoked.stdout, `revoked key ${prefix}\n`);
  }
  // Revoked twice (a retried script): done, as asked.
  const twice = cli(['revoke-api-key', '--prefix', keys[0]!.prefix], dataDir);
  assert.equal(twice.status, 0, twice.stderr);
  assert.equal(twice.stdout, `key ${keys[0]!.prefix} was already revoked\n`);
  // A key nobody has: exit 1, one line, named by its hash prefix, never by what was typed (a chosen key, whole).
  const typo = 'my-Very-Secret-Bootstrap-Key-2024!';
  const unknown = cli(['revoke-api-key', '--prefix', typo], dataDir);
  assert.equal(unknown.status, 1, unknown.stderr);
  assert.match(unknown.stderr, /^talent-matcher: no key with prefix [0-9a-f]{10}\n$/);
  assert.ok(!unknown.stderr.includes(typo));
  // A role id nobody has is not a role without scores.
  const noRole = cli(['export-scores', '--role', '00000000-0000-4000-8000-000000000000'], dataDir);
  assert.deepEqual([noRole.status, noRole.stdout, noRole.stderr], [1, '', 'talent-matcher: no role 00000000-0000-4000-8000-000000000000\n']);
  const byKey = cli(['revoke-api-key', '--prefix', chosen], dataDir);
  assert.equal(byKey.status, 0, `the chosen key given whole: ${byKey.stderr}`);
  assert.equal(byKey.stdout, `revoked key ${bootstrapPrefix}\n`, 'the prefix the boot logged');
  keys.push({ key: chosen, prefix: bootstrapPrefix });
  db = await openDatabase({ dataDir, poolMax: 2 });
  try {
    for (const { key } of keys) assert.equal(await createApiKeyStore(db).verify(key), null, 'the key no longer works');
  } finally {
    await db.close();
  }
});

test('operator mistakes are one line naming what to fix: a DATA_DIR that is a file, an embedding model nobody pinned', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'a-file');
  writeFileSync(file, '');
  const run = (args: string[], env: Record<string, string>) =>
    spawnSync(process.execPath, [...TS_NODE_ARGS, 'src/cli.ts', ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env }, encoding: 'utf8', timeout: 60_000 });
  const notADir = run(['migrate'], { DATA_DIR: file });
  assert.deepEqual([notADir.status, notADir.stderr], [1, `talent-matcher: DATA_DIR=${file} cannot hold the database: a file, not a directory, is in the way\n`]);
  // Told before the database is opened (and migrated), naming the variable.
  const model = run(['reembed'], { DATA_DIR: path.join(dir, 'db'), EMBEDDINGS: 'llm', LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_EMBEDDING_MODEL: 'nope-model' });
  assert.equal(model.status, 1, model.stderr);
  assert.match(model.stderr, /^talent-matcher: LLM_EMBEDDING_MODEL: "nope-model" is not a pinned embedding model; pinned in \S+: .*text-embedding-3-small/);
  assert.doesNotMatch(model.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(existsSync(path.join(dir, 'db')), false, 'no database was made');
});

test('a database in memory is refused: a command would change one that vanishes when it exits', () => {
  const res = spawnSync(process.execPath, [...TS_NODE_ARGS, 'src/cli.ts', 'create-api-key', '--org', 'nowhere'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: 'memory://', LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(res.status, 2, res.stderr);
  assert.match(res.stderr, /DATA_DIR=memory:\/\/ keeps nothing between processes/);
  assert.equal(res.stdout, '', 'no key is printed');
});

test('export-scores piped into a slow reader writes every row before it exits; replay-run that cannot open the database exits 2', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-cli-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const db = await openDatabase({ dataDir, poolMax: 2, loadDataDir: await migratedDump() });
  const roleId = '00000000-0000-4000-8000-0000000000aa';
  try {
    const org = await createApiKeyStore(db).ensureOrganisation('export-org');
    await db.query(`INSERT INTO roles (id, org_id, title, description) VALUES ($1, $2, 'Go engineer', 'Go services')`, [roleId, org]);
    const runId = (await db.query<{ id: string }>(
      `INSERT INTO matching_runs (org_id, role_id, engine, status, params, progress) VALUES ($1, $2, 'heuristic', 'succeeded', '{}', '{}') RETURNING id`,
      [org, roleId],
    )).rows[0]!.id;
    // Enough rows to pass a pipe's buffer many times over.
    await db.query(
      `INSERT INTO shortlist_entries (run_id, candidate_id, status, subscores, total_score, retrieval_score, iteration)
       SELECT $1, gen_random_uuid(), 'scored', '{"hardSkills":1,"domain":1,"seniority":1,"impact":1,"logistics":1,"trajectory":1}', 6, 0.5, 1
       FROM generate_series(1, 20000)`,
      [runId],
    );
  } finally {
    await db.close();
  }
  // A reader that waits before it reads: what the CLI still has queued when it is done must not be dropped.
  const script = `node ${TS_NODE_ARGS.join(' ')} src/cli.ts export-scores --role ${roleId} | (sleep 1; wc -l)`;
  const piped = spawnSync('sh', ['-c', script], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, encoding: 'utf8', timeout: 240_000 });
  // A guard against a hung export, not a speed bound: on a machine busy with other work it passed 120 s once.
  assert.equal(piped.stderr, '');
  assert.equal(Number(piped.stdout.trim()), 20_001, 'a header and every row');

  // The database held by another process: replay-run cannot tell, which is not "different".
  const holder = await openDatabase({ dataDir, poolMax: 1 });
  try {
    const replay = cli(['replay-run', '--id', '00000000-0000-4000-8000-0000000000bb'], dataDir);
    assert.equal(replay.status, 2, replay.stderr);
    assert.match(replay.stderr, /in use by process/);
  } finally {
    await holder.close();
  }
});
