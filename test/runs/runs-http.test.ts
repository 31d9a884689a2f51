import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Agents } from '../../src/agents/types.js';
import { initialContext } from '../../src/matching/context.js';
import { DATABASE_ERROR_DETAIL } from '../../src/runs/run-error.js';
import { createRunQueue } from '../../src/runs/run-queue.js';
import { testClock } from '../support/clock.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startApiWithCandidates, waitFor, type TestRuntime } from '../support/runtime.js';
import { gate, startTestWorker } from '../support/worker.js';

let rt: TestRuntime;
// The caches' clock: real time, except where a test stops it to age a cached answer by exactly what it says.
const clock = testClock();
before(async () => {
  // No built-in worker: each test starts the worker it needs.
  // A short cache time, so a test can see a cached answer expire.
  rt = await startApiWithCandidates(backendPool(), { CACHE_TTL_MS: '1000' }, { now: clock.now });
});
after(() => rt.close());

async function withWorker<T>(opts: Parameters<typeof startTestWorker>[1], fn: () => Promise<T>): Promise<T> {
  const worker = startTestWorker(rt, opts);
  try {
    return await fn();
  } finally {
    await worker.stop(2000);
  }
}

async function startRun(body: unknown, headers: Record<string, string> = {}) {
  return rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: { ...rt.auth(), ...headers }, payload: body as object });
}

async function poll(id: string) {
  return (await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() })).json();
}

async function finished(id: string) {
  return waitFor(async () => {
    const run = await poll(id);
    return ['succeeded', 'failed', 'cancelled'].includes(run.status) ? run : null;
  }, 30_000, `run ${id} to finish`);
}

function slowReranker(g: { opened: Promise<void> }) {
  return (agents: Agents): Agents => ({
    ...agents,
    reranker: {
      rerank: async (input, ctx) => {
        // Like a real model call, the wait ends early when the run is aborted.
        await Promise.race([
          g.opened,
          new Promise((_, reject) => {
            if (ctx.signal?.aborted) reject(ctx.signal.reason);
            ctx.signal?.addEventListener('abort', () => reject(ctx.signal?.reason));
          }),
        ]);
        return agents.reranker.rerank(input, ctx);
      },
    },
  });
}

test('POST 202 with Location, then polling reaches succeeded with a valid, ranked shortlist', async () => {
  await withWorker({}, async () => {
    const res = await startRun({ role: GO_ROLE, maxIterations: 2, scoreThreshold: 60, targetStrong: 3, scoreLimit: 5 });
    assert.equal(res.statusCode, 202);
    const run = res.json();
    assert.equal(res.headers.location, `/v1/matching-runs/${run.id}`);
    assert.ok(['queued', 'running'].includes(run.status));
    assert.equal(run.engine, 'heuristic');
    assert.ok(res.headers.etag);
    const done = await finished(run.id);
    assert.equal(done.status, 'succeeded', JSON.stringify(done.error));
    assert.ok(['target_reached', 'reflector', 'max_iterations', 'exhausted'].includes(done.stop.reason));
    assert.ok(done.shortlist.length > 0);
    const totals = done.shortlist.map((e: { totalScore: number }) => e.totalScore);
    assert.deepEqual(totals, [...totals].sort((a, b) => b - a), 'ranked by total score');
    for (const [i, e] of done.shortlist.entries()) {
      assert.equal(e.rank, i + 1);
      const sum = Object.values(e.subscores as Record<string, number>).reduce((a, b) => a + b, 0);
      assert.equal(e.totalScore, Math.min(100, sum), 'the total is the sum of the parts');
      for (const ev of e.evidence) assert.equal(typeof ev.verified, 'boolean');
    }
    assert.equal(done.shortlist[0].externalId, 'c1', 'the Go/Kubernetes engineer ranks first');
    assert.equal(done.progress.candidatesScored, done.shortlist.length);
    assert.equal(done.usage.llmCalls, 0, 'the heuristic engine makes no model calls');
    assert.ok(done.startedAt && done.finishedAt);
  });
});

test('ETag: 304 while nothing changed, a new tag once the run moved; Retry-After only while unfinished', async () => {
  const g = gate();
  await withWorker({ wrap: slowReranker(g) }, async () => {
    const run = (await startRun({ role: GO_ROLE, maxIterations: 1, scoreLimit: 3 })).json();
    const polled = await waitFor(async () => {
      const r = await rt.app!.inject({ url: `/v1/matching-runs/${run.id}`, headers: rt.auth() });
      return r.json().status === 'running' && r.json().progress.candidatesSeen > 0 ? r : null;
    });
    assert.ok(Number(polled.headers['retry-after']) >= 1, 'unfinished runs carry a polling hint');
    const same = await rt.app!.inject({ url: `/v1/matching-runs/${run.id}`, headers: { ...rt.auth(), 'if-none-match': polled.headers.etag as string } });
    assert.equal(same.statusCode, 304);
    assert.equal(same.body, '');
    g.open();
    const done = await finished(run.id);
    const moved = await rt.app!.inject({ url: `/v1/matching-runs/${done.id}`, headers: { ...rt.auth(), 'if-none-match': polled.headers.etag as string } });
    assert.equal(moved.statusCode, 200, 'the tag changed as the run progressed');
    assert.equal(moved.headers['retry-after'], undefined, 'a finished run has no polling hint');
    const settled = await rt.app!.inject({ url: `/v1/matching-runs/${done.id}`, headers: { ...rt.auth(), 'if-none-match': moved.headers.etag as string } });
    assert.equal(settled.statusCode, 304);
    // `*` matches whatever version the run is at (RFC 9110): a GET with it is answered 304.
    const any = await rt.app!.inject({ url: `/v1/matching-runs/${done.id}`, headers: { ...rt.auth(), 'if-none-match': '*' } });
    assert.equal(any.statusCode, 304);
    assert.equal(any.headers.etag, moved.headers.etag);
  });
});

test('the ETag moves exactly when the answer does: a checkpoint that leaves progress as it was, an event or a hand-back keep it', async () => {
  const runId = (await startRun({ role: GO_ROLE, maxIterations: 2, scoreLimit: 3 })).json().id as string;
  const get = (etag?: string) => rt.app!.inject({ url: `/v1/matching-runs/${runId}`, headers: { ...rt.auth(), ...(etag ? { 'if-none-match': etag } : {}) } });
  let last = await get();
  // Each write of a run, and whether a client that polls with the last ETag should be sent the run again.
  const expect = async (what: string, changed: boolean) => {
    const now = await get();
    const revalidated = await get(last.headers.etag as string);
    if (changed) {
      assert.notDeepEqual(now.json(), last.json(), `${what}: the answer changed`);
      assert.equal(revalidated.statusCode, 200, `${what}: a new ETag`);
    } else {
      assert.deepEqual(now.json(), last.json(), `${what}: the answer is the same`);
      assert.equal(revalidated.statusCode, 304, `${what}: the same ETag, so the same bytes are not sent again`);
    }
    last = now;
  };
  const queue = createRunQueue(rt.db, { workerId: 'etag-test', leaseMs: 3_600_000, maxAttempts: 3 });
  const claimed = await queue.claim();
  assert.equal(claimed?.id, runId);
  await expect('the first claim (queued -> running)', true);
  const ctx = initialContext({ runId, orgId: claimed!.orgId, engine: claimed!.engine, role: GO_ROLE, params: claimed!.params });
  await queue.checkpoint(ctx, [{ type: 'iteration.started', data: { iteration: 1 } }]);
  await expect('the first round', true);
  await queue.checkpoint({ ...ctx, step: 'retrieve' }, [{ type: 'queries.expanded', data: { iteration: 1 } }]);
  await expect('a checkpoint with the progress it had', false);
  const seen = { ...ctx, step: 'rerank' as const, seenIds: [crypto.randomUUID(), crypto.randomUUID()] };
  await queue.checkpoint(seen, [{ type: 'candidates.retrieved', data: { iteration: 1 } }]);
  await expect('a checkpoint with candidates seen', true);
  await queue.checkpoint({ ...seen, step: 'score' }, [{ type: 'candidates.reranked', data: { iteration: 1 } }]);
  await expect('the rerank checkpoint (progress as it was)', false);
  await queue.saveEntries({ ...seen, step: 'score' }, [{ candidateId: seen.seenIds[0]!, externalId: 'x', name: null, status: 'unscored', reason: 'test', retrievalScore: 0.5, iteration: 1 }]);
  await expect('an unscored entry (in the events, not the shortlist)', false);
  const subscores = { hardSkills: 20, domain: 10, seniority: 10, impact: 8, logistics: 8, trajectory: 6 };
  const scored = { ...seen, step: 'score' as const, scored: [{ candidateId: seen.seenIds[1]!, totalScore: 62, iteration: 1 }] };
  await queue.saveEntries(scored, [{ candidateId: seen.seenIds[1]!, externalId: 'y', name: null, status: 'scored', subscores, totalScore: 62, rationale: 'r', evidence: [], retrievalScore: 0.4, iteration: 1 }]);
  await expect('a scored entry', true);
  await queue.appendEvent(runId, 'run.retrying', { attempt: 1 });
  await expect('an event', false);
  await queue.release(runId, { countAttempt: true });
  await expect('a hand-back (still running for the client)', false);
  const again = await queue.claim();
  assert.equal(again?.id, runId);
  await expect('a claim of a running run', false);
  await queue.checkpoint({ ...seen, step: 'expand', iteration: 2 }, [{ type: 'iteration.started', data: { iteration: 2 } }]);
  await expect('the next round', true);
  await queue.finish({ ...seen, iteration: 2 }, 'succeeded', { reason: 'max_iterations', iteration: 2, reasoning: 'test' }, null, { status: 'succeeded' });
  await expect('the finish', true);
});

test('a finished run is answered from memory, same bytes; an erasure or another process’s change is a new version', async (t) => {
  // The worker is stopped before statements are counted: idle, it polls for queued runs every pollMs.
  const done = await withWorker({}, async () => finished((await startRun({ role: GO_ROLE, maxIterations: 1, scoreLimit: 3 })).json().id));
  // The clock stops past CACHE_TTL_MS of anything cached so far: the first read below stores the key and the answer
  // afresh, and the reads after it are within the cache time however slowly the machine runs them.
  const start = Date.now() + 1_000;
  clock.set(start);
  t.after(() => clock.set(null));
  const first = await rt.app!.inject({ url: `/v1/matching-runs/${done.id}`, headers: rt.auth() });
  assert.deepEqual(first.json(), done);
  assert.match(first.headers['content-type'] as string, /^application\/json; charset=utf-8/);
  const etag = first.headers.etag as string;

  // Served without the database: count every statement while polling.
  let statements = 0;
  const query = rt.db.query.bind(rt.db);
  rt.db.query = ((...args: Parameters<typeof query>) => (statements++, query(...args))) as typeof rt.db.query;
  try {
    const again = await rt.app!.inject({ url: `/v1/matching-runs/${done.id}`, headers: rt.auth() });
    assert.equal(again.body, first.body);
    assert.equal(again.headers.etag, etag);
    const notModified = await rt.app!.inject({ url: `/v1/matching-runs/${done.id}`, headers: { ...rt.auth(), 'if-none-match': etag } });
    assert.equal(notModified.statusCode, 304);
    assert.equal(statements, 0, 'no statement while the answer is fresh');
  } finally {
    rt.db.query = query;
  }

  // Erasure through this process: at once.
  const top = done.shortlist[0];
  assert.equal((await rt.app!.inject({ method: 'DELETE', url: `/v1/candidates/${top.candidateId}`, headers: rt.auth() })).statusCode, 204);
  const erased = await rt.app!.inject({ url: `/v1/matching-runs/${done.id}`, headers: { ...rt.auth(), 'if-none-match': etag } });
  assert.equal(erased.statusCode, 200, 'the erasure made a new version');
  assert.notEqual(erased.headers.etag, etag);
  const entry = erased.json().shortlist.find((e: { candidateId: string }) => e.candidateId === top.candidateId);
  assert.equal(entry.externalId, null);
  assert.equal(entry.name, null);
  // API.md: the entry keeps only the id and the scores; the rationale and the evidence quoted the resume.
  assert.ok(top.rationale && top.evidence.length > 0, 'it had both before');
  assert.equal(entry.rationale, null);
  assert.deepEqual(entry.evidence, []);
  assert.equal(entry.totalScore, top.totalScore, 'the scores stay');

  // A change made elsewhere (another replica's erasure) is seen once the cached answer is CACHE_TTL_MS old, not before.
  await rt.db.query('UPDATE matching_runs SET version = version + 1 WHERE id = $1', [done.id]);
  const read = () => rt.app!.inject({ url: `/v1/matching-runs/${done.id}`, headers: rt.auth() });
  clock.set(start + 999);
  assert.equal((await read()).headers.etag, erased.headers.etag, 'a millisecond short of the cache time: the cached answer');
  clock.set(start + 1_000);
  const later = await read();
  assert.equal(later.statusCode, 200);
  assert.notEqual(later.headers.etag, erased.headers.etag, 'at the cache time: the new version');
});

test('events page oldest first with after= and nextCursor', async () => {
  const run = await withWorker({}, async () => finished((await startRun({ role: GO_ROLE, maxIterations: 2, scoreLimit: 3, targetStrong: 50 })).json().id));
  const all: Array<{ seq: number; type: string }> = [];
  let url = `/v1/matching-runs/${run.id}/events?after=0&limit=4`;
  for (let pages = 0; pages < 50; pages++) {
    const body = (await rt.app!.inject({ url, headers: rt.auth() })).json();
    all.push(...body.items);
    if (!body.nextCursor) break;
    url = `/v1/matching-runs/${run.id}/events?limit=4&cursor=${body.nextCursor}`;
  }
  assert.deepEqual(all.map((e) => e.seq), all.map((_, i) => i + 1), 'contiguous, oldest first');
  const types = all.map((e) => e.type);
  for (const t of ['run.queued', 'run.started', 'iteration.started', 'queries.expanded', 'candidates.retrieved', 'candidates.reranked', 'candidate.scored', 'run.stopped']) {
    assert.ok(types.includes(t), `${t} in ${types.join(',')}`);
  }
  assert.deepEqual(types.slice(-2), ['candidates.scored', 'run.stopped'], "the last step (the last round's scoring: it is not reflected on), written with the finish, comes before the stop");
  assert.equal(types.filter((t) => t === 'iteration.reflected').length, 1, 'the first round is reflected on, the last is not');
  // A reflection that lets the run go on says why, as a stop does.
  const reflected = (all as unknown as Array<{ type: string; data: { stop?: boolean; reasoning?: string | null } }>).find((e) => e.type === 'iteration.reflected')!;
  assert.equal(reflected.data.stop, false);
  assert.match(reflected.data.reasoning ?? '', /\w{3,}/);
  const tail = (await rt.app!.inject({ url: `/v1/matching-runs/${run.id}/events?after=${all.length - 1}`, headers: rt.auth() })).json();
  assert.deepEqual(tail.items.map((e: { seq: number }) => e.seq), [all.length]);
});

test('an event written after it happened (a folded step’s) is stamped with when it happened, by the database clock', async () => {
  const run = (await startRun({ role: GO_ROLE, maxIterations: 1 })).json();
  const queue = createRunQueue(rt.db, { workerId: 'events-test', leaseMs: 60_000, maxAttempts: 3 });
  const claimed = await queue.claim();
  assert.equal(claimed?.id, run.id);
  const ctx = { ...initialContext({ runId: run.id, orgId: claimed!.orgId, engine: claimed!.engine, role: GO_ROLE, params: claimed!.params }), step: 'rerank' as const };
  // Bounds read around the write instead of a margin on the gap: a loaded machine can take any time over it.
  const before = Date.now();
  const happened = before - 5_000;
  await queue.checkpoint(ctx, [
    { type: 'queries.expanded', data: { iteration: 1 }, at: happened },
    { type: 'candidates.retrieved', data: { iteration: 1 } },
  ]);
  const after = Date.now();
  await queue.finish({ ...ctx, stop: { reason: 'exhausted', iteration: 1, reasoning: 'test' } }, 'succeeded', { reason: 'exhausted', iteration: 1, reasoning: 'test' }, null, {});
  const items = (await rt.app!.inject({ url: `/v1/matching-runs/${run.id}/events?limit=100`, headers: rt.auth() })).json().items as Array<{ type: string; at: string }>;
  const at = (type: string) => Date.parse(items.find((e) => e.type === type)!.at);
  // Both are stamped by the database's clock, the expansion earlier by how long ago it happened when the checkpoint
  // was written (read between before and after); a millisecond either side for the rounding.
  const gap = at('candidates.retrieved') - at('queries.expanded');
  assert.ok(gap >= before - happened - 1 && gap <= after - happened + 1, `the expansion is stamped ${gap} ms before the retrieval written with it (${before - happened}..${after - happened})`);
});

test('a queued run is cancelled at once', async () => {
  const run = (await startRun({ role: GO_ROLE })).json();
  const res = await rt.app!.inject({ method: 'POST', url: `/v1/matching-runs/${run.id}/cancel`, headers: rt.auth() });
  assert.equal(res.statusCode, 202);
  assert.equal(res.json().status, 'cancelled');
});

test('10 simultaneous POSTs with one Idempotency-Key start one run; another body with the key is 422', async () => {
  const body = { role: { ...GO_ROLE, title: 'Idempotent role' }, maxIterations: 1 };
  const runsBefore = (await rt.db.query<{ n: number }>('SELECT count(*)::int AS n FROM matching_runs')).rows[0]!.n;
  const rolesBefore = (await rt.db.query<{ n: number }>('SELECT count(*)::int AS n FROM roles')).rows[0]!.n;
  const answers = await Promise.all(Array.from({ length: 10 }, () => startRun(body, { 'idempotency-key': 'same-key-1' })));
  for (const a of answers) assert.equal(a.statusCode, 202, a.body);
  assert.equal(new Set(answers.map((a) => a.json().id)).size, 1, 'one run for all ten');
  assert.equal((await rt.db.query<{ n: number }>('SELECT count(*)::int AS n FROM matching_runs')).rows[0]!.n, runsBefore + 1);
  assert.equal((await rt.db.query<{ n: number }>('SELECT count(*)::int AS n FROM roles')).rows[0]!.n, rolesBefore + 1, 'one inline role stored');
  const other = await startRun({ ...body, maxIterations: 2 }, { 'idempotency-key': 'same-key-1' });
  assert.equal(other.statusCode, 422);
  assert.equal(other.json().status, 422);
  // A stored role's id is a UUID, whichever case a retry spells it in: the same request, the same run.
  const roleId = (await rt.db.query<{ role_id: string }>('SELECT role_id FROM matching_runs WHERE id = $1', [answers[0]!.json().id])).rows[0]!.role_id;
  const byId = (id: string) => startRun({ roleId: id, maxIterations: 1 }, { 'idempotency-key': 'same-key-2' });
  const first = await byId(roleId);
  const again = await byId(roleId.toUpperCase());
  assert.equal(first.statusCode, 202, first.body);
  assert.equal(again.statusCode, 202, again.body);
  assert.equal(again.json().id, first.json().id);
  // Leave the queue empty for the tests that follow.
  for (const id of [answers[0]!.json().id, first.json().id]) await rt.app!.inject({ method: 'POST', url: `/v1/matching-runs/${id}/cancel`, headers: rt.auth() });
});

test('a run whose worker died is resumed from its checkpoint without re-scoring anyone', async () => {
  const scoredBy = new Map<string, string[]>();
  const tally = (who: string) => (agents: Agents): Agents => ({
    ...agents,
    scorer: {
      score: async (input, ctx) => {
        const list = scoredBy.get(input.candidate.id) ?? [];
        list.push(who);
        scoredBy.set(input.candidate.id, list);
        // The first worker "dies" after two candidates: it hangs until its lease is taken away.
        if (who === 'A' && [...scoredBy.values()].flat().filter((w) => w === 'A').length > 2) {
          await new Promise((_, reject) => {
            if (ctx.signal?.aborted) reject(ctx.signal.reason);
            ctx.signal?.addEventListener('abort', () => reject(ctx.signal?.reason));
          });
        }
        return agents.scorer.score(input, ctx);
      },
    },
  });
  const a = startTestWorker(rt, { wrap: tally('A'), globalScoreConcurrency: 1 });
  const run = (await startRun({ role: GO_ROLE, maxIterations: 1, scoreLimit: 5, targetStrong: 50 })).json();
  await waitFor(async () => (await poll(run.id)).progress.candidatesScored >= 2, 20_000, 'two scored by A');
  // The worker's process is gone as far as the database can tell: its lease expires and is not renewed.
  await rt.db.query("UPDATE matching_runs SET lease_owner = 'dead-worker', lease_expires_at = now() - interval '1 second' WHERE id = $1", [run.id]);
  await a.stop(500);
  const writtenByA = (await rt.db.query<{ candidate_id: string }>('SELECT candidate_id FROM shortlist_entries WHERE run_id = $1', [run.id])).rows.map((r) => r.candidate_id);
  assert.ok(writtenByA.length >= 2);
  await withWorker({ wrap: tally('B') }, async () => {
    const done = await finished(run.id);
    assert.equal(done.status, 'succeeded');
    for (const id of writtenByA) {
      assert.deepEqual(scoredBy.get(id), ['A'], 'B never re-scored what A had written');
      assert.ok(done.shortlist.some((e: { candidateId: string }) => e.candidateId === id), 'what A scored is kept');
    }
    assert.ok([...scoredBy.values()].some((who) => who.includes('B')), 'B finished the rest');
    const events = (await rt.app!.inject({ url: `/v1/matching-runs/${run.id}/events?limit=100`, headers: rt.auth() })).json();
    assert.ok(events.items.some((e: { type: string }) => e.type === 'run.resumed'));
  });
});

test('a run that keeps failing ends failed with a named error after the attempt cap', async () => {
  let calls = 0;
  const broken = (agents: Agents): Agents => ({
    ...agents,
    queryExpander: {
      expand: async () => {
        calls++;
        throw new Error('expander exploded');
      },
    },
  });
  await withWorker({ wrap: broken, maxAttempts: 2 }, async () => {
    const run = (await startRun({ role: GO_ROLE })).json();
    const done = await finished(run.id);
    assert.equal(done.status, 'failed');
    assert.equal(done.stop.reason, 'error');
    assert.ok(done.error.title && done.error.detail.includes('expander exploded'));
    assert.equal(calls, 2, 'claimed exactly maxAttempts times');
  });
});

test('a run that fails on a database error is a DatabaseError whose words are ours: the data the error quoted is nowhere, not even in the log', async () => {
  // PostgreSQL quotes the value it could not read: 22P02, invalid input syntax for type integer: "<the value>".
  const canary = 'canary-4711-jane@example.com';
  const broken = (agents: Agents): Agents => ({
    ...agents,
    queryExpander: {
      expand: async () => {
        await rt.db.query('SELECT $1::int', [canary]);
        throw new Error('unreachable');
      },
    },
  });
  await withWorker({ wrap: broken, maxAttempts: 2 }, async () => {
    const run = (await startRun({ role: GO_ROLE })).json();
    const done = await finished(run.id);
    assert.equal(done.status, 'failed');
    assert.deepEqual(done.error, { title: 'DatabaseError', detail: DATABASE_ERROR_DETAIL });
    const events = (await rt.app!.inject({ url: `/v1/matching-runs/${run.id}/events?limit=100`, headers: rt.auth() })).json();
    const retrying = events.items.find((e: { type: string }) => e.type === 'run.retrying');
    assert.equal(retrying?.data.error, `DatabaseError: ${DATABASE_ERROR_DETAIL}`, 'the first attempt\'s event says the same');
    assert.equal(JSON.stringify([done, events]).includes(canary), false, 'nothing of the data reaches the run or its events');
    // The error is in the log with its SQLSTATE, routine and the run's id, for the operator; the value it quoted is not.
    // The first attempt, handed back, is a warning that says so; the run's failure, an error.
    const logged = rt.logs.filter((l) => /^run (attempt )?failed(;|$)/.test(String(l.msg)) && l.runId === run.id);
    assert.deepEqual(logged.map((l) => [l.level, l.msg, l.willRetry]), [
      [40, 'run attempt failed; handed back to be tried again', true],
      [50, 'run failed', false],
    ]);
    for (const l of logged) {
      const err = l.err as Record<string, unknown>;
      assert.deepEqual([l.sqlState, err.code, err.name], ['22P02', '22P02', 'DatabaseError'], JSON.stringify(l));
      // The server's routine: pg_strtoint32_safe on PostgreSQL 16 and later (and PGlite), pg_strtoint32 before.
      assert.match(String(err.routine), /^pg_strtoint32(_safe)?$/, JSON.stringify(l));
      assert.equal(err.message, 'invalid input syntax for type integer: "…"');
    }
    assert.equal(rt.logText().includes(canary), false, 'the value the error quoted is in the log');
  });
});

test('shutdown hands back what it cannot finish in the grace period; another worker resumes it', async () => {
  const never = gate();
  const stuck = startTestWorker(rt, { wrap: slowReranker(never) });
  const run = (await startRun({ role: GO_ROLE, maxIterations: 1, scoreLimit: 3 })).json();
  await waitFor(async () => (await poll(run.id)).progress.candidatesSeen > 0, 20_000, 'the run to reach the reranker');
  await stuck.stop(200);
  const row = (await rt.db.query<{ status: string; lease_owner: string | null; attempts: number }>('SELECT status, lease_owner, attempts FROM matching_runs WHERE id = $1', [run.id])).rows[0]!;
  assert.equal(row.status, 'running');
  assert.equal(row.lease_owner, null, 'the lease was released');
  assert.equal(row.attempts, 0, 'a hand-back is not a failed attempt');
  await withWorker({}, async () => {
    const done = await finished(run.id);
    assert.equal(done.status, 'succeeded');
  });
});

test('a run for a stored role starts without a body, with every parameter at its default', async () => {
  const role = await rt.app!.inject({ method: 'POST', url: '/v1/roles', headers: rt.auth(), payload: GO_ROLE });
  assert.equal(role.statusCode, 201, role.body);
  const url = `/v1/roles/${role.json().id}/matching-runs`;
  // As `curl -X POST` and `fetch(url, { method: 'POST' })` send it: no body, no content type.
  for (const headers of [rt.auth(), { ...rt.auth(), 'content-length': '0' }]) {
    const res = await rt.app!.inject({ method: 'POST', url, headers });
    assert.equal(res.statusCode, 202, res.body);
    const defaults = (await rt.app!.inject({ method: 'POST', url, headers: rt.auth(), payload: {} })).json().params;
    assert.deepEqual(res.json().params, defaults);
  }
  // A body that is there must still be an object of known parameters.
  const bad = await rt.app!.inject({ method: 'POST', url, headers: { ...rt.auth(), 'content-type': 'application/json' }, payload: '[]' });
  assert.equal(bad.statusCode, 400, bad.body);
});
