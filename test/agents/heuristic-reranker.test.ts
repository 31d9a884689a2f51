import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RetrievedCandidate, RoleSpec } from '../../src/matching/domain.js';
import { createHeuristicReranker } from '../../src/agents/heuristic/reranker.js';

const ctx = { orgId: 'org-1' };
const reranker = createHeuristicReranker({ referenceYear: () => 2024 });

const ROLE: RoleSpec = {
  title: 'Go backend engineer',
  description: 'Distributed systems in Go on Kubernetes with gRPC and PostgreSQL.',
  mustHaveSkills: ['Go', 'Kubernetes'],
  niceToHaveSkills: ['gRPC'],
  location: null,
  remote: true,
  seniority: null,
  minYearsExperience: 5,
};

function retrieved(id: string, fusedScore: number, text: string, skills: string[] = [], yearsExperience: number | null = null): RetrievedCandidate {
  return {
    id,
    fusedScore,
    vectorRank: null,
    textRank: null,
    distance: null,
    candidate: { id, headline: null, location: null, yearsExperience, skills, text },
  };
}

const POOL: RetrievedCandidate[] = [
  retrieved('a', 0.9, 'Frontend developer: React, CSS.', ['React', 'CSS'], 4),
  retrieved('b', 0.5, 'Backend engineer building distributed systems in Go on Kubernetes with gRPC and PostgreSQL.', ['Go', 'Kubernetes', 'gRPC'], 8),
  retrieved('c', 0.7, 'Java developer, Spring and PostgreSQL.', ['Java', 'PostgreSQL'], 6),
  retrieved('d', 0.6, 'Platform engineer: Kubernetes, Terraform, some Go.', ['Kubernetes', 'Go'], 2),
  retrieved('e', 0.2, 'Barista.', [], null),
];

test('returns only input ids, each once, at most limit', async () => {
  for (const limit of [0, 1, 3, 5, 50]) {
    const { orderedIds } = await reranker.rerank({ role: ROLE, candidates: POOL, limit }, ctx);
    assert.ok(orderedIds.length <= limit);
    assert.equal(orderedIds.length, Math.min(limit, POOL.length));
    assert.equal(new Set(orderedIds).size, orderedIds.length);
    for (const id of orderedIds) assert.ok(POOL.some((c) => c.id === id));
  }
  const dupes = [...POOL, POOL[0]!, POOL[1]!];
  const { orderedIds } = await reranker.rerank({ role: ROLE, candidates: dupes, limit: 10 }, ctx);
  assert.equal(orderedIds.length, POOL.length);
  assert.deepEqual((await reranker.rerank({ role: ROLE, candidates: [], limit: 5 }, ctx)).orderedIds, []);
});

test('skill coverage and role vocabulary can lift a candidate above a higher fused score', async () => {
  const { orderedIds } = await reranker.rerank({ role: ROLE, candidates: POOL, limit: 5 }, ctx);
  assert.equal(orderedIds[0], 'b');
  assert.ok(orderedIds.indexOf('d') < orderedIds.indexOf('a'));
  assert.equal(orderedIds[orderedIds.length - 1], 'e');
});

test('is deterministic and breaks ties by fused score, then id', async () => {
  const same = 'Go and Kubernetes engineer.';
  const tied = [retrieved('z', 0.5, same), retrieved('m', 0.5, same), retrieved('b', 0.5, same), retrieved('q', 0.8, same)];
  const first = await reranker.rerank({ role: ROLE, candidates: tied, limit: 4 }, ctx);
  assert.deepEqual(first.orderedIds, ['q', 'b', 'm', 'z']);
  const reversed = await reranker.rerank({ role: ROLE, candidates: [...tied].reverse(), limit: 4 }, ctx);
  assert.deepEqual(reversed.orderedIds, first.orderedIds);
});
