// Real worker processes sharing one database over the wire protocol: each run executes exactly once.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createApiKeyStore } from '../../src/auth/api-keys.js';
import { createCandidateService } from '../../src/candidates/candidate-service.js';
import { createCandidateStore } from '../../src/candidates/candidate-store.js';
import type { Database } from '../../src/db/database.js';
import { createLocalEmbedder } from '../../src/embeddings/local-embedder.js';
import { createRoleStore } from '../../src/roles/role-store.js';
import { RunParamsSchema } from '../../src/runs/run-schemas.js';
import { createRunStore } from '../../src/runs/run-store.js';
import { ensureVectorIndex } from '../../src/retrieval/search.js';
import { createTestDatabase, connectionUrl } from '../support/database.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { waitFor } from '../support/runtime.js';
import { childEnv } from '../support/service-process.js';
import { TS_NODE_ARGS } from '../support/node-args.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let db: Database;
const children: ChildProcess[] = [];

before(async () => {
  db = await createTestDatabase({ embeddedMaxConnections: 40 });
  const embedder = createLocalEmbedder();
  await ensureVectorIndex(db, embedder.model, embedder.dimension);
  const orgId = await createApiKeyStore(db).ensureOrganisation('default');
  await createCandidateService({ db, store: createCandidateStore(db), embedder }).upsert(orgId, backendPool());
  const roles = createRoleStore(db);
  const runs = createRunStore(db);
  const role = await roles.create(orgId, GO_ROLE);
  const params = RunParamsSchema.parse({ maxIterations: 2, scoreLimit: 3, targetStrong: 50 });
  for (let i = 0; i < 20; i++) {
    const created = await db.withTransaction((tx) => runs.create(tx, { orgId, roleId: role.id, engine: 'heuristic', params, idempotencyKey: null, requestHash: null, maxInFlight: 100 }));
    assert.equal(created.outcome, 'created');
  }
});

after(async () => {
  for (const c of children) c.kill('SIGKILL');
  await db?.close();
});

/**
 * A worker process, and when it has started: its start line is logged after the process has its SIGTERM handler. A
 * worker still booting when the runs are all done (the other took them) would be stopped by SIGTERM's default action.
 */
function startWorkerProcess(): { child: ChildProcess; started: Promise<void> } {
  const child = spawn(process.execPath, [...TS_NODE_ARGS, 'src/main.ts'], {
    cwd: ROOT,
    env: childEnv({ PROCESS_ROLE: 'worker', PORT: '0', DATABASE_URL: connectionUrl(db), DB_POOL_MAX: '4', WORKER_CONCURRENCY: '3', WORKER_POLL_MS: '50', LOG_LEVEL: 'info', BOOTSTRAP_API_KEY: 'tm_multiworker_key_for_the_default_org' }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const started = new Promise<void>((resolve, reject) => {
    let out = '';
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('talent-matcher started')) return;
      child.stdout!.off('data', read).resume();
      resolve();
    };
    child.stdout!.on('data', read);
    child.once('exit', (code, signal) => reject(new Error(`the worker exited (${code ?? signal}) before it started: ${out.slice(-2000)}`)));
  });
  return { child, started };
}

test('two worker processes on one database execute each of 20 runs exactly once', async () => {
  const workers = [startWorkerProcess(), startWorkerProcess()];
  await Promise.all(workers.map((w) => w.started));
  await waitFor(async () => {
    const r = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM matching_runs WHERE status = 'succeeded'");
    return r.rows[0]!.n === 20;
  }, 90_000, 'all 20 runs to succeed');
  const starts = await db.query<{ run_id: string; n: number }>(
    "SELECT run_id, count(*)::int AS n FROM run_events WHERE type IN ('run.started', 'run.resumed') GROUP BY run_id",
  );
  assert.equal(starts.rows.length, 20);
  for (const row of starts.rows) assert.equal(row.n, 1, `run ${row.run_id} started once`);
  const attempts = await db.query<{ attempts: number }>('SELECT attempts FROM matching_runs');
  assert.ok(attempts.rows.every((r) => r.attempts === 1));
  const dupes = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM (SELECT run_id, data->>'candidateId' FROM run_events WHERE type = 'candidate.scored' GROUP BY 1, 2 HAVING count(*) > 1) d",
  );
  assert.equal(dupes.rows[0]!.n, 0, 'no candidate scored twice in a run');
  for (const { child: w } of workers) {
    const exited = new Promise((resolve) => w.once('exit', resolve));
    w.kill('SIGTERM');
    assert.equal(await exited, 0, 'a worker exits 0 on SIGTERM');
  }
});
