// Model exchanges in the audit trail: how one is recorded, and an openai client that answers only from recordings.
import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import { AGENT_HEADER, type ModelExchange } from '../llm/chat.js';
import { stableStringify } from '../llm/structured.js';
import { redactSecrets } from '../text/log-safe-text.js';

// Fields a client may vary between two sends of the same request; none of them changes what the model is asked.
const VOLATILE_FIELDS = ['user', 'metadata', 'store', 'stream_options', 'service_tier', 'prompt_cache_key'];

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** sha256 of the request body as sent (key order ignored, volatile fields dropped): the key a replay matches on. */
export function requestHash(body: unknown): string {
  const plain = JSON.parse(JSON.stringify(body ?? null)) as Record<string, unknown> | null;
  if (plain && typeof plain === 'object') for (const field of VOLATILE_FIELDS) delete plain[field];
  return sha256(stableStringify(plain));
}

export interface ExchangeRecord {
  iteration: number;
  agent: string;
  model: string;
  attempt: number;
  outcome: string;
  requestId: string | null;
  latencyMs: number;
  candidateIds: string[];
  requestHash: string;
  /** sha256 of the output schema sent (response_format), null when none was. */
  schemaHash: string | null;
  request: unknown;
  response: unknown;
  error: { status: number | null; message: string } | null;
}

/** The trail row of one attempt: scrubbed request and raw answer as they crossed the wire, hashed for replay. */
export function exchangeRecord(x: ModelExchange, iteration: number): ExchangeRecord {
  const format = x.request.response_format;
  return {
    iteration,
    agent: x.agent,
    model: x.model,
    attempt: x.attempt,
    outcome: x.outcome,
    requestId: x.requestId,
    latencyMs: Math.round(x.latencyMs),
    candidateIds: x.candidateIds,
    requestHash: requestHash(x.request),
    schemaHash: format?.type === 'json_schema' ? sha256(stableStringify(format.json_schema)) : null,
    request: x.request,
    // A server (or a gateway) may repeat the provider key in its answer, an error inside an HTTP 200 among them: the
    // trail, which the organisation's users read, holds it cut, as the error beside it is.
    response: redactedDeep(x.response),
    error: x.error,
  };
}

/** Every string in a JSON value with the process's secrets cut (redactSecrets); the value itself is not changed. */
function redactedDeep(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map(redactedDeep);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactedDeep(v)]));
  return value;
}

export interface ReplayStats {
  /** Requests answered from the recording. */
  served: number;
  /** Requests nobody recorded an answer for: each one failed loudly. */
  unrecorded: Array<{ agent: string | null; requestHash: string }>;
}

function problem(status: number, message: string): Response {
  return new Response(JSON.stringify({ error: { message, type: 'invalid_request_error', code: 'replay_unrecorded' } }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

/**
 * A fetch that never touches the network: each request is answered with the next recorded answer to the same
 * request (by requestHash, in trail order). Anything unrecorded gets a 400, which the model layer never retries.
 */
export function createReplayFetch(recorded: Array<Pick<ExchangeRecord, 'requestHash' | 'response' | 'requestId'> & Partial<Pick<ExchangeRecord, 'error'>>>) {
  const answers = new Map<string, Array<{ response: unknown; requestId: string | null }>>();
  for (const r of recorded) {
    // An attempt that failed (an error inside an HTTP 200 among them) was retried by the run: the replay, which does
    // not retry, is served the answer that was used.
    if (r.response === null || r.response === undefined || r.error) continue;
    const list = answers.get(r.requestHash) ?? [];
    list.push({ response: r.response, requestId: r.requestId });
    answers.set(r.requestHash, list);
  }
  const stats: ReplayStats = { served: 0, unrecorded: [] };

  async function fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const agent = new Headers(init?.headers).get(AGENT_HEADER);
    if (!url.endsWith('/chat/completions') || typeof init?.body !== 'string') {
      stats.unrecorded.push({ agent, requestHash: `(${url})` });
      return problem(400, `replay: ${url} is not a recorded kind of request`);
    }
    const hash = requestHash(JSON.parse(init.body));
    const next = answers.get(hash)?.shift();
    if (!next) {
      stats.unrecorded.push({ agent, requestHash: hash });
      return problem(400, `replay: no recorded answer for this ${agent ?? 'model'} request (sha256 ${hash})`);
    }
    stats.served++;
    return new Response(JSON.stringify(next.response), {
      status: 200,
      headers: { 'content-type': 'application/json', 'x-request-id': next.requestId ?? 'replay' },
    });
  }

  return { fetch, stats };
}

/** An openai client over the replay fetch; like ours it never retries, and it reads nothing from the environment. */
export function createReplayClient(replayFetch: ReturnType<typeof createReplayFetch>['fetch']): OpenAI {
  return new OpenAI({
    apiKey: 'replay',
    baseURL: 'http://replay.invalid/v1',
    organization: null,
    project: null,
    webhookSecret: null,
    adminAPIKey: null,
    logLevel: 'off',
    maxRetries: 0,
    fetch: replayFetch,
  });
}
