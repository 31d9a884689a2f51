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

/** A backend message: its type, its length (itself included), its body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}
const fields = (f: Record<string, string>) => Buffer.concat([...Object.entries(f).map(([k, v]) => Buffer.from(`${k}${v}\0`)), Buffer.from([0])]);

test('an ErrorResponse of severity PANIC in the answer (a log write on a full disk) is reported; other errors and rows saying PANIC are not', async () => {
  const query = new Uint8Array([0x51, 0, 0, 0, 13, ...Buffer.from('SELECT 1'), 0]);
  const answer = async (bytes: Buffer) => {
    const failures: Error[] = [];
    const received: Uint8Array[] = [];
    const fake = {
      isInTransaction: () => true,
      execProtocolRawStream: async (_m: Uint8Array, opts: { onRawData: (d: Uint8Array) => void }) => opts.onRawData(new Uint8Array(bytes)),
    } as unknown as PGlite;
    await extendedProtocolAware(fake, { ms: 0 }, (err) => failures.push(err as Error)).execProtocolRawStream(query, { onRawData: (d) => received.push(d) });
    assert.deepEqual(Buffer.concat(received), bytes, 'the answer is passed on as it came');
    return failures.map((f) => f.message);
  };
  const panic = message('E', fields({ S: 'PANIC', V: 'PANIC', C: '53100', M: 'could not write to log file "000000010000000000000001" at offset 4694016, length 16384: No space left on device' }));
  assert.deepEqual(await answer(Buffer.concat([message('C', Buffer.from('INSERT 0 1\0')), panic])), [
    'PANIC: could not write to log file "000000010000000000000001" at offset 4694016, length 16384: No space left on device',
  ]);
  assert.deepEqual(await answer(message('E', fields({ S: 'ERROR', V: 'ERROR', C: '53100', M: 'could not extend file' }))), [], 'a statement\'s error');
  const row = Buffer.alloc(2 + 4 + 7);
  row.writeInt16BE(1, 0);
  row.writeInt32BE(7, 2);
  row.write('VPANIC!', 6, 'latin1');
  assert.deepEqual(await answer(message('D', row)), [], 'a row whose text says PANIC');

  // PGlite hands an answer over in chunks of 8 KB, which may start inside a message or cut the field in two.
  const big = Buffer.alloc(2 + 4 + 9000, 'x');
  big.writeInt16BE(1, 0);
  big.writeInt32BE(9000, 2);
  const stream = Buffer.concat([message('D', big), panic]);
  const inChunks = async (cuts: number[]) => {
    const failures: Error[] = [];
    const fake = {
      isInTransaction: () => true,
      execProtocolRawStream: async (_m: Uint8Array, opts: { onRawData: (d: Uint8Array) => void }) => {
        let from = 0;
        for (const cut of [...cuts, stream.length]) opts.onRawData(new Uint8Array(stream.subarray(from, (from = cut))));
      },
    } as unknown as PGlite;
    await extendedProtocolAware(fake, { ms: 0 }, (err) => failures.push(err as Error)).execProtocolRawStream(query, { onRawData: () => {} });
    return failures.length;
  };
  assert.equal(await inChunks([8192]), 1, 'a chunk that starts inside a row');
  const field = stream.indexOf(Buffer.from('\0VPANIC\0', 'latin1'));
  assert.equal(await inChunks([8192, field + 4]), 1, 'the field cut between two chunks');
});
