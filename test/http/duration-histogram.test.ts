// The HTTP duration histogram is exposed exactly as prom-client's Histogram would expose the same observations.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Histogram, Registry } from 'prom-client';
import { LabelledHistogram } from '../../src/metrics.js';

test('LabelledHistogram: the same exposition as prom-client’s Histogram for the same observations', async () => {
  const buckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
  const config = { name: 'http_request_duration_seconds', help: 'HTTP request duration.', labelNames: ['method', 'route', 'status'] as const, buckets };
  const ours = new Registry();
  const theirs = new Registry();
  const fast = new LabelledHistogram({ ...config, registers: [ours] });
  const reference = new Histogram({ ...config, registers: [theirs] });
  const observations: Array<[string, string, string, number]> = [
    ['GET', '/v1/matching-runs/:id', '304', 0.0004],
    ['GET', '/v1/matching-runs/:id', '304', 0.001],
    ['GET', '/v1/matching-runs/:id', '200', 0.02],
    ['POST', '/v1/candidates', '200', 7],
    ['GET', 'unmatched', '404', 0.3],
    ['GET', '/v1/matching-runs/:id', '304', 0],
  ];
  fast.labels('GET', '/never', '200'); // a child that never observes has no series, as in prom-client
  for (const [method, route, status, seconds] of observations) {
    fast.labels(method, route, status).observe(seconds);
    reference.labels(method, route, status).observe(seconds);
  }
  assert.equal(await ours.metrics(), await theirs.metrics());
  assert.deepEqual(await ours.getMetricsAsJSON(), await theirs.getMetricsAsJSON());
  assert.throws(() => fast.labels('GET', '/x', '200').observe(Number.NaN), /not a valid number/);
  ours.resetMetrics();
  theirs.resetMetrics();
  assert.equal(await ours.metrics(), await theirs.metrics());
});
