// The usage sink: the ledger row is written first, and a metrics failure never loses it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createUsageSink } from '../../src/llm/engine.js';
import type { LedgerEntry } from '../../src/llm/ledger.js';
import { createMetrics } from '../../src/metrics.js';

const entry: LedgerEntry = {
  orgId: 'o', runId: 'r', agent: 'scorer', model: 'fake-chat', promptTokens: 10, cachedTokens: 0, completionTokens: 1,
  costUsd: 0.00001, latencyMs: 5, outcome: 'ok', requestId: null, attempt: 1,
};

test('a metrics update that throws does not keep the row from the ledger, and is logged', async () => {
  const written: LedgerEntry[] = [];
  const errors: unknown[] = [];
  const logger = { debug() {}, info() {}, warn() {}, error: (o: unknown) => void errors.push(o) };
  const sink = createUsageSink({ usage: { record: async (e) => void written.push(e) }, metrics: createMetrics({ defaultMetrics: false }), logger });
  // prom-client refuses to decrease a counter: the sink must not let that lose the row.
  await sink.record({ ...entry, promptTokens: -5 });
  assert.equal(written.length, 1);
  assert.equal(errors.length, 1);
});

test('the row is written before the metrics move, and the metrics move even if the write fails', async () => {
  const metrics = createMetrics({ defaultMetrics: false });
  const order: string[] = [];
  const inc = metrics.modelTokens.inc.bind(metrics.modelTokens);
  metrics.modelTokens.inc = ((...args: Parameters<typeof inc>) => {
    order.push('metrics');
    return inc(...args);
  }) as typeof inc;
  const ok = createUsageSink({ usage: { record: async () => void order.push('ledger') }, metrics });
  await ok.record(entry);
  assert.equal(order[0], 'ledger');
  order.length = 0;
  const failing = createUsageSink({ usage: { record: async () => Promise.reject(new Error('db down')) }, metrics });
  await assert.rejects(failing.record(entry), /db down/);
  assert.ok(order.includes('metrics'));
});
