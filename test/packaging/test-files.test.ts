// `npm test` runs the files scripts/test-files.ts lists (long ones first): it must list every test file, each once,
// so that a new test file is never silently left out, and a stale name in its ordering must stop the run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { findTestFiles, LONG_FIRST, orderTestFiles } from '../../scripts/test-files.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('npm test runs exactly the files scripts/test-files.ts prints, and stops when it fails', () => {
  const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  // The assignment's status is the script's: && stops there, instead of node --test running its default patterns.
  assert.match(scripts.test!, /&& files=\$\(node --import tsx scripts\/test-files\.ts\) && node --import tsx --test [^$]*\$files$/);
});

test('the script lists every test/**/*.test.ts exactly once, this file too, the long ones first', () => {
  const out = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/test-files.ts'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.equal(out.status, 0, out.stderr);
  const listed = out.stdout.trimEnd().split('\n');
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
  const root = mkdtempSync(path.join(tmpdir(), 'tm-test-files-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  for (const f of ['test/a.test.ts', 'test/deep/er/b.test.ts', 'test/support/helper.ts', 'test/c.test.js', 'test/deep/notes.md']) {
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    writeFileSync(path.join(root, f), '');
  }
  assert.deepEqual(findTestFiles(root), ['test/a.test.ts', 'test/deep/er/b.test.ts']);
});

test('the ordering puts the named files first in its order, keeps every other file, and refuses a stale or doubled name', () => {
  const files = ['test/a.test.ts', 'test/b.test.ts', 'test/c.test.ts', 'test/d.test.ts'];
  assert.deepEqual(orderTestFiles(files, ['test/c.test.ts', 'test/a.test.ts']), ['test/c.test.ts', 'test/a.test.ts', 'test/b.test.ts', 'test/d.test.ts']);
  assert.throws(() => orderTestFiles(files, ['test/gone.test.ts']), /LONG_FIRST names test files that do not exist: test\/gone\.test\.ts/);
  assert.throws(() => orderTestFiles(files, ['test/a.test.ts', 'test/a.test.ts']), /names a file twice: test\/a\.test\.ts/);
});
