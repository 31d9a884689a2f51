import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RoleSpec } from '../../src/matching/domain.js';
import type { ReflectInput } from '../../src/agents/types.js';
import { createHeuristicReflector } from '../../src/agents/heuristic/reflector.js';
import { createHeuristicAgents } from '../../src/agents/heuristic/index.js';

const ctx = { orgId: 'org-1' };
const reflector = createHeuristicReflector();

const ROLE: RoleSpec = {
  title: 'Data Engineer',
  description: 'Build batch pipelines with Airflow and dbt on Snowflake; stream with Kafka.',
  mustHaveSkills: ['Python', 'SQL'],
  niceToHaveSkills: ['Airflow', 'dbt'],
  location: null,
  remote: true,
  seniority: null,
  minYearsExperience: null,
};

function input(overrides: Partial<ReflectInput>): ReflectInput {
  return {
    role: ROLE,
    iteration: 2,
    maxIterations: 5,
    scoreThreshold: 70,
    targetStrong: 5,
    roundScores: [55, 62],
    bestBefore: 74,
    bestAfter: 74,
    strongBefore: 2,
    strongAfter: 2,
    usedQueries: ['Data Engineer Python SQL'],
    ...overrides,
  };
}

test('stops when the round scored nobody new', async () => {
  const out = await reflector.reflect(input({ roundScores: [], bestAfter: 74 }), ctx);
  assert.equal(out.stop, true);
  assert.match(out.reasoning, /no new candidates/);
  assert.deepEqual(out.hints, []);
});

test('stops on a plateau: no new strong candidate and no better best score', async () => {
  const out = await reflector.reflect(input({}), ctx);
  assert.equal(out.stop, true);
  assert.match(out.reasoning, /Round 2 of 5/);
  assert.match(out.reasoning, /best 62/);
  assert.match(out.reasoning, /stayed at 74/);
  assert.match(out.reasoning, /2 of 5/);
});

test('continues when the round raised the best score or added strong candidates, with fresh hints', async () => {
  const better = await reflector.reflect(input({ roundScores: [81], bestAfter: 81, strongAfter: 3 }), ctx);
  assert.equal(better.stop, false);
  assert.match(better.reasoning, /added 1 strong candidate/);
  assert.deepEqual(better.hints.slice(0, 2), ['Apache Airflow', 'dbt'], 'nice-to-haves not searched yet come first');
  for (const hint of better.hints) assert.ok(!/^(Python|SQL)$/.test(hint), 'skills already searched are not hinted');

  const higher = await reflector.reflect(input({ roundScores: [69], bestAfter: 76, strongAfter: 2 }), ctx);
  assert.equal(higher.stop, false);
  assert.match(higher.reasoning, /from 74 to 76/);

  const firstRound = await reflector.reflect(input({ iteration: 1, bestBefore: null, bestAfter: 60, strongBefore: 0, strongAfter: 0, roundScores: [60] }), ctx);
  assert.equal(firstRound.stop, false, 'a first round has nothing to plateau against');
});

test('hints skip what the used queries already tried', async () => {
  const out = await reflector.reflect(input({ roundScores: [81], bestAfter: 81, strongAfter: 3, usedQueries: ['Data Engineer Python SQL Airflow dbt'] }), ctx);
  assert.ok(!out.hints.includes('Apache Airflow') && !out.hints.includes('dbt'), 'Airflow was searched by its short name');
  assert.ok(out.hints.length > 0, 'description terms remain to try');
});

test('stops when enough strong candidates are found or the last round is done', async () => {
  const enough = await reflector.reflect(input({ roundScores: [90], bestAfter: 90, strongAfter: 5 }), ctx);
  assert.equal(enough.stop, true);
  assert.match(enough.reasoning, /5 of 5/);
  const last = await reflector.reflect(input({ iteration: 5, roundScores: [90], bestAfter: 90, strongAfter: 3 }), ctx);
  assert.equal(last.stop, true);
  assert.match(last.reasoning, /last allowed round/);
});

test('the heuristic engine wires all four agents', async () => {
  const agents = createHeuristicAgents({ skillVocabulary: async () => [], countMatching: async () => 100 });
  assert.equal(agents.engine, 'heuristic');
  const expanded = await agents.queryExpander.expand({ role: ROLE, iteration: 1, usedQueries: [], hints: [] }, ctx);
  assert.equal(expanded.queries.length, 1);
  // The engine's reflector is the heuristic one: the same decision, in the same words, as the plateau test above.
  const reflected = await agents.reflector.reflect(input({}), ctx);
  assert.deepEqual(reflected, await reflector.reflect(input({}), ctx));
  assert.equal(reflected.stop, true);
});
