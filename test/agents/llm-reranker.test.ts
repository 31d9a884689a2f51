// The LLM reranker through the fake provider: batch-local ids only, re-ask then retrieval order, deterministic merge.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RERANK_BATCH_SIZE } from '../../src/agents/llm/reranker.js';
import { createBudget } from '../../src/llm/budget.js';
import { BudgetExceededError } from '../../src/llm/errors.js';
import { createMemoryLedger, type LedgerEntry } from '../../src/llm/ledger.js';
import { fakeReply, type RecordedRequest } from '../support/fake-llm-server.js';
import { contents, retrieved, role, setupAgents } from './llm-harness.js';

const enumOf = (r: RecordedRequest | undefined) =>
  (r?.body.response_format?.json_schema?.schema as { properties: { ranking: { items: { enum: string[] } } } }).properties.ranking.items.enum;

test('one batch: the answer is mapped back to ids, best first, cut at the limit; no tools are offered', async (t) => {
  const h = await setupAgents();
  t.after(h.close);
  const candidates = retrieved(5);
  h.server.script(fakeReply.json({ ranking: ['c3', 'c1', 'c3', 'c5', 'c2'] }));
  const out = await h.agents.reranker.rerank({ role, candidates, limit: 3 }, h.ctx);

  assert.deepEqual(out.orderedIds, [candidates[2]!.id, candidates[0]!.id, candidates[4]!.id], 'duplicate c3 counts once; cut at 3');
  const [req] = h.server.chatRequests();
  assert.equal('tools' in (req?.body ?? {}), false);
  assert.deepEqual(enumOf(req), ['c1', 'c2', 'c3', 'c4', 'c5'], 'the schema admits exactly this batch');
  const user = contents(req)[1]!;
  for (const c of candidates) assert.equal(user.includes(c.id), false, 'candidate ids are not shown; labels are');
});

test('an id that was not in the batch is rejected and re-asked; the corrected answer is used', async (t) => {
  const h = await setupAgents({ settings: { reaskLimit: 1 } });
  t.after(h.close);
  const candidates = retrieved(4);
  h.server.script(fakeReply.json({ ranking: ['c2', 'c9'] }), fakeReply.json({ ranking: ['c2', 'c4'] }));
  const out = await h.agents.reranker.rerank({ role, candidates, limit: 10 }, h.ctx);

  assert.deepEqual(out.orderedIds, [candidates[1]!.id, candidates[3]!.id]);
  assert.equal(h.server.chatRequests().length, 2);
  const reask = contents(h.server.chatRequests()[1]).at(-1)!;
  assert.match(reask, /ranking\.1/);
  assert.match(reask, /must be one of/);
  assert.deepEqual(h.ledger.entries().map((e) => e.outcome), ['invalid_output', 'ok']);
});

test('a model that keeps inventing ids: after the re-ask bound the batch keeps retrieval order (no guess, no crash)', async (t) => {
  const h = await setupAgents({ settings: { reaskLimit: 1 } });
  t.after(h.close);
  const candidates = retrieved(4);
  const outsider = '11111111-1111-4111-8111-111111111111';
  h.server.script(fakeReply.json({ ranking: [outsider] }), fakeReply.json({ ranking: ['c1', 'c5'] }));
  const out = await h.agents.reranker.rerank({ role, candidates, limit: 3 }, h.ctx);

  assert.equal(h.server.chatRequests().length, 2, 'one ask, one re-ask, then no more requests');
  assert.deepEqual(out.orderedIds, candidates.slice(0, 3).map((c) => c.id), "retrieval's order, cut at the limit");
  assert.equal(out.orderedIds.includes(outsider), false);
  assert.equal(await h.metrics.structuredReasks.get().then((m) => m.values.find((v) => v.labels.agent === 'reranker')?.value), 1);
});

test('many candidates: batches of at most 30, each schema only its own labels, merged by position then retrieval score', async (t) => {
  const h = await setupAgents();
  t.after(h.close);
  const candidates = retrieved(45);
  // The model answers each batch in reverse label order, whatever the batch.
  h.server.setHandler((req) => fakeReply.json({ ranking: [...enumOf(req)].reverse() }));
  const out = await h.agents.reranker.rerank({ role, candidates, limit: 6 }, h.ctx);

  const requests = h.server.chatRequests();
  assert.equal(requests.length, 2);
  const sizes = requests.map((r) => enumOf(r).length).sort();
  assert.deepEqual(sizes, [22, 23]);
  assert.ok(sizes.every((s) => s <= RERANK_BATCH_SIZE));
  // Striped batches: batch 0 holds inputs 0,2,4,..,44 (23), batch 1 holds 1,3,..,43 (22). Reversed, the first picks
  // are input 44 (batch 0) and 43 (batch 1); equal positions go to the higher retrieval score (43 before 44).
  const idx = (id: string) => candidates.findIndex((c) => c.id === id);
  assert.deepEqual(out.orderedIds.map(idx), [43, 44, 41, 42, 39, 40]);
  const again = await h.agents.reranker.rerank({ role, candidates, limit: 6 }, h.ctx);
  assert.deepEqual(again.orderedIds, out.orderedIds, 'same answers, same order');
});

test('no candidates or a zero limit: no model call', async (t) => {
  const h = await setupAgents();
  t.after(h.close);
  assert.deepEqual(await h.agents.reranker.rerank({ role, candidates: [], limit: 5 }, h.ctx), { orderedIds: [] });
  assert.deepEqual(await h.agents.reranker.rerank({ role, candidates: retrieved(3), limit: 0 }, h.ctx), { orderedIds: [] });
  assert.equal(h.server.requests.length, 0);
});

test('a batch refused by the budget fails the rerank only once the batches already sent have answered and are in the ledger', async (t) => {
  // The first batch's answer is held until the second batch has been refused.
  let release!: () => void;
  const refused = new Promise<void>((resolve) => (release = resolve));
  const memory = createMemoryLedger();
  const ledger = {
    async record(entry: LedgerEntry) {
      await memory.record(entry);
      if (entry.outcome === 'budget') release();
    },
  };
  const h = await setupAgents({ ledger });
  t.after(h.close);
  h.server.setHandler(async (req) => {
    await refused;
    return fakeReply.json({ ranking: enumOf(req) });
  });
  // Room for one call: the first batch is sent, the second is refused while the first is in flight.
  const budget = createBudget({ maxCalls: 1 });
  const outcomesWhenFailed = await h.agents.reranker.rerank({ role, candidates: retrieved(45), limit: 10 }, { ...h.ctx, budget }).then(
    () => assert.fail('the rerank should fail with the budget'),
    (err: unknown) => {
      assert.ok(err instanceof BudgetExceededError, String(err));
      return memory.entries().map((e) => e.outcome);
    },
  );
  // The worker finishes (or hands back) the run on this failure, and a run's usage is its ledger rows at that point.
  assert.deepEqual(outcomesWhenFailed, ['budget', 'ok'], 'the paid answer of the first batch is recorded before the failure is reported');
  assert.equal(budget.snapshot().openReservations, 0);
});
