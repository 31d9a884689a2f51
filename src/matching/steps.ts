// The five steps of a round, each (context) => context: expand, retrieve, rerank, score, reflect.
import pLimit from 'p-limit';
import type { Logger } from 'pino';
import type { AgentCallContext, Agents } from '../agents/types.js';
import { turnByTurn } from '../llm/dispatch.js';
import { CandidatesErasedError } from '../llm/errors.js';
import type { EntryWrite } from '../runs/run-writes.js';
import type { SearchHit, SearchRequest } from '../retrieval/search.js';
import { bestScore, emptyRound, strongCount, type RunContext, type StepName } from './context.js';
import type { CandidateView, RetrievedCandidate } from './domain.js';

export interface StepDeps {
  agents: Agents;
  search(req: SearchRequest): Promise<SearchHit[]>;
  /** What agents may read of candidates: no names or external ids (those come from identities, for entries only). */
  views(orgId: string, ids: string[], opts?: { maxChars?: number }): Promise<CandidateView[]>;
  identities(orgId: string, ids: string[]): Promise<Map<string, { externalId: string; name: string | null }>>;
  /** Persists scored candidates (ctx includes them); cancelRequested tells the run to stop. */
  saveEntries(ctx: RunContext, entries: EntryWrite[]): Promise<{ cancelRequested: boolean }>;
  /**
   * Hands over writes a step has started and not waited for: the next checkpoint is written after them, and
   * their failure (or a cancel they report, as CancelRequested) ends the run there. The next step does not wait.
   */
  defer(writes: Promise<void>): void;
  trace(kind: string, data: unknown, candidateId?: string | null): Promise<void>;
  /** Raised by the caller when the run is cancelled or its lease is lost. */
  signal: AbortSignal;
  callContext: AgentCallContext;
  logger: Logger;
  /** The process-wide cap on concurrent scoring calls, shared by all runs. */
  globalScoreLimit: <T>(fn: () => Promise<T>) => Promise<T>;
}

export type Step = (ctx: RunContext, deps: StepDeps) => Promise<RunContext>;

// How many candidates retrieval brings per round for each one the reranker may pick.
const RETRIEVE_FACTOR = 4;
const MIN_RETRIEVE = 50;
const MAX_BACKLOG = 200;
/** The latest queries a round without a new one searches with again. */
const REPEATED_QUERIES = 5;

const expand: Step = async (ctx, deps) => {
  const out = await deps.agents.queryExpander.expand(
    { role: ctx.role, iteration: ctx.iteration, usedQueries: ctx.usedQueries, hints: ctx.hints },
    deps.callContext,
  );
  const used = new Set(ctx.usedQueries.map((q) => q.trim().toLowerCase()));
  const queries = [...new Set(out.queries.map((q) => q.trim()).filter((q) => q && !used.has(q.toLowerCase())))];
  await deps.trace('queries.expanded', { iteration: ctx.iteration, queries, filters: out.filters });
  return { ...ctx, usedQueries: [...ctx.usedQueries, ...queries], round: { ...emptyRound(), queries, filters: out.filters } };
};

const retrieve: Step = async (ctx, deps) => {
  const limit = Math.max(MIN_RETRIEVE, ctx.params.scoreLimit * RETRIEVE_FACTOR);
  const released = new Set(ctx.releasedIds);
  const excludeIds = released.size ? ctx.seenIds.filter((id) => !released.has(id)) : ctx.seenIds;
  // A round whose expander found no new query searches again with the latest ones: the seen candidates are excluded,
  // so the same queries reach further down the pool. Without it the run stopped 'exhausted' with the pool unread.
  const queries = ctx.round.queries.length ? ctx.round.queries : ctx.usedQueries.slice(-REPEATED_QUERIES);
  const hits = queries.length
    ? await deps.search({ orgId: ctx.orgId, queries, filters: ctx.round.filters, excludeIds, limit, call: deps.callContext })
    : [];
  // The queries are recorded beside the hits: a replay serves these hits to the same queries instead of searching.
  await deps.trace('candidates.retrieved', {
    iteration: ctx.iteration,
    queries,
    hits: hits.map((h) => ({ id: h.id, fusedScore: h.fusedScore, vectorRank: h.vectorRank, textRank: h.textRank, distance: h.distance })),
  });
  // A released candidate retrieved again is seen already (counted once) and no longer released.
  const again = new Set(hits.filter((h) => released.has(h.id)).map((h) => h.id));
  const seenIds = [...ctx.seenIds, ...hits.filter((h) => !released.has(h.id)).map((h) => h.id)];
  const releasedIds = again.size ? ctx.releasedIds!.filter((id) => !again.has(id)) : ctx.releasedIds;
  return { ...ctx, seenIds, ...(releasedIds ? { releasedIds } : {}), round: { ...ctx.round, retrieved: hits } };
};

const rerank: Step = async (ctx, deps) => {
  const pool = [...ctx.round.retrieved, ...ctx.backlog];
  if (!pool.length) return { ...ctx, round: { ...ctx.round, rerankedIds: [] } };
  const excerpt = deps.agents.reranker.resumeChars;
  const views = new Map((await deps.views(ctx.orgId, pool.map((h) => h.id), excerpt === undefined ? {} : { maxChars: excerpt })).map((v) => [v.id, v]));
  // Candidates erased since retrieval simply drop out.
  const candidates: RetrievedCandidate[] = pool.flatMap((h) => {
    const candidate = views.get(h.id);
    return candidate ? [{ ...h, candidate }] : [];
  });
  const { orderedIds } = await deps.agents.reranker.rerank({ role: ctx.role, candidates, limit: ctx.params.scoreLimit }, deps.callContext);
  const known = new Set(candidates.map((c) => c.id));
  const picked = [...new Set(orderedIds.filter((id) => known.has(id)))].slice(0, ctx.params.scoreLimit);
  const pickedSet = new Set(picked);
  const unpicked = pool
    .filter((h) => !pickedSet.has(h.id) && views.has(h.id))
    .sort((a, b) => b.fusedScore - a.fusedScore || (a.id < b.id ? -1 : 1));
  const backlog = unpicked.slice(0, MAX_BACKLOG);
  // What the backlog cannot keep (at a large scoreLimit, or after enough rounds, more is retrieved than it holds) is
  // released: a later round's queries may find it again, instead of its being excluded from every retrieval unscored.
  const dropped = unpicked.slice(MAX_BACKLOG).map((h) => h.id);
  const releasedIds = dropped.length ? [...(ctx.releasedIds ?? []), ...dropped] : ctx.releasedIds;
  await deps.trace('candidates.reranked', { iteration: ctx.iteration, orderedIds: picked });
  const fused = new Map(pool.map((h) => [h.id, h.fusedScore]));
  const pickedScores = Object.fromEntries(picked.map((id) => [id, fused.get(id) ?? 0]));
  return { ...ctx, backlog, ...(releasedIds ? { releasedIds } : {}), round: { ...ctx.round, rerankedIds: picked, pickedScores } };
};

/** Fans the scorer out; each result is written the moment it exists, so a crash loses nothing scored. */
const score: Step = async (ctx, deps) => {
  const done = new Set([...ctx.scored.map((s) => s.candidateId), ...ctx.unscoredIds]);
  const todo = ctx.round.rerankedIds.filter((id) => !done.has(id));
  if (!todo.length) return ctx;
  // A checkpoint from before pickedScores finds this round's hits and the backlog left (a pick taken from the backlog
  // is in neither: 0, as it was recorded then).
  const retrieval = new Map([...ctx.round.retrieved, ...ctx.backlog].map((h) => [h.id, h.fusedScore]));
  const retrievalScore = (id: string) => ctx.round.pickedScores?.[id] ?? retrieval.get(id) ?? 0;
  // Texts are read up front: while the scorers wait on a model no connection is held. Names and external ids are
  // needed only for the entries, so the scorers' requests do not wait for them (asked second: the database
  // answers in turn). An entry cannot be written without them: their read, if it fails (a statement timeout; an
  // outage is waited out by the read itself), is sent once more at once, and should that fail too no further scorer
  // is sent, as its answer could not be written and the run's next attempt would pay for it again.
  const viewsRead = deps.views(ctx.orgId, todo);
  const identitiesRead = deps.identities(ctx.orgId, todo).catch(() => deps.identities(ctx.orgId, todo));
  let identitiesFailed: unknown = null;
  identitiesRead.catch((err: unknown) => (identitiesFailed = err));
  const views = new Map((await viewsRead).map((v) => [v.id, v]));
  // The context as the scorers answered, and as written: entries are written in the order they arrived.
  let current = ctx;
  let written = ctx;
  // One write at a time, each taking every entry that arrived while the previous one was written (scorers
  // answer together): a round's entries cost a few statements, not one each.
  let waiting: Array<{ entry: EntryWrite; apply: (c: RunContext) => RunContext }> = [];
  let writing: Promise<void> | null = null;
  // The first write that failed, or that reported a cancel: later entries are still written (they are paid for).
  let failed: unknown = null;
  const drain = async () => {
    while (waiting.length) {
      const batch = waiting;
      waiting = [];
      try {
        for (const w of batch) written = w.apply(written);
        const { cancelRequested } = await deps.saveEntries(written, batch.map((w) => w.entry));
        if (cancelRequested) failed ??= new CancelRequested();
      } catch (err) {
        // A write that failed outranks a cancel reported before it: entries are missing, and no checkpoint may
        // record the step as done (workflow.ts writes one after a cancel alone).
        if (failed === null || failed instanceof CancelRequested) failed = err;
      }
    }
    writing = null;
  };
  const write = (entry: EntryWrite, apply: (c: RunContext) => RunContext) => {
    current = apply(current);
    waiting.push({ entry, apply });
    writing ??= drain();
  };
  /** Resolves once every entry is written, rejects with why one was not. */
  const allWritten = async () => {
    while (writing) await writing;
    if (failed) throw failed;
  };
  const perRun = pLimit(ctx.params.scoreLimit);
  // One scorer request is built per turn of the event loop.
  const nextDispatch = turnByTurn();
  const results = await Promise.allSettled(
    todo.map((id) =>
      perRun(async () => {
        const view = views.get(id);
        if (!view) return;
        await nextDispatch();
        // The process-wide slot covers the model work only: the entry's write waits on the database, and a
        // slot held through it is a model request not sent (twenty runs' writes queue on one database).
        const outcome = await deps.globalScoreLimit(async () => {
          deps.signal.throwIfAborted();
          if (identitiesFailed) throw identitiesFailed;
          return deps.agents.scorer.score({ role: ctx.role, candidate: view }, deps.callContext);
        }).catch((err: unknown) => {
          // Erased while its request waited: it drops out, as one erased before its text was read does.
          if (err instanceof CandidatesErasedError) return null;
          throw err;
        });
        if (!outcome) return;
        const identity = (await identitiesRead).get(id);
        const base = { candidateId: id, externalId: identity?.externalId ?? null, name: identity?.name ?? null, retrievalScore: retrievalScore(id), iteration: ctx.iteration };
        if (outcome.status === 'scored') {
          const { subscores, totalScore, rationale, evidence } = outcome.score;
          write({ ...base, status: 'scored', subscores, totalScore, rationale, evidence }, (c) => ({
            ...c,
            scored: [...c.scored, { candidateId: id, totalScore, iteration: ctx.iteration }],
          }));
        } else {
          write({ ...base, status: 'unscored', reason: outcome.reason }, (c) => ({ ...c, unscoredIds: [...c.unscoredIds, id] }));
        }
      }),
    ),
  );
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) {
    // What was scored is written before the run ends with the failure.
    await allWritten().catch(() => {});
    throw failure.reason;
  }
  // The last entries are still being written while the next step starts; the next checkpoint waits for them.
  deps.defer(allWritten());
  return current;
};

const reflect: Step = async (ctx, deps) => {
  const round = ctx.scored.filter((s) => s.iteration === ctx.iteration);
  const before = ctx.scored.filter((s) => s.iteration < ctx.iteration);
  const threshold = ctx.params.scoreThreshold;
  const out = await deps.agents.reflector.reflect(
    {
      role: ctx.role,
      iteration: ctx.iteration,
      maxIterations: ctx.params.maxIterations,
      scoreThreshold: threshold,
      targetStrong: ctx.params.targetStrong,
      // Best first, not in the order the scorers happened to finish: the same round always reads the same.
      roundScores: round.map((s) => s.totalScore).sort((a, b) => b - a),
      bestBefore: bestScore(before),
      bestAfter: bestScore(ctx.scored),
      strongBefore: before.filter((s) => s.totalScore >= threshold).length,
      strongAfter: strongCount(ctx),
      usedQueries: ctx.usedQueries,
    },
    deps.callContext,
  );
  await deps.trace('iteration.reflected', { iteration: ctx.iteration, ...out });
  // The workflow does not reflect on the last allowed round (the cap ends it after scoring); a checkpoint written
  // before that rule may still reach here on its last round, and then the cap, not the reflector, is why it ends.
  if (!out.stop || ctx.iteration >= ctx.params.maxIterations) return { ...ctx, hints: out.hints, round: { ...ctx.round, reflection: out.reasoning } };
  deps.logger.info({ iteration: ctx.iteration }, `Stopping iterations at ${ctx.iteration}: ${out.reasoning}`);
  return { ...ctx, hints: out.hints, stop: { reason: 'reflector', iteration: ctx.iteration, reasoning: out.reasoning } };
};

export class CancelRequested extends Error {
  override name = 'CancelRequested';
}

export const STEP_FUNCTIONS: Record<StepName, Step> = { expand, retrieve, rerank, score, reflect };
