// Replays a recorded run: the same workflow against its recorded model answers and retrieval hits, offline, and
// reports whether the shortlist comes out identical.
import pLimit from 'p-limit';
import { pino, type Logger } from 'pino';
import { createHeuristicAgents } from '../agents/heuristic/index.js';
import { createLlmAgents } from '../agents/llm/index.js';
import type { AgentCallContext, Agents, PoolInsight } from '../agents/types.js';
import { createCandidateStore } from '../candidates/candidate-store.js';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { createBudget } from '../llm/budget.js';
import { createChatCaller } from '../llm/chat.js';
import { callCap, isBudgetError } from '../llm/engine.js';
import { createMemoryLedger } from '../llm/ledger.js';
import { createModelRegistry, loadPinnedRegistry, type ModelSpec } from '../llm/model-registry.js';
import { AGENT_NAMES, parseLlmSettings, type AgentName } from '../llm/settings.js';
import { initialContext, type RunContext } from '../matching/context.js';
import { SUBSCORE_NAMES, type Engine, type RoleSpec, type Subscores } from '../matching/domain.js';
import { runWorkflow, WorkflowInterrupted } from '../matching/workflow.js';
import type { SearchHit, SearchRequest } from '../retrieval/search.js';
import type { EntryWrite } from '../runs/run-writes.js';
import type { RunParams, Stop } from '../runs/run-schemas.js';
import { createReplayClient, createReplayFetch, type ExchangeRecord, type ReplayStats } from './exchanges.js';
import type { AgentModelRecord, RunManifest } from './manifest.js';

export interface ShortlistLine {
  candidateId: string;
  totalScore: number;
  subscores: Subscores;
}

export interface ReplayReport {
  runId: string;
  engine: Engine;
  identical: boolean;
  recorded: ShortlistLine[];
  replayed: ShortlistLine[];
  /** One line per difference, rank by rank; empty when identical. */
  diff: string[];
  stop: Stop | null;
  modelCalls: ReplayStats;
  /** Why the replay could not finish (an unrecorded request, a missing candidate), or null. */
  error: string | null;
}

/**
 * What replay-run prints and exits with: 0 identical, 1 different, 2 when the replay could not finish (a request or a
 * retrieval nobody recorded: the pool, or a candidate, changed since; or the run ended by its deadline before asking
 * it), which tells nothing of whether the shortlist would differ.
 */
export function replayVerdict(report: ReplayReport): { code: 0 | 1 | 2; stdout: string; stderr: string } {
  const calls = `${report.modelCalls.served} recorded model answers served, ${report.modelCalls.unrecorded.length} unrecorded requests`;
  if (report.error !== null) {
    const why = report.modelCalls.unrecorded.length
      ? `${report.modelCalls.unrecorded.length} model request(s) the trail has no answer for: a candidate the run read was erased or changed since, or the run ended (its deadline) before it asked them`
      : report.error;
    return { code: 2, stdout: '', stderr: `talent-matcher: cannot replay run ${report.runId} (${calls}): ${why}\n` };
  }
  if (report.identical) return { code: 0, stdout: `identical: ${report.replayed.length} shortlist entries (${calls})\n`, stderr: '' };
  return { code: 1, stdout: `different (${calls}):\n${report.diff.map((d) => `  ${d}`).join('\n')}\n`, stderr: '' };
}

export class ReplayUnavailableError extends Error {
  override name = 'ReplayUnavailableError';
}

type TraceRow = { kind: string; data: Record<string, unknown>; candidate_id: string | null };

/**
 * Candidates the run is known to have read: scored or left unscored, picked by the reranker, or named by a model
 * exchange. One missing now was erased after the run read it, and the replay cannot act the run out; one missing that
 * is none of these (retrieved, then erased before the run read it) dropped out of the run too, and drops out here.
 */
function candidatesRead(trace: TraceRow[]): Set<string> {
  const read = new Set<string>();
  for (const row of trace) {
    if (row.candidate_id) read.add(row.candidate_id);
    const ids = row.kind === 'candidates.reranked' ? row.data.orderedIds : row.kind === 'model.exchange' ? row.data.candidateIds : undefined;
    if (Array.isArray(ids)) for (const id of ids) if (typeof id === 'string') read.add(id);
  }
  return read;
}

type StartedTrace = RunManifest & { role: RoleSpec; params: RunParams };

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

function ranked<T extends { candidateId: string; totalScore: number; retrievalScore: number }>(entries: T[]): T[] {
  return [...entries].sort((a, b) => b.totalScore - a.totalScore || b.retrievalScore - a.retrievalScore || (a.candidateId < b.candidateId ? -1 : a.candidateId > b.candidateId ? 1 : 0));
}

export function diffShortlists(recorded: ShortlistLine[], replayed: ShortlistLine[]): string[] {
  const diff: string[] = [];
  const show = (l: ShortlistLine | undefined) => (l ? `${l.candidateId} ${l.totalScore} ${JSON.stringify(l.subscores)}` : '(none)');
  for (let i = 0; i < Math.max(recorded.length, replayed.length); i++) {
    const a = recorded[i];
    const b = replayed[i];
    if (a && b && a.candidateId === b.candidateId && a.totalScore === b.totalScore && JSON.stringify(a.subscores) === JSON.stringify(b.subscores)) continue;
    diff.push(`rank ${i + 1}: recorded ${show(a)} | replayed ${show(b)}`);
  }
  return diff;
}

/** Serves each search the hits recorded for the same queries; a search nobody recorded is a replay failure. */
function recordedSearch(trace: TraceRow[]) {
  const recorded = trace
    .filter((t) => t.kind === 'candidates.retrieved')
    .map((t) => ({ key: JSON.stringify(t.data.queries ?? null), hits: (t.data.hits ?? []) as SearchHit[], used: false }));
  return async (req: SearchRequest): Promise<SearchHit[]> => {
    const key = JSON.stringify(req.queries);
    const found = recorded.find((r) => !r.used && r.key === key);
    if (!found) throw new ReplayUnavailableError(`no recorded retrieval for queries ${key}`);
    found.used = true;
    return found.hits;
  };
}

/** The models as pinned when the run started (recorded specs win over today's registry). */
function registryFor(started: StartedTrace, config: Config) {
  const current = loadPinnedRegistry(config.MODEL_REGISTRY_PATH);
  const specs = new Map<string, ModelSpec>(current.models.map((m) => [m.id, m]));
  for (const m of Object.values(started.models ?? {}) as AgentModelRecord[]) if (m.spec) specs.set(m.spec.id, m.spec);
  return createModelRegistry([...specs.values()]);
}

function llmAgents(started: StartedTrace, config: Config, exchanges: ExchangeRecord[], pool: PoolInsight, logger: Logger) {
  if (!started.models || !started.settings) throw new ReplayUnavailableError('the trail does not record the models this run used');
  const agents = Object.fromEntries(
    AGENT_NAMES.map((agent) => [agent, { model: started.models![agent].model, temperature: started.models![agent].temperature }]),
  ) as Record<AgentName, { model: string; temperature: number }>;
  const settings = parseLlmSettings({
    baseUrl: 'http://replay.invalid/v1',
    apiKey: 'replay',
    timeoutMs: config.LLM_TIMEOUT_MS,
    maxRetries: 0,
    reaskLimit: started.settings.reaskLimit,
    agents,
    embeddingModel: config.llm.embeddingModel,
  });
  const replay = createReplayFetch(exchanges);
  const caller = createChatCaller({ client: createReplayClient(replay.fetch), registry: registryFor(started, config), settings, ledger: createMemoryLedger(), logger });
  return { agents: createLlmAgents({ caller, pool, logger }), stats: replay.stats, reaskLimit: settings.reaskLimit };
}

export async function replayRun(opts: { db: Database; config: Config; runId: string; logger?: Logger }): Promise<ReplayReport> {
  const { db, config, runId } = opts;
  const logger = opts.logger ?? pino({ enabled: false });
  const run = (
    await db.query<{ id: string; org_id: string; status: string; started_at: Date | null }>('SELECT id, org_id, status, started_at FROM matching_runs WHERE id = $1', [runId])
  ).rows[0];
  if (!run) throw new ReplayUnavailableError(`no matching run ${runId}`);
  if (run.status === 'queued' || run.status === 'running') throw new ReplayUnavailableError(`run ${runId} is still ${run.status}`);
  // Where a cancel arrived is not in the trail: replayed, the run would go on past it, into requests nobody recorded.
  if (run.status === 'cancelled') throw new ReplayUnavailableError(`run ${runId} was cancelled: a replay cannot act out when the cancel arrived`);
  const trace = (await db.query<TraceRow>('SELECT kind, data, candidate_id FROM run_trace WHERE run_id = $1 ORDER BY id', [runId])).rows;
  const started = trace.find((t) => t.kind === 'run.started')?.data as StartedTrace | undefined;
  if (!started) throw new ReplayUnavailableError(`run ${runId} has no audit trail (pruned, or recorded before trails existed)`);

  const store = createCandidateStore(db);
  const pool: PoolInsight = { skillVocabulary: store.skillVocabulary, countMatching: store.countMatching };
  const exchanges = trace.filter((t) => t.kind === 'model.exchange').map((t) => t.data as unknown as ExchangeRecord);
  let agents: Agents;
  let stats: ReplayStats = { served: 0, unrecorded: [] };
  let reaskLimit = 0;
  if (started.engine === 'llm') ({ agents, stats, reaskLimit } = llmAgents(started, config, exchanges, pool, logger));
  else agents = createHeuristicAgents(pool);

  const params = started.params;
  const callContext: AgentCallContext = {
    orgId: run.org_id,
    runId,
    logger,
    // As the run read its resumes: "present" is the year it started.
    ...(run.started_at ? { startedAt: run.started_at.getTime() } : {}),
    // The recorded budget, without the deadline: a replay is judged on what it decides, not how fast.
    ...(started.engine === 'llm'
      ? { budget: createBudget({ maxTokens: params.budget.maxTokens, maxCostUsd: params.budget.maxCostUsd, maxCalls: callCap(params, reaskLimit) }) }
      : {}),
  };
  const readByRun = candidatesRead(trace);
  const entries = new Map<string, EntryWrite>();
  const scoreLimit = pLimit(8);
  let stop: Stop | null = null;
  let error: string | null = null;
  try {
    const end: RunContext = await runWorkflow(initialContext({ runId, orgId: run.org_id, engine: started.engine, role: started.role, params }), {
      agents,
      search: recordedSearch(trace),
      // A candidate the run read and erased since is no longer there to read: the replay cannot act the run out (a
      // heuristic run makes no request that would go unrecorded), and its shortlist would differ for that alone.
      views: async (orgId, ids, opts) => {
        const read = await store.views(orgId, ids, opts);
        const found = new Set(read.map((v) => v.id));
        const erased = [...new Set(ids)].filter((id) => !found.has(id) && readByRun.has(id)).length;
        if (erased > 0) throw new ReplayUnavailableError(`${erased} candidate(s) the run read have been erased since`);
        return read;
      },
      identities: store.identities,
      saveEntries: async (_ctx, written) => {
        for (const entry of written) entries.set(entry.candidateId, entry);
        return { cancelRequested: false };
      },
      checkpoint: async () => ({ cancelRequested: false }),
      onCancelRequested: () => {},
      trace: async () => {},
      signal: new AbortController().signal,
      callContext,
      logger,
      globalScoreLimit: (fn) => scoreLimit(fn),
    });
    stop = end.stop;
  } catch (err) {
    const cause = err instanceof WorkflowInterrupted ? err.cause : err;
    if (isBudgetError(cause)) stop = { reason: 'budget', iteration: (err as WorkflowInterrupted).context?.iteration ?? 0, reasoning: describe(cause) };
    else error = describe(cause);
  }

  const recordedRows = await db.query<{ candidate_id: string; total_score: number; subscores: Subscores; retrieval_score: number }>(
    `SELECT candidate_id, total_score, subscores, retrieval_score FROM shortlist_entries WHERE run_id = $1 AND status = 'scored'`,
    [runId],
  );
  // Sub-scores in their canonical order: jsonb keeps keys in its own order, which is no difference.
  const line = (e: { candidateId: string; totalScore: number; subscores: Subscores }): ShortlistLine => ({
    candidateId: e.candidateId,
    totalScore: e.totalScore,
    subscores: Object.fromEntries(SUBSCORE_NAMES.map((n) => [n, e.subscores[n]])) as Subscores,
  });
  const recorded = ranked(recordedRows.rows.map((r) => ({ candidateId: r.candidate_id, totalScore: r.total_score, subscores: r.subscores, retrievalScore: r.retrieval_score }))).map(line);
  const replayed = ranked(
    [...entries.values()].flatMap((e) => (e.status === 'scored' ? [{ candidateId: e.candidateId, totalScore: e.totalScore!, subscores: e.subscores!, retrievalScore: e.retrievalScore }] : [])),
  ).map(line);
  const diff = diffShortlists(recorded, replayed);
  if (error) diff.unshift(`replay failed: ${error}`);
  for (const u of stats.unrecorded) diff.push(`unrecorded ${u.agent ?? 'model'} request sha256 ${u.requestHash}`);
  return { runId, engine: started.engine, identical: diff.length === 0, recorded, replayed, diff, stop, modelCalls: stats, error };
}
