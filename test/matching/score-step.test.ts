// The scoring step driven directly: its entries need the candidates' names and external ids, read beside the scorers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import type { Agents } from '../../src/agents/types.js';
import { initialContext, type RunContext } from '../../src/matching/context.js';
import type { CandidateView } from '../../src/matching/domain.js';
import { STEP_FUNCTIONS, type StepDeps } from '../../src/matching/steps.js';
import type { EntryWrite } from '../../src/runs/run-writes.js';
import { RunParamsSchema } from '../../src/runs/run-schemas.js';
import { GO_ROLE } from '../support/fixtures.js';

const ORG = '00000000-0000-4000-8000-000000000001';
const ids = Array.from({ length: 6 }, (_, i) => `00000000-0000-4000-8000-00000000001${i}`);

function roundToScore(): RunContext {
  const ctx = initialContext({ runId: '00000000-0000-4000-8000-000000000002', orgId: ORG, engine: 'heuristic', role: GO_ROLE, params: RunParamsSchema.parse({ scoreLimit: 2 }) });
  const retrieved = ids.map((id, i) => ({ id, fusedScore: 1 - i / 10, vectorRank: i + 1, textRank: null, distance: 0.1 }));
  return { ...ctx, step: 'rerank', round: { ...ctx.round, retrieved, rerankedIds: ids } };
}

/** Deps whose identities read fails `failures` times before it answers; then the scorers answer once the second read is done. */
function depsWith(failures: number) {
  const scored: string[] = [];
  const saved: EntryWrite[] = [];
  let identityReads = 0;
  let secondReadDone!: () => void;
  const secondRead = new Promise<void>((resolve) => (secondReadDone = resolve));
  const deferred: Array<Promise<void>> = [];
  const controller = new AbortController();
  const agents = {
    scorer: {
      score: async (input: { candidate: CandidateView }) => {
        scored.push(input.candidate.id);
        if (failures > 0) await secondRead;
        await new Promise((resolve) => setImmediate(resolve));
        const subscores = { hardSkills: 20, domain: 10, seniority: 10, impact: 10, logistics: 5, trajectory: 5 };
        return { status: 'scored', score: { subscores, totalScore: 60, rationale: 'ok', evidence: [] } };
      },
    },
  } as unknown as Agents;
  const deps: StepDeps = {
    agents,
    search: () => Promise.reject(new Error('no search here')),
    views: async (_org, wanted) => wanted.map((id) => ({ id, headline: 'Go engineer', location: null, yearsExperience: 5, skills: ['Go'], text: 'Go services' })),
    identities: async (_org, wanted) => {
      const read = ++identityReads;
      try {
        // The first read answers once both scorers the limit allows are in flight, as a slow statement would; the
        // second at once. Driven by the scorers, not a timer: a loaded machine cannot reorder them.
        if (read === 1) while (scored.length < Math.min(2, wanted.length)) await new Promise((resolve) => setImmediate(resolve));
        else await Promise.resolve();
        if (read <= failures) throw new Error('canceling statement due to statement timeout');
        return new Map(wanted.map((id) => [id, { externalId: `ext-${id.slice(-2)}`, name: null }]));
      } finally {
        if (read === 2) secondReadDone();
      }
    },
    saveEntries: async (_ctx, entries) => {
      saved.push(...entries);
      return { cancelRequested: false };
    },
    defer: (writes) => void deferred.push(writes),
    trace: async () => {},
    signal: controller.signal,
    callContext: { orgId: ORG, signal: controller.signal },
    logger: pino({ level: 'silent' }),
    globalScoreLimit: (fn) => fn(),
  };
  return { deps, scored, saved, identityReads: () => identityReads, deferred };
}

test('a failed read of names and external ids is sent once more: every entry is written with its identity', async () => {
  const { deps, scored, saved, identityReads, deferred } = depsWith(1);
  const end = await STEP_FUNCTIONS.score(roundToScore(), deps);
  await Promise.all(deferred);
  assert.equal(identityReads(), 2);
  assert.deepEqual([...scored].sort(), ids);
  assert.deepEqual(saved.map((e) => e.candidateId).sort(), ids);
  assert.ok(saved.every((e) => e.externalId === `ext-${e.candidateId.slice(-2)}`), 'each with its external id');
  assert.equal(end.scored.length, ids.length);
});

test('when that read fails twice, no further scorer is sent: answers that could not be written are not paid for', async () => {
  const { deps, scored, saved, identityReads } = depsWith(2);
  await assert.rejects(STEP_FUNCTIONS.score(roundToScore(), deps), /statement timeout/);
  assert.equal(identityReads(), 2);
  // Two scorers at a time (scoreLimit 2): the first two were in flight when the second read failed, no more after.
  assert.equal(scored.length, 2, `scored ${scored.length}`);
  assert.equal(saved.length, 0);
});

test('a candidate the reranker takes from the backlog is written with its retrieval score, not 0', async () => {
  const { deps, saved, deferred } = depsWith(0);
  const hit = (id: string, fusedScore: number) => ({ id, fusedScore, vectorRank: 1, textRank: null, distance: 0.1 });
  const start = roundToScore();
  // This round retrieved ids[0..1]; ids[2] waits in the backlog from an earlier round.
  const ctx: RunContext = { ...start, step: 'rerank', backlog: [hit(ids[2]!, 0.031)], round: { ...start.round, retrieved: [hit(ids[0]!, 0.05), hit(ids[1]!, 0.04)], rerankedIds: [] } };
  const reranker = { rerank: async () => ({ orderedIds: [ids[2]!, ids[0]!] }) };
  const withReranker = { ...deps, agents: { ...deps.agents, reranker } as unknown as Agents };
  const reranked = await STEP_FUNCTIONS.rerank(ctx, withReranker);
  assert.deepEqual(reranked.round.rerankedIds, [ids[2], ids[0]]);
  assert.deepEqual(reranked.backlog.map((h) => h.id), [ids[1]], 'the backlog keeps what was not picked');
  await STEP_FUNCTIONS.score(reranked, withReranker);
  await Promise.all(deferred);
  const scores = Object.fromEntries(saved.map((e) => [e.candidateId, e.retrievalScore]));
  assert.deepEqual(scores, { [ids[2]!]: 0.031, [ids[0]!]: 0.05 });
});

test('a write that fails after one that reported a cancel is what the step ends with: no checkpoint may count its entry', async () => {
  const { deps, scored } = depsWith(0);
  const deferred: Array<Promise<void>> = [];
  deps.defer = (writes) => {
    // Handled at once and read below, as the workflow does: not an unhandled rejection meanwhile.
    writes.catch(() => {});
    deferred.push(writes);
  };
  let calls = 0;
  deps.saveEntries = async () => {
    if (++calls === 1) {
      // The second scorer answers while the first entry is written: its entry goes in a second write.
      while (scored.length < 2) await new Promise((resolve) => setImmediate(resolve));
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      return { cancelRequested: true };
    }
    throw new Error('connection lost');
  };
  await STEP_FUNCTIONS.score(roundToScore(), deps);
  await assert.rejects(deferred[0]!, /connection lost/);
  assert.ok(calls >= 2, `writes: ${calls}`);
});

test('a round whose expander found no new query searches again with the latest ones, past the candidates seen', async () => {
  const { deps } = depsWith(0);
  const searched: Array<{ queries: string[]; excludeIds: string[] }> = [];
  const traced: Array<{ queries?: unknown }> = [];
  deps.search = async (req) => (searched.push({ queries: req.queries, excludeIds: req.excludeIds }), [{ id: ids[5]!, fusedScore: 0.5, vectorRank: 1, textRank: null, distance: 0.2 }]);
  deps.trace = async (kind, data) => void (kind === 'candidates.retrieved' && traced.push(data as { queries?: unknown }));
  const base = roundToScore();
  const ctx = { ...base, step: 'retrieve' as const, usedQueries: ['go engineer', 'kubernetes operator'], seenIds: ids.slice(0, 5), round: { ...base.round, queries: [], retrieved: [], rerankedIds: [] } };
  const end = await STEP_FUNCTIONS.retrieve(ctx, deps);
  assert.deepEqual(searched, [{ queries: ['go engineer', 'kubernetes operator'], excludeIds: ids.slice(0, 5) }]);
  assert.deepEqual(end.round.retrieved.map((h) => h.id), [ids[5]], 'a new candidate: the run goes on, not "exhausted"');
  assert.deepEqual(traced[0]?.queries, ['go engineer', 'kubernetes operator'], 'recorded as searched: a replay serves these hits to them');
});
