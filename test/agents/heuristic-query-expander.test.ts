import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RoleSpec, SearchFilters } from '../../src/matching/domain.js';
import type { PoolInsight } from '../../src/agents/types.js';
import { MIN_FILTER_MATCHES, createHeuristicQueryExpander, queryKey } from '../../src/agents/heuristic/query-expander.js';

const ctx = { orgId: 'org-1' };

function fakePool(vocabulary: Array<{ skill: string; count: number }>, count: (filters: SearchFilters) => number = () => 500) {
  const calls: SearchFilters[] = [];
  const pool: PoolInsight = {
    skillVocabulary: async (orgId) => {
      assert.equal(orgId, 'org-1');
      return vocabulary;
    },
    countMatching: async (_orgId, filters) => {
      calls.push(filters);
      return count(filters);
    },
  };
  return { pool, calls };
}

const ROLE: RoleSpec = {
  title: 'Platform Engineer',
  description: [
    'Run our Kubernetes platform on AWS and automate infrastructure with Terraform.',
    'You will own observability with Prometheus and Grafana, incident response and capacity planning.',
    'Nice to have: Go, Python.',
  ].join('\n'),
  mustHaveSkills: ['k8s', 'Amazon Web Services', 'terraform'],
  niceToHaveSkills: ['golang', 'Python'],
  location: 'Berlin',
  remote: false,
  seniority: 'senior',
  minYearsExperience: 5,
};

const VOCABULARY = [
  { skill: 'Docker', count: 120 },
  { skill: 'Ansible', count: 30 },
  { skill: 'Python', count: 300 },
  { skill: 'Kubernetes', count: 80 },
];

async function rounds(expander: ReturnType<typeof createHeuristicQueryExpander>, role: RoleSpec, n: number, hintsFor: (i: number) => string[] = () => []) {
  const used: string[] = [];
  const perRound: string[][] = [];
  for (let iteration = 1; iteration <= n; iteration++) {
    const out = await expander.expand({ role, iteration, usedQueries: [...used], hints: hintsFor(iteration) }, ctx);
    perRound.push(out.queries);
    used.push(...out.queries);
  }
  return { used, perRound };
}

test('round one searches the title and the must-have skills, alias-normalised', async () => {
  const { pool } = fakePool(VOCABULARY);
  const out = await createHeuristicQueryExpander(pool).expand({ role: ROLE, iteration: 1, usedQueries: [], hints: [] }, ctx);
  assert.equal(out.queries.length, 1);
  const [query] = out.queries;
  assert.match(query!, /^Platform Engineer /);
  for (const skill of ['Kubernetes', 'AWS', 'Terraform']) assert.ok(query!.includes(skill), `${skill} in ${query}`);
  assert.ok(!/\bk8s\b/.test(query!), 'aliases are normalised');
});

test('every round brings a different query and never one already used', async () => {
  const { pool } = fakePool(VOCABULARY);
  const expander = createHeuristicQueryExpander(pool);
  const { used, perRound } = await rounds(expander, ROLE, 5);
  assert.ok(perRound.slice(0, 2).every((q) => q.length > 0), 'the first rounds all have something to search');
  assert.equal(new Set(used.map(queryKey)).size, used.length, 'no query repeats across rounds');
  // A query already used is never offered again, whatever the round.
  const again = await expander.expand({ role: ROLE, iteration: 2, usedQueries: used, hints: [] }, ctx);
  for (const q of again.queries) assert.ok(!used.map(queryKey).includes(queryKey(q)));
  const firstAgain = await expander.expand({ role: ROLE, iteration: 1, usedQueries: perRound[0]!, hints: [] }, ctx);
  assert.ok(!firstAgain.queries.map(queryKey).includes(queryKey(perRound[0]![0]!)));
});

test('later rounds widen with nice-to-haves and related skills the pool has, never skills it lacks', async () => {
  const { pool } = fakePool(VOCABULARY);
  const { perRound } = await rounds(createHeuristicQueryExpander(pool), ROLE, 4);
  const later = perRound.slice(1).flat().join(' | ');
  assert.ok(later.includes('Go'), later);
  assert.ok(later.includes('Docker'), 'Kubernetes -> Docker, which the pool has');
  assert.ok(!later.includes('Helm'), 'Kubernetes -> Helm is not in the pool vocabulary');
  assert.ok(!later.includes('OpenShift'));
});

test("the reflector's hints lead the next round", async () => {
  const { pool } = fakePool(VOCABULARY);
  const expander = createHeuristicQueryExpander(pool);
  const first = await expander.expand({ role: ROLE, iteration: 1, usedQueries: [], hints: ['Datadog', 'Loki'] }, ctx);
  assert.equal(first.queries.length, 1, 'round one is the core search; hints come from a finished round');
  assert.ok(first.queries[0]!.includes('Kubernetes'));
  const second = await expander.expand({ role: ROLE, iteration: 2, usedQueries: first.queries, hints: ['Datadog', 'Loki'] }, ctx);
  assert.equal(second.queries.length, 2, 'the hints search, then the next planned one');
  assert.match(second.queries[0]!, /Datadog Loki/);
  // Hints the searches already tried add nothing.
  const stale = await expander.expand({ role: ROLE, iteration: 2, usedQueries: first.queries, hints: ['Kubernetes', 'Terraform'] }, ctx);
  assert.equal(stale.queries.length, 1);
  assert.doesNotMatch(stale.queries[0]!, /Kubernetes Terraform/);
});

test('filters: no skill filter, minYears only when stated, and a filter that starves the search is dropped', async () => {
  const generous = fakePool(VOCABULARY, () => 500);
  const out = await createHeuristicQueryExpander(generous.pool).expand({ role: ROLE, iteration: 1, usedQueries: [], hints: [] }, ctx);
  // Exactly these: no skillsAll / skillsAny.
  assert.deepEqual(out.filters, { minYears: 5, location: 'Berlin' });

  const starving = fakePool(VOCABULARY, (f) => (f.location ? MIN_FILTER_MATCHES - 1 : 500));
  const starved = await createHeuristicQueryExpander(starving.pool).expand({ role: ROLE, iteration: 1, usedQueries: [], hints: [] }, ctx);
  assert.deepEqual(starved.filters, { minYears: 5 });

  const open = fakePool(VOCABULARY, () => 500);
  const unstated = await createHeuristicQueryExpander(open.pool).expand(
    { role: { ...ROLE, minYearsExperience: null, remote: true }, iteration: 1, usedQueries: [], hints: [] },
    ctx,
  );
  assert.deepEqual(unstated.filters, {});
  assert.equal(open.calls.length, 0, 'nothing to check, nothing counted');
});

test('a role with nothing but a title still gets one search, then runs out instead of repeating', async () => {
  const { pool } = fakePool([]);
  const bare: RoleSpec = { ...ROLE, description: '', mustHaveSkills: [], niceToHaveSkills: [], minYearsExperience: null, location: null, remote: null };
  const { perRound } = await rounds(createHeuristicQueryExpander(pool), bare, 3);
  assert.deepEqual(perRound[0], ['Platform Engineer']);
  assert.deepEqual(perRound.slice(1), [[], []]);
});
