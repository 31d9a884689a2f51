// A run's writes carry an id, so that one whose connection was lost after it was sent (it may have committed) can be
// sent again: landed already, it changes nothing, and the run goes on in the same attempt instead of failing it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { openDatabase, type Database } from '../../src/db/database.js';
import { DatabaseFaultError } from '../../src/errors.js';
import { initialContext } from '../../src/matching/context.js';
import { createRunQueue } from '../../src/runs/run-queue.js';
import { LeaseLostError } from '../../src/runs/run-writes.js';
import { leasedWrites } from '../../src/runs/while-leased.js';
import { connectionUrl } from '../support/database.js';
import { TEST_DATABASE_URL } from '../support/postgres.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startApiWithCandidates, waitFor, type TestRuntime } from '../support/runtime.js';
import { startTestWorker } from '../support/worker.js';

let rt: TestRuntime;
before(async () => {
  rt = await startApiWithCandidates(backendPool());
});
after(() => rt.close());

async function startRun(body: Record<string, unknown>): Promise<string> {
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: body });
  assert.equal(res.statusCode, 202, res.body);
  return res.json().id as string;
}

const stateOf = async (runId: string) => ({
  run: (await rt.db.query<{ version: number; event_seq: number; status: string }>('SELECT version, event_seq, status FROM matching_runs WHERE id = $1', [runId])).rows[0]!,
  events: (await rt.db.query<{ seq: number; type: string }>('SELECT seq, type FROM run_events WHERE run_id = $1 ORDER BY seq', [runId])).rows,
  entries: (await rt.db.query<{ candidate_id: string }>('SELECT candidate_id FROM shortlist_entries WHERE run_id = $1', [runId])).rows.length,
  trail: (await rt.db.query<{ kind: string }>('SELECT kind FROM run_trace WHERE run_id = $1 ORDER BY id', [runId])).rows.map((r) => r.kind),
});

test('each write of a run, sent twice with one id, is applied once; a write of another id from a worker that lost the lease is refused', async () => {
  const runId = await startRun({ role: GO_ROLE, maxIterations: 1 });
  const queue = createRunQueue(rt.db, { workerId: 'write-ids', leaseMs: 3_600_000, maxAttempts: 3 });
  const claimed = await queue.claim();
  assert.equal(claimed?.id, runId);
  const ctx = initialContext({ runId, orgId: claimed!.orgId, engine: claimed!.engine, role: GO_ROLE, params: claimed!.params });
  const twice = async (write: (writeId: string) => Promise<unknown>) => {
    const writeId = randomUUID();
    const first = await write(writeId);
    const once = await stateOf(runId);
    assert.deepEqual(await write(writeId), first, 'the second send answers as the first did');
    assert.deepEqual(await stateOf(runId), once, 'and changes nothing');
    return once;
  };
  await twice((id) => queue.checkpoint({ ...ctx, step: 'retrieve' }, [{ type: 'queries.expanded', data: { iteration: 1 } }], id));
  await twice((id) =>
    queue.saveEntries({ ...ctx, step: 'score' }, [{ candidateId: randomUUID(), externalId: 'x', name: null, status: 'unscored', reason: 'test', retrievalScore: 0.5, iteration: 1 }], id),
  );
  await twice((id) => queue.appendEvent(runId, 'run.retrying', { attempt: 1 }, id));
  const stop = { reason: 'exhausted' as const, iteration: 1, reasoning: 'test' };
  const done = await twice((id) => queue.finish({ ...ctx, stop }, 'succeeded', stop, null, { status: 'succeeded' }, [], id));
  assert.equal(done.run.status, 'succeeded');
  assert.deepEqual(done.events.map((e) => e.type), ['run.queued', 'queries.expanded', 'candidate.unscored', 'run.retrying', 'run.stopped']);
  assert.deepEqual(done.events.map((e) => e.seq), [1, 2, 3, 4, 5]);
  assert.equal(done.entries, 1);
  assert.equal(done.trail.filter((k) => k === 'run.finished').length, 1);

  // Another write after the lease was taken: refused, as before ids.
  const taken = await startRun({ role: GO_ROLE, maxIterations: 1 });
  assert.equal((await queue.claim())?.id, taken);
  await rt.db.query("UPDATE matching_runs SET lease_owner = 'the-new-owner' WHERE id = $1", [taken]);
  await assert.rejects(queue.checkpoint({ ...ctx, runId: taken }, [], randomUUID()), LeaseLostError);
  await rt.db.query("UPDATE matching_runs SET status = 'cancelled', lease_owner = NULL WHERE id = $1", [taken]);
});

test('a worker whose writes land but whose answers are lost goes on in the same attempt, with the timeline of an uninterrupted run', async () => {
  const timeline = async (runId: string) => {
    const s = await stateOf(runId);
    return { types: s.events.map((e) => e.type), seqs: s.events.map((e) => e.seq), entries: s.entries };
  };
  const runWith = async (db: Database) => {
    const worker = startTestWorker(rt, { db });
    try {
      const runId = await startRun({ role: GO_ROLE, maxIterations: 2, scoreLimit: 3 });
      await waitFor(async () => !['queued', 'running'].includes((await stateOf(runId)).run.status), 20_000, 'the run to end');
      return runId;
    } finally {
      await worker.stop(2_000);
    }
  };
  const uninterrupted = await runWith(rt.db);

  // The first checkpoint, the first scored candidates and the finish are committed, then their answers are lost
  // as a cut connection loses them.
  const lost = new Set<string>();
  const kindOf = (text: string) =>
    /A candidate erased since/.test(text) ? 'entries' : /SET checkpoint = \$3, progress/.test(text) ? 'checkpoint' : /SET status = \$3, stop = \$4/.test(text) ? 'finish' : null;
  const lossy: Database = {
    ...rt.db,
    async query<R>(text: string, values?: unknown[]) {
      const answer = await rt.db.query<R>(text, values);
      const kind = kindOf(text);
      if (kind && !lost.has(kind)) {
        lost.add(kind);
        throw new DatabaseFaultError('database_unavailable', new Error('Connection terminated unexpectedly'));
      }
      return answer;
    },
  };
  const interrupted = await runWith(lossy);
  assert.deepEqual([...lost].sort(), ['checkpoint', 'entries', 'finish'], 'each kind of write lost its answer once');
  const row = (await rt.db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM matching_runs WHERE id = $1', [interrupted])).rows[0]!;
  assert.deepEqual(row, { status: 'succeeded', attempts: 1 }, 'no attempt was lost');
  assert.deepEqual(await timeline(interrupted), await timeline(uninterrupted), 'every event and entry once, in order');
});

test('a claim whose answer is lost hands its run back before the next claim: run at once, its attempt not counted', async () => {
  let lostOnce = false;
  const lossy: Database = {
    ...rt.db,
    async query<R>(text: string, values?: unknown[]) {
      const answer = await rt.db.query<R>(text, values);
      if (!lostOnce && /WITH claimed AS/.test(text) && answer.rowCount > 0) {
        lostOnce = true;
        throw new DatabaseFaultError('database_unavailable', new Error('Connection terminated unexpectedly'));
      }
      return answer;
    },
  };
  // A lease of a minute: the run taken by the lost claim would sit leased to this worker, undriven, for all of it.
  const worker = startTestWorker(rt, { db: lossy, leaseMs: 60_000, heartbeatMs: 5_000 });
  try {
    const runId = await startRun({ role: GO_ROLE, maxIterations: 1, scoreLimit: 3 });
    await waitFor(async () => (await stateOf(runId)).run.status === 'succeeded', 15_000, 'the run to end without waiting out its lease');
    assert.ok(lostOnce, 'the claim committed and its answer was lost');
    const row = (await rt.db.query<{ attempts: number }>('SELECT attempts FROM matching_runs WHERE id = $1', [runId])).rows[0]!;
    assert.equal(row.attempts, 1, 'the lost claim is not an attempt');
    assert.equal((await stateOf(runId)).events.filter((e) => e.type === 'run.started').length, 1);
  } finally {
    await worker.stop(2_000);
  }
});

/**
 * A proxy in front of a PostgreSQL server's unix socket whose cut drops the client's side of every connection
 * and keeps the server's open, unread: a connection lost between client and server while a statement runs, as a
 * network cut loses it. The server learns of nothing until it answers, so the statement goes on and commits.
 */
async function cuttableProxy(url: string): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const target = new URL(url);
  const socketDir = target.searchParams.get('host');
  if (!socketDir) throw new Error(`cuttableProxy: ${url} names no socket directory`);
  const upstream = path.join(socketDir, `.s.PGSQL.${target.port || 5432}`);
  const dir = await mkdtemp(path.join(tmpdir(), 'tm-cut-'));
  const pairs: Array<{ client: Socket; server: Socket }> = [];
  const proxy = createServer((client) => {
    const server = connect(upstream);
    pairs.push({ client, server });
    client.pipe(server);
    server.pipe(client);
    client.on('error', () => {});
    server.on('error', () => {});
  });
  await new Promise<void>((resolve) => proxy.listen(path.join(dir, `.s.PGSQL.${target.port || 5432}`), resolve));
  const proxied = new URL(url);
  proxied.searchParams.set('host', dir);
  return {
    url: proxied.toString(),
    cut() {
      for (const { client, server } of pairs) {
        server.unpipe(client);
        server.pause();
        client.destroy();
      }
    },
    async close() {
      for (const { client, server } of pairs) {
        client.destroy();
        server.destroy();
      }
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

test(
  'a write sent again while its first send, its connection cut, still waits for the run\'s row: applied once, and the resend answers as the write would have',
  { skip: TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set: the embedded database runs one statement at a time, so no statement is still running when a resend arrives' },
  async () => {
    const runId = await startRun({ role: GO_ROLE, maxIterations: 1 });
    const opts = { workerId: 'resend-race', leaseMs: 3_600_000, maxAttempts: 3 };
    const queue = createRunQueue(rt.db, opts);
    const claimed = await queue.claim();
    assert.equal(claimed?.id, runId);
    const ctx = { ...initialContext({ runId, orgId: claimed!.orgId, engine: claimed!.engine, role: GO_ROLE, params: claimed!.params }), step: 'retrieve' as const };
    const proxy = await cuttableProxy(connectionUrl(rt.db));
    // The same worker's writes, the first send through a connection the proxy will cut.
    const viaProxy = await openDatabase({ databaseUrl: proxy.url, dataDir: 'unused', poolMax: 1 });
    const cutQueue = createRunQueue(viaProxy, opts);
    const lockWaiters = async () =>
      Number((await rt.db.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows[0]!.n);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    // Another statement (an erasure, the heartbeat) holds the run's row: the write's first send waits for it.
    const holder = rt.db.withTransaction(async (tx) => {
      await tx.query('SELECT 1 FROM matching_runs WHERE id = $1 FOR UPDATE', [runId]);
      locked();
      await held;
    });
    try {
      await isLocked;
      const before = await stateOf(runId);
      const sends: string[] = [];
      const run = { abortReason: null, leaseUntil: Date.now() + 3_600_000 };
      const write = leasedWrites(run, pino({ level: 'silent' }), () => assert.fail('the lease is still this worker\'s'));
      const written = write(async (writeId) => {
        sends.push(writeId);
        if (sends.length > 1) return queue.checkpoint(ctx, [{ type: 'queries.expanded', data: { iteration: 1 } }], writeId);
        const first = cutQueue.checkpoint(ctx, [{ type: 'queries.expanded', data: { iteration: 1 } }], writeId);
        await waitFor(async () => (await lockWaiters()) === 1, 10_000, 'the first send to wait for the row');
        proxy.cut();
        return first;
      });
      // The resend (after the outage's retry interval) waits behind the first send, which is still running.
      await waitFor(async () => (await lockWaiters()) === 2, 10_000, 'the resend to wait for the row too');
      assert.equal(sends.length, 2);
      assert.equal(sends[0], sends[1], 'one id for both sends');
      release();
      await holder;
      assert.deepEqual(await written, { cancelRequested: false }, 'the resend answers as the write would have');
      const after = await stateOf(runId);
      assert.equal(after.run.version, before.run.version + 1, 'the run was written once');
      assert.equal(after.run.event_seq, before.run.event_seq + 1);
      assert.deepEqual(after.events.map((e) => e.type), [...before.events.map((e) => e.type), 'queries.expanded'], 'its event once');
      const row = (await rt.db.query<{ last_write: string; step: string }>("SELECT last_write, checkpoint->>'step' AS step FROM matching_runs WHERE id = $1", [runId])).rows[0]!;
      assert.deepEqual(row, { last_write: sends[0], step: 'retrieve' });
    } finally {
      release();
      await holder.catch(() => {});
      await viaProxy.close();
      await proxy.close();
      await rt.db.query("UPDATE matching_runs SET status = 'cancelled', lease_owner = NULL WHERE id = $1", [runId]);
    }
  },
);
