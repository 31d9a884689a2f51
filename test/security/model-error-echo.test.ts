// A model server's error body that echoes the prompt without quoting it: what it echoes is ours (the request, which the
// audit trail keeps) and can hold a name the scrubber could not recognise ("with my mentor Sam Keller"), so no log
// line, run error or ledger row carries it; the server's own words (what went wrong) are kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeReply, startFakeLlmServer } from '../support/fake-llm-server.js';
import { candidate, GO_ROLE } from '../support/fixtures.js';
import { startRunUntil, startTestRuntime } from '../support/runtime.js';
import { scriptedModel, userText } from '../support/scripted-model.js';

const NAME = 'Sam Keller';
const EMAIL = 'sam.keller@example.com';
// No name field, and a name in the prose that no words introduce: the scrubber cannot tell it from other words, so the
// prompt has it ("colleagues call me Sam Keller" it now finds).
const SAM = candidate('sk', {
  name: undefined,
  email: undefined,
  skills: ['Go', 'Kubernetes'],
  resume: `Backend engineer with 8 years in Go; with my mentor ${NAME}, I led the Go migration of the billing ledger on Kubernetes at Acme. Reach me at ${EMAIL}.`,
});

/**
 * What a gateway answers for a prompt its input filter refused, followed by the start of the prompt as a proxy appends
 * it. (A prompt too long for the window would leave the candidate unscored, not fail the run: llm-context-window.test.ts.)
 */
function inputRefusedError(prompt: string): string {
  const at = Math.max(0, prompt.indexOf(NAME) - 120);
  return `The input was refused by the gateway's input policy (rule 7). Request excerpt: ${prompt.slice(at, at + 260)}`;
}

test('a run failing on a model error whose body echoes the prompt logs the status, code, type and the server’s words, never the echoed name', async () => {
  const server = await startFakeLlmServer();
  let echoed = '';
  server.setHandler(
    scriptedModel({
      override: (req) => {
        if (req.agent !== 'scorer') return undefined;
        echoed = userText(req);
        return fakeReply.error(400, inputRefusedError(echoed), 'input_refused');
      },
    }),
  );
  const rt = await startTestRuntime({ MATCH_ENGINE: 'llm', LLM_BASE_URL: server.url, LLM_API_KEY: 'sk-test-echo', LLM_MODEL: 'fake-chat', LLM_MAX_RETRIES: '0', RUN_MAX_ATTEMPTS: '1' });
  try {
    assert.equal((await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: [SAM] } })).statusCode, 200);
    const run = await startRunUntil(rt, { role: GO_ROLE, maxIterations: 1, scoreLimit: 1 }, 'failed');
    const id = run.id as string;
    // The echo is realistic: the prompt the scorer was sent holds the name (and the scrubbed email).
    assert.ok(echoed.includes(NAME) && echoed.includes('[EMAIL]') && !echoed.includes(EMAIL), 'the prompt holds the name, not the email');

    const failed = rt.logs.find((l) => l.msg === 'run failed' && l.runId === id);
    assert.ok(failed, rt.logText());
    const ledger = (await rt.db.query<{ error: string | null }>("SELECT error FROM model_calls WHERE outcome <> 'ok'")).rows;
    assert.ok(ledger.length > 0);
    for (const [where, text] of [['the log', rt.logText()], ['the run’s error', JSON.stringify(run.error)], ['the ledger', JSON.stringify(ledger)]] as const) {
      for (const piece of [NAME, 'Keller', 'sam.keller']) {
        const at = text.indexOf(piece);
        assert.ok(at < 0, `"${piece}" in ${where}: ${text.slice(Math.max(0, at - 600), at + 200)}`);
      }
    }
    const err = failed.err as Record<string, unknown>;
    assert.equal(err.code, 'model_call_failed');
    assert.equal(err.status, 400);
    const cause = err.cause as Record<string, unknown>;
    assert.deepEqual([cause.status, cause.code, cause.errorType], [400, 'input_refused', 'invalid_request_error']);
    // What the operator and the run's owner act on is still there.
    for (const text of [String(err.message), String(cause.message), run.error.detail as string]) {
      assert.match(text, /The input was refused by the gateway's input policy \(rule 7\)\. Request excerpt/);
    }
  } finally {
    await rt.close();
    await server.close();
  }
});

test('an HTTP 200 whose body is an error echoing the prompt leaves no echo in the ledger, which erasure never reaches', async () => {
  const server = await startFakeLlmServer();
  server.setHandler(
    scriptedModel({
      override: (req) => {
        if (req.agent !== 'scorer') return undefined;
        return { type: 'raw', status: 200, body: JSON.stringify({ error: { message: `content flagged: ${userText(req).slice(userText(req).indexOf(NAME) - 60, userText(req).indexOf(NAME) + 40)}`, code: 'context_length_exceeded' } }) };
      },
    }),
  );
  const rt = await startTestRuntime({ MATCH_ENGINE: 'llm', LLM_BASE_URL: server.url, LLM_API_KEY: 'sk-test-echo', LLM_MODEL: 'fake-chat', LLM_MAX_RETRIES: '0', RUN_MAX_ATTEMPTS: '1' });
  try {
    assert.equal((await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: [SAM] } })).statusCode, 200);
    const run = await startRunUntil(rt, { role: GO_ROLE, maxIterations: 1, scoreLimit: 1 }, 'failed');
    const ledger = (await rt.db.query<{ error: string | null }>("SELECT error FROM model_calls WHERE outcome <> 'ok'")).rows;
    assert.ok(ledger.length > 0);
    for (const [where, text] of [['the run’s error', JSON.stringify(run.error)], ['the ledger', JSON.stringify(ledger)]] as const) {
      for (const piece of [NAME, 'Keller', 'billing ledger']) {
        const at = text.indexOf(piece);
        assert.ok(at < 0, `"${piece}" in ${where}: ${text.slice(Math.max(0, at - 300), at + 100)}`);
      }
    }
  } finally {
    await rt.close();
    await server.close();
  }
});
