// The one-process deployment (PROCESS_ROLE=all on the embedded database) killed with SIGKILL mid-scoring: the process
// that owns the database files dies with it. A new process on the same DATA_DIR boots, keeps every committed row,
// resumes the run to the same shortlist as an uninterrupted run, and pays for no scored candidate twice. A second
// process started while the first is alive is refused and leaves the files alone.
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openDatabase } from '../../src/db/database.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fake-llm-server.js';
import { candidate, GO_ROLE } from '../support/fixtures.js';
import { refOf, refScoredModel } from '../support/ref-scorer.js';
import { migratedDataDir } from '../support/data-dir.js';
import { waitFor } from '../support/runtime.js';
import { crashTestEnv, startServiceProcess, type ServiceProcess } from '../support/service-process.js';

const API_KEY = 'tm_crashemb0_key_for_the_default_organisation';
const PARAMS = { maxIterations: 1, scoreLimit: 12, targetStrong: 50 };
const SCORER_DELAY_MS = 400;
let dataDir: string;
let fake: FakeLlmServer;
const started: ServiceProcess[] = [];
const scratch: string[] = [];

before(async () => {
  fake = await startFakeLlmServer();
  // Migrated already: a first boot's initdb and migrations are test/main.test.ts's and test/db/embedded-datadir.test.ts's.
  dataDir = await migratedDataDir('tm-crash-embedded-');
  scratch.push(dataDir);
});

after(async () => {
  for (const p of started) p.child.kill('SIGKILL');
  await Promise.all(started.map((p) => p.exited));
  await fake?.close();
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

async function startService(opts: { prelude?: string } = {}): Promise<ServiceProcess> {
  const service = await startServiceProcess(
    {
      PROCESS_ROLE: 'all',
      DATA_DIR: dataDir,
      ...crashTestEnv(fake.url),
      SHUTDOWN_GRACE_MS: '2000',
      LOG_LEVEL: 'info',
    },
    API_KEY,
    opts,
  );
  started.push(service);
  return service;
}

interface Run {
  id: string;
  status: string;
  shortlist: Array<{ candidateId: string; totalScore: number; subscores: unknown }>;
}

async function startRun(service: ServiceProcess): Promise<string> {
  const res = await service.api<Run>('POST', '/v1/matching-runs', { role: GO_ROLE, ...PARAMS });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.id;
}

async function finishedShortlist(service: ServiceProcess, runId: string) {
  const run = await waitFor(async () => {
    const { body } = await service.api<Run>('GET', `/v1/matching-runs/${runId}`);
    return ['succeeded', 'failed', 'cancelled'].includes(body.status) ? body : null;
  }, 20_000, `run ${runId} to finish`);
  assert.equal(run.status, 'succeeded', JSON.stringify(run));
  return run.shortlist.map((e) => ({ candidateId: e.candidateId, totalScore: e.totalScore, subscores: e.subscores }));
}

/** What a data directory holds for the run, read by opening it in this process (the service must be down). */
async function readState(dir: string, runId: string) {
  const db = await openDatabase({ dataDir: dir, poolMax: 2 });
  try {
    const candidates = await db.query<{ external_id: string }>('SELECT external_id FROM candidates ORDER BY external_id');
    const run = await db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM matching_runs WHERE id = $1', [runId]);
    const entries = await db.query<{ candidate_id: string; total_score: number; subscores: unknown; rationale: string }>(
      'SELECT candidate_id, total_score, subscores, rationale FROM shortlist_entries WHERE run_id = $1 ORDER BY candidate_id',
      [runId],
    );
    const events = await db.query<{ seq: number; type: string; data: unknown }>('SELECT seq, type, data FROM run_events WHERE run_id = $1 ORDER BY seq', [runId]);
    return { candidates: candidates.rows.map((r) => r.external_id), run: run.rows[0], entries: entries.rows, events: events.rows };
  } finally {
    await db.close();
  }
}

test('SIGKILL of the all-in-one process mid-scoring: a new process on the same DATA_DIR keeps every row and resumes the run', async () => {
  fake.setHandler(refScoredModel(SCORER_DELAY_MS));
  const first = await startService();
  await first.ready();

  // A second process on the same files while the first is alive: refused by name, and the first is unharmed.
  const intruder = await startService();
  assert.deepEqual(await intruder.exited, { code: 1, signal: null }, intruder.output());
  assert.match(intruder.output(), new RegExp(`talent-matcher: the embedded database in .* is in use by process ${first.pid}`));
  assert.equal((await fetch(`${first.url}/readyz`)).status, 200);

  const pool = Array.from({ length: 14 }, (_, i) =>
    candidate(`k${i}`, { resume: `Ref-${i}. Go engineer with Kubernetes and gRPC, ${i + 2} years of PostgreSQL services.` }),
  );
  const ingested = await first.api('POST', '/v1/candidates', { candidates: pool });
  assert.equal(ingested.status, 200, JSON.stringify(ingested.body));
  const crashed = await startRun(first);
  await waitFor(async () => {
    const { body } = await first.api<Run>('GET', `/v1/matching-runs/${crashed}`);
    return body.shortlist.length >= 3;
  }, 20_000, 'three candidates scored before the kill');
  first.child.kill('SIGKILL');
  assert.deepEqual(await first.exited, { code: null, signal: 'SIGKILL' });
  const requestsBeforeKill = fake.requests.length;
  // The lock names the pid first (then, on Linux, when that process started).
  assert.equal((await readFile(path.join(dataDir, 'talent-matcher.lock'), 'utf8')).split(' ')[0], String(first.pid), 'the dead process left its lock');

  // What the kill left on disk, read from a copy so that the next process opens the files exactly as they were left.
  const snapshot = await mkdtemp(path.join(tmpdir(), 'tm-crash-embedded-snapshot-'));
  scratch.push(snapshot);
  await cp(dataDir, snapshot, { recursive: true });
  const committed = await readState(snapshot, crashed);
  assert.deepEqual(committed.candidates, pool.map((c) => c.externalId).sort());
  assert.equal(committed.run?.status, 'running');
  assert.ok(committed.entries.length >= 3 && committed.entries.length < 12, `killed in the middle (${committed.entries.length} scored)`);
  const scorerCallsBeforeKill = fake.requests.filter((r) => r.agent === 'scorer').length;
  assert.ok(scorerCallsBeforeKill >= committed.entries.length, 'the fake model answered the scored ones');

  const second = await startService();
  await second.ready();
  assert.doesNotMatch(second.output(), /migrations applied/, 'migrations are a no-op on restart');
  const resumed = await finishedShortlist(second, crashed);
  const scorerCalls = fake.requests.filter((r) => r.agent === 'scorer').map(refOf);
  const agentsAfterKill = new Set(fake.requests.slice(requestsBeforeKill).map((r) => r.agent));
  assert.ok(!agentsAfterKill.has('queryExpander') && !agentsAfterKill.has('reranker'), 'resumed from the checkpoint after the rerank');
  for (const entry of committed.entries) {
    const ref = entry.rationale.replace('Ref ', '');
    assert.equal(scorerCalls.filter((r) => r === ref).length, 1, `Ref-${ref} was scored before the kill and never again`);
  }

  fake.setHandler(refScoredModel(SCORER_DELAY_MS));
  const clean = await finishedShortlist(second, await startRun(second));
  assert.deepEqual(resumed, clean, 'the same shortlist as an uninterrupted run');
  assert.equal(resumed.length, 12);

  second.child.kill('SIGTERM');
  assert.deepEqual(await second.exited, { code: 0, signal: null }, second.output());
  const final = await readState(dataDir, crashed);
  assert.deepEqual(final.candidates, committed.candidates);
  assert.equal(final.run?.status, 'succeeded');
  assert.equal(final.run?.attempts, 2, 'claimed once more after the kill');
  for (const entry of committed.entries) {
    assert.deepEqual(final.entries.find((e) => e.candidate_id === entry.candidate_id), entry, 'an entry written before the kill is kept as it was');
  }
  assert.deepEqual(final.events.slice(0, committed.events.length), committed.events, 'the events before the kill are kept as they were');
  assert.equal(final.events.filter((e) => e.type === 'run.resumed').length, 1);
});

// In a container the service is pid 1 at every start: the lock a killed one left names the pid the next one has.
test('a lock left by a killed process whose pid the new process has (a container restarted) does not block the boot', async () => {
  for (const p of started) p.child.kill('SIGKILL');
  await Promise.all(started.map((p) => p.exited));
  const lock = path.join(dataDir, 'talent-matcher.lock');
  const restarted = await startService({ prelude: `printf %s "$$" > '${lock}'` });
  await restarted.ready(20_000);
  assert.equal((await readFile(lock, 'utf8')).split(' ')[0], String(restarted.pid), 'the lock is held by the new process');
  restarted.child.kill('SIGTERM');
  assert.deepEqual(await restarted.exited, { code: 0, signal: null }, restarted.output());
});
