// Prometheus metrics: one registry per process (or per test app), bounded label sets, no ids in labels.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createMetrics(opts: { defaultMetrics?: boolean } = {}) {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  return {
    registry,
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route pattern, method and status.',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    runsStarted: new Counter({ name: 'matching_runs_started_total', help: 'Matching runs claimed by a worker for the first time.', labelNames: ['engine'] as const, registers }),
    runsFinished: new Counter({
      name: 'matching_runs_finished_total',
      help: 'Matching runs finished, by status and stop reason.',
      labelNames: ['status', 'reason'] as const,
      registers,
    }),
    budgetStops: new Counter({ name: 'matching_runs_budget_stops_total', help: 'Runs stopped because a budget was reached.', registers }),
    queueDepth: new Gauge({ name: 'matching_runs_queue_depth', help: 'Runs waiting to be claimed.', registers }),
    oldestQueuedAge: new Gauge({ name: 'matching_runs_oldest_queued_age_seconds', help: 'Age of the oldest queued run.', registers }),
    modelCallDuration: new Histogram({
      name: 'model_call_duration_seconds',
      help: 'Model call attempt duration by agent, model and outcome.',
      labelNames: ['agent', 'model', 'outcome'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
      registers,
    }),
    modelTokens: new Counter({
      name: 'model_tokens_total',
      help: 'Tokens of model calls by agent, model and kind (prompt, cached, completion).',
      labelNames: ['agent', 'model', 'kind'] as const,
      registers,
    }),
    modelCost: new Counter({ name: 'model_cost_usd_total', help: 'Cost of model calls in USD.', labelNames: ['agent', 'model', 'outcome'] as const, registers }),
    structuredReasks: new Counter({ name: 'structured_output_reasks_total', help: 'Re-asks after an invalid structured answer.', labelNames: ['agent'] as const, registers }),
    unscoredCandidates: new Counter({ name: 'candidates_unscored_total', help: 'Candidates left unscored after the re-ask bound.', registers }),
    dbPool: new Gauge({ name: 'db_pool_connections', help: 'Database pool connections by state.', labelNames: ['state'] as const, registers }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
