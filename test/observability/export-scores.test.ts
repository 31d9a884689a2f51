// The bias-audit export: a role's scored shortlist entries as CSV, with each run's above-median flag, and no PII.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { exportScoresCsv, median } from '../../src/audit/export-scores.js';
import { GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/runtime.js';
import { CANARY, pool } from './llm-run.js';

const HEADER = 'runId,candidateId,hardSkills,domain,seniority,impact,logistics,trajectory,totalScore,aboveMedian';

let rt: TestRuntime;
let roleId: string;
const runs: Array<{ id: string; shortlist: Array<{ candidateId: string; totalScore: number; subscores: Record<string, number> }> }> = [];

async function runFor(role: string, body: Record<string, unknown>) {
  const res = await rt.app!.inject({ method: 'POST', url: `/v1/roles/${role}/matching-runs`, headers: rt.auth(), payload: body });
  assert.equal(res.statusCode, 202, res.body);
  return waitFor(async () => {
    const r = (await rt.app!.inject({ url: `/v1/matching-runs/${res.json().id}`, headers: rt.auth() })).json();
    return r.status === 'succeeded' ? r : null;
  }, 30_000, 'the run');
}

before(async () => {
  rt = await startTestRuntime();
  assert.equal((await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: pool() } })).statusCode, 200);
  roleId = (await rt.app!.inject({ method: 'POST', url: '/v1/roles', headers: rt.auth(), payload: GO_ROLE })).json().id;
  const otherRole = (await rt.app!.inject({ method: 'POST', url: '/v1/roles', headers: rt.auth(), payload: { ...GO_ROLE, title: 'Other role' } })).json().id;
  runs.push(await runFor(roleId, { maxIterations: 1, scoreLimit: 8, targetStrong: 50 }));
  runs.push(await runFor(roleId, { maxIterations: 1, scoreLimit: 3, targetStrong: 50 }));
  await runFor(otherRole, { maxIterations: 1, scoreLimit: 2, targetStrong: 50 });
});
after(() => rt.close());

test('one row per scored entry of the role’s runs, in the documented columns, ranked within each run', async () => {
  const csv = await exportScoresCsv(rt.db, roleId);
  const [header, ...rows] = csv.trimEnd().split('\n');
  assert.equal(header, HEADER);
  const expected = runs.flatMap((r) => r.shortlist.map((e) => ({ runId: r.id, ...e })));
  assert.ok(expected.length >= 8, 'both runs scored someone');
  assert.equal(rows.length, expected.length, 'only this role’s runs');
  const cells = rows.map((r) => r.split(','));
  assert.ok(cells.every((c) => c.length === 10));
  assert.deepEqual(
    cells.map((c) => [c[0], c[1], c.slice(2, 9).map(Number)]),
    expected.map((e) => [e.runId, e.candidateId, [...['hardSkills', 'domain', 'seniority', 'impact', 'logistics', 'trajectory'].map((k) => e.subscores[k]), e.totalScore]]),
  );
});

test('aboveMedian: strictly above the median total of the same run', async () => {
  const cells = (await exportScoresCsv(rt.db, roleId)).trimEnd().split('\n').slice(1).map((r) => r.split(','));
  for (const run of runs) {
    const m = median(run.shortlist.map((e) => e.totalScore));
    const mine = cells.filter((c) => c[0] === run.id);
    assert.deepEqual(mine.map((c) => c[9]), run.shortlist.map((e) => String(e.totalScore > m)));
  }
  assert.ok(cells.some((c) => c[9] === 'true') && cells.some((c) => c[9] === 'false'), 'both values occur');
  assert.equal(median([1, 5, 3]), 3);
  assert.equal(median([4, 1, 3, 2]), 2.5);
});

test('no names, contacts or external ids: the auditor joins candidateId to demographics kept elsewhere', async () => {
  const csv = await exportScoresCsv(rt.db, roleId);
  for (const s of [CANARY.name, CANARY.email, 'canary', 'Person c1']) assert.ok(!csv.includes(s), s);
  assert.equal(await exportScoresCsv(rt.db, crypto.randomUUID()), `${HEADER}\n`, 'an unknown role exports the header only');
});
