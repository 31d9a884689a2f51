// Refusals as real OpenAI-compatible servers word and shape them (vLLM old and new, Ollama, FastAPI, a wrong base URL):
// the run's error and the ledger keep what the server said, add what to check, and nothing is retried that cannot pass.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { createLlmEmbedder } from '../../src/embeddings/llm-embedder.js';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { exchangeRecord } from '../../src/audit/exchanges.js';
import { ModelCallError } from '../../src/llm/errors.js';
import { neverLog } from '../../src/text/log-safe-text.js';
import { openAiErrorBody } from '../../src/llm/error-body.js';
import { ask } from '../../src/llm/structured.js';
import { runTools } from '../../src/llm/tool-runner.js';
import { createToolRegistry, defineTool } from '../../src/llm/tools.js';
import type { FakeReply } from '../support/fake-llm-server.js';
import { ORG, setupLlm, type LlmHarness } from './harness.js';

const Answer = z.object({ queries: z.array(z.string()) });

const askOnce = (h: LlmHarness) =>
  ask({ caller: h.caller, agent: 'reflector', orgId: ORG, runId: 'run_1', instructions: 'Answer.', input: 'x', schema: Answer, schemaName: 'answer', maxTokens: 100 });

const countTool = defineTool({ name: 'evaluate_filters', description: 'Counts.', parameters: z.object({ location: z.string().optional() }), handler: () => ({ count: 3 }), timeoutMs: 1_000, maxAttempts: 3 });

const expandWithTools = (h: LlmHarness) =>
  runTools({
    caller: h.caller,
    agent: 'queryExpander',
    orgId: ORG,
    runId: 'run_1',
    registry: createToolRegistry([countTool]),
    messages: [{ role: 'system', content: 'Expand.' }, { role: 'user', content: 'x' }],
    maxIterations: 3,
    maxTokens: 100_000,
    maxTokensPerTurn: 200,
    finalSchema: Answer,
  });

const json = (status: number, body: unknown): FakeReply => ({ type: 'raw', status, body: JSON.stringify(body) });

async function refusal(call: Promise<unknown>): Promise<ModelCallError> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof ModelCallError, String(err));
    return err;
  }
  assert.fail('the call succeeded');
}

test('vLLM before 0.10 without a tool parser: its top-level error body is named in the error and the ledger; one request, no retry', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script(json(400, { object: 'error', message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', type: 'BadRequestError', param: null, code: 400 }));
  const err = await refusal(expandWithTools(h));
  assert.match(err.message, /status 400, 1 attempt\(s\)\): 400 .*tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set/);
  assert.match(err.message, /the request used a json_schema response_format and tools \(function calling\), which the server must support for model fake-chat/);
  assert.equal(err.retryable, false, 'a run is not claimed again for it');
  assert.equal(h.server.chatRequests().length, 1);
  const [row] = h.ledger.entries();
  assert.deepEqual([row!.outcome, row!.promptTokens, row!.costUsd], ['error', 0, 0], 'a refused request costs nothing');
  assert.match(row!.error ?? '', /--enable-auto-tool-choice/);
});

test('Ollama with a model that has no tool support: its 400 keeps its words; the hint names the model and what the request needed', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script(json(400, { error: { message: 'registry.ollama.ai/library/deepseek-r1:8b does not support tools', type: 'api_error', param: null, code: null } }));
  const err = await refusal(expandWithTools(h));
  assert.match(err.message, /400 .*does not support tools; the request used .*tools \(function calling\)/, 'the scrubber takes the registry path for a URL; the model is named by our hint');
  assert.equal(h.server.chatRequests().length, 1);
});

test('a server without json_schema support (vLLM 0.10+ error shape): named, with the hint, not retried', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script(json(400, { error: { message: 'response_format type json_schema is not supported', type: 'BadRequestError', param: null, code: 400 } }));
  const err = await refusal(askOnce(h));
  assert.match(err.message, /json_schema is not supported; the request used a json_schema response_format, which the server must support/);
  assert.equal(h.server.chatRequests().length, 1);
});

test('a base URL without /v1 on vLLM (FastAPI {"detail": "Not Found"}): the 404 keeps its words and says what to check', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script(json(404, { detail: 'Not Found' }));
  const err = await refusal(askOnce(h));
  assert.match(err.message, /404 Not Found; check that LLM_BASE_URL is the server's OpenAI-compatible root \(it ends in \/v1\) and that the server serves model fake-chat/);
  assert.equal(h.server.chatRequests().length, 1);
});

test('a base URL without /v1 on Ollama (a text/plain 404) and an error body that is a bare string keep their words', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script({ type: 'raw', status: 404, body: '404 page not found', headers: { 'content-type': 'text/plain' } });
  assert.match((await refusal(askOnce(h))).message, /404 404 page not found; check that LLM_BASE_URL/);
  h.server.script(json(404, { error: 'model not found, try pulling it first' }));
  assert.match((await refusal(askOnce(h))).message, /404 model not found, try pulling it first; check/);
});

test('FastAPI validation issues (a 422 list) are kept as their JSON; bodies already in OpenAI’s shape and other JSON pass as they are', () => {
  const issues = [{ loc: ['body', 'max_tokens'], msg: 'Input should be a valid integer', type: 'int_type' }];
  assert.match(openAiErrorBody(JSON.stringify({ detail: issues })) ?? '', /Input should be a valid integer/);
  assert.equal(openAiErrorBody(JSON.stringify({ error: { message: 'x' } })), null);
  assert.equal(openAiErrorBody(JSON.stringify({ ok: false })), null);
  assert.equal(openAiErrorBody('not json'), null);
});

test('a 503 while the model loads is retried with backoff and succeeds; a 429 with Retry-After waits as asked', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  const loading = json(503, { error: { message: 'server busy, please try again.  maximum pending requests exceeded', type: 'api_error' } });
  h.server.script(loading, { ...json(429, { error: { message: 'Rate limit reached' } }), headers: { 'retry-after': '0' } }, json(200, {
    id: 'x', object: 'chat.completion', created: 0, model: 'fake-chat',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: '{"queries": ["a"]}' } }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  }));
  assert.deepEqual((await askOnce(h)).value, { queries: ['a'] });
  assert.deepEqual(h.ledger.entries().map((e) => [e.outcome, e.costUsd]), [['error', 0], ['rate_limited', 0], ['ok', 10 / 1e6 + 5 * 2 / 1e6]]);
});

test('embeddings: a 404 (a model the server has not pulled) keeps its words and says to check the base URL and the model', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  const embedder = createLlmEmbedder({ client: h.client, registry: h.registry, settings: h.settings, ledger: h.ledger });
  h.server.script(json(404, { error: { message: 'model "fake-embed" not found, try pulling it first', type: 'api_error' } }));
  const err = await refusal(embedder.embed(['x'], { orgId: ORG }));
  assert.match(err.message, /not found, try pulling it first; check that LLM_BASE_URL .* serves model fake-embed/);
  assert.equal(h.server.requests.length, 1);
});

test("embeddings: HTTP 200 with an {\"error\": …} body names the server's error, not a count of vectors", async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  const embedder = createLlmEmbedder({ client: h.client, registry: h.registry, settings: h.settings, ledger: h.ledger });
  h.server.script(json(200, { error: { message: 'this model does not support embeddings', type: 'invalid_request_error' } }));
  const err = await refusal(embedder.embed(['x'], { orgId: ORG }));
  assert.match(err.message, /HTTP 200 with an error: this model does not support embeddings/);
  assert.match(h.ledger.entries()[0]!.error ?? '', /does not support embeddings/);
  assert.equal(h.server.requests.length, 1);
});

test('HTTP 200 with a body that is not JSON (NaN from a Python server, a truncated answer) is charged its estimated prompt, not recorded as free', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  const good = { id: 'x', object: 'chat.completion', created: 0, model: 'fake-chat', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: '{"queries":[]}' } }], usage: { prompt_tokens: 50, completion_tokens: 9, total_tokens: 59 } };
  const bodies = [JSON.stringify(good).replace('"total_tokens":59', '"total_tokens":NaN'), JSON.stringify(good).slice(0, -20)];
  for (const body of bodies) h.server.script({ type: 'raw', status: 200, body });
  for (const _ of bodies) assert.match((await refusal(askOnce(h))).message, /JSON/);
  assert.equal(h.server.requests.length, 2, 'not retried: the same answer would come back');
  const rows = h.ledger.entries();
  assert.deepEqual(rows.map((e) => [e.outcome, e.tokensEstimated]), [['error', true], ['error', true]]);
  assert.ok(rows.every((e) => e.promptTokens > 0 && e.costUsd > 0), 'charged its estimated prompt, as the budget was');
});

test('a server that repeats the provider key in its error never gets it into the run error, the ledger or a log', async (t) => {
  const key = 'gateway-canary-key-5b1e9d2c7a';
  const h = await setupLlm({ settings: { apiKey: key, maxRetries: 0 } });
  t.after(h.close);
  h.server.script(json(401, { error: { message: `Incorrect API key provided: ${key}. Sent as Authorization: Bearer ${key}; also tried sk-proj-abcdefghijklmnopqrstuvwx`, type: 'invalid_request_error', code: 'invalid_api_key' } }));
  const err = await refusal(askOnce(h));
  const texts = [err.message, ...h.ledger.entries().map((e) => e.error ?? '')];
  for (const text of texts) {
    assert.ok(!text.includes(key) && !text.includes('sk-proj-abc'), text);
    assert.match(text, /Incorrect API key provided: \[REDACTED\]/);
  }
});

test('an answer that repeats the provider key (an error inside an HTTP 200) goes to the trail with the key cut', () => {
  const key = 'gateway-canary-key-trail-7a6b5c';
  neverLog(key);
  const response = { error: { message: `Incorrect API key provided: ${key}` }, choices: [] } as unknown as ChatCompletion;
  const record = exchangeRecord(
    { agent: 'scorer', orgId: ORG, runId: 'run_1', model: 'fake-chat', attempt: 1, candidateIds: [], request: { model: 'fake-chat', messages: [] }, response, error: { status: 200, message: 'x' }, outcome: 'error', requestId: null, latencyMs: 1 },
    1,
  );
  assert.deepEqual(record.response, { error: { message: 'Incorrect API key provided: [REDACTED]' }, choices: [] });
  assert.ok(JSON.stringify(response).includes(key), 'the answer itself is left as it came');
});

test('a server out of reach and a refused key each say what to check: the address, the key', async (t) => {
  const h = await setupLlm({ settings: { maxRetries: 0 } });
  t.after(h.close);
  h.server.script(json(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }));
  assert.match((await refusal(askOnce(h))).message, /check LLM_API_KEY: the server refused it/);
  await h.server.close();
  assert.match((await refusal(askOnce(h))).message, /check that the server LLM_BASE_URL names is up and reachable from this host/);
});
