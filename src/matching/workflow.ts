// The reduce-style workflow: steps reduce the context in order, round after round, and every exit is named.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Stop } from '../runs/run-schemas.js';
import { STEPS, strongCount, type RunContext, type StepName } from './context.js';
import { CancelRequested, STEP_FUNCTIONS, type StepDeps } from './steps.js';

// The event each finished step leaves on the run's timeline.
const STEP_EVENTS: Record<StepName, string> = {
  expand: 'queries.expanded',
  retrieve: 'candidates.retrieved',
  rerank: 'candidates.reranked',
  score: 'candidates.scored',
  reflect: 'iteration.reflected',
};

export interface RunEventInput {
  type: string;
  data: Record<string, unknown>;
  /** When it happened (epoch ms), for an event written later than that (a folded step's); otherwise when written. */
  at?: number;
}

export interface WorkflowDeps extends Omit<StepDeps, 'defer'> {
  /** Saves the context with the events that lead to it, in order, in one write. */
  checkpoint(ctx: RunContext, events: RunEventInput[]): Promise<{ cancelRequested: boolean }>;
  /** A checkpoint's answer says the run was cancelled: stop the step that is already running (abort its model calls). */
  onCancelRequested(): void;
}

/** Thrown out of the workflow with the last context that was saved, so the run can finish with what it has. */
export class WorkflowInterrupted extends Error {
  constructor(
    readonly context: RunContext,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'WorkflowInterrupted';
  }
}

export class CancelledAtBoundary extends Error {
  override name = 'CancelledAtBoundary';
}

function stepEventData(ctx: RunContext, step: StepName): Record<string, unknown> {
  const base = { iteration: ctx.iteration };
  switch (step) {
    case 'expand':
      return { ...base, queries: ctx.round.queries, filters: ctx.round.filters };
    case 'retrieve':
      return { ...base, count: ctx.round.retrieved.length, backlog: ctx.backlog.length };
    case 'rerank':
      return { ...base, candidateIds: ctx.round.rerankedIds };
    case 'score':
      return { ...base, scored: ctx.scored.filter((s) => s.iteration === ctx.iteration).length, strong: strongCount(ctx) };
    case 'reflect':
      // The reasoning whichever way the reflector decided: a round that goes on says why, as a stop does.
      return { ...base, stop: ctx.stop?.reason === 'reflector', reasoning: ctx.stop?.reasoning ?? ctx.round.reflection ?? null, hints: ctx.hints };
  }
}

const iterationStarted = (iteration: number): RunEventInput => ({ type: 'iteration.started', data: { iteration } });

/**
 * Steps whose checkpoint is folded into the next one's. The expansion is saved with the retrieval's hits: retrieval
 * makes no model call and takes tens of milliseconds, and a 40 KB checkpoint written in between would sit on the
 * way from the expander's answer to the reranker's request (the embedded database runs one statement at a time)
 * and cost one write per round. A crash in between repeats the expander's call, as a crash before any checkpoint
 * lands repeats the step before it.
 */
const FOLDED: ReadonlySet<StepName> = new Set(['expand']);

/** The exit checks that follow a step; null means "go on". */
function exitAfter(step: StepName, ctx: RunContext): Stop | null {
  const it = ctx.iteration;
  if (step === 'retrieve' && ctx.round.retrieved.length === 0 && ctx.backlog.length === 0) {
    return { reason: 'exhausted', iteration: it, reasoning: 'Retrieval found no candidate that was not already seen.' };
  }
  if (step === 'score' && strongCount(ctx) >= ctx.params.targetStrong) {
    return {
      reason: 'target_reached',
      iteration: it,
      reasoning: `${strongCount(ctx)} candidates scored at least ${ctx.params.scoreThreshold}; the target was ${ctx.params.targetStrong}.`,
    };
  }
  // The last allowed round ends with its scoring: a reflection there could only advise a round that will not come
  // (the cap is code, whatever the reflector says), so it is not asked for, nor paid for. A checkpoint written
  // before this rule, about to reflect on its last round, still ends by the cap after that reflection.
  if ((step === 'score' || (step === 'reflect' && !ctx.stop)) && it >= ctx.params.maxIterations) {
    return { reason: 'max_iterations', iteration: it, reasoning: `Ran all ${ctx.params.maxIterations} iterations.` };
  }
  return null;
}

export interface WorkflowOptions {
  /** Events that open the timeline of this attempt (run.started, run.resumed), written with the first checkpoint. */
  opening?: RunEventInput[];
}

export async function runWorkflow(start: RunContext, deps: WorkflowDeps, opts: WorkflowOptions = {}): Promise<RunContext> {
  let latest = start;
  /**
   * The checkpoint after a step is written while the next step starts: a step that begins with a model call does
   * not wait for the database (nor, with many runs, for its queue). Writes stay in order: a checkpoint, or an
   * entry, is written only once the previous checkpoint has landed, and the run ends only after the last one.
   * A crash before a checkpoint lands resumes from the one before it, repeating at most the step in between.
   */
  let pending: Promise<{ cancelRequested: boolean }> | null = null;
  // Writes a step handed over unfinished (its last entries): the next checkpoint is written after them.
  let deferred: Array<Promise<void>> = [];
  const write = (ctx: RunContext, events: RunEventInput[]) => {
    const before = deferred;
    deferred = [];
    // Sent one turn of the event loop later, behind the statements the next step starts with (its retrieval, its
    // candidates' texts): they are on the way to the next model call, the checkpoint is not. On the embedded
    // database statements run one at a time, in the order they are sent.
    const p = nextTurn()
      .then(() => Promise.allSettled(before))
      .then(async (results) => {
        // A write that failed ends the run here, without this checkpoint: it would record a step whose entries are
        // not all written. Writes that landed and reported a cancel do not: the steps' events (and a reflection that
        // was paid for) still join the timeline, and the cancel is answered at the boundary, as a checkpoint's would be.
        const reasons = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
        const failure = reasons.find((reason) => !(reason instanceof CancelRequested));
        if (failure !== undefined) throw failure;
        const landed = await deps.checkpoint(ctx, events);
        return reasons.length ? { cancelRequested: true } : landed;
      });
    // Handled here and read later: a checkpoint that fails before it is awaited must not be an unhandled rejection.
    p.then(({ cancelRequested }) => cancelRequested && deps.onCancelRequested(), () => {});
    pending = p;
  };
  const landed = async (): Promise<{ cancelRequested: boolean }> => {
    const p = pending;
    pending = null;
    return p ? p : { cancelRequested: false };
  };
  // Events of a folded step, with the context they lead to, until the next checkpoint carries them.
  let folded: { ctx: RunContext; events: RunEventInput[] } | null = null;
  /**
   * Waits for the last writes whatever their outcome: the caller is already handling a failure. A folded step is
   * saved now, so that a cancel or a shutdown keeps its work (a lost lease refuses the write, as it should).
   */
  const settled = async () => {
    await Promise.allSettled(deferred);
    await landed().catch(() => {});
    if (folded) await deps.checkpoint(folded.ctx, folded.events).catch(() => {});
  };
  /**
   * What one step sees. Its entries follow the checkpoint written before it (base), and only that one: a later
   * checkpoint waits for entries the step left unfinished. Entries written after the step returned are already in
   * the context it returned.
   */
  const stepDeps = (base: Promise<{ cancelRequested: boolean }> | null) => {
    let running = true;
    const forStep: StepDeps = {
      ...deps,
      saveEntries: async (ctx, entries) => {
        const before = base ? await base : { cancelRequested: false };
        const r = await deps.saveEntries(ctx, entries);
        if (running) latest = ctx;
        const cancelRequested = before.cancelRequested || r.cancelRequested;
        if (cancelRequested) deps.onCancelRequested();
        return { cancelRequested };
      },
      defer: (writes) => {
        // Read at the next checkpoint; a cancel it reports stops the step already running, as a checkpoint's would.
        writes.catch((err: unknown) => err instanceof CancelRequested && deps.onCancelRequested());
        deferred.push(writes);
      },
    };
    return { deps: forStep, returned: () => (running = false) };
  };
  try {
    let ctx = start;
    // A round that follows another is announced with the reflection that ended the previous one: the context is
    // tens of KB, and writing it twice in a row bought nothing. A resumed run announces the round it resumes in.
    let announced = false;
    let opening = opts.opening ?? [];
    while (!ctx.stop) {
      const step = ctx.step;
      if (step === 'expand' && !announced) write(ctx, [...opening, iterationStarted(ctx.iteration)]);
      else if (opening.length) write(ctx, opening);
      opening = [];
      deps.signal.throwIfAborted();
      const seen = stepDeps(pending);
      try {
        ctx = await STEP_FUNCTIONS[step](ctx, seen.deps);
      } finally {
        seen.returned();
      }
      const stop = ctx.stop ?? exitAfter(step, ctx);
      const index = STEPS.indexOf(step);
      const roundOver = index === STEPS.length - 1;
      const next: RunContext = stop
        ? { ...ctx, stop }
        : roundOver
          ? { ...ctx, iteration: ctx.iteration + 1, step: 'expand' }
          : { ...ctx, step: STEPS[index + 1]! };
      const events = [{ type: STEP_EVENTS[step], data: stepEventData(ctx, step) }];
      announced = roundOver && !stop;
      if (announced) events.push(iterationStarted(next.iteration));
      // The step's work is done and paid for: whatever happens next, the run ends with it.
      latest = next;
      const { cancelRequested } = await landed();
      if (cancelRequested && !next.stop) {
        // The run ends here with this step's work (latest): its events join the timeline with it.
        write(next, [...(folded?.events ?? []), ...events]);
        folded = null;
        throw new CancelledAtBoundary('cancel requested');
      }
      if (FOLDED.has(step) && !next.stop) {
        folded = { ctx: next, events: events.map((e) => ({ ...e, at: Date.now() })) };
      } else {
        write(next, [...(folded?.events ?? []), ...events]);
        folded = null;
      }
      ctx = next;
    }
    if (opening.length) write(ctx, opening);
    // A run that stopped ends with its own stop, even if a cancel arrived with its last checkpoint.
    await landed();
    return ctx;
  } catch (err) {
    // The run is finished by the caller: no checkpoint of ours may land after that.
    await settled();
    throw new WorkflowInterrupted(latest, err);
  }
}
