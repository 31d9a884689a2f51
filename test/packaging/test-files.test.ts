// `npm test` runs scripts/test.ts, which runs the files scripts/test-files.ts lists (long ones first): the list must
// hold every test file, each once, so that a new test file is never silently left out; a stale name in its ordering
// must stop the run; the order must be kept; and a failing test must fail the run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { findTestFiles, LONG_FIRST, mayShareProcess, orderTestFiles, planProcesses, processFiles } from '../../scripts/test-files.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function scratch(t: { after(fn: () => void): void }, files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'tm-test-files-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

test('npm test type-checks, then runs scripts/test.ts; no npm script runs node --test on files of its own choosing', () => {
  const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.equal(scripts.test, 'npm run typecheck && exec node --liftoff-only --import tsx scripts/test.ts');
  assert.match(scripts['test:postgres']!, /&& exec node --liftoff-only --import tsx scripts\/test\.ts$/);
  // Another suite run (another database, say) goes through scripts/test.ts too: the same files, in the same order.
  for (const [name, command] of Object.entries(scripts)) assert.doesNotMatch(command, /\s--test(\s|$)/, `npm run ${name}`);
});

test('the list holds every test/**/*.test.ts exactly once, this file too, the long ones first', () => {
  const listed = orderTestFiles(findTestFiles(ROOT));
  // Found independently of the script: Node's own recursive listing.
  const onDisk = (readdirSync(path.join(ROOT, 'test'), { recursive: true }) as string[])
    .map((f) => `test/${f.split(path.sep).join('/')}`)
    .filter((f) => f.endsWith('.test.ts'));
  assert.deepEqual([...listed].sort(), onDisk.sort());
  assert.equal(new Set(listed).size, listed.length, 'no file twice');
  assert.ok(listed.includes('test/packaging/test-files.test.ts'));
  assert.deepEqual(listed.slice(0, LONG_FIRST.length), LONG_FIRST);
});

test('a new test file in any folder is found; support modules are not', (t) => {
  const root = scratch(t, { 'test/a.test.ts': '', 'test/deep/er/b.test.ts': '', 'test/support/helper.ts': '', 'test/c.test.js': '', 'test/deep/notes.md': '' });
  assert.deepEqual(findTestFiles(root), ['test/a.test.ts', 'test/deep/er/b.test.ts']);
});

test('the ordering puts the named files first in its order, keeps every other file, and refuses a stale or doubled name', () => {
  const files = ['test/a.test.ts', 'test/b.test.ts', 'test/c.test.ts', 'test/d.test.ts'];
  assert.deepEqual(orderTestFiles(files, ['test/c.test.ts', 'test/a.test.ts']), ['test/c.test.ts', 'test/a.test.ts', 'test/b.test.ts', 'test/d.test.ts']);
  assert.throws(() => orderTestFiles(files, ['test/gone.test.ts']), /LONG_FIRST names test files that do not exist: test\/gone\.test\.ts/);
  assert.throws(() => orderTestFiles(files, ['test/a.test.ts', 'test/a.test.ts']), /names a file twice: test\/a\.test\.ts/);
});

test('the runner keeps the order it is given (node --test would sort it), and a failing test fails the run', (t) => {
  const root = scratch(t, {
    'z.test.ts': "import { test } from 'node:test';\ntest('z passes', () => {});\n",
    'a.test.ts': "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\ntest('a fails', () => assert.equal(1, 2));\n",
    'm.test.ts': "import { test } from 'node:test';\ntest('m passes', () => {});\n",
  });
  // This process is a test file: its children would be told so (run() then runs nothing).
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const runner = (...files: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'scripts/test.ts', ...files.map((f) => path.join(root, f))], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });

  const failing = runner('z.test.ts', 'a.test.ts', 'm.test.ts');
  assert.equal(failing.status, 1, failing.stdout + failing.stderr);
  const reported = [...failing.stdout.matchAll(/^(?:not )?ok \d+ - (\w) (?:passes|fails)$/gm)].map((m) => m[1]);
  assert.deepEqual(reported, ['z', 'a', 'm'], failing.stdout);

  const passing = runner('m.test.ts', 'z.test.ts');
  assert.equal(passing.status, 0, passing.stdout + passing.stderr);
  assert.deepEqual([...passing.stdout.matchAll(/^ok \d+ - (\w) passes$/gm)].map((m) => m[1]), ['m', 'z']);
});

test('a file shares a process only if it changes nothing the others would see: no environment, global, listener or mock', () => {
  const shared = [
    "import { test } from 'node:test';\ntest('a', async (t) => {\n  const rt = await start();\n  t.after(() => rt.close());\n});\n",
    // Reading the environment, comparing a global, a hook inside a test or a suite: its own.
    "const env = { ...process.env, A: '1' };\nif (process.env.CI === 'true') {}\ntest('b', (t) => { t.before(() => {}); t.beforeEach(() => {}); });\n",
    // Root-level hooks attach to the file's own suite in a shared process (processFiles).
    "import { before, test } from 'node:test';\nbefore(async () => { db = await open(); });\ntest('c', () => {});\n",
    "after(() => db.close());\n",
    "beforeEach(() => {});\n",
    "afterEach(() => {});\n",
  ];
  const alone = [
    "process.env.LOG_LEVEL = 'debug';\n",
    "process.env['RUN_LEASE_MS'] ??= '500';\n",
    'delete process.env.DATABASE_URL;\n',
    'Object.assign(process.env, { A: 1 });\n',
    "test('d', (t) => { t.mock.timers.enable(); });\n",
    "test('e', (t) => { t.mock.method(console, 'log'); });\n",
    'globalThis.fetch = fake;\n',
    "process.on('unhandledRejection', () => {});\n",
    "process.once('exit', () => {});\n",
    'process.chdir(dir);\n',
    'process.exitCode = 1;\n',
  ];
  for (const source of shared) assert.equal(mayShareProcess(source), true, source);
  for (const source of alone) assert.equal(mayShareProcess(source), false, source);
});

test('the plan runs the long files alone first, then groups the files that may share a process, and every file once', () => {
  const files = ['test/long-b.test.ts', 'test/long-a.test.ts', ...'cdefghijkl'.split('').map((c) => `test/${c}.test.ts`)];
  const alone = new Set(['test/e.test.ts', 'test/j.test.ts']);
  const plan = planProcesses(files, (f) => !alone.has(f), ['test/long-b.test.ts', 'test/long-a.test.ts'], 3);
  assert.deepEqual(plan, [
    ['test/long-b.test.ts'],
    ['test/long-a.test.ts'],
    ['test/e.test.ts'],
    ['test/c.test.ts', 'test/d.test.ts', 'test/f.test.ts'],
    ['test/g.test.ts', 'test/h.test.ts', 'test/i.test.ts'],
    ['test/j.test.ts'],
    ['test/k.test.ts', 'test/l.test.ts'],
  ]);
  // The suite's own plan: every file exactly once, the long ones first and alone.
  const listed = orderTestFiles(findTestFiles(ROOT));
  const suite = planProcesses(listed, (f) => mayShareProcess(readFileSync(path.join(ROOT, f), 'utf8')));
  assert.deepEqual(suite.flat().sort(), [...listed].sort());
  assert.deepEqual(suite.slice(0, LONG_FIRST.length), LONG_FIRST.map((f) => [f]));
  assert.ok(suite.some((p) => p.length > 1), 'some files share a process');
});

test('files sharing a process run in the order given, each with its own root-level hooks, each test reported, and a failing one fails the run', (t) => {
  // z and m open something in a root-level before hook and close it in an after hook; their tests see only their own
  // open, so neither file's hooks run around the other's tests (nor all at the process's start and end).
  const scoped = (name: string) =>
    [
      "import assert from 'node:assert/strict';",
      "import { after, before, test } from 'node:test';",
      "import { open } from './open.ts';",
      `before(() => { open.add('${name}'); });`,
      `after(() => { open.delete('${name}'); });`,
      `test('${name} passes', () => assert.deepEqual([...open], ['${name}']));`,
      '',
    ].join('\n');
  const root = scratch(t, {
    'test/open.ts': 'export const open = new Set<string>();\n',
    'test/z.test.ts': scoped('z'),
    'test/a.test.ts': "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\ntest('a fails', () => assert.equal(1, 2));\n",
    'test/m.test.ts': scoped('m'),
  });
  const groups = path.join(root, 'groups');
  mkdirSync(groups);
  assert.deepEqual(processFiles([['test/m.test.ts']], root, () => assert.fail('no group, no folder')), [path.join(root, 'test/m.test.ts')]);
  const entries = processFiles([['test/z.test.ts', 'test/a.test.ts', 'test/m.test.ts'], ['test/m.test.ts']], root, () => groups);
  assert.equal(entries[1], path.join(root, 'test/m.test.ts'), 'a file alone is run as it is');
  assert.match(path.basename(entries[0]!), /^000-z--m\.test\.mjs$/);
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/test.ts', entries[0]!], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 1, run.stdout + run.stderr);
  assert.deepEqual([...run.stdout.matchAll(/^ *(ok|not ok) \d+ - (\w) (?:passes|fails)$/gm)].map((m) => `${m[2]} ${m[1]}`), ['z ok', 'a not ok', 'm ok'], run.stdout);
  assert.match(run.stdout, /^# tests 3$/m);
  // Each file's tests are reported under its path.
  assert.deepEqual([...run.stdout.matchAll(/^(?:not )?ok \d+ - (test\/\w\.test\.ts)$/gm)].map((m) => m[1]), ['test/z.test.ts', 'test/a.test.ts', 'test/m.test.ts'], run.stdout);
});
