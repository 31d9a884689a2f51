// A whole service for a test: embedded database from the cached dump, captured logs, an API key, inject helpers.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { loggerOptions } from '../../src/logger.js';
import { startRuntime, type Runtime } from '../../src/runtime.js';
import { migratedDump, rememberUrl } from './database.js';
import { createPostgresTestDatabase, TEST_DATABASE_URL } from './postgres.js';

export const TEST_API_KEY = 'tm_testkey000_default-organisation-test-key';

export interface TestRuntime extends Runtime {
  apiKey: string;
  /** Every log line the service wrote, parsed. */
  logs: Array<Record<string, unknown>>;
  /** Raw log text, for "never appears in logs" checks. */
  logText(): string;
  auth(key?: string): { authorization: string };
}

/** `now`: the clock the services read (see test/support/clock.ts); real time by default. */
export async function startTestRuntime(env: Record<string, string> = {}, opts: { now?: () => number } = {}): Promise<TestRuntime> {
  // On a PostgreSQL server (TEST_DATABASE_URL): a fresh database of its own, dropped when the runtime closes; unless the
  // test names a database itself (another runtime's, or an embedded one in a directory of its own).
  const postgres = TEST_DATABASE_URL && !env.DATABASE_URL && !env.DATA_DIR ? await createPostgresTestDatabase() : null;
  const config = loadConfig({
    DATA_DIR: 'memory://',
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    LOG_LEVEL: 'debug',
    BOOTSTRAP_API_KEY: TEST_API_KEY,
    WORKER_POLL_MS: '50',
    RUN_HEARTBEAT_MS: '200',
    RUN_LEASE_MS: '2000',
    SHUTDOWN_GRACE_MS: '2000',
    ...env,
  });
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const logger = pino(loggerOptions(config.LOG_LEVEL, { pretty: false }), sink);
  const runtime = await startRuntime(config, { logger, ...(postgres ? {} : { loadDataDir: await migratedDump() }), print: () => {}, now: opts.now }).catch(
    async (err: unknown) => {
      await postgres?.drop();
      throw err;
    },
  );
  await runtime.app.ready();
  const url = postgres?.url ?? (env.DATABASE_URL && !runtime.db.embedded ? env.DATABASE_URL : null);
  if (url) rememberUrl(runtime.db, url);
  return {
    ...runtime,
    async close() {
      await runtime.close();
      await postgres?.drop();
    },
    apiKey: TEST_API_KEY,
    get logs() {
      return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    logText: () => lines.join('\n'),
    auth: (key = TEST_API_KEY) => ({ authorization: `Bearer ${key}` }),
  };
}

/**
 * An API-only service (no built-in worker: the test starts the workers it observes) with `candidates` ingested
 * through the API.
 */
export async function startApiWithCandidates(candidates: unknown[], env: Record<string, string> = {}, opts: { now?: () => number } = {}): Promise<TestRuntime> {
  const rt = await startTestRuntime({ PROCESS_ROLE: 'api', ...env }, opts);
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates } });
  if (res.statusCode !== 200) throw new Error(`ingesting the candidates answered ${res.statusCode}: ${res.body}`);
  return rt;
}

/** Polls a condition without sleeping blindly: resolves as soon as it holds, fails after timeoutMs. */
export async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Starts a run through the API and waits until it has `status`; returns the run as GET answers it then. */
export async function startRunUntil(rt: TestRuntime, payload: object, status: string, timeoutMs = 60_000): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const started = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload });
  if (started.statusCode !== 202) throw new Error(`POST /v1/matching-runs answered ${started.statusCode}: ${started.body}`);
  const id = started.json().id as string;
  return waitFor(async () => {
    const run = (await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() })).json();
    return run.status === status ? run : null;
  }, timeoutMs, `the run to be ${status}`);
}
