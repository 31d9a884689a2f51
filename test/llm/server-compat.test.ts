// Answers as real OpenAI-compatible servers send them (Ollama, vLLM, llama.cpp, proxies), through the real openai
// client and our node:http fetch: reasoning before the JSON, usage missing or zero, streams nobody asked for, errors in
// a 200 body. Each body is written the way that server writes it, not the way our fake usually does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { createLlmEmbedder } from '../../src/embeddings/llm-embedder.js';
import { createBudget } from '../../src/llm/budget.js';
import { ModelCallError, StructuredOutputError } from '../../src/llm/errors.js';
import { ask } from '../../src/llm/structured.js';
import { runTools } from '../../src/llm/tool-runner.js';
import { createToolRegistry, defineTool } from '../../src/llm/tools.js';
import { type FakeReply } from '../support/fake-llm-server.js';
import { ORG, setupLlm, type LlmHarness } from './harness.js';

const Reflection = z.object({ stop: z.boolean(), reasoning: z.string(), hints: z.array(z.string()) });
const good = { stop: false, reasoning: 'Three strong candidates so far; widen the search.', hints: ['platform engineer'] };

const reflect = (h: LlmHarness, extra: { budget?: ReturnType<typeof createBudget> } = {}) =>
  ask({
    caller: h.caller,
    agent: 'reflector',
    orgId: ORG,
    runId: 'run_1',
    instructions: 'Decide whether to stop.',
    input: '<role_title>\nPlatform engineer\n</role_title>',
    schema: Reflection,
    schemaName: 'round_reflection',
    maxTokens: 500,
    ...extra,
  });

/** A non-streamed chat completion as the server writes it: the message's fields as given, usage only if given. */
function completion(message: Record<string, unknown>, opts: { finishReason?: string; usage?: unknown; extra?: Record<string, unknown> } = {}): FakeReply {
  const body = {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'fake-chat',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: opts.finishReason ?? 'stop', ...opts.extra }],
    ...(opts.usage === undefined ? {} : { usage: opts.usage }),
  };
  return { type: 'raw', status: 200, body: JSON.stringify(body) };
}

const THINKING = 'Okay, the user wants a JSON object {"stop": true}. Let me weigh the round: three candidates scored above 70, so';

test('Ollama with a thinking model (deepseek-r1, qwen3): a <think> block before the JSON is not the answer, and the answer is taken', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script(completion({ content: `<think>\n${THINKING}\n</think>\n\n${JSON.stringify(good)}` }, { usage: { prompt_tokens: 120, completion_tokens: 90, total_tokens: 210 } }));
  const res = await reflect(h);
  assert.deepEqual(res.value, good);
  assert.equal(res.attempts, 1, 'no re-ask for the reasoning');
  assert.match(res.raw, /^<think>/, 'the raw answer, reasoning included, is what is kept for the audit trail');
});

test('deepseek-r1 whose template opens the <think> block itself: the answer after </think>, even in a ```json fence, is taken', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script(completion({ content: `${THINKING}\n</think>\n\n\`\`\`json\n${JSON.stringify(good, null, 2)}\n\`\`\`` }));
  assert.deepEqual((await reflect(h)).value, good);
});

test('a JSON answer that merely mentions </think> in a string is read as it is', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  const value = { ...good, reasoning: 'A resume wrote </think> in its summary; ignored.' };
  h.server.script(completion({ content: JSON.stringify(value) }));
  assert.deepEqual((await reflect(h)).value, value);
});

test('an unclosed <think> block (cut off while thinking) is re-asked within the bound, never taken as an answer', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.setSettings({ reaskLimit: 0 });
  h.server.script(completion({ content: `<think>\n${THINKING}` }, { finishReason: 'length' }));
  await assert.rejects(reflect(h), (err: unknown) => err instanceof StructuredOutputError && /cut off/.test(err.message));
});

for (const field of ['reasoning_content', 'reasoning'] as const) {
  test(`vLLM / Ollama reasoning in a "${field}" field: the content is the answer; without usage, the reasoning is charged too`, async (t) => {
    const h = await setupLlm();
    t.after(h.close);
    const thought = THINKING.repeat(30);
    h.server.script(completion({ [field]: thought, content: JSON.stringify(good) }));
    const res = await reflect(h);
    assert.deepEqual(res.value, good);
    const [row] = h.ledger.entries();
    assert.equal(row!.tokensEstimated, true);
    assert.ok(row!.completionTokens >= Math.ceil(thought.length / 3), `completion ${row!.completionTokens} counts the reasoning the model generated`);
  });
}

test('usage reported as zeros (some Ollama and vLLM setups) is not a count: tokens and cost are estimated, and the budget is charged', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  const zeros = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  h.server.script(completion({ content: JSON.stringify(good) }, { usage: zeros }), completion({ content: JSON.stringify(good) }, { usage: zeros }));
  const budget = createBudget({ maxTokens: 100_000, maxCostUsd: 1 });
  await reflect(h, { budget });
  await reflect(h, { budget });
  const rows = h.ledger.entries();
  for (const row of rows) {
    assert.equal(row.tokensEstimated, true);
    assert.ok(row.promptTokens > 0 && row.completionTokens > 0 && row.costUsd > 0, JSON.stringify(row));
  }
  const spent = budget.snapshot().spent;
  assert.equal(spent.tokens, rows.reduce((n, r) => n + r.promptTokens + r.completionTokens, 0), 'the budget is charged what the ledger says');
  assert.ok(spent.costUsd > 0);
});

test('a zero completion count is believed for an empty answer; a real prompt count beside it is kept', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.setSettings({ reaskLimit: 0 });
  h.server.script(completion({ content: '' }, { usage: { prompt_tokens: 150, completion_tokens: 0, total_tokens: 150 } }));
  await assert.rejects(reflect(h), StructuredOutputError);
  const [row] = h.ledger.entries();
  assert.deepEqual([row!.promptTokens, row!.completionTokens, row!.tokensEstimated], [150, 0, undefined]);
});

test('embeddings with usage reported as zero are estimated and charged, to the ledger and the run budget alike', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  const embedder = createLlmEmbedder({ client: h.client, registry: h.registry, settings: h.settings, ledger: h.ledger });
  const vector = Array.from({ length: 1536 }, (_, i) => (i === 0 ? 1 : 0));
  const body = { object: 'list', model: 'fake-embed', data: [{ object: 'embedding', index: 0, embedding: vector }], usage: { prompt_tokens: 0, total_tokens: 0 } };
  h.server.script({ type: 'raw', status: 200, body: JSON.stringify(body) });
  const budget = createBudget({ maxTokens: 10_000 });
  await embedder.embed(['senior platform engineer with kubernetes'], { orgId: ORG, runId: 'run_1', budget });
  const [row] = h.ledger.entries();
  assert.equal(row!.tokensEstimated, true);
  assert.ok(row!.promptTokens > 0 && row!.costUsd > 0, JSON.stringify(row));
  assert.equal(budget.snapshot().spent.tokens, row!.promptTokens);
});

test('content null with no tool calls (a tool parser that swallowed the turn): re-asked as an empty answer, then given up, no value invented', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  const tool = defineTool({ name: 'evaluate_filters', description: 'Counts.', parameters: z.object({}), handler: () => ({ count: 1 }), timeoutMs: 1_000, maxAttempts: 2 });
  const loop = () =>
    runTools({
      caller: h.caller, agent: 'queryExpander', orgId: ORG, runId: 'run_1', registry: createToolRegistry([tool]),
      messages: [{ role: 'system', content: 'Decide.' }, { role: 'user', content: 'x' }],
      maxIterations: 4, maxTokens: 100_000, maxTokensPerTurn: 200, finalSchema: Reflection, schemaName: 'round_reflection',
    });
  const empty = completion({ content: null, tool_calls: [] }, { usage: { prompt_tokens: 80, completion_tokens: 3, total_tokens: 83 } });
  h.server.script(empty, completion({ content: JSON.stringify(good) }));
  const res = await loop();
  assert.deepEqual([res.value, res.reasks], [good, 1]);
  assert.match(String(h.server.chatRequests()[1]?.body.messages?.at(-1)?.content), /the answer was empty/);
  h.setSettings({ reaskLimit: 0 });
  h.server.script(empty);
  await assert.rejects(loop(), StructuredOutputError);
  assert.deepEqual(h.ledger.entries().map((e) => e.outcome), ['invalid_output', 'ok', 'invalid_output']);
});

/** An SSE body as OpenAI, vLLM and Ollama stream a chat completion: role, content in pieces, finish, maybe usage, [DONE]. */
function eventStream(pieces: string[], opts: { usage?: unknown; finishReason?: string } = {}): FakeReply {
  const chunk = (choice: Record<string, unknown> | null, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'fake-chat', choices: choice ? [{ index: 0, ...choice }] : [], ...extra })}\n\n`;
  const body = [
    chunk({ delta: { role: 'assistant', content: '' }, finish_reason: null }),
    ...pieces.map((p) => chunk({ delta: { content: p }, finish_reason: null })),
    chunk({ delta: {}, finish_reason: opts.finishReason ?? 'stop' }),
    ...(opts.usage === undefined ? [] : [chunk(null, { usage: opts.usage })]),
    'data: [DONE]\n\n',
  ].join('');
  return { type: 'raw', status: 200, body, headers: { 'content-type': 'text/event-stream; charset=utf-8' } };
}

test('an SSE stream sent to a request that did not ask for one is read as the completion it streams, with its usage', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  const text = JSON.stringify(good);
  h.server.script(eventStream([text.slice(0, 10), text.slice(10, 31), text.slice(31)], { usage: { prompt_tokens: 140, completion_tokens: 40, total_tokens: 180 } }));
  const res = await reflect(h);
  assert.deepEqual(res.value, good);
  const [row] = h.ledger.entries();
  assert.deepEqual([row!.outcome, row!.promptTokens, row!.completionTokens, row!.tokensEstimated], ['ok', 140, 40, undefined]);
});

test('an unasked stream cut at the token limit is a truncated answer (re-asked), charged by our estimate without usage', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script(eventStream(['{"stop": false, "reas'], { finishReason: 'length' }), eventStream([JSON.stringify(good)]));
  const res = await reflect(h);
  assert.equal(res.attempts, 2);
  assert.deepEqual(h.ledger.entries().map((e) => [e.outcome, e.tokensEstimated]), [['truncated', true], ['ok', true]]);
});

test('a JSON completion sent as text/plain is read as JSON', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  const reply = completion({ content: JSON.stringify(good) }, { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  h.server.script({ ...reply, headers: { 'content-type': 'text/plain' } });
  assert.deepEqual((await reflect(h)).value, good);
});

test("HTTP 200 with an {\"error\": …} body (some proxies): the call fails naming the server's error, recorded, not retried", async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  const body = JSON.stringify({ error: { message: 'Upstream model is overloaded by the proxy quota', type: 'invalid_request_error', code: 'quota' } });
  h.server.script({ type: 'raw', status: 200, body });
  await assert.rejects(reflect(h), (err: unknown) => {
    assert.ok(err instanceof ModelCallError, String(err));
    assert.match(err.message, /HTTP 200 with an error.*Upstream model is overloaded by the proxy quota/);
    return true;
  });
  assert.equal(h.server.chatRequests().length, 1, 'not retried');
  const [row] = h.ledger.entries();
  assert.equal(row!.outcome, 'error');
  assert.match(row!.error ?? '', /Upstream model is overloaded/);
});

test('HTTP 200 with an error body whose code is a 5xx or 429 is retried like that status', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script(
    { type: 'raw', status: 200, body: JSON.stringify({ error: { message: 'Provider returned error', code: 502 } }) },
    completion({ content: JSON.stringify(good) }),
  );
  assert.deepEqual((await reflect(h)).value, good);
  assert.deepEqual(h.ledger.entries().map((e) => e.outcome), ['error', 'ok']);
});
