// The real entry point in a child process: boots on the embedded database, serves, and exits 0 on SIGTERM; a worker
// serves its operations routes.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { migratedDataDir } from './support/data-dir.js';
import { childEnv } from './support/service-process.js';
import { TS_NODE_ARGS } from './support/node-args.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

test('npm start path: boots with no other service, readyz 200, SIGTERM exits 0, and the data dir is locked while up', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'tm-main-'));
  const port = await freePort();
  // libpq's variables, set on a machine for some other PostgreSQL, are not the embedded database's.
  const env = childEnv({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info', BOOTSTRAP_API_KEY: '', PGSSLMODE: 'require', PGUSER: 'someone', PGDATABASE: 'elsewhere' });
  const child = spawn(process.execPath, [...TS_NODE_ARGS, 'src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 60_000;
    let ready = false;
    while (!ready && Date.now() < deadline) {
      ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false);
      if (!ready) await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(ready, `service became ready:\n${out}`);
    assert.match(out, /migrations applied/, 'the first boot migrates the new data directory');
    const key = /created for organisation "default" \(shown only now\): (\S+)/.exec(out)?.[1];
    assert.ok(key, 'a first key was generated and printed once');
    const res = await fetch(`http://127.0.0.1:${port}/v1/roles`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 200);

    // The CLI refuses to open the same embedded database while the service holds it.
    const cli = spawn(process.execPath, [...TS_NODE_ARGS, 'src/cli.ts', 'create-api-key', '--org', 'x'], {
      cwd: ROOT,
      env: { ...env, LOG_LEVEL: 'error' },
    });
    let cliErr = '';
    cli.stderr.on('data', (d) => (cliErr += d));
    const cliCode = await new Promise((resolve) => cli.on('exit', resolve));
    assert.equal(cliCode, 1);
    assert.match(cliErr, /in use by process/);

    child.kill('SIGTERM');
    assert.equal(await exited, 0, out);
    const jsonLines = out.split('\n').filter((l) => l.startsWith('{'));
    assert.ok(jsonLines.length > 0);
    assert.ok(jsonLines.every((l) => !l.includes(key)), 'the key is not in any log line');

    // Stopped: the CLI works on the same data directory, printing the key alone on the last line.
    const cli2 = spawn(process.execPath, [...TS_NODE_ARGS, 'src/cli.ts', 'create-api-key', '--org', 'acme'], { cwd: ROOT, env });
    let cliOut = '';
    cli2.stdout.on('data', (d) => (cliOut += d));
    assert.equal(await new Promise((resolve) => cli2.on('exit', resolve)), 0);
    assert.match(cliOut.trim().split('\n').at(-1)!, /^tm_[a-z0-9]{10}_\S+$/);
  } finally {
    child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  }
});

// API.md: "npm start" is how the service is started, and SIGTERM makes it exit 0. npm forwards a signal to the
// script's shell only; unless the shell execs the service (or, for npm run dev, the watcher that runs it), the service
// never hears it and outlives npm. The data directory is migrated already: the first boot is the test above's.
async function npmScriptStopsOnSigterm(args: string[], expectedExit?: { code: number | null; signal: NodeJS.Signals | null }): Promise<void> {
  const dataDir = await migratedDataDir('tm-npm-script-');
  const port = await freePort();
  const env = childEnv({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info', BOOTSTRAP_API_KEY: 'npm-start-test-key-0123456789' });
  const npm = spawn('npm', args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  npm.stdout.on('data', (d) => (out += d));
  npm.stderr.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let servicePid: number | undefined;
  let parentPid: number | undefined;
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    const deadline = Date.now() + 60_000;
    while (servicePid === undefined && Date.now() < deadline) {
      const started = out.split('\n').find((l) => l.includes('"msg":"talent-matcher started"'));
      if (started) servicePid = (JSON.parse(started) as { pid: number }).pid;
      else await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(servicePid, `the service started:\n${out}`);
    assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
    // npm itself when the script execs the service; the watcher for npm run dev.
    parentPid = Number(execFileSync('ps', ['-o', 'ppid=', '-p', String(servicePid)], { encoding: 'utf8' }).trim());
    assert.ok(parentPid > 1, 'the service has a parent');

    npm.kill('SIGTERM');
    const exit = await exited;
    if (expectedExit) assert.deepEqual(exit, expectedExit, out);
    const gone = Date.now() + 10_000;
    while ((alive(servicePid) || alive(parentPid)) && Date.now() < gone) await new Promise((r) => setTimeout(r, 100));
    assert.equal(alive(servicePid), false, 'the service process exited with npm');
    assert.equal(alive(parentPid), false, 'the process that ran it exited with npm');
    assert.match(out, /"signal":"SIGTERM","msg":"shutting down"/);
    assert.equal(await fetch(`http://127.0.0.1:${port}/healthz`).then(() => 'answered', () => 'refused'), 'refused');
  } finally {
    npm.kill('SIGKILL');
    for (const pid of [servicePid, parentPid]) if (pid !== undefined && pid !== npm.pid && alive(pid)) process.kill(pid, 'SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  }
}

test('SIGTERM while the database initialises: the start ends, then the shutdown, with exit 0 and nothing left locked', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'tm-main-'));
  try {
    const child = spawn(process.execPath, [...TS_NODE_ARGS, 'src/main.ts'], { cwd: ROOT, env: childEnv({ PORT: String(await freePort()), DATA_DIR: dataDir, LOG_LEVEL: 'info', BOOTSTRAP_API_KEY: 'boot-signal-test-key-0123456789' }), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // The new data directory's initdb takes seconds: the signal lands in it.
    const deadline = Date.now() + 30_000;
    while (!/initiali[sz]|migrat|pgdata/i.test(out) && !existsSync(path.join(dataDir, 'pgdata')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGTERM');
    assert.equal(await exited, 0, out);
    assert.match(out, /shutting down/);
    assert.equal(existsSync(path.join(dataDir, 'talent-matcher.lock')), false, 'the lock is released');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('npm start itself: SIGTERM to npm reaches the service, which exits 0 and frees its port and data dir', () =>
  npmScriptStopsOnSigterm(['start', '--silent'], { code: 0, signal: null }));

test('npm run dev: SIGTERM to npm reaches the watcher and the service, and nothing is left running', () =>
  npmScriptStopsOnSigterm(['run', 'dev', '--silent']));

/**
 * The real entry point as a worker on its own embedded database, a copy of a migrated one (an empty data directory,
 * on disk or in memory, is initialised and migrated anew: the npm start path test and test/db/migrate.test.ts do that).
 */
async function spawnWorker(env: Record<string, string>) {
  const dataDir = await migratedDataDir('tm-worker-');
  const child = spawn(process.execPath, [...TS_NODE_ARGS, 'src/main.ts'], {
    cwd: ROOT,
    env: childEnv({ PROCESS_ROLE: 'worker', DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'info', BOOTSTRAP_API_KEY: 'worker-main-test-key-0123456789', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  /** Kills the worker if it is still running, and removes its data directory. */
  const dispose = async () => {
    child.kill('SIGKILL');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  };
  return { child, exited, output: () => out, dispose };
}

test('a worker process listens: with PORT=0 its start line gives the address, where it serves the operations routes alone', async () => {
  const worker = await spawnWorker({ PORT: '0' });
  try {
    let address: string | undefined;
    const deadline = Date.now() + 60_000;
    while (!address && Date.now() < deadline) {
      const started = worker.output().split('\n').find((l) => l.includes('"msg":"talent-matcher started"'));
      if (started) address = (JSON.parse(started) as { address?: string }).address;
      else await new Promise((r) => setTimeout(r, 200));
    }
    assert.match(String(address), /^http:\/\/127\.0\.0\.1:\d+$/, `the start line gives the address:\n${worker.output()}`);
    assert.notEqual(address, 'http://127.0.0.1:0');
    // Said as a plain line too, which no LOG_LEVEL hides; and a worker on the embedded database is told it is alone.
    assert.ok(worker.output().split('\n').includes(`talent-matcher listening on ${address}`), worker.output());
    assert.match(worker.output(), /PROCESS_ROLE=worker on the embedded database: no other process can share it/);
    assert.equal((await fetch(`${address}/readyz`)).status, 200);
    assert.equal((await fetch(`${address}/healthz`)).status, 200);
    assert.match(await (await fetch(`${address}/metrics`)).text(), /^# TYPE matching_runs_started_total counter$/m);
    const v1 = await fetch(`${address}/v1/roles`, { headers: { authorization: 'Bearer worker-main-test-key-0123456789' } });
    assert.equal(v1.status, 404);
    assert.equal(v1.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exited, 0, worker.output());
  } finally {
    await worker.dispose();
  }
});

test('Ctrl-C (SIGINT to the service, and again from npm a moment later) is one request: the service drains and exits 0', async () => {
  const worker = await spawnWorker({ PORT: '0' });
  try {
    const deadline = Date.now() + 60_000;
    while (!worker.output().includes('talent-matcher listening on') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.match(worker.output(), /talent-matcher listening on/);
    worker.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 30));
    worker.child.kill('SIGINT');
    assert.equal(await worker.exited, 0, worker.output());
    assert.match(worker.output(), /shutting down/);
    assert.doesNotMatch(worker.output(), /second SIGINT/);
  } finally {
    await worker.dispose();
  }
});

test('a worker whose PORT is taken stops the boot with words that say what to do, not a stack trace; the key it created is shown with them', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const { port } = taken.address() as { port: number };
  // No key yet and none given: the boot creates one before it tries to listen.
  const worker = await spawnWorker({ PORT: String(port), BOOTSTRAP_API_KEY: '' });
  try {
    // It exits, or says it started (a worker that does not listen would run on).
    let code: number | null | undefined;
    void worker.exited.then((c) => (code = c));
    while (code === undefined && !worker.output().includes('"msg":"talent-matcher started"')) await new Promise((r) => setTimeout(r, 100));
    assert.equal(code ?? 'still running', 1, worker.output());
    assert.match(worker.output(), new RegExp(`talent-matcher: cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\); every process, a worker too, serves HTTP: give each on a host its own PORT, or PORT=0 for any free one \\(the API key this start created, printed above, stays valid\\)`));
    assert.doesNotMatch(worker.output(), /failed to start|\n\s+at /);
    // The key was printed when it was made (held back, a signal before the listen would lose it).
    assert.match(worker.output(), /^talent-matcher: no API key existed, so one was created for organisation "default" \(shown only now\): tm_\S+$/m);
  } finally {
    taken.close();
    await worker.dispose();
  }
});

// A DATABASE_URL pointing at nothing stops the boot at once, in words: which URL (password hidden), what the connection
// answered, what to check. No stack trace, no retrying forever.
test('a DATABASE_URL that nothing answers: exit 1 with one line naming it, without its password', async () => {
  const port = await freePort();
  const env = childEnv({ PORT: String(port), DATABASE_URL: 'postgres://tm:s3cret-pw@127.0.0.1:1/talent', LOG_LEVEL: 'info', BOOTSTRAP_API_KEY: '' });
  const child = spawn(process.execPath, [...TS_NODE_ARGS, 'src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  assert.equal(code, 1, stderr);
  assert.match(stderr, /^talent-matcher: cannot reach the database at postgres:\/\/tm:\*\*\*@127\.0\.0\.1:1\/talent \(DATABASE_URL\): connect ECONNREFUSED 127\.0\.0\.1:1\. Check DATABASE_URL/);
  assert.equal(stderr.trim().split('\n').length, 1, `one line, no stack trace:\n${stderr}`);
  assert.doesNotMatch(stderr, /s3cret-pw/);
});
