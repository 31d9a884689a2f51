// Starts a worker on a test runtime with agents a test can slow down, break or observe.
import { createAgentsFactory } from '../../src/agents/create-agents.js';
import type { Agents } from '../../src/agents/types.js';
import type { Database } from '../../src/db/database.js';
import { createSearch } from '../../src/retrieval/search.js';
import { startWorker, type WorkerDeps, type WorkerOptions } from '../../src/runs/worker.js';
import type { TestRuntime } from './runtime.js';

/**
 * `callContextFor` wraps the factory's: a test can observe what a claim reads, then delegate. `db` is the database the
 * worker's run queue writes through (the runtime's unless given: a test can lose its answers).
 */
export function startTestWorker(
  rt: TestRuntime,
  opts: { wrap?: (agents: Agents) => Agents; callContextFor?: (original: WorkerDeps['callContextFor']) => WorkerDeps['callContextFor']; db?: Database } & Partial<WorkerOptions> = {},
) {
  const factory = createAgentsFactory(rt.config, rt.services);
  const { wrap, callContextFor, db, ...overrides } = opts;
  const search = createSearch({ db: rt.db, embedder: rt.services.embedder });
  return startWorker(
    {
      db: db ?? rt.db,
      logger: rt.logger,
      metrics: rt.services.metrics,
      journal: rt.services.journal,
      candidateStore: rt.services.candidateStore,
      search,
      ...factory,
      agentsFor: (engine) => (wrap ? wrap(factory.agentsFor(engine)) : factory.agentsFor(engine)),
      callContextFor: callContextFor ? callContextFor(factory.callContextFor) : factory.callContextFor,
      onRunQueued: rt.services.onRunQueued,
    },
    {
      concurrency: 4,
      pollMs: 50,
      leaseMs: 1000,
      heartbeatMs: 200,
      maxAttempts: 3,
      deadlineMs: 60_000,
      globalScoreConcurrency: 8,
      ...overrides,
    },
  );
}

/** A gate a test opens when it is ready: agents wait on it to stay "in flight". */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}
