// Replay: a recorded llm run re-executed offline against its recorded answers gives the same shortlist; tampering shows.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createReplayFetch, requestHash } from '../../src/audit/exchanges.js';
import { replayRun, replayVerdict, ReplayUnavailableError } from '../../src/audit/replay.js';
import { recordedRun, startLlmRig, type LlmRig } from './llm-run.js';
import { TS_NODE_ARGS } from '../support/node-args.js';

let rig: LlmRig;
let run: { id: string; shortlist: Array<{ candidateId: string; totalScore: number }> };
// On disk, so the CLI can open the same database once the service has let go of it.
const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-replay-'));

before(async () => {
  rig = await startLlmRig({ DATA_DIR: dataDir });
  run = await recordedRun(rig.rt);
  // From here on there is no provider: any request that escaped the replay would fail.
  await rig.server.close();
});
after(async () => {
  await rig.rt.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * Replays with the global fetch disabled and every TCP connection counted: the model client sends through node:http
 * (src/llm/http-fetch.ts), which the global fetch never sees. The embedded database is reached over a unix socket.
 */
async function offline<T>(fn: () => Promise<T>): Promise<{ value: T; networkCalls: number }> {
  const real = globalThis.fetch;
  const connect = net.Socket.prototype.connect;
  let networkCalls = 0;
  globalThis.fetch = (async () => {
    networkCalls++;
    throw new Error('network access during replay');
  }) as typeof fetch;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    // Called with (options | port | path, ...) or, from net.createConnection, with the normalised [options, cb].
    const first = (Array.isArray(args[0]) ? args[0][0] : args[0]) as { path?: unknown } | number | string;
    const ipc = typeof first === 'string' ? !/^\d+$/.test(first) : typeof first === 'object' && first !== null && typeof first.path === 'string';
    if (!ipc) networkCalls++;
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof connect;
  try {
    return { value: await fn(), networkCalls };
  } finally {
    globalThis.fetch = real;
    net.Socket.prototype.connect = connect;
  }
}

const replay = (runId = run.id) => replayRun({ db: rig.rt.db, config: rig.rt.config, runId });

test('a recorded run replays to an identical shortlist, with the provider closed and no network call', async () => {
  const requestsBefore = rig.server.requests.length;
  const { value: report, networkCalls } = await offline(() => replay());
  assert.equal(networkCalls, 0);
  assert.equal(rig.server.requests.length, requestsBefore, 'the fake provider saw nothing');
  assert.deepEqual(report.diff, []);
  assert.equal(report.identical, true);
  assert.equal(report.error, null);
  assert.deepEqual(report.modelCalls.unrecorded, []);
  const answered = (await rig.rt.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM run_trace WHERE run_id = $1 AND kind = 'model.exchange' AND data->'response' <> 'null'::jsonb",
    [run.id],
  )).rows[0]!.n;
  assert.equal(report.modelCalls.served, answered, 'every recorded answer was asked for again; the 500 was not needed');
  assert.deepEqual(report.replayed.map((e) => e.candidateId), run.shortlist.map((e) => e.candidateId), 'same candidates, same order');
  assert.deepEqual(report.replayed.map((e) => e.totalScore), run.shortlist.map((e) => e.totalScore));
  assert.equal(report.replayed.length, 7, 'seven scored; the unscorable candidate stays unscored on replay too');
  assert.deepEqual(report.stop && [report.stop.reason, report.stop.iteration], ['reflector', 2]);
});

test('a shortlist changed after the fact no longer matches its recording: the diff names the rank', async () => {
  const top = run.shortlist[0]!;
  await rig.rt.db.query(`UPDATE shortlist_entries SET total_score = total_score + 30 WHERE run_id = $1 AND candidate_id = $2`, [run.id, top.candidateId]);
  try {
    const report = await replay();
    assert.equal(report.identical, false);
    assert.equal(report.diff.length >= 1, true);
    assert.match(report.diff[0]!, new RegExp(`^rank 1: recorded ${top.candidateId} ${top.totalScore + 30} `));
  } finally {
    await rig.rt.db.query(`UPDATE shortlist_entries SET total_score = total_score - 30 WHERE run_id = $1 AND candidate_id = $2`, [run.id, top.candidateId]);
  }
});

test('a run without a trail, still running, or cancelled cannot be replayed', async () => {
  await assert.rejects(replay(crypto.randomUUID()), ReplayUnavailableError);
  await rig.rt.db.query(`UPDATE matching_runs SET status = 'cancelled' WHERE id = $1`, [run.id]);
  try {
    await assert.rejects(replay(), /was cancelled: a replay cannot act out when the cancel arrived/);
  } finally {
    await rig.rt.db.query(`UPDATE matching_runs SET status = 'succeeded' WHERE id = $1`, [run.id]);
  }
  await rig.rt.db.query(`UPDATE matching_runs SET status = 'running' WHERE id = $1`, [run.id]);
  try {
    await assert.rejects(replay(), /still running/);
  } finally {
    await rig.rt.db.query(`UPDATE matching_runs SET status = 'succeeded' WHERE id = $1`, [run.id]);
  }
});

test('a request nobody recorded fails loudly, naming it, instead of reaching a model', async () => {
  // Forget the answer to the last reflection: the replay must stop there, not improvise one.
  const last = (
    await rig.rt.db.query<{ id: number; hash: string }>(
      `SELECT id, data->>'requestHash' AS hash FROM run_trace WHERE run_id = $1 AND kind = 'model.exchange' AND data->>'agent' = 'reflector' ORDER BY id DESC LIMIT 1`,
      [run.id],
    )
  ).rows[0]!;
  const setHash = (hash: string) => rig.rt.db.query(`UPDATE run_trace SET data = jsonb_set(data, '{requestHash}', to_jsonb($2::text)) WHERE id = $1`, [last.id, hash]);
  await setHash('0'.repeat(64));
  try {
    const { value: report, networkCalls } = await offline(() => replay());
    assert.equal(networkCalls, 0);
    assert.equal(report.identical, false);
    assert.equal(report.modelCalls.unrecorded.length, 1);
    assert.equal(report.modelCalls.unrecorded[0]!.agent, 'reflector');
    assert.match(report.error ?? '', /no recorded answer for this reflector request/);
    assert.ok(report.diff.some((d) => d.startsWith('unrecorded reflector request sha256 ')));
    // The operator command cannot tell whether the shortlist would differ: exit 2, naming why, not 1 ("different").
    const verdict = replayVerdict(report);
    assert.equal(verdict.code, 2);
    assert.match(verdict.stderr, /cannot replay run .*1 model request\(s\) the trail has no answer for: a candidate the run read was erased or changed since/);
  } finally {
    await setHash(last.hash);
  }
});

test('an attempt that failed inside an HTTP 200 and was retried is not served: the replay gets the answer the run used', async () => {
  const body = { model: 'm', messages: [] };
  const used = { choices: [{ message: { role: 'assistant', content: 'used' } }] };
  const { fetch } = createReplayFetch([
    { requestHash: requestHash(body), response: { error: { message: 'upstream overloaded' } }, requestId: 'r1', error: { status: 200, message: 'upstream overloaded' } },
    { requestHash: requestHash(body), response: used, requestId: 'r2', error: null },
  ]);
  const res = await fetch('http://replay/v1/chat/completions', { method: 'POST', body: JSON.stringify(body) });
  assert.deepEqual(await res.json(), used);
});

test('npm run cli -- replay-run: the same answer from the operator command, offline (exit 0 = identical)', async () => {
  await rig.rt.close();
  const root = fileURLToPath(new URL('../../', import.meta.url));
  // No LLM_* variables at all: the replay needs nothing but the database and the registry.
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  const cli = spawnSync(process.execPath, [...TS_NODE_ARGS, 'src/cli.ts', 'replay-run', '--id', run.id], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
  assert.equal(cli.status, 0, `stdout: ${cli.stdout}\nstderr: ${cli.stderr}`);
  assert.match(cli.stdout, /^identical: 7 shortlist entries \(\d+ recorded model answers served, 0 unrecorded requests\)$/m);
});
