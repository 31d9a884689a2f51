// The workflow's checkpoints, driven directly with stand-in agents and search: which step is saved when.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import type { Agents } from '../../src/agents/types.js';
import { initialContext, type RunContext } from '../../src/matching/context.js';
import { runWorkflow, WorkflowInterrupted, type RunEventInput, type WorkflowDeps } from '../../src/matching/workflow.js';
import type { SearchRequest } from '../../src/retrieval/search.js';
import { RunParamsSchema } from '../../src/runs/run-schemas.js';
import { GO_ROLE } from '../support/fixtures.js';

const ORG = '00000000-0000-4000-8000-000000000001';

function start(): RunContext {
  return initialContext({
    runId: '00000000-0000-4000-8000-000000000002',
    orgId: ORG,
    engine: 'heuristic',
    role: GO_ROLE,
    params: RunParamsSchema.parse({ maxIterations: 2 }),
  });
}

const unused = (name: string) => () => Promise.reject(new Error(`${name} was not expected to be called`));

/** Deps whose checkpoints are recorded; the expander answers at once, search is the test's. */
function depsWith(search: (req: SearchRequest, signal: AbortSignal) => Promise<never[]>, controller = new AbortController()) {
  const checkpoints: Array<{ step: string; stop: string | null; events: string[] }> = [];
  const written: Array<RunEventInput & { writtenAt: number }> = [];
  const agents = {
    queryExpander: { expand: async () => ({ queries: ['go kubernetes'], filters: {} }) },
    reranker: { rerank: unused('reranker') },
    scorer: { score: unused('scorer') },
    reflector: { reflect: unused('reflector') },
  } as unknown as Agents;
  const deps: WorkflowDeps = {
    agents,
    search: (req) => search(req, controller.signal),
    views: unused('views'),
    identities: unused('identities'),
    saveEntries: unused('saveEntries'),
    trace: async () => {},
    signal: controller.signal,
    callContext: { orgId: ORG, signal: controller.signal },
    logger: pino({ level: 'silent' }),
    globalScoreLimit: (fn) => fn(),
    checkpoint: async (ctx: RunContext, events: RunEventInput[]) => {
      checkpoints.push({ step: ctx.step, stop: ctx.stop?.reason ?? null, events: events.map((e) => e.type) });
      written.push(...events.map((e) => ({ ...e, writtenAt: Date.now() })));
      return { cancelRequested: false };
    },
    onCancelRequested: () => controller.abort(new Error('cancelled')),
  };
  return { deps, checkpoints, written, controller };
}

test('the expansion is saved with the retrieval that follows it, in one checkpoint, with the time it ended', async () => {
  let searchedAt = 0;
  const { deps, checkpoints, written } = depsWith(async () => {
    searchedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 30));
    return [];
  });
  const end = await runWorkflow(start(), deps, { opening: [{ type: 'run.started', data: {} }] });
  assert.equal(end.stop?.reason, 'exhausted');
  assert.deepEqual(checkpoints, [
    { step: 'expand', stop: null, events: ['run.started', 'iteration.started'] },
    { step: 'retrieve', stop: 'exhausted', events: ['queries.expanded', 'candidates.retrieved'] },
  ]);
  // Written after the retrieval, the expansion's event still says when the expansion ended: before the search began.
  const expanded = written.find((e) => e.type === 'queries.expanded')!;
  assert.ok(expanded.at !== undefined && expanded.at <= searchedAt, `ended ${expanded.at}, search began ${searchedAt}`);
  assert.ok(expanded.writtenAt - expanded.at >= 25, 'and it was written after the 30 ms retrieval');
  assert.equal(written.find((e) => e.type === 'candidates.retrieved')!.at, undefined, 'an event written when it happens needs no time of its own');
});

test('a run stopped during retrieval keeps its expansion: the folded checkpoint is written before the workflow gives up', async () => {
  let searching!: () => void;
  const searchStarted = new Promise<void>((resolve) => (searching = resolve));
  const { deps, checkpoints, controller } = depsWith(
    (_req, signal) =>
      new Promise<never[]>((_, reject) => {
        searching();
        signal.addEventListener('abort', () => reject(signal.reason));
      }),
  );
  const running = runWorkflow(start(), deps);
  await searchStarted;
  assert.deepEqual(checkpoints.map((c) => c.step), ['expand'], 'nothing is written between the expansion and the retrieval');
  controller.abort(new Error('shutting down'));
  const err = await running.then(
    () => assert.fail('the workflow should not finish'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof WorkflowInterrupted);
  assert.equal(err.context.step, 'retrieve', 'the run resumes at the retrieval, not the expansion');
  assert.deepEqual(checkpoints.at(-1), { step: 'retrieve', stop: null, events: ['queries.expanded'] });
});
