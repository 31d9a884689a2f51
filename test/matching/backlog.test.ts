// Retrieval and reranking driven directly, round after round, at the largest scoreLimit: the backlog keeps at most
// 200 unpicked candidates, and what it cannot keep must stay findable, not be excluded from every later retrieval.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import type { Agents } from '../../src/agents/types.js';
import { initialContext, type RunContext } from '../../src/matching/context.js';
import { STEP_FUNCTIONS, type StepDeps } from '../../src/matching/steps.js';
import type { SearchRequest } from '../../src/retrieval/search.js';
import { RunParamsSchema } from '../../src/runs/run-schemas.js';
import { GO_ROLE } from '../support/fixtures.js';

const ORG = '00000000-0000-4000-8000-000000000001';
const POOL = Array.from({ length: 900 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);

function harness() {
  const searches: SearchRequest[] = [];
  const returned = new Map<string, number>();
  const controller = new AbortController();
  const agents = {
    // Picks the first candidates it is given, as many as it may.
    reranker: { rerank: async (input: { candidates: Array<{ id: string }>; limit: number }) => ({ orderedIds: input.candidates.slice(0, input.limit).map((c) => c.id) }) },
  } as unknown as Agents;
  const deps: StepDeps = {
    agents,
    // The pool in a fixed order, less what the run excludes; each round's hits rank below the last round's.
    search: async (req) => {
      searches.push(req);
      const excluded = new Set(req.excludeIds);
      const ids = POOL.filter((id) => !excluded.has(id)).slice(0, req.limit);
      for (const id of ids) returned.set(id, (returned.get(id) ?? 0) + 1);
      return ids.map((id, i) => ({ id, fusedScore: (1 - i / 1000) / (searches.length + 1), vectorRank: i + 1, textRank: null, distance: 0.2 }));
    },
    views: async (_org, wanted) => wanted.map((id) => ({ id, headline: 'Go engineer', location: null, yearsExperience: 5, skills: ['Go'], text: 'Go services' })),
    identities: async () => new Map(),
    saveEntries: async () => ({ cancelRequested: false }),
    defer: () => {},
    trace: async () => {},
    signal: controller.signal,
    callContext: { orgId: ORG, signal: controller.signal },
    logger: pino({ level: 'silent' }),
    globalScoreLimit: (fn) => fn(),
  };
  return { deps, searches, returned };
}

test('candidates a full backlog cannot keep are released to later retrievals, counted once, and never picked twice', async () => {
  const { deps, searches, returned } = harness();
  let ctx: RunContext = initialContext({
    runId: '00000000-0000-4000-8000-000000000002',
    orgId: ORG,
    engine: 'heuristic',
    role: GO_ROLE,
    params: RunParamsSchema.parse({ scoreLimit: 50, maxIterations: 10 }),
  });
  const picked: string[] = [];
  for (let round = 1; round <= 8; round++) {
    const releasedBefore = new Set(ctx.releasedIds);
    const seenBefore = ctx.seenIds;
    ctx = { ...ctx, iteration: round, round: { queries: [`go round ${round}`], filters: {}, retrieved: [], rerankedIds: [] } };
    ctx = await STEP_FUNCTIONS.retrieve(ctx, deps);
    assert.deepEqual(searches.at(-1)!.excludeIds, seenBefore.filter((id) => !releasedBefore.has(id)), 'released candidates may be found again');
    ctx = await STEP_FUNCTIONS.rerank(ctx, deps);
    picked.push(...ctx.round.rerankedIds);
    assert.ok(ctx.backlog.length <= 200, 'the backlog stays bounded');
    // Every candidate retrieval has returned is picked, waiting in the backlog, or findable again: none is lost.
    const accounted = new Set([...picked, ...ctx.backlog.map((h) => h.id), ...(ctx.releasedIds ?? [])]);
    assert.deepEqual(ctx.seenIds.filter((id) => !accounted.has(id)), [], `round ${round}: no candidate lost`);
    assert.equal(new Set(ctx.seenIds).size, ctx.seenIds.length, 'each candidate counted once as seen');
  }
  assert.equal(new Set(picked).size, picked.length, 'no candidate picked twice');
  assert.equal(picked.length, 400);
  // Round two already overflows the backlog (200 retrieved + 150 waiting − 50 picked): its last 100 are released,
  // found again by the next retrievals, and some of them picked.
  const again = [...returned].filter(([, n]) => n > 1).map(([id]) => id);
  assert.ok(again.some((id) => picked.includes(id)), 'a released candidate was found again and picked');
  assert.ok(!(ctx.releasedIds ?? []).some((id) => picked.includes(id) || ctx.backlog.some((h) => h.id === id)));
});

test('a checkpoint written before releases existed resumes with nothing released', async () => {
  const { deps, searches } = harness();
  const base = initialContext({ runId: '00000000-0000-4000-8000-000000000003', orgId: ORG, engine: 'heuristic', role: GO_ROLE, params: RunParamsSchema.parse({ scoreLimit: 5 }) });
  const { releasedIds: _none, ...old } = { ...base, seenIds: POOL.slice(0, 3), round: { queries: ['go'], filters: {}, retrieved: [], rerankedIds: [] } };
  const ctx = await STEP_FUNCTIONS.retrieve(old as RunContext, deps);
  assert.deepEqual(searches[0]!.excludeIds, POOL.slice(0, 3));
  assert.equal(ctx.releasedIds, undefined);
  assert.equal(ctx.seenIds.length, 3 + 50);
});
