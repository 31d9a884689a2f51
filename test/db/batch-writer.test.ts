// Write-behind with group commit: batches, flush semantics, and a bad row that loses only itself.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createBatchWriter } from '../../src/db/batch-writer.js';

function recorder(opts: { failWhen?: (items: number[]) => boolean; delayMs?: number } = {}) {
  const batches: number[][] = [];
  const lost: number[] = [];
  const writer = createBatchWriter<number>({
    async writeBatch(items) {
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      if (opts.failWhen?.(items)) throw new Error('bad batch');
      batches.push([...items]);
    },
    onLost: (_err, item) => lost.push(item),
    retries: 1,
    retryDelayMs: 1,
  });
  return { writer, batches, lost };
}

test('items added in one turn share a batch; items added during a write go in the next one', async () => {
  const { writer, batches } = recorder({ delayMs: 20 });
  for (let i = 0; i < 15; i++) writer.add(i);
  await new Promise((r) => setTimeout(r, 5));
  writer.add(15);
  writer.add(16);
  await writer.flush();
  assert.deepEqual(batches, [[...Array(15).keys()], [15, 16]]);
  assert.equal(writer.backlog, 0);
});

test('flush waits for what was added before it, and resolves at once when nothing is pending', async () => {
  const { writer, batches } = recorder({ delayMs: 10 });
  await writer.flush();
  writer.add(1);
  const flushed = writer.flush();
  writer.add(2);
  await flushed;
  assert.ok(batches.flat().includes(1));
  await writer.flush();
  assert.deepEqual(batches.flat(), [1, 2]);
});

test('a batch that keeps failing is written item by item: only the bad item is lost, and flush still resolves', async () => {
  const { writer, batches, lost } = recorder({ failWhen: (items) => items.includes(3) });
  for (const i of [1, 2, 3, 4]) writer.add(i);
  await writer.flush();
  assert.deepEqual(lost, [3]);
  assert.deepEqual(batches.flat().sort(), [1, 2, 4]);
});

test('a transient failure is retried as a whole batch', async () => {
  let failures = 1;
  const { writer, batches, lost } = recorder({ failWhen: () => failures-- > 0 });
  for (const i of [1, 2, 3]) writer.add(i);
  await writer.flush();
  assert.deepEqual(batches, [[1, 2, 3]]);
  assert.deepEqual(lost, []);
});

test('with a linger, rows wait for company; flush ends the wait', async () => {
  const batches: number[][] = [];
  const writer = createBatchWriter<number>({ writeBatch: async (items) => void batches.push([...items]), onLost: () => {}, lingerMs: 10_000 });
  writer.add(1);
  await new Promise((r) => setTimeout(r, 20));
  writer.add(2);
  assert.deepEqual(batches, [], 'nothing written while lingering');
  const started = Date.now();
  await writer.flush();
  assert.ok(Date.now() - started < 5_000, 'flush did not wait for the linger');
  assert.deepEqual(batches, [[1, 2]]);
});

test('rows the database stays away for past the wait, or at a shutdown, are reported lost together after one write each', async () => {
  for (const shutdown of [false, true]) {
    let writes = 0;
    const lost: number[] = [];
    const away = new Error('database away');
    const writer = createBatchWriter<number>({
      async writeBatch() {
        writes++;
        throw away;
      },
      onLost: (err, item) => {
        assert.equal(err, away);
        lost.push(item);
      },
      retries: 2,
      retryDelayMs: 1,
      outage: { is: (err) => err === away, waitMs: shutdown ? 60_000 : 30, retryMs: 10 },
    });
    if (shutdown) writer.stopWaiting();
    for (const i of [1, 2, 3, 4]) writer.add(i);
    await writer.flush();
    assert.deepEqual(lost, [1, 2, 3, 4]);
    // No retries of a batch the database was away for, and no row-by-row pass: each write would wait on it again.
    if (shutdown) assert.equal(writes, 1, 'a shutdown does not wait: one write');
    else assert.ok(writes >= 2 && writes <= 6, `the wait's writes only: ${writes}`);
  }
});
