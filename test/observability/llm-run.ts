// A recorded llm run through the fake provider for the observability tests: two rounds, a retried attempt,
// a re-ask that succeeds, a candidate left unscored, PII canaries in the pool, and what the provider reported.
import assert from 'node:assert/strict';
import { fakeReply, startFakeLlmServer, type FakeLlmServer, type FakeUsage } from '../support/fake-llm-server.js';
import { backendPool, candidate, GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/runtime.js';
import { scriptedModel, userText } from '../support/scripted-model.js';

/** Personal data that may live only in the candidate's own columns: never in logs, prompts or the trail. */
export const CANARY = {
  name: 'Quillon Vantablack',
  email: 'quillon.vantablack@canary.example',
  phone: '+44 20 7946 0321',
  /** A resume word: scrubbed text may reach prompts and the trail, never a log line. */
  resumeWord: 'zorblaxian',
};

export const REFLECTOR_STOP = 'Two rounds found nobody stronger; the pool looks exhausted.';
const UNSCORABLE = 'quasarquill';
const REASK_ONCE = 'nimbostrata';
const USAGE: FakeUsage = { promptTokens: 400, completionTokens: 60 };

/** What the fake provider reported back, summed over every answer it gave (errors report nothing). */
export interface Served {
  answers: number;
  promptTokens: number;
  completionTokens: number;
}

export interface LlmRig {
  rt: TestRuntime;
  server: FakeLlmServer;
  served: Served;
  close(): Promise<void>;
}

export function pool() {
  return [
    ...backendPool().slice(0, 5),
    candidate('canary', {
      name: CANARY.name,
      email: CANARY.email,
      phone: CANARY.phone,
      headline: 'Backend engineer',
      skills: ['Go', 'Kubernetes'],
      resume: `${CANARY.name}\n${CANARY.email} · ${CANARY.phone}\nGo engineer on Kubernetes; built the ${CANARY.resumeWord} billing engine.`,
    }),
    candidate('unscorable', { skills: ['Go'], resume: `Go developer; maintains the ${UNSCORABLE} scheduler on Kubernetes.` }),
    candidate('reask', { skills: ['Go'], resume: `Go developer; wrote the ${REASK_ONCE} gRPC gateway.` }),
  ];
}

/**
 * The scripted model, with faults: the first scorer request gets a 500 (retried), the reask candidate's first
 * answer is invalid (re-asked, then valid), the unscorable candidate's answers are always invalid.
 */
function handlerWith(served: Served) {
  let failedOnce = false;
  const model = scriptedModel({
    usage: USAGE,
    reflect: (req) =>
      userText(req).includes('"iteration":2')
        ? { stop: true, reasoning: REFLECTOR_STOP, hints: [] }
        : { stop: false, reasoning: 'Some fit; search once more.', hints: ['platform engineer'] },
    override: (req) => {
      if (req.agent !== 'scorer') return undefined;
      const text = userText(req);
      if (!failedOnce) {
        failedOnce = true;
        return fakeReply.serverError(500);
      }
      if (text.includes(UNSCORABLE)) return fakeReply.invalidJson(USAGE);
      if (text.includes(REASK_ONCE) && !text.includes('previous answer was rejected')) return fakeReply.invalidJson(USAGE);
      return undefined;
    },
  });
  return async (req: Parameters<typeof model>[0]) => {
    const reply = await model(req);
    if (reply?.type === 'chat') {
      served.answers++;
      served.promptTokens += reply.usage?.promptTokens ?? 0;
      served.completionTokens += reply.usage?.completionTokens ?? 0;
    }
    return reply;
  };
}

export async function startLlmRig(env: Record<string, string> = {}): Promise<LlmRig> {
  const server = await startFakeLlmServer();
  const served: Served = { answers: 0, promptTokens: 0, completionTokens: 0 };
  server.setHandler(handlerWith(served));
  const rt = await startTestRuntime({
    MATCH_ENGINE: 'llm',
    LLM_BASE_URL: server.url,
    LLM_API_KEY: 'sk-test-observability',
    LLM_MODEL: 'fake-chat',
    LLM_REASK_LIMIT: '1',
    LLM_MAX_RETRIES: '2',
    ...env,
  });
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: pool() } });
  assert.equal(res.statusCode, 200, res.body);
  return {
    rt,
    server,
    served,
    async close() {
      await rt.close();
      await server.close();
    },
  };
}

export async function runToEnd(rt: TestRuntime, body: Record<string, unknown> = {}, headers: Record<string, string> = rt.auth()) {
  const res = await rt.app!.inject({
    method: 'POST',
    url: '/v1/matching-runs',
    headers,
    payload: { role: GO_ROLE, maxIterations: 3, scoreThreshold: 90, targetStrong: 50, scoreLimit: 5, ...body },
  });
  assert.equal(res.statusCode, 202, res.body);
  const id = res.json().id as string;
  return waitFor(async () => {
    const run = (await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers })).json();
    return ['succeeded', 'failed', 'cancelled'].includes(run.status) ? run : null;
  }, 60_000, `run ${id} to finish`);
}

/** The standard recorded run: two rounds, ended by the reflector. */
export async function recordedRun(rt: TestRuntime) {
  const run = await runToEnd(rt);
  assert.equal(run.status, 'succeeded', JSON.stringify(run.error));
  assert.equal(run.stop.reason, 'reflector', JSON.stringify(run.stop));
  assert.equal(run.stop.iteration, 2);
  return run;
}
