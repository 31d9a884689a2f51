// An in-memory service for a script: embedded database from the cached migrated dump, quiet logs, an API key, helpers.
import { pino } from 'pino';
import type { CandidateInput } from '../../src/candidates/candidate-schemas.js';
import { loadConfig } from '../../src/config.js';
import { loggerOptions } from '../../src/logger.js';
import type { Run } from '../../src/runs/run-schemas.js';
import { startRuntime, type Runtime } from '../../src/runtime.js';
import { migratedDump } from '../../test/support/database.js';
import { createPostgresDatabase, type PostgresTestDatabase } from '../../test/support/postgres.js';

export const SCRIPT_API_KEY = 'tm_benchkey00_talent-matcher-scripts-only-key';
export const INGEST_BATCH = 500;

export interface ScriptRuntime extends Runtime {
  orgId: string;
  auth: { authorization: string };
}

/**
 * Defaults that keep the service's own limits out of a measurement: no rate limits, warnings only (the rest as shipped).
 * One pooled connection unless DB_POOL_MAX is set: the embedded database executes one statement at a time, and with
 * the default pool of 10 the concurrent benchmark measured fewer model calls per second (docs/benchmarks.md).
 */
export const SCRIPT_SERVICE_ENV: Record<string, string> = {
  LOG_LEVEL: 'warn',
  BOOTSTRAP_API_KEY: SCRIPT_API_KEY,
  MATCH_ENGINE: 'heuristic',
  RATE_LIMIT_WRITES_PER_MINUTE: '1000000',
  RATE_LIMIT_RUNS_PER_MINUTE: '1000000',
  MAX_RUNS_IN_FLIGHT_PER_ORG: '10000',
  DB_POOL_MAX: process.env.DB_POOL_MAX ?? (process.env.BENCH_DATABASE_URL ? '10' : '1'),
};

/**
 * BENCH_DATABASE_URL names a PostgreSQL server (with pgvector, where the user may create databases): a benchmark's
 * service then gets a fresh migrated database there, dropped when it stops, instead of the embedded database.
 */
export async function benchDatabase(): Promise<PostgresTestDatabase | null> {
  const server = process.env.BENCH_DATABASE_URL;
  return server ? createPostgresDatabase(server, { prefix: 'tm_bench' }) : null;
}

/** The service in this process, on an in-memory database loaded from the cached migrated dump (or BENCH_DATABASE_URL). */
export async function openRuntime(env: Record<string, string> = {}): Promise<ScriptRuntime> {
  const postgres = await benchDatabase();
  const config = loadConfig({ DATA_DIR: 'memory://', ...SCRIPT_SERVICE_ENV, ...(postgres ? { DATABASE_URL: postgres.url } : {}), ...env });
  const logger = pino(loggerOptions(config.LOG_LEVEL, { pretty: false }), pino.destination(2));
  const runtime = await startRuntime(config, { logger, ...(postgres ? {} : { loadDataDir: await migratedDump() }), print: () => {} });
  await runtime.app.ready();
  const caller = await runtime.services.apiKeys.verify(SCRIPT_API_KEY);
  if (!caller) throw new Error('the bootstrap key was not registered');
  return {
    ...runtime,
    orgId: caller.orgId,
    auth: { authorization: `Bearer ${SCRIPT_API_KEY}` },
    async close() {
      await runtime.close();
      await postgres?.drop();
    },
  };
}

/** Upserts through the candidate service in batches; returns the service's id for each externalId. */
export async function ingest(rt: ScriptRuntime, inputs: CandidateInput[], batch = INGEST_BATCH): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (let i = 0; i < inputs.length; i += batch) {
    for (const item of await rt.services.candidates.upsert(rt.orgId, inputs.slice(i, i + batch))) ids.set(item.externalId, item.id);
  }
  return ids;
}

/** POST /v1/matching-runs through the app; returns the run id. */
export async function startRun(rt: ScriptRuntime, body: Record<string, unknown>): Promise<string> {
  const res = await rt.app.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth, payload: body });
  if (res.statusCode !== 202) throw new Error(`POST /v1/matching-runs answered ${res.statusCode}: ${res.body}`);
  return (res.json() as { id: string }).id;
}

export async function getRun(rt: ScriptRuntime, id: string): Promise<Run> {
  const res = await rt.app!.inject({ method: 'GET', url: `/v1/matching-runs/${id}`, headers: rt.auth });
  if (res.statusCode !== 200) throw new Error(`GET /v1/matching-runs/${id} answered ${res.statusCode}: ${res.body}`);
  return res.json() as Run;
}

const FINISHED = new Set(['succeeded', 'failed', 'cancelled']);

/**
 * Polls the runs' status with the cheap read the API's 304 path uses (no shortlist), then GETs each finished run
 * once through the API: polling must not load the database it is measuring.
 */
export async function waitForRuns(rt: ScriptRuntime, ids: string[], opts: { timeoutMs?: number; pollMs?: number } = {}): Promise<Map<string, Run>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30 * 60_000);
  const done = new Map<string, Run>();
  for (;;) {
    for (const id of ids) {
      if (done.has(id)) continue;
      const { status } = await rt.services.runs.version(rt.orgId, id);
      if (FINISHED.has(status)) done.set(id, await getRun(rt, id));
    }
    if (done.size === ids.length) return done;
    if (Date.now() > deadline) throw new Error(`${ids.length - done.size} run(s) still unfinished after the timeout`);
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 100));
  }
}

export interface RunEvent {
  seq: number;
  at: string;
  type: string;
  data: Record<string, unknown>;
}

export async function runEvents(rt: ScriptRuntime, id: string): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  let after = 0;
  for (;;) {
    const res = await rt.app!.inject({ method: 'GET', url: `/v1/matching-runs/${id}/events?after=${after}&limit=100`, headers: rt.auth });
    const page = res.json() as { items: RunEvent[]; nextCursor: string | null };
    out.push(...page.items);
    if (!page.nextCursor) return out;
    after = Number(page.nextCursor);
  }
}
