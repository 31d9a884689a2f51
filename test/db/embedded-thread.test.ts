// Under tsx (as here), the embedded database's thread starts from one module compiled from its .ts files, not from
// tsx's loader in the thread: the module must name every package by the file it resolves to (a data: URL has no
// node_modules to look in), and a failure in the thread must name the source it came from, not the base64 module.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startEmbedded } from '../../src/db/embedded.js';
import { threadEntry } from '../../src/db/thread-entry.js';

test("the thread's module imports node's modules and files only, and is compiled once per process", () => {
  const entry = threadEntry();
  assert.equal(entry.protocol, 'data:');
  assert.equal(threadEntry(), entry, 'the same module for every database the process starts');
  const source = Buffer.from(entry.pathname.slice(entry.pathname.indexOf(',') + 1), 'base64').toString('utf8');
  const specifiers = [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)"([^"]+)"/g)].map((m) => m[1]!);
  assert.ok(specifiers.some((s) => s.endsWith('/@electric-sql/pglite/dist/index.js')), specifiers.join(', '));
  for (const s of specifiers) assert.match(s, /^(node:|file:\/\/\/)/, `${s}: not a package name a data: URL cannot resolve`);
  assert.doesNotMatch(source, /\btsx\b/, 'no tsx in the thread');
});

test("a thread that fails to start names embedded-thread.ts in its stack, not the module's data: URL", async () => {
  const failed = await startEmbedded({ dataDir: 'memory://', loadDataDir: new Uint8Array([1, 2, 3]), maxConnections: 1 }).then(
    () => assert.fail('a tarball of three bytes started a database'),
    (err: Error) => err,
  );
  assert.match(String(failed.stack), /src\/db\/embedded-thread\.ts\?bundled:\d+:\d+/);
  assert.doesNotMatch(String(failed.stack), /data:/);
});
