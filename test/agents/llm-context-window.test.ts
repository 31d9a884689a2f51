// A model with a small context window (vLLM's max_model_len 8192, as docs/operations.md registers one): requests are
// cut to fit it, and one the server still finds too long leaves that candidate unscored, not the whole run failed.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fake-llm-server.js';
import { backendPool, candidate, GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/runtime.js';
import { scriptedModel } from '../support/scripted-model.js';
import { failureHint } from '../../src/llm/errors.js';

const WINDOW = 8192;
const dir = mkdtempSync(path.join(tmpdir(), 'tm-models-'));
let server: FakeLlmServer;
let rt: TestRuntime;
// What the server refuses besides requests past its window (counted at 4 characters a token, as English runs).
let refuse: (text: string) => boolean = () => false;

before(async () => {
  const registry = JSON.parse(readFileSync(new URL('../../config/models.json', import.meta.url), 'utf8'));
  registry.models.push({ id: 'vllm-8k', kind: 'chat', provider: 'vllm', contextWindow: WINDOW, maxOutputTokens: 2048, pricing: { inputPerMTok: 0, cachedInputPerMTok: 0, outputPerMTok: 0 }, supportsStrictJsonSchema: false });
  writeFileSync(path.join(dir, 'models.json'), JSON.stringify(registry));
  server = await startFakeLlmServer();
  const model = scriptedModel();
  server.setHandler((req) => {
    const text = JSON.stringify(req.body.messages);
    const want = Math.ceil(text.length / 4) + (req.body.max_tokens ?? 0);
    if (want > WINDOW || refuse(text)) {
      const message = `This model's maximum context length is ${WINDOW} tokens. However, you requested ${want} tokens.`;
      return { type: 'raw', status: 400, body: JSON.stringify({ object: 'error', message, type: 'BadRequestError', param: null, code: 400 }) };
    }
    return model(req);
  });
  rt = await startTestRuntime({ MATCH_ENGINE: 'llm', LLM_BASE_URL: server.url, LLM_MODEL: 'vllm-8k', MODEL_REGISTRY_PATH: path.join(dir, 'models.json'), LLM_MAX_RETRIES: '0', RUN_MAX_ATTEMPTS: '1' });
  const long = `Staff Go engineer on Kubernetes and gRPC. ${'Led migrations of billing services to Go microservices and mentored engineers. '.repeat(500)}`;
  // Forty more with resumes of ~1,500 characters: thirty such excerpts in one rerank batch are ~15,000 tokens.
  const filler = Array.from({ length: 40 }, (_, i) =>
    candidate(`mid-${i}`, { headline: 'Go engineer', yearsExperience: 4, skills: ['Go'], resume: `Go engineer ${i}. ${'Built Go services with gRPC and Postgres for payments teams. '.repeat(25)}` }),
  );
  const candidates = [...backendPool(), candidate('long', { headline: 'Staff Go engineer', yearsExperience: 12, skills: ['Go', 'Kubernetes', 'gRPC'], resume: long }), ...filler];
  assert.equal((await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates } })).statusCode, 200);
});

after(async () => {
  await rt.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(body: object) {
  const id = (await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: body })).json().id as string;
  return waitFor(async () => {
    const r = (await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() })).json();
    return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
  }, 60_000, 'the run to end');
}

test("every request fits the model's window: a 40,000-character resume is scored on a cut, a pool of forty is reranked", async () => {
  const from = server.requests.length;
  const r = await run({ role: GO_ROLE, maxIterations: 1, scoreLimit: 50 });
  assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
  const sent = server.requests.slice(from);
  assert.ok(sent.some((q) => q.agent === 'reranker'));
  assert.ok(sent.filter((q) => q.body.messages).every((q) => Math.ceil(JSON.stringify(q.body.messages).length / 4) + (q.body.max_tokens ?? 0) <= WINDOW), 'no request past the window');
  const long = r.shortlist.find((e: { externalId: string }) => e.externalId === 'long');
  assert.ok(long, 'the long resume was scored');
});

test('a candidate the server still finds too long is left unscored with the reason; the others are scored', async () => {
  refuse = (text) => text.includes('Staff Go engineer on Kubernetes') && !text.includes('# Candidates (');
  try {
    const from = server.requests.length;
    const r = await run({ role: GO_ROLE, maxIterations: 1, scoreLimit: 50 });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.ok(r.shortlist.length > 0);
    assert.ok(!r.shortlist.some((e: { externalId: string }) => e.externalId === 'long'));
    const events = (await rt.app!.inject({ url: `/v1/matching-runs/${r.id}/events?limit=100`, headers: rt.auth() })).json().items;
    const unscored = events.filter((e: { type: string }) => e.type === 'candidate.unscored');
    assert.deepEqual(unscored.map((e: { data: { reason: string } }) => e.data.reason), ["the resume does not fit the model's context window"]);
    assert.ok(server.requests.slice(from).some((q) => q.agent === 'scorer'));
  } finally {
    refuse = () => false;
  }
});

test('a role so long that little of a resume would fit leaves its candidates unscored, not scored on a resume cut to nothing', async () => {
  const from = server.requests.length;
  const description = `${GO_ROLE.description} ${'We build payment services in Go with gRPC and Postgres for merchants across Europe. '.repeat(240)}`;
  const r = await run({ role: { ...GO_ROLE, description }, maxIterations: 1, scoreLimit: 3 });
  assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
  assert.equal(r.shortlist.length, 0, 'no score from an empty resume');
  const events = (await rt.app!.inject({ url: `/v1/matching-runs/${r.id}/events?limit=100`, headers: rt.auth() })).json().items;
  const reasons = events.filter((e: { type: string }) => e.type === 'candidate.unscored').map((e: { data: { reason: string } }) => e.data.reason);
  assert.ok(reasons.length > 0 && reasons.every((x: string) => /too little room for the resume/.test(x)), JSON.stringify(reasons));
  assert.ok(!server.requests.slice(from).some((q) => q.agent === 'scorer'), 'no scorer request was sent');
});

test("the error of a request past the window says to match the registry's contextWindow to the server's", () => {
  const hint = failureHint(400, { model: 'vllm-8k', response_format: { type: 'json_schema' } }, "This model's maximum context length is 8192 tokens.");
  assert.match(String(hint), /context window.*contextWindow/);
  assert.doesNotMatch(String(hint), /json_schema/);
});
