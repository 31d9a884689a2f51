// A journal batch whose connection is cut while its statement waits for a lock there (PostgreSQL goes on with it) is
// sent again by the batch writer: its trail rows are written once, as its ledger rows are (their ids are unique).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createJournal } from '../../src/audit/journal.js';
import { openDatabase } from '../../src/db/database.js';
import { connectionUrl } from '../support/database.js';
import { candidate, GO_ROLE } from '../support/fixtures.js';
import { TEST_DATABASE_URL } from '../support/postgres.js';
import { startApiWithCandidates, waitFor } from '../support/runtime.js';

/** A proxy to the server's unix socket that cuts the connection carrying the first trail insert, 300 ms after it left. */
async function cuttingProxy(url: string) {
  const target = new URL(url);
  const upstream = path.join(target.searchParams.get('host')!, `.s.PGSQL.${target.port || 5432}`);
  const dir = await mkdtemp(path.join(tmpdir(), 'tm-cut-'));
  const sockets: Socket[] = [];
  let cut = false;
  const proxy = createServer((client) => {
    const server = connect(upstream);
    sockets.push(client, server);
    client.on('data', (d) => {
      server.write(d);
      if (!cut && d.includes('INSERT INTO run_trace')) {
        cut = true;
        setTimeout(() => (client.destroy(), server.destroy()), 300);
      }
    });
    server.on('data', (d) => client.write(d));
    for (const [a, b] of [[client, server], [server, client]] as const) {
      a.on('error', () => b.destroy());
      a.on('close', () => b.destroy());
    }
  });
  await new Promise<void>((resolve) => proxy.listen(path.join(dir, `.s.PGSQL.${target.port || 5432}`), resolve));
  const proxied = new URL(url);
  proxied.searchParams.set('host', dir);
  return {
    url: proxied.toString(),
    wasCut: () => cut,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

test(
  'a trail batch sent again while its first send, its connection cut, still waits for a lock is written once',
  { skip: TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set: the embedded database runs one statement at a time, so no statement is still running when a resend arrives' },
  async () => {
    const rt = await startApiWithCandidates([candidate('x1')], { PROCESS_ROLE: 'api' });
    const proxy = await cuttingProxy(connectionUrl(rt.db));
    const viaProxy = await openDatabase({ databaseUrl: proxy.url, dataDir: 'unused', poolMax: 2 });
    try {
      const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE } });
      const run = (await rt.db.query<{ id: string; org_id: string }>('SELECT id, org_id FROM matching_runs WHERE id = $1', [res.json().id])).rows[0]!;
      const candidateId = (await rt.db.query<{ id: string }>('SELECT id FROM candidates')).rows[0]!.id;
      // Another session holds the candidate's row (an erasure would): the batch's statement waits for it.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const holder = rt.db.withTransaction(async (tx) => {
        await tx.query('SELECT 1 FROM candidates WHERE id = $1 FOR UPDATE', [candidateId]);
        locked();
        await held;
      });
      await isLocked;
      const journal = createJournal({ db: viaProxy, logger: { error: () => {} } });
      journal.trace({ runId: run.id, orgId: run.org_id }, 'candidate.scored', { totalScore: 70 }, candidateId);
      journal.trace({ runId: run.id, orgId: run.org_id }, 'model.exchange', { agent: 'scorer', candidateIds: [candidateId] }, candidateId);
      const flushed = journal.flush();
      await waitFor(async () => proxy.wasCut(), 10_000, 'the first send to be cut');
      // The batch writer sends the batch again (every 500 ms while the database is away): let it arrive, then free the row.
      await new Promise((r) => setTimeout(r, 1_500));
      release();
      await holder;
      await flushed;
      const rows = await rt.db.query<{ kind: string; n: number }>('SELECT kind, count(*)::int AS n FROM run_trace WHERE run_id = $1 AND candidate_id = $2 GROUP BY kind ORDER BY kind', [run.id, candidateId]);
      assert.deepEqual(rows.rows, [{ kind: 'candidate.scored', n: 1 }, { kind: 'model.exchange', n: 1 }]);
    } finally {
      await viaProxy.close();
      await proxy.close();
      await rt.close();
    }
  },
);
