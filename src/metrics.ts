// Prometheus metrics: one registry per process (or per test app), bounded label sets, no ids in labels.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';

interface Series {
  labels: Record<string, string>;
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * A histogram exposed exactly like prom-client's (same families, labels and order), whose labelled children observe
 * with a loop over the bounds and three additions. prom-client's child validates and hashes its labels and looks the
 * series up on every observation, a few microseconds that every HTTP request paid in its duration hook.
 */
export class LabelledHistogram<T extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly T[];
  readonly upperBounds: readonly number[];
  readonly #series = new Map<string, Series>();

  constructor(config: { name: string; help: string; labelNames: readonly T[]; buckets: number[]; registers: Registry[] }) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    this.upperBounds = [...config.buckets].sort((a, b) => a - b);
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** The child for these label values, in labelNames order. */
  labels(...values: string[]): { observe(value: number): void } {
    if (values.length !== this.labelNames.length) throw new Error(`${this.name}: expected ${this.labelNames.length} label values, got ${values.length}`);
    const key = values.join('\u0000');
    let series = this.#series.get(key);
    if (!series) {
      series = { labels: Object.fromEntries(this.labelNames.map((n, i) => [n, String(values[i])])), counts: new Float64Array(this.upperBounds.length + 1), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    const s = series;
    const bounds = this.upperBounds;
    return {
      observe(value: number) {
        if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
        let i = 0;
        while (i < bounds.length && value > bounds[i]!) i++;
        s.counts[i]!++;
        s.sum += value;
        s.count++;
      },
    };
  }

  /** Like prom-client's reset: no series until observed again (children stay valid). */
  reset(): void {
    for (const s of this.#series.values()) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }

  /** The values in prom-client's form: per series, cumulative buckets, +Inf, sum and count. */
  getForPromString() {
    const values: Array<{ labels: Record<string, string | number>; sharedLabels: Record<string, string>; value: number; metricName: string; exemplar: null | undefined }> = [];
    for (const s of this.#series.values()) {
      if (s.count === 0) continue;
      let acc = 0;
      this.upperBounds.forEach((le, i) => {
        acc += s.counts[i]!;
        values.push({ labels: { le }, sharedLabels: s.labels, value: acc, metricName: `${this.name}_bucket`, exemplar: null });
      });
      values.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_bucket`, exemplar: null });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum`, exemplar: undefined });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count`, exemplar: undefined });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** As prom-client's get(): every label on the value itself. */
  async get() {
    const data = this.getForPromString();
    return { ...data, values: data.values.map(({ labels, sharedLabels, ...v }) => ({ ...v, labels: { ...labels, ...sharedLabels } })) };
  }
}

export function createMetrics(opts: { defaultMetrics?: boolean } = {}) {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  return {
    registry,
    httpDuration: new LabelledHistogram({
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
    // Parts of one whole (their sum is the pool's connections), as Prometheus's sum over a label expects; the requests
    // waiting for a connection are no connections, and have their own gauge.
    dbPool: new Gauge({ name: 'db_pool_connections', help: 'Database pool connections by state (in_use, idle).', labelNames: ['state'] as const, registers }),
    dbPoolWaiting: new Gauge({ name: 'db_pool_waiting_requests', help: 'Requests waiting for a database pool connection.', registers }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
