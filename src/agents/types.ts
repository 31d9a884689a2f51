// The four agents' interfaces: typed input to typed output. The workflow knows only these;
// each has an LLM implementation and a deterministic heuristic one (the offline engine).
import type { StatementSender } from '../db/database.js';
import type { Budget } from '../llm/budget.js';
import type { LlmLogger, ModelExchange } from '../llm/chat.js';
import type { CandidateView, RetrievedCandidate, RoleSpec, Score, SearchFilters } from '../matching/domain.js';

/** Per-call context every agent receives: cancellation, and who pays for the call. */
export interface AgentCallContext {
  signal?: AbortSignal;
  /** Present for LLM agents: charges the call to the run's budget and ledger. Heuristic agents ignore it. */
  runId?: string;
  orgId: string;
  /** The run's allowance (tokens, cost, calls), shared by all its calls; LLM agents reserve against it before sending. */
  budget?: Budget;
  /** Epoch ms: no model call starts, and no retry waits, past it. */
  deadline?: number;
  /**
   * Epoch ms: when the run started. The heuristic agents read "present" in a resume's date range as its year, so that
   * every round, a resumed attempt and a replay read a resume alike (the current year without it).
   */
  startedAt?: number;
  /** The run's logger (runId, orgId, iteration), so agent and model-layer lines belong to the run. */
  logger?: LlmLogger;
  /** Every model attempt, for the run's audit trail. */
  onExchange?: (exchange: ModelExchange) => Promise<void>;
  /**
   * How the agent's reads of the pool are sent: a worker sends them again while the database is away and the run's
   * lease lasts (src/runs/while-leased.ts). Without it, once (sendOnce).
   */
  read?: StatementSender;
}

export interface ExpandInput {
  role: RoleSpec;
  iteration: number;
  usedQueries: string[];
  /** The reflector's hints from the previous round, if any. */
  hints: string[];
}

export interface ExpandOutput {
  /** Fresh search queries for this round (none of usedQueries). */
  queries: string[];
  filters: SearchFilters;
}

export interface QueryExpander {
  expand(input: ExpandInput, ctx: AgentCallContext): Promise<ExpandOutput>;
}

export interface RerankInput {
  role: RoleSpec;
  candidates: RetrievedCandidate[];
  /** At most this many ids come back. */
  limit: number;
}

export interface RerankOutput {
  /** Ids from the input, best first, at most `limit`. */
  orderedIds: string[];
}

export interface Reranker {
  rerank(input: RerankInput, ctx: AgentCallContext): Promise<RerankOutput>;
  /**
   * How much of each resume the reranker reads (UTF-16 units from the start), when it reads less than all of it:
   * the texts are then read only that far, which on a pool of a few hundred candidates is most of the bytes.
   */
  readonly resumeChars?: number;
}

export interface ScoreInput {
  role: RoleSpec;
  candidate: CandidateView;
}

export type ScoreOutcome =
  | { status: 'scored'; score: Score }
  /** The model never produced a valid answer within the re-ask bound: no score is invented. */
  | { status: 'unscored'; reason: string };

export interface Scorer {
  score(input: ScoreInput, ctx: AgentCallContext): Promise<ScoreOutcome>;
}

export interface ReflectInput {
  role: RoleSpec;
  iteration: number;
  maxIterations: number;
  scoreThreshold: number;
  targetStrong: number;
  /** Total scores of this round's newly scored candidates. */
  roundScores: number[];
  /** Best total scores before this round and after it. */
  bestBefore: number | null;
  bestAfter: number | null;
  strongBefore: number;
  strongAfter: number;
  usedQueries: string[];
}

export interface ReflectOutput {
  stop: boolean;
  reasoning: string;
  /** Hints for the next round's query expansion. */
  hints: string[];
}

export interface Reflector {
  reflect(input: ReflectInput, ctx: AgentCallContext): Promise<ReflectOutput>;
}

export interface Agents {
  engine: 'llm' | 'heuristic';
  queryExpander: QueryExpander;
  reranker: Reranker;
  scorer: Scorer;
  reflector: Reflector;
}

/** What agents may learn about the organisation's pool; backed by SQL, injected into agents. */
export interface PoolInsight {
  /** The organisation's live skill vocabulary: distinct normalised skills with their counts. */
  skillVocabulary(orgId: string): Promise<Array<{ skill: string; count: number }>>;
  /** How many of the organisation's candidates match a filter combination. */
  countMatching(orgId: string, filters: SearchFilters): Promise<number>;
}
