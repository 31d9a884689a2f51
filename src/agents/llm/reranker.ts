// The LLM reranker: listwise over batches of candidates, answers limited to the batch's own labels, merged deterministically.
import { z } from 'zod';
import { turnByTurn } from '../../llm/dispatch.js';
import { CandidatesErasedError, StructuredOutputError } from '../../llm/errors.js';
import type { RetrievedCandidate } from '../../matching/domain.js';
import type { AgentCallContext, Reranker, RerankInput, RerankOutput } from '../types.js';
import { askAgent, DATA_RULE, loggerFor, renderCandidate, fitsWindow, renderRole, resumeRoom, type LlmAgentDeps } from './prompt.js';

/** Candidates per call: enough to compare, few enough that each resume excerpt keeps its detail. */
export const RERANK_BATCH_SIZE = 30;
/** A reranker judges fit, not detail: the head of a resume carries most of the signal at a fraction of the tokens. */
export const RERANK_EXCERPT_CHARS = 1500;

export const RERANKER_INSTRUCTIONS = `You shortlist candidates for one role, for a recruiter.
${DATA_RULE}

Each candidate is introduced by a label such as c1. Order the candidates worth a full assessment from best to worst fit
for the role, and leave out those who clearly do not fit. Use only labels that appear in this request, each at most once.
Answer with the JSON object only: {"ranking": [labels, best first]}.`;

/**
 * The answer schema of one batch: an enum of exactly that batch's labels, so an id from another batch,
 * an earlier round or the model's imagination is rejected (and re-asked) rather than silently used.
 */
export function rankingSchema(labels: readonly [string, ...string[]]) {
  return z.object({ ranking: z.array(z.enum(labels)) });
}

/** Labels instead of UUIDs: two tokens each instead of ~25, in the prompt and in the (pricier) answer. */
const labelOf = (i: number) => `c${i + 1}`;

const byRetrieval = (a: RetrievedCandidate, b: RetrievedCandidate) => b.fusedScore - a.fusedScore || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Stripes candidates across batches so every batch holds a similar mix of retrieval ranks and a rank means the same in each. */
export function toBatches(candidates: RetrievedCandidate[], size: number): RetrievedCandidate[][] {
  const count = Math.ceil(candidates.length / size);
  const batches: RetrievedCandidate[][] = Array.from({ length: count }, () => []);
  candidates.forEach((c, i) => batches[i % count]!.push(c));
  return batches;
}

interface Ranked {
  candidate: RetrievedCandidate;
  position: number;
}

/** Interleaves the batches' rankings: first picks before second picks; equal positions by retrieval score, then id. */
export function mergeRankings(rankings: RetrievedCandidate[][], limit: number): string[] {
  const all: Ranked[] = rankings.flatMap((ranking) => ranking.map((candidate, position) => ({ candidate, position })));
  all.sort((a, b) => a.position - b.position || byRetrieval(a.candidate, b.candidate));
  return [...new Set(all.map((r) => r.candidate.id))].slice(0, limit);
}

export function createLlmReranker(deps: LlmAgentDeps): Reranker {
  async function rankBatch(input: RerankInput, batch: RetrievedCandidate[], index: number, ctx: AgentCallContext): Promise<RetrievedCandidate[]> {
    const labels = batch.map((_, i) => labelOf(i)) as [string, ...string[]];
    const byLabel = new Map(batch.map((c, i) => [labels[i]!, c]));
    const maxTokens = Math.max(200, batch.length * 8 + 100);
    const head = `${renderRole(input.role)}\n\n# Candidates (${batch.length})\n`;
    const listing = (excerpt: number, text = true) =>
      batch.map((c, i) => renderCandidate(text ? c.candidate : { ...c.candidate, text: '' }, { label: labels[i]!, maxResumeChars: excerpt })).join('\n\n');
    let prompt = head + listing(RERANK_EXCERPT_CHARS);
    // Each excerpt is RERANK_EXCERPT_CHARS, or less when the batch would not fit the model's context window.
    if (!fitsWindow(deps, 'reranker', RERANKER_INSTRUCTIONS + prompt, maxTokens)) {
      const room = resumeRoom(deps, 'reranker', RERANKER_INSTRUCTIONS + head + listing(0, false), maxTokens);
      prompt = head + listing(Math.min(RERANK_EXCERPT_CHARS, Math.floor(room / batch.length)));
    }
    try {
      const { value } = await askAgent(deps, ctx, {
        agent: 'reranker',
        instructions: RERANKER_INSTRUCTIONS,
        input: prompt,
        schema: rankingSchema(labels),
        schemaName: 'candidate_ranking',
        // A label and its punctuation are a few tokens; the floor leaves room for a short batch.
        maxTokens,
        candidateIds: batch.map((c) => c.id),
      });
      // Duplicates carry no extra meaning: the first mention is the model's placement.
      return [...new Set(value.ranking)].map((label) => byLabel.get(label)!);
    } catch (err) {
      if (err instanceof CandidatesErasedError) {
        // Erased while the batch waited for its slot: the others are ranked without them, in a request of their own.
        const erased = new Set(err.candidateIds);
        const rest = batch.filter((c) => !erased.has(c.id));
        return rest.length ? rankBatch(input, rest, index, ctx) : [];
      }
      if (!(err instanceof StructuredOutputError)) throw err;
      // The model kept naming candidates it was not given: rather than fail the run or guess, this batch
      // keeps retrieval's order, which is the ranking we had before asking.
      loggerFor(deps, ctx)?.warn({ agent: 'reranker', batch: index, size: batch.length, issues: err.issues.slice(0, 5) }, 'rerank batch fell back to retrieval order');
      return [...batch].sort(byRetrieval);
    }
  }

  return {
    async rerank(input: RerankInput, ctx: AgentCallContext): Promise<RerankOutput> {
      // Duplicate ids in the input would make labels ambiguous; the first occurrence stands.
      const unique = [...new Map(input.candidates.map((c) => [c.id, c])).values()];
      if (unique.length === 0 || input.limit < 1) return { orderedIds: [] };
      const batches = toBatches(unique, RERANK_BATCH_SIZE);
      // Batches run concurrently (the process-wide limiter and the run's budget bound them); results merge by batch
      // index. The first request is built at once, each next one a turn of the event loop later (thirty excerpts
      // fenced and rendered: the first leaves without waiting for the last of up to nine).
      const nextTurn = turnByTurn();
      // Settled, not Promise.all: a batch that fails (refused by the budget, a provider error) must not end the run
      // while the others are still paid for in flight, or their ledger rows would land after it was finished or handed back.
      const settled = await Promise.allSettled(batches.map((batch, i) => (i === 0 ? Promise.resolve() : nextTurn()).then(() => rankBatch(input, batch, i, ctx))));
      const rankings = settled.map((r) => {
        if (r.status === 'rejected') throw r.reason;
        return r.value;
      });
      return { orderedIds: mergeRankings(rankings, input.limit) };
    },
    // One more than the excerpt shows, so a resume that was cut still reads as cut.
    resumeChars: RERANK_EXCERPT_CHARS + 1,
  };
}
