// The proxy that lets many wire-protocol connections share one PGlite: a message PGlite throws on is reported.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PGlite } from '@electric-sql/pglite';
import { extendedProtocolAware } from '../../src/db/extended-protocol.js';

test('a message PGlite throws on (a WebAssembly abort) is reported to onFailure and still rejected', async () => {
  const query = new Uint8Array([0x51, 0, 0, 0, 13, ...Buffer.from('SELECT 1'), 0]);
  for (const throws of ['async', 'sync'] as const) {
    // What a WebAssembly trap throws (RuntimeError: unreachable).
    const abort = Object.assign(new Error('unreachable'), { name: 'RuntimeError' });
    const broken = {
      isInTransaction: () => false,
      execProtocolRawStream: throws === 'async' ? async () => Promise.reject(abort) : () => { throw abort; },
    } as unknown as PGlite;
    const failures: unknown[] = [];
    const shared = extendedProtocolAware(broken, { ms: 0 }, (err) => failures.push(err));
    await assert.rejects(Promise.resolve().then(() => shared.execProtocolRawStream(query, { onRawData: () => {} })), (err) => err === abort);
    assert.deepEqual(failures, [abort], throws);
  }
  // A statement's own error is an answer in the stream, not a throw: nothing is reported.
  const answering = { isInTransaction: () => false, execProtocolRawStream: async () => {} } as unknown as PGlite;
  const failures: unknown[] = [];
  await extendedProtocolAware(answering, { ms: 0 }, (err) => failures.push(err)).execProtocolRawStream(query, { onRawData: () => {} });
  assert.deepEqual(failures, []);
});
