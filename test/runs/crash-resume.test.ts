// A worker process killed with SIGKILL in the middle of scoring: a new worker resumes the run, the
// shortlist equals an uninterrupted run's, and nothing scored before the kill is paid for twice.
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
import { ensureVectorIndex } from '../../src/retrieval/search.js';
import { RunParamsSchema } from '../../src/runs/run-schemas.js';
import { createRunStore } from '../../src/runs/run-store.js';
import { createTestDatabase, connectionUrl } from '../support/database.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fake-llm-server.js';
import { candidate, GO_ROLE } from '../support/fixtures.js';
import { waitFor } from '../support/runtime.js';
import { refOf, refScoredModel } from '../support/ref-scorer.js';
import { childEnv, crashTestEnv } from '../support/service-process.js';
import { TS_NODE_ARGS } from '../support/node-args.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let db: Database;
let fake: FakeLlmServer;
let orgId: string;
let roleId: string;
const children: ChildProcess[] = [];

before(async () => {
  fake = await startFakeLlmServer();
  db = await createTestDatabase({ embeddedMaxConnections: 40 });
  const embedder = createLocalEmbedder();
  await ensureVectorIndex(db, embedder.model, embedder.dimension);
  orgId = await createApiKeyStore(db).ensureOrganisation('default');
  const pool = Array.from({ length: 14 }, (_, i) =>
    candidate(`k${i}`, { resume: `Ref-${i}. Go engineer with Kubernetes and gRPC, ${i + 2} years of PostgreSQL services.` }),
  );
  await createCandidateService({ db, store: createCandidateStore(db), embedder }).upsert(orgId, pool);
  roleId = (await createRoleStore(db).create(orgId, GO_ROLE)).id;
});

after(async () => {
  for (const c of children) c.kill('SIGKILL');
  await db?.close();
  await fake?.close();
});

function startWorker(): ChildProcess {
  const child = spawn(process.execPath, [...TS_NODE_ARGS, 'src/main.ts'], {
    cwd: ROOT,
    env: childEnv({
      PROCESS_ROLE: 'worker',
      // Workers serve their operations routes; two on one host need ports of their own.
      PORT: '0',
      DATABASE_URL: connectionUrl(db),
      DB_POOL_MAX: '4',
      ...crashTestEnv(fake.url),
      LOG_LEVEL: 'warn',
      BOOTSTRAP_API_KEY: 'tm_crashtest0_key_for_the_default_org',
    }),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.push(child);
  return child;
}

async function newRun(): Promise<string> {
  const params = RunParamsSchema.parse({ maxIterations: 1, scoreLimit: 12, targetStrong: 50 });
  const runs = createRunStore(db);
  const created = await db.withTransaction((tx) => runs.create(tx, { orgId, roleId, engine: 'llm', params, idempotencyKey: null, requestHash: null, maxInFlight: 100 }));
  if (created.outcome !== 'created') throw new Error(`the run was not created: ${created.outcome}`);
  return created.run.id;
}

async function shortlistOf(runId: string) {
  const run = await waitFor(async () => {
    const r = await createRunStore(db).get(orgId, runId);
    return r && ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
  }, 60_000, `run ${runId} to finish`);
  assert.equal(run.status, 'succeeded', JSON.stringify(run.error));
  return run.shortlist.map((e) => ({ candidateId: e.candidateId, totalScore: e.totalScore, subscores: e.subscores }));
}

test('SIGKILL mid-scoring: a new worker resumes, the shortlist matches an uninterrupted run, nothing is scored twice', async () => {
  fake.setHandler(refScoredModel(300));
  const crashed = await newRun();
  const a = startWorker();
  await waitFor(async () => {
    const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM shortlist_entries WHERE run_id = $1', [crashed]);
    return r.rows[0]!.n >= 3;
  }, 60_000, 'three candidates scored before the kill');
  a.kill('SIGKILL');
  await new Promise((resolve) => a.once('exit', resolve));
  const before = (await db.query<{ rationale: string }>('SELECT rationale FROM shortlist_entries WHERE run_id = $1', [crashed])).rows.map((r) => r.rationale.replace('Ref ', ''));
  assert.ok(before.length >= 3 && before.length < 12, `killed in the middle (${before.length} scored)`);

  const b = startWorker();
  const resumed = await shortlistOf(crashed);
  const scorerCalls = fake.requests.filter((r) => r.agent === 'scorer').map(refOf);
  for (const ref of before) {
    assert.equal(scorerCalls.filter((r) => r === ref).length, 1, `Ref-${ref} was scored before the kill and never again`);
  }

  fake.setHandler(refScoredModel(300));
  const clean = await shortlistOf(await newRun());
  assert.deepEqual(resumed, clean, 'the same shortlist as an uninterrupted run');
  assert.equal(resumed.length, 12);
  const resumedEvents = await db.query("SELECT 1 FROM run_events WHERE run_id = $1 AND type = 'run.resumed'", [crashed]);
  assert.equal(resumedEvents.rowCount, 1);
  b.kill('SIGTERM');
  await new Promise((resolve) => b.once('exit', resolve));
});
