// The endpoint embedder through the fake provider: batches, order and dimension, retries, one ledger row per attempt.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLlmEmbedder, EMBEDDING_BATCH_SIZE } from '../../src/embeddings/llm-embedder.js';
import { createBudget } from '../../src/llm/budget.js';
import { BudgetExceededError, DeadlineExceededError } from '../../src/llm/errors.js';
import { costUsd } from '../../src/llm/model-registry.js';
import { fakeEmbedding, fakeReply } from '../support/fake-llm-server.js';
import { ORG, setupLlm } from '../llm/harness.js';

async function setup() {
  const h = await setupLlm();
  const embedder = createLlmEmbedder({ client: h.client, registry: h.registry, settings: h.settings, ledger: h.ledger });
  return { ...h, embedder };
}

test('texts are embedded in batches of 256, in input order, at the registry model and dimension', async (t) => {
  const h = await setup();
  t.after(h.close);
  const texts = Array.from({ length: 600 }, (_, i) => `resume number ${i} rust postgres`);
  const vectors = await h.embedder.embed(texts, { orgId: ORG });

  assert.equal(EMBEDDING_BATCH_SIZE, 256);
  assert.equal(h.embedder.model, 'fake-embed');
  assert.equal(h.embedder.dimension, 1536);
  const requests = h.server.requests.filter((r) => r.path === '/v1/embeddings');
  assert.deepEqual(requests.map((r) => (r.body.input as string[]).length), [256, 256, 88]);
  assert.ok(requests.every((r) => r.body.model === 'fake-embed' && r.agent === 'embedder'));
  assert.equal(vectors.length, 600);
  assert.deepEqual(vectors[599], fakeEmbedding(texts[599]!, 1536), 'the last vector belongs to the last text');
  const entries = h.ledger.entries();
  assert.equal(entries.length, 3);
  assert.ok(entries.every((e) => e.agent === 'embedder' && e.runId === null && e.orgId === ORG && e.outcome === 'ok'));
  assert.equal(entries[0]!.costUsd, costUsd(h.registry.embedding('fake-embed')!, { promptTokens: entries[0]!.promptTokens, completionTokens: 0 }));
});

test('a text longer than the model reads is cut to its context window; a batch of long texts is split by estimated tokens', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  const embedder = createLlmEmbedder({ client: h.client, registry: h.registry, settings: h.settings, ledger: h.ledger, batchMaxTokens: 20_000 });
  const window = h.registry.embedding('fake-embed')!.contextWindow;
  // A surrogate pair right at the cut: it is not split.
  const long = `${'a'.repeat(window * 3 - 1)}😀 and then more ${'b'.repeat(40_000)}`;
  const texts = [long, ...Array.from({ length: 5 }, (_, i) => `resume ${i} ${'c'.repeat(11_990)}`)];
  const vectors = await embedder.embed(texts, { orgId: ORG });
  assert.equal(vectors.length, texts.length);
  const inputs = h.server.requests.filter((r) => r.path === '/v1/embeddings').map((r) => r.body.input as string[]);
  assert.equal(inputs[0]![0], 'a'.repeat(window * 3 - 1), 'cut before the pair it would split');
  assert.ok(inputs.flat().every((input) => input.length <= window * 3));
  // The cut text is ~8,192 estimated tokens, each other ~4,000: under 20,000 the first batch takes it and two more.
  assert.deepEqual(inputs.map((batch) => batch.length), [3, 3]);
  assert.ok(inputs.every((batch) => batch.reduce((n, input) => n + Math.ceil(input.length / 3), 0) <= 20_000));
});

test('a failing attempt is retried by our layer, each attempt a ledger row; an empty text does not fail the batch', async (t) => {
  const h = await setup();
  t.after(h.close);
  h.server.script(fakeReply.serverError(503));
  const vectors = await h.embedder.embed(['rust', ''], { orgId: ORG });
  assert.equal(vectors.length, 2);
  assert.deepEqual(h.ledger.entries().map((e) => [e.outcome, e.attempt]), [['error', 1], ['ok', 2]]);
  assert.deepEqual(h.server.requests.at(-1)?.body.input, ['rust', ' ']);
});

test('a model asked for shorter vectors than its own names the dimension; one of its own length does not', async (t) => {
  const h = await setupLlm({ settings: { embeddingModel: 'text-embedding-3-large' } });
  t.after(h.close);
  const large = createLlmEmbedder({ client: h.client, registry: h.registry, settings: h.settings, ledger: h.ledger });
  const vectors = await large.embed(['rust'], { orgId: ORG });
  assert.equal(vectors[0]!.length, 1536);
  const small = await setup();
  t.after(small.close);
  await small.embedder.embed(['rust'], { orgId: ORG });
  const sent = (server: typeof h.server) => server.requests.filter((r) => r.path === '/v1/embeddings').map((r) => r.body.dimensions);
  assert.deepEqual([sent(h.server), sent(small.server)], [[1536], [undefined]]);
});

test('a wrong dimension from the server is an error, not a stored vector', async (t) => {
  const h = await setup();
  t.after(h.close);
  h.server.script({ type: 'raw', status: 200, body: JSON.stringify({ object: 'list', model: 'fake-embed', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], usage: { prompt_tokens: 3, total_tokens: 3 } }) });
  await assert.rejects(h.embedder.embed(['rust'], { orgId: ORG }), /dimension 1536/);
  assert.deepEqual(h.ledger.entries().map((e) => e.outcome), ['error'], 'charged (the provider billed it) and not retried');
});

test('a vector holding null (NaN as llama.cpp writes it), a number past single-precision range or text is an error, not a stored vector', async (t) => {
  const h = await setup();
  t.after(h.close);
  const dim = h.embedder.dimension;
  const bodies = ['null', '1e999', '1e300', '"0.5"'].map((bad) => `{"object":"list","model":"fake-embed","data":[{"object":"embedding","index":0,"embedding":[${bad}${',0.1'.repeat(dim - 1)}]}],"usage":{"prompt_tokens":3,"total_tokens":3}}`);
  for (const body of bodies) h.server.script({ type: 'raw', status: 200, body });
  for (const _ of bodies) await assert.rejects(h.embedder.embed(['rust'], { orgId: ORG }), /not a finite number/);
  assert.deepEqual(h.ledger.entries().map((e) => e.outcome), ['error', 'error', 'error', 'error'], 'charged (the provider billed them) and not retried');
});

test('an answer whose data is not a list of vectors is an error that keeps its reported usage in the ledger', async (t) => {
  const h = await setup();
  t.after(h.close);
  const usage = { prompt_tokens: 700, total_tokens: 700 };
  const bodies = [{ object: 'list', model: 'fake-embed', usage }, { object: 'list', model: 'fake-embed', data: [null], usage }];
  for (const body of bodies) h.server.script({ type: 'raw', status: 200, body: JSON.stringify(body) });
  const budget = createBudget({ maxTokens: 100_000 });
  for (const _ of bodies) await assert.rejects(h.embedder.embed(['rust'], { orgId: ORG, runId: 'run_1', budget }));
  assert.deepEqual(h.ledger.entries().map((e) => [e.outcome, e.promptTokens]), [['error', 700], ['error', 700]], 'as charged to the budget');
  assert.equal(budget.snapshot().spent.tokens, 1_400);
  assert.equal(h.server.requests.length, 2, 'not retried: the same answer would come back');
});

test('the retries read the embedder\'s clock: a deadline an hour ahead on it is not taken as passed', async (t) => {
  // The embedder's clock runs a day behind the machine's: the deadline is in the future on it, in the past on Date.now.
  const skew = 24 * 3600_000;
  const h = await setupLlm();
  t.after(h.close);
  const embedder = createLlmEmbedder({ client: h.client, registry: h.registry, settings: h.settings, ledger: h.ledger, now: () => Date.now() - skew });
  h.server.script(fakeReply.serverError(503));
  const vectors = await embedder.embed(['rust'], { orgId: ORG, deadline: Date.now() - skew + 3600_000 });
  assert.equal(vectors.length, 1);
  assert.deepEqual(h.ledger.entries().map((e) => [e.outcome, e.attempt]), [['error', 1], ['ok', 2]], 'retried once, then answered');
});

test('without an organisation the call still works, but no ledger row can be attributed', async (t) => {
  const h = await setup();
  t.after(h.close);
  assert.equal((await h.embedder.embed(['rust'])).length, 1);
  assert.equal(h.ledger.entries().length, 0);
  const withDefault = createLlmEmbedder({ client: h.client, registry: h.registry, settings: h.settings, ledger: h.ledger, defaultOrgId: 'org_system' });
  await withDefault.embed(['go']);
  assert.deepEqual(h.ledger.entries().map((e) => e.orgId), ['org_system']);
});

test('an unknown or chat model as embedding model fails at construction, naming it', async (t) => {
  const h = await setup();
  t.after(h.close);
  h.setSettings({ embeddingModel: 'fake-chat' });
  assert.throws(() => createLlmEmbedder({ client: h.client, registry: h.registry, settings: h.settings, ledger: h.ledger }), /embedder.*fake-chat/);
});

test('an embedding attempt lost after sending is charged its estimated input; a refused one is not', async (t) => {
  const h = await setup();
  t.after(h.close);
  h.server.script(fakeReply.drop(), fakeReply.serverError(503));
  await h.embedder.embed(['rust engineer'], { orgId: ORG });
  assert.deepEqual(h.ledger.entries().map((e) => [e.outcome, e.promptTokens, e.tokensEstimated ?? false]), [
    ['error', Math.ceil('rust engineer'.length / 3), true],
    ['error', 0, false],
    ['ok', h.ledger.entries()[2]!.promptTokens, false],
  ]);
});

test('a run’s embedding: rows carry its id, its budget is reserved and charged, and a refusal sends nothing', async (t) => {
  const h = await setup();
  t.after(h.close);
  const budget = createBudget({ maxTokens: 1_000 });
  await h.embedder.embed(['rust engineer', 'go engineer'], { orgId: ORG, runId: 'run_1', budget });
  const [row] = h.ledger.entries();
  assert.equal(row!.runId, 'run_1');
  assert.deepEqual(budget.snapshot().spent, { tokens: row!.promptTokens, costUsd: row!.costUsd, calls: 1 });
  assert.equal(budget.snapshot().openReservations, 0);

  const sent = h.server.requests.length;
  await assert.rejects(h.embedder.embed(['x'.repeat(6_000)], { orgId: ORG, runId: 'run_1', budget }), BudgetExceededError);
  assert.equal(h.server.requests.length, sent, 'nothing was sent');
  assert.deepEqual(h.ledger.entries().slice(1).map((e) => [e.outcome, e.attempt, e.runId]), [['budget', 0, 'run_1']]);
});

test('a run’s embedding stops at its deadline and with its signal, without waiting out a retry', async (t) => {
  const h = await setup();
  t.after(h.close);
  await assert.rejects(h.embedder.embed(['rust'], { orgId: ORG, runId: 'run_1', deadline: Date.now() - 1 }), DeadlineExceededError);
  assert.equal(h.server.requests.length, 0);
  // A provider that never answers: the request is bounded by the deadline, not by the 10 s timeout and its retries.
  // (The margins are seconds wide: a loaded machine may take a while to send, and a missed deadline takes 10 s.)
  h.setSettings({ timeoutMs: 10_000 });
  h.server.setHandler(() => fakeReply.hang());
  const started = Date.now();
  // 3 s: a request with under MIN_REQUEST_MS (1 s) left is not sent at all, and 1 s raced that check.
  await assert.rejects(h.embedder.embed(['rust'], { orgId: ORG, runId: 'run_1', deadline: started + 3_000 }), DeadlineExceededError);
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 2_990 && elapsed < 9_000, `took ${elapsed} ms`);
  assert.ok(h.server.requests.length >= 1, 'the request was sent, and waited on');
  const abort = new AbortController();
  setTimeout(() => abort.abort(new Error('cancelled')), 50);
  await assert.rejects(h.embedder.embed(['rust'], { orgId: ORG, runId: 'run_1', signal: abort.signal }), /cancelled|abort/i);
});

test('a run’s embedding retried after a charged attempt must fit its budget again: a lost attempt is not re-sent past it', async (t) => {
  const h = await setup();
  t.after(h.close);
  h.server.setHandler(() => fakeReply.drop());
  const text = 'x'.repeat(3_000);
  const estimated = Math.ceil(text.length / 3);
  // Room for one attempt and half of another.
  const budget = createBudget({ maxTokens: estimated + Math.floor(estimated / 2) });
  await assert.rejects(h.embedder.embed([text], { orgId: ORG, runId: 'run_1', budget }), BudgetExceededError);
  assert.equal(h.server.requests.length, 1, 'the retry that did not fit was not sent');
  assert.deepEqual(budget.snapshot().spent, { tokens: estimated, costUsd: h.ledger.entries()[0]!.costUsd, calls: 1 });
  assert.deepEqual(budget.snapshot().reserved, { tokens: 0, costUsd: 0, calls: 0 });
  assert.deepEqual(h.ledger.entries().map((e) => [e.outcome, e.attempt]), [['error', 1], ['budget', 0]], 'the refused retry has its row');
});

test('a reported count no batch could hold (past each input’s context window) is charged as our estimate', async (t) => {
  const h = await setup();
  t.after(h.close);
  const vector = fakeEmbedding('rust', h.embedder.dimension);
  h.server.script({ type: 'raw', status: 200, body: JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: vector }], usage: { prompt_tokens: 2_000_000_000, total_tokens: 2_000_000_000 } }) });
  await h.embedder.embed(['rust'], { orgId: ORG });
  const [row] = h.ledger.entries();
  assert.deepEqual([row!.outcome, row!.promptTokens, row!.tokensEstimated], ['ok', Math.ceil('rust'.length / 3), true]);
});
