// Shared setup for the LLM agent tests: the fake provider, the real openai client, the agents, a pool and fixtures.
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { createLlmAgents } from '../../src/agents/llm/index.js';
import type { AgentCallContext, PoolInsight } from '../../src/agents/types.js';
import type { CandidateView, RetrievedCandidate, RoleSpec, SearchFilters } from '../../src/matching/domain.js';
import { createMetrics } from '../../src/metrics.js';
import type { LedgerSink } from '../../src/llm/ledger.js';
import type { LlmSettingsInput } from '../../src/llm/settings.js';
import type { RecordedRequest } from '../support/fake-llm-server.js';
import { ORG, setupLlm } from '../llm/harness.js';

export { ORG };

/** An in-memory pool: a fixed vocabulary, and a count that records every filter combination it was asked about. */
/** A pool whose vocabulary is the given skills, each held by many candidates unless its count is given. */
export function fakePool(vocabulary: Array<string | { skill: string; count: number }> = ['Rust', 'Go', 'Kubernetes', 'PostgreSQL', 'TypeScript'], count = 7) {
  const countCalls: SearchFilters[] = [];
  let vocabularyCalls = 0;
  const pool: PoolInsight = {
    async skillVocabulary() {
      vocabularyCalls++;
      return vocabulary.map((entry, i) => (typeof entry === 'string' ? { skill: entry, count: 100 - i } : entry));
    },
    async countMatching(_orgId, filters) {
      countCalls.push(filters);
      return count;
    },
  };
  return { pool, countCalls, vocabularyCalls: () => vocabularyCalls };
}

export async function setupAgents(opts: { settings?: Partial<LlmSettingsInput>; pool?: PoolInsight; ledger?: LedgerSink } = {}) {
  const h = await setupLlm({ settings: { reaskLimit: 1, ...opts.settings }, ...(opts.ledger ? { ledger: opts.ledger } : {}) });
  const metrics = createMetrics({ defaultMetrics: false });
  const pool = opts.pool ?? fakePool().pool;
  const agents = createLlmAgents({ caller: h.caller, pool, metrics });
  const ctx: AgentCallContext = { orgId: ORG, runId: 'run_1' };
  return { ...h, agents, metrics, ctx };
}

export const role: RoleSpec = {
  title: 'Senior backend engineer',
  description: 'Build and run our payments platform in Rust and PostgreSQL on Kubernetes.',
  mustHaveSkills: ['Rust', 'PostgreSQL'],
  niceToHaveSkills: ['Kubernetes'],
  location: 'Berlin, DE',
  remote: true,
  seniority: 'senior',
  minYearsExperience: 5,
};

export function view(id: string, text: string, extra: Partial<CandidateView> = {}): CandidateView {
  return { id, headline: 'Backend engineer', location: 'Berlin, DE', yearsExperience: 8, skills: ['Rust', 'PostgreSQL'], text, ...extra };
}

export function retrieved(n: number): RetrievedCandidate[] {
  return Array.from({ length: n }, (_, i) => {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    // Strictly decreasing fused scores: retrieval order is the input order.
    return { id, fusedScore: 1 - i / 1000, vectorRank: i + 1, textRank: null, distance: 0.1, candidate: view(id, `Resume ${i}: Rust services and PostgreSQL tuning.`) };
  });
}

/** Every message's text content of a recorded request, in order. */
export function contents(r: RecordedRequest | undefined): string[] {
  return ((r?.body.messages ?? []) as ChatCompletionMessageParam[]).map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')));
}

export function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/** A scorer answer with the given sub-scores (missing keys stay missing) and no evidence. */
export function scoreAnswer(subscores: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const empty = { hardSkills: [], domain: [], seniority: [], impact: [], logistics: [], trajectory: [] };
  return { subscores, rationale: 'Strong Rust and PostgreSQL work in payments.', evidence: empty, ...extra };
}

export const validSubscores = { hardSkills: 25, domain: 15, seniority: 12, impact: 10, logistics: 8, trajectory: 6 };
