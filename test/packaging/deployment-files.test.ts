// The Dockerfile and docker-compose.yml against the code (Docker itself is not needed): the variables they set are
// ones the service reads, the image holds every directory the code reads beside dist/, and every container of the
// service, a worker's too, keeps the image's /readyz check (test/http/worker-operations.test.ts: what it means there).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ENV_SCHEMA } from '../../src/config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** Read by someone other than src/config.ts, and meant to be set: npm and libraries (NODE_ENV), glibc (MALLOC_*). */
const NOT_THE_SERVICE = new Set(['NODE_ENV', 'MALLOC_MMAP_THRESHOLD_']);

/** docker-compose.yml's services, each as its block of lines (two-space indented names under `services:`). */
function composeServices(): Map<string, string> {
  const blocks = new Map<string, string[]>();
  let inServices = false;
  let current: string[] | null = null;
  for (const line of read('docker-compose.yml').split('\n')) {
    if (/^\S/.test(line)) {
      inServices = /^services:\s*$/.test(line);
      current = null;
      continue;
    }
    const name = inServices ? /^ {2}([\w-]+):\s*$/.exec(line) : null;
    if (name) blocks.set(name[1]!, (current = []));
    else current?.push(line);
  }
  return new Map([...blocks].map(([k, lines]) => [k, lines.join('\n')]));
}

/** The services built from this repository (`build: .`): the ones running our image. */
function imageServices(): Map<string, string> {
  return new Map([...composeServices()].filter(([, block]) => /^\s+build:\s*\.\s*$/m.test(block)));
}

function dockerfileEnv(): string[] {
  const text = read('Dockerfile').replace(/\\\n/g, ' ');
  return [...text.matchAll(/^ENV\s+(.+)$/gm)].flatMap((m) => [...m[1]!.matchAll(/([A-Z][A-Z0-9_]*)=/g)].map((v) => v[1]!));
}

test('docker-compose.yml parses into the services the docs describe', () => {
  assert.deepEqual([...composeServices().keys()].sort(), ['api', 'db', 'migrate', 'worker']);
  assert.deepEqual([...imageServices().keys()].sort(), ['api', 'migrate', 'worker']);
  assert.ok(dockerfileEnv().includes('PORT'), 'the Dockerfile ENV lines are read');
});

test('the image and compose set only variables that something reads', () => {
  const known = new Set([...Object.keys(ENV_SCHEMA.shape), ...NOT_THE_SERVICE]);
  const set = new Set(dockerfileEnv());
  for (const block of imageServices().values()) {
    for (const m of block.matchAll(/^ {6,}([A-Z][A-Z0-9_]*):/gm)) set.add(m[1]!);
  }
  assert.deepEqual([...set].filter((v) => !known.has(v)), [], 'variables nothing reads: a typo, or one the code no longer has');
});

test('every PROCESS_ROLE compose gives is one the service accepts, and both halves of the service run', () => {
  const roles = [...imageServices().values()].map((b) => /PROCESS_ROLE:\s*(\S+)/.exec(b)?.[1]).filter(Boolean);
  for (const role of roles) assert.ok(ENV_SCHEMA.shape.PROCESS_ROLE.safeParse(role).success, `PROCESS_ROLE ${role}`);
  assert.deepEqual(roles.sort(), ['api', 'worker']);
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

test('the runtime image holds every directory the code reads beside its own', () => {
  // new URL('../../migrations/', import.meta.url) and the like: resolved from src/ as from dist/, one level deep.
  const dirs = new Set<string>();
  for (const file of sourceFiles(path.join(ROOT, 'src'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/new URL\(\s*'(\.\.\/[^']+)',\s*import\.meta\.url\s*\)/g)) {
      const rel = path.relative(ROOT, path.resolve(path.dirname(file), m[1]!));
      const top = rel.split(path.sep)[0]!;
      if (!rel.startsWith('..') && top !== 'src') dirs.add(top);
    }
  }
  assert.ok(dirs.has('migrations'), `found ${[...dirs].join(', ')}`);
  const runtime = read('Dockerfile').split(/^FROM /m).at(-1)!;
  const ignored = read('.dockerignore').split('\n').map((l) => l.trim().replace(/\/$/, ''));
  for (const dir of dirs) {
    assert.match(runtime, new RegExp(`^COPY ${dir} \\./${dir}\\s*$`, 'm'), `the runtime stage copies ${dir}/`);
    assert.ok(!ignored.includes(dir), `.dockerignore keeps ${dir}/ out of the build context`);
  }
  for (const dir of ['node_modules', 'dist', '.data', 'test-output']) assert.ok(ignored.includes(dir), `.dockerignore excludes ${dir}`);
});

test("every container that runs the service, a worker's too, keeps the image's /readyz check on the port it listens on", () => {
  const dockerfile = read('Dockerfile').replace(/\\\n/g, ' ');
  assert.match(dockerfile, /^HEALTHCHECK .*CMD .*'\/readyz'/m, "the image's check is /readyz");
  assert.match(dockerfile, /^HEALTHCHECK .*process\.env\.PORT/m, 'on the port the process listens on');
  const running = [...imageServices()].filter(([, block]) => /PROCESS_ROLE:/.test(block));
  assert.deepEqual(running.map(([name]) => name).sort(), ['api', 'worker']);
  for (const [name, block] of running) {
    // A worker serves /readyz now: neither disabled nor replaced (the one it had could not fail: process.exit(0)).
    assert.doesNotMatch(block, /^ {4}healthcheck:/m, `${name}: the image's HEALTHCHECK applies`);
    // The check asks 127.0.0.1:$PORT; PORT=0 (any free port) would leave it nothing to ask.
    assert.doesNotMatch(block, /^ {6}PORT:\s*"?0"?\s*$/m, `${name}: a fixed port the check can reach`);
  }
});

test('migrate waits for a database that takes TCP connections, and a first failure of it is retried', () => {
  const services = composeServices();
  // pg_isready on the unix socket answers while a new volume's temporary server runs, before the database exists.
  assert.match(services.get('db') ?? '', /pg_isready[^"\n]*(?:-h|--host)[ =]\S+/, 'the db healthcheck asks over TCP');
  assert.match(services.get('migrate') ?? '', /^\s+restart:\s*["']?on-failure/m, 'migrate is retried on failure');
});
