// The LLM engine: one client, a chat caller capped by the process's model-request limiter, the ledger-backed sink, and a budget per claimed run.
import type OpenAI from 'openai';
import pLimit, { type LimitFunction } from 'p-limit';
import { createLlmAgents } from '../agents/llm/index.js';
import type { AgentCallContext, Agents, PoolInsight } from '../agents/types.js';
import type { Metrics } from '../metrics.js';
import { createBudget, type Budget } from './budget.js';
import { createChatCaller, type ChatCaller, type LlmLogger } from './chat.js';
import { createLlmClient } from './client.js';
import { BudgetExceededError, DeadlineExceededError } from './errors.js';
import type { LedgerEntry, LedgerSink } from './ledger.js';
import type { ModelRegistry } from './model-registry.js';
import type { LlmSettings } from './settings.js';

export type LlmMetrics = Pick<Metrics, 'modelCallDuration' | 'modelTokens' | 'modelCost' | 'structuredReasks' | 'unscoredCandidates'>;

/** The part of the usage store the engine needs: write a ledger row, read a run's totals back. */
export interface UsageLedger {
  record(entry: LedgerEntry): Promise<void>;
  runTotals(runId: string): Promise<{ calls: number; tokens: number; costUsd: number }>;
}

/** The run fields a budget is built from (a ClaimedRun fits). */
export interface BudgetedRun {
  id: string;
  orgId: string;
  /** A run no worker claimed before has no ledger rows: its totals are zero without reading them. */
  neverClaimed?: boolean;
  params: { maxIterations: number; scoreLimit: number; budget: { maxTokens: number; maxCostUsd: number } };
}

export interface LlmEngineDeps {
  settings: LlmSettings | (() => LlmSettings);
  registry: ModelRegistry;
  usage: UsageLedger;
  metrics?: LlmMetrics;
  logger?: LlmLogger;
  pool: PoolInsight;
  /** Process-wide cap on model requests in flight (LLM_CONCURRENCY); used when no limiter is given. */
  concurrency: number;
  /**
   * The process's one model-request limiter, shared with the embedder (runtime.ts builds it): chat and embedding
   * requests go to the same server, so LLM_CONCURRENCY caps them together. Without it the engine has its own.
   */
  limiter?: LimitFunction;
  /** Tests and callers that already hold the process's client pass it; otherwise one is built from settings. */
  client?: OpenAI;
  /** Which candidates are erased, asked before a request carrying their text is sent (ChatCallerDeps.erasedAmong). */
  erasedAmong?: (orgId: string, candidateIds: readonly string[]) => Promise<string[]>;
}

/** The ledger as the model layer sees it: every attempt becomes a row (and moves the run's totals) and the metrics. */
export function createUsageSink(deps: { usage?: Pick<UsageLedger, 'record'>; metrics?: LlmMetrics; logger?: LlmLogger }): LedgerSink {
  function observe(m: LlmMetrics, entry: LedgerEntry): void {
    const labels = { agent: entry.agent, model: entry.model };
    // A budget row is a call that was never sent: it has no duration worth a histogram sample.
    if (entry.outcome !== 'budget') m.modelCallDuration.observe({ ...labels, outcome: entry.outcome }, entry.latencyMs / 1000);
    m.modelTokens.inc({ ...labels, kind: 'prompt' }, entry.promptTokens);
    m.modelTokens.inc({ ...labels, kind: 'cached' }, entry.cachedTokens);
    m.modelTokens.inc({ ...labels, kind: 'completion' }, entry.completionTokens);
    m.modelCost.inc({ ...labels, outcome: entry.outcome }, entry.costUsd);
  }
  return {
    async record(entry: LedgerEntry): Promise<void> {
      // The ledger row first: it is what usage and budgets are read back from. Metrics are updated whatever the
      // write did, and a metrics failure (prom-client throws on a negative increment) never loses the row.
      try {
        if (deps.usage) await deps.usage.record(entry);
        else deps.logger?.info({ entry }, 'model call (no ledger store configured)');
      } finally {
        if (deps.metrics) {
          try {
            observe(deps.metrics, entry);
          } catch (err) {
            deps.logger?.error({ err, entry }, 'model call metrics update failed');
          }
        }
      }
    },
  };
}

// Per round: expander turns, the retrieval's query embedding, rerank batches over retrieval plus the largest backlog,
// one call per scored candidate, one reflection; each structured call may be re-asked. A runaway guard, not a tuning knob.
const EXPANDER_TURNS = 8;
const EMBEDDING_CALLS = 1;
const RERANK_POOL_MAX = 200;
const RERANK_BATCH = 30;

export function callCap(params: BudgetedRun['params'], reaskLimit: number): number {
  const tries = 1 + reaskLimit;
  const rerankBatches = Math.ceil((Math.max(50, params.scoreLimit * 4) + RERANK_POOL_MAX) / RERANK_BATCH);
  const perRound = EXPANDER_TURNS + EMBEDDING_CALLS + (rerankBatches + params.scoreLimit + 1) * tries;
  return params.maxIterations * perRound;
}

/** A budget or deadline stop is a normal end of a run (reason "budget"), wherever in the cause chain it sits. */
export function isBudgetError(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof BudgetExceededError || e instanceof DeadlineExceededError) return true;
  }
  return false;
}

/**
 * A claimed run's allowance of model work: its budget's limits, the runaway call cap and its deadline. What it already
 * spent is read back from the ledger, so a run resumed by another worker continues with what is left, not a fresh one.
 */
export async function runBudget(run: BudgetedRun, deadline: number, deps: { usage: Pick<UsageLedger, 'runTotals'>; reaskLimit: number }): Promise<Budget> {
  const totals = run.neverClaimed ? { tokens: 0, costUsd: 0, calls: 0 } : await deps.usage.runTotals(run.id);
  return createBudget({
    maxTokens: run.params.budget.maxTokens,
    maxCostUsd: run.params.budget.maxCostUsd,
    maxCalls: callCap(run.params, deps.reaskLimit),
    deadline,
    // The ledger counts attempts (and refusals), the budget counts calls: a resumed run is charged conservatively.
    spent: { tokens: totals.tokens, costUsd: totals.costUsd, calls: totals.calls },
  });
}

export function createLlmEngine(deps: LlmEngineDeps) {
  const settings = (): LlmSettings => (typeof deps.settings === 'function' ? deps.settings() : deps.settings);
  const client = deps.client ?? createLlmClient(settings());
  const limiter = deps.limiter ?? pLimit(deps.concurrency);
  const ledger = createUsageSink({ usage: deps.usage, metrics: deps.metrics, logger: deps.logger });
  const caller: ChatCaller = createChatCaller({ client, registry: deps.registry, settings, ledger, logger: deps.logger, limiter, erasedAmong: deps.erasedAmong });
  const agents: Agents = createLlmAgents({ caller, pool: deps.pool, logger: deps.logger, metrics: deps.metrics });

  return {
    agents,
    caller,
    client,
    /** The pinned registry the caller resolves models from (the audit trail records the specs used). */
    registry: deps.registry,
    /** Built when a worker claims a run (see runBudget). */
    async callContextFor(run: BudgetedRun, signal: AbortSignal, deadline: number): Promise<AgentCallContext> {
      const budget = await runBudget(run, deadline, { usage: deps.usage, reaskLimit: settings().reaskLimit });
      return { signal, runId: run.id, orgId: run.orgId, budget, deadline };
    },
    isBudgetError,
  };
}

export type LlmEngine = ReturnType<typeof createLlmEngine>;
