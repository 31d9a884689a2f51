// The run context: one typed object that rides through the steps and is checkpointed after each.
import type { Engine, RoleSpec, SearchFilters } from './domain.js';
import type { RunParams, Stop } from '../runs/run-schemas.js';
import type { SearchHit } from '../retrieval/search.js';

export const STEPS = ['expand', 'retrieve', 'rerank', 'score', 'reflect'] as const;
export type StepName = (typeof STEPS)[number];

export interface RoundState {
  queries: string[];
  filters: SearchFilters;
  /** This round's new retrieval hits (ids and retrieval evidence; texts are re-read when needed). */
  retrieved: SearchHit[];
  /** The reranker's picks for this round, best first. */
  rerankedIds: string[];
  /**
   * Each pick's fused retrieval score, whether it was retrieved this round or taken from the backlog (which the rerank
   * leaves without it). Absent from checkpoints written before it existed.
   */
  pickedScores?: Record<string, number>;
  /** Why the reflector let the run go on (its reasoning for a stop is the stop's). Absent before it reflects. */
  reflection?: string;
}

export interface ScoredSummary {
  candidateId: string;
  totalScore: number;
  iteration: number;
}

export interface RunContext {
  runId: string;
  orgId: string;
  engine: Engine;
  role: RoleSpec;
  params: RunParams;
  /** The current round, 1-based; 0 before the first. */
  iteration: number;
  /** The next step to run in this round. */
  step: StepName;
  usedQueries: string[];
  hints: string[];
  /** Every candidate retrieval has returned, once each: not retrieved again unless released. */
  seenIds: string[];
  /** Retrieved in an earlier round but not picked yet: offered to the reranker again, never re-retrieved. */
  backlog: SearchHit[];
  /**
   * Seen and never picked, and dropped from a full backlog (at most MAX_BACKLOG are kept): a later round's retrieval
   * may return them again, so that no candidate is lost to the cap. Absent from checkpoints written before it existed.
   */
  releasedIds?: string[];
  round: RoundState;
  scored: ScoredSummary[];
  unscoredIds: string[];
  stop: Stop | null;
}

export function emptyRound(): RoundState {
  return { queries: [], filters: {}, retrieved: [], rerankedIds: [] };
}

export function initialContext(args: { runId: string; orgId: string; engine: Engine; role: RoleSpec; params: RunParams }): RunContext {
  return {
    ...args,
    iteration: 1,
    step: 'expand',
    usedQueries: [],
    hints: [],
    seenIds: [],
    backlog: [],
    round: emptyRound(),
    scored: [],
    unscoredIds: [],
    stop: null,
  };
}

export function strongCount(ctx: RunContext): number {
  return ctx.scored.filter((s) => s.totalScore >= ctx.params.scoreThreshold).length;
}

export function bestScore(scored: ScoredSummary[]): number | null {
  return scored.length ? Math.max(...scored.map((s) => s.totalScore)) : null;
}

export function progressOf(ctx: RunContext) {
  return {
    iteration: ctx.iteration,
    maxIterations: ctx.params.maxIterations,
    candidatesSeen: ctx.seenIds.length,
    candidatesScored: ctx.scored.length,
    strongCandidates: strongCount(ctx),
  };
}
